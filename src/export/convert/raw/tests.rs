use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

/// A line as convert writes it out: the hidden characters escaped.
fn escaped(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    crate::model::escape::json_bytes(line)
}

/// Characters that make escapes differ: JSON's own, controls, DEL, C1, bidirectional
/// controls, the separators, the soft hyphen, BOM, non-ASCII letters and marks, emoji.
const CHARS: &[char] = &[
    'a',
    'Z',
    ' ',
    '/',
    '"',
    '\\',
    '\n',
    '\r',
    '\t',
    '\u{8}',
    '\u{c}',
    '\u{0}',
    '\u{1}',
    '\u{1b}',
    '\u{1f}',
    '\u{7f}',
    '\u{80}',
    '\u{85}',
    '\u{9b}',
    '\u{9f}',
    '\u{a0}',
    '\u{ad}',
    '°',
    'é',
    'e',
    '\u{301}',
    '’',
    '東',
    '京',
    '🙂',
    '👋',
    '\u{1f3fd}',
    '\u{200e}',
    '\u{200f}',
    '\u{61c}',
    '\u{202a}',
    '\u{202e}',
    '\u{2066}',
    '\u{2069}',
    '\u{2028}',
    '\u{2029}',
    '\u{feff}',
    '\u{fffd}',
];

/// `s` as JSON text with the characters at `picks` written another way than serde_json
/// writes them: `\uXXXX` (upper- or lowercase hex, surrogate pairs past the BMP), `\/`.
fn written_otherwise(s: &str, picks: &[(usize, bool)]) -> String {
    let mut out = String::from("\"");
    for (i, c) in s.chars().enumerate() {
        let pick = picks.iter().find(|(k, _)| *k == i).map(|(_, upper)| *upper);
        match (pick, c) {
            (Some(_), '/') => out.push_str("\\/"),
            (Some(upper), c) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let hex = if upper {
                        format!("\\u{u:04X}")
                    } else {
                        format!("\\u{u:04x}")
                    };
                    out.push_str(&hex);
                }
            }
            (None, c) => {
                let one = serde_json::to_string(&c.to_string()).expect("a string");
                out.push_str(&one[1..one.len() - 1]);
            }
        }
    }
    out.push('"');
    out
}

/// The fast path's bytes for the JSON string `raw`: itself when canonical, else re-encoded.
fn fast(raw: &str) -> String {
    if canonical(raw) {
        return raw.to_owned();
    }
    let s: String = serde_json::from_str(raw).expect("valid JSON");
    serde_json::to_string(&s).expect("a string")
}

fn text() -> impl Strategy<Value = String> {
    let c = prop_oneof![4 => proptest::sample::select(CHARS), 1 => any::<char>()];
    proptest::collection::vec(c, 0..24).prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// However a string is written in the input, the fast path writes what the slow one
    /// does, before and after convert's escaping.
    #[test]
    fn a_passed_string_is_the_bytes_serde_json_writes(
        s in text(),
        picks in proptest::collection::vec((0usize..24, any::<bool>()), 0..4),
    ) {
        let slow = serde_json::to_string(&s).expect("a string");
        prop_assert!(canonical(&slow), "{slow}");
        let raw = written_otherwise(&s, &picks);
        let back: String = serde_json::from_str(&raw).expect("valid JSON");
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(&fast(&raw), &slow);
        let line = |v: &str| format!("{{\"k\":{v}}}").into_bytes();
        let (fast_line, slow_line) = (line(&fast(&raw)), line(&slow));
        prop_assert_eq!(escaped(&fast_line), escaped(&slow_line));
    }

    /// A whole line read with its members passed through and written back is the line
    /// written from its full parse.
    #[test]
    fn a_line_passed_through_is_the_line_the_full_parse_writes(
        a in text(),
        b in text(),
        picks in proptest::collection::vec((0usize..24, any::<bool>()), 0..4),
    ) {
        let line = format!(
            "{{ \"id\" : \"r1\", \"query\": {}, \"context\":{} , \"n\": 1.50, \"e\": 1e3, \
             \"x\": [1, {{\"a\": \"\\u00e9\\/\"}}], \"t\": true, \"z\": null, \"s\": \"\" }}",
            written_otherwise(&a, &picks),
            written_otherwise(&b, &[]),
        );
        let full: Value = serde_json::from_str(&line).expect("valid JSON");
        let slow = serde_json::to_vec(&full).expect("JSON");
        let Some((value, passed)) = Passed::read(line.as_bytes(), |k| k != "id") else {
            // Only a NUL keeps a valid line from the fast path.
            prop_assert!(line.contains("\\u0000"), "{}", line);
            return Ok(());
        };
        let mut buf = Vec::new();
        prop_assert!(passed.line(&value, &mut buf).is_some());
        prop_assert_eq!(&buf, &slow);
        prop_assert_eq!(escaped(&buf), escaped(&slow));
    }
}

#[rstest::rstest]
#[case::plain(r#""25°C in 東京 🙂 e\u0301""#, false)]
#[case::literal_marks(r#""25°C ’ 東京 🙂 é""#, true)]
#[case::short_forms(r#""a\"b\\c\nd\re\tf\bg\fh""#, true)]
#[case::control(r#""\u001b[2J \u0000 \u001f""#, true)]
#[case::control_upper(r#""\u001B""#, false)]
#[case::tab_as_u(r#""\u0009""#, false)]
#[case::slash(r#""a\/b""#, false)]
#[case::e_acute(r#""\u00e9""#, false)]
#[case::c1_escaped(r#""\u009b""#, false)]
#[case::bidi_escaped(r#""\u202e""#, false)]
#[case::surrogates(r#""\ud83d\ude42""#, false)]
#[case::c1_literal("\"\u{9b}31m \u{202e} \u{2028} \u{ad} \u{feff}\"", true)]
fn canonical_strings_are_those_serde_json_writes(#[case] raw: &str, #[case] expected: bool) {
    assert_eq!(canonical(raw), expected, "{raw}");
    assert_eq!(
        fast(raw),
        serde_json::to_string(&serde_json::from_str::<String>(raw).expect("JSON")).expect("JSON")
    );
}

#[test]
fn lines_the_fast_path_cannot_take_go_to_the_full_reader() {
    let pass = |_: &str| true;
    for line in [
        r#"{"a": "x", "a": "y"}"#,
        r#"{"\u0061": "x"}"#,
        r#"{"a": "x\u0000"}"#,
        r#"{"a": "x"} junk"#,
        r#"["a"]"#,
        "{\"a\": \"\u{1}\"}",
    ] {
        assert!(Passed::read(line.as_bytes(), pass).is_none(), "{line}");
    }
    assert!(Passed::read(b"{\"a\": \"\xff\"}", pass).is_none());
}

#[test]
fn hidden_characters_are_escaped_on_the_fast_path_as_on_the_slow() {
    let line =
        "{\"id\":\"a\",\"context\":\"x\u{9b}31m \u{202e}evil \u{2028}\",\"query\":\"\\u202e\"}";
    let (value, passed) = Passed::read(line.as_bytes(), |k| k != "id").expect("read");
    let mut buf = Vec::new();
    assert!(passed.line(&value, &mut buf).is_some());
    let full: Value = serde_json::from_str(line).expect("JSON");
    let slow = serde_json::to_vec(&full).expect("JSON");
    assert_eq!(buf, slow);
    let out = escaped(&buf);
    assert_eq!(
        String::from_utf8_lossy(&out),
        r#"{"id":"a","context":"x\u009b31m \u202eevil \u2028","query":"\u202e"}"#
    );
}

#[test]
fn a_mark_moved_elsewhere_is_caught() {
    let line = r#"{"id":"a","context":"long text"}"#;
    let (value, passed) = Passed::read(line.as_bytes(), |k| k == "context").expect("read");
    assert_eq!(value["context"], MARK);
    let moved = json!({"data": value.clone()});
    let mut buf = Vec::new();
    assert!(passed.line(&moved, &mut buf).is_none());
    let renamed = json!({"id": "a", "other": MARK});
    assert!(passed.line(&renamed, &mut buf).is_none());
    assert!(passed.line(&value, &mut buf).is_some());
    assert_eq!(buf, line.as_bytes());
}
