//! Issue 21's team rules on the screen: what the arbitration screen saves is the arbiter's
//! (marked, so no reviewer's review), blind review hides the others' work, and which sources
//! count as disputing.

use std::path::PathBuf;
use std::sync::Arc;

use spanreview::cli::judge_args::JudgeArgs;
use spanreview::formats::judges::JudgeSpec;
use spanreview::formats::Dataset;
use spanreview::review::decision::ActionKind;
use spanreview::review::disagreement::Among;
use spanreview::review::team::ARBITRATION_GROUP;
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{finish, mem, open};
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
