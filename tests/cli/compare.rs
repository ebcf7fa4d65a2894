//! Integration tests: compare.
