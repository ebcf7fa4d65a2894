//! Benchmark data generator: ToolACE-like RAGTruth-compatible records, and matching detector
//! prediction files.
//!
//! ```sh
//! cargo run --release --example gen -- --records 150000 --out /work/bench-data/records.jsonl
//! cargo run --release --example gen -- --records 10000 --out small.jsonl --seed 7 \
//!     --broken 0.01 --manifest small.broken.jsonl \
//!     --predictions predictions_alpha_combined.jsonl --predictions predictions_beta_combined.jsonl
//! ```
//!
//! Output is a function of `--seed`, `--records` and the size options only: the same bytes for
//! any `--threads`. Threads each render a batch of records into memory; the main thread writes
//! the batches in order, so memory stays at a few batches.

mod synth;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Context;
use clap::Parser;

/// Generate synthetic ToolACE-like records for benchmarks.
#[derive(Debug, Parser)]
struct Args {
    /// Number of records (four variants per base dialogue).
    #[arg(long)]
    records: usize,
    /// Records file to write (JSONL).
    #[arg(long)]
    out: PathBuf,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Fraction of records written as broken lines (invalid JSON, bad offsets, duplicate ids...).
    #[arg(long, default_value_t = 0.0)]
    broken: f64,
    /// Where to list the broken lines (JSONL: line, id, kind).
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// A prediction file to write (`gold_spans` + `pred_spans`); repeat for more detectors,
    /// each with its own behaviour.
    #[arg(long)]
    predictions: Vec<PathBuf>,
    /// Smallest raw context in bytes.
    #[arg(long, default_value_t = 1_000)]
    context_min: usize,
    /// Largest raw context in bytes.
    #[arg(long, default_value_t = 100_000)]
    context_max: usize,
    /// Skew of the context size towards small (see `synth::Options::skew`).
    #[arg(long, default_value_t = 4.3)]
    skew: f64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// Records rendered per batch.
const BATCH: usize = 512;

/// A rendered batch: records, one buffer per prediction file, broken lines.
type Batch = (String, Vec<String>, Vec<(usize, String, &'static str)>);

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let opts = synth::Options {
        seed: args.seed,
        broken: args.broken,
        context_min: args.context_min,
        context_max: args.context_max.max(args.context_min),
        skew: args.skew,
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from))
        .max(1);
    let t0 = Instant::now();
    let create = |p: &PathBuf| -> anyhow::Result<BufWriter<File>> {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        Ok(BufWriter::with_capacity(
            1 << 20,
            File::create(p).with_context(|| format!("creating {}", p.display()))?,
        ))
    };
    let mut out = create(&args.out)?;
    let mut pred_out = args
        .predictions
        .iter()
        .map(create)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let n_batches = args.records.div_ceil(BATCH);
    let next = AtomicUsize::new(0);
    let n_preds = args.predictions.len();
    let mut bytes = 0u64;
    let mut broken_all = Vec::new();
    std::thread::scope(|s| -> anyhow::Result<()> {
        let (tx, rx) = mpsc::sync_channel::<(usize, Batch)>(threads * 2);
        for _ in 0..threads {
            let tx = tx.clone();
            let next = &next;
            let opts = &opts;
            let records = args.records;
            s.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= n_batches {
                    break;
                }
                let from = k * BATCH;
                let to = (from + BATCH).min(records);
                let mut buf = String::with_capacity(BATCH * 12_000);
                let mut preds = vec![String::with_capacity(BATCH * 1_500); n_preds];
                let broken = synth::generate_range(opts, from, to, &mut buf, &mut preds);
                if tx.send((k, (buf, preds, broken))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // Write batches in order; a batch that arrives early waits in `pending`.
        let mut pending: BTreeMap<usize, Batch> = BTreeMap::new();
        let mut want = 0;
        for (k, batch) in rx {
            pending.insert(k, batch);
            while let Some((buf, preds, broken)) = pending.remove(&want) {
                out.write_all(buf.as_bytes())?;
                bytes += buf.len() as u64;
                for (w, p) in pred_out.iter_mut().zip(&preds) {
                    w.write_all(p.as_bytes())?;
                }
                broken_all.extend(broken);
                want += 1;
            }
        }
        anyhow::ensure!(want == n_batches, "a generator thread stopped early");
        Ok(())
    })?;
    out.flush()?;
    for w in &mut pred_out {
        w.flush()?;
    }
    if let Some(path) = &args.manifest {
        let mut m = create(path)?;
        for (i, id, kind) in &broken_all {
            // Lines are 1-based; every record is exactly one line.
            writeln!(
                m,
                "{{\"line\": {}, \"id\": {}, \"kind\": \"{kind}\"}}",
                i + 1,
                serde_json::Value::from(id.as_str())
            )?;
        }
        m.flush()?;
    }
    let secs = t0.elapsed().as_secs_f64();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, _, k) in &broken_all {
        *kinds.entry(k).or_default() += 1;
    }
    eprintln!(
        "gen: {} records, {:.1} MB in {secs:.1} s ({:.0} MB/s, {threads} threads), {} broken {:?} -> {}",
        args.records,
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs.max(1e-9),
        broken_all.len(),
        kinds,
        args.out.display()
    );
    Ok(())
}
