//! The status lines of decisions kept for a retry while the database is unreachable.

/// Decisions kept: not saved, retried.
#[must_use]
pub fn not_saved_yet(pending: usize) -> String {
    format!("NOT saved yet: the database is unreachable; retrying ({pending} pending)")
}

/// The status line while decisions wait for the write lock another process holds (kept
/// under 100 columns, so that the count shows on a narrow terminal).
#[must_use]
pub fn waiting_for_db(pending: usize) -> String {
    format!(
        "NOT saved yet: waiting for the database: another process is writing (apply?); \
         retrying ({pending} pending)"
    )
}

/// A new decision refused while others are kept (`why`: [`not_saved_yet`] or
/// [`waiting_for_db`]).
#[must_use]
pub fn refused_while_unsaved(why: &str) -> String {
    format!("{why}; this key was NOT saved: decide again once they are saved")
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

/// Kept decisions refused on a retry (not a lost connection): tries end, they are kept for
/// the rescue file.
#[must_use]
pub fn refused_on_retry(error: &str, refused: usize) -> String {
    format!(
        "NOT saved: {error}; {refused} decision(s) the database refused on a retry will be written to a rescue file at quit"
    )
}

/// Quit pressed with decisions not saved.
#[must_use]
pub fn quit_with_unsaved(pending: usize) -> String {
    format!(
        "{pending} decision(s) NOT saved: press quit again to quit; they will be written to a rescue file for `spanreview apply`"
    )
}

/// Where the kept decisions went at quit, and how to bring them in.
#[must_use]
pub fn unsaved_rescued(pending: usize, file: &str, records: &str, db: &str) -> String {
    format!(
        "{pending} decision(s) were NOT saved (the database was unreachable, or refused them on a retry); they are in {file}: bring them in with `spanreview apply {records} --decisions {file} --db {db}`"
    )
}
