//! Annotation sources imported once (`--judge NAME=FILE`, migration 0002).
//!
//! A source is imported under the SHA-256 of its file's bytes: [`Store::source_by_hash`] finds
//! an earlier import of the same bytes, so reopening with the same files reads the spans from
//! here and never re-parses the file; a changed file has another hash and is imported anew. Spans
//! are stored per record as a JSON array of span objects (see `migrations/0002_sources.sql`),
//! `raw` included, so a judge's verdict and a detector's extra keys come back as they were read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::engine::{self, vals, DbError};
use super::{now, Store, StoreError};
use crate::model::{AnswerMark, SourceRole, Span};

/// Row id of an imported source.
pub type SourceId = i64;

/// One imported source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SourceRow {
    /// Row id.
    pub id: SourceId,
    /// Source name.
    pub name: String,
    /// What it is.
    pub role: SourceRole,
    /// The file it was imported from, as given then.
    pub path: PathBuf,
    /// SHA-256 of the file's bytes (64 hex digits).
    pub hash: String,
    /// Format name (`predictions`, `decisions`, ..., `database`).
    pub format: String,
    /// When, RFC 3339 UTC.
    pub imported: String,
    /// Records it has spans (or an empty list) for.
    pub records: usize,
}

fn role_name(role: SourceRole) -> &'static str {
    match role {
        SourceRole::Gold => "gold",
        SourceRole::Detector => "detector",
        SourceRole::Annotator => "annotator",
        SourceRole::Judge => "judge",
    }
}

fn role_of(name: &str) -> Option<SourceRole> {
    serde_json::from_value(Value::String(name.to_owned())).ok()
}

/// A span as stored: `{start, end, text, label, category?, subcategory?, confidence?, raw?}`.
#[must_use]
pub fn span_json(s: &Span) -> Value {
    let mut o = Map::new();
    o.insert("start".into(), json!(s.start));
    o.insert("end".into(), json!(s.end));
    o.insert("text".into(), json!(s.text));
    o.insert("label".into(), json!(s.label));
    if let Some(c) = &s.category {
        o.insert("category".into(), json!(c));
    }
    if let Some(c) = &s.subcategory {
        o.insert("subcategory".into(), json!(c));
    }
    if let Some(c) = s.confidence {
        o.insert("confidence".into(), json!(c));
    }
    if !s.raw.is_empty() {
        o.insert("raw".into(), Value::Object(s.raw.clone()));
    }
    Value::Object(o)
}

/// A span read back from [`span_json`]; `None` when the object is not one.
#[must_use]
pub fn span_of_json(v: &Value) -> Option<Span> {
    let o = v.as_object()?;
    let n = |k: &str| {
        o.get(k)
            .and_then(Value::as_u64)
            .and_then(|x| usize::try_from(x).ok())
    };
    let s = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(Span {
        start: n("start")?,
        end: n("end")?,
        text: s("text").unwrap_or_default(),
        label: s("label").unwrap_or_default(),
        category: s("category"),
        subcategory: s("subcategory"),
        confidence: o.get("confidence").and_then(Value::as_f64),
        raw: o
            .get("raw")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
    })
}

fn spans_of_text(text: &str) -> Result<Vec<Span>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    v.as_array()
        .ok_or_else(|| "not a list".to_owned())?
        .iter()
        .map(|x| span_of_json(x).ok_or_else(|| format!("not a span: {x}")))
        .collect()
}

const SOURCE_COLUMNS: &str = "id, name, role, path, hash, format, imported, records";

fn read_source(r: &engine::Row) -> Result<SourceRow, DbError> {
    let role: String = r.get(2)?;
    let path: String = r.get(3)?;
    Ok(SourceRow {
        id: r.get(0)?,
        name: r.get(1)?,
        role: role_of(&role).ok_or_else(|| DbError::Decode {
            column: 2,
            message: format!("unknown role {role:?}"),
        })?,
        path: PathBuf::from(path),
        hash: r.get(4)?,
        format: r.get(5)?,
        imported: r.get(6)?,
        records: r.get(7)?,
    })
}

impl Store {
    /// Open a database for reading only (another reviewer's database, read as a source): a
    /// private in-memory copy ([`Store::open_snapshot`]), so nothing is written to the file, its
    /// WAL or its folder, and a folder the user cannot write is no obstacle. A database newer
    /// than this build is refused.
    ///
    /// # Errors
    /// No file at `path`, not a database, or a newer schema.
    pub fn open_read_only(path: &Path) -> Result<Self, StoreError> {
        Self::open_snapshot(path)
    }

    /// Import a source: its name, role, file, content hash and format, its spans by record id
    /// and the answer text each record's spans were made on (`answers`, by record id; empty
    /// when the file carries none), in one transaction. When a source of this name was already
    /// imported from the same bytes (`hash`), only answer marks it lacks (an import made before
    /// they were stored) are filled in, and its id is returned.
    ///
    /// # Errors
    /// The write fails (nothing is saved then).
    #[allow(clippy::too_many_arguments)]
    pub fn import_source(
        &self,
        name: &str,
        role: SourceRole,
        path: &Path,
        hash: &str,
        format: &str,
        spans_by_record: &HashMap<String, Vec<Span>>,
        answers: &HashMap<String, AnswerMark>,
    ) -> Result<SourceId, StoreError> {
        if let Some(found) = self
            .source_by_hash(hash)?
            .into_iter()
            .find(|s| s.name == name)
        {
            if !answers.is_empty() {
                let what = format!("recording the answer texts of source {name:?}");
                let tx = self.begin()?;
                for (rid, a) in answers {
                    self.conn
                        .execute(
                            "UPDATE source_span SET answer = ?3, line = ?4 \
                             WHERE source_id = ?1 AND record_id = ?2 AND answer IS NULL",
                            &vals![found.id, rid, a.hash, a.line],
                        )
                        .map_err(|e| self.err(&*what, e))?;
                }
                tx.commit().map_err(|e| self.err(&*what, e))?;
            }
            return Ok(found.id);
        }
        let what = format!("importing source {name:?} from {}", path.display());
        let tx = self.begin()?;
        let id: i64 = self
            .conn
            .query_opt(
                "INSERT INTO source (name, role, path, hash, format, imported, records) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
                &vals![
                    name,
                    role_name(role),
                    path.display().to_string(),
                    hash,
                    format,
                    now(),
                    spans_by_record.len()
                ],
            )
            .and_then(|r| r.map_or(Ok(None), |r| r.get(0)))
            .map_err(|e| self.err(&*what, e))?
            .ok_or_else(|| self.invalid(format!("{what}: INSERT … RETURNING id gave no row")))?;
        let mut ids: Vec<&String> = spans_by_record.keys().collect();
        ids.sort_unstable();
        for rid in ids {
            let list = Value::Array(spans_by_record[rid].iter().map(span_json).collect());
            let a = answers.get(rid);
            self.conn
                .execute(
                    "INSERT INTO source_span (source_id, record_id, spans, answer, line) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    &vals![
                        id,
                        rid,
                        list.to_string(),
                        a.map(|a| &a.hash),
                        a.map(|a| a.line)
                    ],
                )
                .map_err(|e| self.err(&*what, e))?;
        }
        tx.commit().map_err(|e| self.err(&*what, e))?;
        Ok(id)
    }

    /// The sources imported from a file with these bytes (every name), oldest first.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn source_by_hash(&self, hash: &str) -> Result<Vec<SourceRow>, StoreError> {
        self.source_rows("WHERE hash = ?1", &vals![hash])
    }

    /// Every imported source, oldest first.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn sources(&self) -> Result<Vec<SourceRow>, StoreError> {
        self.source_rows("", &[])
    }

    fn source_rows(
        &self,
        filter: &str,
        args: &[engine::Value],
    ) -> Result<Vec<SourceRow>, StoreError> {
        let sql = format!("SELECT {SOURCE_COLUMNS} FROM source {filter} ORDER BY id");
        self.conn
            .query(&sql, args)
            .and_then(|rows| rows.iter().map(read_source).collect())
            .map_err(|e| self.err("reading the imported sources", e))
    }

    /// A source's spans on one record; `None` when it has nothing on the record.
    ///
    /// # Errors
    /// SQLite fails, or the stored spans cannot be read back.
    pub fn source_spans(
        &self,
        source: SourceId,
        record_id: &str,
    ) -> Result<Option<Vec<Span>>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_opt(
                "SELECT spans FROM source_span WHERE source_id = ?1 AND record_id = ?2",
                &vals![source, record_id],
            )
            .and_then(|r| r.map(|r| r.get(0)).transpose())
            .map_err(|e| self.err(format!("reading source #{source} on {record_id:?}"), e))?;
        text.map(|t| {
            spans_of_text(&t).map_err(|m| {
                self.invalid(format!(
                    "source #{source}, record {record_id:?}: stored spans unreadable: {m}"
                ))
            })
        })
        .transpose()
    }

    /// All of a source's spans, by record id.
    ///
    /// # Errors
    /// SQLite fails, or stored spans cannot be read back.
    pub fn source_all_spans(
        &self,
        source: SourceId,
    ) -> Result<HashMap<String, Vec<Span>>, StoreError> {
        let what = format!("reading the spans of source #{source}");
        let rows: Vec<(String, String)> = self
            .conn
            .query(
                "SELECT record_id, spans FROM source_span WHERE source_id = ?1",
                &vals![source],
            )
            .and_then(|rows| rows.iter().map(|r| Ok((r.get(0)?, r.get(1)?))).collect())
            .map_err(|e| self.err(&*what, e))?;
        rows.into_iter()
            .map(|(id, text)| {
                let spans = spans_of_text(&text).map_err(|m| {
                    self.invalid(format!(
                        "{what}: record {id:?}: stored spans unreadable: {m}"
                    ))
                })?;
                Ok((id, spans))
            })
            .collect()
    }

    /// The answer text each record's spans of a source were made on, by record id (records
    /// whose mark is not known are absent).
    ///
    /// # Errors
    /// SQLite fails.
    pub fn source_answers(
        &self,
        source: SourceId,
    ) -> Result<HashMap<String, AnswerMark>, StoreError> {
        let what = format!("reading the answer texts of source #{source}");
        self.conn
            .query(
                "SELECT record_id, answer, line FROM source_span \
                 WHERE source_id = ?1 AND answer IS NOT NULL AND line IS NOT NULL",
                &vals![source],
            )
            .and_then(|rows| {
                rows.iter()
                    .map(|r| {
                        let mark = AnswerMark {
                            hash: r.get(1)?,
                            line: r.get(2)?,
                        };
                        Ok((r.get(0)?, mark))
                    })
                    .collect()
            })
            .map_err(|e| self.err(&*what, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_once_per_hash_and_read_back() {
        for store in crate::store::test_db::stores() {
            let store = &*store;
            let out = "It is 25°C and rainy";
            let mut by: HashMap<String, Vec<Span>> = HashMap::new();
            let mut s = Span::new(out, 15, 20, "contradiction");
            s.confidence = Some(0.5);
            s.raw =
                serde_json::json!({"start": 15, "end": 20, "confidence": 0.5, "scores": {"a": 1}})
                    .as_object()
                    .cloned()
                    .unwrap_or_default();
            by.insert("r1".into(), vec![s.clone()]);
            by.insert("r2".into(), Vec::new());
            let h = "a".repeat(64);
            let p = Path::new("preds.jsonl");
            let import = |hash: &str, answers: &HashMap<String, AnswerMark>| {
                store
                    .import_source(
                        "det",
                        SourceRole::Detector,
                        p,
                        hash,
                        "predictions",
                        &by,
                        answers,
                    )
                    .expect("import")
            };
            let none = HashMap::new();
            let id = import(&h, &none);
            let again = import(&h, &none);
            assert_eq!(id, again);
            assert_eq!(store.sources().expect("rows").len(), 1);
            assert_eq!(store.source_spans(id, "r1").expect("read"), Some(vec![s]));
            assert_eq!(store.source_spans(id, "r2").expect("read"), Some(vec![]));
            assert_eq!(store.source_spans(id, "r3").expect("read"), None);
            assert_eq!(store.source_all_spans(id).expect("all"), by);
            let other = import(&"b".repeat(64), &none);
            assert_ne!(id, other);
            let rows = store.source_by_hash(&h).expect("rows");
            assert_eq!(rows.len(), 1);
            assert_eq!((rows[0].records, rows[0].role), (2, SourceRole::Detector));

            // Answer marks: none known for the first import; given again with them (an import made
            // before they were stored), they are filled in, and an import with them stores them.
            assert!(store.source_answers(id).expect("answers").is_empty());
            let mark = |h: &str, line| AnswerMark {
                hash: crate::model::answer_hash(h),
                line,
            };
            let answers: HashMap<String, AnswerMark> = [
                ("r1".to_owned(), mark("It is 25°C in 東京 🙂", 1)),
                ("r2".to_owned(), mark("e\u{301}", 7)),
            ]
            .into();
            assert_eq!(import(&h, &answers), id, "filled in");
            assert_eq!(store.source_answers(id).expect("answers"), answers);
            let third = import(&"c".repeat(64), &answers);
            assert_eq!(store.source_answers(third).expect("answers"), answers);
        }
    }
}
