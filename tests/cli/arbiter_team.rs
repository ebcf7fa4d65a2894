//! Issue 21's team rules on the screen: what the arbitration screen saves is the arbiter's
//! (marked, so no reviewer's review), blind review hides the others' work, and which sources
//! count as disputing.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use spanreview::cli::judge_args::JudgeArgs;
use spanreview::formats::judges::JudgeSpec;
use spanreview::formats::Dataset;
use spanreview::review::decision::{
    replay, replay_seen, ActionKind, Decision, SpanStatus, SpanValue, BLIND_GROUP,
};
use spanreview::review::disagreement::Among;
use spanreview::review::team::ARBITRATION_GROUP;
use spanreview::store::{Assignment, Store};
use spanreview::tui::app::{App, Opening, Status};
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::config::Config;
use spanreview::tui::log::state_of;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{finish, mem, open, render};
use super::common::{data, fixture, shared};

fn fixture_files() -> Vec<PathBuf> {
    [
        "records.jsonl",
        "predictions_alpha.jsonl",
        "predictions_beta.jsonl",
    ]
    .iter()
    .map(|f| fixture(&format!("arbitrate/{f}")))
    .collect()
}

/// A clean pressed on the arbitration screen is saved marked as the arbiter's (its group);
/// the same key on the review screen is a reviewer's decision, unmarked.
#[test]
fn the_arbitration_screens_decisions_are_marked_as_the_arbiters() {
    let store = mem();
    let mut app = open(
        &fixture_files(),
        &store,
        QueueKind::Disputed,
        ArbConfig::default(),
    );
    finish(&mut app);
    assert!(app.arbitrating);
    app.update(Action::Clean);
    let log = store.decisions(None).expect("log");
    let last = log.last().expect("saved");
    assert_eq!(last.action, ActionKind::Clean);
    let group = last.group.as_deref().unwrap_or_default();
    assert!(group.starts_with(ARBITRATION_GROUP), "{last:?}");
    app.update(Action::Undo);
    let undo = store.decisions(None).expect("log").pop().expect("undo");
    assert_eq!((undo.action, undo.group), (ActionKind::Undo, None));
    // Back on the review screen: a reviewer's clean.
    app.update(Action::Arbitrate);
    assert!(!app.arbitrating);
    app.update(Action::Clean);
    let last = store.decisions(None).expect("log").pop().expect("saved");
    assert_eq!((last.action, last.group), (ActionKind::Clean, None));
}

/// The disputed queue's size over the bundled toolace records with `detectors` joined as
/// prediction files and the judges fixture attached as `llm`, counting `among`.
fn disputed_count(detectors: &[PathBuf], among: Among) -> usize {
    let mut files = vec![data("toolace/test_records_reconstructed.jsonl")];
    files.extend_from_slice(detectors);
    let ds = Dataset::open(&files, None).expect("open");
    let spec: JudgeSpec = format!("llm={}", fixture("judges/decisions.jsonl").display())
        .parse()
        .expect("spec");
    let judges = JudgeArgs {
        judges: vec![spec],
        ..JudgeArgs::default()
    }
    .load(&ds, &ds.name, None)
    .expect("judges")
    .0;
    let config = ArbConfig {
        judges: Some(Arc::new(judges)),
        among,
        ..ArbConfig::default()
    };
    let store = mem();
    let mut app = open(&files, &store, QueueKind::Disputed, config);
    finish(&mut app);
    app.queue.members().len()
}

/// Issue 21, 11: with detectors attached the default disputed queue holds the records the gold
/// and the judge dispute, not every record a detector differs on; `--dispute-among` names who
/// counts (`*`: everyone, as before).
#[test]
fn detectors_do_not_dispute_by_default_and_dispute_among_names_who_does() {
    let detectors = [
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let by_default = disputed_count(&detectors, Among::Default);
    let everyone = disputed_count(&detectors, Among::parse("*").expect("spec"));
    let with_ensemble = disputed_count(&detectors, Among::parse("ens*,llm").expect("spec"));
    assert!(everyone > 100, "{everyone}");
    assert!((1..=5).contains(&by_default), "{by_default} of {everyone}");
    assert!(
        by_default < with_ensemble && with_ensemble < everyone,
        "default {by_default}, ensemble and llm {with_ensemble}, everyone {everyone}"
    );
}

/// The same with the detector files of the shared results (skipped without them).
#[test]
fn with_every_shared_detector_the_default_queue_stays_small() {
    let names = [
        "ensemble",
        "missing_tool_rule",
        "modernbert_ft",
        "nli_zeroshot",
        "qwen_lora",
    ];
    let Some(detectors) = names
        .iter()
        .map(|n| shared(&format!("toolace/results/{n}/predictions_combined.jsonl")))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let by_default = disputed_count(&detectors, Among::Default);
    let everyone = disputed_count(&detectors, Among::parse("*").expect("spec"));
    eprintln!("disputed queue: {by_default} by default, {everyone} with every source");
    assert!(
        everyone > 150 && by_default <= 5,
        "{by_default} of {everyone}"
    );
}

/// The review fixture's records (`uni_1__contradiction` first: one span, "rainy").
fn review_records() -> Vec<PathBuf> {
    vec![fixture("review/records.jsonl")]
}

/// `who`'s decision `action` on record 0's span (a flag or note: on the record), through
/// their own connection to `db`.
fn by(db: &Path, who: &str, action: ActionKind) {
    let ds = Dataset::open(&review_records(), None).expect("files");
    let rec = ds.record(0).expect("record");
    let mut d = Decision::new(&rec, &ds.name, who, action);
    if matches!(action, ActionKind::Drop | ActionKind::Accept) {
        d.span_key = Some("gold:0".into());
        d.before = Some(SpanValue::of(&rec.gold_spans()[0]));
    }
    // The record's stored state after it, as a screen saves it (the flagged queue reads it).
    let store = Store::open(db).expect("db");
    let mut log = store.record_decisions(&ds.name, &rec.id).expect("log");
    log.push(d.clone());
    let state = state_of(&replay(&rec, &log));
    store.append(&d, Some(&state)).expect("saved");
}

/// `who`'s screen on the review fixture over `db`, in `queue`, with `arb`.
fn screen(db: &Path, who: &str, queue: QueueKind, arb: ArbConfig) -> App {
    let store = Rc::new(Store::open(db).expect("db"));
    let ds = Dataset::open(&review_records(), None).expect("files");
    let opening = Opening {
        arb,
        ..Opening::new(queue, Config::defaults(true))
    };
    App::open(ds, Box::new(store), who, opening).expect("app")
}

fn status_text(app: &App) -> String {
    match &app.status {
        Status::Saved(m) | Status::Error(m) | Status::Info(m) => m.clone(),
        other => format!("{other:?}"),
    }
}

fn first_status(app: &App) -> SpanStatus {
    app.cur.as_ref().expect("record").review.spans[0]
        .status
        .clone()
}

fn blind() -> ArbConfig {
    ArbConfig {
        blind: true,
        ..ArbConfig::default()
    }
}

/// Issue 21, 10: `--blind` on the review screen. ana drops "rainy" and flags the record; bo,
/// blind, in the flagged queue, sees the span pending (not ana's drop), and is told nothing of
/// ana's next decision; once bo has decided the record, the whole log shows. Without
/// `--blind` bo sees ana's drop at once.
#[test]
fn blind_review_hides_the_others_until_one_has_decided() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team.sqlite");
    by(&db, "ana", ActionKind::Drop);
    by(&db, "ana", ActionKind::Flag);
    let seeing = screen(&db, "bo", QueueKind::Flagged, ArbConfig::default());
    assert!(matches!(first_status(&seeing), SpanStatus::Dropped { .. }));
    drop(seeing);

    let mut bo = screen(&db, "bo", QueueKind::Flagged, blind());
    assert_eq!(first_status(&bo), SpanStatus::Pending);
    let shown = render(&mut bo, 120, 30);
    assert!(!shown.to_lowercase().contains("dropped"), "{shown}");
    assert!(!shown.contains("ana"), "{shown}");
    // ana notes the record: bo's follow says nothing of it.
    let mut note = Decision::new(
        &bo.cur.as_ref().expect("record").record,
        &bo.dataset.name,
        "ana",
        ActionKind::Note,
    );
    note.note = Some("25°C ’".into());
    Store::open(&db)
        .expect("db")
        .append(&note, None)
        .expect("saved");
    bo.poll_team();
    assert!(!status_text(&bo).contains("ana"), "{}", status_text(&bo));
    assert_eq!(first_status(&bo), SpanStatus::Pending);
    // bo decides: the record is bo's decided, and the log shows whole (bo's accept, later,
    // stands over ana's drop and says so).
    bo.update(Action::Accept);
    assert_eq!(first_status(&bo), SpanStatus::Accepted);
    assert!(status_text(&bo).contains("ana"), "{}", status_text(&bo));
    assert!(
        bo.cur.as_ref().expect("record").review.flagged,
        "ana's flag shows now"
    );
}

/// A decision made blind means what the blind screen showed: bo's `A` after ana's drop, made
/// blind, keeps the span as read in bo's result (an independent second opinion), while the
/// same `A` made seeing ana's drop agrees with it (issue 21, 10 with 4).
#[test]
fn an_accept_all_made_blind_keeps_what_the_blind_screen_showed() {
    for (arb, kept) in [(blind(), true), (ArbConfig::default(), false)] {
        let dir = tempfile::tempdir().expect("tmp");
        let db = dir.path().join("team.sqlite");
        by(&db, "ana", ActionKind::Drop);
        by(&db, "ana", ActionKind::Flag);
        let mut bo = screen(&db, "bo", QueueKind::Flagged, arb);
        bo.update(Action::AcceptAll);
        let record = bo.cur.as_ref().expect("record").record.clone();
        let log = Store::open(&db).expect("db").decisions(None).expect("log");
        let a = log
            .iter()
            .find(|d| d.reviewer == "bo" && d.action == ActionKind::AcceptAll)
            .expect("bo's A saved");
        assert_eq!(
            a.group
                .as_deref()
                .is_some_and(|g| g.starts_with(BLIND_GROUP)),
            kept,
            "{a:?}"
        );
        let result = replay_seen(&record, "bo", &log);
        let dropped = matches!(result.spans[0].status, SpanStatus::Dropped { .. });
        assert_eq!(!dropped, kept, "blind {kept}: {:?}", result.spans[0]);
    }
}

/// Overlap records (the plan gives them to ana and bo) are blind by default while bo has not
/// decided them; `--see-others` shows the others' work.
#[test]
fn overlap_records_are_blind_by_default_and_see_others_opts_out() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team.sqlite");
    let ds = Dataset::open(&review_records(), None).expect("files");
    let plan: Vec<Assignment> = (0..ds.len())
        .map(|i| Assignment {
            record_id: ds.record(i).expect("record").id,
            reviewers: if i == 0 {
                vec!["ana".into(), "bo".into()]
            } else {
                vec!["bo".into()]
            },
        })
        .collect();
    Store::open(&db)
        .expect("db")
        .save_plan(&ds.name, &plan)
        .expect("plan");
    by(&db, "ana", ActionKind::Drop);
    let bo = screen(&db, "bo", QueueKind::Mine, ArbConfig::default());
    assert_eq!(
        bo.cur.as_ref().expect("record").record.id,
        plan[0].record_id
    );
    assert_eq!(first_status(&bo), SpanStatus::Pending);
    let sees = screen(
        &db,
        "bo",
        QueueKind::Mine,
        ArbConfig {
            see_others: true,
            ..ArbConfig::default()
        },
    );
    assert!(matches!(first_status(&sees), SpanStatus::Dropped { .. }));
}

/// The plan of the review fixture: record 0 to ana and bo (overlap), the rest to bo.
fn overlap_plan(db: &Path) {
    let ds = Dataset::open(&review_records(), None).expect("files");
    let plan: Vec<Assignment> = (0..ds.len())
        .map(|i| Assignment {
            record_id: ds.record(i).expect("record").id,
            reviewers: if i == 0 {
                vec!["ana".into(), "bo".into()]
            } else {
                vec!["bo".into()]
            },
        })
        .collect();
    Store::open(db)
        .expect("db")
        .save_plan(&ds.name, &plan)
        .expect("plan");
}

/// The header (two rows) and the stats screen of `app`, before and after it decides its
/// record.
fn counts_seen(app: &mut App) -> Vec<String> {
    let header = |app: &mut App| -> String {
        render(app, 140, 30)
            .lines()
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut seen = vec![header(app)];
    app.update(Action::Stats);
    seen.push(render(app, 140, 30));
    app.update(Action::Stats);
    app.update(Action::Accept);
    seen.push(header(app));
    seen
}

/// Issue 21, 10: blind review's counts. A record ana reviewed counts as reviewed, and does
/// not move the count when bo decides it: the header's "reviewed" and team counts, and the
/// stats screen's, told bo which records ana had decided. Blind (an overlap plan by default,
/// or `--blind` in the flagged queue), bo's screen shows the same counts whether ana decided
/// the record or not; seeing the others (`--see-others`), they differ.
#[test]
fn blind_counts_do_not_tell_what_the_others_decided() {
    let see = ArbConfig {
        see_others: true,
        ..ArbConfig::default()
    };
    let cases = [
        (QueueKind::Mine, ArbConfig::default(), true),
        (QueueKind::Flagged, blind(), true),
        (QueueKind::Mine, see, false),
    ];
    for (queue, arb, hidden) in cases {
        let seen = |ana_drops: bool| {
            let dir = tempfile::tempdir().expect("tmp");
            let db = dir.path().join("team ’.sqlite");
            overlap_plan(&db);
            by(&db, "ana", ActionKind::Flag);
            if ana_drops {
                by(&db, "ana", ActionKind::Drop);
            }
            counts_seen(&mut screen(&db, "bo", queue.clone(), arb.clone()))
        };
        let (without, with) = (seen(false), seen(true));
        if hidden {
            assert_eq!(without, with, "{queue:?}: the counts tell ana's drop");
            assert!(!with[0].contains("team 1/"), "{}", with[0]);
        } else {
            assert_ne!(without, with, "{queue:?}: seeing, ana's drop counts");
        }
    }
}
