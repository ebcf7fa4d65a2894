//! Strings of team review on the review screen: the `mine` queue, claims, the team's progress
//! and decisions arriving from other reviewers.

use crate::tui::text;

/// The header's progress of a reviewer with a plan: `mine 12/250 · team 140/1000`.
#[must_use]
pub fn progress(mine: usize, mine_total: usize, team: usize, team_total: usize) -> String {
    format!("mine {mine}/{mine_total} · team {team}/{team_total}")
}

/// The header's progress of a reviewer the plan gives no record: `none assigned to you ·
/// team 140/1000`.
#[must_use]
pub fn progress_unassigned(team: usize, team_total: usize) -> String {
    format!("none assigned to you · team {team}/{team_total}")
}

/// The team's progress while blind review hides the others' work: theirs would tell which
/// records they decided (a record they reviewed does not move the count when this reviewer
/// decides it).
pub const TEAM_HIDDEN: &str = "team progress hidden (blind)";

/// Another reviewer holds the claim on the record on screen.
#[must_use]
pub fn on_it(who: &str) -> String {
    format!("{} is on it", text::escape_line(who))
}

/// A move passed over records other reviewers are on.
#[must_use]
pub fn passed_over(n: usize) -> String {
    if n == 1 {
        "passed over 1 record another reviewer is on".to_owned()
    } else {
        format!("passed over {n} records other reviewers are on")
    }
}

/// `--queue mine` on a dataset without a plan.
#[must_use]
pub fn no_plan(dataset: &str) -> String {
    format!(
        "--queue mine: dataset {dataset:?} has no assignment plan in this database; make one \
         with `spanreview assign FILE… --reviewers a,b`, or review another queue (--queue \
         unreviewed)"
    )
}

/// `--queue mine` by a reviewer the plan gives nothing.
#[must_use]
pub fn not_in_plan(reviewer: &str, dataset: &str, reviewers: &[String]) -> String {
    format!(
        "--queue mine: the plan of dataset {dataset:?} gives no records to reviewer {reviewer:?} \
         (its reviewers: {}); check --reviewer",
        reviewers.join(", ")
    )
}

/// The team's new decisions made records disputed between reviewers.
#[must_use]
pub fn new_disputes(n: usize) -> String {
    if n == 1 {
        "1 record newly disputed between reviewers".to_owned()
    } else {
        format!("{n} records newly disputed between reviewers")
    }
}
