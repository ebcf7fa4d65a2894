//! The record model: records, annotation sources and spans with code-point offsets.
//!
//! Imports nothing else of the crate. [`offsets`] is the only place code points and UTF-8
//! bytes are converted.

pub mod escape;
pub mod offsets;
pub mod record;
pub mod span;
pub mod width;

pub use record::{
    answer_hash, gold_index, hex, AnswerMark, Record, Source, SourceRole, CLEAN, GOLD,
};
pub use span::Span;
