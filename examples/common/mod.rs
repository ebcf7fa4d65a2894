//! What the review screen's benchmarks (`cold_open`, `review_open`) share: the screen built as
//! `spanreview review` builds it, and its first frame drawn.

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spanreview::formats::Dataset;
use spanreview::store::Store;
use spanreview::tui::app::App;
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::terminal;

/// The review screen on `ds` as `spanreview review` opens it for a fresh reviewer (an in-memory
/// decision log: the queue starts at record 0), its first frame drawn into ratatui's
/// `TestBackend` (200×60); and the id of the record it shows.
pub fn first_frame(ds: Dataset) -> anyhow::Result<(App, String)> {
    let store = Store::open_in_memory()?;
    let mut app = App::new(
        ds,
        Box::new(store),
        "bench",
        QueueKind::Unreviewed,
        Config::defaults(false),
        None,
    )
    .map_err(anyhow::Error::msg)?;
    let mut t = Terminal::new(TestBackend::new(200, 60))?;
    terminal::frame(&mut t, &mut app)?;
    let id = app
        .cur
        .as_ref()
        .map(|c| c.record.id.clone())
        .unwrap_or_default();
    Ok((app, id))
}
