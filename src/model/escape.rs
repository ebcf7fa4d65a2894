//! The one rule for text that reaches a terminal or a log line: control characters (C0, DEL,
//! C1) and bidirectional controls are written as escapes (`\n`, `\t`, `\u{1b}`, `\u{202e}`),
//! so a value read from a file cannot move the cursor, set the clipboard (OSC 52), plant a link
//! (OSC 8), forge a line or reorder what is shown. The review screen draws the same escapes.

use std::borrow::Cow;

/// Whether `c` is shown as an escape: a control character (C0, DEL, C1), or a bidirectional
/// embedding, override, isolate or mark (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
/// U+061C), which would make a terminal show text in another order than it has.
///
/// Also the characters a terminal shows as nothing or as a line break that is not one: the
/// line and paragraph separators (U+2028, U+2029), the soft hyphen (U+00AD) and the byte order
/// mark (U+FEFF).
#[must_use]
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{00AD}'
                | '\u{FEFF}'
        )
}

/// True when the UTF-8 `bytes` may hold a hidden character that JSON text leaves raw (DEL,
/// C1, bidirectional controls, the separators): a scan for their lead bytes (`7F`, `C2`,
/// `D8`, `E2`, `EF`), each checked by the character it starts. Text without them (ASCII, most
/// scripts) is passed over at memchr's speed.
#[must_use]
pub fn json_needs_escape(bytes: &[u8]) -> bool {
    let starts = |i: usize| {
        let end = (i + 3).min(bytes.len());
        // The character starting at `i` (its longest UTF-8 form is 3 bytes here).
        (i + 1..=end).any(|e| {
            std::str::from_utf8(&bytes[i..e])
                .ok()
                .and_then(|t| t.chars().next())
                .is_some_and(is_hidden)
        })
    };
    memchr::memchr3_iter(0xC2, 0xE2, 0xEF, bytes).any(starts)
        || memchr::memchr2_iter(0x7F, 0xD8, bytes).any(starts)
}

/// JSON text in bytes, as [`json`] escapes it: the same bytes when nothing needs escaping
/// ([`json_needs_escape`]) or they are not UTF-8.
#[must_use]
pub fn json_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !json_needs_escape(bytes) {
        return Cow::Borrowed(bytes);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => match json(text) {
            Cow::Borrowed(_) => Cow::Borrowed(bytes),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        },
        Err(_) => Cow::Borrowed(bytes),
    }
}

/// Append the escape of `c`: `\t`, `\r`, `\n`, else `\u{hex}` (Rust's notation).
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        c => {
            use std::fmt::Write;
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

/// `s` with every character `keep` does not spare and [`is_hidden`] names escaped.
fn escape_with(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_hidden(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_hidden(c) && !keep(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One line for a terminal or a log: every hidden character escaped, newlines included (a
/// value cannot start a line of its own).
#[must_use]
pub fn line(s: &str) -> Cow<'_, str> {
    escape_with(s, |_| false)
}

/// Several lines (a table): hidden characters escaped but `\n`, which ends the lines.
#[must_use]
pub fn lines(s: &str) -> Cow<'_, str> {
    escape_with(s, |c| c == '\n')
}

/// JSON text as `serde_json` writes it, with the hidden characters it leaves raw (DEL, C1,
/// bidirectional controls) written as `\uXXXX`: still valid JSON, read back as the same value.
/// `serde_json` escapes C0 itself, and outside strings it writes only ASCII punctuation, digits
/// and letters, so every hidden character left is inside a string.
#[must_use]
pub fn json(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hidden) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_hidden(c) {
            // Every hidden character is in the Basic Multilingual Plane: one `\uXXXX`.
            use std::fmt::Write;
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A line to standard error with the message escaped for the terminal
/// ([`line`]), through [`line_to_stderr`]: a warning quoting a path, an id
/// or a value read from a file cannot carry an escape sequence or a line of its own to the
/// user's terminal, and a standard error that cannot be written never ends the command.
macro_rules! to_stderr {
    ($($arg:tt)*) => {
        $crate::model::escape::line_to_stderr(&$crate::model::escape::line(&::std::format!($($arg)*)))
    };
}
pub(crate) use to_stderr;

/// Write `text` and a newline to standard error, ignoring a failure: a closed (`2>&1 | head`)
/// or full (`2>/dev/full`) standard error leaves nowhere to report it, and `eprintln!` would
/// panic there (exit 101) instead of giving the command's own exit code.
pub fn line_to_stderr(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Escape sequences and controls a hostile file can carry.
    const HOSTILE: &[&str] = &[
        "\u{1b}[2J",
        "\u{1b}]52;c;UFdORUQ=\u{7}",
        "\u{1b}]8;;https://x.example\u{1b}\\link\u{1b}]8;;\u{1b}\\",
        "\u{1b}P1$r\u{1b}\\",
        "\u{9b}31m",
        "\u{85}",
        "\u{202e}",
        "\u{2066}x\u{2069}",
        "\u{200e}\u{200f}\u{61c}",
        "\u{0}",
        "a\nb\r\tc",
        "\u{7f}",
    ];

    #[test]
    fn a_line_holds_no_hidden_character_and_keeps_the_review_screens_look() {
        for h in HOSTILE {
            let s = line(h);
            assert!(!s.chars().any(is_hidden), "{h:?} -> {s:?}");
        }
        assert_eq!(line("t\u{1b}[2J"), "t\\u{1b}[2J");
        assert_eq!(line("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(line("\u{202e}evil"), "\\u{202e}evil");
        assert_eq!(line("25°C 東京 👋 e\u{301}"), "25°C 東京 👋 e\u{301}");
        assert!(matches!(line("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn lines_keep_their_newlines_only() {
        assert_eq!(lines("a\u{1b}[2J\nb\t"), "a\\u{1b}[2J\nb\\t");
    }

    #[test]
    fn json_stays_valid_and_reads_back_as_the_same_value() {
        for h in HOSTILE {
            let v = serde_json::json!({ "k": h, h.to_string(): [h] });
            let text = v.to_string();
            let escaped = json(&text);
            assert!(!escaped.chars().any(is_hidden), "{escaped}");
            let back: serde_json::Value = serde_json::from_str(&escaped).expect("valid JSON");
            assert_eq!(back, v);
        }
        assert_eq!(json("\"\u{202e}\u{9b}\""), "\"\\u202e\\u009b\"");
    }

    #[test]
    fn json_bytes_escape_what_json_escapes_and_pass_the_rest_unchanged() {
        for h in HOSTILE
            .iter()
            .chain(&["\u{2028}", "\u{2029}", "\u{ad}", "\u{feff}"])
        {
            let text = serde_json::json!({ "k": format!("°’東京👋{h}") }).to_string();
            // serde_json escapes C0 itself; the rest is left raw and must be seen.
            assert_eq!(
                json_needs_escape(text.as_bytes()),
                json(&text) != text,
                "{h:?}"
            );
            let out = json_bytes(text.as_bytes());
            assert_eq!(&*out, json(&text).as_bytes());
            let s = std::str::from_utf8(&out).expect("utf-8");
            assert!(!s.chars().any(is_hidden), "{s}");
        }
        // Lead bytes of other characters: no escape, the same bytes.
        for plain in [
            "25°C",
            "it’s “so”",
            "ｆｕｌｌ",
            "東京 👋 e\u{301}",
            "\u{600}\u{61b}",
            "",
        ] {
            let text = serde_json::json!({ "k": plain }).to_string();
            assert!(!json_needs_escape(text.as_bytes()), "{plain:?}");
            assert!(matches!(json_bytes(text.as_bytes()), Cow::Borrowed(_)));
        }
        assert_eq!(
            line("a\u{2028}b\u{ad}\u{feff}"),
            "a\\u{2028}b\\u{ad}\\u{feff}"
        );
    }
}
