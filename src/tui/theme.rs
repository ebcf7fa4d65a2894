//! Colours and emphasis: the embedded default (`assets/theme.toml`, Okabe-Ito), user overrides,
//! and a monochrome theme when `NO_COLOR` is set.

use std::collections::HashMap;

use ratatui::style::{Color, Modifier, Style};

/// The embedded default theme.
pub const DEFAULT_THEME: &str = include_str!("../../assets/theme.toml");

/// Styles the views draw with.
#[derive(Debug, Clone)]
pub struct Theme {
    /// No colours: emphasis by modifiers only.
    pub mono: bool,
    labels: HashMap<String, Color>,
    ui: HashMap<String, Color>,
}

impl Theme {
    /// The embedded default theme, monochrome when `mono`.
    ///
    /// # Panics
    /// Never in a released build: the embedded file is checked by a unit test.
    #[must_use]
    pub fn defaults(mono: bool) -> Self {
        let mut t = Self {
            mono,
            labels: HashMap::new(),
            ui: HashMap::new(),
        };
        #[allow(clippy::expect_used)]
        let table: toml::Table = toml::from_str(DEFAULT_THEME).expect("embedded theme is TOML");
        #[allow(clippy::expect_used)]
        t.overlay(&table).expect("embedded theme is valid");
        t
    }

    /// True when `NO_COLOR` is set to a non-empty value (<https://no-color.org>).
    #[must_use]
    pub fn no_color_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }

    /// Apply `[labels]` and `[ui]` entries on top of this theme.
    ///
    /// # Errors
    /// A message naming the bad table or colour.
    pub fn overlay(&mut self, table: &toml::Table) -> Result<(), String> {
        for (section, entries) in table {
            let target = match section.as_str() {
                "labels" => &mut self.labels,
                "ui" => &mut self.ui,
                other => return Err(format!("unknown theme table [{other}] (labels, ui)")),
            };
            let entries = entries
                .as_table()
                .ok_or_else(|| format!("[{section}] must be a table of name = \"#rrggbb\""))?;
            for (name, value) in entries {
                let s = value
                    .as_str()
                    .ok_or_else(|| format!("[{section}] {name}: colour must be a string"))?;
                let c: Color = s
                    .parse()
                    .map_err(|_| format!("[{section}] {name}: bad colour {s:?}"))?;
                target.insert(name.clone(), c);
            }
        }
        Ok(())
    }

    fn ui(&self, name: &str) -> Option<Color> {
        if self.mono {
            None
        } else {
            self.ui.get(name).copied()
        }
    }

    fn fg(&self, name: &str) -> Style {
        self.ui(name)
            .map_or_else(Style::default, |c| Style::default().fg(c))
    }

    /// Colour of a label.
    #[must_use]
    pub fn label_color(&self, label: &str) -> Option<Color> {
        if self.mono {
            return None;
        }
        self.labels
            .get(label)
            .or_else(|| self.labels.get("default"))
            .copied()
    }

    /// A label's name in its colour.
    #[must_use]
    pub fn label(&self, label: &str) -> Style {
        match self.label_color(label) {
            Some(c) => Style::default().fg(c).add_modifier(Modifier::BOLD),
            None => Style::default().add_modifier(Modifier::BOLD),
        }
    }

    /// A span under review, in its label's colour.
    #[must_use]
    pub fn span(&self, label: &str) -> Style {
        match (self.label_color(label), self.ui("span_fg")) {
            (Some(bg), fg) => Style::default().bg(bg).fg(fg.unwrap_or(Color::Black)),
            (None, _) => Style::default().add_modifier(Modifier::REVERSED),
        }
    }

    /// The selected span: its label's colour, bold and underlined.
    #[must_use]
    pub fn selected_span(&self, label: &str) -> Style {
        let base = match (self.label_color(label), self.ui("selected_fg")) {
            (Some(bg), fg) => Style::default().bg(bg).fg(fg.unwrap_or(Color::White)),
            (None, _) => Style::default().add_modifier(Modifier::REVERSED),
        };
        base.add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// A dropped span: struck through.
    #[must_use]
    pub fn dropped_span(&self) -> Style {
        self.fg("dim").add_modifier(Modifier::CROSSED_OUT)
    }

    /// A span from another source: underlined, sky blue.
    #[must_use]
    pub fn other_source(&self) -> Style {
        self.fg("other_source").add_modifier(Modifier::UNDERLINED)
    }

    /// An evidence or search occurrence.
    #[must_use]
    pub fn evidence(&self) -> Style {
        match (self.ui("evidence_bg"), self.ui("evidence_fg")) {
            (Some(bg), fg) => Style::default().bg(bg).fg(fg.unwrap_or(Color::Black)),
            _ => Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        }
    }

    /// The current evidence occurrence.
    #[must_use]
    pub fn evidence_current(&self) -> Style {
        self.evidence()
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED | Modifier::REVERSED)
    }

    /// The add-mode cursor and the span being marked.
    #[must_use]
    pub fn cursor(&self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED | Modifier::UNDERLINED)
    }

    /// "saved" messages.
    #[must_use]
    pub fn saved(&self) -> Style {
        self.fg("saved").add_modifier(Modifier::BOLD)
    }

    /// Error messages.
    #[must_use]
    pub fn error(&self) -> Style {
        self.fg("error").add_modifier(Modifier::BOLD)
    }

    /// Stale decisions.
    #[must_use]
    pub fn stale(&self) -> Style {
        self.fg("stale").add_modifier(Modifier::BOLD)
    }

    /// Titles and keys in hints.
    #[must_use]
    pub fn accent(&self) -> Style {
        self.fg("accent").add_modifier(Modifier::BOLD)
    }

    /// Secondary text.
    #[must_use]
    pub fn dim(&self) -> Style {
        if self.mono {
            Style::default().add_modifier(Modifier::DIM)
        } else {
            self.fg("dim")
        }
    }

    /// Escaped control characters.
    #[must_use]
    pub fn escape(&self) -> Style {
        self.fg("escape").add_modifier(Modifier::ITALIC)
    }

    /// Inserted text in a diff.
    #[must_use]
    pub fn diff_add(&self) -> Style {
        self.fg("diff_add")
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// Deleted text in a diff.
    #[must_use]
    pub fn diff_del(&self) -> Style {
        self.fg("diff_del").add_modifier(Modifier::CROSSED_OUT)
    }

    /// Arbitration lane `lane` (0-based): its colour (cycling through eight), and a glyph of
    /// its own so that lanes differ without colour too.
    #[must_use]
    pub fn lane(&self, lane: usize) -> (Style, &'static str) {
        const GLYPHS: [&str; 8] = ["━", "═", "▀", "▄", "┅", "─", "▬", "┉"];
        let name = format!("lane{}", lane % 8 + 1);
        (
            self.fg(&name).add_modifier(Modifier::BOLD),
            GLYPHS[lane % 8],
        )
    }

    /// The reviewed-result lane.
    #[must_use]
    pub fn lane_result(&self) -> (Style, &'static str) {
        (self.fg("lane_result").add_modifier(Modifier::BOLD), "▒")
    }

    /// A selected row in a list.
    #[must_use]
    pub fn list_selected(&self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_mono_has_no_colour() {
        let t = Theme::defaults(false);
        assert_eq!(
            t.label_color("missing_tool"),
            Some(Color::Rgb(0, 0x72, 0xB2))
        );
        assert_eq!(
            t.label_color("whatever"),
            Some(Color::Rgb(0xCC, 0x79, 0xA7))
        );
        let m = Theme::defaults(true);
        assert_eq!(m.label_color("missing_tool"), None);
        assert_eq!(m.span("missing_tool").bg, None);
        assert!(m.span("x").add_modifier.contains(Modifier::REVERSED));
    }

    #[test]
    fn bad_colour_is_reported() {
        let mut t = Theme::defaults(false);
        let tab: toml::Table = toml::from_str("[ui]\nsaved = \"#zzz\"\n").expect("toml");
        assert!(t.overlay(&tab).expect_err("bad").contains("bad colour"));
    }
}
