//! The one rule for keeping a span ([`range_problem`]: `0 <= start < end <= len(output)` in
//! code points), applied alike by `a` (accept one), `r` (relabel: it keeps the span) and `A`
//! (accept the rest): a reversed, empty or out-of-range span is never accepted; the reviewer
//! fixes it with `t` or drops it with `x`.

use super::{App, Status};
use crate::model::span::{range_problem, RangeProblem};
use crate::review::check::blocks_accept_all;
use crate::review::decision::{ActionKind, Decision, RecordOutcome, SpanStatus, SpanValue};
use crate::tui::strings;

impl App {
    /// True when span value `v` of the record on screen may be kept; otherwise the status
    /// line says why and how to fix it.
    pub(super) fn keepable(&mut self, v: &SpanValue) -> bool {
        let Ok(c) = &self.cur else { return true };
        match range_problem(v.start, v.end, &c.record.output) {
            None => true,
            Some(p) => {
                self.status = Status::Info(strings::cannot_keep(v.start, v.end, p));
                false
            }
        }
    }

    /// True when the selected span may be kept (see [`App::keepable`]); true with no
    /// selection (the caller says so).
    pub(super) fn selected_keepable(&mut self) -> bool {
        let v = self
            .cur
            .as_ref()
            .ok()
            .and_then(|c| c.selected_span().map(|i| c.review.spans[i].current.clone()));
        v.is_none_or(|v| self.keepable(&v))
    }

    /// The pending spans of the record on screen that break the rule, in text order: their
    /// position in the span list, offsets and problem.
    fn unkeepable_pending(&self) -> Vec<(usize, usize, usize, RangeProblem)> {
        let Ok(c) = &self.cur else { return Vec::new() };
        // The rule `apply` checks too.
        c.order
            .iter()
            .enumerate()
            .filter_map(|(p, &i)| {
                let v = &c.review.spans[i].current;
                blocks_accept_all(&c.review, i, &c.record.output).map(|e| (p, v.start, v.end, e))
            })
            .collect()
    }

    /// `A` on a record with pending spans that break the rule: the others are accepted one
    /// by one (one transaction), those are skipped and stay pending, the first of them is
    /// selected and the status line says how to fix them; the record stays on screen (it is
    /// not reviewed yet). Returns false, doing nothing, when every pending span may be kept
    /// (the ordinary accept-all applies).
    pub(super) fn accept_all_but_unkeepable(&mut self) -> bool {
        let bad = self.unkeepable_pending();
        let Some(&(first, ..)) = bad.first() else {
            return false;
        };
        let Ok(c) = &self.cur else { return false };
        let bad_at: Vec<usize> = bad.iter().map(|b| b.0).collect();
        let rows: Vec<Decision> = c
            .order
            .iter()
            .enumerate()
            .filter(|(p, &i)| {
                !bad_at.contains(p) && c.review.spans[i].status == SpanStatus::Pending
            })
            .map(|(_, &i)| {
                let s = &c.review.spans[i];
                let mut d = self.decision_on(&c.record, ActionKind::Accept);
                d.span_key = Some(s.key.to_string());
                d.before = Some(s.current.clone());
                d
            })
            .collect();
        let skipped: Vec<(usize, usize, RangeProblem)> =
            bad.iter().map(|&(_, s, e, p)| (s, e, p)).collect();
        let saved = if rows.is_empty() {
            None
        } else {
            match self.commit_all(&rows) {
                Some(saved) => Some(saved),
                None => return true,
            }
        };
        if let Ok(c) = &mut self.cur {
            c.selected = first.min(c.order.len().saturating_sub(1));
        }
        self.scroll.output = None;
        self.refresh_hits();
        let ids = saved
            .as_ref()
            .and_then(|s| Some((s.first()?.id, s.last()?.id)));
        self.status = match ids {
            Some((a, b)) => Status::Saved(strings::accepted_but_skipped(a, b, &skipped)),
            None => Status::Info(strings::none_accepted_skipped(&skipped)),
        };
        true
    }
}

impl App {
    /// Spans the record on screen keeps although its type is `clean` (a clean record has no
    /// labels; the export warns about such a record): 0 when it is not typed clean, or was
    /// reclassified or removed.
    #[must_use]
    pub fn kept_on_typed_clean(&self) -> usize {
        let Ok(c) = &self.cur else { return 0 };
        if c.review.current_type(&c.record) != Some(crate::model::CLEAN)
            || c.review.outcome != RecordOutcome::Open
        {
            return 0;
        }
        c.review.spans.iter().filter(|s| s.kept()).count()
    }

    /// After a decision that keeps a span: on a record typed clean, the status line says
    /// what follows (the export's warning) and what can be done.
    pub(super) fn say_if_typed_clean(&mut self) {
        if self.kept_on_typed_clean() == 0 {
            return;
        }
        if let Status::Saved(m) = &self.status {
            self.status = Status::Saved(format!("{m} · {}", strings::TYPED_CLEAN_NOW_LABELED));
        }
    }
}
