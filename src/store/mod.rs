//! Storage: numbered migrations, the append-only decision log, per-record summaries, on SQLite
//! (a file, the default) or PostgreSQL (`--db postgresql://USER@HOST:PORT/DB`, a team's server).
//!
//! One [`Store`] wraps one connection. Every query is written once and runs on either engine
//! through a small executor (`engine.rs`; PostgreSQL's side in `pg/`), so the guarantees below
//! hold on both:
//!
//! - **Saved means saved.** [`Store::append`] writes one decision (and the record's new summary)
//!   in one write transaction and commits it before returning. SQLite runs in WAL mode with
//!   `synchronous = FULL`: every commit is fsynced to the WAL before `append` returns, so neither
//!   a `kill -9` nor a power cut loses a decision the screen showed as saved. (`NORMAL` would
//!   survive a killed process but could lose the last commits on power loss; a decision is one
//!   small row, so the extra fsync costs nothing a reviewer can notice.) PostgreSQL's `COMMIT`
//!   returns once the server flushed it; a connection lost before then saves nothing, and the
//!   error says so ([`StoreError::is_connection_lost`]).
//! - **Append-only.** Triggers refuse `UPDATE` and `DELETE` on the `decision` table (and on the
//!   assignment plan); an undo is a new row naming its target.
//! - **Several processes.** Writers take the one write lock up front and hold it for one short
//!   transaction: SQLite's `BEGIN IMMEDIATE`, with a busy timeout of 30 s so that a second process
//!   waits instead of failing, also behind a flood of other writers (`apply` batches); on PostgreSQL a per-database advisory lock. Readers never block
//!   writers (SQLite's WAL; PostgreSQL's MVCC).
//! - **Migrations** are the numbered files in `migrations/` (PostgreSQL: their twins in
//!   `migrations/pg/`, same numbers), applied in order and tracked by `PRAGMA user_version`
//!   (PostgreSQL: the `schema_version` table). They are append-only: never edit a released one,
//!   add the next. A database whose version is newer than this build knows is refused,
//!   untouched. Only [`Store::open`] (the review screen) migrates; commands that read
//!   ([`Store::open_existing`]) read an older SQLite database through an up-to-date copy in
//!   memory and leave the file as it is (an older PostgreSQL database is refused instead).
//! - **A path or a URL.** Every opening function takes the `--db` value as a path: one that
//!   starts with `postgresql://` or `postgres://` names a PostgreSQL database ([`is_url`]), and
//!   its password (or `PGPASSWORD`) is never shown: messages name it through [`redact`].

mod append;
mod apply;
pub mod claims;
mod clock;
mod create;
mod engine;
mod error;
mod files;
mod guard;
mod merge;
mod open_pg;
mod open_read;
mod pg;
mod plan;
mod query;
mod rescue;
mod row;
mod sources;
mod sql;
mod state_row;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

use engine::{Conn, DbError, Tx};
pub use files::sibling;
pub use open_pg::{no_decisions, shown};
use open_pg::{url_of, Access};

pub use apply::{derived_origin, Batch, BATCH_BUSY_TIMEOUT, ORIGINS_PER_QUERY, PROVISIONAL};
pub use clock::{file_stamp, new_origin, now, parse_rfc3339, rfc3339, unix_seconds};
pub use error::StoreError;
pub use guard::Clock;
pub use merge::MergeReport;
pub use pg::{has_password, is_url, pass_file_warning, redact};
pub use plan::Assignment;
pub use sources::{span_json, span_of_json, SourceId, SourceRow};

use crate::review::decision::{Decision, OutcomeKind};

/// The migrations, in order; migration `i` (0-based) brings the schema to version `i + 1`.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_sources.sql"),
    include_str!("migrations/0003_source_answers.sql"),
    include_str!("migrations/0004_decision_meaning.sql"),
    include_str!("migrations/0005_record_units.sql"),
    include_str!("migrations/0006_team.sql"),
];

/// The schema version this build writes (the number of migrations).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How long a writer waits for other processes' transactions before giving up. SQLite's
/// waiter polls and is served in no order, so it may wait for every writer queued meanwhile:
/// 20 `apply` batches at once kept a review screen waiting past 5 s (bench/team_load.sh).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The environment variable that overrides the default database path (or URL).
pub const DB_ENV: &str = "SPANREVIEW_DB";

/// A record's review summary, derived from its decisions and stored beside the log so that
/// queues and progress bars need not replay every record.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecordState {
    /// No more decisions are needed.
    pub reviewed: bool,
    /// Flagged for a second look.
    pub flagged: bool,
    /// Open, clean or removed.
    pub outcome: OutcomeKind,
    /// Some of its decisions were made on other content.
    pub stale: bool,
}

#[cfg(test)]
impl RecordState {
    /// An open record's state, its decisions all on its current content, with these marks.
    pub(crate) fn marked(reviewed: bool, flagged: bool) -> Self {
        Self {
            reviewed,
            flagged,
            ..Self::default()
        }
    }
}

/// The decision database.
#[derive(Debug)]
pub struct Store {
    conn: Conn,
    /// The file, or the URL with its password removed (`None`: in memory).
    path: Option<PathBuf>,
    /// The file opened, and whether it went away (see `guard.rs`).
    guard: guard::Guard,
    /// Stamps decisions (replaceable in tests).
    clock: std::cell::RefCell<Clock>,
}

impl Store {
    /// Open (creating the file and its folder if needed) the database at `path`, in WAL mode
    /// with a busy timeout ([`BUSY_TIMEOUT`]) and foreign keys on, and bring its schema up to date.
    ///
    /// # Errors
    /// `path` is a folder ([`StoreError::IsFolder`]), the folder cannot be created, the file is
    /// not a database, is read-only ([`StoreError::ReadOnly`]) or another program's SQLite
    /// database ([`StoreError::Foreign`]), or its schema is newer than this build knows
    /// ([`StoreError::TooNew`]).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(url) = url_of(path) {
            return Self::open_pg(url, Access::Migrate { adopt: false });
        }
        open_pg::refuse_lookalike(path)?;
        Self::open_file(path, false)
    }

    /// [`Store::open`], adding spanreview's tables to another program's SQLite database too
    /// (`review --db-init`: the reviewer asked for it; the file is switched to WAL mode).
    ///
    /// # Errors
    /// As [`Store::open`], except [`StoreError::Foreign`].
    pub fn open_init(path: &Path) -> Result<Self, StoreError> {
        if let Some(url) = url_of(path) {
            return Self::open_pg(url, Access::Migrate { adopt: true });
        }
        open_pg::refuse_lookalike(path)?;
        Self::open_file(path, true)
    }

    fn open_file(path: &Path, adopt: bool) -> Result<Self, StoreError> {
        if path.is_dir() {
            return Err(StoreError::IsFolder {
                path: path.to_owned(),
            });
        }
        guard::refuse_read_only_file(path)?;
        let made = create::make_folder(path)?;
        // A new database is made whole under a temporary name first: a setup that fails (a
        // full disk) leaves no half-made file for the next run to refuse or take for empty.
        let mut set_aside = Vec::new();
        if std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            set_aside = create::set_aside_stale(path);
            create::create(path, || {}).inspect_err(|_| create::remove_folders(&made))?;
        }
        let conn = Connection::open(path).map_err(|source| StoreError::Db {
            path: path.to_owned(),
            what: "opening".into(),
            source: source.into(),
        })?;
        guard::refuse_read_only_connection(&conn, path)?;
        let mut store = Self::setup_with(conn, Some(path.to_owned()), adopt)
            .map_err(|e| guard::folder_read_only(e, path))?;
        store.guard = guard::Guard::of(path);
        store.guard.set_aside = set_aside;
        Ok(store)
    }

    /// Open an existing database for a command that reads it; unlike [`Store::open`], it never
    /// creates one, never migrates one, and leaves no file beside it. The file is checked before
    /// SQLite sees it (SQLite takes an empty file for a new database and would write one into
    /// it). It is opened in place when this user can write it and its folder, and its schema is
    /// this build's; otherwise (another user's file, a read-only folder, an older schema) it is
    /// read into a private in-memory copy, brought up to date there: anything written to such a
    /// store is lost when it is dropped. See `open_read.rs` for how the copy stays consistent
    /// with a process writing the database.
    ///
    /// # Errors
    /// [`StoreError::Missing`] when there is no file at `path`, [`StoreError::IsFolder`] for a
    /// folder, [`StoreError::Empty`] for an
    /// empty file, [`StoreError::NotADatabase`] for a file without the SQLite header,
    /// [`StoreError::Read`] for a file this user cannot read, [`StoreError::Changing`] or
    /// [`StoreError::NoSharedIndex`] when it cannot be read consistently; otherwise as
    /// [`Store::open`].
    pub fn open_existing(path: &Path) -> Result<Self, StoreError> {
        if let Some(url) = url_of(path) {
            return Self::open_pg(url, Access::Read);
        }
        open_pg::refuse_lookalike(path)?;
        check_existing(path)?;
        let mut store = Self::open_for_reading(path)?;
        store.guard.verify_empty = true;
        Ok(store)
    }

    /// Open an existing database as a private in-memory copy, never in place: for reading
    /// another reviewer's database (`--judge NAME=their.sqlite`) without touching it, its WAL
    /// or its folder, wherever it is (see `open_read.rs`). Anything written to the store is
    /// lost when it is dropped.
    ///
    /// # Errors
    /// As [`Store::open_existing`].
    pub fn open_snapshot(path: &Path) -> Result<Self, StoreError> {
        if let Some(url) = url_of(path) {
            return Self::open_pg(url, Access::Read);
        }
        open_pg::refuse_lookalike(path)?;
        check_existing(path)?;
        Self::open_copy(path)
    }

    /// A fresh database in memory (tests, dry runs).
    ///
    /// # Errors
    /// SQLite cannot allocate it.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Db {
            path: PathBuf::from(":memory:"),
            what: "opening".into(),
            source: source.into(),
        })?;
        Self::setup(conn, None)
    }

    /// A store on `conn`, not set up (no file guard: [`Store::open`] adds it).
    fn wrap(conn: Connection, path: Option<PathBuf>) -> Self {
        Self::wrap_conn(Conn::Sqlite(conn), path)
    }

    fn wrap_conn(conn: Conn, path: Option<PathBuf>) -> Self {
        Self {
            conn,
            path,
            guard: guard::Guard::default(),
            clock: std::cell::RefCell::default(),
        }
    }

    fn setup(conn: Connection, path: Option<PathBuf>) -> Result<Self, StoreError> {
        Self::setup_with(conn, path, false)
    }

    /// Set up `conn`; `adopt`: another program's database gets spanreview's tables too.
    fn setup_with(
        conn: Connection,
        path: Option<PathBuf>,
        adopt: bool,
    ) -> Result<Self, StoreError> {
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|source| StoreError::Db {
                path: path.clone().unwrap_or_else(|| PathBuf::from(":memory:")),
                what: "setting the busy timeout".into(),
                source: source.into(),
            })?;
        let store = Self::wrap(conn, path);
        // Refuse a newer database, or another program's, before touching it (even the journal
        // mode).
        let version = store.schema_version()?;
        store.refuse_newer(version)?;
        if version == 0 && !adopt {
            if let Some(c) = store.conn.sqlite() {
                guard::refuse_foreign(c, &store.display_path())?;
            }
        }
        store.setup_in_place()?;
        store.migrate()?;
        Ok(store)
    }

    /// WAL, `synchronous = FULL`, foreign keys on.
    fn setup_in_place(&self) -> Result<(), StoreError> {
        self.enable_wal()?;
        self.conn
            .batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
            .map_err(|e| self.err("setting synchronous = FULL and foreign_keys = ON", e))
    }

    /// Switch to WAL. Changing the journal mode needs a moment of exclusive access, and SQLite
    /// does not always call the busy handler for it, so retry while another process holds the
    /// file (two processes opening a new database at once).
    fn enable_wal(&self) -> Result<(), StoreError> {
        let Some(conn) = self.conn.sqlite() else {
            return Ok(());
        };
        let mut waited = Duration::ZERO;
        loop {
            let r = conn
                .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0));
            match r {
                Ok(_) => return Ok(()),
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::DatabaseBusy && waited < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(Duration::from_millis(20));
                    waited += Duration::from_millis(20);
                }
                Err(e) => return Err(self.err("switching to WAL mode", e)),
            }
        }
    }

    /// Apply the migrations the database has not seen, all in one write transaction.
    fn migrate(&self) -> Result<(), StoreError> {
        let found = self.schema_version()?;
        self.refuse_newer(found)?;
        if found == SCHEMA_VERSION {
            return Ok(());
        }
        let tx = self.begin()?;
        // Re-read under the write lock: another process may have migrated meanwhile.
        let found = self.schema_version()?;
        self.refuse_newer(found)?;
        match &self.conn {
            Conn::Sqlite(c) => {
                for (i, sql) in MIGRATIONS
                    .iter()
                    .enumerate()
                    .skip(usize::try_from(found).unwrap_or(0))
                {
                    let version = i + 1;
                    c.execute_batch(sql)
                        .and_then(|()| c.pragma_update(None, "user_version", version))
                        .map_err(|e| self.err(format!("migration {version:04}"), e))?;
                }
            }
            Conn::Pg(c) => pg::migrate(c, found, &self.now_rfc3339())
                .map_err(|e| self.err("migrating the schema", e))?,
        }
        tx.commit()
            .map_err(|e| self.err("committing the migrations", e))
    }

    fn refuse_newer(&self, found: i64) -> Result<(), StoreError> {
        if found > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                path: self.display_path(),
                found,
                known: SCHEMA_VERSION,
            });
        }
        Ok(())
    }

    /// The database's schema version: SQLite's `PRAGMA user_version`, PostgreSQL's highest
    /// `schema_version` row (0 for a database without spanreview's tables).
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        match &self.conn {
            Conn::Sqlite(c) => c
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .map_err(|e| self.err("reading the schema version", e)),
            Conn::Pg(c) => {
                pg::schema_version(c).map_err(|e| self.err("reading the schema version", e))
            }
        }
    }

    /// `$SPANREVIEW_DB` when set, else `spanreview.sqlite` in the user data folder
    /// (`~/.local/share/spanreview` on Linux), else in the current folder.
    #[must_use]
    pub fn default_path() -> PathBuf {
        if let Some(p) = std::env::var_os(DB_ENV).filter(|p| !p.is_empty()) {
            return PathBuf::from(p);
        }
        directories::ProjectDirs::from("", "", "spanreview").map_or_else(
            || PathBuf::from("spanreview.sqlite"),
            |d| d.data_dir().join("spanreview.sqlite"),
        )
    }

    /// The database file, or the URL with its password removed (`None` in memory).
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn display_path(&self) -> PathBuf {
        self.path
            .clone()
            .unwrap_or_else(|| PathBuf::from(":memory:"))
    }

    fn err(&self, what: impl Into<String>, source: impl Into<DbError>) -> StoreError {
        let source = source.into();
        if let DbError::Sqlite(e) = &source {
            if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) {
                return StoreError::Damaged {
                    path: self.display_path(),
                    found: format!("{} failed: {e}", what.into()),
                };
            }
        }
        StoreError::Db {
            path: self.display_path(),
            what: what.into(),
            source,
        }
    }

    fn invalid(&self, message: String) -> StoreError {
        StoreError::Invalid {
            path: self.display_path(),
            message,
        }
    }

    /// Take the write lock now (SQLite: `BEGIN IMMEDIATE`, waiting up to the busy timeout;
    /// PostgreSQL: the advisory lock); refused once the database file was deleted or replaced
    /// (see `guard.rs`).
    fn begin(&self) -> Result<Tx<'_>, StoreError> {
        self.check_in_place()?;
        self.guard.journal.borrow_mut().begin();
        self.conn
            .begin()
            .map_err(|e| self.err("starting a write transaction", e))
    }

    /// Commit `tx`, in which the decision with `origin` was the first row written. When the
    /// connection fails during the COMMIT (PostgreSQL), the server may have committed before
    /// the reply was lost: the log is asked, on a new connection, whether that row is there, so
    /// that a saved decision is not reported as not saved (and saved again by a retry). When the
    /// server cannot be asked, the error stands: nothing is claimed saved that is not known to be.
    fn commit_checked(&self, tx: Tx<'_>, origin: &str, what: &str) -> Result<(), StoreError> {
        let r = match tx.commit() {
            Ok(()) => Ok(()),
            Err(e) if e.is_connection() && !origin.is_empty() => {
                match self.id_with_origin(origin) {
                    Ok(Some(_)) => Ok(()),
                    _ => Err(self.err(what, e)),
                }
            }
            Err(e) => Err(self.err(what, e)),
        };
        self.guard.journal.borrow_mut().committed(r.is_ok());
        r
    }

    /// Append one decision, and when given the record's new summary state, in one IMMEDIATE
    /// transaction committed before returning. Returns the decision as saved: `id` set, and
    /// `time` set to now (RFC 3339 UTC) unless it was already set.
    ///
    /// # Errors
    /// The decision is inconsistent (an undo or redo without a target in the log, a target on
    /// another action, an unknown outcome), the database is busy beyond the timeout, or the
    /// write fails. Nothing is saved then.
    pub fn append(
        &self,
        d: &Decision,
        state: Option<&RecordState>,
    ) -> Result<Decision, StoreError> {
        self.append_with_origin(d, state, &new_origin())
    }

    fn append_with_origin(
        &self,
        d: &Decision,
        state: Option<&RecordState>,
        origin: &str,
    ) -> Result<Decision, StoreError> {
        self.check(d)?;
        let tx = self.begin()?;
        let (mut saved, _) = self.insert_with_origins(&tx, &[(d.clone(), origin.to_owned())])?;
        let saved = saved
            .pop()
            .ok_or_else(|| self.invalid("internal: a decision was not saved".to_owned()))?;
        if let Some(s) = state {
            self.upsert_state(&tx, &saved, s)?;
        }
        self.commit_checked(tx, origin, "committing the decision")?;
        Ok(saved)
    }

    fn check(&self, d: &Decision) -> Result<(), StoreError> {
        match (d.action.is_meta(), d.target) {
            (true, None) => {
                return Err(self.invalid(format!(
                    "cannot save a {} without the decision it acts on (target)",
                    d.action.name()
                )))
            }
            (false, Some(t)) => {
                return Err(self.invalid(format!(
                    "cannot save a {} with target #{t}: only undo and redo name a target",
                    d.action.name()
                )))
            }
            _ => {}
        }
        for (side, s) in [("before", &d.before), ("after", &d.after)] {
            if let Some(s) = s.as_ref().filter(|s| s.end < s.start) {
                return Err(self.invalid(format!(
                    "cannot save a {} whose span {side} is reversed: [{}, {})",
                    d.action.name(),
                    s.start,
                    s.end
                )));
            }
        }
        Ok(())
    }

    fn upsert_state(&self, tx: &Tx<'_>, d: &Decision, s: &RecordState) -> Result<(), StoreError> {
        self.write_state(tx, &d.dataset, &d.record_id, Some(d.id), s)
    }

    fn write_state(
        &self,
        _tx: &Tx<'_>,
        dataset: &str,
        record_id: &str,
        decision_id: Option<i64>,
        s: &RecordState,
    ) -> Result<(), StoreError> {
        (self.guard.journal.borrow_mut()).wrote_state(dataset, record_id, decision_id, s);
        let values = state_row::values(dataset, record_id, decision_id, s);
        self.conn
            .execute(state_row::upsert_one(), &values)
            .map_err(|e| self.err(format!("saving the state of record {record_id:?}"), e))?;
        Ok(())
    }
}

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Refuse, without touching it, a path that is not an existing SQLite database file.
fn check_existing(path: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    let path_buf = || path.to_owned();
    if path.is_dir() {
        return Err(StoreError::IsFolder { path: path_buf() });
    }
    if !path.is_file() {
        return Err(StoreError::Missing { path: path_buf() });
    }
    let mut head = Vec::with_capacity(SQLITE_HEADER.len());
    std::fs::File::open(path)
        .and_then(|f| f.take(SQLITE_HEADER.len() as u64).read_to_end(&mut head))
        .map_err(|source| StoreError::Read {
            path: path_buf(),
            source,
        })?;
    if head.is_empty() {
        return Err(StoreError::Empty { path: path_buf() });
    }
    if head != SQLITE_HEADER {
        return Err(StoreError::NotADatabase { path: path_buf() });
    }
    Ok(())
}

#[cfg(test)]
mod append_tests;
#[cfg(test)]
mod guard_tests;
#[cfg(test)]
mod pg_tests;
#[cfg(test)]
mod test_db;
#[cfg(test)]
mod tests;
