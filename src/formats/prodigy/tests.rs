//! Prodigy tasks: offsets in code points over non-ASCII text, ids, `answer`, spans that do not
//! slice, token indices and hashes on write, and `validate`.

use serde_json::{json, Value};

use super::*;
use crate::formats::validate::{validate, Input, Options};

/// "été 🙂 👩‍💻 Note 東京 e\u{301}" with tokens by spaces (Prodigy's own layout).
const TEXT: &str = "été 🙂 👩‍💻 Note 東京 e\u{301}";

fn tokens() -> Value {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, w) in TEXT.split(' ').enumerate() {
        let n = w.chars().count();
        out.push(json!({"text": w, "start": start, "end": start + n, "id": i, "ws": true}));
        start += n + 1;
    }
    Value::Array(out)
}

fn task(answer: &str, spans: Value) -> Value {
    json!({"text": TEXT, "query": "q’", "context": "c°", "_input_hash": -55, "_task_hash": 77,
           "tokens": tokens(), "spans": spans, "answer": answer, "meta": {"id": "p1", "source": "x"}})
}

#[test]
fn spans_are_code_points_and_an_accepted_tasks_spans_are_the_gold() {
    // 👩‍💻 (three code points) is [6, 9); 東京 [15, 17); e + combining acute [18, 20).
    let t = task(
        "accept",
        json!([{"start": 6, "end": 14, "token_start": 2, "token_end": 3, "label": "contradiction"},
               {"start": 15, "end": 17, "label": "overgeneration", "text": "東京"},
               {"start": 18, "end": 20, "label": "contradiction"}]),
    );
    let rec = parse(t).expect("parse");
    assert_eq!(rec.id, "p1");
    assert_eq!((rec.query.as_str(), rec.context.as_str()), ("q’", "c°"));
    let texts: Vec<&str> = rec.gold_spans().iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["👩‍💻 Note", "東京", "e\u{301}"]);
    assert!(rec.warnings.is_empty(), "{:?}", rec.warnings);
}

#[test]
fn ids_come_from_the_task_meta_or_the_input_hash() {
    let mut t = json!({"text": "x", "spans": [], "_input_hash": -55});
    assert_eq!(parse(t.clone()).expect("hash").id, "-55");
    t["meta"] = json!({"rid": "r9"});
    assert_eq!(parse(t.clone()).expect("meta").id, "r9");
    t["id"] = json!("top");
    assert_eq!(parse(t).expect("top").id, "top");
    let e = parse(json!({"text": "x", "spans": []})).expect_err("no id");
    assert!(e.contains("no id"), "{e}");
    // The request and evidence may sit in meta.
    let m = parse(json!({"text": "x", "spans": [], "meta": {"id": "a", "query": "q", "context": "c"}}))
        .expect("meta");
    assert_eq!((m.query.as_str(), m.context.as_str()), ("q", "c"));
}

#[test]
fn a_span_that_does_not_slice_is_reported_and_kept() {
    // 16 is where UTF-16 would end "👩‍💻 Note".
    let t = task("accept", json!([{"start": 6, "end": 16, "label": "contradiction", "text": "👩‍💻 Note"},
                                  {"start": 30, "end": 31, "label": "contradiction"}]));
    let rec = parse(t).expect("parse");
    let g = rec.gold_spans();
    assert_eq!((g[0].start, g[0].end), (6, 16), "not shifted");
    assert_eq!(rec.warnings.len(), 2, "{:?}", rec.warnings);
    assert!(rec.warnings[0].starts_with("spans[0]: text \"👩‍💻 Note\" is not text[6:16]"), "{}", rec.warnings[0]);
    assert!(rec.warnings[0].contains("not shifted"), "{}", rec.warnings[0]);
    assert!(rec.warnings[1].contains("past the end of text (20 code points)"), "{}", rec.warnings[1]);
}

#[test]
fn rejected_and_ignored_spans_are_a_detector_not_the_gold() {
    for answer in ["reject", "ignore"] {
        let t = task(answer, json!([{"start": 0, "end": 3, "label": "contradiction"}]));
        let rec = parse(t.clone()).expect("parse");
        assert!(rec.gold_spans().is_empty(), "{answer}");
        let s = rec.source(&format!("prodigy_{answer}")).expect("source");
        assert_eq!((s.role, s.spans[0].text.as_str()), (SourceRole::Detector, "été"));
        // Written with no spans, the task stays as it was; with spans, it is accepted.
        assert_eq!(write(&t, &[], None), t, "{answer}");
        let w = write(&t, &[Span::new(TEXT, 4, 5, "contradiction")], None);
        assert_eq!(w["answer"], "accept");
        assert_eq!(parse(w).expect("back").gold_spans()[0].text, "🙂");
    }
    let odd = parse(task("maybe", json!([]))).expect("parse");
    assert!(odd.warnings[0].contains("answer is not accept, reject or ignore"), "{:?}", odd.warnings);
}

#[test]
fn write_sets_token_indices_and_drops_a_stale_task_hash() {
    let t = task("accept", json!([{"start": 0, "end": 3, "token_start": 0, "token_end": 0, "label": "contradiction"}]));
    let rec = parse(t.clone()).expect("parse");
    assert_eq!(write(&t, rec.gold_spans(), None), t, "as read: unchanged, hash kept");
    let gold = [
        rec.gold_spans()[0].clone(),
        Span::new(TEXT, 6, 14, "overgeneration"),
        Span::new(TEXT, 7, 9, "contradiction"),
    ];
    let w = write(&t, &gold, Some("ignored"));
    assert!(w.get("_task_hash").is_none(), "{w}");
    assert_eq!(w["_input_hash"], -55);
    assert_eq!(w["spans"][1], json!({"start": 6, "end": 14, "token_start": 2, "token_end": 3, "label": "overgeneration"}));
    // Inside a token: no token indices (Prodigy would refuse wrong ones).
    assert_eq!(w["spans"][2], json!({"start": 7, "end": 9, "label": "contradiction"}));
    let keys: Vec<&String> = w.as_object().expect("obj").keys().collect();
    assert_eq!(keys, ["text", "query", "context", "_input_hash", "tokens", "spans", "answer", "meta"]);
}

#[test]
fn build_makes_a_task_that_reads_back_as_the_record() {
    let rec = crate::formats::ragtruth::parse(json!({"id": "r°", "query": "q", "context": "c",
        "output": TEXT, "hallucination_labels": [{"start": 15, "end": 17, "text": "東京", "label": "contradiction"}]}))
    .expect("ragtruth");
    let task = write(&build(&rec), rec.gold_spans(), None);
    assert!(detect(task.as_object().expect("obj")));
    let back = parse(task).expect("back");
    assert_eq!((back.id.as_str(), back.query.as_str(), back.context.as_str()), ("r°", "q", "c"));
    assert_eq!(back.gold_spans()[0].text, "東京");
}

#[test]
fn validate_reports_a_span_that_does_not_slice_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("p.jsonl");
    let good = task("accept", json!([{"start": 0, "end": 3, "label": "contradiction", "text": "été"}]));
    let mut bad = task("accept", json!([{"start": 6, "end": 16, "label": "contradiction", "text": "👩‍💻 Note"}]));
    bad["meta"]["id"] = json!("p2");
    std::fs::write(&path, format!("{good}\n{bad}\n")).expect("write");
    let report =
        validate(&[Input::open(&path, None).expect("open")], &Options::default()).expect("validate");
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    let p = &report.problems[0];
    assert_eq!((p.kind, p.line), (Kind::TextMismatch, 2));
}

/// Issue 22 item 14: a span without a label (or with one that is not a non-empty string) is
/// reported; it would read as unlabeled.
#[test]
fn a_span_without_a_label_is_reported() {
    for (span, says) in [
        (json!({"start": 15, "end": 17}), "spans[0]: no label: none;"),
        (json!({"start": 15, "end": 17, "label": ""}), "spans[0]: no label: \"\";"),
        (json!({"start": 15, "end": 17, "label": ["東京"]}), "spans[0]: no label: [\"東京\"];"),
    ] {
        let mut problems = Vec::new();
        let rec = read(task("accept", json!([span])), &mut problems).expect("read");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].0, Kind::MissingLabel);
        assert!(problems[0].1.starts_with(says), "{}", problems[0].1);
        assert_eq!(rec.gold_spans()[0].text, "東京");
    }
    let mut problems = Vec::new();
    let span = json!({"start": 15, "end": 17, "label": "overgeneration"});
    read(task("accept", json!([span])), &mut problems).expect("read");
    assert!(problems.is_empty(), "{problems:?}");
}
