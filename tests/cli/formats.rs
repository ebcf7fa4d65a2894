//! Integration tests: formats.
