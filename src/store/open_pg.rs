//! Opening a PostgreSQL database named by a `--db` URL: what [`Store::open`] and the reading
//! opens do with a URL instead of a file.
//!
//! - [`Store::open`] connects, refuses a newer schema or another program's tables (unless
//!   `review --db-init`), and migrates under the write lock, as for a file.
//! - [`Store::open_existing`] and [`Store::open_snapshot`] connect and read: a database without
//!   spanreview's tables is [`StoreError::Missing`], an older schema is refused (nothing reads
//!   it through a copy as for a file: `review` migrates it). Nothing is written by opening.
//! - A server that cannot be reached is [`StoreError::Unreachable`], naming the URL with its
//!   password removed.

use std::path::{Path, PathBuf};

use super::pg::{self, url, PgConn};
use super::{Conn, Store, StoreError, SCHEMA_VERSION};

/// What an opening of a URL may do.
#[derive(Debug, Clone, Copy)]
pub(super) enum Access {
    /// Bring the schema up to date (`adopt`: also beside another program's tables).
    Migrate {
        /// `review --db-init`.
        adopt: bool,
    },
    /// Read only: never create or migrate.
    Read,
}

/// A `--db` value as it may be shown: a file's path, or a URL with its password removed.
#[must_use]
pub fn shown(path: &Path) -> String {
    pg::redact(&path.display().to_string())
}

/// `DB has no decisions on dataset "NAME" (it has: A, B)`: what a reader of dataset `name`
/// found in the database at `db`, whose datasets are `known` (a --dataset that names none of
/// them, most likely).
#[must_use]
pub fn no_decisions(db: &Path, name: &str, known: &[String]) -> String {
    let known = if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    };
    format!(
        "{} has no decisions on dataset {name:?} (it has: {known})",
        shown(db)
    )
}

/// The URL in a `--db` value, if it is one.
pub(super) fn url_of(path: &Path) -> Option<&str> {
    path.to_str().filter(|s| pg::is_url(s))
}

/// Refuse a `--db` value that is no PostgreSQL connection but looks like one (it holds `://`
/// or `password=`: a mistyped scheme, a key=value string with an unknown first word): no file
/// is ever made, or looked for, under such a name, which would hold a password.
///
/// # Errors
/// [`StoreError::Invalid`], naming the value with any password removed.
pub(super) fn refuse_lookalike(path: &Path) -> Result<(), StoreError> {
    let s = path.to_string_lossy();
    if !s.contains("://") && !s.to_ascii_lowercase().contains("password=") {
        return Ok(());
    }
    let shown = pg::redact(&s);
    Err(StoreError::Invalid {
        path: PathBuf::from(&shown),
        message: "this looks like a PostgreSQL connection but is neither a postgresql:// URL \
                  nor a key=value string starting with a libpq keyword (host=, dbname=, \
                  ...); no file of that name is made"
            .to_owned(),
    })
}

impl Store {
    pub(super) fn open_pg(url: &str, access: Access) -> Result<Self, StoreError> {
        let parsed = url::parse(url).map_err(|message| StoreError::Invalid {
            path: PathBuf::from(url::redact(url)),
            message,
        })?;
        let shown = PathBuf::from(&parsed.shown);
        let conn = PgConn::connect(parsed).map_err(|e| StoreError::Unreachable {
            url: shown.clone(),
            why: e.to_string(),
        })?;
        let store = Self::wrap_conn(Conn::Pg(Box::new(conn)), Some(shown.clone()));
        let version = store.schema_version()?;
        store.refuse_newer(version)?;
        match access {
            Access::Read if version == 0 => return Err(StoreError::Missing { path: shown }),
            Access::Read if version < SCHEMA_VERSION => {
                return Err(StoreError::TooOld {
                    path: shown,
                    found: version,
                    known: SCHEMA_VERSION,
                })
            }
            Access::Read => {}
            Access::Migrate { adopt } => {
                if version == 0 && !adopt {
                    let Conn::Pg(c) = &store.conn else {
                        unreachable!("a URL opens PostgreSQL")
                    };
                    let tables =
                        pg::refuse_foreign(c).map_err(|e| store.err("listing its tables", e))?;
                    if !tables.is_empty() {
                        return Err(StoreError::Foreign {
                            path: shown,
                            tables,
                        });
                    }
                }
                store.migrate()?;
            }
        }
        Ok(store)
    }

    /// True when this store is on a PostgreSQL server (the screen then says "server" rather
    /// than "file" when it cannot save).
    #[must_use]
    pub fn is_server(&self) -> bool {
        matches!(self.conn, Conn::Pg(_))
    }
}
