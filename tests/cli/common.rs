//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under the crate's `data/`.
pub fn data(rel: &str) -> PathBuf {
    root().join("data").join(rel)
}

/// A path under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// A path under the workspace's read-only `shared/data/`, or `None` (with a message on stderr)
/// when it is not there, so tests that need it can skip clearly.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = root().join("../shared/data").join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "SKIP: {} is absent (tests reading ../shared/data skip without it)",
            p.display()
        );
        None
    }
}

/// The binary under test.
pub fn bin() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("spanreview").expect("binary built")
}
