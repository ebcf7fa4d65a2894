//! What can go wrong with the database; every message names the database and what failed.

use std::path::PathBuf;

/// An error of the [`Store`](super::Store).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database's folder could not be created.
    #[error("cannot create the folder {} for the database: {source}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A read command was pointed at a database that does not exist.
    #[error(
        "no database at {}: nothing has been saved there yet (give the right one with --db PATH or SPANREVIEW_DB)",
        path.display()
    )]
    Missing {
        /// The path that was looked at.
        path: PathBuf,
    },
    /// The database path names a folder.
    #[error(
        "{0} is a folder, not a database file: give the database file itself (such as {0}/spanreview.sqlite)",
        path.display()
    )]
    IsFolder {
        /// The folder.
        path: PathBuf,
    },
    /// The database file could not be read.
    #[error("cannot read the database {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A read command was pointed at an empty file (SQLite would silently make it a database).
    #[error(
        "{} is empty: not a spanreview database (nothing was changed; give the database `review` saved to)",
        path.display()
    )]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A read command was pointed at a file that is not an SQLite database.
    #[error(
        "{} is not a spanreview database: it does not start with the SQLite header (nothing was changed)",
        path.display()
    )]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// A database read without SQLite's locks (its folder cannot be written) kept changing.
    #[error(
        "database {} changed while it was being read, several times: another process is writing it, and it is read without SQLite's locks because its folder cannot be written (nothing was changed); try again when the review is closed, or read a copy",
        path.display()
    )]
    Changing {
        /// The database.
        path: PathBuf,
    },
    /// A database with a `-wal` file but no `-shm` index, in a folder this user cannot write.
    #[error(
        "cannot read database {0} safely: it has recent changes in {0}-wal, and SQLite needs an index file {0}-shm beside it to read them, which it cannot create because the folder is not writable (nothing was changed); open it once with `spanreview review` as a user who can write the folder, or copy {0} and {0}-wal to a folder you can write",
        path.display()
    )]
    NoSharedIndex {
        /// The database.
        path: PathBuf,
    },
    /// The database was written by a newer spanreview, whose schema this one does not know.
    #[error(
        "database {} has schema version {found}, but this spanreview knows versions up to {known}: it was written by a newer spanreview; upgrade spanreview to open it (the database was not changed)",
        path.display()
    )]
    TooNew {
        /// The database.
        path: PathBuf,
        /// Its `PRAGMA user_version`.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// Another program's database (SQLite or PostgreSQL): tables but no spanreview schema version.
    #[error(
        "{} is another program's database (its tables: {}), not a spanreview database, so it was left as it is; give a spanreview database, or to `review` a new file, which it creates (`spanreview review --db-init` adds spanreview's tables to this one anyway)",
        path.display(),
        tables.join(", ")
    )]
    Foreign {
        /// The file.
        path: PathBuf,
        /// Its tables.
        tables: Vec<String>,
    },
    /// A database file the review could not, or must not, write.
    #[error(
        "database {} is read-only ({why}): the review could not save any decision there (nothing was changed); make it writable (chmod u+w) or give another file with --db",
        path.display()
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
        /// Its mode, or that this user cannot write it.
        why: String,
    },
    /// The database's folder cannot be written: SQLite cannot keep its `-wal` and `-shm` there.
    #[error(
        "database {} is in a folder this user cannot write: SQLite keeps its -wal and -shm files beside it, so the review could not save any decision there (nothing was changed); make the folder writable or give another file with --db",
        path.display()
    )]
    FolderReadOnly {
        /// The file.
        path: PathBuf,
    },
    /// The database file was deleted or replaced while the store had it open.
    #[error("{}", gone_message(path, what, rescue))]
    Gone {
        /// The path the database was opened at.
        path: PathBuf,
        /// What was found changed (the file, its content, its `-wal` or `-shm`).
        what: &'static str,
        /// Where everything saved until then was copied, or why it could not be.
        rescue: Result<PathBuf, String>,
    },
    /// The database file is damaged (`PRAGMA quick_check` finds faults, or SQLite reports
    /// `SQLITE_CORRUPT`): nothing read from it can be trusted.
    #[error(
        "database {} is damaged ({found}): nothing was read from or written to it; restore it from a copy, or recover what it holds with `sqlite3 {} .recover`",
        path.display(),
        path.display()
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What SQLite found (the first faults).
        found: String,
    },
    /// The database engine refused an operation, or (PostgreSQL) the connection failed.
    #[error("database {}: {what} failed{}: {source}", path.display(), write_hint(source))]
    Db {
        /// The database (a URL without its password).
        path: PathBuf,
        /// What was being done.
        what: String,
        /// The engine's error.
        source: super::engine::DbError,
    },
    /// The PostgreSQL server cannot be reached (or refused the login).
    #[error(
        "cannot connect to the PostgreSQL database {}: {why} (nothing was changed; is the server running, and are the host, port, user and database right?)",
        url.display()
    )]
    Unreachable {
        /// The URL, password removed.
        url: PathBuf,
        /// The client's or server's reason.
        why: String,
    },
    /// A PostgreSQL database with an older schema, given to a command that only reads.
    #[error(
        "database {} has schema version {found}, older than this spanreview's {known}: open it once with `spanreview review --db ...` (which migrates it), then read it (nothing was changed)",
        path.display()
    )]
    TooOld {
        /// The database.
        path: PathBuf,
        /// Its version.
        found: i64,
        /// This build's.
        known: i64,
    },
    /// A decision or state that cannot be stored, or a stored row that cannot be read back.
    #[error("database {}: {message}", path.display())]
    Invalid {
        /// The database.
        path: PathBuf,
        /// What is wrong, quoting the value.
        message: String,
    },
}

impl StoreError {
    /// True when the database could not be reached (PostgreSQL's connection is down): nothing
    /// of the write was saved, and the same write may succeed once the server is back.
    #[must_use]
    pub fn is_connection_lost(&self) -> bool {
        match self {
            Self::Db { source, .. } => source.is_connection(),
            Self::Unreachable { .. } => true,
            _ => false,
        }
    }

    /// True when the write lock was held by another process for longer than this connection
    /// waits ([`crate::store::Store::set_write_wait`]): nothing was saved, and the same write
    /// may succeed once that process commits.
    #[must_use]
    pub fn is_busy(&self) -> bool {
        matches!(self, Self::Db { source, .. } if source.is_busy())
    }
}

/// What a failed write most likely means, said after SQLite's own words ("disk I/O error").
fn write_hint(source: &super::engine::DbError) -> &'static str {
    use rusqlite::ffi;
    let super::engine::DbError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) = source else {
        return "";
    };
    match f.extended_code {
        ffi::SQLITE_FULL
        | ffi::SQLITE_IOERR_WRITE
        | ffi::SQLITE_IOERR_FSYNC
        | ffi::SQLITE_IOERR_TRUNCATE
        | ffi::SQLITE_IOERR_SHMSIZE => {
            " (disk full or file-size limit `ulimit -f` reached; nothing of it was saved)"
        }
        _ => "",
    }
}

fn gone_message(path: &std::path::Path, what: &str, rescue: &Result<PathBuf, String>) -> String {
    let p = path.display();
    let head =
        format!("database {p} was deleted or replaced during the review ({what}): saving stopped");
    match rescue {
        Ok(r) => format!(
            "{head}; every decision saved before was copied to {}: quit, then `spanreview merge-db {p} {}` (or review with --db {})",
            r.display(),
            r.display(),
            r.display()
        ),
        Err(e) => format!(
            "{head}; the decisions could not be copied to a new file either ({e}): do not quit; make room (or make a folder writable) and decide again, the copy is tried again then"
        ),
    }
}
