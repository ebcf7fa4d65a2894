//! Every user-facing string of the review screen, in one place, so help, hints and messages
//! stay consistent. One file a screen or topic under `strings/`; every string is re-exported
//! here, so callers write `strings::X` whichever file holds it.

mod arbitration;
mod choices;
mod elsewhere;
mod evidence;
mod header;
mod help;
mod help_screen;
mod indexing;
mod retry;
mod span_list;
mod span_problems;
mod speed;
mod stats;
mod status;
pub mod team;
mod titles;

pub use arbitration::*;
pub use choices::*;
pub use elsewhere::*;
pub use evidence::*;
pub use header::*;
pub use help::{describe, describe_in, hint, hint_actions, hint_in, mode_title};
pub use help_screen::*;
pub use indexing::*;
pub use retry::*;
pub use span_list::*;
pub use span_problems::*;
pub use speed::{
    record_search_batch, record_search_found, record_search_none, NOTHING_AFTER_SPAN,
    NO_RECORD_SEARCH,
};
pub use stats::*;
pub use status::*;
pub use titles::*;
