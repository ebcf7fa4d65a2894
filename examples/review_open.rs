//! Benchmark (issue 3): open a records file (and prediction files joined by id) as
//! `spanreview review` does, build the review screen and draw its first frame into ratatui's
//! `TestBackend` (200×60). Prints one JSON line: the time to the first frame, of which opening
//! the dataset, the process's peak resident memory (`VmHWM`), and whether every index came from
//! the sidecar cache.
//!
//! ```sh
//! cargo run --release --example review_open -- RECORDS.jsonl [PREDICTIONS.jsonl...]
//! ```
//!
//! The decision log is an in-memory database (a fresh reviewer: the queue starts at record 0).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use spanreview::formats::Dataset;

mod common;

/// A `kB` field of `/proc/self/status`, 0 where it is not available.
fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn main() -> anyhow::Result<()> {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    anyhow::ensure!(
        !paths.is_empty(),
        "usage: review_open RECORDS [PREDICTIONS...]"
    );
    let t0 = Instant::now();
    let ds = Dataset::open(&paths, None).context("open")?;
    let open_ms = t0.elapsed().as_secs_f64() * 1e3;
    let sidecar = ds.files().all(|f| f.index.from_cache());
    let records = ds.len();
    let (_app, id) = common::first_frame(ds)?;
    let first_frame_ms = t0.elapsed().as_secs_f64() * 1e3;
    println!(
        "{{\"tool\": \"spanreview review\", \"files\": {}, \"records\": {records}, \"first_id\": {}, \
         \"open_ms\": {open_ms:.1}, \"first_frame_ms\": {first_frame_ms:.1}, \"vmhwm_kb\": {}, \
         \"sidecar\": {sidecar}}}",
        paths.len(),
        serde_json::Value::from(id),
        status_kb("VmHWM"),
    );
    Ok(())
}
