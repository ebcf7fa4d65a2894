//! The review screen's behaviours from the "Numbers" and "Hardening" issues: the header's
//! progress after a restart, pickers past nine rows, `a` and `A` under one rule for spans,
//! what `--blind` may show, and what the span list and header say about removed records and
//! records typed clean. Actions are fed into `App` without a terminal; views are rendered into
//! ratatui's `TestBackend`.

use std::path::PathBuf;
use std::rc::Rc;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spanreview::formats::Dataset;
use spanreview::store::Store;
use spanreview::tui::app::App;
use spanreview::tui::arbitrate::ArbConfig;
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::{terminal, Action};

use super::common::fixture;

fn open(files: &[PathBuf], store: &Rc<Store>, queue: QueueKind, arb: ArbConfig) -> App {
    let ds = Dataset::open(files, None).expect("files open");
    App::open(
        ds,
        Box::new(Rc::clone(store)),
        "tester",
        queue,
        Config::defaults(true),
        None,
        arb,
    )
    .expect("app")
}

fn review_files() -> Vec<PathBuf> {
    vec![
        fixture("review/records.jsonl"),
        fixture("review/predictions_detector.jsonl"),
    ]
}

fn feed(app: &mut App, actions: &[Action]) {
    for a in actions {
        app.update(*a);
    }
}

fn render(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal::frame(&mut t, app).expect("draw");
    format!("{}", t.backend())
}

fn id(app: &App) -> String {
    app.cur.as_ref().expect("a record").record.id.clone()
}

#[test]
fn header_progress_after_a_restart_is_the_datasets() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    {
        let store = Rc::new(Store::open(&db).expect("db"));
        let mut app = open(
            &review_files(),
            &store,
            QueueKind::Unreviewed,
            ArbConfig::default(),
        );
        feed(&mut app, &[Action::AcceptAll, Action::AcceptAll]);
        assert_eq!(id(&app), "clean_3__clean");
    }
    // Reopened, the unreviewed queue holds the two records left: the header said "0/2
    // reviewed" with two of the four done.
    let store = Rc::new(Store::open(&db).expect("db"));
    let mut app = open(
        &review_files(),
        &store,
        QueueKind::Unreviewed,
        ArbConfig::default(),
    );
    let s = render(&mut app, 100, 30);
    assert!(s.contains("1 / 2 "), "the position is the queue's:\n{s}");
    assert!(s.contains("2/4 reviewed"), "{s}");
    app.update(Action::AcceptAll);
    let s = render(&mut app, 100, 30);
    assert!(s.contains("3/4 reviewed"), "{s}");
    // A filtered queue shows the dataset's progress too.
    let mut typed_queue = open(
        &review_files(),
        &store,
        QueueKind::Type("missing_tool".into()),
        ArbConfig::default(),
    );
    let s = render(&mut typed_queue, 100, 30);
    assert!(s.contains("3/4 reviewed"), "{s}");
}
