//! Annotation sources imported once (`--judge NAME=FILE`, migration 0002), and arbitration
//! resolutions written as `resolve` decisions.
//!
//! A source is imported under the SHA-256 of its file's bytes: [`Store::source_by_hash`] finds
//! an earlier import of the same bytes, so reopening with the same files reads the spans from
//! here and never re-parses the file; a changed file has another hash and is imported anew. Spans
//! are stored per record as a JSON array of span objects (see `migrations/0002_sources.sql`),
//! `raw` included, so a judge's verdict and a detector's extra keys come back as they were read.
//!
//! [`Store::resolve`] writes one resolution of a disputed cluster: one `resolve` decision per
//! span the result settles ([`resolution_decisions`]), all in one transaction.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{params, OptionalExtension};
use serde_json::{json, Map, Value};

use super::{new_origin, now, row, RecordState, Store, StoreError};
use crate::model::{AnswerMark, Record, SourceRole, Span};
use crate::review::decision::{ActionKind, Decision, RecordReview, SpanKey, SpanValue, Unit};
use crate::review::disagreement::{Disagreement, Outcome};

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

fn read_source(r: &rusqlite::Row<'_>) -> rusqlite::Result<SourceRow> {
    let role: String = r.get(2)?;
    let path: String = r.get(3)?;
    Ok(SourceRow {
        id: r.get(0)?,
        name: r.get(1)?,
        role: role_of(&role).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                2,
                rusqlite::types::Type::Text,
                format!("unknown role {role:?}").into(),
            )
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
                {
                    let mut st = tx
                        .prepare_cached(
                            "UPDATE source_span SET answer = ?3, line = ?4 \
                             WHERE source_id = ?1 AND record_id = ?2 AND answer IS NULL",
                        )
                        .map_err(|e| self.err(&*what, e))?;
                    for (rid, a) in answers {
                        st.execute(params![found.id, rid, a.hash, a.line])
                            .map_err(|e| self.err(&*what, e))?;
                    }
                }
                tx.commit().map_err(|e| self.err(&*what, e))?;
            }
            return Ok(found.id);
        }
        let what = format!("importing source {name:?} from {}", path.display());
        let tx = self.begin()?;
        tx.execute(
            "INSERT INTO source (name, role, path, hash, format, imported, records) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                name,
                role_name(role),
                path.display().to_string(),
                hash,
                format,
                now(),
                spans_by_record.len()
            ],
        )
        .map_err(|e| self.err(&*what, e))?;
        let id = tx.last_insert_rowid();
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO source_span (source_id, record_id, spans, answer, line) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(|e| self.err(&*what, e))?;
            let mut ids: Vec<&String> = spans_by_record.keys().collect();
            ids.sort_unstable();
            for rid in ids {
                let list = Value::Array(spans_by_record[rid].iter().map(span_json).collect());
                let a = answers.get(rid);
                st.execute(params![
                    id,
                    rid,
                    list.to_string(),
                    a.map(|a| &a.hash),
                    a.map(|a| a.line)
                ])
                .map_err(|e| self.err(&*what, e))?;
            }
        }
        tx.commit().map_err(|e| self.err(&*what, e))?;
        Ok(id)
    }

    /// The sources imported from a file with these bytes (every name), oldest first.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn source_by_hash(&self, hash: &str) -> Result<Vec<SourceRow>, StoreError> {
        self.source_rows("WHERE hash = ?1", &[&hash])
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
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<SourceRow>, StoreError> {
        let what = "reading the imported sources";
        let sql = format!("SELECT {SOURCE_COLUMNS} FROM source {filter} ORDER BY id");
        let mut st = self
            .conn
            .prepare_cached(&sql)
            .map_err(|e| self.err(what, e))?;
        let rows = st
            .query_map(args, read_source)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|e| self.err(what, e))?;
        Ok(rows)
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
            .query_row(
                "SELECT spans FROM source_span WHERE source_id = ?1 AND record_id = ?2",
                params![source, record_id],
                |r| r.get(0),
            )
            .optional()
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
        let mut st = self
            .conn
            .prepare_cached("SELECT record_id, spans FROM source_span WHERE source_id = ?1")
            .map_err(|e| self.err(&*what, e))?;
        let rows = st
            .query_map([source], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
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
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT record_id, answer, line FROM source_span \
                 WHERE source_id = ?1 AND answer IS NOT NULL AND line IS NOT NULL",
            )
            .map_err(|e| self.err(&*what, e))?;
        let rows = st
            .query_map([source], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    AnswerMark {
                        hash: r.get(1)?,
                        line: r.get(2)?,
                    },
                ))
            })
            .and_then(Iterator::collect::<Result<HashMap<_, _>, _>>)
            .map_err(|e| self.err(&*what, e))?;
        Ok(rows)
    }

    /// Append several decisions (and, when given, the record's new state) in one IMMEDIATE
    /// transaction, committed before returning; all or none are saved. Returns them as saved.
    ///
    /// # Errors
    /// As [`Store::append`], for any of them.
    pub fn append_all(
        &self,
        decisions: &[Decision],
        state: Option<&RecordState>,
    ) -> Result<Vec<Decision>, StoreError> {
        for d in decisions {
            self.check(d, state)?;
        }
        let tx = self.begin()?;
        let saved = self.insert_rows(&tx, decisions)?;
        if let (Some(st), Some(last)) = (state, saved.last()) {
            self.upsert_state(&tx, last, st)?;
        }
        tx.commit()
            .map_err(|e| self.err("committing the decisions", e))?;
        Ok(saved)
    }

    /// Append decisions on one record, all or none, with the record's state computed inside
    /// the same IMMEDIATE transaction by `state_of` from the record's whole log as it is then
    /// (every reviewer's decisions, the new ones included with their ids): a decision another
    /// process saved since the caller last read the record is counted, never overwritten by a
    /// state computed without it. Returns the decisions as saved.
    ///
    /// # Errors
    /// As [`Store::append_all`]; also when the decisions are not all on one record. Nothing is
    /// saved on error.
    pub fn append_all_then(
        &self,
        decisions: &[Decision],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, StoreError> {
        let Some(first) = decisions.first() else {
            return Ok(Vec::new());
        };
        if decisions
            .iter()
            .any(|d| d.dataset != first.dataset || d.record_id != first.record_id)
        {
            return Err(self.invalid(
                "internal: decisions on several records saved with one record state".to_owned(),
            ));
        }
        for d in decisions {
            self.check(d, None)?;
        }
        let tx = self.begin()?;
        let saved = self.insert_rows(&tx, decisions)?;
        let log = self.record_decisions(&first.dataset, &first.record_id)?;
        let state = state_of(&log);
        if let Some(last) = saved.last() {
            self.check(last, Some(&state))?;
            self.upsert_state(&tx, last, &state)?;
        }
        tx.commit()
            .map_err(|e| self.err("committing the decisions", e))?;
        Ok(saved)
    }

    /// Append decisions on different records, each with its record's new state, in one
    /// IMMEDIATE transaction: all or none (one fsync for many, as the review screen's
    /// auto-accepts need). Returns the decisions as saved.
    ///
    /// # Errors
    /// As [`Store::append_all`], for any of them. Nothing is saved on error.
    pub fn append_each(
        &self,
        rows: &[(Decision, RecordState)],
    ) -> Result<Vec<Decision>, StoreError> {
        for (d, st) in rows {
            self.check(d, Some(st))?;
        }
        let tx = self.begin()?;
        let mut saved = Vec::with_capacity(rows.len());
        for (d, st) in rows {
            let s = self
                .insert_rows(&tx, std::slice::from_ref(d))?
                .pop()
                .ok_or_else(|| self.invalid("internal: a decision was not saved".to_owned()))?;
            self.upsert_state(&tx, &s, st)?;
            saved.push(s);
        }
        tx.commit()
            .map_err(|e| self.err("committing the decisions", e))?;
        Ok(saved)
    }

    /// Insert `decisions` in `tx` (time set to now when empty; undo and redo targets must be
    /// in the log); returns them with their ids.
    fn insert_rows(
        &self,
        tx: &rusqlite::Transaction<'_>,
        decisions: &[Decision],
    ) -> Result<Vec<Decision>, StoreError> {
        let mut saved = Vec::with_capacity(decisions.len());
        for d in decisions {
            let mut s = d.clone();
            if s.time.is_empty() {
                s.time = self.now_rfc3339();
            }
            if let Some(t) = s.target {
                if self.decision(t)?.is_none() {
                    return Err(self.invalid(format!(
                        "cannot save the {} of decision #{t}: there is no decision #{t} in the log",
                        s.action.name()
                    )));
                }
            }
            s.id = row::insert(tx, &s, &new_origin())
                .map_err(|e| self.err(format!("saving a {} decision", s.action.name()), e))?;
            saved.push(s);
        }
        Ok(saved)
    }

    /// Save the resolution of cluster `cluster` (see [`resolution_decisions`]) in one
    /// transaction, with the record's new state when given. Returns the decisions as saved.
    ///
    /// # Errors
    /// As [`Store::append_all`]; nothing is saved on error.
    #[allow(clippy::too_many_arguments)]
    pub fn resolve(
        &self,
        record: &Record,
        review: &RecordReview,
        d: &Disagreement,
        cluster: usize,
        outcome: &Outcome,
        dataset: &str,
        reviewer: &str,
        state: Option<&RecordState>,
    ) -> Result<Vec<Decision>, StoreError> {
        let ds = resolution_decisions(record, review, d, cluster, outcome, dataset, reviewer);
        self.append_all(&ds, state)
    }
}

/// The `resolve` decisions that record `outcome` on cluster `cluster` of `d`.
///
/// `d` must have been computed with the record's **reviewed** gold spans as its gold source
/// (`review.kept_spans(output)`, in that order: what
/// [`Arbitration::reviewed`](crate::formats::judges::Arbitration::reviewed) does), so that
/// gold span `k` of the cluster is the `k`-th kept span of `review`. The result spans are paired
/// with those gold spans by [`Outcome::assign`]: a gold span is adjusted (`span_key` its key,
/// `before` its current value, `after` the result) or dropped (`after` none), and a result with
/// no gold span is added under a fresh `added:<uid>` key. Every decision carries the outcome's
/// upheld and dismissed sources. A resolution that settles no span (everything dropped where
/// the gold had nothing) is still one decision, without a span key and with `before` set to the
/// cluster's range (empty label), so the verdict on the sources is logged; it changes no span.
/// Every row names the cluster it settles ([`Unit::Cluster`]) and shares one group id, as the
/// arbitration screen writes them, so the rows count as one vote per source on the cluster
/// ([`crate::review::outcome::votes`]); the reason `resolved` and note `resolution <uid>` are
/// for humans.
#[must_use]
pub fn resolution_decisions(
    record: &Record,
    review: &RecordReview,
    d: &Disagreement,
    cluster: usize,
    outcome: &Outcome,
    dataset: &str,
    reviewer: &str,
) -> Vec<Decision> {
    let kept: Vec<_> = review.spans.iter().filter(|s| s.kept()).collect();
    let gold_spans = review.kept_spans(&record.output);
    let in_cluster: Vec<usize> = d
        .clusters
        .get(cluster)
        .and_then(|c| d.gold.and_then(|g| c.source(g)))
        .map(|p| p.spans.clone())
        .unwrap_or_default();
    let unit = d.clusters.get(cluster).map(|c| Unit::Cluster {
        start: c.start,
        end: c.end,
    });
    let tag = unit.map(|_| "resolved".to_owned());
    let group: String = new_origin().chars().take(12).collect();
    let base = |key: Option<String>| {
        let mut x = Decision::new(record, dataset, reviewer, ActionKind::Resolve);
        x.span_key = key;
        x.reason.clone_from(&tag);
        x.note = Some(format!("resolution {group}"));
        x.unit = unit;
        x.record_units = Some(d.units());
        x.group = Some(group.clone());
        x.upheld.clone_from(&outcome.upheld);
        x.dismissed.clone_from(&outcome.dismissed);
        x
    };
    let mut out = Vec::new();
    for a in outcome.assign(&gold_spans, &in_cluster) {
        let (key, before) = match a.gold.and_then(|k| kept.get(k)) {
            Some(s) => (s.key.to_string(), Some(s.current.clone())),
            None => {
                let uid: String = new_origin().chars().take(12).collect();
                (SpanKey::Added(uid).to_string(), None)
            }
        };
        let mut x = base(Some(key));
        x.before = before;
        x.after = a.after.as_ref().map(SpanValue::of);
        out.push(x);
    }
    if out.is_empty() {
        let mut x = base(None);
        if let Some(c) = d.clusters.get(cluster) {
            x.before = Some(SpanValue::new(c.start, c.end, String::new()));
        }
        out.push(x);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Source, GOLD};
    use crate::review::decision::replay;
    use crate::review::disagreement::{cluster, resolve, Options, Resolution};

    fn spans(out: &str, v: &[(usize, usize, &str)]) -> Vec<Span> {
        v.iter().map(|&(a, b, l)| Span::new(out, a, b, l)).collect()
    }

    #[test]
    fn import_once_per_hash_and_read_back() {
        let store = Store::open_in_memory().expect("store");
        let out = "It is 25°C and rainy";
        let mut by: HashMap<String, Vec<Span>> = HashMap::new();
        let mut s = Span::new(out, 15, 20, "contradiction");
        s.confidence = Some(0.5);
        s.raw = serde_json::json!({"start": 15, "end": 20, "confidence": 0.5, "scores": {"a": 1}})
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

    #[test]
    fn resolutions_become_decisions_that_replay() {
        let out = "The hotel has a rooftop pool and a spa.";
        let rec = Record {
            id: "r".into(),
            query: String::new(),
            context: String::new(),
            output: out.into(),
            corruption_type: Some("contradiction".into()),
            sources: vec![
                Source::new(
                    GOLD,
                    SourceRole::Gold,
                    spans(out, &[(4, 9, "contradiction")]),
                ),
                Source::new(
                    "det",
                    SourceRole::Detector,
                    spans(out, &[(3, 9, ""), (35, 38, "")]),
                ),
            ],
            raw: Value::Null,
            warnings: Vec::new(),
        };
        let store = Store::open_in_memory().expect("store");
        let review = replay(&rec, &[]);
        let d = cluster(&rec.output, &rec.sources, &Options::default());
        assert_eq!(d.clusters.len(), 2);
        let o = resolve(&rec.output, &rec.sources, &d, 0, Resolution::Take(1)).expect("o");
        let saved = store
            .resolve(&rec, &review, &d, 0, &o, "ds", "me", None)
            .expect("saved");
        assert_eq!(saved.len(), 1);
        assert_eq!(saved[0].span_key.as_deref(), Some("gold:0"));
        assert_eq!(saved[0].upheld, ["det"]);
        let o = resolve(&rec.output, &rec.sources, &d, 1, Resolution::DropAll).expect("o");
        let saved2 = store
            .resolve(&rec, &review, &d, 1, &o, "ds", "me", None)
            .expect("saved");
        assert_eq!(saved2[0].span_key, None);
        assert_eq!(saved2[0].dismissed, ["det"]);
        // Tagged as the arbitration screen tags them: one vote per source on each cluster.
        let unit = crate::review::outcome::votes::unit;
        assert_eq!(
            (unit(&saved[0]), unit(&saved2[0])),
            ("cluster 3-9".into(), "cluster 35-38".into())
        );
        let log = store.decisions(Some("ds")).expect("log");
        let r = replay(&rec, &log);
        let kept = r.kept_spans(out);
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].start, kept[0].end), (3, 9));
    }
}
