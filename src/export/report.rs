//! The Markdown review report: every number from a [`Tally`], laid out for a dataset card.

use std::fmt::Write;

use crate::review::outcome::Tally;
use crate::review::rubric::{reason_rows, Rubric};

/// What the report says about the export itself.
#[derive(Debug)]
pub struct Header<'a> {
    /// Dataset name in the decision log.
    pub dataset: &'a str,
    /// The input files, as given.
    pub inputs: Vec<String>,
    /// Whether `--strict` was applied.
    pub strict: bool,
    /// Whether `--split-by` was given (unreadable lines are left out instead of passed
    /// through).
    pub split: bool,
    /// Lines whose id (one with decisions) an earlier line has too: the decisions were applied
    /// to each line, and each line is counted.
    pub repeated_lines: usize,
    /// Labels of reviewed records that could not be read, left out of their exported lines.
    pub unreadable_labels: usize,
    /// Places where the input is cut short (a JSON array not closed): the partial record there
    /// is not exported.
    pub cut_short: usize,
    /// The rubric the reason codes are described by (`None`: triage's built-in codes only).
    pub rubric: Option<&'a Rubric>,
    /// The rubber-stamp alarm's time rule (`--min-seconds`).
    pub min_seconds: f64,
}

/// Render the report.
#[must_use]
pub fn markdown(h: &Header<'_>, t: &Tally) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Review report: {}\n", code(h.dataset));
    let _ = writeln!(
        s,
        "Exported by spanreview {} from {}. Every number below is computed from the decision \
         log; labels are span annotations, records are dataset rows.\n",
        env!("CARGO_PKG_VERSION"),
        h.inputs
            .iter()
            .map(|p| code(p))
            .collect::<Vec<_>>()
            .join(", ")
    );
    s.push_str("| | |\n|---|---:|\n");
    for (k, v) in record_rows(t).into_iter().chain(problem_rows(h, t)) {
        let _ = writeln!(s, "| {k} | {v} |");
    }
    if h.repeated_lines > 0 {
        let _ = writeln!(
            s,
            "| Input lines repeating an earlier line's id (its decisions applied to each; every \
             count above counts lines) | {} |",
            h.repeated_lines
        );
    }
    if t.unreviewed_skipped > 0 {
        let _ = writeln!(
            s,
            "| Unreviewed records left out (--reviewed-only) | {} |",
            t.unreviewed_skipped
        );
    }

    second_pass_section(&mut s, h, t, "##");
    removed_section(&mut s, t);
    reasons_section(&mut s, h, t);
    judges_section(&mut s, t);
    by_type_section(&mut s, t);
    if h.strict {
        strict_section(&mut s, t);
    }
    s
}

/// The summary table's rows on records and labels: what review did.
fn record_rows(t: &Tally) -> Vec<(&'static str, String)> {
    vec![
        ("Records in the input", t.records_in.to_string()),
        ("Records exported", t.records_out.to_string()),
        ("Records reviewed", t.reviewed.to_string()),
        (
            "Records reviewed and retained",
            t.reviewed_retained.to_string(),
        ),
        ("Records fully reviewed", t.complete.to_string()),
        ("Records flagged for a second look", t.flagged.to_string()),
        ("Labels in reviewed records", t.labels_before.to_string()),
        ("Labels kept unchanged", t.kept.to_string()),
        ("Boundaries tightened", t.tightened.to_string()),
        ("Boundaries widened", t.widened.to_string()),
        ("Boundaries shifted", t.shifted.to_string()),
        ("Categories corrected", t.relabeled.to_string()),
        ("Labels dropped", t.dropped.to_string()),
        ("Invalid spans dropped", t.invalid_dropped.to_string()),
        ("Spans added", t.added.to_string()),
        (
            "Records reclassified clean",
            t.reclassified_clean.to_string(),
        ),
        ("Records removed", t.removed_total().to_string()),
        (
            "Disputed clusters (and judge claims) resolved",
            t.clusters_resolved.to_string(),
        ),
        ("Disputed spans resolved", t.disputes.to_string()),
        ("Disputed spans upheld", t.disputes_upheld.to_string()),
        ("Disputed spans dropped", t.disputes_dropped.to_string()),
    ]
}

/// The summary table's rows on what was left out, not applied or left open.
fn problem_rows(h: &Header<'_>, t: &Tally) -> Vec<(&'static str, String)> {
    let strict = if h.strict {
        t.strict_dropped.to_string()
    } else {
        "not applied".to_owned()
    };
    vec![
        ("Labels dropped by --strict", strict),
        (
            "Reviewed records left with a hallucination type and no label",
            t.typed_unlabeled.to_string(),
        ),
        (
            "Clean records left with labels — reclassify them in review",
            t.clean_with_labels.to_string(),
        ),
        (
            "Spans exported without a label",
            t.unlabeled_spans.to_string(),
        ),
        (
            if h.split {
                "Unreadable input lines left out of the split files"
            } else {
                "Unreadable input lines passed through unchanged"
            },
            t.unreadable_lines.to_string(),
        ),
        (
            "Labels left out of reviewed records because they could not be read",
            h.unreadable_labels.to_string(),
        ),
        (
            "Records cut short at the end of the input (not exported)",
            h.cut_short.to_string(),
        ),
        (
            "Decisions on unreadable lines (not applied)",
            t.unreadable_decisions.to_string(),
        ),
        ("Stale decisions not applied", t.stale.to_string()),
        (
            "Decisions on records not in the input",
            t.orphans.to_string(),
        ),
    ]
}

/// Agreement with the first pass per reviewer, and the rubber-stamp alarm's warnings, under a
/// heading of level `level` (`##` in the report, `###` in the card).
pub(super) fn second_pass_section(s: &mut String, h: &Header<'_>, t: &Tally, level: &str) {
    let list = t
        .second_pass
        .report(crate::store::unix_seconds, h.min_seconds);
    if list.is_empty() {
        return;
    }
    let _ = write!(s, "\n{level} Second passes\n\n");
    s.push_str(
        "A second pass: a reviewer deciding a record after another \
         reviewer's, a triage source's or a model's decisions (the first pass); blind when the \
         others' decisions were hidden. It agrees when it keeps the same spans with the same \
         labels (or both removed the record). Time per record: from the reviewer's previous \
         record to their last decision on this one, at most 10 minutes.\n\n",
    );
    for f in &list {
        for w in f.warnings(h.min_seconds) {
            let _ = writeln!(s, "> **Warning:** {}\n", cell(&w));
        }
    }
    s.push_str(
        "| Reviewer | Second passes (not blind) | Agreed | Share | Blind | Blind agreed | \
         Median seconds per record |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for f in &list {
        let share = f
            .agreement
            .map_or_else(|| "–".to_owned(), |a| format!("{:.1}%", a * 100.0));
        let median = f
            .median_seconds
            .map_or_else(|| "–".to_owned(), |m| format!("{m:.1}"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {share} | {} | {} | {median} |",
            cell(&f.reviewer),
            f.followed,
            f.agreed,
            f.blind,
            f.blind_agreed
        );
    }
}

/// Records removed, by reason.
fn removed_section(s: &mut String, t: &Tally) {
    s.push_str("\n## Records removed, by reason\n\n");
    if t.removed.is_empty() {
        s.push_str("No record was removed.\n");
    } else {
        s.push_str("| Reason | Records |\n|---|---:|\n");
        for (reason, n) in &t.removed {
            let _ = writeln!(s, "| {} | {n} |", cell(reason));
        }
    }
}

/// Decisions per reason code, by action, with each code's description.
fn reasons_section(s: &mut String, h: &Header<'_>, t: &Tally) {
    s.push_str("\n## Decisions per reason\n\n");
    if t.by_reason.is_empty() {
        s.push_str("No drop, adjust, relabel, add, clean, remove or flag decision is in force.\n");
        return;
    }
    let _ = writeln!(
        s,
        "Decisions in force that take a reason code (drop, adjust, relabel, add, clean, remove, \
         flag), by the code their reason starts with; descriptions from {}.\n\n\
         | Action | Code | Description | Decisions |\n|---|---|---|---:|",
        h.rubric.map_or_else(
            || "triage's built-in codes (no --rubric given)".to_owned(),
            |r| format!("the rubric {}", code(&r.file))
        )
    );
    reason_table_rows(s, h.rubric, &t.by_reason);
}

/// The per-judge upheld rates.
fn judges_section(s: &mut String, t: &Tally) {
    s.push_str("\n## Per-judge upheld rates\n\n");
    if t.judges.is_empty() {
        s.push_str("No disputed span was resolved.\n");
    } else {
        s.push_str(
            "Per disputed cluster (and judge claim): one vote per source per cluster, however \
             many spans its resolution settled into; upheld rate = upheld / (upheld + \
             dismissed). Per span: one per `resolve` decision (a span a resolution settles). \
             Only the resolution in force counts, here and in the disputed spans above: a \
             cluster resolved again supersedes its earlier resolution, which the verdicts keep \
             with `superseded_by`. A source is upheld on a cluster when the resolution keeps a \
             hallucination there overlapping the source's span with the source's label (overlap \
             alone for a source without a hallucination type), whatever the boundaries; \
             dismissed when it keeps nothing there or another label; a source with no span \
             there is upheld only when nothing is kept. A judge's \"label correct\" is upheld \
             when an overlapping span keeps that label, its \"label incorrect\" when none is \
             kept there, its claim when an overlapping span is kept.\n\n\
             | Source | Clusters upheld | Clusters dismissed | Upheld rate (clusters) | \
             Spans upheld | Spans dismissed |\n|---|---:|---:|---:|---:|---:|\n",
        );
        for (name, j) in &t.judges {
            let rate = j
                .rate()
                .map_or_else(|| "–".to_owned(), |r| format!("{r:.3}"));
            let _ = writeln!(
                s,
                "| {} | {} | {} | {rate} | {} | {} |",
                cell(name),
                j.upheld,
                j.dismissed,
                j.upheld_spans,
                j.dismissed_spans
            );
        }
    }
}

/// Labels by type, before and after review.
fn by_type_section(s: &mut String, t: &Tally) {
    s.push_str("\n## By type (reviewed records)\n\n");
    if t.by_type.is_empty() {
        s.push_str("No labels in reviewed records.\n");
    } else {
        s.push_str(
            "Before − dropped − relabeled away − cleared + relabeled to + added = after. \
             Cleared: labels of records reclassified clean or removed. Tightened: both ends \
             inside the old span (or on its ends); widened: both outside; shifted: neither.\n\n\
             | Label | Before | After | Tightened | Widened | Shifted | Relabeled away | \
             Relabeled to | Dropped | Added | Cleared |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for (label, c) in &t.by_type {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                cell(if label.is_empty() { "(none)" } else { label }),
                c.before,
                c.after,
                c.tightened,
                c.widened,
                c.shifted,
                c.relabeled_away,
                c.relabeled_to,
                c.dropped,
                c.added,
                c.cleared
            );
        }
    }
}

/// `--strict`'s dropped labels, by label.
fn strict_section(s: &mut String, t: &Tally) {
    s.push_str("\n## Dropped by --strict, by label\n\n");
    if t.strict_by_type.is_empty() {
        s.push_str("Every exported label had its record's type.\n");
    } else {
        s.push_str("| Label | Dropped |\n|---|---:|\n");
        for (label, n) in &t.strict_by_type {
            let _ = writeln!(s, "| {} | {n} |", cell(label));
        }
    }
}

/// Text safe inside a table cell: control and bidirectional characters escaped as on every
/// other channel (a newline as `\n`, so the row stays one line; ESC, BEL as `\u{1b}`, `\u{7}`),
/// and `|` as `\|`, so a value cannot end its cell.
pub(super) fn cell(s: &str) -> String {
    crate::model::escape::line(s).replace('|', "\\|")
}

/// `s` as inline code: escaped as [`cell`] (no newline, no escape sequence), in a run of
/// backticks longer than any inside it (Markdown's rule), padded when it starts or ends with
/// one.
pub(super) fn code(s: &str) -> String {
    let s = crate::model::escape::line(s);
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{s}{fence}")
    } else {
        format!("{fence} {s} {fence}")
    }
}

/// The report's list of unresolved reviewer conflicts (nothing when there are none).
pub(super) fn conflict_section(
    conflicts: &[crate::formats::judges::reviewers::Conflict],
) -> String {
    use std::fmt::Write as _;
    if conflicts.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\n## Reviewer conflicts not resolved by arbitration\n\n{} record(s) where reviewers' \
         final decisions differ and no arbitration resolved them; each is exported with the \
         later decision in the log.\n\n| Record | Reviewers |\n|---|---|\n",
        conflicts.len()
    );
    for c in conflicts {
        let _ = writeln!(s, "| `{}` | {} |", c.record_id, c.reviewers.join(", "));
    }
    s
}

/// The report's list of open items: reviewed records left with a hallucination type and no
/// span (nothing when there are none).
pub(super) fn open_items_section(open: &[(String, String)]) -> String {
    use std::fmt::Write as _;
    if open.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\n## Open items\n\n{} reviewed record(s) keep a hallucination type but no span (every \
         span dropped): `validate` rejects such a record. Label it, reclassify it clean or \
         remove it in review; `export --require-settled` refuses to write them.\n\n\
         | Record | Type |\n|---|---|\n",
        open.len()
    );
    for (id, ty) in open {
        let _ = writeln!(s, "| `{id}` | {ty} |");
    }
    s
}

/// The rows of the per-reason table (action, code, description, decisions), the codes
/// described by `rubric` (triage's built-in codes without one): the report's and the card's.
pub(super) fn reason_table_rows(
    s: &mut String,
    rubric: Option<&Rubric>,
    by_reason: &crate::review::rubric::ReasonCounts,
) {
    let builtin = Rubric::triage();
    for r in reason_rows(rubric.unwrap_or(&builtin), by_reason) {
        let shown = r
            .code
            .as_deref()
            .map_or_else(|| "–".to_owned(), |c| code(c).replace('|', "\\|"));
        let description = match (&r.code, &r.description) {
            (None, _) => "(no reason code)".to_owned(),
            (Some(_), None) => "(not in the rubric)".to_owned(),
            (Some(_), Some(d)) => cell(d),
        };
        let _ = writeln!(
            s,
            "| {} | {shown} | {description} | {} |",
            r.action, r.decisions
        );
    }
}

#[cfg(test)]
mod tests;
