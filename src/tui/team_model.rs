//! Team review on the review screen: what the screen needs from a shared database (the
//! assignment plan, claims, the team's new decisions) and the state it keeps about the team.
//!
//! - **Plan.** With a plan ([`Store::plan`]) the reviewer's records are the `mine` queue;
//!   "reviewed" there is per reviewer (their own decisions replayed), so on an overlap record the
//!   other reviewer's verdict does not take it off this reviewer's queue.
//! - **Claims.** The record on screen is claimed ([`crate::store::claims`]); without a plan the
//!   `unreviewed` queue's moves pass over records someone else is on. A claim failing to save
//!   never stops the review: claims are a courtesy between reviewers, the log is the record.
//! - **Live.** The screen polls the dataset's new decisions (every reviewer's): the stored
//!   states, both progress counts and the `reviewer:NAME` sources of arbitration follow them
//!   without a restart.

use std::collections::{HashMap, HashSet};
use std::time::SystemTime;

use crate::formats::judges::LoadedSource;
use crate::formats::Dataset;
use crate::review::decision::Decision;
use crate::store::claims::{Claim, CLAIM_TTL};
use crate::store::{Assignment, Store};

/// The team side of the decision log. Errors are messages for the status line or the log.
pub trait TeamLog {
    /// The dataset's standing assignment plan, `None` when it has none.
    ///
    /// # Errors
    /// The database cannot be read.
    fn plan(&self, dataset: &str) -> Result<Option<Vec<Assignment>>, String>;
    /// Claim `record_id` for `reviewer` (renewing their own claim), releasing theirs on
    /// `leaving` in the same transaction.
    ///
    /// # Errors
    /// Nothing changed.
    fn claim(
        &self,
        dataset: &str,
        record_id: &str,
        reviewer: &str,
        leaving: Option<&str>,
    ) -> Result<Claim, String>;
    /// Release every claim of `reviewer` on `dataset` (the screen closes).
    ///
    /// # Errors
    /// Nothing changed.
    fn release_claims(&self, dataset: &str, reviewer: &str) -> Result<(), String>;
    /// Live claims of the other reviewers: record id → holder.
    ///
    /// # Errors
    /// The database cannot be read.
    fn claims_of_others(
        &self,
        dataset: &str,
        reviewer: &str,
    ) -> Result<HashMap<String, String>, String>;
    /// The last decision id of the log (where polling starts).
    ///
    /// # Errors
    /// The database cannot be read.
    fn last_decision_id(&self) -> Result<i64, String>;
    /// Decisions on `dataset` after decision id `after`, in log order.
    ///
    /// # Errors
    /// The database cannot be read.
    fn decisions_after(&self, dataset: &str, after: i64) -> Result<Vec<Decision>, String>;
}

impl TeamLog for Store {
    fn plan(&self, dataset: &str) -> Result<Option<Vec<Assignment>>, String> {
        Store::plan(self, dataset).map_err(|e| e.to_string())
    }
    fn claim(
        &self,
        dataset: &str,
        record_id: &str,
        reviewer: &str,
        leaving: Option<&str>,
    ) -> Result<Claim, String> {
        Store::claim(self, dataset, record_id, reviewer, CLAIM_TTL, leaving)
            .map_err(|e| e.to_string())
    }
    fn release_claims(&self, dataset: &str, reviewer: &str) -> Result<(), String> {
        Store::release_claim(self, dataset, None, reviewer).map_err(|e| e.to_string())
    }
    fn claims_of_others(
        &self,
        dataset: &str,
        reviewer: &str,
    ) -> Result<HashMap<String, String>, String> {
        Store::claims_of_others(self, dataset, reviewer).map_err(|e| e.to_string())
    }
    fn last_decision_id(&self) -> Result<i64, String> {
        Store::last_decision_id(self).map_err(|e| e.to_string())
    }
    fn decisions_after(&self, dataset: &str, after: i64) -> Result<Vec<Decision>, String> {
        Store::decisions_after(self, dataset, after).map_err(|e| e.to_string())
    }
}

/// Computes the `reviewer:NAME` sources (and the records where the reviewers agree) from the
/// whole logs of some records; the `review` command supplies it (the same computation as at
/// start), so the screen can refresh them live.
pub type LiveSources = Box<dyn Fn(&[Decision], &Dataset) -> (Vec<LoadedSource>, HashSet<String>)>;

/// The plan as this reviewer's screen sees it.
#[derive(Debug, Clone, Default)]
pub struct PlanView {
    /// Ids of the records the plan gives this reviewer.
    pub mine: HashSet<String>,
    /// Those of them this reviewer has reviewed (their own decisions replayed).
    pub done: HashSet<String>,
    /// Ids of every record of the plan.
    pub records: HashSet<String>,
    /// Those of [`PlanView::mine`] the plan also gives another reviewer (overlap records:
    /// blind review by default, [`crate::tui::app::App::hides_others`]).
    pub shared: HashSet<String>,
    /// Records of the plan stored as reviewed (by anyone).
    pub team_done: usize,
    /// Every reviewer of the plan, sorted.
    pub reviewers: Vec<String>,
}

impl PlanView {
    /// The view of `plan` for `reviewer` (nothing counted done yet).
    #[must_use]
    pub fn new(plan: &[Assignment], reviewer: &str) -> Self {
        let mut reviewers: Vec<String> = plan.iter().flat_map(|a| a.reviewers.clone()).collect();
        reviewers.sort();
        reviewers.dedup();
        Self {
            mine: plan
                .iter()
                .filter(|a| a.reviewers.iter().any(|r| r == reviewer))
                .map(|a| a.record_id.clone())
                .collect(),
            done: HashSet::new(),
            records: plan.iter().map(|a| a.record_id.clone()).collect(),
            shared: plan
                .iter()
                .filter(|a| a.reviewers.len() > 1 && a.reviewers.iter().any(|r| r == reviewer))
                .map(|a| a.record_id.clone())
                .collect(),
            team_done: 0,
            reviewers,
        }
    }
}

/// The screen's team state.
#[derive(Default)]
pub struct Team {
    /// The dataset's plan, when it has one.
    pub plan: Option<PlanView>,
    /// Another reviewer holds the claim on a record this screen showed: its id, and who.
    pub(crate) held: Option<(String, String)>,
    /// The record this screen holds a claim on, and when the claim was last renewed.
    pub(crate) claimed: Option<(String, SystemTime)>,
    /// The last decision id polled.
    pub(crate) seen: i64,
    /// When the team was last polled (by the log's clock).
    pub(crate) polled: Option<SystemTime>,
    /// Dataset indices another reviewer's decision made reviewed this session: `n` in the
    /// `unreviewed` queue passes over them.
    pub(crate) done_elsewhere: HashSet<usize>,
    /// Records the last move passed over (said once the record it reached is shown).
    pub(crate) passed: usize,
    /// Refreshes the reviewer sources of arbitration (`None`: not followed live).
    pub(crate) live: Option<LiveSources>,
    /// The rubber-stamp alarm's warnings about this reviewer at open (shown in the header).
    pub(crate) alarm: Vec<String>,
}

impl std::fmt::Debug for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Team")
            .field("plan", &self.plan.as_ref().map(|p| p.mine.len()))
            .field("held", &self.held)
            .field("seen", &self.seen)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_view_holds_the_reviewers_share_and_the_team() {
        let plan = vec![
            Assignment {
                record_id: "r1".into(),
                reviewers: vec!["ana".into()],
            },
            Assignment {
                record_id: "r2".into(),
                reviewers: vec!["bo".into(), "ana".into()],
            },
            Assignment {
                record_id: "r3".into(),
                reviewers: vec!["bo".into()],
            },
        ];
        let v = PlanView::new(&plan, "ana");
        assert_eq!(v.mine, HashSet::from(["r1".to_owned(), "r2".to_owned()]));
        assert_eq!(v.records.len(), 3);
        assert_eq!(v.reviewers, ["ana", "bo"]);
        assert!(PlanView::new(&plan, "cy").mine.is_empty());
    }
}
