//! Integration tests: decisions.
