//! The stats screen (`S`): its numbers computed from what this session has read and the log.

use super::{App, ModeState};
use crate::formats::judges;
use crate::review::decision::{active_ids, replay, ActionKind, Decision};
use crate::tui::stats_model::StatsView;

/// An auto-accepted record's id and each source's agreement with the result.
pub(super) type AutoAgreements = (
    String,
    Vec<(String, crate::review::metrics::RecordAgreement)>,
);

impl App {
    /// Compute the stats screen's numbers: progress from the stored states (every record),
    /// agreement over the records read this session (re-read one by one: never the whole
    /// file), upheld counts from this reviewer's log.
    pub(super) fn open_stats(&mut self) {
        let mut records = Vec::new();
        for &i in &self.visited {
            let Ok(mut r) = self.arb_config.read(&self.dataset, i) else {
                continue;
            };
            judges::judges_as_spans(&mut r);
            let Ok(ds) = self.log.record_decisions(&self.dataset.name, &r.id) else {
                continue;
            };
            let review = replay(&r, &ds);
            records.push((r, review));
        }
        let log = self
            .log
            .reviewer_log(&self.dataset.name, &self.reviewer)
            .unwrap_or_default();
        let active = active_ids(&log);
        let resolutions: Vec<&Decision> = log
            .iter()
            .filter(|d| d.action == ActionKind::Resolve && active.contains(d.id))
            .collect();
        // Auto-accepted records not read again: their result is their gold spans, compared
        // in the background; skipped once undone (no longer reviewed).
        let auto: Vec<&[(String, crate::review::metrics::RecordAgreement)]> = self
            .auto_agreements
            .iter()
            .filter(|(i, (id, _))| {
                !self.visited_set.contains(i) && self.states.get(id).is_some_and(|s| s.reviewed)
            })
            .map(|(_, (_, a))| a.as_slice())
            .collect();
        let mut stats = StatsView::compute(
            self.dataset.len(),
            &self.states,
            &records,
            &auto,
            &resolutions,
        );
        stats.pairs = self.reviewer_pairs();
        self.stats = Some(stats);
        self.mode = ModeState::Stats;
    }

    /// Each pair of reviewers' label-aware char F1 over the whole log, as `stats` computes it
    /// (none under blind review, where it would tell who is who, or with one reviewer).
    fn reviewer_pairs(&self) -> Vec<(String, f64)> {
        if self.arb_config.blind || self.counts_hidden() {
            return Vec::new();
        }
        let log = self
            .log
            .dataset_decisions(&self.dataset.name)
            .unwrap_or_default();
        let r = judges::reviewers::reviewers(&log, &self.dataset, &self.arb_config.options);
        r.team.map_or_else(Vec::new, |t| {
            t.pairs
                .iter()
                .map(|p| {
                    (
                        format!("{} vs {}", p.a, p.b),
                        p.scores.char_level_labeled.f1,
                    )
                })
                .collect()
        })
    }
}
