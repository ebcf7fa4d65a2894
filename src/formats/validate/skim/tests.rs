//! The skimmer against `serde_json`: the same texts valid, the same members, the same ids.

use super::*;

fn ok(s: &str) -> bool {
    top(s, "").is_ok()
}

#[test]
fn agrees_with_serde_json_on_validity() {
    let long = format!("{{\"a\": \"{}\\\"{}\"}}", "x".repeat(70), "é".repeat(40));
    let pair_across = format!("{{\"a\": \"{}\\ud83d\\ude00\\ud800\"}}", "x".repeat(57));
    let huge = format!("{{\"a\": [{}]}}", "9".repeat(310));
    let cases: Vec<&str> = vec![
        r#"{"a": "x\"y\\z\u00e9\n", "b": [1, -2.5e3, true, null, {}], "c": {"d": []}}"#,
        "{\"a\": \"25°C 東京 👋 e\u{301}\"}",
        &long,
        r#"{"a": "unterminated}"#,
        r#"{"a": 01}"#,
        r#"{"a": 1.}"#,
        r#"{"a": "\x"}"#,
        r#"{"a": "\u12g4"}"#,
        "{\"a\": \"tab\there\"}",
        r#"{"a": 1,}"#,
        r#"{"a" 1}"#,
        r#"{"a": 1} x"#,
        r#"[1, 2]"#,
        r#"  "s"  "#,
        r#"tru"#,
        "",
        r#"{"a": [1 2]}"#,
        r#"{"a": {"b": {"c": [[]]}}}"#,
        // Found by the fuzz campaign: numbers `serde_json` refuses as out of range.
        r#"{"a": 1e400}"#,
        r#"{"a": -2.5E+309}"#,
        &huge,
        r#"{"a": 1e-400, "b": 18446744073709551616, "c": 1.7976931348623157e308}"#,
        // And lone surrogates, which it refuses in a string (its skipping parse does not).
        r#"{"a": "\ud800"}"#,
        r#"{"a": "\udc00x"}"#,
        r#"{"a": "\ud800\u0041"}"#,
        r#"{"a": "\ud800\ud800"}"#,
        r#"{"a": "\ud83d\ude00 \uD83D\uDE00"}"#,
        r#"{"\udbff": 1}"#,
        &pair_across,
    ];
    for c in cases {
        let serde = serde_json::from_str::<serde_json::Value>(c).is_ok();
        assert_eq!(ok(c), serde, "{c}");
    }
}

proptest::proptest! {
    #[test]
    fn strings_agree_with_serde_json(parts in proptest::collection::vec(
        proptest::prop_oneof![
            proptest::strategy::Just("\\".to_owned()),
            proptest::strategy::Just("\"".to_owned()),
            proptest::strategy::Just("\\u00e9".to_owned()),
            proptest::strategy::Just("\\uZZ".to_owned()),
            proptest::strategy::Just("\n".to_owned()),
            proptest::strategy::Just("°東👋".to_owned()),
            "[a-z nut/]{0,40}",
        ],
        0..40,
    )) {
        let body: String = parts.concat();
        let line = format!("{{\"k\": \"{body}\", \"n\": [1, \"{body}\"]}}");
        let serde = serde_json::from_str::<serde_json::Value>(&line).is_ok();
        proptest::prop_assert_eq!(ok(&line), serde, "{}", line);
    }
}

#[test]
fn nesting_limit_is_serde_jsons() {
    for n in 120..135 {
        let deep = format!("{}{}", "[".repeat(n), "]".repeat(n));
        for line in [
            deep.clone(),
            format!("{{\"a\": {deep}}}"),
            format!("{{\"m\": {{\"a\": {deep}}}}}"),
        ] {
            let serde_ok = serde_json::from_str::<serde_json::Value>(&line).is_ok();
            assert_eq!(top(&line, "m").is_ok(), serde_ok, "{n} levels: {line}");
            assert_eq!(ok(&line), serde_ok, "{n} levels: {line}");
        }
    }
}

#[test]
fn escapes_across_blocks() {
    let mut prev = 0;
    // Backslashes at 0, 1, 2, 5: byte 0 escapes 1, 2 escapes 3, 5 escapes 6; a backslash
    // in the last bit escapes the first byte of the next block.
    assert_eq!(find_escaped(0b0010_0111, &mut prev), 0b0100_1010);
    assert_eq!(prev, 0);
    assert_eq!(find_escaped(1 << 63, &mut prev), 0);
    assert_eq!(prev, 1);
    assert_eq!(find_escaped(0, &mut prev), 1);
    assert_eq!(prev, 0);
    for pad in 60..70 {
        let s = format!("{{\"a\": \"{}\\\"\\\\\"}}", "x".repeat(pad));
        assert!(ok(&s), "{s}");
    }
}

/// What `DataFile::id` reads with serde: the `id` when it is a string.
fn serde_id(line: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<String>,
    }
    serde_json::from_str::<IdOnly>(line).ok()?.id
}

#[test]
fn string_member_agrees_with_serde_on_tricky_lines() {
    let cases = [
        (r#"{"id": "a\"b", "x": 1}"#, Some("a\"b")),
        (r#"{"x": "\"id\": \"no\"", "id": "yes"}"#, Some("yes")),
        (r#"{"meta": {"id": "inner"}, "id": "outer"}"#, Some("outer")),
        (r#"{"meta": {"id": "inner"}}"#, None),
        (r#"{"id": "caf\u00e9 \ud83d\ude00"}"#, Some("café 😀")),
        (r#"{"id": "25°C 東京"}"#, Some("25°C 東京")),
        (r#"{"id": 7}"#, None),
        (r#"{"id": null}"#, None),
        (r#"{"id": "a", "id": "b"}"#, None),
        (r#"{"i\u0064": "escaped key"}"#, Some("escaped key")),
        (r#"{"id": "a", "x": [1, 2}"#, None),
        (r#"["id", "a"]"#, None),
        (r#"{"id": "a"} trailing"#, None),
    ];
    for (line, want) in cases {
        let fast = string_member(line.as_bytes(), "id");
        assert_eq!(serde_id(line).as_deref(), want, "serde on {line}");
        // Sure means right; unsure (None) falls back to serde, which decides.
        if let Some(f) = &fast {
            assert_eq!(Some(f.as_ref()), want, "{line}");
        }
    }
    // The plain case is taken by the fast path.
    assert!(string_member(br#"{"id": "a\"b", "x": {"id": 1}}"#, "id").is_some());
    assert!(string_member(b"{\"id\": \"\xff\"}", "id").is_none());
}

proptest::proptest! {
    #[test]
    fn string_member_never_disagrees_with_serde(members in proptest::collection::vec(
        (
            proptest::prop_oneof![
                proptest::strategy::Just("\"id\""),
                proptest::strategy::Just("\"i\\u0064\""),
                proptest::strategy::Just("\"x\""),
                proptest::strategy::Just("\"meta\""),
                proptest::strategy::Just("\"id\\\"\""),
            ],
            proptest::prop_oneof![
                proptest::strategy::Just("\"plain\"".to_owned()),
                proptest::strategy::Just("\"q\\\"uo\\\\te\"".to_owned()),
                proptest::strategy::Just("\"\\u00e9\\ud83d\\ude00\"".to_owned()),
                proptest::strategy::Just("\"\\ud800 lone\"".to_owned()),
                proptest::strategy::Just("\"\\x bad\"".to_owned()),
                proptest::strategy::Just("{\"id\": \"nested\", \"k\": [1, {\"id\": 2}]}".to_owned()),
                proptest::strategy::Just("\"{\\\"id\\\": \\\"in a string\\\"}\"".to_owned()),
                proptest::strategy::Just("null".to_owned()),
                proptest::strategy::Just("-1.5e3".to_owned()),
                proptest::strategy::Just("[1, 2".to_owned()),
                "\"[a-z °東👋]{0,12}\"",
            ],
        ),
        0..5,
    )) {
        let body: Vec<String> = members.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let line = format!("{{{}}}", body.join(", "));
        if let Some(fast) = string_member(line.as_bytes(), "id") {
            proptest::prop_assert_eq!(Some(fast.into_owned()), serde_id(&line), "{}", line);
        }
    }
}

#[test]
fn hands_out_members_raw() {
    let Ok(Top::Object(m, inner)) = top(r#" {"id": "a", "meta": {"x": [1]}, "n": -3} "#, "meta")
    else {
        panic!("object");
    };
    assert_eq!(m, [("id", "\"a\""), ("meta", "{\"x\": [1]}"), ("n", "-3")]);
    assert_eq!(inner, Some(vec![("x", "[1]")]));
    assert_eq!(top("[1]", ""), Ok(Top::NotObject));
}
