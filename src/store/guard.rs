//! Keeping "saved" true of the database file: refusing at open a file the review could not (or
//! must not) write, and noticing when the file is deleted or replaced while a review writes it.
//!
//! - **Another program's SQLite file** (tables, but no spanreview schema version) is refused:
//!   opening it would add spanreview's tables and switch it to WAL mode.
//! - **A read-only file** (no write bit, or SQLite opened it read-only) is refused: root writes a
//!   mode 0444 file anyway, and another user got "NOT saved" on every key.
//! - **Deleted or replaced.** SQLite keeps writing into the files it opened, even once unlinked
//!   or emptied: every commit would say saved into a file nobody can open again. What the path
//!   names is compared with what was opened before each write and after each commit
//!   ([`Store::check_in_place`]): the database file's (device, inode); its header's change
//!   counter and page count (offsets 24 and 28: only a checkpoint changes them, and it moves
//!   neither back, so a counter going down, or the file shrinking under the same counter, is
//!   other content copied over the file, `cp backup.sqlite db.sqlite`); and the
//!   `-wal` and `-shm` beside it (deleted, replaced, or the `-wal` shorter than it was). Another
//!   connection closing last deletes both once every frame is in the file, so such a change
//!   counts only when the file alone (read `immutable`) lacks the last decision this store
//!   saved. The header is read through a descriptor kept open: closing one of the file's
//!   descriptors drops this process's SQLite locks on it (POSIX locks), which let another
//!   process's close delete the `-wal` under the connection. On the first mismatch everything the connection still sees
//!   is copied (`VACUUM INTO`, which reads a deleted `-wal` through the connection's open file)
//!   to a new file beside the old one (or in the temp folder), the copy is checked
//!   (`PRAGMA quick_check`; a copy that fails it, or fails to be made, is replaced by a new
//!   database), and every decision this store committed is then put into it from memory if the
//!   copy lacks it (`rescue.rs`): a truncated `-wal` cannot be read back. Saving stops: every
//!   later write fails with the same [`StoreError::Gone`]. The connection then never
//!   checkpoints at close (it would write the old log over a file copied in), and a `-wal` and
//!   `-shm` of its own left beside a replaced or deleted file are moved aside (renamed
//!   `…-wal.stale-TIME`), so that the next database at the path does not replay them.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rusqlite::{Connection, MAIN_DB};

use super::{file_stamp, rfc3339, Store, StoreError};

mod probe;

use probe::{probe_at_path, seen_at_path};

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

    /// Which file `f` is.
    fn of_open(f: &std::fs::File) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = f.metadata().ok()?;
        Some(Self {
            dev: m.dev(),
            ino: m.ino(),
        })
    }
}

/// A file beside the database (`-wal`, `-shm`) as last seen: which file, and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    id: FileId,
    len: u64,
}

impl Seen {
    fn of(path: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some(Self {
            id: FileId {
                dev: m.dev(),
                ino: m.ino(),
            },
            len: m.len(),
        })
    }
}

/// The database header's file change counter (offset 24) and page count (offset 28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    counter: u32,
    pages: u32,
}

impl Header {
    /// The header of the database file `f`; zeros for a file shorter than 32 bytes (one being
    /// copied over: `cp` empties it first). Read through a descriptor kept open: closing one
    /// of the file's descriptors would drop every lock SQLite holds on it in this process
    /// (POSIX locks), letting another process delete the `-wal` under the connection.
    fn of(f: &std::fs::File) -> Option<Self> {
        use std::os::unix::fs::FileExt;
        let mut head = [0u8; 32];
        let mut got = 0;
        while got < head.len() {
            match f.read_at(&mut head[got..], got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(_) => return None,
            }
        }
        if got < head.len() {
            head = [0; 32];
        }
        let be =
            |at: usize| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        Some(Self {
            counter: be(24),
            pages: be(28),
        })
    }

    /// Could a checkpoint have turned `self` into `now`? In WAL mode the counter never goes
    /// down (it is raised once in a while, not on every commit), and the file only grows under
    /// the same counter (spanreview never vacuums it).
    fn follows(self, now: Self) -> bool {
        now.counter > self.counter || (now.counter == self.counter && now.pages >= self.pages)
    }
}

/// What is found changed at the database's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// The file is gone, or another file has its name.
    Replaced,
    /// Other content was written over the file (same inode).
    Overwritten,
    /// The `-wal` was deleted or replaced.
    WalDeleted,
    /// The `-wal` is shorter than it was.
    WalTruncated,
    /// The `-shm` was deleted or replaced.
    ShmDeleted,
}

impl Change {
    /// What happened, for the message (after "database PATH was deleted or replaced during the
    /// review").
    pub(super) fn describe(self) -> &'static str {
        match self {
            Self::Replaced => "it is not the file being written any more",
            Self::Overwritten => {
                "other content was copied over it: its header's change counter or page count went back"
            }
            Self::WalDeleted => {
                "its -wal file, which holds the decisions not yet folded into the file, was deleted or replaced"
            }
            Self::WalTruncated => {
                "its -wal file, which holds the decisions not yet folded into the file, was truncated"
            }
            Self::ShmDeleted => "its -shm file (the -wal's index) was deleted or replaced",
        }
    }

    /// Whether the database file itself is not the one written (its `-wal` and `-shm` then
    /// belong to nothing at the path).
    fn of_the_file(self) -> bool {
        matches!(self, Self::Replaced | Self::Overwritten)
    }
}

/// The guard's state: the file opened, and what happened once it went away.
#[derive(Debug, Default)]
pub(super) struct Guard {
    /// The file opened (`None`: in memory, or a copy, which nobody else sees anyway).
    file: Option<FileId>,
    /// The `-wal` and `-shm` as last seen (`None`: not there yet).
    wal: Cell<Option<Seen>>,
    shm: Cell<Option<Seen>>,
    /// The database file, open for reading its header (see [`Header::of`]).
    db: Option<std::fs::File>,
    /// The header as last seen.
    header: Cell<Option<Header>>,
    /// Every `-shm` read, kept open for the store's life (see [`probe::ShmFiles`]).
    shm_files: probe::ShmFiles,
    /// Set once the file is found gone: what changed, and where its contents were copied, or
    /// why they could not be.
    gone: RefCell<Option<(Change, Result<PathBuf, String>)>>,
    /// An empty read is checked for damage ([`Store::check_whole`]): set for the commands that
    /// read (`open_existing`).
    pub(super) verify_empty: bool,
    /// Stale files moved aside before the database was made (see `create.rs`): from, to.
    pub(super) set_aside: Vec<(PathBuf, PathBuf)>,
    /// What this store committed, for the rescue (see `rescue.rs`).
    pub(super) journal: RefCell<super::rescue::Journal>,
    /// The origin of the latest decision of this store's seen in the file itself: the log is
    /// append-only, so a file that no longer holds it had other content copied over it (a
    /// backup copied back right after a checkpoint leaves the header as it was).
    in_file: RefCell<Option<String>>,
}

impl Guard {
    /// Guard the file at `path` as it is now.
    pub(super) fn of(path: &Path) -> Self {
        let db = std::fs::File::open(path).ok();
        Self {
            file: FileId::of(path),
            header: Cell::new(db.as_ref().and_then(Header::of)),
            db,
            wal: Cell::new(Seen::of(&super::sibling(path, "-wal"))),
            shm: Cell::new(Seen::of(&super::sibling(path, "-shm"))),
            gone: RefCell::new(None),
            verify_empty: false,
            set_aside: Vec::new(),
            journal: RefCell::new(super::rescue::Journal::on()),
            in_file: RefCell::new(None),
            shm_files: probe::ShmFiles::default(),
        }
    }

    /// What changed at `path` since the last look, if anything; what is seen now is
    /// remembered for the next look.
    fn change(&self, path: &Path, file: FileId, reference: Option<&str>) -> Option<Change> {
        if FileId::of(path) != Some(file) {
            return Some(Change::Replaced);
        }
        let header = self.db.as_ref().and_then(Header::of);
        match (self.header.get(), header) {
            (Some(was), Some(now)) if !was.follows(now) => return Some(Change::Overwritten),
            (_, Some(now)) => self.header.set(Some(now)),
            _ => {}
        }
        for (cell, suffix) in [(&self.wal, "-wal"), (&self.shm, "-shm")] {
            let now = Seen::of(&super::sibling(path, suffix));
            let change = match (cell.get(), now) {
                (Some(was), Some(now)) if was.id == now.id => {
                    (suffix == "-wal" && now.len < was.len).then_some(Change::WalTruncated)
                }
                (Some(_), _) if suffix == "-wal" => Some(Change::WalDeleted),
                (Some(_), _) => Some(Change::ShmDeleted),
                (None, _) => None,
            };
            // Another connection closing last deletes a log whose every frame is in the file
            // (and the next opener makes a new one): nothing is lost when what this store saved
            // last is still seen through the path.
            if change.is_some() && !seen_at_path(path, reference) {
                return change;
            }
            cell.set(Seen::of(&super::sibling(path, suffix)));
        }
        self.still_in_file(path, reference)
    }

    /// [`Change::Overwritten`] when the file no longer holds a decision it was seen holding;
    /// else remember `reference` (the last one saved) once the file holds it. A read that
    /// fails (the file being written meanwhile) says nothing.
    fn still_in_file(&self, path: &Path, reference: Option<&str>) -> Option<Change> {
        let known = self.in_file.borrow().clone();
        let lacks = |o: &str| {
            probe_at_path(path, o) == Some(false) && {
                // A read racing a checkpoint's writes is tried again before it counts.
                std::thread::sleep(std::time::Duration::from_millis(20));
                probe_at_path(path, o) == Some(false)
            }
        };
        if let Some(o) = &known {
            if lacks(o) {
                return Some(Change::Overwritten);
            }
        }
        // Every frame of the log checkpointed into the file (by any process): the file itself
        // holds the last decision saved, unless other content was copied over it since.
        if let Some(r) = reference.filter(|_| self.shm_files.wal_backfilled(path)) {
            if lacks(r) {
                return Some(Change::Overwritten);
            }
        }
        if let Some(r) = reference.filter(|r| known.as_deref() != Some(*r)) {
            if probe_at_path(path, r) == Some(true) {
                self.in_file.replace(Some(r.to_owned()));
            }
        }
        None
    }

    /// Move the `-wal` and `-shm` this store opened aside from `path` (when they are still
    /// there, and still the ones opened): renamed `PATH-wal.stale-STAMP`.
    fn set_aside_own(&self, path: &Path, stamp: &str) {
        for (cell, suffix) in [(&self.wal, "-wal"), (&self.shm, "-shm")] {
            let p = super::sibling(path, suffix);
            if let (Some(was), Some(now)) = (cell.get(), Seen::of(&p)) {
                if was.id == now.id {
                    let to = super::sibling(&p, &format!(".stale-{stamp}"));
                    match std::fs::rename(&p, &to) {
                        Ok(()) => {
                            tracing::warn!(from = %p.display(), to = %to.display(), "moved aside")
                        }
                        Err(e) => {
                            tracing::error!(file = %p.display(), error = %e, "could not be moved aside")
                        }
                    }
                }
            }
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

    /// Check that the database path still names the file this store writes into, with the
    /// content and `-wal` it wrote (see the module docs). The first time it does not, the
    /// database is copied to a rescue file.
    ///
    /// # Errors
    /// [`StoreError::Gone`], naming what changed and the rescue file (or why there is none).
    pub fn check_in_place(&self) -> Result<(), StoreError> {
        let (Some(file), Some(path)) = (self.guard.file, self.path.as_deref()) else {
            return Ok(());
        };
        let found = self.guard.gone.borrow().as_ref().map(|(c, _)| *c);
        let change = match found {
            Some(c) => c,
            None => match self.guard.change(path, file, self.last_origin().as_deref()) {
                None => return Ok(()),
                Some(c) => {
                    self.stop_writing(path, c);
                    c
                }
            },
        };
        // Rescued already: nothing more to do. Not rescued yet, or the copy failed: try now.
        if !matches!(*self.guard.gone.borrow(), Some((_, Ok(_)))) {
            let r = self.rescue(path);
            match &r {
                Ok(p) => {
                    tracing::error!(db = %path.display(), rescue = %p.display(), what = change.describe(), "database deleted or replaced; rescued");
                }
                Err(e) => {
                    tracing::error!(db = %path.display(), error = %e, what = change.describe(), "database deleted or replaced; rescue failed");
                }
            }
            self.guard.gone.replace(Some((change, r)));
        }
        Err(StoreError::Gone {
            path: path.to_owned(),
            what: change.describe(),
            rescue: self.guard.gone.borrow().as_ref().map_or_else(
                || Err("internal: the rescue was not attempted".to_owned()),
                |(_, r)| r.clone(),
            ),
        })
    }

    /// The origin of the last decision this store committed, else of the log's last one.
    fn last_origin(&self) -> Option<String> {
        if let Some(o) = self.guard.journal.borrow().last_origin() {
            return Some(o.to_owned());
        }
        let c = self.conn.sqlite()?;
        c.query_row(
            "SELECT origin FROM decision ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .ok()
    }

    /// Once the file is found changed: never checkpoint into it at close (the log of the old
    /// content would be written over what is there now), and move this connection's `-wal` and
    /// `-shm` aside when the file itself is not the one written.
    fn stop_writing(&self, path: &Path, change: Change) {
        if let Some(c) = self.conn.sqlite() {
            if let Err(e) = c.set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            ) {
                tracing::error!(error = %e, "could not turn the checkpoint at close off");
            }
        }
        if change.of_the_file() {
            self.guard.set_aside_own(path, &file_stamp(self.now()));
        }
    }

    /// Where the database's contents were copied after its file went away, if they were.
    #[must_use]
    pub fn rescued(&self) -> Option<PathBuf> {
        self.guard
            .gone
            .borrow()
            .as_ref()
            .and_then(|(_, r)| r.clone().ok())
    }

    /// The stale `-wal`, `-shm` or `-journal` files moved aside before this database was made
    /// at their path (from, to): the caller says so.
    #[must_use]
    pub fn set_aside(&self) -> &[(PathBuf, PathBuf)] {
        &self.guard.set_aside
    }

    /// Check the whole SQLite file for damage (`PRAGMA quick_check`); PostgreSQL keeps its own.
    ///
    /// # Errors
    /// [`StoreError::Damaged`] naming the first faults found, or the check cannot run.
    pub fn check_whole(&self) -> Result<(), StoreError> {
        let Some(c) = self.conn.sqlite() else {
            return Ok(());
        };
        let found: Vec<String> = c
            .prepare("PRAGMA quick_check(5)")
            .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
            .map_err(|e| self.err("checking it for damage (PRAGMA quick_check)", e))?;
        if found == ["ok"] {
            return Ok(());
        }
        Err(StoreError::Damaged {
            path: self.display_path(),
            found: found.join("; ").replace('\n', "; "),
        })
    }

    /// True once the database file was found deleted or replaced.
    #[must_use]
    pub fn is_gone(&self) -> bool {
        self.guard.gone.borrow().is_some()
    }

    /// Copy everything the connection sees into a new file, and what this store committed
    /// into it if the copy lacks it: beside `path` when its folder is still there and writable,
    /// else in the temp folder.
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
            match super::rescue::copy_and_fill(conn, &target, &self.guard.journal.borrow()) {
                Ok(()) => return Ok(target),
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
