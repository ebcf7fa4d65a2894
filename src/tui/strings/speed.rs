//! Words of the reviewer-speed keys: the search across records (`N`) and where `v` / `V`
//! start.

/// `N` with no search made yet.
pub const NO_RECORD_SEARCH: &str = "no search to look for in other records: search with / first";

/// `N` found the text in another record.
#[must_use]
pub fn record_search_found(text: &str, pos: usize, wrapped: bool) -> String {
    format!(
        "{text:?} in record {}{}",
        pos + 1,
        if wrapped {
            " (from the queue's start)"
        } else {
            ""
        }
    )
}

/// `N` went round the whole queue without finding the text elsewhere.
#[must_use]
pub fn record_search_none(text: &str) -> String {
    format!("no other record in the queue has {text:?}")
}

/// `N` looked through its batch of records without finding the text; `N` again goes on.
#[must_use]
pub fn record_search_batch(text: &str, n: usize, pos: usize) -> String {
    format!(
        "{text:?} not in the next {n} records (up to record {}): N searches on",
        pos + 1
    )
}

/// `V`: the selected span ends the answer, nothing after it to start at.
pub const NOTHING_AFTER_SPAN: &str = "nothing after the selected span";
