//! Configuration layering: embedded defaults < user file in the config dir < the file named by
//! `SPANREVIEW_CONFIG`. A file holds optional `[keymap.MODE]` and `[theme.labels]`/`[theme.ui]`
//! tables; each entry overrides one key or colour. `rubric = "FILE.toml"` names the rubric whose
//! reason codes the drop, remove and flag prompts offer (a path relative to the config file's
//! folder; `review --rubric` overrides it).

use std::path::{Path, PathBuf};

use super::keymap::Keymap;
use super::theme::Theme;
use crate::review::rubric::Rubric;

/// The environment variable naming an extra config file.
pub const CONFIG_ENV: &str = "SPANREVIEW_CONFIG";

/// Keymap and theme in force.
#[derive(Debug, Clone)]
pub struct Config {
    /// Keys to actions.
    pub keymap: Keymap,
    /// Styles.
    pub theme: Theme,
    /// The reason codes offered when a span is dropped, a record removed or flagged.
    pub rubric: Option<Rubric>,
    /// How long a frame may spend colouring code (the rest is coloured by the next frames);
    /// `None`: all of it at once (tests and snapshots draw whole screens). The terminal's
    /// event loop sets it ([`crate::tui::terminal::run`]).
    pub colour_budget: Option<std::time::Duration>,
}

impl Config {
    /// The embedded defaults only (tests, snapshots).
    #[must_use]
    pub fn defaults(mono: bool) -> Self {
        Self {
            keymap: Keymap::defaults(),
            theme: Theme::defaults(mono),
            rubric: None,
            colour_budget: None,
        }
    }

    /// The user's config file in the platform config dir (`~/.config/spanreview/config.toml`).
    #[must_use]
    pub fn user_path() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "spanreview")
            .map(|d| d.config_dir().join("config.toml"))
    }

    /// Defaults, then the user file if it exists, then `$SPANREVIEW_CONFIG`; `NO_COLOR` decides
    /// monochrome.
    ///
    /// # Errors
    /// A file that cannot be read or holds a bad entry; the message names the file.
    pub fn load() -> Result<Self, String> {
        let mut c = Self::defaults(Theme::no_color_env());
        if let Some(p) = Self::user_path().filter(|p| p.exists()) {
            c.apply_file(&p)?;
        }
        if let Some(p) = std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
            c.apply_file(Path::new(&p))?;
        }
        Ok(c)
    }

    /// Apply one config file.
    ///
    /// # Errors
    /// The file cannot be read, is not TOML, or holds an unknown key, action or colour.
    pub fn apply_file(&mut self, path: &Path) -> Result<(), String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let folder = path.parent().unwrap_or_else(|| Path::new(""));
        self.apply_in(&text, folder)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Apply config text.
    ///
    /// # Errors
    /// Not TOML, an unknown table, key, action or colour.
    pub fn apply_str(&mut self, text: &str) -> Result<(), String> {
        self.apply_in(text, Path::new(""))
    }

    /// Apply config text whose relative paths are relative to `folder`.
    fn apply_in(&mut self, text: &str, folder: &Path) -> Result<(), String> {
        let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        for (name, value) in &table {
            if name == "rubric" {
                let path = value
                    .as_str()
                    .ok_or_else(|| format!("rubric must be a file name, not {value}"))?;
                let rubric = crate::formats::rubric::read(&folder.join(path))
                    .map_err(|e| format!("{e:#}"))?;
                self.rubric = Some(rubric);
                continue;
            }
            let sub = value
                .as_table()
                .ok_or_else(|| format!("[{name}] must be a table"))?;
            match name.as_str() {
                "keymap" => self.keymap.overlay(sub)?,
                "theme" => self.theme.overlay(sub)?,
                other => return Err(format!("unknown table [{other}] (expected keymap, theme)")),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Action;
    use crate::tui::keymap::{Key, Mode};
    use ratatui::crossterm::event::KeyCode;

    #[test]
    fn partial_user_file_overrides_key_by_key() {
        let mut c = Config::defaults(false);
        c.apply_str("[keymap.normal]\ny = \"accept\"\n[theme.labels]\ncontradiction = \"red\"\n")
            .expect("valid");
        let k = |ch| Key::plain(KeyCode::Char(ch));
        assert_eq!(c.keymap.resolve(Mode::Normal, k('y')), Some(Action::Accept));
        assert_eq!(c.keymap.resolve(Mode::Normal, k('a')), Some(Action::Accept));
        assert_eq!(
            c.theme.label_color("contradiction"),
            Some(ratatui::style::Color::Red)
        );
        assert!(c.apply_str("[colours]\n").is_err());
    }

    #[test]
    fn the_config_names_a_rubric_relative_to_its_folder() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(dir.path().join("r.toml"), "[drop]\nV1 = \"supported °\"\n")
            .expect("rubric");
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "rubric = \"r.toml\"\n").expect("config");
        let mut c = Config::defaults(false);
        c.apply_file(&file).expect("valid");
        let r = c.rubric.expect("rubric");
        assert_eq!(r.describe("V1"), Some("supported °"));
        // A bad rubric names the config file, the rubric file and its line.
        std::fs::write(dir.path().join("r.toml"), "[drop]\nV1 = \"\"\n").expect("rubric");
        let e = Config::defaults(false)
            .apply_file(&file)
            .expect_err("bad rubric");
        assert!(
            e.contains("config.toml")
                && e.contains("r.toml:2: code \"V1\" has an empty description"),
            "{e}"
        );
        assert!(Config::defaults(false).apply_str("rubric = 3\n").is_err());
    }
}
