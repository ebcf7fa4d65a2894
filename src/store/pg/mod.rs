//! PostgreSQL under the store's executor ([`super::engine::Conn::Pg`]): a team's reviewers on
//! many machines sharing one log.
//!
//! - **The same SQL.** The store's queries use SQLite's numbered parameters `?N`; here they
//!   become `$N` ([`placeholders`]) and are prepared once per connection. Values are encoded
//!   as the server infers each parameter's type (`value.rs`).
//! - **Writers take turns** as on SQLite: [`PgConn::begin`] opens a transaction and takes a
//!   transaction-scoped advisory lock, one per database, held until commit or rollback. Under
//!   it, every statement sees every earlier writer's commit (READ COMMITTED), so a record's
//!   state replayed inside the transaction counts every decision. An advisory lock needs no
//!   privilege, so a reviewer's role can be INSERT/SELECT only on the log (README, "Running a
//!   team server"); readers never wait for it.
//! - **Saved means committed.** `COMMIT` returns once the server has flushed the commit to its
//!   WAL (`synchronous_commit = on`, the default; a connection that finds it `off`, set by the
//!   server, database or role, turns it on for itself).
//! - **The connection comes back.** When the server goes away, the statement in progress fails
//!   ([`is_connection_error`](super::sql::is_connection_error): the caller shows the decision as not saved, nothing of its
//!   transaction is kept) and the next statement connects again; until the server is back each
//!   attempt fails at once with the same kind of error.
//! - **No password is shown.** Messages name the database by its URL with the password taken
//!   out (`conninfo.rs`); a password comes from the URL, `PGPASSWORD` or the password file
//!   (`passfile.rs`).

mod conninfo;
mod passfile;
mod schema;
mod tls;
pub mod url;
mod value;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{ToSql, Type};
use postgres::{Client, Statement};

use super::sql::{DbError, Row, Value};
pub use url::{has_password, is_url, pass_file_warning, redact, PgUrl};

/// The advisory lock key every spanreview writer of a database takes (`spanreview` in ASCII,
/// folded into 63 bits): one lock per database, like SQLite's one write lock per file.
const WRITE_LOCK: i64 = 0x7370_616e_7265_7669;

/// A PostgreSQL connection that reconnects after the server comes back.
pub struct PgConn {
    url: PgUrl,
    client: RefCell<Option<Client>>,
    /// Prepared statements of the current connection, by SQL text as the store writes it.
    prepared: RefCell<HashMap<String, Statement>>,
    /// Inside a transaction: a lost connection then fails the transaction rather than reconnecting
    /// in the middle of it.
    in_tx: Cell<bool>,
    /// Tests: the next COMMIT is carried out, then its reply is lost (the connection drops).
    #[cfg(test)]
    pub(crate) lose_commit_reply: Cell<bool>,
}

impl PgConn {
    /// Connect to the database `url` names.
    ///
    /// # Errors
    /// The server cannot be reached, refuses the login, or TLS fails.
    pub fn connect(url: PgUrl) -> Result<Self, DbError> {
        let conn = Self {
            url,
            client: RefCell::new(None),
            prepared: RefCell::new(HashMap::new()),
            in_tx: Cell::new(false),
            #[cfg(test)]
            lose_commit_reply: Cell::new(false),
        };
        conn.connected()?;
        Ok(conn)
    }

    /// The URL, password removed.
    pub fn url(&self) -> &str {
        &self.url.shown
    }

    /// Make sure there is a live client (connecting again after a lost connection).
    fn connected(&self) -> Result<(), DbError> {
        let mut client = self.client.borrow_mut();
        if client.as_ref().is_some_and(|c| !c.is_closed()) {
            return Ok(());
        }
        if self.in_tx.get() {
            // The transaction died with its connection: fail its remaining statements (a COMMIT
            // on a new connection would "succeed" with nothing in it); the next BEGIN connects.
            self.in_tx.set(false);
            return Err(DbError::Lost);
        }
        *client = None;
        self.prepared.borrow_mut().clear();
        let mut config = self.url.config.clone();
        config.ssl_mode(match self.url.ssl {
            url::SslMode::Disable => postgres::config::SslMode::Disable,
            url::SslMode::Prefer => postgres::config::SslMode::Prefer,
            url::SslMode::Require | url::SslMode::VerifyFull => postgres::config::SslMode::Require,
        });
        let tls = tls::connector(&self.url).map_err(DbError::Setup)?;
        let mut c = config.connect(tls)?;
        // Saved means flushed: a server, database or role set to `synchronous_commit = off`
        // acknowledges commits that a crash loses; this connection's commits are flushed.
        let sync: String = c.query_one("SHOW synchronous_commit", &[])?.try_get(0)?;
        if sync == "off" {
            c.batch_execute("SET synchronous_commit = on")?;
        }
        *client = Some(c);
        Ok(())
    }

    /// Run `f` on the live client.
    /// A connection error drops the client: it may not know yet that its socket is dead (the
    /// server's FATAL comes first), and the next statement must connect anew.
    fn with<T>(&self, f: impl FnOnce(&mut Client) -> Result<T, DbError>) -> Result<T, DbError> {
        self.connected()?;
        let mut client = self.client.borrow_mut();
        let c = client
            .as_mut()
            .ok_or_else(|| DbError::Setup("internal: no PostgreSQL connection".into()))?;
        let r = f(c);
        if r.as_ref().is_err_and(DbError::is_connection) {
            *client = None;
        }
        r
    }

    fn statement(&self, c: &mut Client, sql: &str) -> Result<Statement, DbError> {
        if let Some(st) = self.prepared.borrow().get(sql) {
            return Ok(st.clone());
        }
        let st = c.prepare(&placeholders(sql))?;
        self.prepared
            .borrow_mut()
            .insert(sql.to_owned(), st.clone());
        Ok(st)
    }

    /// Run one statement; the number of rows it changed.
    pub fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, DbError> {
        self.with(|c| {
            let st = self.statement(c, sql)?;
            Ok(c.execute(&st, &refs(params))?)
        })
    }

    /// Run one query; every row, each column as a [`Value`].
    pub fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
        self.with(|c| {
            let st = self.statement(c, sql)?;
            let rows = c.query(&st, &refs(params))?;
            rows.iter()
                .map(|r| {
                    (0..r.len())
                        .map(|i| r.try_get::<_, Value>(i).map_err(DbError::from))
                        .collect::<Result<Vec<_>, _>>()
                        .map(Row)
                })
                .collect()
        })
    }

    /// Run statements without parameters. `COMMIT` and `ROLLBACK` end the transaction even
    /// when they fail (a lost connection took it along).
    pub fn batch(&self, sql: &str) -> Result<(), DbError> {
        let ends = matches!(sql, "COMMIT" | "ROLLBACK");
        if ends && !self.in_tx.get() {
            // The connection was lost inside the transaction and reconnected since: nothing of
            // it was committed, and saying so is the caller's error to show.
            return if sql == "COMMIT" {
                Err(DbError::Lost)
            } else {
                Ok(())
            };
        }
        let r = self.with(|c| Ok(c.batch_execute(sql)?));
        if ends {
            self.in_tx.set(false);
        }
        #[cfg(test)]
        if sql == "COMMIT" && self.lose_commit_reply.replace(false) {
            *self.client.borrow_mut() = None;
            return r.and(Err(DbError::Lost));
        }
        r
    }

    /// Copy `rows` into `table`'s `columns` (`a, b, …`) with one `COPY … FROM STDIN (FORMAT
    /// binary)`: the rows stream to the server without a statement or a round trip each. Each
    /// value is encoded as its column's type, read from the table (a prepared `SELECT … LIMIT
    /// 0`), so the copy follows the schema as [`PgConn::execute`] follows a statement's
    /// parameters. Returns the number of rows copied.
    ///
    /// # Errors
    /// A row cannot be made (`rows` yields an error), a value does not fit its column, or the
    /// server refuses a row (a constraint): the copy is abandoned, and with it the transaction
    /// it runs in (nothing of it is kept).
    pub fn copy_in(
        &self,
        table: &str,
        columns: &str,
        rows: impl Iterator<Item = Result<Vec<Value>, DbError>>,
    ) -> Result<u64, DbError> {
        self.with(|c| {
            let probe = self.statement(c, &format!("SELECT {columns} FROM {table} LIMIT 0"))?;
            let types: Vec<Type> = probe
                .columns()
                .iter()
                .map(|col| col.type_().clone())
                .collect();
            let sink = c.copy_in(&format!(
                "COPY {table} ({columns}) FROM STDIN (FORMAT binary)"
            ))?;
            let mut writer = BinaryCopyInWriter::new(sink, &types);
            for row in rows {
                // An error drops the writer unfinished: the copy is aborted.
                let row = row?;
                if row.len() != types.len() {
                    return Err(DbError::Setup(format!(
                        "internal: {} values for the {} columns copied into {table}",
                        row.len(),
                        types.len()
                    )));
                }
                writer.write_raw(row.iter())?;
            }
            Ok(writer.finish()?)
        })
    }

    /// `BEGIN`, then the database's write lock (see the module docs).
    pub fn begin(&self) -> Result<(), DbError> {
        self.with(|c| {
            c.batch_execute("BEGIN")?;
            Ok(())
        })?;
        self.in_tx.set(true);
        let locked = self.with(|c| {
            c.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK])?;
            Ok(())
        });
        if locked.is_err() {
            let _ = self.batch("ROLLBACK");
        }
        locked
    }
}

/// The parameters as the client takes them.
fn refs(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

/// `sql` with SQLite's `?N` parameters written as PostgreSQL's `$N` (outside quotes).
#[must_use]
pub fn placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(ch),
            (None, '?') if chars.peek().is_some_and(char::is_ascii_digit) => {
                out.push('$');
                continue;
            }
            _ => {}
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
pub(super) use schema::MIGRATIONS as MIGRATIONS_FOR_TESTS;
pub(super) use schema::{migrate, refuse_foreign, schema_version};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_marks_become_dollars_outside_quotes() {
        assert_eq!(
            placeholders(
                "SELECT a FROM t WHERE b = ?1 AND c IN (?2, ?10) AND d = '?3' AND \"?4\" = 1"
            ),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $10) AND d = '?3' AND \"?4\" = 1"
        );
        assert_eq!(
            placeholders("SELECT '東京 ?' || ?1"),
            "SELECT '東京 ?' || $1"
        );
    }
}
