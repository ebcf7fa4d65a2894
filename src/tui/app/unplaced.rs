//! Unplaced judge claims on the arbitration screen: placed by hand as in add mode, or dismissed.

use super::{App, ModeState, Status};
use crate::review::decision::{in_resolution, ActionKind, Decision, SpanKey, SpanValue, Unit};
use crate::review::labeled::LabelName;
use crate::tui::strings;

use super::decide::token;

impl App {
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
        in_resolution(&mut d, Unit::Claim(u.verdict), &arb.d, &tok);
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
        d.after = Some(SpanValue::labeled(start, end, choice.clone()));
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
}
