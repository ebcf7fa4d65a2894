//! Keys to actions, per mode: `keymap.resolve(mode, key) -> Option<Action>`.
//!
//! The default table is `assets/keymap.toml`, embedded; a user file overrides it key by key
//! (see [`super::config`]). Help and the status-line hints are generated from the active table.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

/// The embedded default keymap.
pub const DEFAULT_KEYMAP: &str = include_str!("../../assets/keymap.toml");

/// Input modes, each with its own key table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// Browsing and deciding.
    Normal,
    /// Moving a span's boundaries.
    Adjust,
    /// Marking a new span.
    Add,
    /// Choosing from a list (labels, reasons).
    Picker,
    /// Typing text (reason, note, go-to, search).
    Prompt,
    /// The help screen.
    Help,
    /// The tools panel.
    Tools,
    /// The arbitration screen: one lane per source, a cluster at a time.
    Arbitrate,
    /// The stats screen.
    Stats,
}

impl Mode {
    /// Every mode, in help order.
    pub const ALL: [Mode; 9] = [
        Self::Normal,
        Self::Arbitrate,
        Self::Adjust,
        Self::Add,
        Self::Picker,
        Self::Prompt,
        Self::Help,
        Self::Tools,
        Self::Stats,
    ];

    /// The table name in the keymap file.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::Adjust => "adjust",
            Self::Add => "add",
            Self::Picker => "picker",
            Self::Prompt => "prompt",
            Self::Help => "help",
            Self::Tools => "tools",
            Self::Arbitrate => "arbitrate",
            Self::Stats => "stats",
        }
    }

    fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// A key with its modifiers, normalised (shift is part of the character, not a modifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Ctrl held.
    pub ctrl: bool,
    /// Alt held.
    pub alt: bool,
}

impl Key {
    /// A plain key.
    #[must_use]
    pub fn plain(code: KeyCode) -> Self {
        Self {
            code,
            ctrl: false,
            alt: false,
        }
    }

    /// The key of a terminal key event.
    #[must_use]
    pub fn from_event(ev: KeyEvent) -> Self {
        let code = match ev.code {
            // Terminals report ctrl-R either way; bindings name the lower-case letter.
            KeyCode::Char(c) if ev.modifiers.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            KeyCode::BackTab => KeyCode::BackTab,
            other => other,
        };
        Self {
            code,
            ctrl: ev.modifiers.contains(KeyModifiers::CONTROL),
            alt: ev.modifiers.contains(KeyModifiers::ALT),
        }
    }

    /// The character typed, for text input: a plain or shifted character key.
    #[must_use]
    pub fn text(self) -> Option<char> {
        match self.code {
            KeyCode::Char(c) if !self.ctrl && !self.alt => Some(c),
            _ => None,
        }
    }
}

const NAMED: &[(&str, KeyCode)] = &[
    ("enter", KeyCode::Enter),
    ("esc", KeyCode::Esc),
    ("tab", KeyCode::Tab),
    ("backtab", KeyCode::BackTab),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("space", KeyCode::Char(' ')),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pageup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
];

impl FromStr for Key {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut key = Key::plain(KeyCode::Null);
        let mut rest = s;
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-") {
                key.ctrl = true;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-") {
                key.alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        key.code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(if key.ctrl { c.to_ascii_lowercase() } else { c }),
            _ => {
                let lower = rest.to_ascii_lowercase();
                if let Some((_, code)) = NAMED.iter().find(|(n, _)| *n == lower) {
                    *code
                } else if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                    KeyCode::F(n)
                } else {
                    return Err(format!(
                        "unknown key {s:?} (expected a character, ctrl-X, alt-X, enter, esc, \
                         tab, backspace, up, down, left, right, pageup, pagedown, f1..f12)"
                    ));
                }
            }
        };
        Ok(key)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// The active key tables.
#[derive(Debug, Clone, Default)]
pub struct Keymap {
    tables: HashMap<Mode, Vec<(Key, Action)>>,
}

impl Keymap {
    /// The embedded default keymap.
    ///
    /// # Panics
    /// Never in a released build: the embedded file is checked by a unit test.
    #[must_use]
    pub fn defaults() -> Self {
        let mut k = Self::default();
        #[allow(clippy::expect_used)]
        let table: toml::Table = toml::from_str(DEFAULT_KEYMAP).expect("embedded keymap is TOML");
        #[allow(clippy::expect_used)]
        k.overlay(&table).expect("embedded keymap is valid");
        k
    }

    /// Apply a `{mode: {key: action}}` table on top of this one, key by key. `"none"` unbinds.
    ///
    /// # Errors
    /// A message naming the unknown mode, key or action.
    pub fn overlay(&mut self, table: &toml::Table) -> Result<(), String> {
        for (mode_name, keys) in table {
            let mode = Mode::from_name(mode_name).ok_or_else(|| {
                format!(
                    "unknown mode [{mode_name}] (expected one of: {})",
                    Mode::ALL.map(Mode::name).join(", ")
                )
            })?;
            let keys = keys
                .as_table()
                .ok_or_else(|| format!("[{mode_name}] must be a table of key = \"action\""))?;
            let entries = self.tables.entry(mode).or_default();
            for (key_name, action) in keys {
                let key: Key = key_name.parse().map_err(|e| format!("[{mode_name}] {e}"))?;
                let action = action.as_str().ok_or_else(|| {
                    format!("[{mode_name}] {key_name:?}: the action must be a string")
                })?;
                entries.retain(|(k, _)| *k != key);
                if action == "none" {
                    continue;
                }
                let action = Action::from_name(action)
                    .filter(|a| Action::BINDABLE.contains(a))
                    .ok_or_else(|| {
                        format!("[{mode_name}] {key_name:?}: unknown action {action:?}")
                    })?;
                entries.push((key, action));
            }
        }
        Ok(())
    }

    /// The action bound to `key` in `mode`. Unbound plain characters are text input.
    #[must_use]
    pub fn resolve(&self, mode: Mode, key: Key) -> Option<Action> {
        self.tables
            .get(&mode)
            .and_then(|t| t.iter().find(|(k, _)| *k == key))
            .map(|(_, a)| *a)
            .or_else(|| key.text().map(Action::Input))
    }

    /// Keys bound to `action` in `mode`: plain characters first, then named keys, then
    /// chords.
    #[must_use]
    pub fn keys_for(&self, mode: Mode, action: Action) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .tables
            .get(&mode)
            .map(|t| {
                t.iter()
                    .filter(|(_, a)| *a == action)
                    .map(|(k, _)| *k)
                    .collect()
            })
            .unwrap_or_default();
        keys.sort_by_key(|k| {
            let rank = match (k.code, k.ctrl || k.alt) {
                (_, true) => 2,
                (KeyCode::Char(_), false) => 0,
                _ => 1,
            };
            (rank, k.to_string())
        });
        keys
    }

    /// The first key bound to `action` in `mode`, displayed (`?` when unbound).
    #[must_use]
    pub fn key_label(&self, mode: Mode, action: Action) -> String {
        self.keys_for(mode, action)
            .first()
            .map_or_else(|| "?".to_owned(), ToString::to_string)
    }

    /// Bound actions of `mode` with their keys, in help order.
    #[must_use]
    pub fn bindings(&self, mode: Mode) -> Vec<(Action, Vec<Key>)> {
        Action::BINDABLE
            .iter()
            .filter_map(|a| {
                let keys = self.keys_for(mode, *a);
                (!keys.is_empty()).then_some((*a, keys))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn ev(code: KeyCode, m: KeyModifiers) -> Key {
        Key::from_event(KeyEvent::new(code, m))
    }

    #[rstest]
    #[case(
        Mode::Normal,
        KeyCode::Char('j'),
        KeyModifiers::NONE,
        Some(Action::NextSpan)
    )]
    #[case(
        Mode::Normal,
        KeyCode::Down,
        KeyModifiers::NONE,
        Some(Action::NextSpan)
    )]
    #[case(
        Mode::Normal,
        KeyCode::Char('A'),
        KeyModifiers::SHIFT,
        Some(Action::AcceptAll)
    )]
    #[case(
        Mode::Normal,
        KeyCode::Char('r'),
        KeyModifiers::CONTROL,
        Some(Action::Redo)
    )]
    #[case(
        Mode::Normal,
        KeyCode::Char('R'),
        KeyModifiers::CONTROL,
        Some(Action::Redo)
    )]
    #[case(
        Mode::Normal,
        KeyCode::Char('R'),
        KeyModifiers::SHIFT,
        Some(Action::Remove)
    )]
    #[case(
        Mode::Normal,
        KeyCode::Char(':'),
        KeyModifiers::NONE,
        Some(Action::Goto)
    )]
    #[case(
        Mode::Adjust,
        KeyCode::Char('T'),
        KeyModifiers::SHIFT,
        Some(Action::Trim)
    )]
    #[case(
        Mode::Prompt,
        KeyCode::Char('q'),
        KeyModifiers::NONE,
        Some(Action::Input('q'))
    )]
    #[case(
        Mode::Prompt,
        KeyCode::Enter,
        KeyModifiers::NONE,
        Some(Action::Confirm)
    )]
    #[case(Mode::Normal, KeyCode::F(5), KeyModifiers::NONE, None)]
    fn default_bindings(
        #[case] mode: Mode,
        #[case] code: KeyCode,
        #[case] m: KeyModifiers,
        #[case] want: Option<Action>,
    ) {
        assert_eq!(Keymap::defaults().resolve(mode, ev(code, m)), want);
    }

    #[test]
    fn every_key_table_row_is_bound() {
        let k = Keymap::defaults();
        for a in [
            Action::NextSpan,
            Action::PrevSpan,
            Action::NextRecord,
            Action::PrevRecord,
            Action::FirstRecord,
            Action::LastRecord,
            Action::Goto,
            Action::Accept,
            Action::AcceptAll,
            Action::Drop,
            Action::Relabel,
            Action::Adjust,
            Action::Add,
            Action::Clean,
            Action::Remove,
            Action::Flag,
            Action::Note,
            Action::Undo,
            Action::Redo,
            Action::Search,
            Action::Help,
            Action::Quit,
        ] {
            assert!(!k.keys_for(Mode::Normal, a).is_empty(), "{a:?} unbound");
        }
    }

    #[test]
    fn overlay_overrides_key_by_key_and_unbinds() {
        let mut k = Keymap::defaults();
        let t: toml::Table =
            toml::from_str("[normal]\nz = \"accept\"\nx = \"none\"\n").expect("toml");
        k.overlay(&t).expect("valid");
        let key = |c| Key::plain(KeyCode::Char(c));
        assert_eq!(k.resolve(Mode::Normal, key('z')), Some(Action::Accept));
        assert_eq!(k.resolve(Mode::Normal, key('a')), Some(Action::Accept));
        assert_eq!(k.resolve(Mode::Normal, key('x')), Some(Action::Input('x')));
        assert_eq!(k.resolve(Mode::Normal, key('j')), Some(Action::NextSpan));
    }

    #[rstest]
    #[case("[normal]\nz = \"fly\"\n", "unknown action")]
    #[case("[nowhere]\nz = \"accept\"\n", "unknown mode")]
    #[case("[normal]\nbogus = \"accept\"\n", "unknown key")]
    #[case("[normal]\nz = \"input\"\n", "unknown action")]
    fn bad_overlays_are_reported(#[case] src: &str, #[case] want: &str) {
        let t: toml::Table = toml::from_str(src).expect("toml");
        let err = Keymap::defaults().overlay(&t).expect_err("must fail");
        assert!(err.contains(want), "{err}");
    }

    #[test]
    fn keys_display() {
        let k: Key = "ctrl-r".parse().expect("key");
        assert_eq!(k.to_string(), "Ctrl-r");
        assert_eq!("down".parse::<Key>().expect("key").to_string(), "↓");
        assert_eq!("A".parse::<Key>().expect("key").to_string(), "A");
    }
}
