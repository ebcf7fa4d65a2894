//! Benchmark: open a records file through [`spanreview::formats::Dataset::open`] and fetch one
//! record, as the review screen does when it jumps to a record. Prints one JSON line with the
//! elapsed times and the process's peak resident memory (`VmHWM` from `/proc/self/status`).
//!
//! ```sh
//! cargo run --release --example open_at -- RECORDS.jsonl 140000
//! cargo run --release --example open_at -- RECORDS.jsonl 140000 predictions_alpha_combined.jsonl
//! ```
//!
//! Files after the index are joined by `id` (prediction files: more annotation sources).
//! Indexes go through the sidecar cache (`SPANREVIEW_CACHE_DIR`; `SPANREVIEW_INDEX_CACHE=off`
//! scans every time); `"sidecar": true` when every file's index came from it.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

/// A `kB` field of `/proc/self/status` (`VmHWM`, `VmRSS`), 0 where it is not available.
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
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(
        args.next()
            .context("usage: open_at FILE [INDEX [JOINED_FILE...]] (INDEX defaults to 140000)")?,
    );
    let index: usize = match args.next() {
        Some(s) => s
            .parse()
            .with_context(|| format!("INDEX {s:?} is not a number"))?,
        None => 140_000,
    };
    let paths: Vec<PathBuf> = std::iter::once(path)
        .chain(args.map(PathBuf::from))
        .collect();
    let t0 = Instant::now();
    let ds = spanreview::formats::Dataset::open(&paths, None)?;
    let open_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = Instant::now();
    let rec = ds.record(index)?;
    let record_ms = t1.elapsed().as_secs_f64() * 1e3;
    let total_ms = t0.elapsed().as_secs_f64() * 1e3;
    println!(
        "{{\"tool\": \"spanreview\", \"files\": {}, \"records\": {}, \"index\": {index}, \"id\": {}, \"sources\": {}, \"spans\": {}, \
         \"open_ms\": {open_ms:.1}, \"record_ms\": {record_ms:.2}, \"total_ms\": {total_ms:.1}, \
         \"vmhwm_kb\": {}, \"vmrss_kb\": {}, \"sidecar\": {}}}",
        paths.len(),
        ds.len(),
        serde_json::Value::from(rec.id.as_str()),
        rec.sources.len(),
        rec.gold_spans().len(),
        status_kb("VmHWM"),
        status_kb("VmRSS"),
        ds.files().all(|f| f.index.from_cache()),
    );
    Ok(())
}
