//! Micro baselines (criterion): index a ~50 MB generated records file (scanned, and through a
//! sidecar cache), fetch one record, and slice long text by code points (non-ASCII against
//! ASCII). `open_dataset_and_fetch` goes through a sidecar cache (in a temporary folder) as the
//! review screen does.
//!
//! `cargo bench --bench core` (a few seconds a benchmark; small sample sizes on purpose). The
//! whole-file comparisons with Python are in `bench/run.sh`; results in `BENCHMARKS.md`.

#[allow(dead_code)]
#[path = "../examples/gen/synth.rs"]
mod synth;

use std::hint::black_box;
use std::io::Write;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use spanreview::formats::index::{Cache, FileIndex};
use spanreview::formats::{DataFile, Dataset};
use spanreview::model::offsets;

/// Records in the generated file (~50 MB with the default size distribution).
const RECORDS: usize = 5_000;

/// Write the benchmark file: the same bytes as `gen --records 5000 --seed 1`.
fn records_file() -> tempfile::NamedTempFile {
    let opts = synth::Options::default();
    let mut f = tempfile::NamedTempFile::new().expect("temp file");
    let mut buf = String::new();
    let mut from = 0;
    while from < RECORDS {
        let to = (from + 500).min(RECORDS);
        buf.clear();
        synth::generate_range(&opts, from, to, &mut buf, &mut []);
        f.write_all(buf.as_bytes()).expect("write");
        from = to;
    }
    f.flush().expect("flush");
    // Write back and read once, so the first benchmark does not pay for writeback or the
    // first touch of the page cache.
    f.as_file().sync_all().expect("sync");
    black_box(std::fs::read(f.path()).expect("read"));
    f
}

fn file_benches(c: &mut Criterion) {
    let f = records_file();
    let size = std::fs::metadata(f.path()).expect("metadata").len();
    let mut g = c.benchmark_group("file");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500))
        .throughput(Throughput::Bytes(size));
    // A scan of the file (no sidecar cache), then the same through a sidecar in a temporary
    // cache folder (written by the first open, read by the others).
    g.bench_function("index_50mb", |b| {
        b.iter(|| FileIndex::open_with(black_box(f.path()), None).expect("index"));
    });
    let cache_dir = tempfile::tempdir().expect("cache dir");
    let cache = Cache::new(cache_dir.path().to_path_buf(), 0);
    let cached = FileIndex::open_with(f.path(), Some(&cache)).expect("index");
    assert!(!cached.from_cache());
    g.bench_function("index_50mb_sidecar", |b| {
        b.iter(|| {
            let ix = FileIndex::open_with(black_box(f.path()), Some(&cache)).expect("index");
            assert!(ix.from_cache());
            ix
        });
    });
    // Dataset::open goes through the user's cache; keep this file's sidecar out of it.
    std::env::set_var("SPANREVIEW_CACHE_DIR", cache_dir.path());
    g.bench_function("open_dataset_and_fetch", |b| {
        let paths = [f.path().to_path_buf()];
        b.iter(|| {
            let ds = Dataset::open(black_box(&paths), None).expect("open");
            ds.record(RECORDS - 100).expect("record")
        });
    });
    g.finish();

    let file = DataFile::open(f.path(), None, None).expect("open");
    let mut g = c.benchmark_group("record");
    g.sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(300));
    // The largest record of the file: parsing cost grows with its context.
    let largest = (0..file.len())
        .max_by_key(|&i| file.index.entry(i).map_or(0, |e| e.len))
        .unwrap_or(0);
    let bytes = u64::from(file.index.entry(largest).map_or(0, |e| e.len));
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("fetch_largest", |b| {
        b.iter(|| file.record(black_box(largest)).expect("record"));
    });
    g.finish();
}

fn slice_benches(c: &mut Criterion) {
    // ~100 K code points each; the slice sits near the end, the worst case of a linear scan.
    let unit_utf8 = "Zürich 12.5°C, it’s 東京 🌤️ cafe\u{301}. ";
    let unit_ascii = "Zurich 12.5 C, it's Tokyo -- cafe... ";
    let text_utf8 = unit_utf8.repeat(100_000 / unit_utf8.chars().count());
    let text_ascii = unit_ascii.repeat(100_000 / unit_ascii.chars().count());
    let mut g = c.benchmark_group("offsets_slice_100k");
    g.sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(300));
    for (name, text) in [("non_ascii", &text_utf8), ("ascii", &text_ascii)] {
        let n = offsets::char_len(text);
        let (a, b) = (n - 40, n - 10);
        g.bench_function(format!("slice_{name}"), |bch| {
            bch.iter(|| offsets::slice(black_box(text), black_box(a), black_box(b)));
        });
        g.bench_function(format!("charmap_build_{name}"), |bch| {
            bch.iter(|| offsets::CharMap::new(black_box(text)));
        });
        let map = offsets::CharMap::new(text);
        g.bench_function(format!("charmap_slice_{name}"), |bch| {
            bch.iter(|| map.slice(black_box(text), black_box(a), black_box(b)));
        });
    }
    g.finish();
}

criterion_group!(benches, file_benches, slice_benches);
criterion_main!(benches);
