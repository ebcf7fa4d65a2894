//! Integration tests: stats.
