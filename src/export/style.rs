//! Records serialised in the input's own JSON style, so that a changed line reads like its
//! neighbours and a diff of the export shows only what the review changed.

use std::io::{self, Write};

use serde_json::Value;

/// How the input wrote JSON, so that changed records read like their neighbours:
/// `", "`/`": "` separators (Python's default) or compact, non-ASCII raw or `\uXXXX`-escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Python's `", "` and `": "` separators.
    pub spaced: bool,
    /// Non-ASCII escaped as `\uXXXX` (Python's `ensure_ascii=True`).
    pub ascii: bool,
}

impl Style {
    /// Guess the style of one record's bytes.
    #[must_use]
    pub fn of(bytes: &[u8]) -> Self {
        // The first key's colon: the first `"` after `{`, its closing `"`, then `:` or `: `.
        let mut spaced = false;
        let mut i = bytes
            .iter()
            .position(|&b| b == b'"')
            .map_or(bytes.len(), |p| p + 1);
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => {
                    spaced = bytes.get(i + 1..i + 3) == Some(b": ");
                    break;
                }
                _ => i += 1,
            }
        }
        Self {
            spaced,
            ascii: bytes.is_ascii() && has_non_ascii_escape(bytes),
        }
    }
}

/// True when the bytes hold a `\uXXXX` escape of a character past ASCII.
fn has_non_ascii_escape(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes[i + 1] == b'u' {
                let hex = bytes
                    .get(i + 2..i + 6)
                    .and_then(|h| std::str::from_utf8(h).ok());
                if hex
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .is_some_and(|c| c >= 0x80)
                {
                    return true;
                }
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    false
}

/// serde_json formatter for [`Style`].
struct StyleFormatter(Style);

impl serde_json::ser::Formatter for StyleFormatter {
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else if self.0.spaced {
            w.write_all(b", ")
        } else {
            w.write_all(b",")
        }
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.begin_array_value(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(if self.0.spaced { b": " } else { b":" })
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !self.0.ascii || fragment.is_ascii() {
            return w.write_all(fragment.as_bytes());
        }
        let mut units = [0u16; 2];
        for c in fragment.chars() {
            if c.is_ascii() {
                w.write_all(&[c as u8])?;
            } else {
                for u in c.encode_utf16(&mut units) {
                    write!(w, "\\u{u:04x}")?;
                }
            }
        }
        Ok(())
    }
}

/// Serialise `value` in `style`.
///
/// # Errors
/// Never for JSON values built from JSON (serde_json's own errors are passed on).
pub fn to_bytes(value: &Value, style: Style) -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(256);
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, StyleFormatter(style));
    serde::Serialize::serialize(value, &mut ser)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn style_follows_the_input() {
        let v = json!({"a": "25°C", "b": [1, 2]});
        let py = Style::of(br#"{"id": "x", "t": "25\u00b0C"}"#);
        assert_eq!(
            py,
            Style {
                spaced: true,
                ascii: true
            }
        );
        assert_eq!(
            to_bytes(&v, py).expect("json"),
            br#"{"a": "25\u00b0C", "b": [1, 2]}"#
        );
        let raw = Style::of("{\"id\":\"東\"}".as_bytes());
        assert_eq!(raw, Style::default());
        assert_eq!(
            to_bytes(&v, raw).expect("json"),
            "{\"a\":\"25°C\",\"b\":[1,2]}".as_bytes()
        );
        let emoji = to_bytes(
            &json!("👋"),
            Style {
                spaced: false,
                ascii: true,
            },
        )
        .expect("json");
        assert_eq!(emoji, br#""\ud83d\udc4b""#);
        assert_eq!(
            serde_json::from_slice::<Value>(&emoji).expect("back"),
            json!("👋")
        );
        // an escaped backslash followed by u is not an escape
        assert!(!Style::of(br#"{"a": "\\u00e9"}"#).ascii);
    }

    proptest::proptest! {
        /// Any text, in every style, reads back as the same JSON value; the ASCII style writes
        /// ASCII only.
        #[test]
        fn every_style_round_trips(text in "\\PC*", key in "[a-z\u{e9}\u{6771}]{0,4}", spaced: bool, ascii: bool) {
            let v = json!({ key: [text, 1.5, null, {"k": true}] });
            let style = Style { spaced, ascii };
            let bytes = to_bytes(&v, style).expect("json");
            proptest::prop_assert_eq!(serde_json::from_slice::<Value>(&bytes).expect("back"), v);
            if ascii {
                proptest::prop_assert!(bytes.is_ascii());
            }
            proptest::prop_assert_eq!(Style::of(&bytes).spaced, spaced);
        }
    }
}
