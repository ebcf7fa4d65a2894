//! Labels of the arbitration screen's resolutions. A resolution's span keeps the label of the
//! side it comes from: the source taken, or the version the edit (`t`) started from; a side
//! without one (a detector's `ensemble`) takes the cluster's (its gold's first, else any
//! source's), never the record's type (`clean` is no span label). With no label to keep, the
//! label picker asks. `r` relabels the spans the cluster's resolution keeps, as a new
//! resolution of the cluster. The notice of a record left typed with no span lives here too.

use super::{App, PickerKind, Status};
use crate::model::Span;
use crate::review::decision::{ActionKind, Unit};
use crate::review::disagreement::settle;
use crate::review::outcome::typed_without_span;
use crate::tui::strings;

impl App {
    /// The first labeled span of `source` in cluster `cluster`, as arbitration compares it.
    fn labeled_span_of(&self, cluster: usize, source: usize) -> Option<Span> {
        let arb = self.arb.as_ref()?;
        let p = arb.d.clusters.get(cluster)?.source(source)?;
        p.spans
            .iter()
            .filter_map(|&i| arb.sources.get(source)?.spans.get(i))
            .find(|s| !s.label.is_empty())
            .cloned()
    }

    /// The cluster's label: its gold's first labeled span, else any source's (as
    /// [`crate::review::disagreement::resolve`] labels a union).
    fn cluster_label_span(&self, cluster: usize) -> Option<Span> {
        let arb = self.arb.as_ref()?;
        let cl = arb.d.clusters.get(cluster)?;
        cl.sources
            .iter()
            .filter(|p| Some(p.source) == arb.d.gold)
            .chain(&cl.sources)
            .find_map(|p| self.labeled_span_of(cluster, p.source))
    }

    /// The labeled span whose label the arbitration edit of the selected cluster keeps when it
    /// started from version `version` (the side it starts from, else the cluster's).
    pub(super) fn edit_label_span(&self, version: usize) -> Option<Span> {
        let arb = self.arb.as_ref()?;
        let side = self
            .versions()
            .get(version)
            .and_then(|&(lane, _)| arb.lanes.get(lane - 1).copied());
        side.and_then(|s| self.labeled_span_of(arb.cluster, s))
            .or_else(|| self.cluster_label_span(arb.cluster))
    }

    /// The label the arbitration edit open now would save (`None` outside the edit, or when
    /// the picker will ask).
    #[must_use]
    pub fn edit_label(&self) -> Option<String> {
        let super::ModeState::Settle { version, .. } = &self.mode else {
            return None;
        };
        self.edit_label_span(*version).map(|s| s.label)
    }

    /// Save `spans` as the resolution of the selected cluster (`how`: its reason); a span
    /// without a label means no side gave one: the label picker asks first.
    pub(super) fn settle_labeled(&mut self, spans: Vec<Span>, how: &str) {
        let Some(cluster) = self.arb.as_ref().map(|a| a.cluster) else {
            return;
        };
        if spans.iter().any(|s| s.label.is_empty()) {
            let bounds = spans.iter().map(|s| (s.start, s.end)).collect();
            self.open_resolution_label(cluster, bounds, how, None);
            self.status = Status::Info(strings::PICK_RESOLUTION_LABEL.to_owned());
            return;
        }
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return;
        };
        let Some(outcome) = settle(&c.record.output, &arb.sources, &arb.d, cluster, spans) else {
            return;
        };
        self.commit_outcome(&outcome, how);
    }

    /// The label picker for a resolution's `spans` of `cluster`, `current` selected (else the
    /// record's type when it is a span label, as the add picker does: a suggestion, chosen
    /// only with Enter).
    fn open_resolution_label(
        &mut self,
        cluster: usize,
        spans: Vec<(usize, usize)>,
        how: &str,
        current: Option<&str>,
    ) {
        let choices = self.label_choices();
        let ty = self
            .cur
            .as_ref()
            .ok()
            .and_then(|c| c.review.current_type(&c.record).map(str::to_owned));
        let sel = current
            .or(ty.as_deref())
            .and_then(|l| choices.iter().position(|ch| ch.label == l))
            .unwrap_or(0);
        let items = choices.iter().map(crate::tui::labels::shown).collect();
        let kind = PickerKind::ResolutionLabel {
            cluster,
            spans,
            how: how.to_owned(),
        };
        self.open_picker(kind, items, sel);
    }

    /// Label choice `i` picked for `spans` of `cluster`: the resolution is saved.
    pub(super) fn resolution_label_picked(
        &mut self,
        cluster: usize,
        spans: &[(usize, usize)],
        how: &str,
        i: usize,
    ) {
        let Some(choice) = self.label_choices().get(i).cloned() else {
            return;
        };
        let Ok(c) = &self.cur else { return };
        let spans: Vec<Span> = spans
            .iter()
            .map(|&(a, b)| {
                let mut s = Span::new(&c.record.output, a, b, &choice.label);
                s.category.clone_from(&choice.category);
                s.subcategory.clone_from(&choice.subcategory);
                s
            })
            .collect();
        if let Some(arb) = self.arb.as_mut() {
            arb.cluster = cluster;
        }
        self.settle_labeled(spans, how);
    }

    /// `r` on the arbitration screen: the label picker for the spans the selected cluster's
    /// resolution in force keeps; the choice is saved as a new resolution of the cluster
    /// (same spans, the new label).
    pub(super) fn open_resolution_relabel(&mut self) {
        let (Ok(c), Some(arb)) = (&self.cur, &self.arb) else {
            return;
        };
        let Some(cl) = arb.d.clusters.get(arb.cluster) else {
            self.status = Status::Info(strings::NO_CLUSTERS.to_owned());
            return;
        };
        let unit = Unit::of_cluster(cl);
        let last = c
            .review
            .applied
            .iter()
            .rev()
            .find(|d| d.action == ActionKind::Resolve && d.unit == Some(unit));
        let Some(group) = last.map(|d| d.group.clone()) else {
            self.status = Status::Info(strings::RELABEL_UNRESOLVED.to_owned());
            return;
        };
        let kept: Vec<(usize, usize, String)> = c
            .review
            .applied
            .iter()
            .filter(|d| d.action == ActionKind::Resolve && d.unit == Some(unit))
            .filter(|d| d.group == group && d.after.is_some())
            .filter_map(|d| c.review.span(&d.key()?))
            .filter(|s| s.kept())
            .map(|s| (s.current.start, s.current.end, s.current.label.clone()))
            .collect();
        let Some(label) = kept.first().map(|k| k.2.clone()) else {
            self.status = Status::Info(strings::RELABEL_NOTHING_KEPT.to_owned());
            return;
        };
        let spans = kept.iter().map(|&(a, b, _)| (a, b)).collect();
        let cluster = arb.cluster;
        self.open_resolution_label(cluster, spans, "relabel", Some(&label));
    }

    /// The hallucination type the record on screen keeps with no span to show for it, once
    /// reviewed ([`typed_without_span`]): the arbitration screen says so.
    #[must_use]
    pub fn typed_without_span(&self) -> Option<String> {
        let c = self.cur.as_ref().ok()?;
        typed_without_span(&c.record, &c.review)
    }
}
