//! Integration tests: the reviewers of a merged database as annotation sources. Two reviewers'
//! databases are written through the store on the toolace sample (ana accepts the span of
//! record R, bo drops it; both accept record Q whole) and merged through the binary; then the
//! merged database's arbitration (the review screen's loading path and its disputed queue),
//! `stats`, an undo, merging again, a resolution and `export`'s conflict warning are checked.
//! Known-bad case: a single reviewer's database gives no reviewer source.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use serde_json::Value;
use spanreview::cli::judge_args::{self, JudgeArgs};
use spanreview::formats::judges::{Arbitration, Judges};
use spanreview::formats::Dataset;
use spanreview::model::Record;
use spanreview::review::decision::{replay, ActionKind, Decision, RecordOutcome, SpanValue};
use spanreview::review::disagreement::Options;
use spanreview::store::Store;
use spanreview::tui::app::{App, Opening};
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use crate::common::{bin, data};

/// Record R (one gold span): the reviewers disagree on it.
const R: usize = 1;
/// Record Q (two gold spans): the reviewers agree on it.
const Q: usize = 0;

fn records() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

fn dataset() -> Dataset {
    Dataset::open(&[records()], None).expect("open")
}

/// A span decision on `rec`'s i-th gold span.
fn on_span(ds: &Dataset, rec: &Record, who: &str, action: ActionKind, i: usize) -> Decision {
    let mut d = Decision::new(rec, &ds.name, who, action);
    d.span_key = Some(format!("gold:{i}"));
    d.before = Some(SpanValue::of(&rec.gold_spans()[i]));
    d
}

/// `who`'s database: `R`'s span accepted (`keep`) or dropped, `Q` accepted whole. Returns the
/// decisions as saved.
fn reviewer_db(path: &Path, ds: &Dataset, who: &str, keep: bool) -> Vec<Decision> {
    let store = Store::open(path).expect("open");
    let (r, q) = (ds.record(R).expect("R"), ds.record(Q).expect("Q"));
    let action = if keep {
        ActionKind::Accept
    } else {
        ActionKind::Drop
    };
    let mut saved = vec![store
        .append(&on_span(ds, &r, who, action, 0), None)
        .expect("save")];
    saved.push(
        store
            .append(
                &Decision::new(&q, &ds.name, who, ActionKind::AcceptAll),
                None,
            )
            .expect("save"),
    );
    saved
}

fn merge(out: &Path, inputs: &[&Path], added: &str) {
    bin()
        .arg("merge-db")
        .arg(out)
        .args(inputs)
        .assert()
        .success()
        .stdout(predicates::str::contains(added));
}

/// The dispute on R, in `dir`: ana keeps its span, bo drops it (both accept Q), and their
/// databases merged into a team one. The paths [ana, bo, team] and bo's decisions.
fn disputed_team(dir: &Path, ds: &Dataset) -> ([PathBuf; 3], Vec<Decision>) {
    let [a, b, team] = ["ana", "bo", "team"].map(|n| dir.join(format!("{n}.sqlite")));
    reviewer_db(&a, ds, "ana", true);
    let bo = reviewer_db(&b, ds, "bo", false);
    merge(&team, &[&a, &b], "bo.sqlite: 2 decisions, 2 added");
    ([a, b, team], bo)
}

/// The sources the review screen loads for `db` (no `--judge`).
fn arbitration_sources(ds: &Dataset, db: &Path) -> Judges {
    let store = Store::open_existing(db).expect("db");
    JudgeArgs::default()
        .load(ds, &ds.name, Some(&store))
        .expect("load")
        .0
        .for_arbitration()
}

fn arbitration(ds: &Dataset, judges: &Judges, i: usize) -> Arbitration {
    let mut r = ds.record(i).expect("record");
    judges.attach(&mut r);
    Arbitration::of(&r, &Options::default())
}

fn names(a: &Arbitration) -> Vec<&str> {
    a.sources.iter().map(|s| s.name.as_str()).collect()
}

fn stats(db: &Path) -> Value {
    let out = bin()
        .arg("stats")
        .arg(records())
        .arg("--db")
        .arg(db)
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("stats JSON")
}

/// The review screen on `db` with the disputed queue, clustering finished.
fn disputed_app(ds: Dataset, db: &Path) -> (App, Rc<Store>) {
    let judges = arbitration_sources(&ds, db);
    let store = Rc::new(Store::open(db).expect("db"));
    let arb = ArbConfig {
        judges: Some(Arc::new(judges)),
        ..ArbConfig::default()
    };
    let mut app = App::open(
        ds,
        Box::new(Rc::clone(&store)),
        "carol",
        Opening {
            arb,
            ..Opening::new(QueueKind::Disputed, Config::defaults(true))
        },
    )
    .expect("app");
    super::app_harness::finish(&mut app);
    (app, store)
}

fn export(db: &Path, dir: &Path) -> (String, String, Vec<Value>) {
    let (out, report) = (dir.join("out.jsonl"), dir.join("report.md"));
    let a = bin()
        .arg("export")
        .arg(records())
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    let lines = std::fs::read_to_string(&out)
        .expect("out")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    (
        stderr,
        std::fs::read_to_string(&report).expect("report"),
        lines,
    )
}

#[test]
fn merged_reviewers_disagreement_reaches_arbitration_stats_and_export() {
    let dir = tempfile::tempdir().expect("tmp");
    let ds = dataset();
    let (r, q) = (ds.record(R).expect("R"), ds.record(Q).expect("Q"));
    let ([a, b, team], bo) = disputed_team(dir.path(), &ds);

    // The review screen's loading path: one source per reviewer, R disputed between them.
    let judges = arbitration_sources(&ds, &team);
    assert_eq!(judges.names(), ["reviewer:ana", "reviewer:bo"]);
    let ar = arbitration(&ds, &judges, R);
    assert!(ar.disagreement.is_disputed(), "R is disputed");
    assert_eq!(names(&ar), ["gold", "reviewer:ana", "reviewer:bo"]);
    assert_eq!(ar.sources[1].spans.len(), 1, "ana kept R's span");
    assert!(ar.sources[2].spans.is_empty(), "bo dropped it");
    // Q: both accepted it; no reviewer source on it for arbitration, and nothing disputed.
    let aq = arbitration(&ds, &judges, Q);
    assert!(!aq.disagreement.is_disputed(), "Q is not disputed");
    assert_eq!(names(&aq), ["gold"]);
    assert!(judges.agreed.contains(&q.id));
    // Stats sees both reviewers on both records.
    let store = Store::open_existing(&team).expect("db");
    let (full, _) = JudgeArgs::default()
        .load(&ds, &ds.name, Some(&store))
        .expect("load");
    assert_eq!(full.sources[0].spans.len(), 2);
    assert_eq!(full.sources[1].spans.len(), 2);
    drop(store);

    // The disputed queue of the review screen: R only, one lane per reviewer.
    let (app, _) = disputed_app(dataset(), &team);
    assert_eq!(app.queue.members(), [R]);
    let c = app.cur.as_ref().expect("record");
    assert_eq!(c.record.id, r.id);
    let arb = app.arb.as_ref().expect("arbitration");
    let lanes: Vec<&str> = arb
        .lanes
        .iter()
        .map(|&s| c.record.sources[s].name.as_str())
        .collect();
    assert_eq!(lanes, ["gold", "reviewer:ana", "reviewer:bo"]);
    drop(app);

    // stats: ana against bo over the two records both reviewed (agreeing on Q, not on R).
    let s = stats(&team);
    let pair = s["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .find(|p| p["a"] == "reviewer:ana" && p["b"] == "reviewer:bo")
        .unwrap_or_else(|| panic!("no ana/bo pair in {}", s["pairs"]));
    let o = &pair["overall"];
    assert_eq!(o["records"], 2);
    // ana is the reference of the pair: on R bo misses what she kept.
    assert_eq!(o["example_level"]["tp"], 1, "Q: both found a hallucination");
    assert_eq!(o["example_level"]["fn"], 1, "R: ana did, bo did not");
    assert_eq!(o["example_level"]["fp"], 0);
    assert_eq!(o["char_level"]["fp"], 0);
    assert!(o["char_level"]["fn"].as_u64() > Some(0), "{o}");
    let f1 = o["char_level"]["f1"].as_f64().expect("f1");
    assert!(f1 > 0.0 && f1 < 1.0, "{o}");
    assert_eq!(s["disagreement"]["disputed_records"], 1);

    // export: the conflict on R is reported (bo's later drop is exported).
    let (stderr, report, lines) = export(&team, dir.path());
    assert!(
        stderr.contains("1 record(s) where reviewers' final decisions differ")
            && stderr.contains(&r.id),
        "{stderr}"
    );
    assert!(report.contains("## Reviewer conflicts not resolved by arbitration"));
    assert!(
        report.contains(&format!("| `{}` | ana, bo |", r.id)),
        "{report}"
    );
    let exported_r = lines.iter().find(|l| l["id"] == r.id).expect("R");
    assert_eq!(exported_r["hallucination_labels"], serde_json::json!([]));

    // Merging again adds nothing, and the dispute count stays.
    merge(
        &team,
        &[&a, &b],
        "bo.sqlite: 2 decisions, 0 added, 2 already present",
    );
    assert_eq!(stats(&team)["disagreement"]["disputed_records"], 1);
    assert_eq!(arbitration_sources(&ds, &team), judges);

    // bo undoes the drop: no more dispute on R.
    {
        let bo_store = Store::open(&b).expect("bo");
        let mut u = Decision::new(&r, &ds.name, "bo", ActionKind::Undo);
        u.target = Some(bo[0].id);
        bo_store.append(&u, None).expect("undo");
    }
    merge(&team, &[&b], "bo.sqlite: 3 decisions, 1 added");
    let after = arbitration_sources(&ds, &team);
    assert!(!arbitration(&ds, &after, R).disagreement.is_disputed());
    assert_eq!(stats(&team)["disagreement"]["disputed_records"], 0);
    let (stderr, report, _) = export(&team, dir.path());
    assert!(
        !stderr.contains("reviewers' final decisions differ"),
        "{stderr}"
    );
    assert!(!report.contains("Reviewer conflicts"));
}

#[test]
fn an_arbitration_resolution_settles_the_reviewers_conflict() {
    let dir = tempfile::tempdir().expect("tmp");
    let ds = dataset();
    let r = ds.record(R).expect("R");
    let ([_, _, team], _) = disputed_team(dir.path(), &ds);

    // carol takes ana's lane (lane 2) on R.
    let (mut app, store) = disputed_app(dataset(), &team);
    assert_eq!(app.cur.as_ref().expect("record").record.id, r.id);
    let n0 = store.decisions(None).expect("log").len();
    app.update(Action::Take2);
    let rows = store.decisions(None).expect("log")[n0..].to_vec();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|d| d.action == ActionKind::Resolve
        && d.reviewer == "carol"
        && d.upheld.contains(&"reviewer:ana".to_owned())
        && d.dismissed.contains(&"reviewer:bo".to_owned())));
    drop(app);
    drop(store);

    // carol arbitrated, she is no reviewer source; the conflict is settled.
    let judges = arbitration_sources(&ds, &team);
    assert_eq!(judges.names(), ["reviewer:ana", "reviewer:bo"]);
    let log = Store::open_existing(&team)
        .expect("db")
        .decisions(None)
        .expect("log");
    let rv = judge_args::reviewers(&log, &ds, &Options::default());
    assert_eq!(rv.conflicts.len(), 1);
    assert!(rv.conflicts[0].resolved);

    // export: no warning, R keeps its span (the resolution overrides bo's later drop).
    let (stderr, report, lines) = export(&team, dir.path());
    assert!(
        !stderr.contains("reviewers' final decisions differ"),
        "{stderr}"
    );
    assert!(!report.contains("Reviewer conflicts"));
    let exported_r = lines.iter().find(|l| l["id"] == r.id).expect("R");
    assert_eq!(
        exported_r["hallucination_labels"]
            .as_array()
            .expect("labels")
            .len(),
        1
    );
}

#[test]
fn a_single_reviewers_database_gives_no_reviewer_source() {
    let dir = tempfile::tempdir().expect("tmp");
    let a = dir.path().join("ana.sqlite");
    let ds = dataset();
    reviewer_db(&a, &ds, "ana", false);
    let store = Store::open_existing(&a).expect("db");
    let (judges, notes) = JudgeArgs::default()
        .load(&ds, &ds.name, Some(&store))
        .expect("load");
    assert!(judges.is_empty(), "{:?}", judges.names());
    assert!(notes.is_empty());
    let s = stats(&a);
    assert!(
        !s["sources"]
            .as_array()
            .expect("sources")
            .iter()
            .any(|x| x["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("reviewer:"))),
        "{}",
        s["sources"]
    );
    assert_eq!(s["disagreement"]["disputed_records"], 0);
}

#[test]
fn a_removal_against_kept_spans_is_a_disputed_conflict_and_the_later_decision_stands() {
    let ds = dataset();
    let q = ds.record(Q).expect("Q");
    assert!(!q.gold_spans().is_empty());
    let store = Store::open_in_memory().expect("db");
    let mut rm = Decision::new(&q, &ds.name, "ana", ActionKind::Remove);
    rm.reason = Some("incoherent".into());
    store.append(&rm, None).expect("save");
    store
        .append(
            &Decision::new(&q, &ds.name, "bo", ActionKind::AcceptAll),
            None,
        )
        .expect("save");
    let log = store.decisions(None).expect("log");
    let rv = judge_args::reviewers(&log, &ds, &Options::default());
    assert_eq!(rv.conflicts.len(), 1);
    assert_eq!(rv.conflicts[0].record_id, q.id);
    assert_eq!(rv.conflicts[0].reviewers, ["ana", "bo"]);
    assert!(!rv.conflicts[0].resolved);
    assert!(!rv.agreed.contains(&q.id));
    // The removal is a lane with no span against bo's kept spans: disputed, so the record
    // reaches the arbitration queue.
    let lane = |name: &str| {
        rv.sources
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.spans.get(&q.id))
            .map(Vec::len)
    };
    assert_eq!(lane("reviewer:ana"), Some(0));
    assert_eq!(lane("reviewer:bo"), Some(q.gold_spans().len()));
    // Log order: bo's accept-all came after ana's removal, so the record is kept.
    let merged = replay(&q, &log);
    assert_eq!(merged.outcome, RecordOutcome::Open);
    assert_eq!(merged.kept_spans(&q.output).len(), q.gold_spans().len());

    // Flags and notes are no opinion: bo's note alone is no conflict.
    let store = Store::open_in_memory().expect("db");
    store.append(&rm, None).expect("save");
    let mut note = Decision::new(&q, &ds.name, "bo", ActionKind::Note);
    note.note = Some("hm".into());
    store.append(&note, None).expect("save");
    let log = store.decisions(None).expect("log");
    assert_eq!(
        judge_args::reviewers(&log, &ds, &Options::default()),
        judge_args::Reviewers::default()
    );
}
