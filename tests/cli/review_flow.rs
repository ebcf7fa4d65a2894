//! Integration tests: review_flow.
