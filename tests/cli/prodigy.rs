//! Integration tests: Prodigy JSONL read and written by `convert`, round trips through Prodigy,
//! `validate`, a Prodigy file as a `--judge` source and a `review` input.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::app_harness::{mem, open_all, render};
use super::common::{bin, write_jsonl};
use super::convert_common::{convert, exits, lines, onto, records, s, to_label_studio};

/// Three Prodigy tasks as `ner_manual` saves them, over non-ASCII text: accepted, rejected,
/// ignored.
fn tasks() -> Vec<Value> {
    let text = "It’s 25°C in 東京 today 🙂 and e\u{301}te\u{301}";
    vec![
        json!({"text": text, "_input_hash": 101, "_task_hash": 201, "answer": "accept",
               "spans": [{"start": 5, "end": 9, "token_start": 1, "token_end": 1, "label": "contradiction"},
                         {"start": 13, "end": 15, "token_start": 3, "token_end": 3, "label": "overgeneration"}],
               "meta": {"id": "p°1"}, "query": "weather?", "context": "{\"temp\": 21}"}),
        json!({"text": text, "_input_hash": 102, "_task_hash": 202, "answer": "reject",
               "spans": [{"start": 22, "end": 23, "label": "contradiction"}], "meta": {"id": "p2"}}),
        json!({"text": text, "_input_hash": 103, "_task_hash": 203, "answer": "ignore",
               "spans": [], "meta": {"id": "p3"}}),
    ]
}

/// [`tasks`] written to `p.jsonl` in `dir`; its path.
fn tasks_file(dir: &Path) -> PathBuf {
    let p = dir.join("p.jsonl");
    write_jsonl(&p, &tasks());
    p
}

#[test]
fn prodigy_tasks_read_in_code_points_and_convert_to_ragtruth() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = tasks_file(dir.path());
    let out_path = dir.path().join("r.jsonl");
    let out = convert(&[s(&p), "--to", "ragtruth", "--out", s(&out_path)]);
    exits(&out, 0);
    let got = lines(&out_path);
    assert_eq!(got[0]["id"], "p°1");
    assert_eq!(
        (got[0]["query"].as_str(), got[0]["context"].as_str()),
        (Some("weather?"), Some("{\"temp\": 21}"))
    );
    assert_eq!(
        got[0]["hallucination_labels"],
        json!([{"end": 9, "label": "contradiction", "start": 5, "text": "25°C"},
               {"end": 15, "label": "overgeneration", "start": 13, "text": "東京"}])
    );
    assert_eq!(
        got[1]["hallucination_labels"],
        json!([]),
        "a rejected task's spans are no gold"
    );
    // The rejected span is still there to take by name.
    let out = convert(&[
        s(&p),
        "--to",
        "ragtruth",
        "--out",
        s(&out_path),
        "--source",
        "prodigy_reject",
        "--lenient",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the other tasks have no such source"
    );
    assert_eq!(lines(&out_path)[0]["hallucination_labels"][0]["text"], "🙂");
}

#[test]
fn ragtruth_to_prodigy_and_back_onto_the_records_is_the_same_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("p.jsonl");
    let out = convert(&[s(&records()), "--to", "prodigy", "--out", s(&p)]);
    exits(&out, 0);
    let written = lines(&p);
    assert_eq!(written.len(), 175);
    let first = &written[0];
    assert!(
        first["meta"]["id"].is_string() && first["query"].is_string() && first["spans"].is_array(),
        "{first}"
    );
    let back = dir.path().join("back.jsonl");
    let out = onto(&p, "ragtruth", &records(), &back);
    exits(&out, 0);
    assert_eq!(lines(&back), lines(&records()));
}

#[test]
fn prodigy_round_trips_through_itself_and_label_studio() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = tasks_file(dir.path());
    let same = dir.path().join("same.jsonl");
    let out = convert(&[s(&p), "--to", "prodigy", "--out", s(&same)]);
    exits(&out, 0);
    assert_eq!(lines(&same), tasks(), "hashes and all kept");
    let ls = dir.path().join("t.json");
    let out = to_label_studio(&p, &ls, &dir.path().join("c.xml"));
    exits(&out, 0);
    let back = dir.path().join("back.jsonl");
    let out = convert(&[s(&ls), "--to", "prodigy", "--out", s(&back)]);
    exits(&out, 0);
    assert_eq!(lines(&back), tasks());
}

#[test]
fn prodigy_reviewed_onto_a_prodigy_file_accepts_and_drops_the_stale_task_hash() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = tasks_file(dir.path());
    // A RAGTruth file where the rejected task got a reviewed span.
    let rt = dir.path().join("r.jsonl");
    write_jsonl(
        &rt,
        &[
            json!({"id": "p2", "output": tasks()[1]["text"], "hallucination_labels": [
        {"start": 13, "end": 15, "text": "東京", "label": "contradiction"}]}),
        ],
    );
    let out_path = dir.path().join("o.jsonl");
    let out = onto(&rt, "prodigy", &p, &out_path);
    exits(&out, 0);
    let got = lines(&out_path);
    assert_eq!(
        (got[0].clone(), got[2].clone()),
        (tasks()[0].clone(), tasks()[2].clone()),
        "others untouched"
    );
    assert_eq!(got[1]["answer"], "accept");
    assert_eq!(
        got[1]["spans"],
        json!([{"start": 13, "end": 15, "label": "contradiction"}])
    );
    assert!(got[1].get("_task_hash").is_none(), "{}", got[1]);
    assert_eq!(got[1]["_input_hash"], 102);
}

#[test]
fn validate_reports_a_prodigy_span_that_does_not_slice_with_its_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("p.jsonl");
    let mut t = tasks();
    // 9 is 25°C's end in code points; a byte count would say 10.
    t[2]["spans"] = json!([{"start": 5, "end": 10, "text": "25°C", "label": "contradiction"}]);
    write_jsonl(&p, &t);
    let out = bin().arg("validate").arg(&p).output().expect("runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "{}:3: spans[0]: text \"25°C\" is not text[5:10]",
            p.display()
        )),
        "{text}"
    );
}

#[test]
fn a_prodigy_file_is_a_judge_source_and_a_review_input() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("p.jsonl");
    let out = convert(&[s(&records()), "--to", "prodigy", "--out", s(&p)]);
    exits(&out, 0);
    let out = bin()
        .args(["compare", "--json", "--a", "gold", "--b", "pg"])
        .arg(records())
        .arg("--judge")
        .arg(format!("pg={}", p.display()))
        .output()
        .expect("runs");
    exits(&out, 0);
    let v: Value = serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().expect("line"))
        .expect("json");
    assert_eq!(v["records"], 175, "{v}");
    assert_eq!(v["overall"]["char_level"]["f1"], 1.0, "{v}");

    let tasks_file = dir.path().join("t.jsonl");
    write_jsonl(&tasks_file, &tasks());
    let store = mem();
    let mut app = open_all(&[tasks_file], &store);
    let screen = render(&mut app, 140, 40);
    assert!(screen.contains("p°1"), "{screen}");
    assert!(screen.contains("25°C"), "{screen}");
}
