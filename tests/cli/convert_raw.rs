//! `convert` passes a record's request and evidence through as the input line has them:
//! whatever the input's escapes, the output is the bytes the decoded record writes (C1 and
//! bidirectional controls escaped, to a file and to standard output alike).

use std::path::Path;

use serde_json::{json, Value};
use spanreview::model::escape;

use super::common::bin;
use super::convert_common::{convert, exits, onto, s, says};

/// Texts whose escapes differ between how a line may write them and how serde_json does.
const TEXTS: &[&str] = &[
    r#""25°C in 東京 🙂, it’s e\u0301 (combining)""#,
    r#""25°C in 東京 🙂, it’s é""#,
    r#""\u00e9\u6771\ud83d\ude42 a\/b""#,
    r#""{\"tool\": \"x\", \"args\": {\"q\": \"a\\nb\"}}\n\ttab \b \f \u001b[2J""#,
    r#""\u001B upper, \u0009 tab as u""#,
    "\"C1 \u{9b}31m bidi \u{202e}evil\u{202c} sep \u{2028} shy \u{ad} bom \u{feff}\"",
    r#""escaped C1 \u009b and bidi \u202e \u2066 and \u2028""#,
    r#""""#,
];

/// One RAGTruth line per pair of texts, written as `TEXTS` has them.
fn records(dir: &Path) -> (std::path::PathBuf, Vec<Value>) {
    let mut text = String::new();
    let mut values = Vec::new();
    for (k, q) in TEXTS.iter().enumerate() {
        let c = TEXTS[(k + 3) % TEXTS.len()];
        let line = format!(
            r#"{{"id": "r{k}", "query": {q}, "context":{c}, "output": "25°C 東京 ok", "hallucination_labels": [{{"start": 5, "end": 7, "text": "東京", "label": "x", "extra": 1.50}}], "tools": {c}}}"#
        );
        values.push(serde_json::from_str(&line).expect("a valid line"));
        text.push_str(&line);
        text.push('\n');
    }
    let path = dir.join("records.jsonl");
    std::fs::write(&path, text).expect("write");
    (path, values)
}

/// `value` as the slow path writes it: serde_json's text, hidden characters escaped.
fn written(values: impl IntoIterator<Item = Value>) -> String {
    values
        .into_iter()
        .map(|v| format!("{}\n", escape::json(&v.to_string())))
        .collect()
}

#[test]
fn convert_passes_request_and_evidence_through_as_the_slow_path_writes_them() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (recs, values) = records(dir.path());
    let tasks: Vec<Value> = values
        .iter()
        .map(|r| {
            let mut t = serde_json::Map::new();
            t.insert("text".into(), r["output"].clone());
            for k in ["query", "context"] {
                if r[k] != "" {
                    t.insert(k.into(), r[k].clone());
                }
            }
            t.insert(
                "spans".into(),
                json!([{"start": 5, "end": 7, "label": "x"}]),
            );
            t.insert("meta".into(), json!({"id": r["id"]}));
            Value::Object(t)
        })
        .collect();
    let want = written(tasks);
    let out = dir.path().join("tasks.jsonl");
    exits(
        &convert(&[s(&recs), "--to", "prodigy", "--out", s(&out)]),
        0,
    );
    assert_eq!(std::fs::read_to_string(&out).expect("read"), want);
    let a = bin()
        .arg("convert")
        .arg(&recs)
        .args(["--to", "prodigy", "--out", "-"])
        .assert()
        .success();
    assert_eq!(String::from_utf8_lossy(&a.get_output().stdout), want);
    // Back onto the records: their spans unchanged, every record as the full parse writes it.
    let back = dir.path().join("back.jsonl");
    exits(&onto(&out, "ragtruth", &recs, &back), 0);
    assert_eq!(
        std::fs::read_to_string(&back).expect("read"),
        written(values.clone())
    );
    // RAGTruth to RAGTruth: the same.
    let same = dir.path().join("same.jsonl");
    exits(
        &convert(&[s(&recs), "--to", "ragtruth", "--out", s(&same)]),
        0,
    );
    assert_eq!(
        std::fs::read_to_string(&same).expect("read"),
        written(values)
    );
}

/// Records onto originals go straight out while in the originals' order; one for an original
/// written out already makes the run start again, so that the later record stands.
#[test]
fn a_later_record_for_an_original_written_out_already_stands() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (recs, mut values) = records(dir.path());
    let tasks = dir.path().join("tasks.jsonl");
    exits(
        &convert(&[s(&recs), "--to", "prodigy", "--out", s(&tasks)]),
        0,
    );
    let text = std::fs::read_to_string(&tasks).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut first: Value = serde_json::from_str(&lines[0]).expect("a task");
    first["spans"] = json!([]);
    lines.insert(1, first.to_string());
    std::fs::write(&tasks, lines.join("\n") + "\n").expect("write");
    let back = dir.path().join("back.jsonl");
    let o = convert(&[
        s(&tasks),
        "--to",
        "ragtruth",
        "--records",
        s(&recs),
        "--out",
        s(&back),
        "--lenient",
    ]);
    exits(&o, 1);
    says(&o, "this later record stands");
    values[0]["hallucination_labels"] = json!([]);
    assert_eq!(
        std::fs::read_to_string(&back).expect("read"),
        written(values)
    );
}
