//! Pure review logic: decisions applied to spans, arbitration, metrics. Imports only `model`.
pub mod decision;
pub mod metrics;
pub mod outcome;
