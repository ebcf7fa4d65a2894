//! Opening an existing database for a command that reads it (`decisions`, `export`, `stats`,
//! `merge-db`'s inputs), without changing it and without leaving files beside it.
//!
//! [`Store::open_existing`] takes one of two ways:
//!
//! - **In place**, when this user can write the file (and it has a write bit: root must not
//!   write a file its owner made read-only) and SQLite can keep its `-wal` and `-shm` files in
//!   the folder (they are removed when the connection closes), and the schema is this build's:
//!   the same connection as the review screen's, so a command that caches something (`stats`
//!   importing a `--judge` file) saves it.
//! - **A private copy in memory** otherwise: another user's file, a folder this user cannot
//!   write, or an older schema. The file is opened read-only and copied with `VACUUM INTO` into
//!   an in-memory database (the `memdb` VFS), which is then brought up to date and read. Nothing
//!   is written beside the file, and an older database is never migrated by a read: an older
//!   spanreview sharing it keeps working (the review screen migrates it when it opens it).
//!
//! The copy is read consistently:
//!
//! - When `PATH-wal` exists (a process has the database open, or one was killed), the file is
//!   opened with `mode=ro`: SQLite reads the WAL through the shared `-shm` index and its locks,
//!   so the copy is one transaction's view. In a folder this user cannot write this needs the
//!   `-shm` file to be there already; if it is not, the database cannot be read safely and the
//!   error says so.
//! - When there is no `PATH-wal` (and no rollback `PATH-journal`), no process has it open and the
//!   file holds every commit. It is opened with `immutable=1`, which needs no `-shm` and takes
//!   no lock (so it works in a read-only folder) but would read a file being changed wrongly:
//!   SQLite's documentation warns that an immutable file that changes can give wrong results or
//!   `SQLITE_CORRUPT`. Only a checkpoint changes a WAL database's file, so the copy is kept only
//!   when the file's size and modification time are the same after the copy as before it;
//!   otherwise it is made again, and after a few tries the open fails with
//!   [`StoreError::Changing`] instead of returning what may be a torn read.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::files::{file_uri, sibling};
use super::{Store, StoreError, SCHEMA_VERSION};

/// How many times a copy is made again when the file changed while it was copied.
const COPY_TRIES: usize = 5;

/// Names the in-memory copies of this process apart.
static COPIES: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// Open an existing, already checked database file in place when that neither changes it
    /// nor leaves files beside it, else as a private in-memory copy (see the module docs).
    pub(super) fn open_for_reading(path: &Path) -> Result<Self, StoreError> {
        if let Some(store) = Self::open_in_place(path)? {
            return Ok(store);
        }
        Self::open_copy(path)
    }

    /// The in-place way, or `None` when it is not possible without writing beside the file or
    /// migrating it.
    fn open_in_place(path: &Path) -> Result<Option<Self>, StoreError> {
        // Not writable by this user: SQLite would open it read-only and could leave `-wal` and
        // `-shm` files of this user's beside another user's database. Made read-only by its
        // owner (no write bit): root could write it, but must not.
        if super::guard::refuse_read_only_file(path).is_err()
            || std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(path)
                .is_err()
        {
            return Ok(None);
        }
        let conn = match Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        ) {
            Ok(c) => c,
            Err(e) if cannot_write(&e) => return Ok(None),
            Err(source) => {
                return Err(StoreError::Db {
                    path: path.to_owned(),
                    what: "opening".into(),
                    source: source.into(),
                })
            }
        };
        let fail = |what: &str, source: rusqlite::Error| StoreError::Db {
            path: path.to_owned(),
            what: what.to_owned(),
            source: source.into(),
        };
        conn.busy_timeout(super::BUSY_TIMEOUT)
            .map_err(|e| fail("setting the busy timeout", e))?;
        // Reading the header opens the WAL: this fails when the folder cannot hold its files.
        let version = match conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0)) {
            Ok(v) => v,
            Err(e) if cannot_write(&e) => return Ok(None),
            Err(e) => return Err(fail("reading the schema version", e)),
        };
        let store = Self::wrap(conn, Some(path.to_owned()));
        store.refuse_newer(version)?;
        if version < SCHEMA_VERSION {
            return Ok(None);
        }
        match store.setup_in_place() {
            Ok(()) => Ok(Some(store)),
            Err(StoreError::Db {
                source: super::DbError::Sqlite(source),
                ..
            }) if cannot_write(&source) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The private copy in memory, brought up to date.
    pub(super) fn open_copy(path: &Path) -> Result<Self, StoreError> {
        let mut last = None;
        for _ in 0..COPY_TRIES {
            let live = sibling(path, "-wal").exists() || sibling(path, "-journal").exists();
            let before = stamp(path)?;
            let conn = match copy_into_memory(path, live) {
                Ok(c) => c,
                // A writer opening or closing the database makes its -wal and -shm come and go
                // between the look above and the open: look again before giving up.
                Err(e @ StoreError::NoSharedIndex { .. }) => {
                    last = Some(e);
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    continue;
                }
                Err(e) => return Err(e),
            };
            if live || stamp(path)? == before {
                return Self::setup(conn, Some(path.to_owned()));
            }
        }
        Err(last.unwrap_or_else(|| StoreError::Changing {
            path: path.to_owned(),
        }))
    }
}

/// Copy the database at `path` into a new in-memory database, opening it with `mode=ro`
/// (`live`: SQLite's locks and the `-shm` index are used) or `immutable=1`.
fn copy_into_memory(path: &Path, live: bool) -> Result<Connection, StoreError> {
    let fail = |what: &str, source: rusqlite::Error| StoreError::Db {
        path: path.to_owned(),
        what: what.to_owned(),
        source: source.into(),
    };
    let uri = format!(
        "{}?mode=ro{}",
        file_uri(path)?,
        if live { "" } else { "&immutable=1" }
    );
    let src = Connection::open_with_flags(
        &uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| fail("opening (read only)", e))?;
    src.busy_timeout(super::BUSY_TIMEOUT)
        .map_err(|e| fail("setting the busy timeout", e))?;
    let version: i64 = src
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| {
            if live && cannot_write(&e) {
                StoreError::NoSharedIndex {
                    path: path.to_owned(),
                }
            } else {
                fail("reading the schema version (read only)", e)
            }
        })?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_owned(),
            found: version,
            known: SCHEMA_VERSION,
        });
    }
    // A `memdb` database whose name starts with `/` lives while a connection holds it: open it
    // first, empty, then fill it.
    let name = format!(
        "file:/spanreview-copy-{}-{}?vfs=memdb",
        std::process::id(),
        COPIES.fetch_add(1, Ordering::Relaxed)
    );
    let copy = Connection::open_with_flags(
        &name,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| fail("making a copy in memory", e))?;
    src.execute("VACUUM INTO ?1", [&name])
        .map_err(|e| fail("copying it into memory (VACUUM INTO)", e))?;
    Ok(copy)
}

/// SQLite could not open or write the file or the files beside it (permissions, read-only
/// folder or file system): the read-only way may still work.
fn cannot_write(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied)
    )
}

/// What changes when a checkpoint writes the file.
fn stamp(path: &Path) -> Result<(u64, Option<SystemTime>), StoreError> {
    let m = std::fs::metadata(path).map_err(|source| StoreError::Read {
        path: path.to_owned(),
        source,
    })?;
    Ok((m.len(), m.modified().ok()))
}
