//! The README's claims about the review screen, fed into `App` or pressed in tmux: the
//! arbitration edit's Tab, where `v` starts, the rescue of a deleted database, a record that
//! could not be read while the server was away.

use std::rc::Rc;

use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Status};
use spanreview::tui::edit::Bounds;
use spanreview::tui::Action;

use super::super::app_harness::{goto, mem, open_all};
use super::super::common::data;

// ----- review, arbitration keys: "`t` ... (`Tab`/`Shift-Tab`: the next / previous lane's)" -----

/// The bundled sample, its three sources, on the arbitration screen at `record`.
fn arbitrating(store: &Rc<Store>, record: &str) -> App {
    let files = [
        data("toolace/test_records_reconstructed.jsonl"),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let mut app = open_all(&files, store);
    goto(&mut app, record);
    app.update(Action::Arbitrate);
    assert_eq!(app.mode, ModeState::Arbitrate);
    app
}

/// The arbitration edit's boundaries and the lane its status line says it started from.
fn editing(app: &App) -> (Bounds, String) {
    let ModeState::Settle { bounds, .. } = &app.mode else {
        panic!("not in the arbitration edit: {:?}", app.mode);
    };
    let Status::Info(s) = &app.status else {
        panic!("no status: {:?}", app.status);
    };
    let lane = s
        .split("lane ")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap_or_else(|| panic!("no lane in {s:?}"));
    (*bounds, lane.to_owned())
}

fn b(start: usize, end: usize) -> Bounds {
    Bounds { start, end }
}

#[test]
fn tab_in_the_arbitration_edit_walks_every_lane_when_two_share_a_version() {
    // toolace_train_00021__overgeneration's second cluster: gold and the ensemble both mark
    // [184, 255), ModernBERT [183, 255). Lanes with equal versions are still two lanes: Tab
    // goes 1 → 2 → 3 → 1, Shift-Tab back.
    let store = mem();
    let mut app = arbitrating(&store, "toolace_train_00021__overgeneration");
    app.update(Action::NextSpan);
    app.update(Action::Adjust);
    assert_eq!(editing(&app), (b(184, 255), "1".into()));
    let mut walk = Vec::new();
    for a in [
        Action::NextVersion,
        Action::NextVersion,
        Action::NextVersion,
        Action::PrevVersion,
        Action::PrevVersion,
    ] {
        app.update(a);
        walk.push(editing(&app));
    }
    assert_eq!(
        walk,
        [
            (b(184, 255), "2".into()),
            (b(183, 255), "3".into()),
            (b(184, 255), "1".into()),
            (b(183, 255), "3".into()),
            (b(184, 255), "2".into()),
        ]
    );
    // Tab to ModernBERT's version, Enter: its version is the one saved.
    app.update(Action::NextVersion);
    assert_eq!(editing(&app).1, "3");
    app.update(Action::Confirm);
    let log = store.decisions(None).expect("log");
    let after = log.last().and_then(|d| d.after.clone()).expect("saved");
    assert_eq!((after.start, after.end), (183, 255));
}

#[test]
fn tab_in_the_arbitration_edit_wraps_over_two_equal_versions() {
    // The first cluster: gold and the ensemble both [0, 48), ModernBERT nothing (no version).
    let store = mem();
    let mut app = arbitrating(&store, "toolace_train_00021__overgeneration");
    app.update(Action::Adjust);
    assert_eq!(editing(&app), (b(0, 48), "1".into()));
    app.update(Action::NextVersion);
    assert_eq!(editing(&app), (b(0, 48), "2".into()));
    app.update(Action::NextVersion);
    assert_eq!(editing(&app), (b(0, 48), "1".into()), "wraps to lane 1");
    app.update(Action::PrevVersion);
    assert_eq!(editing(&app), (b(0, 48), "2".into()), "back to lane 2");
}

// ----- review keys: "`v` / `V` | add: the cursor starts at the character last clicked on the
// record (not on a span; a search since wins), else at the search's first hit in the answer
// (after `/`), else at the span's start" — and the help screen says the same -----

#[test]
fn the_help_screen_says_where_v_starts_as_the_readme_does() {
    let text = spanreview::tui::strings::MOTIONS_HELP;
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s:?} not in the help: {text}"))
    };
    let (click, hit, span) = (
        at("v starts at the character last clicked"),
        at("else at the search's first hit"),
        at("else at the selected span"),
    );
    assert!(click < hit && hit < span, "{text}");
}

// ----- review: "If the database file is deleted or replaced during the review ... everything
// saved until then is copied to `NAME.rescued-TIME.sqlite` beside it (or in the temp folder)",
// with `--db review.sqlite` as the README's examples give it: a name in the current folder -----

#[test]
fn a_relative_db_deleted_during_the_review_is_rescued_beside_it() {
    use super::super::terminal::{bin, env, shell_quote, Tmux};
    let dir = tempfile::tempdir().expect("tmp");
    let files: Vec<String> = super::super::app_harness::review_files()
        .iter()
        .map(|p| shell_quote(p))
        .collect();
    let cmd = format!(
        "sh -c \"cd {} && {} review {} --db review.sqlite --queue all; echo exit=\\$?; sleep 600\"",
        shell_quote(dir.path()),
        bin(),
        files.join(" ")
    );
    let Some(t) = Tmux::start("rescue-rel", &cmd, &env(dir.path())) else {
        return;
    };
    t.wait("uni_1__contradiction");
    t.press(&["A"], "saved #1");
    for suffix in ["", "-wal", "-shm"] {
        std::fs::remove_file(dir.path().join(format!("review.sqlite{suffix}"))).expect("rm");
    }
    t.press(&["A"], "NOT saved");
    t.keys(&["q"]);
    t.wait("exit=");
    let rescue = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().contains("review.rescued-"))
        .unwrap_or_else(|| panic!("no rescue file beside review.sqlite:\n{}", t.screen()));
    let log = Store::open_existing(&rescue)
        .expect("rescue")
        .decisions(None)
        .expect("log");
    assert_eq!(log.len(), 1, "{log:?}");
}

// ----- Running a team server: while the server is unreachable, "moving goes on, but a record
// moved to shows the read error instead ...": once the server is back, the screen shows the
// record by itself, as it saves the decisions kept, with no key pressed -----

/// A log over an in-memory store whose reads fail while `down` is set, as a PostgreSQL server
/// gone away does.
struct Unreachable {
    store: Rc<Store>,
    down: Rc<std::cell::Cell<bool>>,
}

impl spanreview::tui::log::DecisionLog for Unreachable {
    fn append(
        &self,
        d: &spanreview::review::decision::Decision,
        state: &spanreview::store::RecordState,
    ) -> Result<spanreview::review::decision::Decision, String> {
        spanreview::tui::log::DecisionLog::append(&*self.store, d, state)
    }
    fn record_decisions(
        &self,
        dataset: &str,
        record_id: &str,
    ) -> Result<Vec<spanreview::review::decision::Decision>, String> {
        if self.down.get() {
            return Err("error connecting to server: Connection refused".into());
        }
        spanreview::tui::log::DecisionLog::record_decisions(&*self.store, dataset, record_id)
    }
    fn reviewer_log(
        &self,
        dataset: &str,
        reviewer: &str,
    ) -> Result<Vec<spanreview::review::decision::Decision>, String> {
        spanreview::tui::log::DecisionLog::reviewer_log(&*self.store, dataset, reviewer)
    }
    fn record_states(
        &self,
        dataset: &str,
    ) -> Result<std::collections::HashMap<String, spanreview::store::RecordState>, String> {
        spanreview::tui::log::DecisionLog::record_states(&*self.store, dataset)
    }
    fn now(&self) -> std::time::SystemTime {
        self.store.now()
    }
}

#[test]
fn a_record_that_could_not_be_read_shows_once_the_server_is_back() {
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, SystemTime};
    let store = mem();
    let clock = Arc::new(Mutex::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1 << 30),
    ));
    let c = Arc::clone(&clock);
    store.set_clock(Arc::new(move || *c.lock().expect("clock")));
    let down = Rc::new(std::cell::Cell::new(false));
    let log = Unreachable {
        store: Rc::clone(&store),
        down: Rc::clone(&down),
    };
    let ds = spanreview::formats::Dataset::open(&super::super::app_harness::review_files(), None)
        .expect("fixture");
    let mut app = App::new(
        ds,
        Box::new(log),
        "tester",
        spanreview::tui::queue::QueueKind::All,
        spanreview::tui::config::Config::defaults(true),
        None,
    )
    .expect("app");
    let first = super::super::app_harness::id(&app);
    down.set(true);
    app.update(Action::NextRecord);
    let err = app.cur.as_ref().err().cloned().expect("the read fails");
    assert!(err.contains("Connection refused"), "{err}");
    // Still down: a second goes by, the error stays.
    *clock.lock().expect("clock") += Duration::from_secs(1);
    app.idle();
    assert!(app.cur.is_err());
    // Back: within a second the record moved to is on screen, no key pressed.
    down.set(false);
    *clock.lock().expect("clock") += Duration::from_secs(1);
    app.idle();
    let shown = app.cur.as_ref().map(|c| c.record.id.clone());
    assert!(
        shown.as_ref().is_ok_and(|id| *id != first),
        "{shown:?} (first record {first})"
    );
    assert_eq!(app.pos, 1, "the record moved to, not the one left");
}

// ----- review: "the context pretty-printed beside it with evidence for the selected span
// highlighted ..., its bottom border giving the rows shown and how far down the pane is when it
// does not fit" — the README's first command, on the sample's first record -----

#[test]
fn the_samples_first_context_shows_whole_when_it_fits_and_the_evidence_when_it_does_not() {
    let store = mem();
    let files = [
        data("toolace/test_records_reconstructed.jsonl"),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let mut app = open_all(&files, &store);
    assert_eq!(
        super::super::app_harness::id(&app),
        "toolace_train_00021__overgeneration"
    );
    // 27 rows of context, the evidence ("randomSequence") on row 24, in a pane of 38 rows:
    // all of it from its first row, no position in the border.
    let screen = super::super::app_harness::render(&mut app, 160, 45);
    assert_eq!(app.layout.context_rows, 27, "{screen}");
    assert_eq!(app.layout.context_scroll, 0, "{screen}");
    assert!(screen.contains("\"events\": ["), "{screen}");
    assert!(!screen.contains("rows 2"), "{screen}");
    // A pane too short for it: scrolled to the evidence, the position in the border.
    let screen = super::super::app_harness::render(&mut app, 160, 24);
    assert!(app.layout.context_scroll > 0, "{screen}");
    assert!(screen.contains("randomSequence"), "{screen}");
    assert!(screen.contains("/27 · 100%"), "{screen}");
}
