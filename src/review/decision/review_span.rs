//! A span as the review has left it: its key, the span as read, its value now and its status.

use serde::Serialize;

use super::{SpanKey, SpanValue};
use crate::model::Span;

/// Where a span stands in review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum SpanStatus {
    /// Not decided yet.
    Pending,
    /// Kept (possibly adjusted or relabeled).
    Accepted,
    /// Dropped.
    Dropped {
        /// Why, when given.
        reason: Option<String>,
    },
}

/// A span as the review has left it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewSpan {
    /// Its key.
    pub key: SpanKey,
    /// The span as read (`None` for added spans).
    pub original: Option<Span>,
    /// Its value now.
    pub current: SpanValue,
    /// Decided or not.
    pub status: SpanStatus,
}

impl ReviewSpan {
    /// Boundaries differ from the original.
    #[must_use]
    pub fn adjusted(&self) -> bool {
        self.original
            .as_ref()
            .is_some_and(|o| o.start != self.current.start || o.end != self.current.end)
    }

    /// Label, category or subcategory differ from the original.
    #[must_use]
    pub fn relabeled(&self) -> bool {
        self.original.as_ref().is_some_and(|o| {
            o.label != self.current.label
                || (self.current.category.is_some() && o.category != self.current.category)
                || (self.current.subcategory.is_some() && o.subcategory != self.current.subcategory)
        })
    }

    /// Added in review.
    #[must_use]
    pub fn added(&self) -> bool {
        self.original.is_none()
    }

    /// Kept in the reviewed result (accepted or still pending).
    #[must_use]
    pub fn kept(&self) -> bool {
        !matches!(self.status, SpanStatus::Dropped { .. })
    }
}
