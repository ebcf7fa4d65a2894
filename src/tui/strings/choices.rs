//! What the pickers offer: the reasons for removing a record and the built-in label sets.

/// Reasons offered when removing a record; the last one asks for free text.
pub const REMOVE_REASONS: &[&str] = &[
    "question/answer mismatch",
    "no-op edit",
    "incoherent",
    "other",
];

/// The free-text reason choice.
pub const OTHER: &str = "other";

/// Default label set (the toolace hallucination types).
pub const TOOLACE_LABELS: &[&str] = &["contradiction", "missing_tool", "overgeneration"];

/// The LettuceDetect taxonomy: categories and their subcategories.
pub const LETTUCE_TAXONOMY: &[(&str, &[&str])] = &[
    (
        "contradiction",
        &["numerical", "temporal", "entity", "relational"],
    ),
    (
        "unsupported_addition",
        &["value", "claim", "elaboration", "subjective", "behavior"],
    ),
    (
        "fabricated_reference",
        &["section", "identifier", "attribute"],
    ),
];
