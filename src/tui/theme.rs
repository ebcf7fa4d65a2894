//! Colours and emphasis: the embedded default (`assets/theme.toml`, Okabe-Ito), user overrides,
//! a monochrome theme under `--color never` (or `NO_COLOR`), and the theme's RGB colours mapped
//! to the nearest of the xterm 256 when the terminal does not say it shows true colour.

use std::collections::HashMap;

use ratatui::style::{Color, Modifier, Style};

/// The embedded default theme.
pub const DEFAULT_THEME: &str = include_str!("../../assets/theme.toml");

/// `--color`: whether the review screen (and clap's help) uses colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour unless `NO_COLOR` is set (to anything but the empty string).
    #[default]
    Auto,
    /// Colour even when `NO_COLOR` is set.
    Always,
    /// No colour: emphasis by bold, underline and reverse video only.
    Never,
}

/// The colours the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Depth {
    /// 24-bit colour: the theme's RGB as it is.
    #[default]
    TrueColor,
    /// The xterm 256-colour palette: each RGB colour becomes its nearest index.
    Ansi256,
}

impl Depth {
    /// True colour when `COLORTERM` says so (`truecolor` or `24bit`), else 256 colours: a
    /// terminal without true colour shows an RGB escape as some other colour, or not at all.
    #[must_use]
    pub fn from_env() -> Self {
        Self::from_colorterm(std::env::var("COLORTERM").ok().as_deref())
    }

    /// The depth a `COLORTERM` value stands for.
    #[must_use]
    pub fn from_colorterm(value: Option<&str>) -> Self {
        match value.map(str::trim) {
            Some(v) if v.eq_ignore_ascii_case("truecolor") || v.eq_ignore_ascii_case("24bit") => {
                Self::TrueColor
            }
            _ => Self::Ansi256,
        }
    }
}

/// The xterm 256-colour index nearest to an RGB colour, among the 6×6×6 cube (16–231) and the
/// grey ramp (232–255); the first 16 are left out, as each terminal sets them its own way.
#[must_use]
pub fn nearest_256(r: u8, g: u8, b: u8) -> u8 {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let level = |c: u8| -> u8 {
        (0..6u8)
            .min_by_key(|&i| c.abs_diff(LEVELS[usize::from(i)]))
            .unwrap_or(0)
    };
    let dist = |(r2, g2, b2): (u8, u8, u8)| -> u32 {
        [(r, r2), (g, g2), (b, b2)]
            .iter()
            .map(|&(a, b)| u32::from(a.abs_diff(b)).pow(2))
            .sum()
    };
    let (ri, gi, bi) = (level(r), level(g), level(b));
    let cube = 16 + 36 * ri + 6 * gi + bi;
    let cube_rgb = (
        LEVELS[usize::from(ri)],
        LEVELS[usize::from(gi)],
        LEVELS[usize::from(bi)],
    );
    // Grey ramp: 8, 18, ..., 238; the nearest to the mean of the three channels.
    let mean = (u16::from(r) + u16::from(g) + u16::from(b)) / 3;
    let step = u8::try_from((mean.saturating_sub(3) / 10).min(23)).unwrap_or(23);
    let grey = 8 + 10 * step;
    if dist((grey, grey, grey)) < dist(cube_rgb) {
        232 + step
    } else {
        cube
    }
}

/// Styles the views draw with.
#[derive(Debug, Clone)]
pub struct Theme {
    /// No colours: emphasis by modifiers only.
    pub mono: bool,
    /// How RGB colours are written to the terminal.
    pub depth: Depth,
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
            depth: Depth::TrueColor,
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

    /// Apply `--color` and the terminal's depth: `never` is monochrome, `always` is colour even
    /// under `NO_COLOR`, `auto` monochrome only under it (`no_color`).
    pub fn set_color(&mut self, choice: ColorChoice, no_color: bool, depth: Depth) {
        self.mono = match choice {
            ColorChoice::Never => true,
            ColorChoice::Always => false,
            ColorChoice::Auto => no_color,
        };
        self.depth = depth;
    }

    /// A colour as the terminal can show it.
    fn paint(&self, c: Color) -> Color {
        match (self.depth, c) {
            (Depth::Ansi256, Color::Rgb(r, g, b)) => Color::Indexed(nearest_256(r, g, b)),
            _ => c,
        }
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
            self.ui.get(name).map(|&c| self.paint(c))
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
            .map(|&c| self.paint(c))
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

    /// Code of class `class` (syntax colour, a diff's lines); nothing under `--color never`
    /// but a diff's header in bold.
    #[must_use]
    pub fn code(&self, class: crate::tui::code::Class) -> Style {
        use crate::tui::code::Class;
        match class {
            Class::Plain => Style::default(),
            Class::Keyword => self.fg("code_keyword"),
            Class::Str => self.fg("code_string"),
            Class::Comment => self.fg("code_comment").add_modifier(Modifier::ITALIC),
            Class::Number => self.fg("code_number"),
            Class::Name => self.fg("code_name"),
            Class::Added => self.fg("diff_add"),
            Class::Removed => self.fg("diff_del"),
            Class::Hunk => self.fg("accent"),
            Class::Header => Style::default().add_modifier(Modifier::BOLD),
        }
    }

    /// A code gutter's mark: `-` of an edit's old block, `+` of its new block, in the diff
    /// colours (bold, so that `--color never` still tells them apart by more than the glyph).
    #[must_use]
    pub fn code_mark(&self, new: bool) -> Style {
        self.fg(if new { "diff_add" } else { "diff_del" })
            .add_modifier(Modifier::BOLD)
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

    #[rstest::rstest]
    #[case::black((0, 0, 0), 16)]
    #[case::white((255, 255, 255), 231)]
    #[case::okabe_ito_blue((0x00, 0x72, 0xB2), 25)]
    #[case::okabe_ito_orange((0xE6, 0x9F, 0x00), 178)]
    #[case::mid_grey_takes_the_ramp((128, 128, 128), 244)]
    #[case::near_black_grey((10, 10, 10), 232)]
    #[case::pure_red((255, 0, 0), 196)]
    fn rgb_maps_to_the_nearest_xterm_256_index(#[case] rgb: (u8, u8, u8), #[case] want: u8) {
        assert_eq!(nearest_256(rgb.0, rgb.1, rgb.2), want, "{rgb:?}");
    }

    #[rstest::rstest]
    #[case(Some("truecolor"), Depth::TrueColor)]
    #[case(Some("24bit"), Depth::TrueColor)]
    #[case(Some("TrueColor\n"), Depth::TrueColor)]
    #[case(Some("yes"), Depth::Ansi256)]
    #[case(Some(""), Depth::Ansi256)]
    #[case(None, Depth::Ansi256)]
    fn colorterm_decides_true_colour(#[case] value: Option<&str>, #[case] want: Depth) {
        assert_eq!(Depth::from_colorterm(value), want, "{value:?}");
    }

    #[test]
    fn without_true_colour_every_colour_is_a_256_index() {
        let mut t = Theme::defaults(false);
        t.set_color(ColorChoice::Auto, false, Depth::Ansi256);
        assert_eq!(t.label_color("missing_tool"), Some(Color::Indexed(25)));
        for style in [t.saved(), t.error(), t.accent(), t.lane(3).0, t.span("x")] {
            for c in [style.fg, style.bg].into_iter().flatten() {
                assert!(!matches!(c, Color::Rgb(..)), "{style:?}");
            }
        }
        assert!(t.saved().fg.is_some());
    }

    #[rstest::rstest]
    #[case(ColorChoice::Never, false, true)]
    #[case(ColorChoice::Never, true, true)]
    #[case(ColorChoice::Auto, false, false)]
    #[case(ColorChoice::Auto, true, true)]
    #[case(ColorChoice::Always, true, false)]
    fn color_choice_and_no_color_decide_monochrome(
        #[case] choice: ColorChoice,
        #[case] no_color: bool,
        #[case] mono: bool,
    ) {
        let mut t = Theme::defaults(false);
        t.set_color(choice, no_color, Depth::TrueColor);
        assert_eq!(t.mono, mono);
        assert_eq!(t.label_color("missing_tool").is_none(), mono);
        assert_eq!(t.saved().fg.is_none(), mono);
    }

    #[test]
    fn bad_colour_is_reported() {
        let mut t = Theme::defaults(false);
        let tab: toml::Table = toml::from_str("[ui]\nsaved = \"#zzz\"\n").expect("toml");
        assert!(t.overlay(&tab).expect_err("bad").contains("bad colour"));
    }
}
