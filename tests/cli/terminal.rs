//! Integration tests: terminal.
