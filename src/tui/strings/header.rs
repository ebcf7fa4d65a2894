//! The header line: the record's state, the queue's progress and the pace.

/// Stale decisions banner.
pub const STALE: &str = "stale";

/// Header: a record typed `clean` that keeps spans (the export warns about it).
#[must_use]
pub fn typed_clean_with_spans(n: usize) -> String {
    format!(
        "typed clean but keeps {n} span{}: the export will warn",
        if n == 1 { "" } else { "s" }
    )
}

/// Record states in the header.
pub const REVIEWED: &str = "reviewed";

/// Record open.
pub const OPEN: &str = "open";

/// Record reclassified clean.
pub const CLEAN: &str = "clean";

/// Record flagged.
pub const FLAGGED: &str = "flagged";

/// A removed record in the header.
#[must_use]
pub fn removed(reason: &str) -> String {
    format!("removed ({reason})")
}

/// Stale decisions in the header.
#[must_use]
pub fn stale_count(n: usize) -> String {
    format!("{n} {STALE}")
}

/// Notes in the header.
#[must_use]
pub fn notes(n: usize) -> String {
    format!("{n} note{}", if n == 1 { "" } else { "s" })
}

/// Progress in the header.
#[must_use]
pub fn progress(done: usize, total: usize) -> String {
    format!("{done}/{total} {REVIEWED}")
}

/// Header: blind review without a plan hides the count of reviewed records (another
/// reviewer's decisions move it).
pub const PROGRESS_HIDDEN: &str = "progress hidden (blind)";

/// Header: background clustering under way.
#[must_use]
pub fn clustering(done: usize, total: usize) -> String {
    format!("clustering {} / {}", thousands(done), thousands(total))
}

/// Header: disputed records found.
#[must_use]
pub fn disputed(n: usize) -> String {
    format!("{} disputed", thousands(n))
}

/// Header: records accepted unseen because every source agreed.
#[must_use]
pub fn auto_accepted(n: usize) -> String {
    format!("auto-accepted {}", thousands(n))
}

/// `12345` → `12,345`.
#[must_use]
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The pace before there is a rate (fewer than three records reviewed this session).
pub const NO_PACE: &str = "— /h · — left";

/// Records per hour and the time the unreviewed rest would take (`12.5/h · 3h 05m left`).
#[must_use]
pub fn pace(per_hour: f64, left_secs: u64) -> String {
    let mins = left_secs.div_ceil(60);
    let left = if mins >= 60 {
        format!("{}h {:02}m", mins / 60, mins % 60)
    } else {
        format!("{mins}m")
    };
    format!("{per_hour:.1}/h · {left} left")
}
