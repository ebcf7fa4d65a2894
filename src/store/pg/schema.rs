//! PostgreSQL's numbered migrations (`migrations/pg/`, one twin per SQLite migration) and its
//! schema version, kept in the `schema_version` table (PostgreSQL has no `user_version`).

use super::PgConn;
use crate::store::sql::{vals, DbError};

/// The migrations, in order; migration `i` (0-based) brings the schema to version `i + 1`,
/// the same version as SQLite's migration `i`.
pub const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/pg/0001_init.sql"),
    include_str!("../migrations/pg/0002_sources.sql"),
    include_str!("../migrations/pg/0003_source_answers.sql"),
    include_str!("../migrations/pg/0004_decision_meaning.sql"),
    include_str!("../migrations/pg/0005_record_units.sql"),
    include_str!("../migrations/pg/0006_team.sql"),
];

/// Tables of the connection's schema (`current_schema()`), sorted.
fn tables(c: &PgConn) -> Result<Vec<String>, DbError> {
    c.query(
        "SELECT table_name::text FROM information_schema.tables \
         WHERE table_schema = current_schema() ORDER BY 1",
        &[],
    )?
    .iter()
    .map(|r| r.get(0))
    .collect()
}

/// The highest migration applied; 0 for a database without spanreview's tables.
///
/// # Errors
/// The server cannot be read.
pub fn schema_version(c: &PgConn) -> Result<i64, DbError> {
    if !tables(c)?.iter().any(|t| t == "schema_version") {
        return Ok(0);
    }
    c.query("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[])?
        .first()
        .map_or(Ok(0), |r| r.get(0))
}

/// The tables of a database at version 0 that are not spanreview's: another program's, which
/// a migration must not add to unasked (as SQLite's `guard::refuse_foreign`).
///
/// # Errors
/// The server cannot be read.
pub fn refuse_foreign(c: &PgConn) -> Result<Vec<String>, DbError> {
    let names = tables(c)?;
    // Another spanreview may have migrated since the caller read version 0 (screens opening a
    // new database at once): its tables came with their version in one transaction.
    if !names.is_empty() && schema_version(c)? > 0 {
        return Ok(Vec::new());
    }
    Ok(names)
}

/// Apply migrations `found + 1 ..` inside the caller's write transaction, recording each.
///
/// # Errors
/// A migration fails (the caller's transaction is then rolled back whole).
pub fn migrate(c: &PgConn, found: i64, now: &str) -> Result<(), DbError> {
    for (i, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(found).unwrap_or(0))
    {
        c.batch(sql)?;
        c.execute(
            "INSERT INTO schema_version (version, applied) VALUES (?1, ?2)",
            &vals![i + 1, now],
        )?;
    }
    Ok(())
}
