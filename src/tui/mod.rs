//! The review screen: app state, actions, keymap, theme, terminal guard, views.
//!
//! One flow for input: terminal event → [`keymap::Keymap::resolve`] → [`Action`] →
//! [`app::App::update`] → [`views::draw`] reads the app. Views never write to the database.

pub mod action;
pub mod app;
pub mod clustering;
pub mod code;
pub mod config;
pub mod contradiction;
pub mod edit;
pub mod evidence;
pub mod evidence_eval;
pub mod keymap;
pub mod labels;
pub mod log;
pub mod queue;
pub mod rows;
pub mod stats_model;
pub mod strings;
pub mod team_model;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod views;

pub use action::Action;

/// The largest record the review screen opens, in bytes of its line: showing one takes about
/// 25 times its size (code-point tables, search folds, row starts), so a record of gigabytes is
/// refused with its size instead of exhausting memory.
pub const SHOW_LIMIT: u64 = 32 << 20;
