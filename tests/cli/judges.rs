//! Integration tests: `--judge NAME=FILE` sources — judge decisions with located claims,
//! prediction files, Mu-SHROOM annotators, another reviewer's database — and sources imported
//! into the database once per file content.

use std::path::{Path, PathBuf};

use spanreview::cli::judge_args::JudgeArgs;
use spanreview::formats::judges::{self, Arbitration, JudgeSpec, Judges};
use spanreview::formats::Dataset;
use spanreview::model::{offsets, Record, SourceRole};
use spanreview::review::decision::{replay, ActionKind, Decision, SpanValue};
use spanreview::review::disagreement::{Options, ProblemKind};
use spanreview::review::locate::MatchKind;
use spanreview::store::Store;

use crate::common::{bin, data, fixture, shared};

fn records() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

fn spec(name: &str, path: &Path) -> JudgeSpec {
    format!("{name}={}", path.display())
        .parse()
        .expect("judge spec")
}

fn args(specs: Vec<JudgeSpec>) -> JudgeArgs {
    JudgeArgs {
        judges: specs,
        ..JudgeArgs::default()
    }
}

fn load(dataset: &Dataset, specs: Vec<JudgeSpec>, store: Option<&Store>) -> Judges {
    args(specs)
        .load(dataset, &dataset.name, store)
        .expect("judges load")
        .0
}

/// The record with this id, with the judges attached.
fn record(dataset: &Dataset, judges: &Judges, id: &str) -> Record {
    for i in 0..dataset.len() {
        let mut r = dataset.record(i).expect("record");
        if r.id == id {
            judges.attach(&mut r);
            return r;
        }
    }
    panic!("no record {id}");
}

/// `output[start:end]` by code points, as Python slices.
fn py(output: &str, start: usize, end: usize) -> String {
    offsets::slice(output, start, end)
        .expect("in range")
        .to_owned()
}

#[test]
fn judge_claims_are_located_exactly_case_insensitively_fuzzily_or_not_at_all() {
    let ds = Dataset::open(&[records()], None).expect("open");
    let judges = load(
        &ds,
        vec![spec("judge", &fixture("judges/decisions.jsonl"))],
        None,
    );
    assert_eq!(judges.names(), ["judge"]);
    assert_eq!(judges.sources[0].role, SourceRole::Judge);

    // Exact.
    let r = record(&ds, &judges, "toolace_train_00039__contradiction");
    let v = judges::verdicts(&r);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].label_correct, Some(false));
    assert_eq!(v[0].gold_span, Some((203, 208)));
    let l = v[0].extra.as_ref().and_then(|c| c.located).expect("placed");
    assert_eq!(l.kind, MatchKind::Exact);
    assert_eq!(py(&r.output, l.start, l.end), "December 10, 2021");
    assert!(v[0].reasoning.contains("45000"));

    // Case-insensitive: the quote is upper-cased.
    let r = record(&ds, &judges, "toolace_train_00021__missing_tool");
    let v = judges::verdicts(&r);
    let l = v[0].extra.as_ref().and_then(|c| c.located).expect("placed");
    assert_eq!(l.kind, MatchKind::CaseInsensitive);
    assert_eq!((l.start, l.end), (50, 90));
    assert_eq!(
        py(&r.output, l.start, l.end),
        "Remember to store this password securely"
    );

    // Fuzzy: a straight apostrophe for ’ and a typo; the answer text is found.
    let r = record(&ds, &judges, "toolace_train_00046__missing_tool");
    let v = judges::verdicts(&r);
    let l = v[0].extra.as_ref().and_then(|c| c.located).expect("placed");
    assert_eq!(l.kind, MatchKind::Fuzzy);
    assert!(
        l.similarity >= 0.8 && l.similarity < 1.0,
        "{}",
        l.similarity
    );
    assert_eq!(
        py(&r.output, l.start, l.end),
        "I don’t have direct access to real-time trend analysis data"
    );

    // Not found: an unplaced claim, kept as such, and the record is disputed by it.
    let r = record(&ds, &judges, "toolace_train_00058__missing_tool");
    let v = judges::verdicts(&r);
    let claim = v[0].extra.as_ref().expect("claim");
    assert_eq!(claim.located, None);
    let a = Arbitration::of(&r, &Options::default());
    assert_eq!(a.disagreement.unplaced.len(), 1);
    assert_eq!(a.disagreement.unplaced[0].judge, "judge");
    assert_eq!(
        a.disagreement.unplaced[0].text,
        "The car was recalled by the manufacturer in 2019."
    );
    let score = a.score();
    assert!(score.is_disputed());
    assert_eq!((score.unplaced_claims, score.judge_disputes), (1, 1));

    // No label and no claim: an "unknown" verdict that disputes nothing.
    let r = record(&ds, &judges, "toolace_train_00027__clean");
    let v = judges::verdicts(&r);
    assert_eq!((v[0].gold_span, v[0].label_correct), (None, None));
    assert!(v[0].extra.is_none());
    assert!(!Arbitration::of(&r, &Options::default())
        .score()
        .is_disputed());

    // A record the judge file does not have gets no judge source.
    let r = record(&ds, &judges, "toolace_train_00021__overgeneration");
    assert!(r.source("judge").is_none());
    assert!(judges::verdicts(&r).is_empty());
}

/// One case per way a judge's `extra_text` is placed: `(record id, how it is found, the text of
/// the answer it lands on)`; `None`: not found, an unplaced claim.
#[rstest::rstest]
#[case::exact(
    "toolace_train_00039__contradiction",
    Some((MatchKind::Exact, "December 10, 2021"))
)]
#[case::case_insensitive(
    "toolace_train_00021__missing_tool",
    Some((MatchKind::CaseInsensitive, "Remember to store this password securely"))
)]
#[case::fuzzy(
    "toolace_train_00046__missing_tool",
    Some((
        MatchKind::Fuzzy,
        "I don’t have direct access to real-time trend analysis data"
    ))
)]
#[case::not_found("toolace_train_00058__missing_tool", None)]
fn each_claim_case(#[case] id: &str, #[case] want: Option<(MatchKind, &str)>) {
    let ds = Dataset::open(&[records()], None).expect("open");
    let judges = load(
        &ds,
        vec![spec("judge", &fixture("judges/decisions.jsonl"))],
        None,
    );
    let r = record(&ds, &judges, id);
    let v = judges::verdicts(&r);
    assert_eq!(v.len(), 1);
    let claim = v[0].extra.as_ref().expect("a claim");
    let got = claim
        .located
        .map(|l| (l.kind, py(&r.output, l.start, l.end)));
    assert_eq!(got, want.map(|(k, t)| (k, t.to_owned())));
    let a = Arbitration::of(&r, &Options::default());
    assert_eq!(a.disagreement.unplaced.len(), usize::from(want.is_none()));
}

#[test]
fn prediction_files_attach_their_detector_with_extra_keys() {
    let ds = Dataset::open(&[records()], None).expect("open");
    let ens = data("toolace/ensemble/predictions_combined.jsonl");
    let judges = load(&ds, vec![spec("ens", &ens)], None);
    let joined = Dataset::open(&[records(), ens], None).expect("open joined");
    let mut compared = 0;
    for i in 0..ds.len() {
        let mut r = ds.record(i).expect("record");
        judges.attach(&mut r);
        let j = joined.record(i).expect("record");
        let (a, b) = (r.source("ens").expect("ens"), j.source("ensemble"));
        assert_eq!(a.role, SourceRole::Detector);
        assert_eq!(Some(&a.spans), b.map(|s| &s.spans), "{}", r.id);
        assert!(a.spans.iter().all(|s| s.confidence.is_some()));
        compared += 1;
    }
    assert_eq!(compared, 175);
    // The ensemble labels every span "ensemble": not a label of the dataset, so no label dispute.
    let options = Options::default();
    for i in 0..ds.len() {
        let mut r = ds.record(i).expect("record");
        judges.attach(&mut r);
        let a = Arbitration::of(&r, &options);
        assert!(
            a.disagreement.clusters.iter().all(|c| !c.label_disputed),
            "{}",
            r.id
        );
    }
}

#[test]
fn sources_are_imported_once_and_again_when_the_file_changes() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let preds = dir.path().join("preds.jsonl");
    std::fs::copy(
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
        &preds,
    )
    .expect("cp");
    let ds = Dataset::open(&[records()], None).expect("open");
    let store = Store::open(&db).expect("store");
    let a = args(vec![spec("mb", &preds)]);

    let (first, notes) = a.load(&ds, &ds.name, Some(&store)).expect("load");
    assert!(notes[0].imported && !notes[0].reused);
    let (second, notes) = a.load(&ds, &ds.name, Some(&store)).expect("load");
    assert!(notes[0].reused && !notes[0].imported);
    assert_eq!(first, second, "the database gives back what the file gave");
    let rows = store.sources().expect("rows");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].hash.len(), 64);
    assert_eq!(
        (rows[0].name.as_str(), rows[0].format.as_str()),
        ("mb", "predictions")
    );
    assert_eq!(rows[0].records, 235);

    // A reopened database reuses the import too.
    drop(store);
    let store = Store::open(&db).expect("store");
    let (_, notes) = a.load(&ds, &ds.name, Some(&store)).expect("load");
    assert!(notes[0].reused);

    // Changed bytes: a new hash, a new import; the old one stays.
    let text = std::fs::read_to_string(&preds).expect("read");
    let changed = text.replacen("\"confidence\": 0.", "\"confidence\": 0.1", 1);
    assert_ne!(changed, text);
    std::fs::write(&preds, changed).expect("write");
    let (third, notes) = a.load(&ds, &ds.name, Some(&store)).expect("load");
    assert!(notes[0].imported);
    assert_ne!(third, first);
    let rows = store.sources().expect("rows");
    assert_eq!(rows.len(), 2);
    assert_ne!(rows[0].hash, rows[1].hash);
    assert_eq!(
        store.source_by_hash(&rows[1].hash).expect("by hash").len(),
        1
    );
}

#[test]
fn another_reviewers_database_is_their_reviewed_result() {
    let dir = tempfile::tempdir().expect("tmp");
    let other = dir.path().join("alice.sqlite");
    let ds = Dataset::open(&[records()], None).expect("open");
    let rec = |i: usize| ds.record(i).expect("record");
    let (r0, r1, r3, r5) = (rec(0), rec(1), rec(3), rec(5));
    {
        let alice = Store::open(&other).expect("alice");
        // r0: drop the first of its two gold spans.
        let mut d = Decision::new(&r0, &ds.name, "alice", ActionKind::Drop);
        d.span_key = Some("gold:0".into());
        d.before = Some(SpanValue::of(&r0.gold_spans()[0]));
        alice.append(&d, None).expect("save");
        // r1: clean.
        alice
            .append(
                &Decision::new(&r1, &ds.name, "alice", ActionKind::Clean),
                None,
            )
            .expect("save");
        // r3: removed.
        let mut d = Decision::new(&r3, &ds.name, "alice", ActionKind::Remove);
        d.reason = Some("incoherent".into());
        alice.append(&d, None).expect("save");
        // r5: only a note (no opinion on the spans).
        let mut d = Decision::new(&r5, &ds.name, "alice", ActionKind::Note);
        d.note = Some("look again".into());
        alice.append(&d, None).expect("save");
    }
    let before = std::fs::read(&other).expect("read");
    let judges = load(&ds, vec![spec("alice", &other)], None);
    assert_eq!(
        std::fs::read(&other).expect("read"),
        before,
        "read only: untouched"
    );
    let alice = &judges.sources[0];
    assert_eq!(
        (alice.name.as_str(), alice.role),
        ("alice", SourceRole::Annotator)
    );
    let mut ids: Vec<&str> = alice.spans.keys().map(String::as_str).collect();
    ids.sort_unstable();
    let mut want = vec![r0.id.as_str(), r1.id.as_str()];
    want.sort_unstable();
    assert_eq!(ids, want);
    let log = Store::open(&other)
        .expect("alice")
        .decisions(None)
        .expect("log");
    assert_eq!(
        alice.spans[&r0.id],
        replay(&r0, &log).kept_spans(&r0.output)
    );
    assert_eq!(alice.spans[&r0.id].len(), r0.gold_spans().len() - 1);
    assert!(alice.spans[&r1.id].is_empty());

    // Through the binary: stats lists alice beside gold.
    let db = dir.path().join("me.sqlite");
    Store::open(&db).expect("mine");
    let out = bin()
        .args(["stats", &records().display().to_string(), "--json", "--db"])
        .arg(&db)
        .arg("--judge")
        .arg(format!("alice={}", other.display()))
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let names: Vec<&str> = v["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["gold", "alice"]);
    assert_eq!(v["sources"][1]["overall"]["records"], 2);
}

#[test]
fn mushroom_annotators_become_one_source_each() {
    let Some(file) = shared("multilingual/mushroom/val_v2/mushroom.en-val.v2.extra.jsonl") else {
        return;
    };
    let ds = Dataset::open(std::slice::from_ref(&file), None).expect("open");
    let judges = load(&ds, vec![spec("shroom", &file)], None);
    let names = judges.names();
    assert_eq!(names[0], "shroom");
    assert!(names.len() > 2, "{names:?}");
    assert!(names[1..].iter().all(|n| n.starts_with("shroom/")));
    let mut r = ds.record(0).expect("record");
    let own: Vec<String> = r
        .sources
        .iter()
        .filter(|s| s.role == SourceRole::Annotator)
        .map(|s| format!("shroom/{}", s.name))
        .collect();
    judges.attach(&mut r);
    for n in own {
        assert!(r.source(&n).is_some(), "{n}");
    }
    // Real annotator defects (empty spans, one past the end) are reported, not fatal.
    let mut past_end = Vec::new();
    let mut empty = 0;
    for i in 0..ds.len() {
        let mut r = ds.record(i).expect("record");
        judges.attach(&mut r);
        let a = Arbitration::of(&r, &Options::default());
        for p in &a.disagreement.problems {
            match p.kind {
                ProblemKind::PastEnd => past_end.push((r.id.clone(), p.source_name.clone())),
                ProblemKind::Empty => empty += 1,
                _ => {}
            }
        }
    }
    assert!(
        past_end
            .iter()
            .any(|(id, src)| id == "val-en-34" && src.starts_with("shroom/annotator_")),
        "the annotator span one past the end of val-en-34 is reported: {past_end:?}"
    );
    assert!(empty > 0, "empty annotator spans are reported");
}

#[test]
fn compare_takes_judges_like_joined_files() {
    let ens = data("toolace/ensemble/predictions_combined.jsonl");
    let joined = bin()
        .args(["compare", "--json", "--b", "ensemble"])
        .arg(records())
        .arg(&ens)
        .assert()
        .success();
    let judged = bin()
        .args(["compare", "--json", "--b", "ensemble"])
        .arg(records())
        .arg(format!("--judge=ensemble={}", ens.display()))
        .assert()
        .success();
    let a: serde_json::Value = serde_json::from_slice(&joined.get_output().stdout).expect("json");
    let b: serde_json::Value = serde_json::from_slice(&judged.get_output().stdout).expect("json");
    assert_eq!(a["overall"], b["overall"]);
    bin()
        .args(["compare", "--judge", "nope"])
        .arg(records())
        .assert()
        .code(2);
}

#[test]
fn skimmed_records_cluster_like_full_ones_on_the_test_split() {
    let files = [
        records(),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let ds = Dataset::open(&files, None).expect("open");
    let reader = judges::SpanReader::open(&files, None).expect("open");
    assert_eq!(reader.len(), ds.len());
    let options = Options {
        tolerance: 1,
        ignore_edge_punct: true,
        compare_labels: true,
    };
    for i in 0..ds.len() {
        let full = ds.record(i).expect("full");
        let skim = reader.record(i).expect("skim");
        assert_eq!(skim.id, full.id);
        assert_eq!(skim.sources, full.sources, "{}", full.id);
        assert!(skim.context.is_empty());
        assert_eq!(
            Arbitration::of(&skim, &options).disagreement,
            Arbitration::of(&full, &options).disagreement
        );
    }
}

#[test]
fn a_prediction_file_made_on_another_answer_is_refused_on_every_load() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let preds = dir.path().join("preds.jsonl");
    let ds = Dataset::open(&[records()], None).expect("open");
    let target = ds.record(3).expect("record").id;
    // The ensemble's file with one record's answer changed before its spans: one character
    // added at the start, so every span of it would sit one code point off.
    let text =
        std::fs::read_to_string(data("toolace/ensemble/predictions_combined.jsonl")).expect("read");
    let mut line_no = 0;
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(k, l)| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json");
            if v["id"] == target.as_str() {
                line_no = k + 1;
                let o = v["output"].as_str().expect("output");
                v["output"] = format!("’{o}").into();
            }
            v.to_string()
        })
        .collect();
    assert!(line_no > 0, "{target} is in the ensemble's file");
    std::fs::write(&preds, lines.join("\n") + "\n").expect("write");
    let want = format!("{}:{line_no}: the answer text differs", preds.display());
    let check = |judges: &Judges| {
        let r = record(&ds, judges, &target);
        assert!(r.source("ens").is_none(), "no spans at the wrong offsets");
        assert!(
            r.warnings.iter().any(|w| w.starts_with(&want)),
            "{:?}",
            r.warnings
        );
        let other = record(&ds, judges, &ds.record(4).expect("record").id);
        assert!(other.source("ens").is_some() && other.warnings.is_empty());
    };
    let store = Store::open(&db).expect("store");
    let a = args(vec![spec("ens", &preds)]);
    let (first, notes) = a.load(&ds, &ds.name, Some(&store)).expect("load");
    assert!(notes[0].imported);
    check(&first);
    let (second, notes) = a.load(&ds, &ds.name, Some(&store)).expect("load");
    assert!(
        notes[0].reused,
        "read back from the database, answers included"
    );
    check(&second);

    // An import made before the answers were stored (their columns empty): the file is read
    // again rather than trusted, and the answers are filled in.
    drop(store);
    let conn = rusqlite::Connection::open(&db).expect("sqlite");
    let n = conn
        .execute("UPDATE source_span SET answer = NULL, line = NULL", [])
        .expect("clear");
    assert!(n > 100);
    drop(conn);
    let store = Store::open(&db).expect("store");
    let (third, notes) = a.load(&ds, &ds.name, Some(&store)).expect("load");
    assert!(!notes[0].reused, "not reused without the answers");
    check(&third);
    let (_, notes) = a.load(&ds, &ds.name, Some(&store)).expect("load");
    assert!(notes[0].reused, "filled in by the last load");
}

#[test]
fn another_reviewers_database_is_read_without_leaving_a_file_beside_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let theirs = dir.path().join("théo’s review.sqlite");
    let ds = Dataset::open(&[records()], None).expect("open");
    let r = ds.record(0).expect("record");
    {
        let store = Store::open(&theirs).expect("their db");
        store
            .append(
                &Decision::new(&r, &ds.name, "théo", ActionKind::AcceptAll),
                None,
            )
            .expect("save");
    }
    let listing = || {
        let mut v: Vec<String> = std::fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let before = listing();
    let bytes = std::fs::read(&theirs).expect("bytes");
    let judges = load(&ds, vec![spec("theo", &theirs)], None);
    assert!(judges.names().contains(&"theo"), "{:?}", judges.names());
    assert_eq!(
        listing(),
        before,
        "no -wal or -shm of ours beside their database"
    );
    assert_eq!(std::fs::read(&theirs).expect("bytes"), bytes);
}
