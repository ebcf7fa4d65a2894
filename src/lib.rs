//! spanreview: review span-level hallucination annotations in the terminal.
//!
//! The floors, imports pointing down only:
//! - [`cli`]: one module per subcommand (args + `run`).
//! - [`tui`]: the review screen: app state, actions, keymap, theme, views.
//! - [`export`]: the export pipeline (records, verdicts, report and features written as one
//!   atomic set with its manifest) and `convert`; `triage` and `merge-db` use its output set.
//! - [`judge`]: a model's first pass through an OpenAI-compatible endpoint (beside `tui`).
//! - [`formats`]: one module per input schema, lazy indexed reading, export writers.
//! - [`store`]: SQLite and PostgreSQL: migrations, the append-only decision log, the team tables.
//! - [`review`]: pure review logic: decisions applied to spans, arbitration, metrics.
//! - [`model`]: records, sources, spans; the one place code points meet bytes.

pub mod cli;
pub mod export;
pub mod formats;
pub mod judge;
pub mod model;
pub mod review;
pub mod store;
pub mod tui;

#[cfg(test)]
mod test_util;
