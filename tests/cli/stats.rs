//! Integration tests: `stats`. A flow on the real halu-toolace test split: gold and two
//! detectors as `--judge` sources, disagreement clusters resolved with scripted decisions
//! written through the store, then `stats --json` checked against the decisions made and
//! against [`spanreview::review::metrics`] computed here, independently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use spanreview::cli::judge_args::JudgeArgs;
use spanreview::formats::judges::{Arbitration, JudgeSpec};
use spanreview::formats::Dataset;
use spanreview::model::{Span, GOLD};
use spanreview::review::decision::{
    replay, resolution_decisions, ActionKind, Decision, RecordOutcome, Settling, SpanValue, Unit,
};
use spanreview::review::disagreement::{resolve, Options, Resolution};
use spanreview::review::metrics::{Agreement, RecordAgreement};
use spanreview::store::{new_origin, Store};

use crate::common::{bin, data, shared};

/// The files of one run: records, and the two detectors given as judges.
struct Inputs {
    records: PathBuf,
    ensemble: PathBuf,
    modernbert: PathBuf,
}

fn bundled() -> Inputs {
    Inputs {
        records: data("toolace/test_records_reconstructed.jsonl"),
        ensemble: data("toolace/ensemble/predictions_combined.jsonl"),
        modernbert: data("toolace/modernbert_ft/predictions_combined.jsonl"),
    }
}

fn judge_args(inp: &Inputs) -> JudgeArgs {
    let spec =
        |n: &str, p: &Path| -> JudgeSpec { format!("{n}={}", p.display()).parse().expect("spec") };
    JudgeArgs {
        judges: vec![
            spec("ensemble", &inp.ensemble),
            spec("modernbert", &inp.modernbert),
        ],
        ..JudgeArgs::default()
    }
}

/// `stats` on the records with both detectors as judges, against `db`.
fn stats(inp: &Inputs, db: &Path) -> assert_cmd::Command {
    let mut cmd = bin();
    cmd.arg("stats")
        .arg(&inp.records)
        .arg(format!("--judge=ensemble={}", inp.ensemble.display()))
        .arg(format!("--judge=modernbert={}", inp.modernbert.display()))
        .arg("--db")
        .arg(db);
    cmd
}

fn stats_json(inp: &Inputs, db: &Path, extra: &[&str]) -> Value {
    let out = stats(inp, db).arg("--json").args(extra).assert().success();
    serde_json::from_slice(&out.get_output().stdout).expect("json")
}

/// Upheld/dismissed counts per source, as the decisions made say.
type Counts = BTreeMap<String, (u64, u64)>;

/// Resolve disputed clusters of the first disputed records with a fixed script, writing each
/// resolution through the store; returns the counts the saved decisions carry (one vote per
/// source per resolution, and per span: per saved row), and the number of resolutions.
fn arbitrate(ds: &Dataset, inp: &Inputs, store: &Store) -> (Counts, Counts, usize) {
    let (judges, _) = judge_args(inp)
        .load(ds, &ds.name, Some(store))
        .expect("load");
    let options = Options::default();
    let script = [
        "gold",
        "ensemble",
        "modernbert",
        "drop",
        "union",
        "intersection",
    ];
    let mut counts = Counts::new();
    let mut per_span = Counts::new();
    let mut resolutions = 0;
    let mut records_done = 0;
    for i in 0..ds.len() {
        if records_done == 14 {
            break;
        }
        let mut rec = ds.record(i).expect("record");
        judges.attach(&mut rec);
        if !Arbitration::of(&rec, &options).score().is_disputed() {
            continue;
        }
        records_done += 1;
        // Up to two clusters per record, as the screen shows them (the record as read).
        let mut settled: Vec<(usize, usize)> = Vec::new();
        for _ in 0..2 {
            let log = store.record_decisions(&ds.name, &rec.id).expect("log");
            let review = replay(&rec, &log);
            let a = Arbitration::of(&rec, &options);
            let Some((k, c)) = a
                .disagreement
                .disputed()
                .find(|(_, c)| !settled.iter().any(|&(s, e)| c.start < e && s < c.end))
            else {
                break;
            };
            let how = match script[resolutions % script.len()] {
                "drop" => Resolution::DropAll,
                "union" => Resolution::Union,
                "intersection" => Resolution::Intersection,
                name => Resolution::Take(
                    a.sources
                        .iter()
                        .position(|s| s.name == name)
                        .expect("source"),
                ),
            };
            let outcome =
                resolve(&rec.output, &a.sources, &a.disagreement, k, how).expect("resolved");
            settled.push((c.start, c.end));
            let settling = Settling {
                cluster: k,
                outcome: &outcome,
                reason: "scripted",
                group: &new_origin(),
            };
            let base = Decision::new(&rec, &ds.name, "tester", ActionKind::Resolve);
            let decisions = resolution_decisions(&rec, &review, &a.disagreement, &settling, &base);
            let saved = store.append_all(&decisions, None).expect("saved");
            assert!(!saved.is_empty());
            for d in &saved {
                assert_eq!(d.action, ActionKind::Resolve);
                assert_eq!(
                    (&d.upheld, &d.dismissed),
                    (&saved[0].upheld, &saved[0].dismissed)
                );
                for n in &d.upheld {
                    per_span.entry(n.clone()).or_default().0 += 1;
                }
                for n in &d.dismissed {
                    per_span.entry(n.clone()).or_default().1 += 1;
                }
            }
            for n in &saved[0].upheld {
                counts.entry(n.clone()).or_default().0 += 1;
            }
            for n in &saved[0].dismissed {
                counts.entry(n.clone()).or_default().1 += 1;
            }
            resolutions += 1;
        }
    }
    assert_eq!(records_done, 14, "enough disputed records");
    (counts, per_span, resolutions)
}

/// Agreement of each source (and pair) computed here from the log, without `stats`.
fn expected_agreement(ds: &Dataset, inp: &Inputs, store: &Store) -> BTreeMap<String, Agreement> {
    let (judges, _) = judge_args(inp).load(ds, &ds.name, None).expect("load");
    let mut out: BTreeMap<String, Agreement> = BTreeMap::new();
    for i in 0..ds.len() {
        let mut rec = ds.record(i).expect("record");
        judges.attach(&mut rec);
        let log = store.record_decisions(&ds.name, &rec.id).expect("log");
        let review = replay(&rec, &log);
        if matches!(review.outcome, RecordOutcome::Removed { .. }) {
            continue;
        }
        let reviewed: Vec<Span> = review.kept_spans(&rec.output);
        for s in &rec.sources {
            out.entry(s.name.clone())
                .or_default()
                .add(&RecordAgreement::new(&rec.output, &reviewed, &s.spans));
        }
        if let (Some(g), Some(e)) = (rec.source(GOLD), rec.source("ensemble")) {
            out.entry("gold vs ensemble".into())
                .or_default()
                .add(&RecordAgreement::new(&rec.output, &g.spans, &e.spans));
        }
    }
    out
}

fn flow(inp: &Inputs) {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let ds = Dataset::open(std::slice::from_ref(&inp.records), None).expect("open");
    let store = Store::open(&db).expect("store");
    let (mut counts, mut per_span, resolutions) = arbitrate(&ds, inp, &store);
    // One cluster settled into two spans (the arbitration screen's rows of one resolution
    // share the reason's cluster tag and a note): one vote per source, two per span.
    let two = (0..ds.len())
        .map(|i| ds.record(i).expect("record"))
        .find(|r| {
            r.gold_spans().len() == 1
                && store
                    .record_decisions(&ds.name, &r.id)
                    .expect("log")
                    .is_empty()
        })
        .expect("an undecided record with one label");
    let g = &two.gold_spans()[0];
    for (k, (start, end)) in [("gold:0", (g.start, g.end)), ("added:t-1", (0, 1))] {
        let mut d = Decision::new(&two, &ds.name, "tester", ActionKind::Resolve);
        d.span_key = Some(k.into());
        d.after = Some(SpanValue::new(start, end, g.label.clone()));
        d.upheld = vec!["ensemble".into()];
        d.dismissed = vec!["modernbert".into()];
        d.reason = Some(format!("cluster 0-{}: take ensemble", g.end));
        d.note = Some("resolution t".into());
        d.unit = Some(Unit::Cluster {
            start: 0,
            end: g.end,
        });
        d.group = Some("t".into());
        store.append(&d, None).expect("save");
        per_span.entry("ensemble".into()).or_default().0 += 1;
        per_span.entry("modernbert".into()).or_default().1 += 1;
    }
    counts.entry("ensemble".into()).or_default().0 += 1;
    counts.entry("modernbert".into()).or_default().1 += 1;
    assert_ne!(counts, per_span, "the two units differ");
    assert!(resolutions >= 14);

    // A record removed: left out of the comparisons.
    let removed = ds.record(ds.len() - 1).expect("record");
    let mut d = Decision::new(&removed, &ds.name, "tester", ActionKind::Remove);
    d.reason = Some("incoherent".into());
    store.append(&d, None).expect("save");
    // Known bad: a resolution made on other content of a record is stale: reported, not counted.
    let stale_rec = ds.record(ds.len() - 2).expect("record");
    let mut d = Decision::new(&stale_rec, &ds.name, "tester", ActionKind::Resolve);
    d.record_hash = "0".repeat(24);
    d.span_key = Some("gold:0".into());
    d.after = Some(SpanValue::new(0, 3, "contradiction"));
    d.upheld = vec!["ensemble".into()];
    d.dismissed = vec!["modernbert".into()];
    let stale = store.append(&d, None).expect("save");

    let v = stats_json(inp, &db, &[]);

    // Upheld counts equal the decisions made (the stale one not counted): one vote per source
    // per cluster, and per span as labelled.
    for (name, (up, down)) in &counts {
        assert_eq!(v["upheld"][name]["upheld"], *up, "{name} upheld");
        assert_eq!(v["upheld"][name]["dismissed"], *down, "{name} dismissed");
    }
    for (name, (up, down)) in &per_span {
        assert_eq!(
            v["upheld"][name]["upheld_spans"], *up,
            "{name} upheld spans"
        );
        assert_eq!(
            v["upheld"][name]["dismissed_spans"], *down,
            "{name} dismissed spans"
        );
    }
    let named: Vec<&String> = v["upheld"]
        .as_object()
        .expect("upheld")
        .iter()
        .filter(|(_, c)| {
            c["upheld"].as_u64().unwrap_or(0) + c["dismissed"].as_u64().unwrap_or(0) > 0
        })
        .map(|(n, _)| n)
        .collect();
    assert_eq!(named, counts.keys().collect::<Vec<_>>());
    let sources = v["sources"].as_array().expect("sources");
    for s in sources {
        let name = s["name"].as_str().expect("name");
        let (up, down) = counts.get(name).copied().unwrap_or_default();
        assert_eq!(
            (s["upheld"].as_u64(), s["dismissed"].as_u64()),
            (Some(up), Some(down))
        );
    }

    // The stale decision is reported by id.
    assert_eq!(v["progress"]["stale_decisions"], 1);
    assert_eq!(v["stale"][0]["id"], stale.id);
    assert_eq!(v["progress"]["by_outcome"]["removed"], 1);
    assert_eq!(v["progress"]["records"], 175);
    assert_eq!(v["progress"]["compared"], 174);
    assert!(v["progress"]["with_decisions"].as_u64().unwrap_or(0) >= 15);

    // Agreement numbers equal review::metrics computed here.
    let want = expected_agreement(&ds, inp, &store);
    let names: Vec<&str> = sources.iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, [GOLD, "ensemble", "modernbert"]);
    for s in sources {
        let name = s["name"].as_str().expect("name");
        assert_eq!(
            s["overall"],
            serde_json::to_value(want[name].scores()).expect("json"),
            "{name} vs reviewed"
        );
    }
    let pair = v["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .find(|p| p["a"] == GOLD && p["b"] == "ensemble")
        .expect("gold vs ensemble");
    assert_eq!(
        pair["overall"],
        serde_json::to_value(want["gold vs ensemble"].scores()).expect("json")
    );
    assert_eq!(v["pairs"].as_array().map(Vec::len), Some(3));

    // The arbitration moved the reviewed result away from the gold as read.
    assert_ne!(
        sources[0]["overall"]["char_level"]["f1"].as_f64(),
        Some(1.0)
    );

    // Sources were imported once: a second run reads them from the database.
    let again = stats_json(inp, &db, &[]);
    assert_eq!(again["sources"], v["sources"]);
    assert_eq!(store.sources().expect("rows").len(), 2);

    // The readable table says the same.
    let out = stats(inp, &db).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // The outcomes by name: "kept (not reclassified)", never a bare "open" (read as "to do").
    let json = stats_json(inp, &db, &[]);
    let kept = json["progress"]["by_outcome"]["open"]
        .as_u64()
        .expect("open count");
    assert!(
        text.contains(&format!(
            "kept (not reclassified) {kept}, reclassified clean "
        )),
        "{text}"
    );
    assert!(!text.contains("; open "), "{text}");
    let (up, down) = counts["ensemble"];
    assert!(
        text.contains(&format!("upheld {up} of {} clusters", up + down)),
        "{text}"
    );
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains(&format!("decision #{}", stale.id)), "{err}");
}

#[test]
fn flow_on_the_bundled_test_split() {
    flow(&bundled());
}

#[test]
fn flow_on_the_shared_test_split() {
    let (Some(records), Some(ensemble), Some(modernbert)) = (
        shared("toolace/derived/test_records_reconstructed.jsonl"),
        shared("toolace/results/ensemble/predictions_combined.jsonl"),
        shared("toolace/results/modernbert_ft/predictions_combined.jsonl"),
    ) else {
        return;
    };
    flow(&Inputs {
        records,
        ensemble,
        modernbert,
    });
}

#[test]
fn tolerance_and_edge_punctuation_reduce_disputes() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    Store::open(&db).expect("store");
    let inp = bundled();
    let strict = stats_json(&inp, &db, &[]);
    let loose = stats_json(&inp, &db, &["--tolerance", "3", "--ignore-edge-punct"]);
    let n = |v: &Value| v["disagreement"]["disputed_clusters"].as_u64().expect("n");
    assert!(n(&loose) < n(&strict), "{} !< {}", n(&loose), n(&strict));
    assert_eq!(loose["tolerance"], 3);
    // Nothing reviewed: the reviewed result is the gold.
    assert_eq!(strict["sources"][0]["overall"]["char_level"]["f1"], 1.0);
    assert_eq!(strict["progress"]["reviewed"], 0);
}

#[test]
fn a_missing_database_exits_2() {
    let dir = tempfile::tempdir().expect("tmp");
    bin()
        .arg("stats")
        .arg(bundled().records)
        .arg("--db")
        .arg(dir.path().join("none.sqlite"))
        .assert()
        .code(2);
    assert!(!dir.path().join("none.sqlite").exists());
}

#[test]
fn orphan_decisions_are_reported_and_reviewed_only_narrows_the_comparison() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let inp = bundled();
    let ds = Dataset::open(std::slice::from_ref(&inp.records), None).expect("open");
    let store = Store::open(&db).expect("store");
    // One record accepted as a whole: reviewed.
    let rec = ds.record(0).expect("record");
    store
        .append(
            &Decision::new(&rec, &ds.name, "tester", ActionKind::AcceptAll),
            None,
        )
        .expect("save");
    // A decision on a record the input does not have.
    let mut ghost = rec.clone();
    ghost.id = "no_such_record".into();
    store
        .append(
            &Decision::new(&ghost, &ds.name, "tester", ActionKind::AcceptAll),
            None,
        )
        .expect("save");
    let v = stats_json(&inp, &db, &["--reviewed-only"]);
    assert_eq!(v["progress"]["orphan_decisions"], 1);
    assert_eq!(v["progress"]["reviewed"], 1);
    assert_eq!(v["progress"]["compared"], 1);
    assert_eq!(v["sources"][0]["overall"]["records"], 1);
    let all = stats_json(&inp, &db, &[]);
    assert_eq!(all["progress"]["compared"], 175);
}
