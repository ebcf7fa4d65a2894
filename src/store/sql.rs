//! What both engines' connections speak: parameters and column values ([`Value`], from Rust
//! values through [`ToValue`] and `vals![...]`, back through [`FromValue`]), result rows
//! ([`Row`]) and errors ([`DbError`], PostgreSQL's told by [`describe`]). The executor
//! (`engine.rs`) and the PostgreSQL client (`pg/`) both use it; neither is imported here.

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
    #[error("{}", describe(.0))]
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
            Self::Pg(e) => is_connection_error(e),
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
        [$($crate::store::sql::ToValue::to_value(&$x)),*]
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

/// True when `e` is the connection failing (server down, network gone), not the SQL.
#[must_use]
pub fn is_connection_error(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    if e.is_closed() {
        return true;
    }
    match e.code() {
        Some(code) => {
            code.code().starts_with("08")
                || *code == SqlState::ADMIN_SHUTDOWN
                || *code == SqlState::CRASH_SHUTDOWN
                || *code == SqlState::CANNOT_CONNECT_NOW
        }
        // No server message: the client's own (I/O, connect, TLS).
        None => e.as_db_error().is_none(),
    }
}

/// A PostgreSQL error as a person reads it: the server's message (and its detail), or the
/// client's; never the URL (the caller names the database, password removed).
#[must_use]
pub fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(d) => format!("{} ({d})", db.message()),
            None => db.message().to_owned(),
        },
        None => {
            let mut s = e.to_string();
            let mut src = std::error::Error::source(e);
            while let Some(inner) = src {
                s = format!("{s}: {inner}");
                src = inner.source();
            }
            s
        }
    }
}
