//! spanreview: review span-level hallucination annotations in the terminal.
//!
//! The floors, imports pointing down only:
//! - [`cli`]: one module per subcommand (args + `run`).
//! - [`tui`]: the review screen: app state, actions, keymap, theme, views.
//! - [`judge`]: a model's first pass through an OpenAI-compatible endpoint (beside `tui`).
//! - [`formats`]: one module per input schema, lazy indexed reading, export writers.
//! - [`store`]: SQLite and PostgreSQL: migrations, the append-only decision log, the team tables.
//! - [`review`]: pure review logic: decisions applied to spans, arbitration, metrics.
//! - [`model`]: records, sources, spans; the one place code points meet bytes.

pub mod cli;
pub mod formats;
pub mod judge;
pub mod model;
pub mod review;
pub mod store;
pub mod tui;

#[cfg(test)]
mod test_util;
