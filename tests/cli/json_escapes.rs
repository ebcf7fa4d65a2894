//! JSON written to standard output (and the files that share its writer) carries C1 controls
//! (U+009B, a CSI by itself), bidirectional controls and the invisible separators as `\u...`:
//! `convert --out -` and `export --out -` can be read in a terminal, and read back the same.

use serde_json::{json, Value};

use super::common::{self, bin};

/// An answer with each character JSON leaves raw, and ordinary non-ASCII text.
const ANSWER: &str = "It’s 25°C \u{9b}31m in 東京\u{202e}👋\u{2028}\u{ad}\u{feff}\u{85}";

fn assert_escaped(what: &str, out: &[u8], want: &Value) {
    let text = String::from_utf8(out.to_vec()).expect("utf-8");
    let raw: Vec<char> = text
        .chars()
        .filter(|&c| c != '\n' && spanreview::model::escape::is_hidden(c))
        .collect();
    assert!(raw.is_empty(), "{what}: raw {raw:?} in {text}");
    assert!(
        text.contains("\\u009b") && text.contains("\\u202e"),
        "{what}: {text}"
    );
    let back: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    assert_eq!(
        back["output"], want["output"],
        "{what}: the same value read back"
    );
}

#[test]
fn json_on_standard_output_escapes_c1_and_bidi_controls_and_reads_back_the_same() {
    let dir = tempfile::tempdir().expect("tmp");
    let rec = json!({"id": "r1", "query": "q", "context": "c", "output": ANSWER,
        "hallucination_labels": [{"start": 5, "end": 9, "label": "contradiction"}]});
    let records = dir.path().join("records.jsonl");
    let other = json!({"id": "r2", "query": "q", "context": "c", "output": "plain",
        "hallucination_labels": []});
    std::fs::write(&records, format!("{rec}\n{other}\n")).expect("write");
    // export: an unread line copied (no decision), then a line with a decision (built).
    for decided in [false, true] {
        let db = dir.path().join(format!("db{decided}.sqlite"));
        {
            // Undecided: the decision is on r2, and r1 is copied from the input unread.
            let d = dir.path().join("d.jsonl");
            let line = if decided {
                json!({"record_id": "r1", "action": "accept", "span_key": "gold:0"})
            } else {
                json!({"record_id": "r2", "action": "flag"})
            };
            std::fs::write(&d, format!("{line}\n")).expect("d");
            bin()
                .arg("apply")
                .arg(&records)
                .arg("--decisions")
                .arg(&d)
                .args(["--reviewer", "ana", "--db"])
                .arg(&db)
                .assert()
                .success();
        }
        let a = bin()
            .arg("export")
            .arg(&records)
            .arg("--db")
            .arg(&db)
            .args(["--out", "-"])
            .assert()
            .success();
        let out = a.get_output().stdout.clone();
        assert_escaped(&format!("export (decided: {decided})"), &out, &rec);
    }
    // convert to Label Studio and back, on standard output.
    let a = bin()
        .arg("convert")
        .arg(&records)
        .args(["--to", "label-studio", "--out", "-"])
        .assert()
        .success();
    let text = String::from_utf8(a.get_output().stdout.clone()).expect("utf-8");
    assert!(
        !text
            .chars()
            .any(|c| c != '\n' && spanreview::model::escape::is_hidden(c)),
        "{text}"
    );
    let tasks: Value = serde_json::from_str(&text).expect("json");
    let s = tasks.to_string();
    assert!(s.contains(ANSWER), "the answer reads back the same: {s}");
    let _ = common::names(dir.path());
}
