//! The one place the store talks to a database engine: a small executor over SQLite and
//! PostgreSQL that the rest of `store/` uses instead of either client.
//!
//! Every query of the store is written once, in the SQL both engines accept (numbered `?N`
//! parameters, `INSERT … RETURNING id`, `INSERT … ON CONFLICT … DO UPDATE`, `COALESCE`), and
//! run through [`Conn`]: SQLite gets it as written, PostgreSQL with `?N` turned into `$N` (see
//! `pg/`). Parameters and results are [`Value`]s (NULL, an integer or text: all the log holds),
//! read back through [`Row::get`], so `row.rs`, `query.rs`, `merge.rs` and `plan.rs` do not
//! know which engine they run on. What differs stays in one function each: opening, the write
//! lock ([`Conn::begin`]), the schema version, and the SQLite file guards (`guard.rs`,
//! `open_read.rs`, which only apply to a file).
//!
//! The vocabulary both engines share (values, rows, errors) is `sql.rs`, which `pg/` uses too.
//!
//! Why an executor rather than an enum matched in every method: one SQL text per query keeps
//! the two engines from drifting apart, and a new query (`claims.rs`) is written once.

use std::fmt;

use super::pg::PgConn;
pub(super) use super::sql::{vals, DbError, Row, Value};

/// A connection to one of the two engines.
pub(super) enum Conn {
    /// A file or in-memory SQLite database.
    Sqlite(rusqlite::Connection),
    /// A PostgreSQL database (reconnects on its own after the server comes back); boxed, as
    /// it is several times the size of an SQLite connection.
    Pg(Box<PgConn>),
}

impl fmt::Debug for Conn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(_) => f.write_str("Conn::Sqlite"),
            Self::Pg(c) => write!(f, "Conn::Pg({})", c.url()),
        }
    }
}

/// A SQLite column as a [`Value`]; a REAL or BLOB (which spanreview never writes) is refused.
fn sqlite_value(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Value> {
    use rusqlite::types::ValueRef;
    match r.get_ref(at)? {
        ValueRef::Null => Ok(Value::Null),
        ValueRef::Integer(i) => Ok(Value::Int(i)),
        ValueRef::Text(t) => Ok(Value::Text(String::from_utf8_lossy(t).into_owned())),
        other => Err(rusqlite::Error::FromSqlConversionFailure(
            at,
            other.data_type(),
            "spanreview stores only integers and text".into(),
        )),
    }
}

impl Conn {
    /// Run one statement; returns the number of rows it changed.
    ///
    /// # Errors
    /// The engine refuses it.
    pub(super) fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, DbError> {
        match self {
            Self::Sqlite(c) => {
                Ok(c.prepare_cached(sql)?
                    .execute(rusqlite::params_from_iter(params))? as u64)
            }
            Self::Pg(c) => c.execute(sql, params),
        }
    }

    /// Run one query and read every row.
    ///
    /// # Errors
    /// The engine refuses it.
    pub(super) fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
        match self {
            Self::Sqlite(c) => {
                let mut st = c.prepare_cached(sql)?;
                let n = st.column_count();
                let rows = st
                    .query_map(rusqlite::params_from_iter(params), |r| {
                        (0..n).map(|i| sqlite_value(r, i)).collect()
                    })?
                    .map(|r| r.map(Row))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            }
            Self::Pg(c) => c.query(sql, params),
        }
    }

    /// The first row of a query, if any.
    ///
    /// # Errors
    /// The engine refuses it.
    pub(super) fn query_opt(&self, sql: &str, params: &[Value]) -> Result<Option<Row>, DbError> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// Run several statements without parameters (migrations, tests).
    ///
    /// # Errors
    /// The engine refuses one; those before it stay run (inside a transaction, nothing does).
    pub(super) fn batch(&self, sql: &str) -> Result<(), DbError> {
        match self {
            Self::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Self::Pg(c) => c.batch(sql),
        }
    }

    /// Start a write transaction holding the database's one write lock, so that writers take
    /// turns as they do on SQLite: `BEGIN IMMEDIATE` there, and on PostgreSQL a transaction-
    /// scoped advisory lock (see `pg/`). Rolled back when the [`Tx`] is dropped uncommitted.
    ///
    /// # Errors
    /// The lock cannot be had (SQLite busy beyond the timeout, PostgreSQL unreachable).
    pub(super) fn begin(&self) -> Result<Tx<'_>, DbError> {
        match self {
            Self::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Self::Pg(c) => c.begin()?,
        }
        Ok(Tx {
            conn: self,
            done: false,
        })
    }

    /// The SQLite connection, for what only a file has (WAL, guards, copies).
    pub(super) fn sqlite(&self) -> Option<&rusqlite::Connection> {
        match self {
            Self::Sqlite(c) => Some(c),
            Self::Pg(_) => None,
        }
    }
}

/// An open write transaction (see [`Conn::begin`]).
#[must_use = "a transaction is rolled back unless committed"]
pub(super) struct Tx<'a> {
    conn: &'a Conn,
    done: bool,
}

impl Tx<'_> {
    /// Commit; on SQLite the commit is fsynced before this returns (`synchronous = FULL`), on
    /// PostgreSQL the server has flushed its WAL (`synchronous_commit`'s default).
    ///
    /// # Errors
    /// The commit fails; nothing of the transaction is saved then.
    pub(super) fn commit(mut self) -> Result<(), DbError> {
        // A failed COMMIT (SQLite busy) leaves the transaction open: dropping rolls it back.
        self.conn.batch("COMMIT")?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if !self.done {
            // Nothing to do when it fails: the connection is gone, and the transaction with it.
            let _ = self.conn.batch("ROLLBACK");
        }
    }
}
