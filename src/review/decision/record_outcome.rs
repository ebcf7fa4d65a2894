//! What happened to a record as a whole (open, clean, removed), with and without its details.

use serde::Serialize;

/// The reason of a removal given none.
pub const OTHER_REASON: &str = "other";

/// A note or reason as a decision keeps it (typed on the screen or given to `apply`):
/// trimmed, and none when blank.
#[must_use]
pub fn kept_text(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

/// What happened to the record as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum RecordOutcome {
    /// Still open, or reviewed span by span.
    Open,
    /// Reclassified clean.
    Clean,
    /// Removed from the dataset.
    Removed {
        /// Why.
        reason: String,
    },
}

impl RecordOutcome {
    /// Which outcome this is, without its details (what a record's stored summary keeps).
    #[must_use]
    pub fn kind(&self) -> OutcomeKind {
        match self {
            Self::Open => OutcomeKind::Open,
            Self::Clean => OutcomeKind::Clean,
            Self::Removed { .. } => OutcomeKind::Removed,
        }
    }
}

/// A [`RecordOutcome`] without its details: the `outcome` column of a record's summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// Still open, or reviewed span by span.
    #[default]
    Open,
    /// Reclassified clean.
    Clean,
    /// Removed from the dataset.
    Removed,
}

impl OutcomeKind {
    /// Every kind, in the order the schema lists them.
    pub const ALL: [Self; 3] = [Self::Open, Self::Clean, Self::Removed];

    /// The name stored in the database and shown to users.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Clean => "clean",
            Self::Removed => "removed",
        }
    }

    /// The kind named `name`, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}
