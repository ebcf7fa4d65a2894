//! The rubber-stamp alarm end to end: a model's first pass over 144 records, then a second
//! pass by ana, applied with their times; `stats` (table, stderr and `--json`), the export
//! report and the review screen's header.

use std::path::Path;

use serde_json::{json, Value};
use spanreview::formats::Dataset;

use super::app_harness::{mem, render};
use super::common::bin;

const OUTPUT: &str = "Il fait 25°C à 東京 👋 aujourd’hui.";

/// `2026-01-01T00:00:00Z` plus `s` seconds.
fn at(s: u64) -> String {
    format!(
        "2026-01-01T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// 144 records, the model's first pass (a drop on every other one, a minute each), then ana's
/// second pass, `step` seconds a record: an `A` that keeps what the screen shows, or, blind, a
/// drop on every third record and an accept on the others.
fn scene(dir: &Path, blind: bool, step: u64) {
    let mut records = String::new();
    let mut log = String::new();
    for i in 0..144u64 {
        let id = format!("r{i}");
        let rec = json!({"id": id, "query": "q", "context": "{}", "output": OUTPUT,
            "hallucination_labels": [{"start": 15, "end": 17, "text": "東京", "label": "contradiction"}],
            "meta": {"corruption_type": "contradiction"}});
        records.push_str(&format!("{rec}\n"));
        let first = if i % 2 == 0 { "drop" } else { "accept" };
        let model = json!({"reviewer": "model", "record_id": id, "action": first,
            "span_key": "gold:0", "time": at(60 * i)});
        let second = if blind {
            let action = if i % 3 == 0 { "drop" } else { "accept" };
            json!({"reviewer": "ana", "record_id": id, "action": action, "span_key": "gold:0",
                "group": format!("blind-{i}"), "time": at(20_000 + step * i)})
        } else {
            json!({"reviewer": "ana", "record_id": id, "action": "accept_all",
                "time": at(20_000 + step * i)})
        };
        log.push_str(&format!("{model}\n{second}\n"));
    }
    std::fs::write(dir.join("records.jsonl"), records).expect("records");
    std::fs::write(dir.join("decisions.jsonl"), log).expect("decisions");
    bin()
        .arg("apply")
        .arg(dir.join("records.jsonl"))
        .arg("--decisions")
        .arg(dir.join("decisions.jsonl"))
        .arg("--db")
        .arg(dir.join("db.sqlite"))
        .assert()
        .success();
}

/// `stats --json`'s entry for `who`, and stats' stderr.
fn stats(dir: &Path, who: &str) -> (Value, String) {
    let out = bin()
        .arg("stats")
        .arg(dir.join("records.jsonl"))
        .arg("--db")
        .arg(dir.join("db.sqlite"))
        .arg("--json")
        .output()
        .expect("stats runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    let entry = report["first_pass"]
        .as_array()
        .and_then(|l| l.iter().find(|f| f["reviewer"] == who).cloned())
        .unwrap_or(Value::Null);
    (entry, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_non_blind_144_of_144_second_pass_raises_the_alarm_in_stats_the_report_and_the_header() {
    let dir = tempfile::tempdir().expect("tmp");
    scene(dir.path(), false, 30);
    let (ana, err) = stats(dir.path(), "ana");
    assert_eq!(
        (&ana["followed"], &ana["agreed"], &ana["rubber_stamp"]),
        (&json!(144), &json!(144), &json!(true)),
        "{ana}"
    );
    assert_eq!(
        (&ana["median_seconds"], &ana["too_fast"]),
        (&json!(30.0), &json!(false)),
        "{ana}"
    );
    assert!(
        err.contains("warning: rubber stamp? ana agreed with the first pass (model) on 144 of 144"),
        "{err}"
    );
    assert!(!err.contains("too fast?"), "{err}");
    // The table says it too.
    let table = bin()
        .arg("stats")
        .arg(dir.path().join("records.jsonl"))
        .arg("--db")
        .arg(dir.path().join("db.sqlite"))
        .output()
        .expect("stats runs");
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains("warning: rubber stamp? ana"), "{table}");
    // The export report.
    bin()
        .arg("export")
        .arg(dir.path().join("records.jsonl"))
        .arg("--db")
        .arg(dir.path().join("db.sqlite"))
        .arg("--out")
        .arg(dir.path().join("out.jsonl"))
        .arg("--report")
        .arg(dir.path().join("report.md"))
        .arg("--card")
        .arg(dir.path().join("card.md"))
        .assert()
        .success();
    let report = std::fs::read_to_string(dir.path().join("report.md")).expect("report");
    assert!(
        report.contains("> **Warning:** rubber stamp? ana agreed"),
        "{report}"
    );
    // The dataset card says it too, under its own heading level.
    let card = std::fs::read_to_string(dir.path().join("card.md")).expect("card");
    assert!(card.contains("\n### Second passes\n"), "{card}");
    assert!(
        card.contains("> **Warning:** rubber stamp? ana agreed"),
        "{card}"
    );
    // The review screen's header, for ana (and not for the model).
    let ds = Dataset::open(&[dir.path().join("records.jsonl")], None).expect("open");
    let log = spanreview::store::Store::open(&dir.path().join("db.sqlite"))
        .expect("db")
        .decisions(None)
        .expect("log");
    let warned = spanreview::cli::review_alarm::warnings(&ds, &log, "ana", 5.0);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(spanreview::cli::review_alarm::warnings(&ds, &log, "model", 5.0).is_empty());
    let store = mem();
    let mut app = super::app_harness::open_as(&[dir.path().join("records.jsonl")], &store, "ana");
    app.set_alarm(warned);
    let screen = render(&mut app, 400, 30);
    assert!(screen.contains("⚠ rubber stamp? ana agreed"), "{screen}");
}

#[test]
fn a_blind_second_pass_with_ordinary_disagreement_stays_silent() {
    let dir = tempfile::tempdir().expect("tmp");
    scene(dir.path(), true, 30);
    let (ana, err) = stats(dir.path(), "ana");
    assert_eq!(
        (&ana["followed"], &ana["blind"], &ana["rubber_stamp"]),
        (&json!(0), &json!(144), &json!(false)),
        "{ana}"
    );
    let agreed = ana["blind_agreed"].as_u64().expect("count");
    assert!(agreed > 0 && agreed < 144, "{ana}");
    assert!(
        !err.contains("rubber stamp?") && !err.contains("too fast?"),
        "{err}"
    );
}

#[test]
fn the_time_rule_fires_on_fast_decisions_and_not_on_slow_ones() {
    for (step, fires) in [(2, true), (30, false)] {
        let dir = tempfile::tempdir().expect("tmp");
        scene(dir.path(), true, step);
        let (ana, err) = stats(dir.path(), "ana");
        assert_eq!(ana["too_fast"], json!(fires), "{step} s: {ana}");
        let said = format!("too fast? ana's median time per record is {step}.0 s over 143 records");
        assert_eq!(err.contains(&said), fires, "{step} s: {err}");
    }
}
