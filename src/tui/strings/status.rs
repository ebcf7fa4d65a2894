//! The status line's answers to a key: saved or not, nothing to do, not found, where a move went.

/// Add mode, before the start is set.
pub const ADD_PICK_START: &str = "move to the start of the new span, then mark";

/// Add mode, start set.
pub const ADD_PICK_END: &str = "move to the end, then mark";

/// Shown when the record has no span.
pub const NO_SPANS: &str = "no spans under review";

/// Shown when nothing is selected for a span action.
pub const NO_SPAN_SELECTED: &str = "no span selected";

/// A decision that keeps or changes spans, on a record reclassified clean.
pub const SPANS_OF_CLEAN: &str =
    "the record is reclassified clean, so it keeps no span: undo the reclassification first";

/// A decision that keeps or changes spans, on a removed record.
pub const SPANS_OF_REMOVED: &str =
    "the record is removed, so it keeps no span: undo the removal first";

/// The queue is empty.
pub const QUEUE_EMPTY: &str = "the queue is empty: nothing to review";

/// End of queue.
pub const QUEUE_END: &str = "end of the queue";

/// Start of queue.
pub const QUEUE_START: &str = "start of the queue";

/// The flag taken off (`f` on a flagged record), in the saved message.
pub const UNFLAG: &str = "flag off";

/// Digits typed in a picker that number no row.
#[must_use]
pub fn no_row(typed: &str, rows: usize) -> String {
    format!("no row {typed}: the rows are numbered 1 to {rows}")
}

/// An added span that is already there, with the same label.
pub const ALREADY_THERE: &str =
    "that span is already there with that label (selected): nothing added";

/// The record on screen was changed by another process (a second reviewer on the database).
pub const UPDATED_ELSEWHERE: &str =
    "updated: decisions on this record were saved elsewhere (another review on this database)";

/// Nothing to undo.
pub const NOTHING_TO_UNDO: &str = "nothing to undo";

/// Nothing to redo.
pub const NOTHING_TO_REDO: &str = "nothing to redo";

/// No evidence found.
pub const NO_EVIDENCE: &str = "no occurrence in the context or query";

/// Empty span refused.
pub const EMPTY_SPAN: &str = "a span needs at least one character";

/// Unchanged adjust.
pub const UNCHANGED: &str = "unchanged: nothing saved";

/// Said after a span is added (or kept) on a record typed `clean`: what follows and what the
/// reviewer can do about it.
pub const TYPED_CLEAN_NOW_LABELED: &str = "the record is typed clean, which has no labels: \
its export with this span will be warned about. T changes its type, u undoes the add, \
c reclassifies it clean (drops its spans)";

/// Retype with nothing to choose: no other type is known.
pub const NO_OTHER_TYPE: &str = "no other type seen in the file to change to";

/// Search text not found.
pub const NOT_FOUND: &str = "not found";

/// A decision was committed: "saved #12 (accept)", "saved #13 (undo #12)".
#[must_use]
pub fn saved(id: i64, action: &str, target: Option<i64>) -> String {
    match target {
        Some(t) => format!("saved #{id} ({action} #{t})"),
        None => format!("saved #{id} ({action})"),
    }
}

/// A decision could not be saved.
#[must_use]
pub fn not_saved(error: &str) -> String {
    format!("NOT saved: {error}")
}

/// Search result count.
#[must_use]
pub fn matches(n: usize, text: &str) -> String {
    format!(
        "{n} {} of {text:?}",
        if n == 1 { "match" } else { "matches" }
    )
}

/// `n records`, `1 record`.
#[must_use]
pub fn records(n: usize) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}

/// Evidence occurrence position, counted over the query's and the context's hits, and the
/// pane that holds it.
#[must_use]
pub fn occurrence(i: usize, n: usize, pane: &str) -> String {
    format!("occurrence {i} / {n} · in the {}", pane.to_lowercase())
}

/// Go-to found nothing.
#[must_use]
pub fn no_record(what: &str) -> String {
    format!("no record at position or with id {what:?}")
}

/// Undo/redo target on a record that is not in the file.
#[must_use]
pub fn target_elsewhere(target: i64, record: &str) -> String {
    format!("decision #{target} is about record {record:?}, which is not in this file")
}

/// A record stored as reviewed turned out to have only stale decisions.
#[must_use]
pub fn stale_requeued(id: &str) -> String {
    format!("{id}: reviewed on other content (stale decisions), so it is back in the queue")
}

/// Status line while a count is typed.
#[must_use]
pub fn count_typed(n: usize) -> String {
    format!("{n}: the next move is repeated {n} times")
}

/// Status line after `f`, `F`, `t` or `T` in add mode, until the character is typed.
pub const FIND_CHAR: &str = "type the character to move to (Esc: none)";

/// No such character to move to.
#[must_use]
pub fn no_char(c: char) -> String {
    format!("no “{c}” that way")
}

/// No flagged record in the queue besides the one on screen.
pub const NO_OTHER_FLAGGED: &str = "no other flagged record in the queue";

/// Moved to the next flagged record (`wrapped`: from the queue's start).
#[must_use]
pub fn next_flagged(wrapped: bool) -> String {
    if wrapped {
        "next flagged record (from the queue's start)".to_owned()
    } else {
        "next flagged record".to_owned()
    }
}

/// `saved` with the offer to make its decision on the sibling variants too: `spans` spans of
/// the same text in `records` other variants of the base, and the key that does it.
#[must_use]
pub fn sibling_offer(saved: &str, spans: usize, records: usize, key: &str) -> String {
    let variants = if records == 1 { "variant" } else { "variants" };
    let times = if spans == records {
        String::new()
    } else {
        format!(" ({spans} spans)")
    };
    format!("{saved} · same text in {records} sibling {variants}{times}: {key} applies it there")
}

/// `=` with no decision to carry to the sibling variants.
pub const NO_SIBLING_OFFER: &str =
    "no decision to make on the sibling variants (offered after a span decision whose text they share)";

/// The decisions `=` saved on the sibling variants.
#[must_use]
pub fn siblings_saved(rows: usize, records: usize) -> String {
    let s = if rows == 1 { "" } else { "s" };
    let v = if records == 1 { "variant" } else { "variants" };
    format!("saved {rows} decision{s} on {records} sibling {v}")
}

/// A sibling's decisions not saved (`done` rows on `records` variants were, before it).
#[must_use]
pub fn siblings_not_saved(id: &str, done: usize, records: usize, e: &str) -> String {
    format!(
        "NOT saved on sibling {id}: {e} ({done} decisions on {records} variants before it were)"
    )
}
