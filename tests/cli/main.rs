//! Integration tests: the `spanreview` binary and the library's flows, one module per area.

mod agreement;
mod arbitrate;
mod cold_open;
mod common;
mod compare;
mod conventions;
mod dbsafe;
mod decisions;
mod export;
mod export_safety;
mod export_schema;
mod formats;
mod hostile;
mod judges;
mod keys;
mod layout;
mod review_flow;
mod review_polish;
mod review_screen;
mod reviewers;
mod stats;
mod store;
mod streams;
mod terminal;
mod validate;
mod verdicts;
