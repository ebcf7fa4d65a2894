//! Benchmark: saving N auto-accepts one transaction each (`Store::append`, what the review
//! screen did) against one transaction for all (`Store::append_each`, what it does now), in
//! a database file under DIR (default: the system temp folder). Each transaction is fsynced.
//!
//! ```sh
//! cargo run --release --example store_batch -- [N] [DIR]
//! ```

use std::time::Instant;

use spanreview::review::decision::{ActionKind, Decision};
use spanreview::store::{RecordState, Store};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(1000), |a| a.parse())?;
    let dir = tempfile::tempdir_in(
        args.next()
            .unwrap_or_else(|| std::env::temp_dir().display().to_string()),
    )?;
    let state = RecordState {
        reviewed: true,
        outcome: spanreview::review::decision::OutcomeKind::Open,
        ..RecordState::default()
    };
    let rows = |ds: &str| -> Vec<(Decision, RecordState)> {
        (0..n)
            .map(|i| {
                let d = Decision::about(ds, "auto", &format!("r{i}"), "abc", ActionKind::AcceptAll);
                (d, state.clone())
            })
            .collect()
    };
    let store = Store::open(&dir.path().join("bench.sqlite"))?;
    let one = rows("one");
    let t0 = Instant::now();
    for (d, st) in &one {
        store.append(d, Some(st))?;
    }
    let each = t0.elapsed();
    let all = rows("batch");
    let t0 = Instant::now();
    for chunk in all.chunks(256) {
        store.append_each(chunk)?;
    }
    let batched = t0.elapsed();
    println!(
        "{n} auto-accepts: one transaction each {:.3} s, 256 per transaction {:.3} s ({:.0}x)",
        each.as_secs_f64(),
        batched.as_secs_f64(),
        each.as_secs_f64() / batched.as_secs_f64()
    );
    Ok(())
}
