//! Keeping "saved" true of the database file: refusing at open a file the review could not (or
//! must not) write, and noticing when the file is deleted or replaced while a review writes it.
//!
//! - **Another program's SQLite file** (tables, but no spanreview schema version) is refused:
//!   opening it would add spanreview's tables and switch it to WAL mode.
//! - **A read-only file** (no write bit, or SQLite opened it read-only) is refused: root writes a
//!   mode 0444 file anyway, and another user got "NOT saved" on every key.
//! - **Deleted or replaced.** SQLite keeps writing into the file it opened, even once unlinked:
//!   every commit would say saved into a file nobody can open again. The file's (device, inode)
//!   is recorded at open and compared with what the path names before each write and after each
//!   commit ([`Store::check_in_place`]). On the first mismatch everything the connection still
//!   sees is copied (`VACUUM INTO`) to a new file beside the old one (or in the temp folder), and
//!   saving stops: every later write fails with the same [`StoreError::Gone`].

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rusqlite::{Connection, MAIN_DB};

use super::{file_stamp, rfc3339, Store, StoreError};

/// The time source of a store: stamps decisions, and tells the screen how long ago one was
/// made. Tests inject a fixed or stepping clock ([`Store::set_clock`]).
#[derive(Clone)]
pub struct Clock(pub(super) Arc<dyn Fn() -> SystemTime + Send + Sync>);

impl Default for Clock {
    fn default() -> Self {
        Self(Arc::new(SystemTime::now))
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Clock")
    }
}

/// Which file a path named when the store opened it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    fn of(path: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some(Self {
            dev: m.dev(),
            ino: m.ino(),
        })
    }
}

/// The guard's state: the file opened, and what happened once it went away.
#[derive(Debug, Default)]
pub(super) struct Guard {
    /// The file opened (`None`: in memory, or a copy, which nobody else sees anyway).
    file: Option<FileId>,
    /// Set once the file is found gone: where its contents were copied, or why they could not
    /// be.
    gone: RefCell<Option<Result<PathBuf, String>>>,
}

impl Guard {
    /// Guard the file at `path` as it is now.
    pub(super) fn of(path: &Path) -> Self {
        Self {
            file: FileId::of(path),
            gone: RefCell::new(None),
        }
    }
}

impl Store {
    /// Replace the clock (tests: ages and time stamps without waiting).
    pub fn set_clock(&self, clock: Arc<dyn Fn() -> SystemTime + Send + Sync>) {
        self.clock.replace(Clock(clock));
    }

    /// The store's time: what new decisions are stamped with.
    #[must_use]
    pub fn now(&self) -> SystemTime {
        (self.clock.borrow().0)()
    }

    /// [`Store::now`] as RFC 3339.
    pub(super) fn now_rfc3339(&self) -> String {
        rfc3339(self.now())
    }

    /// Check that the database path still names the file this store writes into (see the
    /// module docs). The first time it does not, the database is copied to a rescue file.
    ///
    /// # Errors
    /// [`StoreError::Gone`], naming the rescue file (or why there is none).
    pub fn check_in_place(&self) -> Result<(), StoreError> {
        let (Some(file), Some(path)) = (self.guard.file, self.path.as_deref()) else {
            return Ok(());
        };
        if self.guard.gone.borrow().is_none() && FileId::of(path) == Some(file) {
            return Ok(());
        }
        // Rescued already: nothing more to do. Not rescued yet, or the copy failed: try now.
        if !matches!(*self.guard.gone.borrow(), Some(Ok(_))) {
            let r = self.rescue(path);
            match &r {
                Ok(p) => {
                    tracing::error!(db = %path.display(), rescue = %p.display(), "database deleted or replaced; rescued")
                }
                Err(e) => {
                    tracing::error!(db = %path.display(), error = %e, "database deleted or replaced; rescue failed")
                }
            }
            self.guard.gone.replace(Some(r));
        }
        Err(StoreError::Gone {
            path: path.to_owned(),
            rescue: self
                .guard
                .gone
                .borrow()
                .clone()
                .unwrap_or_else(|| Err("internal: the rescue was not attempted".to_owned())),
        })
    }

    /// Where the database's contents were copied after its file went away, if they were.
    #[must_use]
    pub fn rescued(&self) -> Option<PathBuf> {
        self.guard.gone.borrow().clone().and_then(Result::ok)
    }

    /// True once the database file was found deleted or replaced.
    #[must_use]
    pub fn is_gone(&self) -> bool {
        self.guard.gone.borrow().is_some()
    }

    /// Copy everything the connection sees into a new file: beside `path` when its folder is
    /// still there and writable, else in the temp folder.
    fn rescue(&self, path: &Path) -> Result<PathBuf, String> {
        let stem = path
            .file_stem()
            .map_or_else(|| "spanreview".into(), |s| s.to_string_lossy().into_owned());
        let name = format!("{stem}.rescued-{}.sqlite", file_stamp(self.now()));
        // A bare name (`--db review.sqlite`) has the empty parent: its folder is the current one.
        let beside = match path.parent() {
            Some(d) if d.as_os_str().is_empty() => Some(PathBuf::from(&name)),
            d => d.filter(|d| d.is_dir()).map(|d| d.join(&name)),
        };
        let mut errors = Vec::new();
        let Some(conn) = self.conn.sqlite() else {
            return Err("internal: only an SQLite file is rescued".to_owned());
        };
        for dir in [beside, Some(std::env::temp_dir().join(&name))]
            .into_iter()
            .flatten()
        {
            let target = free_name(&dir);
            match conn.execute("VACUUM INTO ?1", [target.to_string_lossy()]) {
                Ok(_) => return Ok(target),
                Err(e) => errors.push(format!("{}: {e}", target.display())),
            }
        }
        Err(errors.join("; "))
    }
}

/// `path`, or `path` with `-2`, `-3`, … before the extension when it exists.
fn free_name(path: &Path) -> PathBuf {
    let mut p = path.to_owned();
    let mut n = 1;
    while p.exists() {
        n += 1;
        let stem = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        p = path.with_file_name(format!("{stem}-{n}.sqlite"));
    }
    p
}

/// Refuse a database file nobody may write (no write bit at all), before SQLite opens it:
/// root could write it, but its owner made it read-only on purpose.
pub(super) fn refuse_read_only_file(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::PermissionsExt;
    let Ok(m) = std::fs::metadata(path) else {
        return Ok(());
    };
    let mode = m.permissions().mode();
    if m.is_file() && mode & 0o222 == 0 {
        return Err(StoreError::ReadOnly {
            path: path.to_owned(),
            why: format!("its mode is {:04o}", mode & 0o7777),
        });
    }
    Ok(())
}

/// Refuse a connection SQLite opened read-only (a file this user cannot write).
pub(super) fn refuse_read_only_connection(
    conn: &Connection,
    path: &Path,
) -> Result<(), StoreError> {
    if conn.is_readonly(MAIN_DB).unwrap_or(false) {
        return Err(StoreError::ReadOnly {
            path: path.to_owned(),
            why: "this user cannot write it".to_owned(),
        });
    }
    Ok(())
}

/// `e`, or [`StoreError::FolderReadOnly`] when SQLite could not write the files it keeps
/// beside the database (`-wal`, `-shm`) because the folder is read-only.
pub(super) fn folder_read_only(e: StoreError, path: &Path) -> StoreError {
    match &e {
        StoreError::Db {
            source: super::DbError::Sqlite(rusqlite::Error::SqliteFailure(f, _)),
            ..
        } if f.extended_code == rusqlite::ffi::SQLITE_READONLY_DIRECTORY => {
            StoreError::FolderReadOnly {
                path: path.to_owned(),
            }
        }
        _ => e,
    }
}

/// Refuse another program's SQLite database: schema version 0 and tables in it.
pub(super) fn refuse_foreign(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let names: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )
        .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
        .map_err(|source| StoreError::Db {
            path: path.to_owned(),
            what: "listing its tables".into(),
            source: source.into(),
        })?;
    // Another spanreview may have migrated since the caller read version 0 (processes opening
    // a new file at once): its tables came with their version in one transaction.
    let migrated = || conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0));
    if names.is_empty() || migrated().is_ok_and(|v| v > 0) {
        return Ok(());
    }
    Err(StoreError::Foreign {
        path: path.to_owned(),
        tables: names,
    })
}
