//! Benchmark data (issue 5): write N review decisions on a records file into a review database,
//! through the `Store` API in one transaction, for `spanreview export` and
//! `bench/export_baseline.py` to apply.
//!
//! ```sh
//! cargo run --release --example gen_decisions -- RECORDS.jsonl DB.sqlite [--decisions 10000] \
//!     [--dataset NAME] [--reviewer bench]
//! ```
//!
//! One decision on every k-th record (k = records / N, so they spread over the whole file), its
//! kind cycling through accept (3 in 10), drop, relabel, adjust, add, clean, remove and
//! accept-all; a record without labels gets an add instead of a span decision. The dataset
//! name defaults to the file's stem, as export and the review screen name it. Deterministic:
//! the same file and N give the same decisions (times aside).

use std::path::PathBuf;

use anyhow::{bail, Context};
use spanreview::formats::Dataset;
use spanreview::model::Record;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::store::Store;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: gen_decisions RECORDS DB [--decisions N] [--dataset NAME] [--reviewer R]";
    let records = PathBuf::from(args.next().context(usage)?);
    let db = PathBuf::from(args.next().context(usage)?);
    let mut n = 10_000usize;
    let mut dataset = None;
    let mut reviewer = "bench".to_owned();
    while let Some(a) = args.next() {
        let v = args.next().with_context(|| format!("{a} needs a value"))?;
        match a.as_str() {
            "--decisions" => n = v.parse().context("--decisions N")?,
            "--dataset" => dataset = Some(v),
            "--reviewer" => reviewer = v,
            other => bail!("unknown option {other}; {usage}"),
        }
    }
    let ds = Dataset::open(&[records], None)?;
    let name = dataset.unwrap_or_else(|| ds.name.clone());
    if ds.is_empty() || n == 0 {
        bail!("nothing to decide on");
    }
    let step = (ds.len() / n).max(1);
    let mut decisions = Vec::with_capacity(n);
    for (k, i) in (0..ds.len()).step_by(step).take(n).enumerate() {
        let rec = ds.record(i)?;
        decisions.push(decision(&rec, &name, &reviewer, k));
    }
    let store = Store::open(&db)?;
    let saved = store.append_all(&decisions, None)?;
    eprintln!(
        "{} decisions on {} records of dataset {name:?} (every {step}th) saved to {}",
        saved.len(),
        decisions.len(),
        db.display()
    );
    Ok(())
}

/// The `k`-th decision, on `rec`.
fn decision(rec: &Record, dataset: &str, reviewer: &str, k: usize) -> Decision {
    let first = rec.gold_spans().first();
    let kind = match (k % 10, first) {
        (0..=2, Some(_)) => ActionKind::Accept,
        (3, Some(_)) => ActionKind::Drop,
        (4, Some(_)) => ActionKind::Relabel,
        (5, Some(s)) if s.end - s.start > 1 => ActionKind::Adjust,
        (7, _) => ActionKind::Clean,
        (8, _) => ActionKind::Remove,
        (9, _) => ActionKind::AcceptAll,
        _ => ActionKind::Add,
    };
    let mut d = Decision::new(rec, dataset, reviewer, kind);
    let before = first.map(SpanValue::of);
    match kind {
        ActionKind::Accept | ActionKind::Drop => {
            d.span_key = Some("gold:0".to_owned());
            d.before = before;
            if kind == ActionKind::Drop {
                d.reason = Some("not in the tool output".to_owned());
            }
        }
        ActionKind::Relabel => {
            d.span_key = Some("gold:0".to_owned());
            d.after = before.clone().map(|mut v| {
                v.label = if v.label == "contradiction" {
                    "overgeneration".to_owned()
                } else {
                    "contradiction".to_owned()
                };
                v
            });
            d.before = before;
        }
        ActionKind::Adjust => {
            d.span_key = Some("gold:0".to_owned());
            d.after = before.clone().map(|mut v| {
                v.start += 1;
                v
            });
            d.before = before;
        }
        ActionKind::Add => {
            let len = spanreview::model::offsets::char_len(&rec.output);
            d.span_key = Some(format!("added:bench{k}"));
            d.after = Some(SpanValue {
                start: 0,
                end: len.min(5),
                label: rec
                    .corruption_type
                    .clone()
                    .filter(|t| t != "clean")
                    .unwrap_or_else(|| "overgeneration".to_owned()),
                category: None,
                subcategory: None,
            });
        }
        ActionKind::Remove => d.reason = Some("incoherent".to_owned()),
        _ => {}
    }
    d
}
