//! Evidence for contradictions, measured: for every `contradiction` span of a records file,
//! whether the context pane highlights anything in its first three hits, with the span's terms
//! only (before) and with the ranked candidates (after); with a hand-checked table (`id`,
//! `start`, `end`, `evidence`), the share whose RIGHT evidence is in the top 3.
//!
//! ```sh
//! cargo run --example evidence_share -- /work/shared/data/toolace/derived/test_records_reconstructed.jsonl \
//!     tests/fixtures/evidence/table.jsonl [--verbose]
//! cargo run --example evidence_share -- tests/fixtures/evidence_heldout/records.jsonl \
//!     tests/fixtures/evidence_heldout/table.jsonl [--verbose]
//! ```

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::Value;
use spanreview::model::offsets::CharMap;
use spanreview::tui::contradiction::for_span;
use spanreview::tui::evidence::{pretty_context, terms, Folded};
use spanreview::tui::evidence_eval::{before_visits, judge_nth, TOP};

fn jsonl(path: &str) -> anyhow::Result<Vec<Value>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{path}:{}: not JSON", i + 1))
        })
        .collect()
}

fn field<'a>(v: &'a Value, k: &str) -> anyhow::Result<&'a str> {
    v[k].as_str()
        .with_context(|| format!("no string `{k}` in {}", v["id"]))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let records = jsonl(
        files
            .first()
            .context("usage: evidence_share RECORDS [TABLE]")?,
    )?;
    let (mut spans, mut before_any, mut after_any) = (0, 0, 0);
    let mut slowest = Duration::ZERO;
    for r in &records {
        let (answer, context) = (field(r, "output")?, field(r, "context")?);
        let pretty = pretty_context(context);
        let map = CharMap::new(answer);
        let folded = Folded::new(&pretty);
        for l in r["hallucination_labels"].as_array().into_iter().flatten() {
            if l["label"] != "contradiction" {
                continue;
            }
            let s = usize::try_from(l["start"].as_u64().context("start")?)?;
            let e = usize::try_from(l["end"].as_u64().context("end")?)?;
            spans += 1;
            let text = spanreview::model::offsets::slice(answer, s, e).unwrap_or("");
            before_any += usize::from(!before_visits(&folded.find(&terms(text)), TOP).is_empty());
            let t = Instant::now();
            let ev = for_span((answer, &map), (s, e), true, &pretty, &folded);
            slowest = slowest.max(t.elapsed());
            after_any += usize::from(!ev.first_visits(TOP).is_empty());
            if verbose {
                let top: Vec<String> = ev
                    .ranked
                    .order
                    .iter()
                    .take(TOP)
                    .map(|(i, why)| {
                        format!(
                            "{:?} ({why:?})",
                            &pretty[ev.hits[*i].start..ev.hits[*i].end]
                        )
                    })
                    .collect();
                println!("{} {:?}: {}", r["id"], text, top.join(" | "));
            }
        }
    }
    println!("all contradiction spans: {spans}; something highlighted in the top {TOP}: before {before_any}, after {after_any} (right evidence not checked)");
    println!(
        "slowest span's evidence (terms + ranking): {:.1} ms",
        slowest.as_secs_f64() * 1e3
    );
    let Some(table) = files.get(1) else {
        return Ok(());
    };
    let by_id: HashMap<&str, &Value> = records
        .iter()
        .filter_map(|r| Some((r["id"].as_str()?, r)))
        .collect();
    let (mut with, mut before, mut after, mut first) = (0, 0, 0, 0);
    for row in jsonl(table)? {
        let Some(evidence) = row["evidence"].as_str() else {
            continue;
        };
        let r = by_id
            .get(field(&row, "id")?)
            .with_context(|| format!("{} not in the records", row["id"]))?;
        let s = usize::try_from(row["start"].as_u64().context("start")?)?;
        let e = usize::try_from(row["end"].as_u64().context("end")?)?;
        let answer = (field(r, "output")?, s, e);
        // `occurrence`: which occurrence of the text is the right one (held-out table).
        let nth = row["occurrence"]
            .as_u64()
            .map(usize::try_from)
            .transpose()?;
        let o = judge_nth(answer, field(r, "context")?, (evidence, nth), TOP);
        first += usize::from(judge_nth(answer, field(r, "context")?, (evidence, nth), 1).after);
        with += 1;
        before += usize::from(o.before);
        after += usize::from(o.after);
        if verbose {
            println!(
                "{} before {} after {} ({evidence})",
                row["id"], o.before, o.after
            );
        }
    }
    println!("hand-checked spans with their right evidence in the context: {with}; right evidence in the top {TOP}: before {before}/{with}, after {after}/{with} (first shown: {first}/{with})");
    Ok(())
}
