//! Review decisions as data, and replaying a record's decision log onto its spans.
//!
//! A decision names the span it is about by a [`SpanKey`]: `gold:<i>` for the record's i-th
//! label under review, `added:<uid>` for a span the reviewer added. The log is append-only: undo
//! and redo are decisions too, naming the decision they revert or restore. Replaying the active
//! decisions of a record, in log order, onto its original spans gives its [`RecordReview`].

use serde::{Deserialize, Serialize};

use crate::model::{Record, Span, CLEAN};

mod flags;
mod live;
mod overrides;
mod record_outcome;
mod replay;
mod resolved;
mod review_span;
mod values;

pub use live::LiveReplay;
pub use overrides::overridden;
pub use record_outcome::{kept_text, OutcomeKind, RecordOutcome, OTHER_REASON};
pub use replay::{
    active_ids, redo_target, redo_target_of, replay, replay_seen, undo_target, undo_target_of,
    InForce, BLIND_GROUP,
};
pub use resolved::{in_resolution, resolution_decisions, Settling};
pub use review_span::{ReviewSpan, SpanStatus};
pub use values::{SpanKey, SpanValue, Unit};

/// What a decision does. The snake-case names are the log's vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// The span is right as it is.
    Accept,
    /// Every span still pending is right; the record is reviewed.
    AcceptAll,
    /// The span is not a hallucination (or unusable); `reason` may say why.
    Drop,
    /// New boundaries: `after` holds them.
    Adjust,
    /// New label (and category/subcategory): `after` holds them.
    Relabel,
    /// A span the labels missed: `after` holds it, `span_key` is `added:<uid>`.
    Add,
    /// The record is clean: all its spans dropped, type `clean`.
    Clean,
    /// The record is removed from the dataset; `reason` says why.
    Remove,
    /// Flag for a second look, or take the flag off ([`Decision::flag_on`]).
    Flag,
    /// A note on the record (`note`).
    Note,
    /// Reverts decision `target`.
    Undo,
    /// Restores decision `target` after an undo.
    Redo,
    /// An arbitration resolution of a disputed cluster (`after` is the result, or none when
    /// everything was dropped; `upheld`/`dismissed` name the sources; [`Decision::unit`] what
    /// it settles, [`Decision::group`] the resolution's other rows).
    Resolve,
    /// The record's type changes to [`Decision::record_type`] (a record typed `clean` that
    /// keeps spans after review, say).
    Retype,
}

impl ActionKind {
    /// The log's name for this action.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::AcceptAll => "accept_all",
            Self::Drop => "drop",
            Self::Adjust => "adjust",
            Self::Relabel => "relabel",
            Self::Add => "add",
            Self::Clean => "clean",
            Self::Remove => "remove",
            Self::Flag => "flag",
            Self::Note => "note",
            Self::Undo => "undo",
            Self::Redo => "redo",
            Self::Resolve => "resolve",
            Self::Retype => "retype",
        }
    }

    /// Parse a log name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(s.to_owned())).ok()
    }

    /// Undo and redo act on other decisions, not on the record.
    #[must_use]
    pub fn is_meta(self) -> bool {
        matches!(self, Self::Undo | Self::Redo)
    }

    /// True when a decision of this kind is a verdict on the record (flags, notes, undo and
    /// redo are not).
    #[must_use]
    pub fn is_verdict(self) -> bool {
        !matches!(self, Self::Flag | Self::Note | Self::Undo | Self::Redo)
    }
}

/// One row of the decision log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Log id (0 before it is saved).
    pub id: i64,
    /// Who decided.
    pub reviewer: String,
    /// When, RFC 3339 UTC.
    pub time: String,
    /// Dataset name.
    pub dataset: String,
    /// Record id.
    pub record_id: String,
    /// [`Record::content_hash`] of the record the decision was made on.
    pub record_hash: String,
    /// What was decided.
    pub action: ActionKind,
    /// The span it is about, for span actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_key: Option<String>,
    /// The span before the decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<SpanValue>,
    /// The span after the decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<SpanValue>,
    /// Why (drop, remove, flag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The decision an undo or redo acts on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<i64>,
    /// Sources a resolution upheld.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upheld: Vec<String>,
    /// Sources a resolution dismissed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dismissed: Vec<String>,
    /// The decisions committed together as one (the rows of one resolution) share this id:
    /// undo and redo take them together, and they are one vote per source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// What a resolution settles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// On a resolution: how many units (disputed clusters and unplaced judge claims) the
    /// record had when it was made; `None` on other actions and on resolutions logged before
    /// the store kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_units: Option<usize>,
    /// A flag puts the flag on (`true`) or takes it off; `None` on other actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag_on: Option<bool>,
    /// A retype's new record type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_type: Option<String>,
    /// Made by the review screen on its own (an accept-all of a unanimous record), not by a
    /// reviewer's key.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto: bool,
}

impl Decision {
    /// A decision on `record` with the other fields empty.
    #[must_use]
    pub fn new(record: &Record, dataset: &str, reviewer: &str, action: ActionKind) -> Self {
        Self::about(
            dataset,
            reviewer,
            &record.id,
            &record.content_hash(),
            action,
        )
    }

    /// A decision on the record with this id and content hash, the other fields empty (a flag
    /// puts the flag on).
    #[must_use]
    pub fn about(
        dataset: &str,
        reviewer: &str,
        record_id: &str,
        record_hash: &str,
        action: ActionKind,
    ) -> Self {
        Self {
            id: 0,
            reviewer: reviewer.to_owned(),
            time: String::new(),
            dataset: dataset.to_owned(),
            record_id: record_id.to_owned(),
            record_hash: record_hash.to_owned(),
            action,
            span_key: None,
            before: None,
            after: None,
            reason: None,
            note: None,
            target: None,
            upheld: Vec::new(),
            dismissed: Vec::new(),
            group: None,
            unit: None,
            record_units: None,
            flag_on: (action == ActionKind::Flag).then_some(true),
            record_type: None,
            auto: false,
        }
    }

    /// The span key, parsed.
    #[must_use]
    pub fn key(&self) -> Option<SpanKey> {
        self.span_key.as_deref().and_then(|k| k.parse().ok())
    }
}

/// The drop reason of the spans a resolution leaves out when it reopens a record reclassified
/// clean or removed.
pub const REOPENED_BY_ARBITRATION: &str = "reopened by arbitration";

/// A record's review state: its spans and outcome after replaying its active decisions.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordReview {
    /// Original spans in file order, then added spans in the order they were added.
    pub spans: Vec<ReviewSpan>,
    /// Record-level outcome.
    pub outcome: RecordOutcome,
    /// Flagged for a second look.
    pub flagged: bool,
    /// Notes, oldest first.
    pub notes: Vec<String>,
    /// Decisions made on other content of this record (not applied).
    pub stale: Vec<Decision>,
    /// Active decisions that were applied, in log order.
    pub applied: Vec<Decision>,
    /// An accept-all was applied (the record is confirmed even with no spans).
    pub confirmed: bool,
    /// Who set [`RecordReview::outcome`] to clean or removed (see [`RecordReview::reopens`]).
    pub outcome_by: Option<String>,
    /// The record's type after review, when a `retype` changed it (`None`: as read).
    pub record_type: Option<String>,
}

impl RecordReview {
    /// The unreviewed state of `record`.
    #[must_use]
    pub fn fresh(record: &Record) -> Self {
        Self {
            spans: record
                .gold_spans()
                .iter()
                .enumerate()
                .map(|(i, s)| ReviewSpan {
                    key: SpanKey::Gold(i),
                    original: Some(s.clone()),
                    current: SpanValue::of(s),
                    status: SpanStatus::Pending,
                })
                .collect(),
            outcome: RecordOutcome::Open,
            flagged: false,
            notes: Vec::new(),
            stale: Vec::new(),
            applied: Vec::new(),
            confirmed: false,
            outcome_by: None,
            record_type: None,
        }
    }

    /// True when `d`, applied after the record was reclassified clean or removed, reopens it:
    /// `d` keeps a span (accept, accept-all, adjust, relabel, add, or a resolution with a
    /// result) and either it is an arbitration resolution or another reviewer made it. In a
    /// log merged from several reviewers the later decision in log order stands (one
    /// reviewer's clean no longer silently outweighs another's later accept), and a resolution
    /// that keeps a span settles the record. One reviewer's own span decisions after their
    /// clean or remove leave it as it is (the review screen refuses them; undo comes first).
    fn reopens(&self, d: &Decision) -> bool {
        if self.outcome == RecordOutcome::Open {
            return false;
        }
        let keeps = match d.action {
            ActionKind::Accept
            | ActionKind::AcceptAll
            | ActionKind::Adjust
            | ActionKind::Relabel
            | ActionKind::Add => true,
            ActionKind::Resolve => d.after.is_some(),
            _ => false,
        };
        keeps
            && (d.action == ActionKind::Resolve
                || self.outcome_by.as_deref() != Some(d.reviewer.as_str()))
    }

    /// True when the record needs no more decisions: it was reclassified or removed, accepted
    /// as a whole, or no span is left pending and something settled it (a span decided, or an
    /// arbitration resolution: a cluster resolved either way is settled, also one resolved to
    /// no span on a record that keeps none). With a resolution in force, every unit must be
    /// settled too: the resolutions in force name at least as many distinct units (clusters,
    /// claims) as the latest one says the record had ([`Decision::record_units`]). A resolution
    /// logged without that count (before the store kept it) leaves the older rule: a record
    /// without spans then counts as reviewed from its first resolution on.
    #[must_use]
    pub fn is_reviewed(&self) -> bool {
        match self.outcome {
            RecordOutcome::Clean | RecordOutcome::Removed { .. } => true,
            RecordOutcome::Open => {
                let resolved = || self.applied.iter().any(|d| d.action == ActionKind::Resolve);
                self.confirmed
                    || (self.spans.iter().all(|s| s.status != SpanStatus::Pending)
                        && (!self.spans.is_empty() || resolved())
                        && self.units_settled())
            }
        }
    }

    /// True when a verdict on the record is in force ([`ActionKind::is_verdict`]): the reviewer
    /// has said something about it, not only flagged or annotated it. Reviewed or not, the
    /// record counts as one with decisions (export, stats, team opinions).
    #[must_use]
    pub fn has_verdict(&self) -> bool {
        self.applied.iter().any(|d| d.action.is_verdict())
    }

    /// Every unit the latest resolution in force counted has a resolution in force (true
    /// without a resolution, or when the latest one carries no count).
    fn units_settled(&self) -> bool {
        let resolutions = || {
            self.applied
                .iter()
                .filter(|d| d.action == ActionKind::Resolve)
        };
        let Some(want) = resolutions().next_back().and_then(|d| d.record_units) else {
            return true;
        };
        let mut named: Vec<Unit> = resolutions().filter_map(|d| d.unit).collect();
        named.sort_unstable();
        named.dedup();
        named.len() >= want
    }

    /// The span with this key.
    #[must_use]
    pub fn span(&self, key: &SpanKey) -> Option<&ReviewSpan> {
        self.spans.iter().find(|s| &s.key == key)
    }

    fn span_mut(&mut self, key: &SpanKey) -> Option<&mut ReviewSpan> {
        self.spans.iter_mut().find(|s| &s.key == key)
    }

    /// The record's type now: what a `retype` gave it, else `record`'s as read (a
    /// reclassification as clean aside: [`crate::review::outcome::type_after`]).
    #[must_use]
    pub fn current_type<'a>(&'a self, record: &'a Record) -> Option<&'a str> {
        self.record_type
            .as_deref()
            .or(record.corruption_type.as_deref())
    }

    /// Spans the reviewed result keeps, as model spans over `output` (text recomputed in code
    /// points; the original object kept for pass-through of extra keys). Empty for clean and
    /// removed records.
    #[must_use]
    pub fn kept_spans(&self, output: &str) -> Vec<Span> {
        if self.outcome != RecordOutcome::Open {
            return Vec::new();
        }
        // One code-point table for every span's text: slicing the answer from its start for
        // each span took spans × answer length (28 s in a debug build for 5,000 spans over a
        // 150,000-code-point answer).
        let map = crate::model::offsets::CharMap::new(output);
        self.spans
            .iter()
            .filter(|s| s.kept())
            .map(|s| {
                let (start, end) = (s.current.start, s.current.end);
                let mut span = Span::new("", start, end, &*s.current.label);
                span.text = map.slice(output, start, end).unwrap_or_default().to_owned();
                span.category.clone_from(&s.current.category);
                span.subcategory.clone_from(&s.current.subcategory);
                if let Some(o) = &s.original {
                    span.confidence = o.confidence;
                    span.raw = o.raw.clone();
                    if span.category.is_none() {
                        span.category.clone_from(&o.category);
                    }
                    if span.subcategory.is_none() {
                        span.subcategory.clone_from(&o.subcategory);
                    }
                }
                span
            })
            .collect()
    }

    fn apply(&mut self, d: &Decision) {
        if self.reopens(d) {
            self.outcome = RecordOutcome::Open;
            self.outcome_by = None;
            if d.action == ActionKind::Resolve {
                // Arbitration saw the record keeping no span (its gold lane empty), so its
                // results are the record's spans: the others stay out.
                for s in &mut self.spans {
                    s.status = SpanStatus::Dropped {
                        reason: Some(REOPENED_BY_ARBITRATION.to_owned()),
                    };
                }
            }
        }
        let key = d.key();
        match d.action {
            ActionKind::Accept => {
                if let Some(s) = key.and_then(|k| self.span_mut(&k)) {
                    s.status = SpanStatus::Accepted;
                }
            }
            ActionKind::AcceptAll => {
                for s in &mut self.spans {
                    if s.status == SpanStatus::Pending {
                        s.status = SpanStatus::Accepted;
                    }
                }
                self.confirmed = true;
            }
            ActionKind::Drop => {
                if let Some(s) = key.and_then(|k| self.span_mut(&k)) {
                    s.status = SpanStatus::Dropped {
                        reason: d.reason.clone(),
                    };
                }
            }
            ActionKind::Adjust | ActionKind::Relabel => {
                if let (Some(s), Some(after)) = (key.and_then(|k| self.span_mut(&k)), &d.after) {
                    s.current = after.clone();
                    s.status = SpanStatus::Accepted;
                }
            }
            ActionKind::Add => {
                if let (Some(k), Some(after)) = (key, &d.after) {
                    if self.span(&k).is_none() {
                        self.spans.push(ReviewSpan {
                            key: k,
                            original: None,
                            current: after.clone(),
                            status: SpanStatus::Accepted,
                        });
                    }
                }
            }
            ActionKind::Resolve => self.apply_resolution(d, key),
            ActionKind::Clean => {
                self.outcome = RecordOutcome::Clean;
                self.outcome_by = Some(d.reviewer.clone());
            }
            ActionKind::Remove => {
                self.outcome = RecordOutcome::Removed {
                    reason: d.reason.clone().unwrap_or_else(|| OTHER_REASON.to_owned()),
                };
                self.outcome_by = Some(d.reviewer.clone());
            }
            ActionKind::Flag => self.flagged = d.flag_on != Some(false),
            ActionKind::Retype => {
                if let Some(t) = &d.record_type {
                    self.record_type = Some(t.clone());
                }
            }
            ActionKind::Note => {
                if let Some(n) = &d.note {
                    self.notes.push(n.clone());
                }
            }
            ActionKind::Undo | ActionKind::Redo => {}
        }
    }

    /// A resolution's result as kept: one labeled with a record's type (`clean`, which older
    /// arbitration screens stamped on an edit) takes the label of the span it settles, else of
    /// a kept span it overlaps; with neither it stays as logged, and export refuses it.
    fn labeled_result(&self, k: &SpanKey, after: &SpanValue) -> SpanValue {
        if after.label != CLEAN {
            return after.clone();
        }
        let settled = self.span(k).filter(|s| s.current.label != CLEAN);
        let over = || {
            self.spans.iter().find(|s| {
                s.kept()
                    && s.current.label != CLEAN
                    && s.current.start < after.end
                    && after.start < s.current.end
            })
        };
        match settled.or_else(over) {
            Some(s) => SpanValue {
                label: s.current.label.clone(),
                category: s.current.category.clone(),
                subcategory: s.current.subcategory.clone(),
                ..after.clone()
            },
            None => after.clone(),
        }
    }

    /// A resolution names the gold span it settles (if any) and the result (if kept): an
    /// existing span is adjusted to the result or dropped; with no gold span, the result is
    /// added under the decision's key.
    fn apply_resolution(&mut self, d: &Decision, key: Option<SpanKey>) {
        let Some(k) = key else { return };
        let after = d.after.as_ref().map(|a| self.labeled_result(&k, a));
        match (self.span(&k).is_some(), &after) {
            (true, Some(after)) => {
                if let Some(s) = self.span_mut(&k) {
                    s.current = after.clone();
                    s.status = SpanStatus::Accepted;
                }
            }
            (true, None) => {
                if let Some(s) = self.span_mut(&k) {
                    s.status = SpanStatus::Dropped {
                        reason: d.reason.clone(),
                    };
                }
            }
            (false, Some(after)) => self.spans.push(ReviewSpan {
                key: k,
                original: None,
                current: after.clone(),
                status: SpanStatus::Accepted,
            }),
            (false, None) => {}
        }
    }
}

#[cfg(test)]
mod tests;
