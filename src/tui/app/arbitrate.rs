//! The arbitration screen's flow: the per-record cluster state, lanes and blind letters, and
//! each resolution saved as one or more `resolve` decisions.
//!
//! A resolution of a cluster is saved as the rows
//! [`resolution_decisions`](crate::review::decision::resolution_decisions) builds (one per gold
//! span adjusted or dropped and per span added, all in one group so that `u` undoes them
//! together, each naming the cluster it settles: how the screen knows a cluster is resolved,
//! across restarts). The reason says how, for humans (`take gold`, `drop all`; databases before
//! migration 0004 also named the cluster there); nothing reads meaning from it.

use super::boundary::Edited;
use super::decide::token;
use super::{App, ModeState, Status};
use crate::model::Span;
use crate::review::decision::{
    resolution_decisions, ActionKind, Decision, RecordOutcome, Settling, SpanStatus, Unit,
};
use crate::review::disagreement::{resolve, Outcome, Resolution};
use crate::tui::clustering::{letter, Arb};
use crate::tui::edit::Bounds;
use crate::tui::{strings, Action};

impl App {
    // ----- the arbitration screen -----

    /// Recompute the arbitration state for the record on screen (when the screen is open).
    pub(super) fn load_arb(&mut self) {
        self.arb = None;
        if !self.arbitrating {
            return;
        }
        let Ok(c) = &self.cur else { return };
        let mut arb = Arb::new(&c.record, &self.arb_config);
        arb.cluster = 0;
        self.arb = Some(arb);
        self.select_unresolved(0);
        self.mode = ModeState::Arbitrate;
    }

    pub(super) fn enter_arbitration(&mut self) {
        if self.cur.is_err() {
            return;
        }
        self.set_arbitrating(true);
        self.load_arb();
    }

    /// True when cluster `i` has an applied resolution.
    #[must_use]
    pub fn is_resolved(&self, i: usize) -> bool {
        self.resolution_of(i).is_some()
    }

    /// How cluster `i` was resolved (the reason of its latest resolution, as written for
    /// humans), when it was.
    #[must_use]
    pub fn resolution_of(&self, i: usize) -> Option<String> {
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return None;
        };
        let cl = arb.d.clusters.get(i)?;
        let unit = Unit::of_cluster(cl);
        c.review
            .applied
            .iter()
            .rev()
            .find(|d| d.action == ActionKind::Resolve && d.unit == Some(unit))
            .map(|d| d.reason.clone().unwrap_or_default())
    }

    /// True when unplaced claim `k` was placed or dismissed.
    #[must_use]
    pub fn claim_settled(&self, k: usize) -> bool {
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return false;
        };
        let Some(u) = arb.d.unplaced.get(k) else {
            return false;
        };
        let unit = Unit::Claim(u.verdict);
        c.review
            .applied
            .iter()
            .any(|d| d.action == ActionKind::Resolve && d.unit == Some(unit))
    }

    /// Source names may be shown: not blind, or every disputed cluster and claim of the record
    /// has been settled (the decisions are saved).
    #[must_use]
    pub fn names_visible(&self) -> bool {
        if !self.arb_config.blind {
            return true;
        }
        let Some(arb) = &self.arb else { return false };
        arb.d.disputed().all(|(i, _)| self.is_resolved(i))
            && (0..arb.d.unplaced.len()).all(|k| self.claim_settled(k))
    }

    /// True while `--blind` hides who is who on the record on screen (its clusters and
    /// claims are not all settled yet).
    #[must_use]
    pub fn sources_hidden(&self) -> bool {
        self.arb_config.blind && !self.names_visible()
    }

    /// The label and confidence shown for span `i` of source `source` in the cluster panel.
    /// While blind hides the names, nothing may tell the sources apart: the label is the one
    /// arbitration compares (a detector's own label, `ensemble`, names it, so it reads as
    /// none) and no confidence is shown (the gold has none, the detectors do).
    #[must_use]
    pub fn span_tags(&self, source: usize, i: usize) -> (String, Option<f64>) {
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return (String::new(), None);
        };
        let hidden = self.sources_hidden();
        let from = if hidden {
            &arb.sources
        } else {
            &c.record.sources
        };
        let Some(sp) = from.get(source).and_then(|s| s.spans.get(i)) else {
            return (String::new(), None);
        };
        (sp.label.clone(), sp.confidence.filter(|_| !hidden))
    }

    /// The reviewed result's spans (`[start, end)`) for the result lane. While blind hides
    /// the names, only spans decided on: the pending ones are the gold's, and a lane that
    /// matched them would say which lane is the gold.
    #[must_use]
    pub fn result_spans(&self) -> Vec<(usize, usize)> {
        let Ok(c) = &self.cur else { return Vec::new() };
        if c.review.outcome != RecordOutcome::Open {
            return Vec::new();
        }
        let hidden = self.sources_hidden();
        c.review
            .spans
            .iter()
            .filter(|s| s.kept() && !(hidden && s.status == SpanStatus::Pending))
            .map(|s| (s.current.start, s.current.end))
            .collect()
    }

    /// How lane `lane` (0-based) is labelled: its number, or its letter when blind.
    #[must_use]
    pub fn lane_label(&self, lane: usize) -> String {
        if self.arb_config.blind {
            letter(lane).to_string()
        } else {
            (lane + 1).to_string()
        }
    }

    /// The name shown for source `source`: its name, or its blind letter while hidden (with
    /// the name once revealed).
    #[must_use]
    pub fn source_label(&self, source: usize) -> String {
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return String::new();
        };
        let name = c
            .record
            .sources
            .get(source)
            .map_or("?", |s| s.name.as_str());
        let Some(lane) = arb.lane_of(source) else {
            return name.to_owned();
        };
        match (self.arb_config.blind, self.names_visible()) {
            (false, _) => name.to_owned(),
            (true, false) => letter(lane).to_string(),
            (true, true) => format!("{}={name}", letter(lane)),
        }
    }

    /// A source or judge name as shown: blind hides it behind its letter (a judge: see
    /// [`App::judge_label`]; its verdicts may also be a source of the record, with no lane).
    pub(super) fn shown_name(&self, name: &str) -> String {
        if self.names_visible() {
            return name.to_owned();
        }
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return name.to_owned();
        };
        if arb.d.judges.iter().any(|j| j == name) {
            return self.judge_label(name);
        }
        match c.record.sources.iter().position(|s| s.name == name) {
            Some(i) => self.source_label(i),
            None => "?".to_owned(),
        }
    }

    /// A judge as the screen names it: its name, or while blind `judge N` (its place among
    /// the record's judges, as its lane is `JN`).
    #[must_use]
    pub fn judge_label(&self, judge: &str) -> String {
        if self.names_visible() {
            return judge.to_owned();
        }
        let Some(arb) = &self.arb else {
            return judge.to_owned();
        };
        arb.d
            .judges
            .iter()
            .position(|j| j == judge)
            .map_or_else(|| "?".to_owned(), |k| format!("judge {}", k + 1))
    }

    /// Select the first unresolved disputed cluster from `from` on (wrapping); the current
    /// one stays when there is none.
    fn select_unresolved(&mut self, from: usize) {
        let Some(arb) = &self.arb else { return };
        let n = arb.d.clusters.len();
        let pick = (0..n)
            .map(|k| (from + k) % n)
            .find(|&i| arb.d.clusters[i].is_disputed() && !self.is_resolved(i));
        if let (Some(i), Some(arb)) = (pick, self.arb.as_mut()) {
            arb.cluster = i;
        }
    }

    pub(super) fn arbitrate_action(&mut self, action: Action) {
        self.placing = None;
        if let Some(lane) = action.take_lane() {
            return self.take(lane);
        }
        match action {
            Action::TakeOther => self.open_take_picker(),
            Action::Union => self.resolve_how(Resolution::Union, "union".to_owned()),
            Action::Intersection => {
                self.resolve_how(Resolution::Intersection, "intersection".to_owned());
            }
            Action::Drop => self.resolve_how(Resolution::DropAll, "drop all".to_owned()),
            Action::Adjust => self.open_settle_from_version(),
            Action::Relabel => self.open_resolution_relabel(),
            Action::NextSpan => self.step_cluster(1),
            Action::PrevSpan => self.step_cluster(-1),
            Action::NextClaim => {
                if let Some(arb) = self.arb.as_mut() {
                    let n = arb.d.unplaced.len();
                    if n == 0 {
                        self.status = Status::Info(strings::NO_CLAIMS.to_owned());
                    } else {
                        arb.claim = (arb.claim + 1) % n;
                    }
                }
            }
            Action::PlaceClaim => self.open_place_claim(),
            Action::DismissClaim => self.dismiss_claim(),
            Action::Arbitrate | Action::Cancel => {
                self.set_arbitrating(false);
                self.arb = None;
                self.mode = ModeState::Normal;
            }
            Action::Stats => self.open_stats(),
            // Everything else means what it means on the review screen.
            other => self.normal(other),
        }
    }

    pub(super) fn step_cluster(&mut self, delta: isize) {
        let Some(arb) = self.arb.as_mut() else { return };
        let n = arb.d.clusters.len();
        if n == 0 {
            self.status = Status::Info(strings::NO_CLUSTERS.to_owned());
            return;
        }
        arb.cluster = arb.cluster.saturating_add_signed(delta).min(n - 1);
    }

    /// Select the cluster that holds code point `cp` of the output (a click on the lanes);
    /// `false` (nothing changed) when no cluster does.
    pub(super) fn select_cluster_at(&mut self, cp: usize) -> bool {
        let Some(arb) = self.arb.as_mut() else {
            return false;
        };
        match arb
            .d
            .clusters
            .iter()
            .position(|cl| cl.start <= cp && cp < cl.end)
        {
            Some(i) => {
                arb.cluster = i;
                true
            }
            None => false,
        }
    }

    /// The list of the sources, by lane: `1`…`9` reach only the first nine.
    fn open_take_picker(&mut self) {
        let Some(arb) = &self.arb else { return };
        let items: Vec<String> = arb
            .lanes
            .iter()
            .map(|&source| self.source_label(source))
            .collect();
        if items.is_empty() {
            self.status = Status::Info(strings::NO_SUCH_LANE.to_owned());
            return;
        }
        self.open_picker(super::PickerKind::TakeSource, items, 0);
    }

    pub(super) fn take(&mut self, lane: usize) {
        let Some(arb) = &self.arb else { return };
        let Some(&source) = arb.lanes.get(lane.wrapping_sub(1)) else {
            self.status = Status::Info(strings::NO_SUCH_LANE.to_owned());
            return;
        };
        let name = self
            .cur
            .as_ref()
            .ok()
            .and_then(|c| c.record.sources.get(source))
            .map_or_else(String::new, |s| s.name.clone());
        self.resolve_how(Resolution::Take(source), format!("take {name}"));
    }

    fn resolve_how(&mut self, how: Resolution, what: String) {
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return;
        };
        if arb.d.clusters.is_empty() {
            self.status = Status::Info(strings::NO_CLUSTERS.to_owned());
            return;
        }
        let Some(outcome) = resolve(&c.record.output, &arb.sources, &arb.d, arb.cluster, how)
        else {
            self.status = Status::Info(strings::NO_SUCH_LANE.to_owned());
            return;
        };
        // The taken side's labels, else the cluster's; spans of sources without a
        // hallucination type (the ensemble's `ensemble`) come back unlabeled when no source in
        // the cluster has one: the label picker asks (never the record's type).
        if outcome.spans.iter().any(|s| s.label.is_empty()) {
            self.settle_labeled(outcome.spans, &what);
        } else {
            self.commit_outcome(&outcome, &what);
        }
    }

    /// Save `outcome` for the selected cluster as `resolve` rows (see the module doc); on
    /// success go to the next unresolved disputed cluster. The rows are saved in one
    /// transaction: a resolution is saved whole or not at all.
    pub(super) fn commit_outcome(&mut self, outcome: &Outcome, how: &str) {
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return;
        };
        let ci = arb.cluster;
        let tok = token();
        let settling = Settling {
            cluster: ci,
            outcome,
            reason: how,
            group: &tok,
        };
        let base = self.decision_on(&c.record, ActionKind::Resolve);
        let rows = resolution_decisions(&c.record, &c.review, &arb.d, &settling, &base);
        if rows.is_empty() {
            return;
        }
        let upheld = self.names_list(&outcome.upheld);
        let dismissed = self.names_list(&outcome.dismissed);
        if let Some((first, last)) = self.commit_group(&rows) {
            // Names may be revealed now (blind): say them in the message.
            let upheld = if self.names_visible() {
                self.names_list(&outcome.upheld)
            } else {
                upheld
            };
            let dismissed = if self.names_visible() {
                self.names_list(&outcome.dismissed)
            } else {
                dismissed
            };
            let mut msg = strings::resolved(first, last, &upheld, &dismissed);
            let n = self.arb.as_ref().map_or(0, |a| a.d.clusters.len());
            self.select_unresolved((ci + 1) % n.max(1));
            let all = self
                .arb
                .as_ref()
                .is_some_and(|a| a.d.disputed().all(|(i, _)| self.is_resolved(i)));
            if all {
                msg = format!("{msg} · {}", strings::ALL_RESOLVED);
            }
            if let Some(ty) = self.typed_without_span() {
                msg = format!("{msg} · {}", strings::typed_no_span(&ty));
            }
            self.status = Status::Saved(msg);
        }
    }

    fn names_list(&self, names: &[String]) -> String {
        if names.is_empty() {
            return "none".to_owned();
        }
        names
            .iter()
            .map(|n| self.shown_name(n))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Commit `rows` in one transaction (all or none). Returns the first and last ids.
    pub(super) fn commit_group(&mut self, rows: &[Decision]) -> Option<(i64, i64)> {
        let saved = self.commit_all(rows)?;
        Some((saved.first()?.id, saved.last()?.id))
    }

    // ----- edit (settle) -----

    pub(super) fn open_settle(&mut self) {
        let Some(arb) = &self.arb else { return };
        let Some(cl) = arb.d.clusters.get(arb.cluster) else {
            self.status = Status::Info(strings::NO_CLUSTERS.to_owned());
            return;
        };
        let b = Bounds {
            start: cl.start,
            end: cl.end,
        };
        self.mode = ModeState::Settle {
            cluster: arb.cluster,
            bounds: b,
            before: b,
            version: 0,
        };
    }

    pub(super) fn settle_mode(&mut self, action: Action) {
        // Where the edit started, read before Enter leaves the edit.
        let version = match &self.mode {
            ModeState::Settle { version, .. } => *version,
            _ => 0,
        };
        let Some((Edited::Cluster(cluster), bounds, _)) = self.boundary_key(action) else {
            return;
        };
        let Ok(c) = &self.cur else { return };
        if self.arb.as_ref().map(|a| a.cluster) != Some(cluster) {
            return;
        }
        // The label of the side the edit started from (else the cluster's; else the picker).
        let from = self.edit_label_span(version);
        let mut span = Span::new(&c.record.output, bounds.start, bounds.end, "");
        if let Some(f) = from {
            span.label = f.label;
            span.category = f.category;
            span.subcategory = f.subcategory;
        }
        self.settle_labeled(vec![span], "edit");
    }
}
