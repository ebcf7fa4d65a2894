//! Benchmark: W writers (threads, each with its own connection, as separate `apply` processes
//! or review screens have) appending N decisions each, one transaction per decision with the
//! record's state, to one database: an SQLite file or a PostgreSQL URL. Prints the commit
//! latency (p50, p99, max), the wall time and how many decisions the log holds after (lost =
//! expected − held). The store-level twin of the team load run, for comparing the engines.
//!
//! ```sh
//! cargo run --release --example commit_load -- DB [WRITERS] [EACH]
//! cargo run --release --example commit_load -- /tmp/load.sqlite 20 500
//! cargo run --release --example commit_load -- postgresql://postgres@127.0.0.1:PORT/load 20 500
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use spanreview::review::decision::{ActionKind, Decision, OutcomeKind};
use spanreview::store::{RecordState, Store};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let db = PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: DB [W] [N]"))?,
    );
    let writers: usize = args.next().map_or(Ok(20), |a| a.parse())?;
    let each: usize = args.next().map_or(Ok(500), |a| a.parse())?;
    drop(Store::open(&db)?); // created and migrated before the clock starts
    let t0 = Instant::now();
    let threads: Vec<_> = (0..writers)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || -> anyhow::Result<Vec<Duration>> {
                let store = Store::open(&db)?;
                let state = RecordState {
                    reviewed: true,
                    outcome: OutcomeKind::Open,
                    ..RecordState::default()
                };
                let mut took = Vec::with_capacity(each);
                for i in 0..each {
                    let mut d = Decision::about(
                        "load",
                        &format!("w{w}"),
                        &format!("r{w}°{i}"),
                        "h",
                        ActionKind::Accept,
                    );
                    d.span_key = Some("gold:0".into());
                    let t = Instant::now();
                    store.append(&d, Some(&state))?;
                    took.push(t.elapsed());
                }
                Ok(took)
            })
        })
        .collect();
    let mut all = Vec::with_capacity(writers * each);
    let mut failed = 0;
    for t in threads {
        match t.join() {
            Ok(Ok(took)) => all.extend(took),
            Ok(Err(e)) => {
                failed += 1;
                eprintln!("writer failed: {e}");
            }
            Err(_) => failed += 1,
        }
    }
    let wall = t0.elapsed();
    let held = Store::open_existing(&db)?.decisions(Some("load"))?.len();
    all.sort_unstable();
    let pct = |p: f64| {
        let i = ((all.len() as f64 * p).ceil() as usize).clamp(1, all.len().max(1)) - 1;
        all.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    println!(
        "{} writers x {each}: {} commits, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, wall {:.2} s, \
         held {held}, lost {}, writers failed {failed}",
        writers,
        all.len(),
        pct(0.50),
        pct(0.99),
        pct(1.0),
        wall.as_secs_f64(),
        all.len().saturating_sub(held)
    );
    Ok(())
}
