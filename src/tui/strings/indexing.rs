//! A file still being indexed in the background: the header, and moves past what is indexed so far.

use super::header::thousands;

/// Header: the file is still being indexed in the background (the queue's size is a lower
/// bound meanwhile).
#[must_use]
pub fn indexing(n: usize) -> String {
    format!("indexing… {} records so far", thousands(n))
}

/// The disputed queue (and auto-accept) cluster every record: they start once it is indexed.
pub const DISPUTED_WAITS_FOR_INDEX: &str =
    "the disputed queue waits for the index: clustering starts once every record is indexed…";

/// A move to a record past the part of the file indexed so far.
#[must_use]
pub fn not_indexed_yet(n: usize) -> String {
    format!("not indexed yet ({}): shown as soon as it is", indexing(n))
}

/// A record id or position not among the records indexed so far.
#[must_use]
pub fn not_found_so_far(what: &str, n: usize) -> String {
    format!(
        "no record at position or with id {what:?} in the {} indexed so far (indexing continues)",
        thousands(n)
    )
}

/// The background indexing stopped (the file changed or could not be read).
#[must_use]
pub fn index_failed(e: &dyn std::fmt::Display) -> String {
    format!("indexing stopped: {e}; only the records indexed before are shown")
}
