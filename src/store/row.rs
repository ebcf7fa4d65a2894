//! A [`Decision`] as a row of the `decision` table, and back.

use super::engine::{vals, Conn, DbError, Row, Value};
use crate::review::decision::{ActionKind, Decision, OutcomeKind, SpanValue, Unit};

/// The columns [`read`] expects, in order.
pub const COLUMNS: &str = "id, reviewer, time, dataset, record_id, record_hash, action, span_key, \
     start_before, end_before, label_before, category_before, subcategory_before, \
     start_after, end_after, label_after, category_after, subcategory_after, \
     reason, note, target, upheld, dismissed, origin, \
     group_id, cluster_start, cluster_end, claim, flag_on, record_type, auto, \
     record_units";

/// The columns [`values`] gives, in order (all but `id`).
const INSERTED: &str = "origin, reviewer, time, dataset, record_id, record_hash, action, \
     span_key, start_before, end_before, label_before, category_before, subcategory_before, \
     start_after, end_after, label_after, category_after, subcategory_after, reason, note, \
     target, upheld, dismissed, group_id, cluster_start, cluster_end, claim, flag_on, \
     record_type, auto, record_units";

/// How many values [`values`] gives.
const N_INSERTED: usize = 31;

/// Insert `d` (its `id` ignored) with the given origin; returns the new row id.
pub(super) fn insert(conn: &Conn, d: &Decision, origin: &str) -> Result<i64, DbError> {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let sql = SQL.get_or_init(|| {
        format!(
            "INSERT INTO decision ({INSERTED}) VALUES ({}) RETURNING id",
            marks(0, N_INSERTED)
        )
    });
    let rows = conn.query(sql, &values(d, origin)?)?;
    rows.first().map_or_else(
        || {
            Err(DbError::Decode {
                column: 0,
                message: "INSERT … RETURNING id gave no row".into(),
            })
        },
        |r| r.get(0),
    )
}

/// Copy `rows` (the id each is saved with, the decision, its origin) into the log with one
/// `COPY` (PostgreSQL only: see [`super::pg::PgConn::copy_in`]).
pub(super) fn copy_with_ids<'a>(
    conn: &Conn,
    rows: impl Iterator<Item = (i64, &'a Decision, &'a str)>,
) -> Result<u64, DbError> {
    static COLUMNS_WITH_ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let Conn::Pg(c) = conn else {
        return Err(DbError::Setup(
            "internal: decisions are copied into PostgreSQL only".into(),
        ));
    };
    let columns = COLUMNS_WITH_ID.get_or_init(|| format!("id, {INSERTED}"));
    c.copy_in(
        "decision",
        columns,
        rows.map(|(id, d, origin)| {
            let mut v = Vec::with_capacity(N_INSERTED + 1);
            v.push(Value::Int(id));
            v.extend(values(d, origin)?);
            Ok(v)
        }),
    )
}

/// `?{from + 1}, …, ?{from + n}`.
pub(super) fn marks(from: usize, n: usize) -> String {
    (from + 1..=from + n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The values of [`INSERTED`] for `d` with `origin`.
fn values(d: &Decision, origin: &str) -> Result<Vec<Value>, DbError> {
    let b = d.before.as_ref();
    let a = d.after.as_ref();
    let upheld = json_list(&d.upheld)?;
    let dismissed = json_list(&d.dismissed)?;
    let (cluster, claim) = match d.unit {
        Some(Unit::Cluster { start, end }) => (Some((start, end)), None),
        Some(Unit::Claim(k)) => (None, Some(k)),
        None => (None, None),
    };
    // The schema wants a flag's state on every flag row (a flag put on when left unsaid).
    let flag_on = d
        .flag_on
        .or((d.action == ActionKind::Flag).then_some(true))
        .filter(|_| d.action == ActionKind::Flag);
    Ok(Vec::from(vals![
        origin,
        d.reviewer,
        d.time,
        d.dataset,
        d.record_id,
        d.record_hash,
        d.action.name(),
        d.span_key,
        b.map(|s| s.start),
        b.map(|s| s.end),
        b.map(|s| &s.label),
        b.and_then(|s| s.category.as_ref()),
        b.and_then(|s| s.subcategory.as_ref()),
        a.map(|s| s.start),
        a.map(|s| s.end),
        a.map(|s| &s.label),
        a.and_then(|s| s.category.as_ref()),
        a.and_then(|s| s.subcategory.as_ref()),
        d.reason,
        d.note,
        d.target,
        upheld,
        dismissed,
        d.group,
        cluster.map(|c| c.0),
        cluster.map(|c| c.1),
        claim,
        flag_on,
        d.record_type,
        d.auto,
        d.record_units,
    ]))
}

fn json_list(v: &[String]) -> Result<String, DbError> {
    serde_json::to_string(v).map_err(|e| DbError::Decode {
        column: 0,
        message: format!("a list of names as JSON: {e}"),
    })
}

/// Read a row selected with [`COLUMNS`]: the decision and its origin.
pub(super) fn read(row: &Row) -> Result<(Decision, String), DbError> {
    let action: String = row.get(6)?;
    let action = ActionKind::from_name(&action).ok_or_else(|| DbError::Decode {
        column: 6,
        message: format!("unknown action {action:?} (written by a newer spanreview?)"),
    })?;
    let d = Decision {
        id: row.get(0)?,
        reviewer: row.get(1)?,
        time: row.get(2)?,
        dataset: row.get(3)?,
        record_id: row.get(4)?,
        record_hash: row.get(5)?,
        action,
        span_key: row.get(7)?,
        before: span(row, 8)?,
        after: span(row, 13)?,
        reason: row.get(18)?,
        note: row.get(19)?,
        target: row.get(20)?,
        upheld: list(row, 21)?,
        dismissed: list(row, 22)?,
        group: row.get(24)?,
        unit: unit(row, 25)?,
        flag_on: row.get(28)?,
        record_type: row.get(29)?,
        auto: row.get(30)?,
        record_units: row.get(31)?,
    };
    Ok((d, row.get(23)?))
}

/// The span stored in the five columns from `at` (start, end, label, category, subcategory).
fn span(row: &Row, at: usize) -> Result<Option<SpanValue>, DbError> {
    let start: Option<usize> = row.get(at)?;
    let Some(start) = start else { return Ok(None) };
    Ok(Some(SpanValue {
        start,
        end: row.get(at + 1)?,
        label: row.get(at + 2)?,
        category: row.get(at + 3)?,
        subcategory: row.get(at + 4)?,
    }))
}

/// The unit stored in the three columns from `at` (cluster start, cluster end, claim).
fn unit(row: &Row, at: usize) -> Result<Option<Unit>, DbError> {
    let start: Option<usize> = row.get(at)?;
    let end: Option<usize> = row.get(at + 1)?;
    let claim: Option<usize> = row.get(at + 2)?;
    Ok(match (start, end, claim) {
        (Some(start), Some(end), _) => Some(Unit::Cluster { start, end }),
        (_, _, Some(k)) => Some(Unit::Claim(k)),
        _ => None,
    })
}

/// Read column `at` as a record outcome (`open`, `clean`, `removed`).
pub(super) fn outcome(row: &Row, at: usize) -> Result<OutcomeKind, DbError> {
    let name: String = row.get(at)?;
    OutcomeKind::from_name(&name).ok_or_else(|| DbError::Decode {
        column: at,
        message: format!("unknown record outcome {name:?} (written by a newer spanreview?)"),
    })
}

fn list(row: &Row, at: usize) -> Result<Vec<String>, DbError> {
    let text: String = row.get(at)?;
    serde_json::from_str(&text).map_err(|e| DbError::Decode {
        column: at,
        message: format!("{text:?} is not a JSON list of names: {e}"),
    })
}

#[cfg(test)]
mod tests;
