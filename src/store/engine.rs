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
//! Why an executor rather than an enum matched in every method: one SQL text per query keeps
//! the two engines from drifting apart, and a new query (`claims.rs`) is written once.

use std::fmt;

use super::pg::PgConn;

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

/// A parameter or a column value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// An integer (SQLite INTEGER; PostgreSQL BIGINT, INTEGER, SMALLINT or BOOLEAN).
    Int(i64),
    /// Text.
    Text(String),
}

/// What a query failed with.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite's error.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL's error (the server's message, or the connection's).
    #[error("{}", super::pg::describe(.0))]
    Pg(#[from] postgres::Error),
    /// The connection to the PostgreSQL server was lost inside a transaction: nothing of the
    /// transaction was saved (the next one connects again).
    #[error("the connection to the server was lost: nothing of this transaction was saved")]
    Lost,
    /// The connection could not be set up (TLS settings).
    #[error("{0}")]
    Setup(String),
    /// A value read back is not what the column should hold.
    #[error("column {column}: {message}")]
    Decode {
        /// The column's position in the result.
        column: usize,
        /// What is wrong, quoting the value.
        message: String,
    },
}

impl DbError {
    /// True when the database is unreachable (PostgreSQL's connection is down), so that the
    /// same write may succeed later.
    #[must_use]
    pub fn is_connection(&self) -> bool {
        match self {
            Self::Pg(e) => super::pg::is_connection_error(e),
            Self::Lost => true,
            _ => false,
        }
    }

    /// True when the write lock could not be had in time (SQLite busy or locked, PostgreSQL's
    /// `lock_timeout`): another process is writing (an `apply`), and the same write may
    /// succeed later.
    #[must_use]
    pub fn is_busy(&self) -> bool {
        match self {
            Self::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            ),
            Self::Pg(e) => e.code() == Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE),
            _ => false,
        }
    }
}

/// Turns a Rust value into a [`Value`] parameter (`vals![...]`).
pub trait ToValue {
    /// The value.
    fn to_value(&self) -> Value;
}

impl ToValue for i64 {
    fn to_value(&self) -> Value {
        Value::Int(*self)
    }
}
impl ToValue for usize {
    fn to_value(&self) -> Value {
        // Offsets and counts: far below i64::MAX in any log.
        Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
    }
}
impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Int(i64::from(*self))
    }
}
impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::Text(self.to_owned())
    }
}
impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}
impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}
impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

/// The parameters of a query, as `[Value; N]`.
macro_rules! vals {
    ($($x:expr),* $(,)?) => {
        [$($crate::store::engine::ToValue::to_value(&$x)),*]
    };
}
pub(super) use vals;

/// One result row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row(pub(super) Vec<Value>);

impl Row {
    /// Column `at` as `T`.
    ///
    /// # Errors
    /// [`DbError::Decode`] when the column is missing or holds another kind of value.
    pub fn get<T: FromValue>(&self, at: usize) -> Result<T, DbError> {
        let v = self.0.get(at).ok_or_else(|| DbError::Decode {
            column: at,
            message: format!("no such column (the row has {})", self.0.len()),
        })?;
        T::from_value(v).map_err(|message| DbError::Decode {
            column: at,
            message,
        })
    }
}

/// Reads a [`Value`] back as a Rust value.
pub trait FromValue: Sized {
    /// The value, or what is wrong with it.
    ///
    /// # Errors
    /// The value is of another kind or out of range.
    fn from_value(v: &Value) -> Result<Self, String>;
}

impl FromValue for i64 {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Int(i) => Ok(*i),
            other => Err(format!("expected an integer, found {other:?}")),
        }
    }
}
impl FromValue for usize {
    fn from_value(v: &Value) -> Result<Self, String> {
        let i = i64::from_value(v)?;
        usize::try_from(i).map_err(|_| format!("expected a count or offset, found {i}"))
    }
}
impl FromValue for bool {
    fn from_value(v: &Value) -> Result<Self, String> {
        match i64::from_value(v)? {
            0 => Ok(false),
            1 => Ok(true),
            i => Err(format!("expected 0 or 1, found {i}")),
        }
    }
}
impl FromValue for String {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Text(s) => Ok(s.clone()),
            other => Err(format!("expected text, found {other:?}")),
        }
    }
}
impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Self::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Self::Int(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Self::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        })
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
