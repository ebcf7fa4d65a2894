//! `export --card PATH.md`: a dataset-card section in Markdown, to paste into a Hugging Face
//! card, and its charts as SVG files beside it (`PATH`'s stem + `-outcomes.svg`, `-upheld.svg`,
//! `-boundaries.svg`, `-agreement.svg`; a chart with nothing to show is not written), linked
//! with relative links.
//!
//! Every number is the report's: the same [`Tally`] (one source of numbers), and the team's
//! agreement as `stats` computes it ([`crate::review::team::Team`], over the opinions
//! [`crate::formats::judges::reviewers`] replays). Names are escaped as in the report: a `|`
//! or a newline cannot break a table, a hidden character is shown as `\u{..}`.

mod charts;
pub mod svg;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::output::{AtomicFile, Protected};
use super::report::{cell, code, Header};
use crate::formats::judges::reviewers::Reviewers;
use crate::formats::judges::REVIEWER_PREFIX;
use crate::review::decision::{ActionKind, Decision};
use crate::review::outcome::Tally;
use crate::review::team::{decided_by, Arbiter, TeamAgreement};

use crate::review::outcome::{bucket_counts, BUCKETS};
pub use charts::{AGREEMENT, BOUNDARIES, OUTCOMES, UPHELD};

/// The team's side of the card: agreement on the overlap, who reviewed what, who arbitrated.
#[derive(Debug, Clone, Default)]
pub struct TeamFigures {
    /// Label-aware agreement on the records two or more reviewers decided on.
    pub agreement: Option<TeamAgreement>,
    /// Per reviewer, the records with a verdict of theirs in force (arbitration left out).
    pub decided: BTreeMap<String, usize>,
    /// Per reviewer, the records of the overlap they have an opinion on.
    pub overlap: BTreeMap<String, usize>,
    /// Whoever made a resolution.
    pub arbiters: BTreeSet<String>,
}

impl TeamFigures {
    /// The figures of `log` (by record) and of its `reviewers` replayed.
    #[must_use]
    pub fn of(log: &HashMap<String, Vec<Decision>>, reviewers: &Reviewers) -> Self {
        let all: Vec<Decision> = log.values().flatten().cloned().collect();
        let arbiter = Arbiter::of(&all);
        let mut decided: BTreeMap<String, usize> = BTreeMap::new();
        for who in decided_by(&all, |d| arbiter.made(d)).into_values() {
            for r in who {
                *decided.entry(r).or_default() += 1;
            }
        }
        let mut overlap: BTreeMap<String, usize> = BTreeMap::new();
        for o in reviewers.opinions.values().flatten() {
            *overlap.entry(o.reviewer.clone()).or_default() += 1;
        }
        let arbiters = all
            .iter()
            .filter(|d| d.action == ActionKind::Resolve)
            .map(|d| d.reviewer.clone())
            .collect();
        Self {
            agreement: reviewers.team.clone(),
            decided,
            overlap,
            arbiters,
        }
    }
}

/// The card: its Markdown and each chart's file and SVG text.
#[derive(Debug, Clone)]
pub struct Card {
    /// The Markdown section.
    pub markdown: String,
    /// The charts, each beside the card.
    pub charts: Vec<(PathBuf, String)>,
}

/// `n` with thousands separated by commas (`2,038`).
#[must_use]
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A relative image link to `file` (angle brackets, so a space or parenthesis stays in it).
fn image(s: &mut String, alt: &str, file: &Path) {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut dest = String::new();
    for c in crate::model::escape::line(&name).chars() {
        if matches!(c, '<' | '>' | '\\') {
            dest.push('\\');
        }
        dest.push(c);
    }
    let _ = writeln!(s, "\n![{alt}](<{dest}>)");
}

/// The card for an export written as `h` and `t` say, with its charts named after `path`.
#[must_use]
pub fn card(path: &Path, h: &Header<'_>, t: &Tally, team: &TeamFigures) -> Card {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "card".to_owned());
    let beside = |end: &str| path.with_file_name(format!("{stem}{end}"));
    let drawn = [
        (OUTCOMES, charts::outcomes(t)),
        (UPHELD, charts::upheld(t)),
        (BOUNDARIES, charts::boundaries(t)),
        (AGREEMENT, charts::agreement(team.agreement.as_ref())),
    ];
    let mut files: HashMap<&str, PathBuf> = HashMap::new();
    let mut out = Vec::new();
    for (end, chart) in drawn {
        if let Some(c) = chart {
            files.insert(end, beside(end));
            out.push((beside(end), c.render()));
        }
    }
    let mut s = format!("## Review of {}\n\n", code(h.dataset));
    s.push_str(&paragraph(t, team));
    outcomes_section(&mut s, t, files.get(OUTCOMES));
    reasons_section(&mut s, h, t);
    upheld_section(&mut s, t, files.get(UPHELD));
    boundaries_section(&mut s, t, files.get(BOUNDARIES));
    agreement_section(&mut s, team, files.get(AGREEMENT));
    reviewers_section(&mut s, t, team);
    super::report::second_pass_section(&mut s, h, t, "###");
    Card {
        markdown: s,
        charts: out,
    }
}

/// The paragraph in a paper's form, every number the report's.
fn paragraph(t: &Tally, team: &TeamFigures) -> String {
    let n = thousands;
    let mut p = format!(
        "We reviewed {} examples of the {} in the input and retained {}: {} were removed and {} \
         reclassified as clean.",
        n(t.reviewed),
        n(t.records_in),
        n(t.reviewed_retained),
        n(t.removed_total()),
        n(t.reclassified_clean)
    );
    let _ = write!(
        p,
        " Of their {} hallucination labels, {} were kept unchanged, {} had their boundaries \
         corrected, {} their category corrected and {} were dropped ({} of them with invalid \
         offsets or text); {} were added.",
        n(t.labels_before),
        n(t.kept),
        n(t.tightened + t.widened + t.shifted),
        n(t.relabeled),
        n(t.dropped),
        n(t.invalid_dropped),
        n(t.added)
    );
    let _ = write!(
        p,
        " For the {} disputed hallucinations (in {} disputed clusters and judge claims), \
         arbitration upheld {} and dropped {}.",
        n(t.disputes),
        n(t.clusters_resolved),
        n(t.disputes_upheld),
        n(t.disputes_dropped)
    );
    if let Some(a) = &team.agreement {
        let _ = write!(
            p,
            " {} examples were reviewed independently by two or more of the {} reviewers; their \
             label-aware agreement there is character F1 {:.3}, Cohen's κ {} and \
             Krippendorff's α {}.",
            n(a.records),
            a.reviewers.len(),
            a.team.char_level_labeled.f1,
            score(a.team.kappa_labeled),
            score(a.alpha.labeled)
        );
    }
    p.push('\n');
    p
}

/// A score to three decimals, `–` when undefined.
fn score(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.3}"))
}

/// Outcomes per label: the report's by-type counts.
fn outcomes_section(s: &mut String, t: &Tally, chart: Option<&PathBuf>) {
    s.push_str("\n### Outcomes per label\n\n");
    if t.by_type.is_empty() {
        s.push_str("No labels in reviewed examples.\n");
        return;
    }
    s.push_str(
        "| Label | Before review | Boundaries corrected | Relabeled away | Relabeled to | \
         Dropped | Added | Cleared | After review |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (label, c) in &t.by_type {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(charts::label_name(label)),
            c.before,
            c.tightened + c.widened + c.shifted,
            c.relabeled_away,
            c.relabeled_to,
            c.dropped,
            c.added,
            c.cleared,
            c.after
        );
    }
    if let Some(f) = chart {
        image(s, "Outcomes by label", f);
    }
}

/// Decisions per reason code, each code with its description.
fn reasons_section(s: &mut String, h: &Header<'_>, t: &Tally) {
    s.push_str("\n### Decisions per reason\n\n");
    if t.by_reason.is_empty() {
        s.push_str("No decision in force takes a reason code.\n");
        return;
    }
    s.push_str("| Action | Code | Description | Decisions |\n|---|---|---|---:|\n");
    super::report::reason_table_rows(s, h.rubric, &t.by_reason);
}

/// Each source's votes in arbitration (per disputed cluster).
fn upheld_section(s: &mut String, t: &Tally, chart: Option<&PathBuf>) {
    s.push_str("\n### Arbitration, per source\n\n");
    if t.judges.is_empty() {
        s.push_str("No disputed span was resolved.\n");
        return;
    }
    s.push_str(
        "Per disputed cluster (and judge claim), one vote per source: upheld rate = upheld / \
         (upheld + dismissed).\n\n| Source | Clusters upheld | Clusters dismissed | Upheld \
         rate |\n|---|---:|---:|---:|\n",
    );
    for (name, j) in &t.judges {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            cell(name),
            j.upheld,
            j.dismissed,
            score(j.rate())
        );
    }
    if let Some(f) = chart {
        image(s, "Upheld rate per source", f);
    }
}

/// How far corrected boundaries moved, in code points, at each end.
fn boundaries_section(s: &mut String, t: &Tally, chart: Option<&PathBuf>) {
    s.push_str("\n### Boundary corrections\n\n");
    if t.start_moved.is_empty() {
        s.push_str("No boundary was corrected.\n");
        return;
    }
    s.push_str("| Code points moved | Spans (start) | Spans (end) |\n|---|---:|---:|\n");
    let (starts, ends) = (bucket_counts(&t.start_moved), bucket_counts(&t.end_moved));
    for ((_, _, name), (a, b)) in BUCKETS.iter().zip(starts.into_iter().zip(ends)) {
        let _ = writeln!(s, "| {name} | {a} | {b} |");
    }
    if let Some(f) = chart {
        image(s, "Boundary change sizes", f);
    }
}

/// The team's agreement on the overlap: raters named, the arbiters apart.
fn agreement_section(s: &mut String, team: &TeamFigures, chart: Option<&PathBuf>) {
    s.push_str("\n### Agreement\n\n");
    let Some(a) = &team.agreement else {
        s.push_str("No example was reviewed by two reviewers.\n");
        return;
    };
    let names =
        |v: &mut dyn Iterator<Item = &String>| v.map(|r| code(r)).collect::<Vec<_>>().join(", ");
    let _ = writeln!(
        s,
        "On the {} examples two or more reviewers decided on, each reviewer's own decisions \
         replayed (a removal is no span). Raters: {}.{}\n",
        a.records,
        names(&mut a.reviewers.iter()),
        if team.arbiters.is_empty() {
            String::new()
        } else {
            format!(
                " Arbitration by {}, not counted as a rater on the examples arbitrated.",
                names(&mut team.arbiters.iter())
            )
        }
    );
    s.push_str(
        "| Reviewers | Examples | Char F1 (label-aware) | Cohen's κ (label-aware) | \
         Krippendorff's α (label-aware) |\n|---|---:|---:|---:|---:|\n",
    );
    for p in &a.pairs {
        let _ = writeln!(
            s,
            "| {} vs {} | {} | {:.3} | {} | {} |",
            cell(&p.a),
            cell(&p.b),
            p.scores.records,
            p.scores.char_level_labeled.f1,
            score(p.scores.kappa_labeled),
            score(p.alpha.labeled)
        );
    }
    let _ = writeln!(
        s,
        "| team ({}) | {} | {:.3} | {} | {} |",
        a.reviewers.len(),
        a.records,
        a.team.char_level_labeled.f1,
        score(a.team.kappa_labeled),
        score(a.alpha.labeled)
    );
    if let Some(f) = chart {
        image(s, "Agreement per reviewer pair", f);
    }
}

/// Per reviewer: records decided, on the overlap, and their votes when arbitration named them.
fn reviewers_section(s: &mut String, t: &Tally, team: &TeamFigures) {
    if team.decided.is_empty() {
        return;
    }
    s.push_str(
        "\n### Per reviewer\n\n| Reviewer | Examples decided | On the overlap | Clusters upheld \
         | Clusters dismissed |\n|---|---:|---:|---:|---:|\n",
    );
    for (r, n) in &team.decided {
        let votes = t.judges.get(&format!("{REVIEWER_PREFIX}{r}"));
        let _ = writeln!(
            s,
            "| {} | {n} | {} | {} | {} |",
            cell(r),
            team.overlap.get(r).copied().unwrap_or(0),
            votes.map_or(0, |j| j.upheld),
            votes.map_or(0, |j| j.dismissed)
        );
    }
}

/// The card at `path` and its charts beside it, each in its temporary file (renamed into
/// place with the rest of the export's set).
///
/// # Errors
/// A chart would replace an input or the database, or a file cannot be written (a card that
/// is no file path is refused before the export starts, in `protect`).
pub(super) fn files(
    path: &Path,
    h: &Header<'_>,
    t: &Tally,
    team: &TeamFigures,
    protected: &Protected,
) -> anyhow::Result<Vec<AtomicFile>> {
    let c = card(path, h, t, team);
    let mut out = Vec::new();
    for (p, text) in std::iter::once((path.to_path_buf(), c.markdown)).chain(c.charts) {
        protected.check(&p, "--card")?;
        let mut f = AtomicFile::create(&p)?;
        f.writer()?
            .write_all(text.as_bytes())
            .with_context(|| format!("writing {}", p.display()))?;
        out.push(f);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
