//! Integration tests: the `spanreview` binary and the library's flows, one module per area.

mod arbitrate;
mod common;
mod compare;
mod decisions;
mod export;
mod formats;
mod judges;
mod layout;
mod review_flow;
mod reviewers;
mod stats;
mod store;
mod terminal;
mod validate;
