//! The export's numbers against an independent oracle: `tests/fixtures/oracle/review_oracle.py`
//! draws random review decisions over the bundled sample and computes, in Python and from the
//! decisions alone, what the report must count, each record's outcomes and its labels after
//! review. The decisions go in through `apply`; `export` must agree on every figure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::common::{bin, data, fixture};

/// The report's count on the row `name` (`| name | N |`).
fn report_count(report: &str, name: &str) -> Option<u64> {
    let row = format!("| {name} | ");
    let line = report.lines().find(|l| l.starts_with(&row))?;
    line[row.len()..].trim_end_matches(" |").parse().ok()
}

/// Report rows and the oracle's names for them.
const ROWS: [(&str, &str); 9] = [
    ("Labels kept unchanged", "kept"),
    ("Boundaries tightened", "tightened"),
    ("Boundaries widened", "widened"),
    ("Boundaries shifted", "shifted"),
    ("Categories corrected", "relabeled"),
    ("Labels dropped", "dropped"),
    ("Spans added", "added"),
    ("Records reclassified clean", "clean"),
    ("Records removed", "removed"),
];

/// One JSON value per line.
fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// Where the export (`report`, `verdicts` and `exported` lines) disagrees with the oracle's
/// `expected`; empty when it agrees on everything.
fn mismatches(expected: &Value, report: &str, verdicts: &str, exported: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (row, key) in ROWS {
        let want = expected["counts"][key].as_u64();
        let got = report_count(report, row);
        if got != want {
            out.push(format!("{row}: report {got:?}, oracle {want:?}"));
        }
    }
    let decided = expected["records"].as_object().expect("records");
    let verdicts: BTreeMap<String, Value> = lines(verdicts)
        .into_iter()
        .map(|v| (v["id"].as_str().expect("id").to_owned(), v))
        .collect();
    let exported: BTreeMap<String, Value> = lines(exported)
        .into_iter()
        .map(|v| (v["id"].as_str().expect("id").to_owned(), v))
        .collect();
    for (id, want) in decided {
        let outcomes: BTreeSet<&str> = verdicts.get(id).map_or_else(BTreeSet::new, |v| {
            v["outcomes"]
                .as_array()
                .expect("outcomes")
                .iter()
                .filter_map(Value::as_str)
                .collect()
        });
        let want_outcomes: BTreeSet<&str> = want["outcomes"]
            .as_array()
            .expect("outcomes")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        if outcomes != want_outcomes {
            out.push(format!(
                "{id}: outcomes {outcomes:?}, oracle {want_outcomes:?}"
            ));
        }
        let Some(rec) = exported.get(id) else {
            if !want_outcomes.iter().any(|o| o.starts_with("removed")) {
                out.push(format!("{id}: not exported"));
            }
            continue;
        };
        let mut labels: Vec<Value> = rec["hallucination_labels"]
            .as_array()
            .expect("labels")
            .iter()
            .map(|l| serde_json::json!([l["start"], l["end"], l["label"], l["text"]]))
            .collect();
        labels.sort_by_key(ToString::to_string);
        let mut want_labels = want["labels"].as_array().expect("labels").clone();
        want_labels.sort_by_key(ToString::to_string);
        if labels != want_labels {
            out.push(format!("{id}: labels {labels:?}, oracle {want_labels:?}"));
        }
    }
    out
}

/// The oracle's decisions and expectations for `seed`, in `dir`; `None` without python3.
fn oracle(dir: &Path, seed: u64) -> Option<Value> {
    let status = std::process::Command::new("python3")
        .arg(fixture("oracle/review_oracle.py"))
        .arg(data("toolace/test_records_reconstructed.jsonl"))
        .arg(seed.to_string())
        .arg(dir.join("decisions.jsonl"))
        .arg(dir.join("expected.json"))
        .status();
    let Ok(status) = status else {
        eprintln!("SKIP: python3 is not installed (.ci/run installs it)");
        return None;
    };
    assert!(status.success(), "the oracle failed");
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("expected");
    Some(serde_json::from_str(&text).expect("expected JSON"))
}

/// Apply the oracle's decisions for `seed` and export: (expected, report, verdicts, records).
fn run(seed: u64) -> Option<(Value, String, String, String)> {
    let dir = tempfile::tempdir().expect("tmp");
    let expected = oracle(dir.path(), seed)?;
    let records = data("toolace/test_records_reconstructed.jsonl");
    let db = dir.path().join("review.sqlite");
    bin()
        .arg("apply")
        .arg(&records)
        .arg("--decisions")
        .arg(dir.path().join("decisions.jsonl"))
        .arg("--db")
        .arg(&db)
        .args(["--reviewer", "oracle"])
        .assert()
        .success();
    let file = |name: &str| dir.path().join(name);
    bin()
        .arg("export")
        .arg(&records)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(file("out.jsonl"))
        .arg("--verdicts")
        .arg(file("verdicts.jsonl"))
        .arg("--report")
        .arg(file("report.md"))
        .assert()
        .code(predicates::ord::le(1));
    let read = |name: &str| std::fs::read_to_string(file(name)).expect(name);
    Some((
        expected,
        read("report.md"),
        read("verdicts.jsonl"),
        read("out.jsonl"),
    ))
}

#[test]
fn the_export_counts_what_an_independent_oracle_counts() {
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    for seed in 1..=4 {
        let Some((expected, report, verdicts, exported)) = run(seed) else {
            return;
        };
        let wrong = mismatches(&expected, &report, &verdicts, &exported);
        assert!(wrong.is_empty(), "seed {seed}: {wrong:#?}");
        for (_, key) in ROWS {
            *seen.entry(key).or_default() += expected["counts"][key].as_u64().expect("count");
        }
    }
    // Every kind of outcome was drawn, so every row was checked on a number other than 0.
    assert!(seen.values().all(|n| *n > 0), "{seen:?}");
}

/// The comparison catches a report number, an outcome and a label that are off.
#[test]
fn the_comparison_catches_a_wrong_count_outcome_or_label() {
    let Some((expected, report, verdicts, exported)) = run(1) else {
        return;
    };
    let row = "| Boundaries tightened | ";
    let n = report_count(&report, "Boundaries tightened").expect("row");
    let report = report.replace(&format!("{row}{n} |"), &format!("{row}{} |", n + 1));
    let verdicts = verdicts.replacen("\"dropped\"", "\"kept\"", 1);
    let id = expected["records"]
        .as_object()
        .expect("records")
        .iter()
        .find(|(_, r)| !r["labels"].as_array().expect("labels").is_empty())
        .map(|(id, _)| id.clone())
        .expect("a record keeping a label");
    let exported: String = exported
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).expect("line");
            if v["id"] == id.as_str() {
                v["hallucination_labels"][0]["end"] = serde_json::json!(0);
            }
            format!("{v}\n")
        })
        .collect();
    let wrong = mismatches(&expected, &report, &verdicts, &exported);
    assert!(
        wrong.iter().any(|w| w.starts_with("Boundaries tightened")),
        "{wrong:#?}"
    );
    assert!(wrong.iter().any(|w| w.contains("outcomes")), "{wrong:#?}");
    assert!(
        wrong
            .iter()
            .any(|w| w.starts_with(&format!("{id}: labels"))),
        "{wrong:#?}"
    );
}
