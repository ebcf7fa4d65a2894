//! Joins under fuzz: the real RAGTruth records with a prediction file made from them (the
//! same spans as the detector's), one prediction line mutated. Every record still reads; the
//! others keep their detector spans; the mutated line's problem names the prediction file and
//! its line; the span reader joins as the dataset does.

use std::path::PathBuf;

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{json, Value};

use super::{case, mutation, Mutation};
use crate::formats::judges::SpanReader;
use crate::formats::{Dataset, Format};
use crate::model::Record;

/// A prediction line for each record: its answer, gold spans and the same spans predicted.
fn predictions(records: &[String]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let v: Value = serde_json::from_str(r).expect("record");
            let spans = v["hallucination_labels"].clone();
            json!({"id": v["id"], "output": v["output"], "gold_spans": spans, "pred_spans": spans})
                .to_string()
        })
        .collect()
}

/// The detector's spans on a record, for comparisons.
fn detector(rec: &Record) -> String {
    format!("{:?}", rec.sources.iter().find(|s| s.name == "det"))
}

fn check(which: Index, m: &Mutation) {
    let Some(c) = case(Format::Ragtruth) else {
        return;
    };
    let preds = predictions(&c.records);
    let at = which.index(preds.len());
    let dir = tempfile::tempdir().expect("dir");
    let records = dir.path().join("records.jsonl");
    std::fs::write(&records, c.records.join("\n")).expect("write");
    // The detector's file, in `sub`: named alike (its name is the source's).
    let open = |lines: &[Vec<u8>], sub: &str| -> (Dataset, PathBuf) {
        let p = dir.path().join(sub);
        std::fs::create_dir_all(&p).expect("dir");
        let p = p.join("det.jsonl");
        std::fs::write(&p, lines.join(&b'\n')).expect("write");
        let ds = Dataset::open(&[records.clone(), p.clone()], None).expect("a join opens");
        (ds, p)
    };
    let mut lines: Vec<Vec<u8>> = preds.iter().map(|p| p.as_bytes().to_vec()).collect();
    let (clean, _) = open(&lines, "a");
    let joined =
        (0..clean.len()).filter(|&i| clean.record(i).is_ok_and(|r| detector(&r) != "None"));
    assert_eq!(
        joined.count(),
        clean.len(),
        "the clean join gives every record its detector"
    );
    lines[at] = m.apply(&preds[at], Some("/output"));
    let (ds, path) = open(&lines, "b");
    let shown = format!("{}:{}", path.display(), at + 1);
    for p in &ds.problems {
        assert!(p.contains(&shown), "a join problem names the line: {p}");
    }
    let reader = SpanReader::new(&ds);
    for i in 0..ds.len() {
        let rec = ds.record(i).expect("the records file is whole");
        let skim = reader.record(i).expect("the span reader reads it too");
        assert_eq!(detector(&rec), detector(&skim), "record {i}: joined alike");
        if i != at {
            let before = clean.record(i).expect("clean");
            assert_eq!(
                detector(&rec),
                detector(&before),
                "record {i} keeps its spans"
            );
        }
        let named = path.display().to_string();
        for w in rec.warnings.iter().filter(|w| w.contains(&named)) {
            assert!(w.contains(&shown), "a warning names the line: {w}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: super::cases(), ..ProptestConfig::default() })]

    #[test]
    fn a_join_survives_a_mutated_prediction_line(which in any::<Index>(), m in mutation()) {
        check(which, &m);
    }
}
