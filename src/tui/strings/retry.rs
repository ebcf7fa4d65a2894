//! The status lines of decisions kept for a retry while the database is unreachable.

/// Decisions kept: not saved, retried.
#[must_use]
pub fn not_saved_yet(pending: usize) -> String {
    format!("NOT saved yet: the database is unreachable; retrying ({pending} pending)")
}

/// A new decision refused while others are kept.
#[must_use]
pub fn refused_while_unsaved(pending: usize) -> String {
    format!(
        "{}; this key was NOT saved: decide again once they are saved",
        not_saved_yet(pending)
    )
}

/// Kept decisions saved on a retry.
#[must_use]
pub fn saved_on_retry(ids: &[i64]) -> String {
    let ids: Vec<String> = ids.iter().map(|id| format!("#{id}")).collect();
    format!(
        "saved {} (the database is back; saved on a retry)",
        ids.join(", ")
    )
}

/// Quit pressed with decisions kept.
#[must_use]
pub fn quit_with_unsaved(pending: usize) -> String {
    format!(
        "{pending} decision(s) NOT saved yet (the database is unreachable): press quit again to quit; they will be written to a rescue file for `spanreview apply`"
    )
}

/// Where the kept decisions went at quit, and how to bring them in.
#[must_use]
pub fn unsaved_rescued(pending: usize, file: &str, records: &str, db: &str) -> String {
    format!(
        "{pending} decision(s) were NOT saved (the database was unreachable); they are in {file}: bring them in with `spanreview apply {records} --decisions {file} --db {db}`"
    )
}
