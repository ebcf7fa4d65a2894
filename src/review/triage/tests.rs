use serde_json::Value;

use super::*;
use crate::model::{Record, Span};

/// A record whose labels are the given texts of `output` (first occurrence), each with
/// `category`.
fn record(context: &str, output: &str, labels: &[(&str, &str)]) -> Record {
    let spans = labels
        .iter()
        .map(|(text, category)| {
            let b = output.find(text).expect("label text in the output");
            let s = offsets::char_of(output, b).expect("boundary");
            let mut span = Span::new(output, s, s + offsets::char_len(text), "native");
            span.category = Some((*category).to_owned());
            span
        })
        .collect();
    Record {
        context: context.to_owned(),
        ..Record::new("r".into(), output.into(), spans, Vec::new(), Value::Null)
    }
}

fn codes(r: &Record) -> Vec<(Code, Option<usize>)> {
    check(r).into_iter().map(|f| (f.code, f.span)).collect()
}

const CONTEXT: &str = "File: units/convert.py\n```python\ndef to_celsius(f):\n\t\"\"\"Fahrenheit → °C.\"\"\"\n\treturn (f - 32) * 5 / 9\n```\n";

fn edit(old: &str, new: &str) -> String {
    format!("In file units/convert.py, replace:\n```python\n{old}```\nwith:\n```python\n{new}```\n")
}

#[test]
fn a_fabricated_reference_found_in_the_context_is_original_code() {
    // `to_celsius` is in the repository: the span marks original code (the authors' rule).
    let r = record(
        CONTEXT,
        "x = to_celsius(f) 東京",
        &[("to_celsius", "fabricated_reference")],
    );
    let f = check(&r);
    assert_eq!(codes(&r), [(Code::SpanInContext, Some(0))]);
    assert!(
        f[0].explanation.contains("occurs in the context once"),
        "{f:?}"
    );
    // Absent from the repository: introduced by the answer, nothing to flag; nor a part of a
    // longer identifier (`to_cel` occurs only inside `to_celsius`).
    let r = record(
        CONTEXT,
        "x = to_kelvin(f)",
        &[("to_kelvin", "fabricated_reference")],
    );
    assert_eq!(codes(&r), []);
    let r = record(
        CONTEXT,
        "x = to_cel(f)",
        &[("to_cel", "fabricated_reference")],
    );
    assert_eq!(codes(&r), []);
    // Another category's span in the context is not this rule's.
    let r = record(
        CONTEXT,
        "x = to_celsius(f)",
        &[("to_celsius", "unsupported_addition")],
    );
    assert_eq!(codes(&r), []);
}

#[test]
fn a_contradiction_the_context_states_is_flagged() {
    let ctx = r#"{"content": {"temp": "25°C", "city": "東京"}, "name": "weather", "role": "tool"}"#;
    let r = record(ctx, "It is 25°C in 東京.", &[("25°C", "contradiction")]);
    assert_eq!(codes(&r), [(Code::SpanInContext, Some(0))]);
    let r = record(ctx, "It is 31°C in 東京.", &[("31°C", "contradiction")]);
    assert_eq!(codes(&r), []);
}

#[test]
fn boundaries_on_whitespace_and_inside_words() {
    let out = "The café’s price is 3000 EUR 👋.";
    let r = record("", out, &[(" 3000 EUR", "contradiction")]);
    assert_eq!(codes(&r), [(Code::BoundarySpace, Some(0))]);
    let r = record("", out, &[("afé’s", "contradiction")]);
    let f = check(&r);
    assert_eq!(codes(&r), [(Code::BoundaryMidword, Some(0))]);
    assert!(f[0].explanation.contains("starts inside “café”"), "{f:?}");
    let r = record("", out, &[("300", "contradiction")]);
    assert!(check(&r)[0].explanation.contains("ends inside “3000”"));
    // Whole words, an apostrophe's edge, emoji and CJK (no word boundaries there) pass.
    for ok in ["3000 EUR", "café", "price", "👋", "The"] {
        assert_eq!(
            codes(&record("", out, &[(ok, "contradiction")])),
            [],
            "{ok}"
        );
    }
    let r = record("", "東京都の人口", &[("京都", "contradiction")]);
    assert_eq!(codes(&r), []);
}

#[test]
fn an_edit_whose_old_block_is_not_in_the_file_is_a_misquote() {
    let good = edit(
        "\treturn (f - 32) * 5 / 9\n",
        "\treturn round((f - 32) * 5 / 9, 1)\n",
    );
    assert_eq!(codes(&record(CONTEXT, &good, &[])), []);
    let bad = edit("\treturn (f - 33) * 5 / 9\n", "\treturn (f - 32) * 5 / 9\n");
    let f = check(&record(CONTEXT, &bad, &[]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].code, f[0].span), (Code::Misquote, None));
    assert!(
        f[0].explanation.contains("line 1")
            && f[0].explanation.contains("nearest is context line 5")
            && f[0].explanation.contains("differing at code point 14"),
        "{f:?}"
    );
}

#[test]
fn an_edit_span_wider_than_its_change_is_not_minimal() {
    let out = edit("\treturn (f - 32) * 5 / 9\n", "\treturn (f - 33) * 5 / 9\n");
    // The change is `33` (the number, not only its last digit).
    assert_eq!(
        codes(&record(CONTEXT, &out, &[("33", "contradiction")])),
        []
    );
    let r = record(CONTEXT, &out, &[("(f - 33)", "contradiction")]);
    let f = check(&r);
    assert_eq!(codes(&r), [(Code::BoundaryNotMinimal, Some(0))]);
    assert!(f[0].explanation.contains("“33”"), "{f:?}");
    // A span over only part of the change, or in the old block, is not this check's.
    let two = edit("\tx = 1 + 2\n", "\tx = 7 + 9\n");
    assert_eq!(
        codes(&record("", &two, &[("7", "contradiction")])),
        [(Code::Misquote, None)]
    );
}

#[test]
fn an_edit_is_parsed_in_code_points() {
    let out = edit("°\n", "東京 👋\n");
    let e = edit::parse(&out).expect("edit");
    assert_eq!(offsets::slice(&out, e.old.start, e.old.end), Some("°\n"));
    assert_eq!(
        offsets::slice(&out, e.new.start, e.new.end),
        Some("東京 👋\n")
    );
    assert_eq!(edit::parse("def f(): pass"), None);
    assert_eq!(edit::changed("a = 1\n", "a = 1\n"), None);
    assert_eq!(edit::changed("a = 12\n", "a = 13\n"), Some((4, 6)));
    assert_eq!(edit::changed("f(x)\n", "f(x, y)\n"), Some((3, 6)));
}

#[test]
fn a_record_whose_checks_do_not_read_the_context_checks_alike_without_it() {
    let answer = "x = to_celsius(f) · return (f - 32) 東京 ";
    // Categories the context is not searched for, and an answer that is no edit.
    for category in ["overgeneration", "unsupported_addition", "omission"] {
        let with = record(
            CONTEXT,
            answer,
            &[("to_celsius", category), ("32) 東京 ", category)],
        );
        assert!(!reads_context(&with), "{category}");
        let without = Record {
            context: String::new(),
            ..with.clone()
        };
        assert_eq!(check(&with), check(&without), "{category}");
    }
    // Those it is searched for, and an edit answer, read it.
    for category in ["fabricated_reference", "contradiction"] {
        assert!(reads_context(&record(
            CONTEXT,
            answer,
            &[("to_celsius", category)]
        )));
    }
    let e = edit("def to_celsius(f):\n", "def to_celsius(f, x):\n");
    assert!(reads_context(&record(CONTEXT, &e, &[])));
}
