//! The dataset card (`export --card`) of a team run against the oracle, the report and `stats`:
//! its paragraph's numbers, its tables, its raters and agreement, and its SVG charts (parsed,
//! one bar per label with the table's value, heights in proportion) and their links (a Markdown
//! renderer sees the tables and the images, and every image is a file written beside the card).

use std::collections::BTreeMap;

use pulldown_cmark::{Event, Parser, Tag};
use serde_json::Value;

use super::{report_count, Run};

/// The number (digits and thousands commas) right after `phrase` in `text`.
fn after(text: &str, phrase: &str) -> Option<u64> {
    let at = text.find(phrase)? + phrase.len();
    number(text[at..].chars())
}

/// The number right before `phrase` in `text`.
fn before(text: &str, phrase: &str) -> Option<u64> {
    let at = text.find(phrase)?;
    let rev: String = text[..at]
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .collect();
    number(rev.chars().rev())
}

fn number(chars: impl Iterator<Item = char>) -> Option<u64> {
    let digits: String = chars
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The paragraph's numbers by the oracle's names (boundaries: tightened + widened + shifted).
pub(super) fn paragraph(card: &str) -> BTreeMap<&'static str, Option<u64>> {
    let p = card
        .lines()
        .find(|l| l.starts_with("We reviewed "))
        .unwrap_or("");
    BTreeMap::from([
        ("reviewed", after(p, "We reviewed ")),
        ("records_in", after(p, " examples of the ")),
        ("retained", after(p, " and retained ")),
        ("removed", before(p, " were removed")),
        ("clean", before(p, " reclassified as clean")),
        ("kept", before(p, " were kept unchanged")),
        ("boundaries", before(p, " had their boundaries")),
        ("relabeled", before(p, " their category corrected")),
        ("dropped", before(p, " were dropped")),
        ("added", before(p, " were added")),
        ("disputes", after(p, "For the ")),
        (
            "clusters_resolved",
            after(p, "disputed hallucinations (in "),
        ),
        ("disputes_upheld", after(p, "arbitration upheld ")),
        ("disputes_dropped", after(p, " and dropped ")),
    ])
}

/// The rows of the table under `### heading`: cells, header and rule left out.
pub(super) fn table(card: &str, heading: &str) -> Vec<Vec<String>> {
    let Some(at) = card.find(&format!("### {heading}\n")) else {
        return Vec::new();
    };
    card[at..]
        .lines()
        .skip_while(|l| !l.starts_with("|---"))
        .skip(1)
        .take_while(|l| l.starts_with("| "))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

fn sum(rows: &[Vec<String>], col: usize) -> u64 {
    rows.iter()
        .map(|r| r.get(col).and_then(|c| c.parse::<u64>().ok()).unwrap_or(0))
        .sum()
}

/// Every disagreement of the card with the oracle, the report and `stats`, tagged `card`.
pub(super) fn check(run: &Run, out: &mut Vec<(&'static str, String)>) {
    let c = &run.expected["counts"];
    let want = |k: &str| c[k].as_u64();
    let p = paragraph(&run.card);
    let mut mismatch = |what: String| out.push(("card", what));
    let oracle = [
        ("reviewed", want("reviewed")),
        ("removed", want("removed")),
        ("clean", want("clean")),
        ("kept", want("kept")),
        ("relabeled", want("relabeled")),
        ("dropped", want("dropped")),
        ("added", want("added")),
        ("disputes", want("disputes")),
        ("clusters_resolved", want("clusters_resolved")),
        ("disputes_upheld", want("disputes_upheld")),
        ("disputes_dropped", want("disputes_dropped")),
        (
            "boundaries",
            Some(
                ["tightened", "widened", "shifted"]
                    .map(|k| want(k).unwrap_or(0))
                    .iter()
                    .sum(),
            ),
        ),
        (
            "records_in",
            report_count(&run.report, "Records in the input"),
        ),
        (
            "retained",
            report_count(&run.report, "Records reviewed and retained"),
        ),
    ];
    for (k, w) in oracle {
        if p[k] != w || w.is_none() {
            mismatch(format!(
                "paragraph {k}: card {:?}, oracle/report {w:?}",
                p[k]
            ));
        }
    }
    let labels = table(&run.card, "Outcomes per label");
    for (col, key) in [(5, "dropped"), (6, "added")] {
        if Some(sum(&labels, col)) != want(key) {
            mismatch(format!(
                "labels table {key}: {}, oracle {:?}",
                sum(&labels, col),
                want(key)
            ));
        }
    }
    if sum(&labels, 2) != p["boundaries"].unwrap_or(u64::MAX) {
        mismatch(format!("labels table boundaries {}", sum(&labels, 2)));
    }
    sources(run, &mut mismatch);
    agreement(run, &mut mismatch);
    charts(run, &labels, &mut mismatch);
}

/// The card's per-source table against the oracle's votes per cluster.
fn sources(run: &Run, mismatch: &mut impl FnMut(String)) {
    let got: BTreeMap<String, [u64; 2]> = table(&run.card, "Arbitration, per source")
        .into_iter()
        .map(|r| {
            let n = |i: usize| r.get(i).and_then(|v| v.parse().ok()).unwrap_or(u64::MAX);
            (r[0].clone(), [n(1), n(2)])
        })
        .collect();
    let want = super::oracle_votes(run);
    if got != want {
        mismatch(format!("per source {got:?}, oracle {want:?}"));
    }
}

/// Raters (the oracle's; no arbiter among them), examples per pair, and the figures `stats`
/// prints.
fn agreement(run: &Run, mismatch: &mut impl FnMut(String)) {
    let section = run
        .card
        .split("### Agreement\n")
        .nth(1)
        .unwrap_or("")
        .split("\n### ")
        .next()
        .unwrap_or("");
    let raters: Vec<String> = section
        .split("Raters: ")
        .nth(1)
        .and_then(|r| r.split('.').next())
        .unwrap_or("")
        .split(", ")
        .map(|r| r.trim_matches('`').to_owned())
        .collect();
    let mut want: Vec<String> = super::strings(&run.expected["team"]["raters"])
        .into_iter()
        .collect();
    want.sort();
    if raters != want {
        mismatch(format!("raters {raters:?}, oracle {want:?}"));
    }
    let t = &run.stats["team"];
    let three = |v: &Value| {
        v.as_f64()
            .map_or_else(|| "–".to_owned(), |x| format!("{x:.3}"))
    };
    let mut stats_rows: Vec<Vec<String>> = t["pairs"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|p| {
            let (a, b) = (p["a"].as_str().unwrap_or(""), p["b"].as_str().unwrap_or(""));
            vec![
                format!("{a} vs {b}"),
                p["scores"]["records"].to_string(),
                three(&p["scores"]["char_level_labeled"]["f1"]),
                three(&p["scores"]["kappa_labeled"]),
                three(&p["alpha"]["labeled"]),
            ]
        })
        .collect();
    stats_rows.push(vec![
        format!("team ({})", want.len()),
        run.expected["team"]["records"]
            .as_array()
            .map_or(0, Vec::len)
            .to_string(),
        three(&t["team"]["char_level_labeled"]["f1"]),
        three(&t["team"]["kappa_labeled"]),
        three(&t["alpha"]["labeled"]),
    ]);
    let got = table(&run.card, "Agreement");
    if got != stats_rows {
        mismatch(format!(
            "agreement table {got:?}, stats/oracle {stats_rows:?}"
        ));
    }
}

/// The images a Markdown renderer sees, and whether it sees a table.
pub(super) fn rendered(card: &str) -> (Vec<String>, usize) {
    let mut images = Vec::new();
    let mut tables = 0;
    for e in Parser::new_ext(card, pulldown_cmark::Options::ENABLE_TABLES) {
        match e {
            Event::Start(Tag::Image { dest_url, .. }) => images.push(dest_url.to_string()),
            Event::Start(Tag::Table(_)) => tables += 1,
            _ => {}
        }
    }
    (images, tables)
}

/// Each bar of an SVG chart: (category, series, value, height).
pub(super) fn bars(svg: &str) -> Result<Vec<(String, String, f64, f64)>, String> {
    let doc = roxmltree::Document::parse(svg).map_err(|e| e.to_string())?;
    Ok(doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("bar"))
        .map(|n| {
            let f = |a: &str| {
                n.attribute(a)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(f64::NAN)
            };
            let s = |a: &str| n.attribute(a).unwrap_or("").to_owned();
            (
                s("data-category"),
                s("data-series"),
                f("data-value"),
                f("height"),
            )
        })
        .collect())
}

/// The images link to the SVG files written beside the card, which parse; the outcomes chart
/// holds one `before` and one `after` bar per label of the table, with its values, every bar's
/// height in proportion to its value.
fn charts(run: &Run, labels: &[Vec<String>], mismatch: &mut impl FnMut(String)) {
    let (images, tables) = rendered(&run.card);
    if tables < 5 || images.len() != 4 {
        mismatch(format!("rendered: {tables} tables, images {images:?}"));
    }
    for i in &images {
        let Some(svg) = run.charts.get(i) else {
            mismatch(format!("image {i} is not a file beside the card"));
            continue;
        };
        match bars(svg) {
            Err(e) => mismatch(format!("{i} does not parse: {e}")),
            Ok(b) if b.is_empty() => mismatch(format!("{i} has no bar")),
            Ok(b) => {
                let ratio: Vec<f64> = b
                    .iter()
                    .filter(|x| x.2 != 0.0)
                    .map(|x| x.3 / x.2.abs())
                    .collect();
                if ratio.iter().any(|r| (r - ratio[0]).abs() > 1e-3) {
                    mismatch(format!("{i}: heights not in proportion to values"));
                }
            }
        }
    }
    let Some(outcomes) = run
        .charts
        .get("card-outcomes.svg")
        .and_then(|s| bars(s).ok())
    else {
        mismatch("no outcomes chart".to_owned());
        return;
    };
    for (series, col) in [("before", 1), ("after", 8)] {
        let got: Vec<(String, f64)> = outcomes
            .iter()
            .filter(|b| b.1 == series)
            .map(|b| (b.0.clone(), b.2))
            .collect();
        let want: Vec<(String, f64)> = labels
            .iter()
            .map(|r| (r[0].clone(), r[col].parse().unwrap_or(f64::NAN)))
            .collect();
        if got != want {
            mismatch(format!("outcomes chart {series} {got:?}, table {want:?}"));
        }
    }
}
