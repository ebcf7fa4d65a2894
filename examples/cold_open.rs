//! Benchmark ("open anything at once"): the review screen's first frame on a file as
//! `spanreview review` opens it now (`Dataset::open_lazy`: the first records at once, the rest
//! indexed in the background), drawn into ratatui's `TestBackend` (200×60); then the time until
//! the whole file is indexed. Prints one JSON line. Run with an empty `SPANREVIEW_CACHE_DIR`
//! for a file never opened before (`bench/cold_open.sh` does).
//!
//! ```sh
//! cargo run --release --example cold_open -- RECORDS.jsonl
//! ```
//!
//! The decision log is an in-memory database (a fresh reviewer: the queue starts at record 0).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use spanreview::formats::index::Lazy;
use spanreview::formats::Dataset;

mod common;

fn main() -> anyhow::Result<()> {
    let t0 = Instant::now();
    let path = PathBuf::from(
        std::env::args()
            .nth(1)
            .context("usage: cold_open RECORDS.jsonl")?,
    );
    let ds =
        Dataset::open_lazy(std::slice::from_ref(&path), None, Lazy::default()).context("open")?;
    let open_ms = t0.elapsed().as_secs_f64() * 1e3;
    let at_open = ds.len();
    let lazy = !ds.indexed();
    let (mut app, first_id) = common::first_frame(ds)?;
    let first_frame_ms = t0.elapsed().as_secs_f64() * 1e3;
    let ds = Arc::get_mut(&mut app.dataset).context("the dataset is not shared yet")?;
    ds.finish_index().context("indexing")?;
    let indexed_ms = t0.elapsed().as_secs_f64() * 1e3;
    println!(
        "{{\"tool\": \"cold_open\", \"lazy\": {lazy}, \"records_at_first_frame\": {at_open}, \
         \"records\": {}, \"first_id\": {}, \"open_ms\": {open_ms:.1}, \
         \"first_frame_ms\": {first_frame_ms:.1}, \"indexed_ms\": {indexed_ms:.1}}}",
        app.dataset.len(),
        serde_json::Value::from(first_id),
    );
    Ok(())
}
