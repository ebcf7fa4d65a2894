//! What the database file itself holds, read apart from the connection: `immutable` (no
//! `-wal`, no `-shm`, no lock), and the `-shm`'s word on what was checkpointed into it.

use std::path::Path;

use std::cell::RefCell;

use rusqlite::Connection;

use super::FileId;

/// Whether the database file alone (read as `immutable`: no `-wal`, no `-shm`, no lock, nothing
/// written or checkpointed) holds the decision with origin `reference` (none: an empty log,
/// nothing to lose). A connection closing last deletes the `-wal` only once every frame is in
/// the file; one deleted or emptied by hand takes the frames not yet there with it. Tried twice
/// (a checkpoint writing the file meanwhile can fail a read).
pub(super) fn seen_at_path(path: &Path, reference: Option<&str>) -> bool {
    reference.is_none_or(|origin| probe_at_path(path, origin).unwrap_or(false))
}

/// The `-shm` files read, each through a descriptor kept open until the store closes: closing
/// any descriptor of a file drops every POSIX lock this process holds on it, SQLite's `-shm`
/// locks included, and another process then rebuilt the index under the connection (SQLite's
/// "locking protocol" error, or worse).
#[derive(Debug, Default)]
pub(super) struct ShmFiles(RefCell<Vec<(FileId, std::fs::File)>>);

impl ShmFiles {
    /// Whether the `-shm` beside `path` says every frame of the `-wal` is in the file: its
    /// wal-index header (native byte order) initialised, `mxFrame` (offset 16) frames in the
    /// log and `nBackfill` (offset 96) of them checkpointed.
    pub(super) fn wal_backfilled(&self, path: &Path) -> bool {
        use std::os::unix::fs::FileExt;
        let shm = crate::store::sibling(path, "-shm");
        let Some(id) = FileId::of(&shm) else {
            return false;
        };
        let mut files = self.0.borrow_mut();
        if !files.iter().any(|(seen, _)| *seen == id) {
            match std::fs::File::open(&shm) {
                // The file opened may differ from the one stat'ed: named by its own identity.
                Ok(f) => files.push((FileId::of_open(&f).unwrap_or(id), f)),
                Err(_) => return false,
            }
        }
        let Some((_, f)) = files.iter().find(|(seen, _)| *seen == id) else {
            return false;
        };
        let mut head = [0u8; 100];
        if f.read_exact_at(&mut head, 0).is_err() || head[12] != 1 {
            return false;
        }
        let word =
            |at: usize| u32::from_ne_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        let (frames, backfilled) = (word(16), word(96));
        frames > 0 && backfilled == frames
    }
}

/// Whether the file alone holds the decision with `origin`, as [`seen_at_path`] reads it;
/// `None` when it cannot be read (twice).
pub(super) fn probe_at_path(path: &Path, origin: &str) -> Option<bool> {
    let probe = || -> Result<bool, String> {
        let uri = crate::store::files::file_uri(path).map_err(|e| e.to_string())?;
        let c = Connection::open_with_flags(
            format!("{uri}?mode=ro&immutable=1"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                | rusqlite::OpenFlags::SQLITE_OPEN_URI
                | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| e.to_string())?;
        c.query_row(
            "SELECT count(*) FROM decision WHERE origin = ?1",
            [origin],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .map_err(|e| e.to_string())
    };
    for _ in 0..2 {
        match probe() {
            Ok(seen) => return Some(seen),
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
    None
}
