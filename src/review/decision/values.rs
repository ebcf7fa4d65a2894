//! The values a decision names: the span it is about ([`SpanKey`]), a span's reviewable value
//! ([`SpanValue`]), and what a resolution settles ([`Unit`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::model::Span;
use crate::review::disagreement::Cluster;
use crate::review::labeled::LabelName;

/// Which span a decision is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpanKey {
    /// The i-th span of the record's labels under review, in file order.
    Gold(usize),
    /// A span the reviewer added; the id is unique within the record.
    Added(String),
}

impl fmt::Display for SpanKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Gold(i) => write!(f, "gold:{i}"),
            Self::Added(id) => write!(f, "added:{id}"),
        }
    }
}

impl FromStr for SpanKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some(i) = s.strip_prefix("gold:") {
            i.parse()
                .map(Self::Gold)
                .map_err(|_| format!("bad span key {s:?}"))
        } else if let Some(id) = s.strip_prefix("added:") {
            Ok(Self::Added(id.to_owned()))
        } else {
            Err(format!("bad span key {s:?}: expected gold:N or added:ID"))
        }
    }
}

/// A span's reviewable value: offsets in code points and labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpanValue {
    /// First code point.
    pub start: usize,
    /// One past the last code point.
    pub end: usize,
    /// Label (type or category).
    pub label: String,
    /// Taxonomy category, when the label set has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Taxonomy subcategory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subcategory: Option<String>,
}

impl SpanValue {
    /// A value with no category or subcategory.
    #[must_use]
    pub fn new(start: usize, end: usize, label: impl Into<String>) -> Self {
        Self {
            start,
            end,
            label: label.into(),
            category: None,
            subcategory: None,
        }
    }

    /// `[start, end)` labeled `name` (a label picked for a new span).
    #[must_use]
    pub fn labeled(start: usize, end: usize, name: LabelName) -> Self {
        Self {
            start,
            end,
            label: name.label,
            category: name.category,
            subcategory: name.subcategory,
        }
    }

    /// The reviewable value of a span.
    #[must_use]
    pub fn of(span: &Span) -> Self {
        Self {
            start: span.start,
            end: span.end,
            label: span.label.clone(),
            category: span.category.clone(),
            subcategory: span.subcategory.clone(),
        }
    }

    /// Its label with category and subcategory (shown `label/category/subcategory`).
    #[must_use]
    pub fn label_name(&self) -> LabelName {
        LabelName {
            label: self.label.clone(),
            category: self.category.clone(),
            subcategory: self.subcategory.clone(),
        }
    }
}

/// What an arbitration resolution settles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// The disagreement cluster over code points `[start, end)` of the answer.
    Cluster {
        /// First code point.
        start: usize,
        /// One past the last code point.
        end: usize,
    },
    /// The unplaced judge claim with this index (its verdict's).
    Claim(usize),
}

impl Unit {
    /// The unit of disagreement cluster `c` (its range).
    #[must_use]
    pub fn of_cluster(c: &Cluster) -> Self {
        Self::Cluster {
            start: c.start,
            end: c.end,
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cluster { start, end } => write!(f, "cluster {start}-{end}"),
            Self::Claim(k) => write!(f, "claim {k}"),
        }
    }
}
