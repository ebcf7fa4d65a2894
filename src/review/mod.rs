//! Pure review logic: decisions applied to spans, arbitration, metrics. Imports only `model`.
pub mod decision;
pub mod disagreement;
pub mod locate;
pub mod metrics;
pub mod outcome;
