//! Unplaced judge claims (placed by hand as in add mode, or dismissed) and the stats screen.

use super::decide::RESOLUTION;
use super::{App, ModeState, Status};
use crate::formats::judges;
use crate::review::decision::{active_ids, replay, ActionKind, Decision, SpanKey, SpanValue, Unit};
use crate::review::labeled::LabelName;
use crate::tui::stats_model::StatsView;
use crate::tui::strings;

use super::arbitrate::token;

impl App {
    // ----- unplaced claims -----

    fn selected_claim(&mut self) -> Option<usize> {
        let arb = self.arb.as_ref()?;
        if arb.d.unplaced.is_empty() {
            self.status = Status::Info(strings::NO_CLAIMS.to_owned());
            return None;
        }
        Some(arb.claim.min(arb.d.unplaced.len() - 1))
    }

    /// A `resolve` row on unplaced claim `k` of the shown record, in a resolution group of its
    /// own, and the claim's judge; `None` when there is no such claim.
    fn claim_resolution(&self, k: usize) -> Option<(Decision, String)> {
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return None;
        };
        let u = arb.d.unplaced.get(k)?;
        let tok = token();
        let mut d = self.decision_on(&c.record, ActionKind::Resolve);
        d.note = Some(format!("{RESOLUTION}{tok}"));
        d.unit = Some(Unit::Claim(u.verdict));
        d.record_units = Some(arb.d.units());
        d.group = Some(tok);
        Some((d, u.judge.clone()))
    }

    pub(super) fn open_place_claim(&mut self) {
        let Some(k) = self.selected_claim() else {
            return;
        };
        self.open_add();
        if matches!(self.mode, ModeState::Add { .. }) {
            self.placing = Some(k);
            self.status = Status::Info(strings::PLACE_CLAIM.to_owned());
        }
    }

    /// The reviewer marked where unplaced claim `k` is: a `resolve` row adding the span and
    /// upholding the judge.
    pub(super) fn place_claim_at(
        &mut self,
        k: usize,
        start: usize,
        end: usize,
        choice: &LabelName,
    ) {
        let Some((mut d, judge)) = self.claim_resolution(k) else {
            return;
        };
        let tok = d.group.clone().unwrap_or_default();
        d.span_key = Some(SpanKey::Added(format!("{tok}-0")).to_string());
        d.after = Some(SpanValue {
            start,
            end,
            label: choice.label.clone(),
            category: choice.category.clone(),
            subcategory: choice.subcategory.clone(),
        });
        d.upheld = vec![judge.clone()];
        d.reason = Some("placed".to_owned());
        self.mode = ModeState::Arbitrate;
        if let Some((a, b)) = self.commit_group(&[d]) {
            self.status = Status::Saved(strings::resolved(a, b, &self.shown_name(&judge), "none"));
        }
    }

    pub(super) fn dismiss_claim(&mut self) {
        let Some(k) = self.selected_claim() else {
            return;
        };
        let Some((mut d, judge)) = self.claim_resolution(k) else {
            return;
        };
        d.dismissed = vec![judge.clone()];
        d.reason = Some("dismissed".to_owned());
        if let Some((a, b)) = self.commit_group(&[d]) {
            self.status = Status::Saved(strings::resolved(a, b, "none", &self.shown_name(&judge)));
        }
    }

    // ----- stats -----

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
            .filter(|d| {
                d.action == ActionKind::Resolve && active.get(&d.id).copied().unwrap_or(false)
            })
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
        self.stats = Some(StatsView::compute(
            self.dataset.len(),
            &self.states,
            &records,
            &auto,
            &resolutions,
        ));
        self.mode = ModeState::Stats;
    }
}
