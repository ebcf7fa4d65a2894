//! Opening a large file never opened before: the review screen shows the first record while
//! the rest of the file is indexed in the background (`Dataset::open_lazy`). The indexer is
//! held at a gate (`formats::index::Gate`) so each step is deterministic: no sleeps.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spanreview::formats::index::{Gate, Lazy, Permits};
use spanreview::formats::Dataset;
use spanreview::store::Store;
use spanreview::tui::app::{App, Status};
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::{strings, terminal, Action};

const N: usize = 300;

/// `N` records with non-ASCII text and spans at code-point offsets; record `i` is of type
/// `missing_tool` when `i % 100 == 77`, else `contradiction`.
fn records(dir: &Path) -> PathBuf {
    let mut text = String::from("\u{feff}");
    for i in 0..N {
        let kind = if i % 100 == 77 {
            "missing_tool"
        } else {
            "contradiction"
        };
        let rec = serde_json::json!({
            "id": format!("r{i}-東京"),
            "query": "天気は？ 25°C ’quoted’",
            "context": "{\"content\": \"☀️ sunny, 25°C\", \"role\": \"tool\"}",
            "output": "東京 👋 naïve e\u{301}: it is rainy today.",
            "hallucination_labels": [{"start": 20, "end": 25, "label": kind, "text": "rainy"}],
            "meta": {"corruption_type": kind},
        });
        text.push_str(&rec.to_string());
        text.push_str(if i % 9 == 0 { "\r\n\n" } else { "\n" });
    }
    let path = dir.join("records.jsonl");
    std::fs::write(&path, text).expect("write");
    path
}

/// A lazy open whose first block holds a few records, the rest handed over 1 KiB at a time,
/// each batch waiting for a permit.
fn open(path: &Path) -> (Dataset, Permits) {
    let (gate, permits) = Gate::new();
    let lazy = Lazy {
        min_size: 0,
        head: 2_000,
        batch: 1_024,
        gate: Some(gate),
    };
    let ds = Dataset::open_lazy(&[path.to_path_buf()], None, lazy).expect("open");
    (ds, permits)
}

fn app(ds: Dataset, queue: QueueKind) -> App {
    let log = Box::new(Rc::new(Store::open_in_memory().expect("db")));
    App::new(ds, log, "tester", queue, Config::defaults(true), None).expect("app")
}

fn header(app: &mut App) -> String {
    let mut t = Terminal::new(TestBackend::new(160, 30)).expect("terminal");
    terminal::frame(&mut t, app).expect("draw");
    let buf = t.backend().buffer();
    (0..2)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn id(app: &App) -> String {
    app.cur
        .as_ref()
        .map(|c| c.record.id.clone())
        .expect("a record")
}

/// Idle ticks until `done` holds (the indexer thread hands a batch over when it gets its
/// permit; the ticks take it in). Bounded, so a bug fails instead of hanging.
fn tick_until(app: &mut App, done: impl Fn(&App) -> bool) {
    for _ in 0..5_000_000u64 {
        if done(app) {
            return;
        }
        app.idle();
        std::thread::yield_now();
    }
    panic!("never happened");
}

#[test]
fn the_first_record_shows_before_the_file_is_indexed() {
    let dir = tempfile::tempdir().expect("dir");
    let path = records(dir.path());
    let (ds, permits) = open(&path);
    assert!(!ds.indexed());
    let head = ds.len();
    assert!((1..20).contains(&head), "{head} records in the first block");
    let mut app = app(ds, QueueKind::All);
    app.index_wait = Duration::ZERO;
    assert_eq!(id(&app), "r0-東京");
    let top = header(&mut app);
    assert!(top.contains(&format!("1 / {head}+")), "{top}");
    assert!(top.contains(&strings::indexing(head)), "{top}");
    assert!(app.busy(), "idle ticks keep coming while indexing");

    // To the last record indexed, then one past it: the move waits for the index.
    for _ in 1..head {
        app.update(Action::NextRecord);
    }
    assert_eq!(id(&app), format!("r{}-東京", head - 1));
    app.update(Action::NextRecord);
    assert_eq!(app.pos, head - 1, "still on the last record indexed");
    assert_eq!(id(&app), format!("r{}-東京", head - 1));
    assert_eq!(app.status, Status::Info(strings::not_indexed_yet(head)));
    // The next batch arrives: the move is made on an idle tick.
    permits.allow(1);
    tick_until(&mut app, |a| a.pos == head);
    assert_eq!(id(&app), format!("r{head}-東京"));
    assert!(!app.dataset.indexed());

    // A move that waits long enough is made at once once the batch is there.
    app.index_wait = Duration::from_secs(600);
    let known = app.dataset.len();
    for _ in app.pos..known - 1 {
        app.update(Action::NextRecord);
    }
    permits.allow(1);
    app.update(Action::NextRecord);
    assert_eq!(id(&app), format!("r{known}-東京"));

    // Going to the last record waits for the whole index.
    drop(permits);
    app.update(Action::LastRecord);
    assert!(app.dataset.indexed());
    assert_eq!(id(&app), format!("r{}-東京", N - 1));
    let top = header(&mut app);
    assert!(top.contains(&format!("{N} / {N} ")), "{top}");
    assert!(!top.contains("indexing"), "{top}");
    assert!(top.contains(&strings::progress(0, N)), "{top}");
    // Line numbers and bytes are the file's, as a full scan gives them.
    let full = Dataset::open(&[path], None).expect("scan");
    assert_eq!(
        app.dataset.primary().index.entries(),
        full.primary().index.entries()
    );
}

#[test]
fn a_filtered_queue_past_the_first_block_waits_for_the_index() {
    let dir = tempfile::tempdir().expect("dir");
    let (ds, permits) = open(&records(dir.path()));
    let head = ds.len();
    assert!(
        head < 77,
        "the first missing_tool record is past the first block"
    );
    let mut app = app(ds, QueueKind::Type("missing_tool".into()));
    app.index_wait = Duration::ZERO;
    assert_eq!(
        app.cur.as_ref().err(),
        Some(&strings::not_indexed_yet(head))
    );
    assert!(header(&mut app).contains("– / 0+"));
    drop(permits);
    tick_until(&mut app, |a| a.cur.is_ok());
    assert_eq!(id(&app), "r77-東京");
    tick_until(&mut app, |a| a.dataset.indexed() && !a.busy());
    assert_eq!(app.progress(), (0, 3, true), "records 77, 177, 277");
}

#[test]
fn the_disputed_queue_waits_for_the_index_then_clusters() {
    let dir = tempfile::tempdir().expect("dir");
    let (ds, permits) = open(&records(dir.path()));
    let head = ds.len();
    let mut app = app(ds, QueueKind::Disputed);
    app.index_wait = Duration::ZERO;
    assert_eq!(
        app.cur.as_ref().err().map(String::as_str),
        Some(strings::DISPUTED_WAITS_FOR_INDEX)
    );
    assert!(
        app.clustering.is_none(),
        "no clustering over a part of the file"
    );
    permits.allow(1);
    tick_until(&mut app, |a| a.dataset.len() > head);
    assert!(app.clustering.is_none());
    drop(permits);
    tick_until(&mut app, |a| a.dataset.indexed());
    let cl = app
        .clustering
        .as_ref()
        .expect("clustering started once indexed");
    assert_eq!(cl.total, N);
    tick_until(&mut app, |a| {
        a.clustering.as_ref().is_some_and(|c| c.finished)
    });
}

#[test]
fn a_format_the_first_block_does_not_show_is_detected_from_the_records_after_it() {
    let dir = tempfile::tempdir().expect("dir");
    let good = std::fs::read_to_string(records(dir.path())).expect("read");
    // Three broken lines first (the file's first block holds only them), then the records.
    let path = dir.path().join("broken_first.jsonl");
    let broken = "{\"id\": \"°broken\", \"output\": \n".repeat(3);
    std::fs::write(&path, broken + good.trim_start_matches('\u{feff}')).expect("write");
    let (gate, permits) = Gate::new();
    drop(permits);
    let lazy = Lazy {
        min_size: 0,
        head: 60,
        batch: 1_024,
        gate: Some(gate),
    };
    let ds = Dataset::open_lazy(&[path], None, lazy).expect("detected past the first block");
    assert_eq!(ds.primary().format, spanreview::formats::Format::Ragtruth);
    let e = ds.record(0).expect_err("the broken first line").to_string();
    assert!(e.contains("broken_first.jsonl:1"), "{e}");
    assert_eq!(ds.record(3).expect("record").id, "r0-東京");
}
