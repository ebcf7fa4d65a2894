//! `export --contested`: a re-resolved cluster over non-ASCII text, with a judge's verdict on
//! it, written as one line with the resolution in force and the one it superseded; every key on
//! every line, and (with the venv of `.ci/venv.sh`) the file loaded by `datasets`.

use std::path::Path;

use serde_json::{json, Value};

use super::common::bin;

const TOKYO: &str = "Il fait 25°C à 東京 👋 aujourd’hui.";
const CAFE: &str = "Le café coûte 3 € ici.";

fn record(id: &str, output: &str, start: usize, end: usize) -> Value {
    let text: String = output.chars().skip(start).take(end - start).collect();
    json!({"id": id, "query": "q", "context": "{\"content\": {}, \"name\": \"t\", \"role\": \"tool\"}",
        "output": output,
        "hallucination_labels": [{"start": start, "end": end, "text": text, "label": "contradiction"}],
        "meta": {"base_id": id, "corruption_type": "contradiction"}})
}

fn write_lines(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).expect("write");
}

/// Records, judge decisions and a log applied: `tokyo`'s cluster over `東京 👋` resolved to
/// the wider span (B1), then to no span (V1, with a note); `cafe`'s cluster kept as it is.
fn scene(dir: &Path) {
    write_lines(
        &dir.join("records.jsonl"),
        &[record("tokyo", TOKYO, 15, 17), record("cafe", CAFE, 14, 17)],
    );
    write_lines(
        &dir.join("judge.jsonl"),
        &[json!({"id": "tokyo", "corruption_type": "contradiction",
            "labeled_span": {"start": 15, "end": 17, "text": "東京", "label": "contradiction"},
            "judge": {"label_correct": "false", "extra_hallucination": false, "extra_text": "",
                      "reasoning": "東京 is in the context"}})],
    );
    let unit = |a: usize, b: usize| json!({"cluster": {"start": a, "end": b}});
    write_lines(
        &dir.join("decisions.jsonl"),
        &[
            json!({"reviewer": "lead", "record_id": "tokyo", "action": "resolve",
                "unit": unit(15, 19), "group": "g1", "span_key": "gold:0",
                "after": {"start": 15, "end": 19, "label": "contradiction"},
                "upheld": ["det"], "dismissed": ["gold"], "reason": "B1: boundary not minimal"}),
            json!({"reviewer": "lead", "record_id": "tokyo", "action": "resolve",
                "unit": unit(15, 19), "group": "g2", "span_key": "gold:0",
                "upheld": ["llm"], "dismissed": ["gold", "det"], "reason": "V1",
                "note": "in the context"}),
            json!({"reviewer": "lead", "record_id": "cafe", "action": "resolve",
                "unit": unit(14, 17), "group": "g3", "span_key": "gold:0",
                "after": {"start": 14, "end": 17, "label": "contradiction"},
                "upheld": ["gold"]}),
        ],
    );
    bin()
        .arg("apply")
        .arg(dir.join("records.jsonl"))
        .arg("--decisions")
        .arg(dir.join("decisions.jsonl"))
        .arg("--db")
        .arg(dir.join("db.sqlite"))
        .assert()
        .success();
    bin()
        .arg("export")
        .arg(dir.join("records.jsonl"))
        .arg("--db")
        .arg(dir.join("db.sqlite"))
        .arg("--out")
        .arg(dir.join("out.jsonl"))
        .arg("--judge")
        .arg(format!("llm={}", dir.join("judge.jsonl").display()))
        .arg("--contested")
        .arg(dir.join("contested.jsonl"))
        .assert()
        .success();
}

fn contested(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("contested.jsonl"))
        .expect("contested written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

#[test]
fn a_re_resolved_cluster_is_one_line_with_the_resolution_in_force_and_the_superseded_one() {
    let dir = tempfile::tempdir().expect("tmp");
    scene(dir.path());
    let lines = contested(dir.path());
    assert_eq!(lines.len(), 2, "{lines:#?}");
    let t = &lines[0];
    assert_eq!(
        (&t["id"], &t["unit"]),
        (&json!("tokyo"), &json!("cluster 15-19"))
    );
    assert_eq!(
        (&t["start"], &t["end"], &t["text"]),
        (&json!(15), &json!(19), &json!("東京 👋"))
    );
    let gold = &t["sources"][0];
    assert_eq!(gold["source"], "gold");
    assert_eq!(gold["spans"][0]["text"], "東京");
    assert_eq!(t["judges"][0]["says"], "label_wrong");
    assert_eq!(t["judges"][0]["reasoning"], "東京 is in the context");
    let r = &t["resolution"];
    assert_eq!(
        (&r["kept"], &r["label"], &r["reason_code"]),
        (&json!(false), &Value::Null, &json!("V1"))
    );
    assert_eq!(
        (&r["note"], &r["arbiter"]),
        (&json!("in the context"), &json!("lead"))
    );
    assert_eq!(r["dropped"][0]["text"], "東京");
    assert!(r["superseded_by"].is_null());
    let s = &t["superseded"][0];
    assert_eq!(s["superseded_by"], r["decisions"][0]);
    assert_eq!(
        (&s["spans"][0]["text"], &s["reason_code"]),
        (&json!("東京 👋"), &json!("B1"))
    );
    assert!(s["time"].as_str().is_some_and(|x| x.ends_with('Z')), "{s}");
    // The other line: every key too, with its own nulls.
    let c = &lines[1];
    let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
    assert_eq!(keys(t), keys(c));
    assert_eq!(keys(&t["resolution"]), keys(&c["resolution"]));
    assert_eq!(
        (&c["resolution"]["label"], &c["resolution"]["reason_code"]),
        (&json!("contradiction"), &Value::Null)
    );
    assert_eq!(c["resolution"]["spans"][0]["text"], "3 €");
}

#[test]
fn the_contested_file_loads_with_datasets() {
    let Some(py) = super::hub_folder::venv_python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tmp");
    scene(dir.path());
    let script = "import sys, datasets\n\
        d = datasets.load_dataset('json', data_files=sys.argv[1], split='train')\n\
        print(d.num_rows, d[0]['text'], d[0]['resolution']['reason_code'], d[1]['resolution']['label'], d[0]['superseded'][0]['spans'][0]['text'])\n";
    let out = std::process::Command::new(py)
        .arg("-c")
        .arg(script)
        .arg(dir.path().join("contested.jsonl"))
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.trim(), "2 東京 👋 V1 contradiction 東京 👋");
}
