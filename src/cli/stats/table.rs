//! The readable `stats` report.

use super::Report;
use crate::cli::score4;
use crate::model::escape::line as cell;
use crate::model::width::{self as text, pad};
use crate::review::decision::OutcomeKind;
use crate::review::metrics::Scores;

/// The readable report. Every name in it (dataset, database, sources) is escaped where it is
/// put ([`cell`]): a newline in one cannot start a line of its own.
pub(super) fn table(r: &Report) -> String {
    let p = &r.progress;
    let mut s = String::new();
    let outcomes: Vec<String> = r
        .by_outcome_list()
        .iter()
        .map(|(k, v)| {
            // "open" is the outcome of every record neither reclassified nor removed,
            // reviewed or not: say so, not "open" (read as "still to review").
            let k = match k.as_str() {
                "open" => "kept (not reclassified)",
                "clean" => "reclassified clean",
                other => other,
            };
            format!("{k} {v}")
        })
        .collect();
    s.push_str(&format!(
        "dataset {} ({}): {} of {} records fully reviewed, {} with decisions; {}; {} flagged\n",
        cell(&r.dataset),
        cell(&r.db),
        p.reviewed,
        p.records,
        p.with_decisions,
        outcomes.join(", "),
        p.flagged
    ));
    if p.stale_decisions > 0 {
        s.push_str(&format!(
            "{} stale decision(s) on {} record(s): not applied, not counted\n",
            p.stale_decisions, p.stale_records
        ));
    }
    let d = &r.disagreement;
    s.push_str(&format!(
        "disagreement (tolerance {}{}): {} disputed record(s), {} of {} cluster(s) disputed, \
         {} judge verdict(s) against the gold, {} unplaced claim(s)\n\n",
        r.tolerance,
        if r.ignore_edge_punct {
            ", edge punctuation ignored"
        } else {
            ""
        },
        d.disputed_records,
        d.disputed_clusters,
        d.clusters,
        d.judge_disputes,
        d.unplaced_claims
    ));
    let rows: Vec<(String, &Scores, String)> = r
        .sources
        .iter()
        .map(|x| {
            let n = x.upheld + x.dismissed;
            let up = if n == 0 {
                "-".to_owned()
            } else {
                format!("upheld {} of {n} clusters", x.upheld)
            };
            (cell(&x.name).into_owned(), &x.overall, up)
        })
        .collect();
    s.push_str(&block(
        &format!("vs reviewed ({} records)", p.compared),
        &rows,
        true,
    ));
    if !r.pairs.is_empty() {
        let rows: Vec<(String, &Scores, String)> = r
            .pairs
            .iter()
            .map(|x| {
                let who = format!("{} vs {}", cell(&x.a), cell(&x.b));
                (who, &x.overall, String::new())
            })
            .collect();
        s.push('\n');
        s.push_str(&block("pairs (A is the reference)", &rows, false));
    }
    if let Some(a) = &r.alpha {
        s.push_str(&format!(
            "\nKrippendorff's alpha among {} annotators over {} characters of {} records: \
             label-blind {}, label-aware {}\n",
            a.coders.len(),
            a.units,
            a.records,
            score4(a.blind),
            score4(a.labeled)
        ));
    }
    let others: Vec<_> = r
        .upheld
        .iter()
        .filter(|(n, _)| !r.sources.iter().any(|x| &x.name == *n))
        .filter(|(_, j)| j.upheld + j.dismissed > 0)
        .collect();
    if !others.is_empty() {
        s.push_str("\nalso named by resolutions:\n");
        for (n, j) in others {
            s.push_str(&format!(
                "  {}: upheld {} of {} clusters\n",
                cell(n),
                j.upheld,
                j.upheld + j.dismissed
            ));
        }
    }
    s.push_str(
        "\nchar: code points covered by any span; ex: a record is positive when a span covers \
         a character;\nIoU: mean over the n records where either side marks something; kappa: \
         over every character (- when undefined);\nlbl: label-aware, a character agrees only \
         where both give it the same labels;\nupheld: disputed clusters (and judge \
         claims) whose resolution upheld the source, of those whose resolution named it: one \
         vote per source per cluster\n(however many spans it settled into; --json adds the \
         per-span counts, one per resolve decision)\n",
    );
    s
}

impl Report {
    fn by_outcome_list(&self) -> Vec<(String, usize)> {
        OutcomeKind::ALL
            .iter()
            .map(|k| {
                (
                    k.name().to_owned(),
                    self.progress.by_outcome.get(k.name()).copied().unwrap_or(0),
                )
            })
            .collect()
    }
}

/// One table: a row per entry.
fn block(title: &str, rows: &[(String, &Scores, String)], with_upheld: bool) -> String {
    let width = rows
        .iter()
        .map(|(l, _, _)| text::width(l))
        .chain(std::iter::once(text::width(title)))
        .max()
        .unwrap_or(0);
    let mut s = String::new();
    s.push_str(&pad(title, width));
    s.push_str(&format!(
        " {:>7} {:>6} {:>6} {:>6} │ {:>6} │ {:>6} {:>5} │ {:>6} │ {:>6} {:>6}",
        "records", "P", "R", "F1", "ex F1", "IoU", "n", "kappa", "lbl F1", "kappa"
    ));
    if with_upheld {
        s.push_str(" │ arbitration");
    }
    s.push('\n');
    for (label, sc, up) in rows {
        let c = sc.char_level;
        s.push_str(&pad(label, width));
        s.push_str(&format!(
            " {:>7} {:>6.4} {:>6.4} {:>6.4} │ {:>6.4} │ {:>6} {:>5} │ {:>6} │ {:>6.4} {:>6}",
            sc.records,
            c.precision,
            c.recall,
            c.f1,
            sc.example_level.f1,
            score4(sc.mean_iou),
            sc.iou_records,
            score4(sc.kappa),
            sc.char_level_labeled.f1,
            score4(sc.kappa_labeled)
        ));
        if with_upheld {
            s.push_str(&format!(" │ {up}"));
        }
        s.push('\n');
    }
    s
}

/// `--rubric`'s table: the decisions in force per reason code, each with its description.
pub(super) fn reasons_table(rows: &[crate::review::rubric::ReasonRow]) -> String {
    let mut s = String::from("\nDecisions per reason:\n");
    if rows.is_empty() {
        s.push_str("  none (no drop, adjust, relabel, add, clean, remove or flag in force)\n");
        return s;
    }
    let width = rows
        .iter()
        .map(|r| text::width(&cell(r.code.as_deref().unwrap_or("–"))))
        .max()
        .unwrap_or(0);
    for r in rows {
        let code = cell(r.code.as_deref().unwrap_or("–"));
        let description = match (&r.code, &r.description) {
            (None, _) => "(no reason code)".to_owned(),
            (Some(_), None) => "(not in the rubric)".to_owned(),
            (Some(_), Some(d)) => cell(d).into_owned(),
        };
        s.push_str(&format!(
            "  {:<7} {} {:>6}  {description}\n",
            r.action,
            pad(&code, width),
            r.decisions
        ));
    }
    s
}
