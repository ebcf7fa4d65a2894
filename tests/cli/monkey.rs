//! A model-based "monkey" test of the review screen: proptest drives an [`App`] with random
//! sequences of keys (every key of the default keymap, in whatever mode the app is in; any
//! bindable action in any mode, as a user keymap may bind it), text typed and pasted into
//! prompts and pickers (non-ASCII, combining marks, ZWJ emoji, case folds that change lengths,
//! control characters, ESC sequences, bidirectional controls), mouse presses, drags, releases
//! and wheel turns at random cells, resizes (1x1, 10x3, 80x24, 300x60, any), idle ticks (the
//! stores' clock injected and stepped), another reviewer saving decisions on another
//! connection, the database lost and found again, undo/redo pairs, reopenings and quits, over
//! the hostile fixture `tests/fixtures/monkey`: the review screen (the unreviewed queue, and
//! every record) and the disputed queue with two detectors and an LLM judge, unanimous records
//! auto-accepted. After every event (the checks are in `monkey_checks.rs`):
//! - nothing panicked;
//! - no cell of the frame holds a control character (C0, DEL, C1, ESC) or a bidirectional
//!   control;
//! - each decision the status line calls saved is in the store, the record on screen shows
//!   exactly the store's decisions and their replay, the app's record states and the header's
//!   reviewed count are the store's (while another reviewer's decision waits for the next
//!   idle tick's poll: nothing shown that the store lacks);
//! - an undo that saved, followed by a redo, gives back every record's replayed state;
//! - a fresh app over the same database file (after a quit too) shows the same record states
//!   and the same review of the record on screen;
//! - at the end, with the database back, every decision kept for a retry is in the store.
//!
//! `MONKEY_CASES=N` runs N cases per screen (16 by default); `MONKEY_DEBUG=1` prints what each
//! case decided, `MONKEY_TRACE=1` every event (both with `--nocapture`).

use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use ratatui::crossterm::event::KeyCode;
use spanreview::formats::Dataset;
use spanreview::review::decision::{replay, Decision};
use spanreview::store::RecordState;
use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Opening, Status};
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::config::Config;
use spanreview::tui::keymap::{Key, DEFAULT_KEYMAP};
use spanreview::tui::log::DecisionLog;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::team_model::TeamLog;
use spanreview::tui::Action;

use super::app_harness::finish;
use super::common::fixture;
use super::monkey_checks::{
    agrees_with_store, apply_accepts, draw_clean, nothing_unsaved, replayed_all, shown,
};

/// One thing the reviewer (or the terminal) does.
#[derive(Debug, Clone)]
enum Ev {
    /// A key as the keymap file writes it, resolved in the app's mode as the terminal loop does.
    Key(String),
    /// A character typed: resolved like a key (unbound characters are text).
    Char(char),
    /// Any bindable action in whatever mode the app is in: a user keymap may bind any action in
    /// any table.
    Bound(Action),
    /// A string typed a character at a time (a paste).
    Text(&'static str),
    /// A lone mouse press, move or release (a drag begun or ended outside the window).
    Mouse(u8, u16, u16),
    /// A left click (down then up) at a cell.
    Click(u16, u16),
    /// A drag: down at one cell, moved to another, released there.
    Drag(u16, u16, u16, u16),
    /// A wheel turn at a cell.
    Wheel(u16, u16, i8),
    /// The terminal's new size.
    Resize(u16, u16),
    /// The event loop's idle tick, a few seconds later by the store's clock.
    Idle,
    /// Another reviewer, on another connection to the same database, saves a decision of kind
    /// `.0` on record `.1` (the screen catches up on its next idle tick).
    Other(u8, usize),
    /// Undo, then redo when the undo saved: every record's replay is as before.
    UndoRedo,
    /// A fresh app over the same database: the same states and review.
    Reopen,
    /// The database becomes unreachable (true) or reachable again (false): decisions made
    /// meanwhile are kept and saved on a later idle tick.
    Down(bool),
}

/// Every key of the default keymap, in any of its tables.
fn keymap_keys() -> Vec<String> {
    let table: toml::Table = toml::from_str(DEFAULT_KEYMAP).expect("keymap parses");
    let mut keys: Vec<String> = table
        .values()
        .filter_map(toml::Value::as_table)
        .flat_map(|t| t.keys().cloned())
        .collect();
    keys.extend(
        [
            "left",
            "right",
            "up",
            "down",
            "backspace",
            "enter",
            "esc",
            "tab",
        ]
        .map(String::from),
    );
    keys.sort();
    keys.dedup();
    keys
}

/// Every bindable action but `crash` (which panics on purpose, for the terminal tests).
fn bindable() -> Vec<Action> {
    Action::BINDABLE
        .iter()
        .copied()
        .filter(|a| *a != Action::Crash)
        .collect()
}

/// Characters typed: text a reviewer types (ASCII, digits for go-to and pickers, `°’東👋`, a
/// combining acute, the parts of a ZWJ family) and what a paste could carry (ESC and the rest of
/// a CSI, C1, DEL, NUL, tab, newline, bidirectional overrides and isolates).
const TYPED: &[char] = &[
    'a', 'z', 'e', '1', '2', '0', ' ', '_', '°', '’', '東', '👋', '\u{301}', '👨', '\u{200d}',
    '👩', '\u{1b}', '[', '3', 'm', ']', '\u{9b}', '\u{85}', '\u{7f}', '\0', '\t', '\n', '\r',
    '\u{202e}', '\u{2066}', '\u{200f}', '\u{2028}', 'İ', 'ß', 'ﬁ', '\u{212a}', 'ς', 'Σ',
];

/// Strings pasted: record ids (the hostile one whole), positions, text of the answers, ESC
/// sequences, combining marks and ZWJ emoji, case folds that change lengths.
const PASTED: &[&str] = &[
    "uni_1\u{1b}[31mred\u{202e}lrt\u{9b}2J\u{2066}iso\u{2069}\u{7}__contradiction",
    "zurich_4__contradiction",
    "3",
    "99999999999999999999999",
    "0",
    "-1",
    "rainy",
    "30°C",
    "°’東👋",
    "e\u{301}\u{301}",
    "👨\u{200d}👩\u{200d}👧",
    "\u{1b}[31m\u{1b}]52;c;UFdORUQ=\u{7}",
    "\u{202e}\u{2066}abc",
    "İSTANBUL STRASSE ﬁne \u{212a}",
    "  ",
];

/// Keys that decide or leave a mode, pressed more often than the rest so that sequences save
/// decisions (and undo them) rather than wander through help screens and prompts.
const DECISIVE: &[&str] = &[
    "a", "A", "x", "r", "t", "v", "V", "c", "f", "m", "R", "T", "u", "ctrl-r", "enter", "esc", "1",
    "2", "U", "I", "P", "X", "l", "h", "n",
];

fn arb_event(keys: Vec<String>) -> impl Strategy<Value = Ev> {
    let coord = || 0u16..130;
    let size = prop_oneof![
        Just((1u16, 1u16)),
        Just((10, 3)),
        Just((300, 60)),
        Just((80, 24)),
        (2u16..160, 2u16..50),
    ];
    prop_oneof![
        8 => proptest::sample::select(keys).prop_map(Ev::Key),
        6 => proptest::sample::select(DECISIVE).prop_map(|k| Ev::Key(k.to_owned())),
        6 => proptest::sample::select(TYPED).prop_map(Ev::Char),
        3 => proptest::sample::select(bindable()).prop_map(Ev::Bound),
        2 => proptest::sample::select(PASTED).prop_map(Ev::Text),
        1 => (0u8..3, coord(), coord()).prop_map(|(k, x, y)| Ev::Mouse(k, x, y)),
        2 => (coord(), coord()).prop_map(|(x, y)| Ev::Click(x, y)),
        1 => (coord(), coord(), coord(), coord()).prop_map(|(a, b, c, d)| Ev::Drag(a, b, c, d)),
        1 => (coord(), coord(), prop_oneof![Just(-1i8), Just(1)]).prop_map(|(x, y, d)| Ev::Wheel(x, y, d)),
        1 => size.prop_map(|(w, h)| Ev::Resize(w, h)),
        2 => Just(Ev::Idle),
        1 => (0u8..7, 0usize..6).prop_map(|(k, r)| Ev::Other(k, r)),
        1 => Just(Ev::UndoRedo),
        1 => Just(Ev::Reopen),
        1 => any::<bool>().prop_map(Ev::Down),
    ]
}

/// Which screen the app opens on.
#[derive(Debug, Clone, Copy)]
pub enum Screen {
    /// The review screen on the records not reviewed yet (what `review` opens by default).
    Plain,
    /// The review screen on every record.
    All,
    /// The disputed queue (arbitration) with the two detectors and the judge, unanimous
    /// records auto-accepted; `blind`: sources shown as A, B, C in a shuffled order.
    Disputed {
        /// `--blind`.
        blind: bool,
    },
}

fn files() -> Vec<PathBuf> {
    ["records", "predictions_alpha", "predictions_beta"]
        .iter()
        .map(|f| fixture(&format!("monkey/{f}.jsonl")))
        .collect()
}

/// The stores' clock: seconds past a fixed time, moved by the test (no sleep).
#[derive(Clone)]
pub struct Clock(Arc<AtomicU64>);

impl Clock {
    pub fn new() -> Self {
        Self(Arc::new(AtomicU64::new(0)))
    }

    /// A store on `db` reading this clock.
    fn store(&self, db: &Path) -> Store {
        let store = Store::open(db).expect("db opens");
        let secs = Arc::clone(&self.0);
        store.set_clock(Arc::new(move || {
            UNIX_EPOCH + Duration::from_secs(1_800_000_000 + secs.load(Ordering::SeqCst))
        }));
        store
    }

    fn advance(&self, secs: u64) {
        self.0.fetch_add(secs, Ordering::SeqCst);
    }
}

/// The store as a database whose connection can be lost: while `down`, every save fails as
/// a lost connection does (nothing saved; the same rows may be given again). Reads work.
pub struct Flaky {
    pub store: Rc<Store>,
    pub down: Rc<Cell<bool>>,
}

const LOST: &str = "connection lost (the monkey pulled the cable)";

impl Flaky {
    fn up(&self) -> Result<&dyn DecisionLog, String> {
        if self.down.get() {
            Err(LOST.to_owned())
        } else {
            Ok(&*self.store)
        }
    }
}

impl DecisionLog for Flaky {
    fn append(&self, d: &Decision, state: &RecordState) -> Result<Decision, String> {
        self.up()?.append(d, state)
    }
    fn append_all(&self, ds: &[Decision], state: &RecordState) -> Result<Vec<Decision>, String> {
        self.up()?.append_all(ds, state)
    }
    fn append_then(
        &self,
        ds: &[Decision],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, String> {
        self.up()?.append_then(ds, state_of)
    }
    fn append_then_origins(
        &self,
        rows: &[(Decision, String)],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, (String, bool)> {
        self.up()
            .map_err(|e| (e, true))?
            .append_then_origins(rows, state_of)
    }
    fn append_auto_accepts(
        &self,
        rows: &[(Decision, RecordState)],
    ) -> Result<Vec<Decision>, String> {
        self.up()?.append_auto_accepts(rows)
    }
    fn record_decisions(&self, dataset: &str, record_id: &str) -> Result<Vec<Decision>, String> {
        DecisionLog::record_decisions(&*self.store, dataset, record_id)
    }
    fn reviewer_log(&self, dataset: &str, reviewer: &str) -> Result<Vec<Decision>, String> {
        DecisionLog::reviewer_log(&*self.store, dataset, reviewer)
    }
    fn record_states(&self, dataset: &str) -> Result<HashMap<String, RecordState>, String> {
        DecisionLog::record_states(&*self.store, dataset)
    }
    fn now(&self) -> SystemTime {
        DecisionLog::now(&*self.store)
    }
    fn team(&self) -> Option<&dyn TeamLog> {
        DecisionLog::team(&*self.store)
    }
}

/// The app over the fixture on the database file `db`, as `review` opens it, its database
/// reachable.
pub fn open(screen: Screen, db: &Path, clock: &Clock) -> (Rc<Store>, App) {
    let (store, app, _) = open_flaky(screen, db, clock);
    (store, app)
}

/// [`open`], with the switch that makes its database unreachable.
fn open_flaky(screen: Screen, db: &Path, clock: &Clock) -> (Rc<Store>, App, Rc<Cell<bool>>) {
    let store = Rc::new(clock.store(db));
    let down = Rc::new(Cell::new(false));
    let ds = Dataset::open(&files(), None).expect("files open");
    let (queue, arb) = match screen {
        Screen::Plain => (QueueKind::Unreviewed, ArbConfig::default()),
        Screen::All => (QueueKind::All, ArbConfig::default()),
        Screen::Disputed { blind } => {
            use spanreview::cli::judge_args::JudgeArgs;
            let args = JudgeArgs {
                judges: vec![format!("llm={}", fixture("monkey/judge.jsonl").display())
                    .parse()
                    .expect("spec")],
                ..JudgeArgs::default()
            };
            let (judges, _) = args.load(&ds, &ds.name, None).expect("judges load");
            let arb = ArbConfig {
                judges: Some(Arc::new(judges)),
                auto_accept: true,
                blind,
                ..ArbConfig::default()
            };
            (QueueKind::Disputed, arb)
        }
    };
    let opening = Opening {
        arb,
        ..Opening::new(queue, Config::defaults(true))
    };
    let log = Flaky {
        store: Rc::clone(&store),
        down: Rc::clone(&down),
    };
    let mut app = App::open(ds, Box::new(log), "monkey", opening).expect("app");
    finish(&mut app);
    (store, app, down)
}

/// Press `key` (as the keymap file writes it) the way the terminal loop does.
fn press(app: &mut App, key: Key) {
    if let Some(a) = app.config.keymap.resolve(app.key_mode(), key) {
        app.update(a);
    }
}

/// Undo, and redo when the undo saved: each record's replay is back where it was.
fn undo_redo(app: &mut App, store: &Store) -> Result<(), String> {
    if !matches!(app.mode, ModeState::Normal | ModeState::Arbitrate) {
        return Ok(());
    }
    let before = replayed_all(app, store);
    app.update(Action::Undo);
    if !matches!(app.status, Status::Saved(_)) {
        return Ok(());
    }
    let undone = app.status.clone();
    app.update(Action::Redo);
    if !matches!(app.status, Status::Saved(_)) {
        return Err(format!(
            "undo said {undone:?}, the redo after it {:?}",
            app.status
        ));
    }
    let after = replayed_all(app, store);
    for (id, b) in &before {
        if after.get(id) != Some(b) {
            return Err(format!(
                "undo then redo changed record {id:?}: {b:?} became {:?}",
                after.get(id)
            ));
        }
    }
    Ok(())
}

/// A fresh app over the same database file shows the record states this one does, and the
/// same review of the record this one has on screen.
fn reopened_agrees(app: &App, screen: Screen, db: &Path, clock: &Clock) -> Result<(), String> {
    let (store, mut fresh) = open(screen, db, clock);
    if fresh.states != app.states {
        return Err(format!(
            "reopened states {:?}, the app had {:?}",
            fresh.states, app.states
        ));
    }
    if let Ok(c) = &app.cur {
        fresh.update(Action::Goto);
        for ch in c.record.id.chars() {
            fresh.update(Action::Input(ch));
        }
        fresh.update(Action::Confirm);
        if let Ok(f) = &fresh.cur {
            // (Blind review shows less on the review screen than a fresh arbitration screen.)
            let same_view = fresh.hides_others(&c.record.id) == app.hides_others(&c.record.id);
            if f.record.id == c.record.id && same_view && shown(&f.review) != shown(&c.review) {
                return Err(format!(
                    "reopened, record {:?} shows {:?}; it showed {:?}",
                    c.record.id, f.review, c.review
                ));
            }
        }
    }
    agrees_with_store(&fresh, &store)
}

/// Another reviewer saves a decision of kind `kind` on record `at` (modulo the dataset's
/// size) through its own connection, with the record's state, as the screen would.
fn other_decides(app: &App, other: &Store, kind: u8, at: usize) {
    use spanreview::review::decision::{ActionKind, Decision, SpanKey};
    let i = at % app.dataset.len();
    let record = app.dataset.record(i).expect("record");
    let action = match kind {
        0 => ActionKind::Flag,
        1 => ActionKind::AcceptAll,
        2 => ActionKind::Clean,
        3 => ActionKind::Note,
        4 => ActionKind::Drop,
        5 => ActionKind::Accept,
        _ => ActionKind::Remove,
    };
    let mut d = Decision::new(&record, &app.dataset.name, "other", action);
    match action {
        ActionKind::Note => d.note = Some("other’s note °東 \u{1b}[31m".to_owned()),
        ActionKind::Remove => d.reason = Some("duplicate".to_owned()),
        ActionKind::Drop | ActionKind::Accept if record.gold_spans().is_empty() => return,
        ActionKind::Drop | ActionKind::Accept => d.span_key = Some(SpanKey::Gold(0).to_string()),
        _ => {}
    }
    other
        .append_all_then(&[d], &|log| {
            spanreview::tui::log::state_of(&replay(&record, log))
        })
        .expect("the other reviewer's decision saved");
}

/// Run `events` on a fresh database, checking the invariants after each one.
fn run(screen: Screen, events: &[Ev]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("decisions.db");
    let clock = Clock::new();
    let (store, mut app, mut down) = open_flaky(screen, &db, &clock);
    let other = clock.store(&db);
    // Another reviewer saved something the screen has not polled yet: it may show less than
    // the store until its next idle tick (never more).
    let mut behind = false;
    // Decisions the screen kept while the database was unreachable, by origin: each is saved
    // on a retry, or handed over at quit (to the rescue file `review` writes).
    let mut kept: Vec<(String, Decision)> = Vec::new();
    let mut size = (80u16, 24u16);
    draw_clean(&mut app, size).map_err(TestCaseError::fail)?;
    for (n, ev) in events.iter().enumerate() {
        let step = |e: String| TestCaseError::fail(format!("event {n} {ev:?}: {e}"));
        match ev {
            Ev::Key(k) => press(
                &mut app,
                k.parse::<Key>().map_err(|e| step(format!("{e:?}")))?,
            ),
            Ev::Char(c) => press(
                &mut app,
                Key::plain(ratatui::crossterm::event::KeyCode::Char(*c)),
            ),
            Ev::Bound(a) => app.update(*a),
            Ev::Text(t) => {
                for c in t.chars() {
                    press(&mut app, Key::plain(KeyCode::Char(c)));
                }
            }
            Ev::Mouse(k, x, y) => app.update(match k {
                0 => Action::MouseDown(*x, *y),
                1 => Action::MouseDrag(*x, *y),
                _ => Action::MouseUp(*x, *y),
            }),
            Ev::Click(x, y) => {
                app.update(Action::MouseDown(*x, *y));
                app.update(Action::MouseUp(*x, *y));
            }
            Ev::Drag(x0, y0, x1, y1) => {
                app.update(Action::MouseDown(*x0, *y0));
                app.update(Action::MouseDrag(*x1, *y1));
                app.update(Action::MouseUp(*x1, *y1));
            }
            Ev::Wheel(x, y, d) => app.update(Action::Scroll(*x, *y, *d)),
            Ev::Resize(w, h) => size = (*w, *h),
            Ev::Idle => {
                clock.advance(5);
                app.idle();
                behind = false;
            }
            Ev::Other(k, r) => {
                other_decides(&app, &other, *k, *r);
                behind = true;
            }
            Ev::UndoRedo => undo_redo(&mut app, &store).map_err(step)?,
            Ev::Reopen if behind => {
                let (store, fresh) = open(screen, &db, &clock);
                agrees_with_store(&fresh, &store).map_err(step)?;
            }
            Ev::Reopen => reopened_agrees(&app, screen, &db, &clock).map_err(step)?,
            Ev::Down(d) => down.set(*d),
        }
        for (d, origin) in app.unsaved_rows() {
            if !kept.iter().any(|(o, _)| *o == origin) {
                kept.push((origin, d));
            }
        }
        if std::env::var("MONKEY_TRACE").is_ok() {
            let here = app.cur.as_ref().map(|c| c.record.id.clone()).ok();
            eprintln!(
                "TRACE {n} {ev:?} -> {:?} at {here:?}: {:?}",
                app.mode, app.status
            );
        }
        draw_clean(&mut app, size).map_err(step)?;
        if behind {
            nothing_unsaved(&app, &store).map_err(step)?;
        } else {
            agrees_with_store(&app, &store).map_err(step)?;
        }
        if app.quit {
            // The reviewer quit: what they did is all there when they open the screen again.
            if !behind {
                reopened_agrees(&app, screen, &db, &clock).map_err(step)?;
            }
            let rescued = app.unsaved_rows();
            kept.retain(|(o, _)| !rescued.iter().any(|(_, r)| r == o));
            (_, app, down) = open_flaky(screen, &db, &clock);
            behind = false;
        }
    }
    if std::env::var("MONKEY_DEBUG").is_ok() {
        // What the case did, to see that sequences reach decisions (`--nocapture`).
        let log = store
            .reviewer_log(&app.dataset.name, "monkey")
            .expect("log");
        let acts: Vec<&str> = log.iter().map(|d| d.action.name()).collect();
        eprintln!(
            "MONKEY {screen:?} {} events, {} kept for a retry: {acts:?}",
            events.len(),
            kept.len()
        );
    }
    let end = |e: String| TestCaseError::fail(format!("at the end: {e}"));
    // The database back, the next idle tick saves what was kept and polls what others did.
    down.set(false);
    clock.advance(5);
    app.idle();
    if app.has_unsaved() {
        return Err(end(format!("still kept: {:?}", app.unsaved_rows())));
    }
    all_kept_saved(&app, &store, &kept).map_err(end)?;
    agrees_with_store(&app, &store).map_err(end)?;
    apply_accepts(&app, &store, &app.reviewer).map_err(end)?;
    reopened_agrees(&app, screen, &db, &clock).map_err(end)
}

/// Every decision kept for a retry is in the store once saved (the same reviewer, action,
/// span and time on the same record).
fn all_kept_saved(app: &App, store: &Store, kept: &[(String, Decision)]) -> Result<(), String> {
    for (_, k) in kept {
        let log = store
            .record_decisions(&app.dataset.name, &k.record_id)
            .map_err(|e| e.to_string())?;
        let same = |d: &&Decision| {
            (&d.reviewer, d.action, &d.span_key, &d.time, &d.after)
                == (&k.reviewer, k.action, &k.span_key, &k.time, &k.after)
        };
        if !log.iter().any(|d| same(&d)) {
            return Err(format!("a decision kept for a retry was lost: {k:?}"));
        }
    }
    Ok(())
}

fn events() -> impl Strategy<Value = Vec<Ev>> {
    proptest::collection::vec(arb_event(keymap_keys()), 20..200)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("MONKEY_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(16), ..ProptestConfig::default() })]

    #[test]
    fn monkey_on_the_review_screen(evs in events()) {
        run(Screen::Plain, &evs)?;
    }

    #[test]
    fn monkey_on_every_record(evs in events()) {
        run(Screen::All, &evs)?;
    }

    #[test]
    fn monkey_on_the_arbitration_screen(evs in events(), blind in any::<bool>()) {
        run(Screen::Disputed { blind }, &evs)?;
    }
}
