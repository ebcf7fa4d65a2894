//! Decisions whose save failed because the database was unreachable: shown as not saved yet,
//! saved by the screen on its own once the database is back (once, even when a COMMIT landed
//! and only its reply was lost), new decisions refused meanwhile (kept behind the first while
//! the database is only busy), and quitting asks first.
//! A log over an in-memory store that "loses its connection" on demand; the clock is stepped
//! by hand.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use spanreview::review::decision::{ActionKind, Decision};
use spanreview::store::{RecordState, Store};
use spanreview::tui::app::{App, Status};
use spanreview::tui::config::Config;
use spanreview::tui::log::DecisionLog;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::terminal;
use spanreview::tui::Action;

use super::app_harness::review_files;

/// What the flaky log does with the next saves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Link {
    Up,
    /// Nothing saved; the connection is lost.
    Down,
    /// Saved, but the reply is lost (the caller hears "connection lost").
    ReplyLost,
    /// Refused for another reason than a lost connection.
    Refuse,
    /// Nothing saved; another process holds the write lock.
    Busy,
}

struct FlakyLog {
    store: Rc<Store>,
    link: Rc<Cell<Link>>,
    /// The origins of every try, in order.
    tries: Rc<RefCell<Vec<Vec<String>>>>,
}

impl DecisionLog for FlakyLog {
    fn append(&self, d: &Decision, state: &RecordState) -> Result<Decision, String> {
        DecisionLog::append(&*self.store, d, state)
    }
    fn append_then_origins(
        &self,
        rows: &[(Decision, String)],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, (String, bool)> {
        self.tries
            .borrow_mut()
            .push(rows.iter().map(|(_, o)| o.clone()).collect());
        match self.link.get() {
            Link::Down => Err(("connection lost".into(), true)),
            Link::ReplyLost => {
                self.store.append_then_origins(rows, state_of)?;
                Err(("connection lost".into(), true))
            }
            Link::Up => self.store.append_then_origins(rows, state_of),
            Link::Refuse => Err(("disk full".into(), false)),
            Link::Busy => Err((spanreview::tui::log::BUSY.into(), true)),
        }
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
        self.store.now()
    }
}

struct Rig {
    app: App,
    store: Rc<Store>,
    link: Rc<Cell<Link>>,
    tries: Rc<RefCell<Vec<Vec<String>>>>,
    clock: Arc<Mutex<SystemTime>>,
}

impl Rig {
    fn new() -> Self {
        let store = Rc::new(Store::open_in_memory().expect("db"));
        let clock = Arc::new(Mutex::new(
            SystemTime::UNIX_EPOCH + Duration::from_secs(1 << 30),
        ));
        let c = Arc::clone(&clock);
        store.set_clock(Arc::new(move || *c.lock().expect("clock")));
        let link = Rc::new(Cell::new(Link::Up));
        let tries = Rc::new(RefCell::new(Vec::new()));
        let log = FlakyLog {
            store: Rc::clone(&store),
            link: Rc::clone(&link),
            tries: Rc::clone(&tries),
        };
        let app = review_app_with(Box::new(log), "tester");
        Self {
            app,
            store,
            link,
            tries,
            clock,
        }
    }

    fn tick(&mut self, by: Duration) {
        *self.clock.lock().expect("clock") += by;
        self.app.idle();
    }

    fn said(&self) -> String {
        match &self.app.status {
            Status::Saved(m) => format!("saved: {m}"),
            Status::Error(m) => format!("error: {m}"),
            other => format!("{other:?}"),
        }
    }

    fn log(&self) -> Vec<(i64, ActionKind, String, Option<String>)> {
        self.store
            .decisions(None)
            .expect("log")
            .into_iter()
            .map(|d| (d.id, d.action, d.record_id, d.span_key))
            .collect()
    }
}

/// The log two accepts give without any outage.
fn calm_log() -> Vec<(i64, ActionKind, String, Option<String>)> {
    let mut calm = Rig::new();
    calm.app.update(Action::Accept);
    calm.app.update(Action::Accept);
    calm.log()
}

/// The review fixture's app on every record, saving through `log` as `reviewer`.
fn review_app_with(log: Box<dyn DecisionLog>, reviewer: &str) -> App {
    let ds = spanreview::formats::Dataset::open(&review_files(), None).expect("fixture");
    App::new(
        ds,
        log,
        reviewer,
        QueueKind::All,
        Config::defaults(true),
        None,
    )
    .expect("app")
}

#[test]
fn a_decision_not_saved_for_a_lost_connection_is_retried_each_second_and_saved_once() {
    let mut r = Rig::new();
    r.app.update(Action::Accept);
    assert!(r.said().starts_with("saved: saved #1"), "{}", r.said());
    r.link.set(Link::Down);
    r.app.update(Action::Accept);
    let down = r.said();
    assert_eq!(
        down,
        "error: NOT saved yet: the database is unreachable; retrying (1 pending)"
    );
    assert!(r.app.has_unsaved());
    // Another key meanwhile: refused, not queued (the screen does not show the pending one).
    r.app.update(Action::Accept);
    assert!(r.said().contains("retrying (1 pending)"), "{}", r.said());
    assert!(r.said().contains("this key was NOT saved"), "{}", r.said());
    assert_eq!(r.app.unsaved_rows().len(), 1);
    // Not before a second has passed; then every second while it is down.
    let tries = r.tries.borrow().len();
    r.tick(Duration::from_millis(500));
    assert_eq!(r.tries.borrow().len(), tries, "retried too early");
    r.tick(Duration::from_millis(500));
    assert_eq!(r.tries.borrow().len(), tries + 1, "retried after a second");
    assert!(r.said().contains("NOT saved yet"), "{}", r.said());
    assert!(!r.said().contains("saved #"), "{}", r.said());
    // Back: saved on the next tick, with the same origin as the first try.
    r.link.set(Link::Up);
    r.tick(Duration::from_secs(1));
    assert!(r.said().starts_with("saved: saved #2"), "{}", r.said());
    assert!(!r.app.has_unsaved());
    let tries = r.tries.borrow().clone();
    assert_eq!(
        tries[1],
        tries[tries.len() - 1],
        "the retry reuses the origin"
    );
    r.tick(Duration::from_secs(5));
    assert_eq!(r.log(), calm_log());
    // The screen shows it (the second span accepted) and takes keys again.
    r.app.update(Action::Accept);
    assert!(r.said().starts_with("saved: saved #3"), "{}", r.said());
}

#[test]
fn a_retry_after_a_lost_commit_reply_does_not_save_the_decision_twice() {
    let mut r = Rig::new();
    r.app.update(Action::Accept);
    r.link.set(Link::ReplyLost);
    r.app.update(Action::Accept);
    assert!(r.said().contains("NOT saved yet"), "{}", r.said());
    assert_eq!(r.log().len(), 2, "the COMMIT landed");
    r.link.set(Link::Up);
    r.tick(Duration::from_secs(1));
    assert!(r.said().starts_with("saved: saved #2"), "{}", r.said());
    assert_eq!(r.log(), calm_log());
}

#[test]
fn quitting_with_decisions_not_saved_asks_first_and_hands_them_over() {
    let mut r = Rig::new();
    r.link.set(Link::Down);
    r.app.update(Action::Accept);
    r.app.update(Action::Quit);
    assert!(!r.app.quit, "the first quit asks");
    assert!(r.said().contains("press quit again"), "{}", r.said());
    r.app.update(Action::Quit);
    assert!(r.app.quit);
    let rows = r.app.unsaved_rows();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0.action, ActionKind::Accept);
    assert_eq!(r.tries.borrow()[0][0], rows[0].1, "the origin tried");
    assert!(r.log().is_empty());
}

#[test]
fn a_refused_decision_is_not_kept_for_a_retry() {
    // Only a lost connection is retried: a refusal stays a plain "NOT saved".
    struct Refusing(FlakyLog);
    impl DecisionLog for Refusing {
        fn append(&self, _: &Decision, _: &RecordState) -> Result<Decision, String> {
            Err("disk full".into())
        }
        fn record_decisions(&self, d: &str, r: &str) -> Result<Vec<Decision>, String> {
            self.0.record_decisions(d, r)
        }
        fn reviewer_log(&self, d: &str, r: &str) -> Result<Vec<Decision>, String> {
            self.0.reviewer_log(d, r)
        }
        fn record_states(&self, d: &str) -> Result<HashMap<String, RecordState>, String> {
            self.0.record_states(d)
        }
    }
    let r = Rig::new();
    let log = Refusing(FlakyLog {
        store: Rc::clone(&r.store),
        link: Rc::clone(&r.link),
        tries: Rc::clone(&r.tries),
    });
    let mut app = review_app_with(Box::new(log), "t");
    app.update(Action::Accept);
    assert_eq!(app.status, Status::Error("NOT saved: disk full".into()));
    assert!(!app.has_unsaved());
    app.update(Action::Quit);
    assert!(app.quit);
}

/// A retry the database refuses (not a lost connection) ends the tries without dropping what
/// the reviewer did: new decisions are taken again, and quitting asks first and hands the
/// refused ones over for the rescue file.
#[test]
fn decisions_a_retry_was_refused_are_handed_over_at_quit_not_dropped() {
    let mut r = Rig::new();
    r.link.set(Link::Down);
    r.app.update(Action::Accept);
    assert!(r.said().contains("NOT saved yet"), "{}", r.said());
    r.link.set(Link::Refuse);
    r.tick(Duration::from_secs(1));
    assert!(
        r.said()
            .starts_with("error: NOT saved: disk full; 1 decision(s)"),
        "{}",
        r.said()
    );
    assert!(r.app.has_unsaved() && !r.app.retrying());
    let tries = r.tries.borrow().len();
    r.tick(Duration::from_secs(5));
    assert_eq!(r.tries.borrow().len(), tries, "no more tries");
    // New decisions are taken again.
    r.link.set(Link::Up);
    r.app.update(Action::Accept);
    assert!(r.said().starts_with("saved: saved #1"), "{}", r.said());
    r.app.update(Action::Quit);
    assert!(!r.app.quit, "the first quit asks");
    assert!(r.said().contains("1 decision(s) NOT saved"), "{}", r.said());
    r.app.update(Action::Quit);
    assert!(r.app.quit);
    let rows = r.app.unsaved_rows();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].1, r.tries.borrow()[0][0], "the refused decision");
}

/// The terminal as a reviewer pressing `j` every half second by the store's clock (a key is
/// always waiting: the loop's wait never runs out), then quitting; what the store holds is
/// noted before each key.
struct Keys {
    clock: Arc<Mutex<SystemTime>>,
    store: Rc<Store>,
    left: usize,
    /// Decisions in the store before each key.
    seen: Vec<usize>,
}

impl terminal::Events for Keys {
    fn next(&mut self, _timeout: Duration) -> std::io::Result<Option<Event>> {
        self.seen
            .push(self.store.decisions(None).expect("log").len());
        let c = if self.left == 0 {
            'q'
        } else {
            self.left -= 1;
            *self.clock.lock().expect("clock") += Duration::from_millis(500);
            'j'
        };
        Ok(Some(Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        ))))
    }
}

/// Issue 22 item 4: a retry is due a second after the failed save; keys coming every half
/// second (the event loop's wait never running out) must not hold it back.
#[test]
fn a_due_retry_runs_while_keys_keep_coming() {
    let mut r = Rig::new();
    r.link.set(Link::Down);
    r.app.update(Action::Accept);
    assert!(r.said().contains("NOT saved yet"), "{}", r.said());
    r.link.set(Link::Up);
    let mut keys = Keys {
        clock: Arc::clone(&r.clock),
        store: Rc::clone(&r.store),
        left: 10,
        seen: Vec::new(),
    };
    let mut t = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
    terminal::drive(&mut t, &mut r.app, &mut keys).expect("loop");
    // Due after two keys (1 s): not before, and saved on that turn, before the third key is
    // read (the old loop saved nothing while keys came).
    assert_eq!(keys.seen[..2], [0, 0], "retried too early: {:?}", keys.seen);
    assert_eq!(
        keys.seen[2], 1,
        "the retry waited behind the keys: {:?}",
        keys.seen
    );
    assert!(!r.app.has_unsaved());
    assert_eq!(r.log().len(), 1);
}

/// While the database is busy, decisions made after a kept one (on another record too) are
/// not tried on their own (they would be saved before it): they are kept behind it. A retry
/// the database then refuses hands every one over for the rescue file, in order, and the
/// screen stops showing them as made. Known bad: saving the later ones at once would put them
/// in the log before the first.
#[test]
fn decisions_behind_a_busy_one_wait_for_it_and_go_to_the_rescue_file_with_it() {
    let mut r = Rig::new();
    r.link.set(Link::Busy);
    r.app.update(Action::Accept);
    assert!(
        r.said().contains("waiting for the database"),
        "{}",
        r.said()
    );
    r.app.update(Action::NextRecord);
    r.app.update(Action::Accept);
    assert!(r.said().ends_with("(2 pending)"), "{}", r.said());
    assert_eq!(
        r.tries.borrow().len(),
        1,
        "the second is not tried before the first"
    );
    // Still busy: one try a second, of the first (the rest waits behind it).
    r.tick(Duration::from_secs(1));
    assert_eq!(r.tries.borrow().len(), 2);
    assert_eq!(r.tries.borrow()[0], r.tries.borrow()[1], "the same origins");
    r.link.set(Link::Refuse);
    r.tick(Duration::from_secs(1));
    assert!(
        r.said()
            .starts_with("error: NOT saved: disk full; 2 decision(s)"),
        "{}",
        r.said()
    );
    let rows: Vec<String> = r
        .app
        .unsaved_rows()
        .into_iter()
        .map(|(d, _)| d.record_id)
        .collect();
    assert_eq!(rows, ["uni_1__contradiction", "plain_2__overgeneration"]);
    let c = r.app.cur.as_ref().expect("record");
    assert!(
        c.decisions.is_empty(),
        "shown as made no more: {:?}",
        c.decisions
    );
    assert!(r.log().is_empty());
}
