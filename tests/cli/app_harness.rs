//! Helpers for the flow tests that drive an [`App`] without a terminal: an in-memory store, an
//! app over files, one frame drawn as text, and where a code point of the output is on screen (for mouse tests).
#![allow(dead_code)]

use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spanreview::formats::Dataset;
use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Opening, PickerKind};
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::config::Config;
use spanreview::tui::keymap::{Key, Mode};
use spanreview::tui::queue::QueueKind;
use spanreview::tui::{terminal, Action};

use super::common::fixture;

/// A decision store in memory.
pub fn mem() -> Rc<Store> {
    Rc::new(Store::open_in_memory().expect("memory db"))
}

/// The review screen's app over `files`, reviewing as `who` with the default config.
fn open_by(files: &[PathBuf], store: &Rc<Store>, who: &str, opening: Opening) -> App {
    let ds = Dataset::open(files, None).expect("files open");
    App::open(ds, Box::new(Rc::clone(store)), who, opening).expect("app")
}

/// The review screen's app over `files`, reviewing as `tester` with the default config.
pub fn open(files: &[PathBuf], store: &Rc<Store>, queue: QueueKind, arb: ArbConfig) -> App {
    let opening = Opening {
        arb,
        ..Opening::new(queue, Config::defaults(true))
    };
    open_by(files, store, "tester", opening)
}

/// [`open_all`] reviewing as `who`: for several reviewers on one database.
pub fn open_as(files: &[PathBuf], store: &Rc<Store>, who: &str) -> App {
    let opening = Opening::new(QueueKind::All, Config::defaults(true));
    open_by(files, store, who, opening)
}

/// The review fixture's files: its records and the detector's predictions.
pub fn review_files() -> Vec<PathBuf> {
    let dir = fixture("review");
    vec![
        dir.join("records.jsonl"),
        dir.join("predictions_detector.jsonl"),
    ]
}

/// The review fixture in `queue`, with the default arbitration settings.
pub fn review_queue(store: &Rc<Store>, queue: QueueKind) -> App {
    open(&review_files(), store, queue, ArbConfig::default())
}

/// [`open`] on every record, with the default arbitration settings.
pub fn open_all(files: &[PathBuf], store: &Rc<Store>) -> App {
    open(files, store, QueueKind::All, ArbConfig::default())
}

/// The review fixture on every record: first record `東京 👋 cafe\u{301} naïve\tnote: it is
/// rainy and 25°C today.`, its span "rainy" [29, 34) selected.
pub fn review_app(store: &Rc<Store>) -> App {
    open_all(&review_files(), store)
}

/// Add mode's (anchor, cursor); panics in any other mode.
pub fn add_cursor(app: &App) -> (Option<usize>, usize) {
    match &app.mode {
        ModeState::Add { anchor, cursor } => (*anchor, *cursor),
        other => panic!("not adding: {other:?}"),
    }
}

/// The [start, end) the label picker of an added span is open for; panics otherwise.
pub fn picked(app: &App) -> (usize, usize) {
    match &app.mode {
        ModeState::Picker {
            kind: PickerKind::AddLabel { start, end },
            ..
        } => (*start, *end),
        other => panic!("expected the label picker, got {other:?}"),
    }
}

/// The ids of the queue's records, first to last (a filtered queue's size is known only once
/// walked).
pub fn walked(app: &mut App) -> Vec<String> {
    let mut ids = Vec::new();
    app.update(Action::FirstRecord);
    while let Ok(c) = &app.cur {
        ids.push(c.record.id.clone());
        let pos = app.pos;
        app.update(Action::NextRecord);
        if app.pos == pos {
            break;
        }
    }
    ids
}

/// The action `key` (as a config file writes it) is bound to in `mode` by the app's keymap.
pub fn bound(app: &App, mode: Mode, key: &str) -> Option<Action> {
    app.config
        .keymap
        .resolve(mode, key.parse::<Key>().expect("key"))
}

/// The screen one frame of `app` draws at `w` × `h`, as text.
pub fn render(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal::frame(&mut t, app).expect("draw");
    format!("{}", t.backend())
}

/// The screen cell (column, row) of output code point `cp` in the last frame drawn.
pub fn cell_of(app: &App, cp: usize) -> (u16, u16) {
    let l = &app.layout;
    let c = app.cur.as_ref().expect("r");
    let byte = c.map.byte_of(cp).expect("in range");
    for (r, row) in l.output_rows.rows.iter().enumerate() {
        let mut x = row.indent;
        for cell in &row.cells {
            if cell.byte == byte {
                let y = u16::try_from(r).expect("small");
                return (
                    l.output.x + u16::try_from(x).expect("small"),
                    l.output.y + y,
                );
            }
            x += cell.width;
        }
    }
    panic!("code point {cp} is not on screen");
}

/// Feed `actions` to `app`, in order.
pub fn feed(app: &mut App, actions: &[Action]) {
    for a in actions {
        app.update(*a);
    }
}

/// Type `s` into the prompt or picker open in `app`.
pub fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        app.update(Action::Input(c));
    }
}

/// The id of the record on screen.
pub fn id(app: &App) -> String {
    app.cur.as_ref().expect("a record").record.id.clone()
}

/// Go to record `what` (an id) with the go-to prompt, and check it is on screen.
pub fn goto(app: &mut App, what: &str) {
    app.update(Action::Goto);
    typed(app, what);
    app.update(Action::Confirm);
    assert_eq!(id(app), what, "{:?}", app.status);
}

/// Run idle work until the background clustering (and what follows it) has finished. The
/// clustering runs on threads the app polls in `idle`; when `idle` has nothing to do, wait
/// for their next report (no sleep). Bounded, so a bug fails instead of hanging.
pub fn finish(app: &mut App) {
    let t0 = Instant::now();
    while app.busy() {
        if !app.idle() {
            app.wait_background(Duration::from_millis(100));
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "idle work hangs");
    }
}
