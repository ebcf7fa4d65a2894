//! Issue 21's replay and outcome rules through the binary, on a team database over the bundled
//! toolace records: an `A` means what the reviewer saw (4), a resolution settles a reviewer's
//! added span instead of copying it (1), a re-resolved cluster counts once with the superseded
//! resolution marked (5), and a resolution keeping a reviewer's span at tighter bounds upholds
//! them (6). The database is written through the store, the arbiter's rows built as the
//! arbitration screen builds them; `stats` and `export` are run as a user would.

use std::path::{Path, PathBuf};

use serde_json::Value;
use spanreview::cli::judge_args::JudgeArgs;
use spanreview::formats::judges::Arbitration;
use spanreview::formats::Dataset;
use spanreview::model::{Record, Span};
use spanreview::review::decision::{
    replay, resolution_decisions, ActionKind, Decision, Settling, SpanValue,
};
use spanreview::review::disagreement::{settle, Options};
use spanreview::store::{new_origin, Store};

use crate::common::{bin, data};

/// ana drops its one span ("handled by 'Global Fast", [75, 98)); cy, shown the drop, presses
/// `A`.
const DROPPED: &str = "toolace_train_00554__clean__recovered";
/// Gold "40.748817" [88, 97); bo accepts it whole, then ana adds "°C for a duration of 110
/// minutes" [97, 129) beside it: the reviewers dispute that cluster, and lead resolves it
/// twice.
const ADDED: &str = "toolace_train_00594__contradiction";

fn records() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

fn record(ds: &Dataset, id: &str) -> Record {
    (0..ds.len())
        .map(|i| ds.record(i).expect("record"))
        .find(|r| r.id == id)
        .expect("a bundled record")
}

fn save(store: &Store, d: &Decision) -> i64 {
    store.append(d, None).expect("save").id
}

/// lead resolves the disputed cluster of `rec` to `spans` ([start, end) overgeneration), as
/// the arbitration screen's edit (`t`, Enter) does; the ids of the rows saved.
fn resolve(store: &Store, ds: &Dataset, rec: &Record, spans: &[(usize, usize)]) -> Vec<i64> {
    let judges = JudgeArgs::default()
        .load(ds, &ds.name, Some(store))
        .expect("load")
        .0
        .for_arbitration();
    let mut shown = rec.clone();
    judges.attach(&mut shown);
    let a = Arbitration::of(&shown, &Options::default());
    let (k, _) = a
        .disagreement
        .disputed()
        .next()
        .expect("a disputed cluster");
    let result = spans
        .iter()
        .map(|&(s, e)| Span::new(&rec.output, s, e, "overgeneration"))
        .collect();
    let outcome = settle(&rec.output, &a.sources, &a.disagreement, k, result).expect("cluster");
    let review = replay(
        rec,
        &store.record_decisions(&ds.name, &rec.id).expect("log"),
    );
    let settling = Settling {
        cluster: k,
        outcome: &outcome,
        reason: "edit",
        group: &new_origin(),
    };
    let base = Decision::new(rec, &ds.name, "lead", ActionKind::Resolve);
    let rows = resolution_decisions(rec, &review, &a.disagreement, &settling, &base);
    let saved = store.append_all(&rows, None).expect("saved");
    saved.iter().map(|d| d.id).collect()
}

/// The team database in `dir`, and the ids of lead's two resolutions' rows.
fn team(dir: &Path) -> (PathBuf, Vec<i64>, Vec<i64>) {
    let db = dir.join("team.sqlite");
    let ds = Dataset::open(&[records()], None).expect("open");
    let store = Store::open(&db).expect("db");
    let dropped = record(&ds, DROPPED);
    let mut drop = Decision::new(&dropped, &ds.name, "ana", ActionKind::Drop);
    drop.span_key = Some("gold:0".into());
    drop.before = Some(SpanValue::of(&dropped.gold_spans()[0]));
    save(&store, &drop);
    save(
        &store,
        &Decision::new(&dropped, &ds.name, "cy", ActionKind::AcceptAll),
    );
    let added = record(&ds, ADDED);
    save(
        &store,
        &Decision::new(&added, &ds.name, "bo", ActionKind::AcceptAll),
    );
    let mut add = Decision::new(&added, &ds.name, "ana", ActionKind::Add);
    add.span_key = Some("added:ana1".into());
    add.after = Some(SpanValue::new(97, 129, "overgeneration"));
    save(&store, &add);
    // lead first keeps ana's span as it is, then, on a second look, only "110 minutes".
    let first = resolve(&store, &ds, &added, &[(97, 129)]);
    let second = resolve(&store, &ds, &added, &[(118, 129)]);
    (db, first, second)
}

fn run(args: &[&std::ffi::OsStr]) -> Vec<u8> {
    bin()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

/// The report's count on the row `name`.
fn count(report: &str, name: &str) -> Option<u64> {
    let row = format!("| {name} | ");
    let line = report.lines().find(|l| l.starts_with(&row))?;
    line[row.len()..].trim_end_matches(" |").parse().ok()
}

/// The exported line, the verdict and the report of `ADDED`, with lead's resolutions' rows.
struct Exported {
    line: Value,
    verdict: Value,
    report: String,
    first: Vec<i64>,
    second: Vec<i64>,
}

fn export() -> Exported {
    let dir = tempfile::tempdir().expect("tmp");
    let (db, first, second) = team(dir.path());
    let recs = records();
    let file = |name: &str| dir.path().join(name);
    let (out, verdicts, report) = (file("out.jsonl"), file("verdicts.jsonl"), file("report.md"));
    run(&[
        "export".as_ref(),
        recs.as_os_str(),
        "--db".as_ref(),
        db.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--verdicts".as_ref(),
        verdicts.as_os_str(),
        "--report".as_ref(),
        report.as_os_str(),
    ]);
    let line = |path: &Path| -> Value {
        std::fs::read_to_string(path)
            .expect("read")
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
            .find(|v| v["id"] == ADDED)
            .expect("the record")
    };
    Exported {
        line: line(&out),
        verdict: line(&verdicts),
        report: std::fs::read_to_string(&report).expect("report"),
        first,
        second,
    }
}

/// (4) cy's `A` agrees with ana's drop: the reviewers dispute only ana's added span.
#[test]
fn an_accept_all_after_a_drop_agrees_with_it_in_stats() {
    let dir = tempfile::tempdir().expect("tmp");
    let (db, _, _) = team(dir.path());
    let recs = records();
    let stats: Value = serde_json::from_slice(&run(&[
        "stats".as_ref(),
        recs.as_os_str(),
        "--db".as_ref(),
        db.as_os_str(),
        "--json".as_ref(),
    ]))
    .expect("stats JSON");
    let t = &stats["team"];
    assert_eq!(t["records"], 2, "{t}");
    let disputed: Vec<&str> = t["disagreements"]
        .as_array()
        .expect("disagreements")
        .iter()
        .filter_map(|d| d["record_id"].as_str())
        .collect();
    assert_eq!(disputed, [ADDED], "cy saw the drop and kept it");
}

/// (1) one span where ana added hers, at lead's bounds: no copy beside it, counted once.
#[test]
fn a_resolution_of_a_reviewers_added_span_exports_it_once() {
    let e = export();
    let labels: Vec<(u64, u64, String)> = e.line["hallucination_labels"]
        .as_array()
        .expect("labels")
        .iter()
        .map(|l| {
            (
                l["start"].as_u64().expect("start"),
                l["end"].as_u64().expect("end"),
                l["text"].as_str().expect("text").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        labels,
        [
            (88, 97, "40.748817".into()),
            (118, 129, "110 minutes".into())
        ]
    );
    assert_eq!(count(&e.report, "Spans added"), Some(1), "{}", e.report);
}

/// (5) only the resolution in force counts; the verdict keeps both, the first marked.
#[test]
fn a_re_resolved_cluster_counts_once_and_marks_the_superseded_resolution() {
    let e = export();
    assert_eq!((e.first.len(), e.second.len()), (1, 1));
    assert_eq!(count(&e.report, "Disputed spans resolved"), Some(1));
    assert_eq!(count(&e.report, "Disputed spans upheld"), Some(1));
    assert_eq!(
        count(&e.report, "Disputed clusters (and judge claims) resolved"),
        Some(1)
    );
    let marks: Vec<(i64, Value)> = e.verdict["disputes"]
        .as_array()
        .expect("disputes")
        .iter()
        .map(|d| {
            (
                d["decision"].as_i64().expect("id"),
                d["superseded_by"].clone(),
            )
        })
        .collect();
    assert_eq!(
        marks,
        [
            (e.first[0], Value::from(e.second[0])),
            (e.second[0], Value::Null)
        ]
    );
}

/// (6) "110 minutes" is ana's hallucination at tighter bounds, her label kept: she is upheld;
/// bo and the gold, with nothing there, are dismissed.
#[test]
fn keeping_a_reviewers_span_at_tighter_bounds_upholds_them() {
    let e = export();
    assert_eq!(e.verdict["upheld"], serde_json::json!(["reviewer:ana"]));
    assert_eq!(
        e.verdict["dismissed"],
        serde_json::json!(["gold", "reviewer:bo"])
    );
}
