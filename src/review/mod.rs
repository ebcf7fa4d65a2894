//! Pure review logic: decisions applied to spans, arbitration, metrics. Imports only `model`.
pub mod alpha;
pub mod assign;
pub mod check;
pub mod contested;
pub mod decision;
pub mod disagreement;
pub mod evidence;
pub mod labeled;
pub mod locate;
pub mod metrics;
pub mod outcome;
pub(crate) mod ranges;
pub mod rubric;
pub mod second_pass;
pub mod splitmix;
pub mod team;
pub mod triage;
