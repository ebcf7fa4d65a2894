//! The names of a database's files: the ones SQLite keeps beside it and its `file:` URI.
//! Both the read-only opening (`open_read.rs`) and the file guards (`guard/`) name them.

use std::path::{Path, PathBuf};

use super::StoreError;

/// `PATH` with `suffix` appended (`-wal`, `-shm`, `-journal`): the files SQLite keeps beside
/// a database.
#[must_use]
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// `file://` URI of `path` (absolute; `%`, `?`, `#` and bytes outside printable ASCII escaped).
pub(super) fn file_uri(path: &Path) -> Result<String, StoreError> {
    let abs = std::path::absolute(path).map_err(|source| StoreError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut uri = String::from("file://");
    for &b in abs.as_os_str().as_encoded_bytes() {
        match b {
            b'%' | b'?' | b'#' => uri.push_str(&format!("%{b:02X}")),
            0x21..=0x7e => uri.push(char::from(b)),
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    Ok(uri)
}
