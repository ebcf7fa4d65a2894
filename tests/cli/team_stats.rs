//! Integration tests: `stats` on a database two reviewers share: their agreement on the records
//! both decided on (known values), the disagreements listed, and `--by-reviewer`. The records
//! are three of the toolace sample with a non-ASCII answer put in:
//! `Il fait 25°C à 東京 👋 aujourd’hui.` (32 code points), one gold span `25°C` at [8, 12).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use spanreview::formats::Dataset;
use spanreview::model::Record;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::review::disagreement::Options;
use spanreview::review::team::{Opinion, Team};
use spanreview::store::Store;

use crate::common::{bin, data};

const OUT: &str = "Il fait 25°C à 東京 👋 aujourd’hui.";

/// Three toolace records (distinct bases), each answering `OUT` with the span `25°C`.
fn records(dir: &Path) -> PathBuf {
    let text =
        std::fs::read_to_string(data("toolace/test_records_reconstructed.jsonl")).expect("read");
    let mut seen = std::collections::HashSet::new();
    let mut lines = Vec::new();
    for l in text.lines() {
        let mut v: Value = serde_json::from_str(l).expect("json");
        let base = v["meta"]["base_id"].as_str().expect("base").to_owned();
        if !seen.insert(base) {
            continue;
        }
        v["output"] = OUT.into();
        v["meta"]["corruption_type"] = "contradiction".into();
        v["hallucination_labels"] = serde_json::json!([
            {"start": 8, "end": 12, "label": "contradiction", "text": "25°C"}
        ]);
        lines.push(v.to_string());
        if lines.len() == 3 {
            break;
        }
    }
    let p = dir.join("weather.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").expect("write");
    p
}

/// A temporary directory (kept alive by the first value) holding the records of [`records`]
/// and the path of the database the team shares there (not yet created); the records opened.
fn shared_db() -> (tempfile::TempDir, PathBuf, PathBuf, Dataset) {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path());
    let db = dir.path().join("team.sqlite");
    let ds = Dataset::open(std::slice::from_ref(&file), None).expect("open");
    (dir, file, db, ds)
}

/// `who` accepts (`keep`) or drops the span of record `i` at second `at` of the day.
fn decide(store: &Store, ds: &Dataset, i: usize, who: &str, keep: bool, at: u32) {
    let rec = ds.record(i).expect("record");
    let action = if keep {
        ActionKind::Accept
    } else {
        ActionKind::Drop
    };
    let mut d = Decision::new(&rec, &ds.name, who, action);
    d.span_key = Some("gold:0".into());
    d.before = Some(SpanValue::of(&rec.gold_spans()[0]));
    d.time = format!("2026-12-01T10:{:02}:{:02}Z", at / 60, at % 60);
    store.append(&d, None).expect("save");
}

fn stats(file: &Path, db: &Path, extra: &[&str]) -> Vec<u8> {
    bin()
        .arg("stats")
        .arg(file)
        .arg("--db")
        .arg(db)
        .args(extra)
        .env_remove("SPANREVIEW_DB")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

/// What `stats` prints as text, with `extra` arguments.
fn stats_text(file: &Path, db: &Path, extra: &[&str]) -> String {
    String::from_utf8(stats(file, db, extra)).expect("utf-8")
}

fn team_json(file: &Path, db: &Path) -> Value {
    let v: Value = serde_json::from_slice(&stats(file, db, &["--json"])).expect("json");
    v["team"].clone()
}

fn close(v: &Value, want: f64) {
    let x = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((x - want).abs() < 1e-9, "{x} != {want}");
}

/// Agreeing on record 0: every figure 1, nothing listed.
#[test]
fn agreeing_reviewers_score_one_and_list_nothing() {
    let (_dir, file, db, ds) = shared_db();
    let store = Store::open(&db).expect("db");
    decide(&store, &ds, 0, "ana", true, 0);
    decide(&store, &ds, 0, "bo", true, 1);
    decide(&store, &ds, 1, "ana", true, 2); // ana alone: no overlap record
    let t = team_json(&file, &db);
    assert_eq!(t["records"], 1, "{t}");
    let pair = &t["pairs"][0];
    assert_eq!(
        (pair["a"].as_str(), pair["b"].as_str()),
        (Some("ana"), Some("bo"))
    );
    close(&pair["scores"]["char_level_labeled"]["f1"], 1.0);
    close(&pair["scores"]["kappa_labeled"], 1.0);
    close(&pair["alpha"]["labeled"], 1.0);
    close(&t["alpha"]["labeled"], 1.0);
    assert_eq!(t["disagreements"], serde_json::json!([]));
    let text = stats_text(&file, &db, &[]);
    assert!(text.contains("no disagreement"), "{text}");
}

/// Known-bad: ana keeps `25°C`, bo drops it. Label-aware: tp 0, fp 0, fn 4: F1 0; every code
/// point bo leaves unmarked, so observed = expected agreement: kappa 0. Alpha with L = 4 marked
/// of N = 32: o(con, none) = 4 each way, o(none, none) = 56; n_con = 4, n_none = 60, n = 64:
/// α = 1 − 63·8 / (2·4·60) = (1 − L)/(2N − L) = −3/60.
#[test]
fn disagreeing_reviewers_score_the_known_lower_values_and_are_listed() {
    let (_dir, file, db, ds) = shared_db();
    let store = Store::open(&db).expect("db");
    decide(&store, &ds, 0, "ana", true, 0);
    decide(&store, &ds, 0, "bo", false, 1);
    let t = team_json(&file, &db);
    let pair = &t["pairs"][0];
    close(&pair["scores"]["char_level_labeled"]["f1"], 0.0);
    close(&pair["scores"]["kappa_labeled"], 0.0);
    close(&pair["alpha"]["labeled"], -3.0 / 60.0);
    close(&t["team"]["char_level_labeled"]["f1"], 0.0);
    let d = &t["disagreements"][0];
    let id = ds.record(0).expect("record").id;
    assert_eq!(d["record_id"], id.as_str());
    assert_eq!(
        d["opinions"][0]["spans"][0],
        serde_json::json!({"start": 8, "end": 12, "label": "contradiction", "text": "25°C"})
    );
    assert_eq!(d["opinions"][1]["reviewer"], "bo");
    assert_eq!(d["opinions"][1]["spans"], serde_json::json!([]));
    let text = stats_text(&file, &db, &[]);
    assert!(text.contains("disagreements (1):"), "{text}");
    assert!(
        text.contains("ana: [8,12) contradiction \"25°C\""),
        "{text}"
    );
    assert!(text.contains("bo: no span"), "{text}");
    let row = text
        .lines()
        .find(|l| l.starts_with("ana vs bo"))
        .expect("pair row");
    assert_eq!(
        row.split_whitespace().skip(3).collect::<Vec<_>>(),
        ["1", "0.0000", "0.0000", "-0.0500"],
        "{text}"
    );
}

/// ana decides on the three records at 10:00:00, 10:01:00 and 10:02:00 (2 minutes of work:
/// 90 records an hour); bo on one, once (no rate). Without a plan assigned is `-`; with one,
/// assigned and left follow it.
#[test]
fn by_reviewer_gives_progress_and_pace_with_and_without_a_plan() {
    let (_dir, file, db, ds) = shared_db();
    {
        let store = Store::open(&db).expect("db");
        for (i, at) in [(0, 0), (1, 60), (2, 120)] {
            decide(&store, &ds, i, "ana", true, at);
        }
        decide(&store, &ds, 2, "bo", true, 30);
    }
    let v: Value =
        serde_json::from_slice(&stats(&file, &db, &["--json", "--by-reviewer"])).expect("json");
    let ana = &v["by_reviewer"][0];
    assert_eq!(ana["reviewer"], "ana");
    assert_eq!(
        (ana["assigned"].clone(), ana["done"].clone()),
        (Value::Null, 3.into())
    );
    close(&ana["rate_per_hour"], 90.0);
    assert_eq!(v["by_reviewer"][1]["rate_per_hour"], Value::Null);
    let text = stats_text(&file, &db, &["--by-reviewer"]);
    let row = |text: &str, who: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with("by reviewer"))
            .find(|l| l.starts_with(who))
            .unwrap_or_else(|| panic!("no {who} row:\n{text}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(row(&text, "ana"), ["ana", "-", "3", "-", "90.0", "-"]);

    // A plan giving every record to both: ana is done; bo has 2 left at no measurable rate.
    bin()
        .args(["assign"])
        .arg(&file)
        .args(["--reviewers", "ana,bo", "--overlap", "1", "--db"])
        .arg(&db)
        .env_remove("SPANREVIEW_DB")
        .assert()
        .success();
    let text = stats_text(&file, &db, &["--by-reviewer"]);
    assert_eq!(
        row(&text, "ana"),
        ["ana", "3", "3", "0", "90.0", "0.0", "h"]
    );
    assert_eq!(row(&text, "bo"), ["bo", "3", "1", "2", "-", "-"]);
    // Overlap records: record 2, which both decided on and agree on.
    assert!(text.contains("agreement on 1 record(s)"), "{text}");
}

/// Each reviewer's opinion on `rec` replayed from their own decisions in `log` (not the
/// resolutions arbitrating between reviewers), as the team figures define them.
fn opinions_by_replay(rec: &Record, log: &[Decision]) -> Vec<Opinion> {
    let mut by: BTreeMap<&str, Vec<Decision>> = BTreeMap::new();
    let arbitrates = |d: &Decision| {
        d.action == ActionKind::Resolve
            && d.upheld
                .iter()
                .chain(&d.dismissed)
                .any(|s| s.starts_with("reviewer:"))
    };
    for d in log
        .iter()
        .filter(|d| d.record_id == rec.id && !arbitrates(d))
    {
        by.entry(&d.reviewer).or_default().push(d.clone());
    }
    by.iter()
        .filter_map(|(who, ds)| Opinion::of(rec, who, ds))
        .collect()
}

/// Equal JSON, numbers to 1e-12 (a float printed and parsed back may move by an ulp).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            (x.as_f64().unwrap_or(f64::NAN) - y.as_f64().unwrap_or(f64::NAN)).abs() < 1e-12
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The team figures come from the opinions the reviewer sources are built from (each
/// reviewer's decisions replayed once): they are those of replaying every reviewer's own
/// decisions on each record, over a log with a removal, an adjustment, an undo, a note-only
/// reviewer, a stale decision and a resolution arbitrating between reviewers.
#[test]
fn team_figures_are_those_of_each_reviewers_own_replay() {
    let (_dir, file, db, ds) = shared_db();
    let store = Store::open(&db).expect("db");
    let rec = |i: usize| ds.record(i).expect("record");
    let on = |i: usize, who: &str, action: ActionKind| {
        let r = rec(i);
        let mut d = Decision::new(&r, &ds.name, who, action);
        let span_action = [
            ActionKind::Accept,
            ActionKind::Drop,
            ActionKind::Adjust,
            ActionKind::Resolve,
        ];
        if span_action.contains(&action) {
            d.span_key = Some("gold:0".into());
            d.before = Some(SpanValue::of(&r.gold_spans()[0]));
        }
        d
    };
    let save = |d: &Decision| store.append(d, None).expect("save");
    // Record 0: ana keeps, bo drops, cy tightens to `25°` ([8, 11)); arb upholds ana.
    decide(&store, &ds, 0, "ana", true, 0);
    decide(&store, &ds, 0, "bo", false, 1);
    let mut d = on(0, "cy", ActionKind::Adjust);
    d.after = Some(SpanValue::new(8, 11, "contradiction"));
    save(&d);
    let mut d = on(0, "arb", ActionKind::Resolve);
    d.after = d.before.clone();
    d.upheld = vec!["reviewer:ana".into()];
    d.dismissed = vec!["reviewer:bo".into()];
    save(&d);
    // Record 1: ana keeps, bo removes it, dan only notes.
    decide(&store, &ds, 1, "ana", true, 2);
    let mut d = on(1, "bo", ActionKind::Remove);
    d.reason = Some("incoherent".into());
    save(&d);
    let mut d = on(1, "dan", ActionKind::Note);
    d.note = Some("東京 👋".into());
    save(&d);
    // Record 2: ana cleans; bo keeps, then undoes it; cy's drop was made on other content.
    save(&on(2, "ana", ActionKind::Clean));
    let kept = save(&on(2, "bo", ActionKind::Accept));
    let mut d = on(2, "bo", ActionKind::Undo);
    d.target = Some(kept.id);
    save(&d);
    let mut d = on(2, "cy", ActionKind::Drop);
    d.record_hash = "other content".into();
    save(&d);
    let log = store.decisions(None).expect("log");
    let mut team = Team::default();
    for i in 0..ds.len() {
        let r = rec(i);
        team.add(
            &r.id,
            &r.output,
            &opinions_by_replay(&r, &log),
            &Options::default(),
        );
    }
    let want = serde_json::to_value(team.report()).expect("json");
    assert_eq!(want["records"], 2, "{want}");
    assert_eq!(want["reviewers"], serde_json::json!(["ana", "bo", "cy"]));
    let got = team_json(&file, &db);
    assert!(same(&got, &want), "stats: {got}\nreplayed: {want}");
}

/// The arbiter is no reviewer (issue 21, 3): `lead` resolves record 0 (ana kept, bo dropped)
/// naming only a judge, cleans record 1 from the arbitration screen (its marked group) and,
/// on record 2, cleans after a resolution there. None of it makes `lead` a `reviewer:` source,
/// a rater of the team figures or a reviewer `assign` plans work for.
#[test]
fn an_arbiter_is_no_source_no_rater_and_no_planned_reviewer() {
    let (_dir, file, db, ds) = shared_db();
    {
        let store = Store::open(&db).expect("db");
        decide(&store, &ds, 0, "ana", true, 0);
        decide(&store, &ds, 0, "bo", false, 1);
        decide(&store, &ds, 1, "ana", true, 2);
        decide(&store, &ds, 2, "bo", true, 3);
        let resolve = |i: usize, judge: &str| {
            let r = ds.record(i).expect("record");
            let mut d = Decision::new(&r, &ds.name, "lead", ActionKind::Resolve);
            d.span_key = Some("gold:0".into());
            d.before = Some(SpanValue::of(&r.gold_spans()[0]));
            d.after = d.before.clone();
            d.upheld = vec![judge.to_owned()];
            d.dismissed = vec!["gold".into()];
            d.group = Some(format!("g{i}"));
            store.append(&d, None).expect("save");
        };
        resolve(0, "llm");
        let mut clean = Decision::new(
            &ds.record(1).expect("r"),
            &ds.name,
            "lead",
            ActionKind::Clean,
        );
        clean.group = Some(format!("{}1", spanreview::review::team::ARBITRATION_GROUP));
        store.append(&clean, None).expect("save");
        resolve(2, "ensemble");
        let clean = Decision::new(
            &ds.record(2).expect("r"),
            &ds.name,
            "lead",
            ActionKind::Clean,
        );
        store.append(&clean, None).expect("save");
    }
    let v: Value =
        serde_json::from_slice(&stats(&file, &db, &["--json", "--by-reviewer"])).expect("json");
    let names: Vec<&str> = v["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(!names.iter().any(|n| n.contains("lead")), "{names:?}");
    assert_eq!(
        v["team"]["reviewers"],
        serde_json::json!(["ana", "bo"]),
        "{v}"
    );
    assert_eq!(v["team"]["records"], 1, "{v}");
    let lead = v["by_reviewer"]
        .as_array()
        .expect("paces")
        .iter()
        .find(|p| p["reviewer"] == "lead")
        .expect("lead's pace");
    assert_eq!(lead["done"], 0, "{lead}");
    // A rerun of assign plans no work for lead.
    let out = bin()
        .args(["assign"])
        .arg(&file)
        .args(["--reviewers", "ana,bo", "--overlap", "0", "--json", "--db"])
        .arg(&db)
        .env_remove("SPANREVIEW_DB")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let plan = String::from_utf8(out).expect("utf-8");
    assert_eq!(plan.lines().count(), 3, "{plan}");
    assert!(!plan.contains("lead"), "{plan}");
}

/// One agreement of two reviewers (issue 21, 12): ana keeps `25°C` on records 0 and 1; cy
/// relabels it `overgeneration` on record 0 and removes record 1 (so the reviewed result drops
/// it from the "vs reviewed" comparison). The pairs table's `reviewer:ana vs reviewer:cy` and
/// the team table's `ana vs cy` count the same records with the same figures, and the rule is
/// said under the team table.
#[test]
fn the_pairs_table_and_the_team_table_give_one_agreement() {
    let (_dir, file, db, ds) = shared_db();
    {
        let store = Store::open(&db).expect("db");
        decide(&store, &ds, 0, "ana", true, 0);
        decide(&store, &ds, 1, "ana", true, 1);
        let r = ds.record(0).expect("record");
        let mut d = Decision::new(&r, &ds.name, "cy", ActionKind::Relabel);
        d.span_key = Some("gold:0".into());
        d.before = Some(SpanValue::of(&r.gold_spans()[0]));
        d.after = Some(SpanValue::new(8, 12, "overgeneration"));
        store.append(&d, None).expect("save");
        let r = ds.record(1).expect("record");
        let mut d = Decision::new(&r, &ds.name, "cy", ActionKind::Remove);
        d.reason = Some("incoherent".into());
        store.append(&d, None).expect("save");
    }
    let v: Value = serde_json::from_slice(&stats(&file, &db, &["--json"])).expect("json");
    let pair = v["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .find(|p| p["a"] == "reviewer:ana" && p["b"] == "reviewer:cy")
        .unwrap_or_else(|| panic!("no reviewer pair: {v}"));
    let team = &v["team"]["pairs"][0];
    assert_eq!(
        (team["a"].as_str(), team["b"].as_str()),
        (Some("ana"), Some("cy"))
    );
    assert_eq!(pair["overall"]["records"], 2, "{pair}");
    assert!(
        same(&pair["overall"], &team["scores"]),
        "pairs: {pair}\nteam: {team}"
    );
    let text = stats_text(&file, &db, &[]);
    let cells = |prefix: &str| -> Vec<String> {
        let l = text
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} row:\n{text}"));
        l.split_whitespace().map(str::to_owned).collect()
    };
    // pairs row: name vs name, records, P, R, F1, │, ex F1, │, IoU, n, │, kappa, │, lbl F1, kappa
    let p = cells("reviewer:ana vs reviewer:cy");
    let t = cells("ana vs cy");
    assert_eq!(p[3], t[3], "records\n{text}");
    assert_eq!(p[p.len() - 2], t[4], "label-aware F1\n{text}");
    assert!(
        text.contains("a pair is compared on the records both reviewers decided on"),
        "{text}"
    );
}

/// The report's "reviewer conflicts not resolved by arbitration" has no arbiter side (issue
/// 21, 3): ana and bo agree on record 0, and lead's resolution there names only a judge; on
/// record 1 ana keeps and bo drops, unresolved: the one conflict, ana and bo's.
#[test]
fn an_arbiter_is_no_side_of_a_reviewer_conflict_in_the_report() {
    let (dir, file, db, ds) = shared_db();
    {
        let store = Store::open(&db).expect("db");
        decide(&store, &ds, 0, "ana", true, 0);
        decide(&store, &ds, 0, "bo", true, 1);
        decide(&store, &ds, 1, "ana", true, 2);
        decide(&store, &ds, 1, "bo", false, 3);
        let r = ds.record(0).expect("record");
        let mut d = Decision::new(&r, &ds.name, "lead", ActionKind::Resolve);
        d.span_key = Some("gold:0".into());
        d.before = Some(SpanValue::of(&r.gold_spans()[0]));
        d.after = Some(SpanValue::new(8, 11, "contradiction"));
        d.upheld = vec!["llm".into()];
        d.dismissed = vec!["gold".into()];
        d.group = Some("g0".into());
        store.append(&d, None).expect("save");
    }
    let report = dir.path().join("report.md");
    bin()
        .arg("export")
        .arg(&file)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(dir.path().join("out.jsonl"))
        .arg("--report")
        .arg(&report)
        .env_remove("SPANREVIEW_DB")
        .assert()
        .success();
    let text = std::fs::read_to_string(&report).expect("report");
    let section = text
        .split("## Reviewer conflicts not resolved by arbitration")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_else(|| panic!("no conflict section:\n{text}"));
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
    let id = ds.record(1).expect("record").id;
    assert_eq!(rows, [format!("| `{id}` | ana, bo |")], "{text}");
    assert!(!section.contains("lead"), "{text}");
}
