use super::*;
use crate::review::decision::ActionKind;

const GROUPED: &str = r#"# The team's rubric.
[drop]
V1 = "span text is supported by the context"
V2 = "not a hallucination: the answer says it hedged — ‘maybe’"

[adjust]
B1 = "boundary not minimal"

[remove]
Q1 = "answer does not address the request"

[flag]
"引用" = "citation to check (引用)"
"#;

fn err(text: &str) -> RubricError {
    Rubric::parse("r.toml", text).expect_err("a bad rubric")
}

#[test]
fn grouped_codes_apply_to_their_action_in_file_order() {
    let r = Rubric::parse("r.toml", GROUPED).expect("rubric");
    let drop: Vec<&str> = r
        .codes_for(ActionKind::Drop)
        .iter()
        .map(|e| e.code.as_str())
        .collect();
    assert_eq!(drop, ["V1", "V2"]);
    let adjust: Vec<&str> = r
        .codes_for(ActionKind::Adjust)
        .iter()
        .map(|e| e.code.as_str())
        .collect();
    assert_eq!(adjust, ["B1"]);
    assert_eq!(
        r.get("Q1").map(|e| (e.line, e.group)),
        Some((10, Some(Group::Remove)))
    );
    assert!(r.codes_for(ActionKind::Accept).is_empty());
    assert!(r.codes_for(ActionKind::Clean).is_empty());
    // Flags: the file's code first, then triage's built-in codes.
    let flag: Vec<&str> = r
        .codes_for(ActionKind::Flag)
        .iter()
        .map(|e| e.code.as_str())
        .collect();
    assert_eq!(flag[0], "引用");
    assert!(flag.contains(&"span-in-context"));
    assert_eq!(
        r.describe("V2: it hedges"),
        Some("not a hallucination: the answer says it hedged — ‘maybe’")
    );
}

#[test]
fn a_flat_table_applies_to_every_action() {
    let r =
        Rubric::parse("flat.toml", "U1 = \"unusable 😀\"\nD1 = \"duplicate\"\n").expect("rubric");
    for g in Group::ALL {
        let codes: Vec<&str> = r
            .codes_for(g.action())
            .iter()
            .take(2)
            .map(|e| e.code.as_str())
            .collect();
        assert_eq!(codes, ["U1", "D1"], "{g:?}");
    }
    assert_eq!(r.get("U1").map(|e| e.group), Some(None));
}

#[test]
fn a_duplicate_code_names_both_lines() {
    let e = err("[drop]\nV1 = \"a\"\n\n[flag]\nV1 = \"b\"\n");
    assert_eq!(
        e.to_string(),
        "r.toml:5: duplicate code \"V1\": already defined on line 2"
    );
    // Within one table TOML itself refuses it, with its line.
    let e = err("[drop]\nV1 = \"a\"\nV1 = \"b\"\n");
    assert_eq!((e.file.as_str(), e.line), ("r.toml", 3), "{e}");
    assert!(e.message.contains("not a rubric"), "{e}");
}

#[test]
fn an_empty_description_is_refused() {
    let e = err("[drop]\nV1 = \"span ok\"\nV2 = \"  \"\n");
    assert_eq!(
        e.to_string(),
        "r.toml:3: code \"V2\" has an empty description"
    );
}

#[test]
fn a_description_that_is_no_string_or_two_lines_is_refused() {
    let e = err("[drop]\nV1 = 3\n");
    assert_eq!(e.line, 2);
    assert!(
        e.message.contains("must be a string") && e.message.contains("the number 3"),
        "{e}"
    );
    let e = err("[drop]\nV1 = \"\"\"one\ntwo\"\"\"\n");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("more than one line"), "{e}");
    let e = err("[drop.more]\nV1 = \"x\"\n");
    assert!(e.message.contains("a table"), "{e}");
}

#[test]
fn an_unknown_group_is_refused() {
    let e = err("[drop]\nV1 = \"x\"\n[dorp]\nV2 = \"y\"\n");
    assert_eq!(e.line, 3);
    assert!(
        e.message
            .starts_with("unknown group [dorp]: the groups are drop, adjust, relabel"),
        "{e}"
    );
}

#[test]
fn a_code_with_spaces_or_a_colon_is_refused() {
    let e = err("[drop]\n\"V 1\" = \"x\"\n");
    assert_eq!(
        e.to_string(),
        "r.toml:2: code \"V 1\" has spaces: a code is one word (`V1`)"
    );
    let e = err("[drop]\n\"V:1\" = \"x\"\n");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("`:`"), "{e}");
    let e = err("[drop]\n\"\" = \"x\"\n");
    assert!(e.message.contains("empty code"), "{e}");
}

#[test]
fn not_toml_is_refused_with_its_line() {
    let e = err("[drop]\nV1 = \"x\"\nV2 = unquoted words\n");
    assert_eq!(e.line, 3, "{e}");
}

#[test]
fn reason_codes_are_read_from_the_reasons_start() {
    assert_eq!(reason_code("V1"), Some("V1"));
    assert_eq!(reason_code("V1: the context says °C"), Some("V1"));
    assert_eq!(reason_code(" 引用 : 見て"), Some("引用"));
    assert_eq!(
        reason_code("span-in-context: a fabricated reference whose text …"),
        Some("span-in-context")
    );
    // Free text of an older log: no code.
    assert_eq!(reason_code("not a hallucination"), None);
    assert_eq!(reason_code("it’s fine: really"), None);
    assert_eq!(reason_code(""), None);
    assert_eq!(reason_code(": x"), None);
    assert_eq!(coded_reason("V1", ""), "V1");
    assert_eq!(coded_reason("V1", " ’ok’ "), "V1: ’ok’");
}

#[test]
fn check_refuses_a_code_not_in_the_rubric_for_the_action() {
    let r = Rubric::parse("r.toml", GROUPED).expect("rubric");
    assert_eq!(r.check(ActionKind::Drop, None, Some("V1")), Ok(()));
    assert_eq!(r.check(ActionKind::Drop, None, Some("V2: hedged")), Ok(()));
    assert_eq!(r.check(ActionKind::Drop, None, None), Ok(()));
    assert_eq!(r.check(ActionKind::Clean, None, Some("anything")), Ok(()));
    assert_eq!(r.check(ActionKind::Note, None, Some("free")), Ok(()));
    assert_eq!(r.check(ActionKind::Flag, Some(false), Some("off")), Ok(()));
    assert_eq!(
        r.check(ActionKind::Flag, Some(true), Some("misquote: x")),
        Ok(())
    );
    let wrong = r
        .check(ActionKind::Drop, None, Some("B1"))
        .expect_err("B1 is for adjust");
    assert_eq!(
        wrong,
        "code \"B1\" of r.toml is for adjust, not drop: a drop reason starts with one of V1, V2 \
         (`CODE` or `CODE: note`)"
    );
    let unknown = r
        .check(ActionKind::Remove, None, Some("Z9"))
        .expect_err("no Z9");
    assert!(
        unknown.starts_with("reason \"Z9\" has no code of r.toml"),
        "{unknown}"
    );
    let free = r
        .check(ActionKind::Drop, None, Some("not a hallucination"))
        .expect_err("free text");
    assert!(free.contains("\"not a hallucination\""), "{free}");
}

#[test]
fn triage_codes_are_a_built_in_rubric_for_flags() {
    let r = Rubric::triage();
    assert_eq!(r.entries().len(), triage::Code::ALL.len());
    for c in triage::Code::ALL {
        let e = r.get(c.name()).expect("code");
        assert_eq!(
            (e.description.as_str(), e.group),
            (c.describe(), Some(Group::Flag))
        );
        // The reason triage writes reads back as its code.
        let reason = format!("{}: explanation", c.name());
        assert_eq!(r.check(ActionKind::Flag, Some(true), Some(&reason)), Ok(()));
        assert_eq!(r.describe(&reason), Some(c.describe()));
    }
    assert!(r.codes_for(ActionKind::Drop).is_empty());
}

#[test]
fn a_file_may_redefine_a_triage_code() {
    let r = Rubric::parse("r.toml", "[flag]\nmisquote = \"our wording\"\n").expect("rubric");
    assert_eq!(r.describe("misquote"), Some("our wording"));
    let n = r.entries().iter().filter(|e| e.code == "misquote").count();
    assert_eq!(n, 1);
}

#[test]
fn a_reviewer_picks_a_code_by_number_or_letters_then_a_note() {
    let r = Rubric::parse("r.toml", GROUPED).expect("rubric");
    let pick = |typed: &str| r.pick(ActionKind::Drop, typed);
    assert_eq!(pick("1"), Ok(Some("V1".to_owned())));
    assert_eq!(
        pick("2 it’s a hedge °"),
        Ok(Some("V2: it’s a hedge °".to_owned()))
    );
    assert_eq!(pick("v1: 東京 👍"), Ok(Some("V1: 東京 👍".to_owned())));
    assert_eq!(pick("V2"), Ok(Some("V2".to_owned())));
    assert_eq!(pick("  "), Ok(None));
    let e = pick("3").expect_err("two drop codes");
    assert_eq!(
        e,
        "no code \"3\" for drop: type a number or a code (1 V1, 2 V2), then a note"
    );
    assert!(pick("B1").is_err(), "B1 is an adjust code");
    assert_eq!(
        r.pick(ActionKind::Flag, "引用 見て"),
        Ok(Some("引用: 見て".to_owned()))
    );
}

#[test]
fn a_reason_is_shown_with_its_codes_description() {
    let r = Rubric::parse("r.toml", GROUPED).expect("rubric");
    assert_eq!(
        r.described("V1"),
        "V1 (span text is supported by the context)"
    );
    assert_eq!(
        r.described("B1: two words ’too’"),
        "B1 (boundary not minimal): two words ’too’"
    );
    assert_eq!(r.described("not a hallucination"), "not a hallucination");
    assert_eq!(r.described("Z9: x"), "Z9: x");
}
