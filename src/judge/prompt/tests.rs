use super::*;
use crate::model::{Record, Span};

fn record() -> Record {
    let output = "東京 is 20°C — it’s sunny 👋";
    let span = Span::new(output, 6, 10, "contradiction");
    let mut r = Record::new(
        "r1".into(),
        output.into(),
        vec![span],
        vec![],
        serde_json::json!({
        "meta": {"tools": [{"name": "Weather"}, {"function": {"name": "Maps"}}]}}),
    );
    r.query = "weather in {answer}?".into();
    r.context = "{\"temp\": 18}".into();
    r
}

#[test]
fn the_bundled_prompts_parse_and_fill_every_placeholder() {
    for text in [TOOLACE, LETTUCEDETECT] {
        let p = Prompt::parse(text, "bundled").expect("parses");
        let (system, user) = p.render(&record(), "LABELS", None);
        assert!(
            !system.contains("{rubric}") && !system.contains("{labels}"),
            "{system}"
        );
        assert!(user.contains("東京 is 20°C — it’s sunny 👋"), "{user}");
        // The span's text is sliced in code points and numbered.
        assert!(
            user.contains("[0] \"20°C\" - contradiction (characters 6-10)"),
            "{user}"
        );
        // A value holding a placeholder is not filled again.
        assert!(user.contains("weather in {answer}?"), "{user}");
        // The schema example's braces stay.
        assert!(system.contains("{\"labeled\": [{\"span\""), "{system}");
    }
    let (_, user) = Prompt::parse(TOOLACE, "b")
        .expect("p")
        .render(&record(), "", None);
    assert!(user.contains("AVAILABLE TOOLS: Weather, Maps"), "{user}");
}

#[test]
fn a_prompt_file_is_refused_with_its_line_when_it_is_not_one() {
    let e = Prompt::parse("sys\n=== user ===\n{answr}\n", "p.txt").expect_err("typo");
    assert!(e.starts_with("p.txt:3: unknown placeholder {answr}"), "{e}");
    let e = Prompt::parse("sys {answer}\n", "p.txt").expect_err("no user");
    assert!(e.contains("no line \"=== user ===\""), "{e}");
    let e = Prompt::parse("sys\n=== user ===\n{query}\n", "p.txt").expect_err("no answer");
    assert!(e.contains("has no {answer}"), "{e}");
}

#[test]
fn a_rubric_puts_its_codes_in_the_prompt() {
    let r = Rubric::parse(
        "H1 = \"a number not in the context\"\nH2 = \"an invented tool\"\n",
        "r",
    )
    .expect("rubric");
    assert_eq!(r.names(), ["H1", "H2"]);
    let (system, _) = Prompt::parse(TOOLACE, "b")
        .expect("p")
        .render(&record(), "", Some(&r));
    assert!(
        system.contains("  H1 - a number not in the context\n"),
        "{system}"
    );
    let e = Rubric::parse("H1 = 3\n", "r.toml").expect_err("not a string");
    assert!(
        e.starts_with("r.toml:1: code \"H1\": the description must be a string"),
        "{e}"
    );
    assert!(Rubric::parse("", "r.toml")
        .expect_err("empty")
        .contains("no code"));
    assert!(Rubric::parse("[x", "r.toml")
        .expect_err("toml")
        .starts_with("r.toml:1: not a rubric (TOML)"));
}

#[test]
fn a_grouped_rubric_offers_its_own_codes_not_the_built_in_flag_codes() {
    let r = Rubric::parse(
        "[drop]\nV1 = \"span text is supported by the context\"\n[add]\nA1 = \"a 25 °C the context lacks\"\n",
        "r.toml",
    )
    .expect("rubric");
    assert_eq!(r.names(), ["V1", "A1"]);
}

#[test]
fn the_lettucedetect_labels_carry_their_definitions_and_no_record_only_category() {
    let l = lettucedetect_labels();
    assert!(
        l.contains("  contradiction - the span directly conflicts with the context"),
        "{l}"
    );
    assert!(l.contains("fabricated_reference - "), "{l}");
    assert!(!l.contains("supported -") && !l.contains("omission"), "{l}");
}
