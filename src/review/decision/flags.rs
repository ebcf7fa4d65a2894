//! The reasons of a record's flags in force: what a triage pass or a reviewer's `f` said to
//! look at, shown beside the record in `--queue flagged`.

use super::{ActionKind, RecordReview};

impl RecordReview {
    /// Each flag in force, oldest first: the span key it names (if any) and its reason. A flag
    /// taken off clears the flags before it, as it clears [`RecordReview::flagged`].
    #[must_use]
    pub fn flag_reasons(&self) -> Vec<(Option<&str>, &str)> {
        let mut out = Vec::new();
        for d in self.applied.iter().filter(|d| d.action == ActionKind::Flag) {
            if d.flag_on == Some(false) {
                out.clear();
            } else if let Some(r) = d.reason.as_deref().filter(|r| !r.is_empty()) {
                out.push((d.span_key.as_deref(), r));
            }
        }
        out
    }
}
