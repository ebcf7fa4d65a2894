//! Integration tests: `apply --rubric` refuses a decision whose reason code the rubric does not
//! have for its action, naming the line and the value; decisions of a log without codes stay
//! readable.

use std::path::Path;

use serde_json::{json, Value};
use spanreview::store::Store;

use crate::common::{bin, fixture};

/// A rubric with non-ASCII codes and descriptions.
pub const RUBRIC: &str = "# A team's rubric.\n\
[drop]\n\
V1 = \"span text is supported by the context (25°C)\"\n\
V2 = \"not a hallucination: it’s a hedge\"\n\
\n\
[adjust]\n\
B1 = \"boundary not minimal\"\n\
\n\
[remove]\n\
Q1 = \"answer does not address the request 東京\"\n\
\n\
[flag]\n\
\"確認\" = \"needs a second look 👀\"\n";

fn apply(dir: &Path, lines: &[Value], extra: &[&str]) -> assert_cmd::assert::Assert {
    let d = dir.join("d.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&d, text).expect("write decisions");
    bin()
        .arg("apply")
        .arg(fixture("review/records.jsonl"))
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(dir.join("db.sqlite"))
        .args(["--reviewer", "ana"])
        .args(extra)
        .assert()
}

fn rubric(dir: &Path, text: &str) -> String {
    let p = dir.join("rubric.toml");
    std::fs::write(&p, text).expect("write rubric");
    p.display().to_string()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

fn saved(dir: &Path) -> usize {
    let db = dir.join("db.sqlite");
    if !db.exists() {
        return 0;
    }
    Store::open(&db)
        .expect("db")
        .decisions(None)
        .expect("log")
        .len()
}

/// The decisions of [`RUBRIC`]'s test run: every reason coded as it says.
pub fn coded_lines() -> Vec<Value> {
    vec![
        json!({"record_id": "plain_2__overgeneration", "action": "drop", "span_key": "gold:0",
            "reason": "V1"}),
        json!({"record_id": "plain_2__overgeneration", "action": "drop", "span_key": "gold:1",
            "reason": "V1: the context says 09:30 ’twice’"}),
        json!({"record_id": "uni_1__contradiction", "action": "drop", "span_key": "gold:0",
            "reason": "V2"}),
        json!({"record_id": "tool_4__missing_tool", "action": "remove", "reason": "Q1"}),
        json!({"record_id": "clean_3__clean", "action": "flag", "reason": "確認: 見て"}),
        json!({"record_id": "uni_1__contradiction", "action": "flag",
            "reason": "misquote: triage's built-in code"}),
        json!({"record_id": "clean_3__clean", "action": "note", "note": "free text"}),
    ]
}

#[test]
fn apply_rubric_refuses_a_code_not_in_the_rubric_for_its_action_naming_line_and_value() {
    let dir = tempfile::tempdir().expect("tmp");
    let r = rubric(dir.path(), RUBRIC);
    let mut lines = coded_lines();
    // Line 8: B1 is an adjust code; 9: no such code; 10: free text; 11: a flag with none.
    lines.push(
        json!({"record_id": "uni_1__contradiction", "action": "drop",
        "span_key": "gold:0", "reason": "B1"}),
    );
    lines.push(
        json!({"record_id": "tool_4__missing_tool", "action": "remove",
        "reason": "Z9: gone"}),
    );
    lines.push(
        json!({"record_id": "tool_4__missing_tool", "action": "remove",
        "reason": "it’s a duplicate"}),
    );
    lines.push(json!({"record_id": "clean_3__clean", "action": "flag", "reason": "look"}));
    let a = apply(dir.path(), &lines, &["--rubric", &r]).code(1);
    let err = stderr(&a);
    let d = dir.path().join("d.jsonl").display().to_string();
    for want in [
        format!(
            "{d}:8: code \"B1\" of {r} is for adjust, not drop: a drop reason starts with one of \
             V1, V2 (`CODE` or `CODE: note`)"
        ),
        format!("{d}:9: reason \"Z9: gone\" has no code of {r}: a remove reason starts with one of Q1"),
        format!("{d}:10: reason \"it’s a duplicate\" has no code of {r}"),
        format!("{d}:11: reason \"look\" has no code of {r}: a flag reason starts with one of 確認, span-in-context"),
        "nothing saved: 4 of 11 lines refused".to_owned(),
    ] {
        assert!(err.contains(&want), "missing {want:?} in:\n{err}");
    }
    for n in 1..=7 {
        assert!(
            !err.contains(&format!("{d}:{n}:")),
            "line {n} refused:\n{err}"
        );
    }
    assert_eq!(saved(dir.path()), 0);
    // The coded lines alone are saved.
    apply(dir.path(), &coded_lines(), &["--rubric", &r]).success();
    assert_eq!(saved(dir.path()), 7);
}

#[test]
fn apply_without_a_rubric_keeps_free_text_reasons() {
    let dir = tempfile::tempdir().expect("tmp");
    let lines = vec![
        json!({"record_id": "tool_4__missing_tool", "action": "remove",
            "reason": "it’s a duplicate"}),
        json!({"record_id": "uni_1__contradiction", "action": "drop", "span_key": "gold:0",
            "reason": "not a hallucination"}),
    ];
    apply(dir.path(), &lines, &[]).success();
    assert_eq!(saved(dir.path()), 2);
}

#[test]
fn apply_refuses_a_bad_rubric_file_with_its_line_and_saves_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let r = rubric(dir.path(), "[drop]\nV1 = \"ok\"\n[flag]\nV1 = \"again\"\n");
    let a = apply(dir.path(), &coded_lines(), &["--rubric", &r]).code(2);
    let err = stderr(&a);
    assert!(
        err.contains(&format!(
            "{r}:4: duplicate code \"V1\": already defined on line 2"
        )),
        "{err}"
    );
    assert_eq!(saved(dir.path()), 0);
    let missing = dir.path().join("none.toml").display().to_string();
    let a = apply(dir.path(), &coded_lines(), &["--rubric", &missing]).code(2);
    assert!(
        stderr(&a).contains(&format!("{missing}: cannot read the rubric")),
        "{}",
        stderr(&a)
    );
}
