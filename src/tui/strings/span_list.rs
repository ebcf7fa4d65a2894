//! The span list: each span's state, and the notes and warnings shown under the list.

use super::header::STALE;

/// Span states in the span list.
pub const PENDING: &str = "pending";

/// Span accepted.
pub const ACCEPTED: &str = "accepted";

/// Span dropped.
pub const DROPPED: &str = "dropped";

/// Span state: not exported, the record is reclassified clean.
pub const CLEARED_CLEAN: &str = "cleared: record clean";

/// Span state: not exported, the record is removed.
pub const CLEARED_REMOVED: &str = "cleared: record removed";

/// Span added in review.
pub const ADDED: &str = "added";

/// Span boundaries changed.
pub const ADJUSTED: &str = "adjusted";

/// Span label changed.
pub const RELABELED: &str = "relabeled";

/// The record's notes (`m`), oldest first, under the span list.
#[must_use]
pub fn record_notes(notes: &[String]) -> String {
    format!("✎ {}: {}", notes_word(notes.len()), notes.join(" · "))
}

/// The reasons of the record's flags in force (a triage pass's `CODE: explanation`), each
/// with the span it names, under the span list.
#[must_use]
pub fn flag_reasons(flags: &[(Option<&str>, &str)]) -> String {
    let each: Vec<String> = flags
        .iter()
        .map(|(key, why)| match key {
            Some(k) => format!("{k} {why}"),
            None => (*why).to_owned(),
        })
        .collect();
    format!("⚑ {}", each.join(" · "))
}

/// Where the selected span's text occurs in the context (`lines`: the first few, from 1).
#[must_use]
pub fn in_context(n: usize, lines: &[String]) -> String {
    match n {
        0 => "text not in the context".to_owned(),
        1 => format!("text in the context once (line {})", lines.join(", ")),
        _ => format!(
            "text in the context {n}× (lines {}{})",
            lines.join(", "),
            if n > lines.len() { ", …" } else { "" }
        ),
    }
}

/// An edit answer's old block found verbatim in the context.
#[must_use]
pub fn old_block_verbatim(line: usize) -> String {
    format!("old block verbatim at context line {line}")
}

/// An edit answer's old block not in the context: its first line the context lacks, and the
/// nearest context line with the code point where they differ.
#[must_use]
pub fn old_block_misquoted(line: usize, nearest: Option<(usize, usize)>) -> String {
    match nearest {
        Some((k, at)) => format!(
            "old block NOT in the context: its line {line} ≈ context line {k}, differs at code point {at}"
        ),
        None => format!("old block NOT in the context (its line {line})"),
    }
}

fn notes_word(n: usize) -> &'static str {
    if n == 1 {
        "note"
    } else {
        "notes"
    }
}

/// Stale decisions under the span list.
#[must_use]
pub fn stale_list(n: usize, what: &str) -> String {
    format!("⚠ {n} {STALE} (record changed since): {what}")
}

/// What the reader skipped in the record itself (a span with unusable offsets), under the span
/// list.
#[must_use]
pub fn unreadable_spans(warnings: &[&str]) -> String {
    format!(
        "⚠ not read: {} (not shown; an export of the reviewed record leaves it out)",
        warnings.join("; ")
    )
}

/// Notes about the files joined onto the record (a line whose answer text differs, so its
/// spans were not attached; an id on several lines; an unreadable line), under the span list.
/// Each note names its file and says what was done.
#[must_use]
pub fn joined_notes(notes: &[&str]) -> String {
    format!("⚠ joined files: {}", notes.join("; "))
}

/// The span as read, before its reviewed label and range in the span list.
#[must_use]
pub fn span_was(label: &str, start: usize, end: usize) -> String {
    format!("{label} [{start}, {end}) → ")
}
