//! Benchmark (issue 4): the review screen's background clustering (`tui::clustering`) timed
//! without a terminal: `cluster_all` over a records file and its prediction files, reading
//! every record in full (`--full`: the path before the fast one) or skimmed with `SpanReader`
//! on N threads (the default, what `review --queue disputed` runs).
//!
//! ```sh
//! cargo run --release --example background_cluster -- RECORDS PRED1 PRED2 [--full] \
//!     [--threads 2] [--auto-accept] [--tolerance N] [--ignore-edge-punct] [--via-app]
//! ```
//!
//! `--via-app` runs it as the app does (`Clustering::start`, drained until finished).
//! Prints the time to open the dataset, the time to cluster, and the totals (records,
//! unreadable, disputed records, sum of shares, records read in full) to compare the readings.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use spanreview::formats::Dataset;
use spanreview::tui::clustering::{cluster_all, ArbConfig, Clustering, Reading, Scored};

fn main() -> anyhow::Result<()> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut threads = 2usize;
    let mut full = false;
    let mut via_app = false;
    let mut config = ArbConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = args.next().unwrap_or_default().parse()?,
            "--tolerance" => config.options.tolerance = args.next().unwrap_or_default().parse()?,
            "--ignore-edge-punct" => config.options.ignore_edge_punct = true,
            "--auto-accept" => config.auto_accept = true,
            "--full" => full = true,
            "--via-app" => via_app = true,
            _ => files.push(PathBuf::from(a)),
        }
    }
    anyhow::ensure!(
        !files.is_empty(),
        "usage: background_cluster RECORDS PRED... [--full] [--threads N]"
    );
    let reading = if full {
        Reading::Full
    } else {
        Reading::Fast { threads }
    };
    let t0 = Instant::now();
    let dataset = Arc::new(Dataset::open(&files, None)?);
    let opened = t0.elapsed();
    let t1 = Instant::now();
    let (mut records, mut unreadable, mut disputed, mut in_full) = (0usize, 0usize, 0usize, 0);
    let mut share_sum = 0.0f64;
    let mut count = |s: Option<&Scored>| match s {
        Some(s) => {
            records += 1;
            disputed += usize::from(s.score.is_disputed());
            in_full += usize::from(s.hash.is_some());
            share_sum += s.score.share;
        }
        None => unreadable += 1,
    };
    if via_app {
        let mut cl = if full {
            Clustering::start_with(Arc::clone(&dataset), &config, Reading::Full)
        } else {
            Clustering::start(Arc::clone(&dataset), &config)
        };
        while !cl.finished {
            for s in cl.wait(Duration::from_millis(100)) {
                count(Some(&s));
            }
        }
        unreadable = cl.done - records;
    } else {
        cluster_all(&dataset, &config, reading, &AtomicBool::new(false), |s| {
            count(s.as_ref());
            true
        });
    }
    let clustered = t1.elapsed();
    println!(
        "{} open {:.3} s, cluster {:.3} s ({}), total {:.3} s",
        if full { "full" } else { "fast" },
        opened.as_secs_f64(),
        clustered.as_secs_f64(),
        if full {
            "1 thread".to_owned()
        } else {
            format!("{threads} threads")
        },
        t0.elapsed().as_secs_f64()
    );
    println!(
        "records {records} unreadable {unreadable} disputed_records {disputed} \
         share_sum {share_sum:.6} read_in_full {in_full}"
    );
    Ok(())
}
