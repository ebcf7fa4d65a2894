//! Benchmark (issue 4): disagreement clustering over a records file and prediction files joined
//! by `id` — the sources `stats` and the arbitration queue compare — streamed record by record
//! on N threads (records are read one at a time through the file index: no context stays in
//! memory).
//!
//! ```sh
//! cargo run --release --example cluster_bench -- RECORDS PRED1 PRED2 [--threads 2] \
//!     [--tolerance N] [--ignore-edge-punct] [--shares FILE] [--full]
//! ```
//!
//! By default records are read through `formats::judges::SpanReader`: only the fields
//! clustering needs (id, output, spans; the context, query and meta are stepped over by the
//! parser, never built); `--full` reads every record through `Dataset::record` (every field
//! parsed), the path `stats` takes.
//!
//! Prints the time to open (index + join) and to cluster, and totals that
//! `bench/cluster_baseline.py` computes the same way (records, clusters, disputed clusters,
//! disputed records, disputed characters, sum of shares), so the two can be checked against
//! each other. `--shares FILE` writes `id<TAB>disputed_chars<TAB>output_chars` per record.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use spanreview::formats::judges::{Arbitration, SpanReader};
use spanreview::formats::Dataset;
use spanreview::model::Record;
use spanreview::review::disagreement::Options;

/// What the records are read through.
enum Reader<'d> {
    /// `Dataset::record`: every field parsed (what `stats` uses).
    Full(&'d Dataset),
    /// [`SpanReader`]: the context and other unused fields skipped.
    Skim(SpanReader<'d>),
}

impl Reader<'_> {
    fn len(&self) -> usize {
        match self {
            Self::Full(d) => d.len(),
            Self::Skim(r) => r.len(),
        }
    }

    fn record(&self, i: usize) -> anyhow::Result<Record> {
        Ok(match self {
            Self::Full(d) => d.record(i)?,
            Self::Skim(r) => r.record(i)?,
        })
    }
}

#[derive(Default, Clone, Copy)]
struct Totals {
    records: usize,
    clusters: usize,
    disputed_clusters: usize,
    disputed_records: usize,
    disputed_chars: usize,
    output_chars: usize,
    problems: usize,
    share_sum: f64,
}

impl Totals {
    fn add(&mut self, o: &Totals) {
        self.records += o.records;
        self.clusters += o.clusters;
        self.disputed_clusters += o.disputed_clusters;
        self.disputed_records += o.disputed_records;
        self.disputed_chars += o.disputed_chars;
        self.output_chars += o.output_chars;
        self.problems += o.problems;
        self.share_sum += o.share_sum;
    }
}

/// One record's line of `--shares`: position, id, disputed and total code points.
type Row = (usize, String, usize, usize);
/// What one thread returns.
type Part = anyhow::Result<(Totals, Vec<Row>)>;

fn main() -> anyhow::Result<()> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut threads = 2usize;
    let mut options = Options::default();
    let mut shares: Option<PathBuf> = None;
    let mut full = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = args.next().unwrap_or_default().parse()?,
            "--tolerance" => options.tolerance = args.next().unwrap_or_default().parse()?,
            "--ignore-edge-punct" => options.ignore_edge_punct = true,
            "--shares" => shares = args.next().map(PathBuf::from),
            "--full" => full = true,
            _ => files.push(PathBuf::from(a)),
        }
    }
    anyhow::ensure!(
        !files.is_empty(),
        "usage: cluster_bench RECORDS PRED... [--threads N]"
    );
    let t0 = Instant::now();
    let dataset;
    let ds = if full {
        dataset = Dataset::open(&files, None)?;
        Reader::Full(&dataset)
    } else {
        Reader::Skim(SpanReader::open(&files, None)?)
    };
    let opened = t0.elapsed();
    let n = ds.len();
    let next = AtomicUsize::new(0);
    const BATCH: usize = 256;
    let t1 = Instant::now();
    let results: Vec<Part> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                sc.spawn(|| -> Part {
                    let mut t = Totals::default();
                    let mut rows = Vec::new();
                    loop {
                        let start = next.fetch_add(BATCH, Ordering::Relaxed);
                        if start >= n {
                            break;
                        }
                        for i in start..(start + BATCH).min(n) {
                            let rec = ds.record(i)?;
                            let a = Arbitration::of(&rec, &options);
                            let s = a.score();
                            t.records += 1;
                            t.clusters += s.clusters;
                            t.disputed_clusters += s.disputed_clusters;
                            t.disputed_records += usize::from(s.is_disputed());
                            t.disputed_chars += s.disputed_chars;
                            t.output_chars += s.output_chars;
                            t.problems += s.problems;
                            t.share_sum += s.share;
                            if shares.is_some() {
                                rows.push((i, rec.id, s.disputed_chars, s.output_chars));
                            }
                        }
                    }
                    Ok((t, rows))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("thread panicked")))
            })
            .collect()
    });
    let mut total = Totals::default();
    let mut rows = Vec::new();
    for r in results {
        let (t, rs) = r?;
        total.add(&t);
        rows.extend(rs);
    }
    let clustered = t1.elapsed();
    if let Some(p) = shares {
        rows.sort_unstable();
        let mut w = std::io::BufWriter::new(std::fs::File::create(p)?);
        for (_, id, d, c) in rows {
            writeln!(w, "{id}\t{d}\t{c}")?;
        }
        w.flush()?;
    }
    println!(
        "{} open {:.3} s, cluster {:.3} s ({threads} threads), total {:.3} s",
        if full { "full" } else { "skim" },
        opened.as_secs_f64(),
        clustered.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    println!(
        "records {} clusters {} disputed_clusters {} disputed_records {} disputed_chars {} \
         output_chars {} problems {} share_sum {:.6}",
        total.records,
        total.clusters,
        total.disputed_clusters,
        total.disputed_records,
        total.disputed_chars,
        total.output_chars,
        total.problems,
        total.share_sum
    );
    Ok(())
}
