//! One line of a decisions file as read, and what a line without an `origin` says (its
//! derived origin is made from that).

use serde::{Deserialize, Serialize};

use crate::review::decision::{ActionKind, SpanValue, Unit};

/// One line of a decisions file: a [`Decision`](crate::review::decision::Decision) as `decisions --json` prints it (with its
/// `origin`), every field but `record_id` and `action` optional.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    pub(super) id: Option<i64>,
    pub(super) reviewer: Option<String>,
    pub(super) time: Option<String>,
    pub(super) dataset: Option<String>,
    pub(super) record_id: String,
    pub(super) record_hash: Option<String>,
    pub(super) action: ActionKind,
    pub(super) span_key: Option<String>,
    pub(super) before: Option<SpanValue>,
    pub(super) after: Option<SpanValue>,
    pub(super) reason: Option<String>,
    pub(super) note: Option<String>,
    pub(super) target: Option<i64>,
    #[serde(default)]
    pub(super) upheld: Vec<String>,
    #[serde(default)]
    pub(super) dismissed: Vec<String>,
    pub(super) group: Option<String>,
    pub(super) unit: Option<Unit>,
    pub(super) record_units: Option<usize>,
    pub(super) flag_on: Option<bool>,
    pub(super) record_type: Option<String>,
    #[serde(default)]
    pub(super) auto: bool,
    pub(super) origin: Option<String>,
}

/// What a line without an `origin` says, as its derived origin is made from
/// ([`derived_origin`]): every value of the line but its `id` (a handle for the file's undo
/// targets, not part of the decision), the dataset and reviewer as completed from the flags,
/// and the record's hash (the line's, else the record's in FILE). `before` is the line's own:
/// completed from the span now, it would differ once the line was applied.
#[derive(Serialize)]
pub(super) struct Canonical<'a> {
    pub(super) v: u8,
    pub(super) dataset: &'a str,
    pub(super) reviewer: &'a str,
    pub(super) record_id: &'a str,
    pub(super) record_hash: Option<&'a str>,
    pub(super) action: ActionKind,
    pub(super) span_key: &'a Option<String>,
    pub(super) before: &'a Option<SpanValue>,
    pub(super) after: &'a Option<SpanValue>,
    pub(super) reason: &'a Option<String>,
    pub(super) note: &'a Option<String>,
    pub(super) target: Option<i64>,
    pub(super) upheld: &'a [String],
    pub(super) dismissed: &'a [String],
    pub(super) group: &'a Option<String>,
    pub(super) unit: Option<Unit>,
    pub(super) record_units: Option<usize>,
    pub(super) flag_on: Option<bool>,
    pub(super) record_type: &'a Option<String>,
    pub(super) auto: bool,
    pub(super) time: &'a Option<String>,
}
