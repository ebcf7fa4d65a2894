//! What the pickers offer: the reasons for removing a record (the built-in label sets are the
//! embedded taxonomies, `formats::validate::labels::Taxonomy`).

/// Reasons offered when removing a record; the last one asks for free text.
pub const REMOVE_REASONS: &[&str] = &[
    "question/answer mismatch",
    "no-op edit",
    "incoherent",
    "other",
];

/// The free-text reason choice.
pub const OTHER: &str = "other";
