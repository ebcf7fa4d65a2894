//! Export of one record: its bytes as read when no decision is in force, otherwise its replayed
//! review written back through the format's writer.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::lenient::lenient_id;
use super::output;
use super::span_check;
use super::style::{self, Style};
use super::ExportOptions;
use crate::formats::index::Layout;
use crate::formats::{DataFile, Dataset, FormatError};
use crate::model::{escape, Record, Span, CLEAN};
use crate::review::decision::{
    active_ids, replay, ActionKind, Decision, RecordOutcome, RecordReview,
};
use crate::review::outcome::{self, strict_split, type_after};

/// A record's bytes: built, or where they are in the input file (copied as they are).
pub enum Bytes {
    /// Serialised here.
    Built(Vec<u8>),
    /// Bytes `offset..offset + len` of the leading input file (one JSONL line, line end
    /// excluded).
    Input {
        /// First byte.
        offset: u64,
        /// Length.
        len: u32,
    },
}

impl Bytes {
    /// Record `i` of `file`, read as `bytes`, as it is in the input: where it is when it is one
    /// JSONL line of that length (the writer copies runs of them at once), else its bytes.
    fn as_read(file: &DataFile, i: usize, bytes: &[u8]) -> Self {
        match (file.index.layout(), file.index.entry(i)) {
            (Layout::Lines, Some(e))
                if e.len as usize == bytes.len() && !escape::json_needs_escape(bytes) =>
            {
                Self::Input {
                    offset: e.offset,
                    len: e.len,
                }
            }
            // A record holding a character JSON leaves raw (C1, bidirectional controls) is
            // built: the writer escapes it, as every JSON output is.
            _ => Self::Built(bytes.to_vec()),
        }
    }
}

/// One record's line, ready to write.
pub struct Line {
    /// The serialised record.
    pub bytes: Bytes,
    /// Its `--split-by` value (empty when not splitting; `none` when it has none).
    pub route: String,
    /// Under `--split-by`, the record has no value in the field (missing or null).
    pub no_value: bool,
    /// Its type is `clean` (for `--clean-in-all`).
    pub clean: bool,
    /// The record's index in a parquet input it is unchanged from: a parquet output copies
    /// that row's Arrow values rather than the JSON made of them.
    pub row: Option<usize>,
}

impl Line {
    /// A line passed through as it was read (not split, so no route).
    fn unchanged(bytes: Bytes) -> Self {
        Self {
            bytes,
            route: String::new(),
            no_value: false,
            clean: false,
            row: None,
        }
    }

    /// Record `i` of `file` passed through as it was read, as `bytes`.
    fn as_read(file: &DataFile, i: usize, bytes: &[u8]) -> Self {
        let mut line = Self::unchanged(Bytes::as_read(file, i, bytes));
        if file.index.layout() == Layout::Parquet {
            line.row = Some(i);
        }
        line
    }
}

/// What became of one input record.
pub struct Item {
    /// The line to write, `None` when the record is left out.
    pub line: Option<Line>,
    /// Labels `--strict` dropped.
    pub strict_dropped: Vec<Span>,
    /// For records with decisions in the log: the record, its review and the labels exported.
    pub review: Option<(Record, RecordReview, Vec<Span>)>,
    /// The line could not be read as a record: it is passed through as it is (left out when
    /// splitting) and reported.
    pub unreadable: Option<Unreadable>,
    /// Exported spans without a label (formats whose spans carry labels).
    pub unlabeled_spans: usize,
    /// Labels of a reviewed record that could not be read (a `"start": 46.0`, say), and so are
    /// not in its exported line.
    pub unreadable_labels: usize,
    /// Kept spans of a reviewed record that do not slice its output (reversed, out of range):
    /// `FILE:LINE: record ...` each. Export refuses to write them.
    pub bad_spans: Vec<String>,
}

/// A line of the input that could not be read as a record.
pub struct Unreadable {
    /// `FILE:LINE: message`.
    pub problem: String,
    /// Its id, when that much could be read.
    pub id: Option<String>,
    /// The decisions in force on that id (not applied: there is no record to apply them to).
    pub decisions: Vec<i64>,
}

/// The per-record work, shared by both passes.
pub struct Exporter<'a> {
    /// The command line.
    pub args: &'a ExportOptions,
    /// The input.
    pub dataset: &'a Dataset,
    /// The dataset's decisions, by record id.
    pub log: &'a HashMap<String, Vec<Decision>>,
    /// Problems worth telling the user (out-of-range kept spans, unreadable labels).
    pub warnings: Vec<String>,
}

impl Exporter<'_> {
    /// Record `i` of the leading file, exported. Its bytes are read once.
    pub fn item(&mut self, i: usize) -> anyhow::Result<Item> {
        let bytes = self.dataset.primary().index.bytes(i)?;
        self.item_in(i, &bytes)
    }

    /// Record `i` of the leading file, whose bytes are `bytes`, exported. A line that cannot
    /// be read as a record is an [`Unreadable`] item, not an error.
    pub fn item_in(&mut self, i: usize, bytes: &[u8]) -> anyhow::Result<Item> {
        self.item_with_id(i, bytes, self.dataset.primary().id_of(bytes))
    }

    /// As [`Exporter::item_in`], with the record's id already read as its format reads it
    /// ([`DataFile::id_of`]).
    pub(super) fn item_with_id(
        &mut self,
        i: usize,
        bytes: &[u8],
        id: Option<String>,
    ) -> anyhow::Result<Item> {
        // The id alone is cheap to read; formats whose ids are derived need the full parse.
        let (id, parsed) = match id {
            Some(id) => (id, None),
            None => match self.parse(i, bytes) {
                Ok(r) => (r.id.clone(), Some(r)),
                Err(e) => return Ok(self.unreadable(i, bytes, lenient_id(bytes), &e)),
            },
        };
        let Some(decisions) = self.log.get(&id) else {
            let needs_record =
                !self.args.reviewed_only && (self.args.strict || self.args.split_by.is_some());
            let parsed = match parsed {
                None if needs_record => match self.parse(i, bytes) {
                    Ok(r) => Some(r),
                    Err(e) => return Ok(self.unreadable(i, bytes, Some(id), &e)),
                },
                p => p,
            };
            let (line, strict_dropped) = self.unchanged(i, bytes, parsed)?;
            return Ok(Item {
                line,
                strict_dropped,
                review: None,
                unreadable: None,
                unlabeled_spans: 0,
                unreadable_labels: 0,
                bad_spans: Vec::new(),
            });
        };
        let rec = match parsed {
            Some(r) => r,
            None => match self.parse(i, bytes) {
                Ok(r) => r,
                Err(e) => return Ok(self.unreadable(i, bytes, Some(id), &e)),
            },
        };
        let review = replay(&rec, decisions);
        if !review.has_verdict() {
            let (line, strict_dropped) = self.unchanged(i, bytes, Some(rec.clone()))?;
            let exported = if line.is_some() {
                let (kept, _) =
                    self.strict(rec.gold_spans().to_vec(), rec.corruption_type.as_deref());
                kept
            } else {
                Vec::new()
            };
            return Ok(Item {
                line,
                strict_dropped,
                review: Some((rec, review, exported)),
                unreadable: None,
                unlabeled_spans: 0,
                unreadable_labels: 0,
                bad_spans: Vec::new(),
            });
        }
        self.reviewed(i, bytes, rec, review)
    }

    /// Line `i`, which cannot be read as a record (`e` says why): passed through as it is
    /// (its bytes copied; left out under `--split-by`, where it has no route), with the
    /// decisions in force on its id, when the id could be read, listed as not applied.
    fn unreadable(&self, i: usize, bytes: &[u8], id: Option<String>, e: &FormatError) -> Item {
        let file = self.dataset.primary();
        let line = if self.args.split_by.is_some() {
            None
        } else {
            Some(Line::as_read(file, i, bytes))
        };
        let decisions = id
            .as_ref()
            .and_then(|id| self.log.get(id))
            .map(|log| {
                let mut log = log.clone();
                log.sort_by_key(|d| d.id);
                let active = active_ids(&log);
                log.iter()
                    .filter(|d| d.action.is_verdict() && active.contains(d.id))
                    .map(|d| d.id)
                    .collect()
            })
            .unwrap_or_default();
        Item {
            line,
            strict_dropped: Vec::new(),
            review: None,
            unreadable: Some(Unreadable {
                problem: e.to_string(),
                id,
                decisions,
            }),
            unlabeled_spans: 0,
            unreadable_labels: 0,
            bad_spans: Vec::new(),
        }
    }

    /// Record `i` of the leading file parsed from its bytes.
    fn parse(&self, i: usize, bytes: &[u8]) -> Result<Record, FormatError> {
        self.dataset.primary().record_in(i, bytes)
    }

    /// The `--split-by` route of the record written as `value`, and whether it has no value
    /// there (routed to `none`); empty when not splitting.
    fn route(&self, value: &Value) -> (String, bool) {
        match self.args.split_by.as_deref() {
            None => (String::new(), false),
            Some(f) => match output::route_of(value, f) {
                Some(r) => (r, false),
                None => (output::NO_VALUE.to_owned(), true),
            },
        }
    }

    fn strict(&self, spans: Vec<Span>, corruption_type: Option<&str>) -> (Vec<Span>, Vec<Span>) {
        if self.args.strict {
            strict_split(spans, corruption_type)
        } else {
            (spans, Vec::new())
        }
    }

    /// Record `i`, which has no decision, copied from the input unread (nothing with
    /// `--reviewed-only`). Only for JSONL input without `--strict` or `--split-by`.
    ///
    /// # Errors
    /// Record `i` is not in the index (internal: never left out without a word).
    pub(super) fn copied(&self, i: usize) -> anyhow::Result<Item> {
        let entry = self
            .dataset
            .primary()
            .index
            .entry(i)
            .ok_or_else(|| anyhow::anyhow!("internal: record {i} is not in the index"))?;
        let line = (!self.args.reviewed_only).then(|| {
            Line::unchanged(Bytes::Input {
                offset: entry.offset,
                len: entry.len,
            })
        });
        Ok(Item {
            line,
            strict_dropped: Vec::new(),
            review: None,
            unreadable: None,
            unlabeled_spans: 0,
            unreadable_labels: 0,
            bad_spans: Vec::new(),
        })
    }

    /// A record without a decision in force: its bytes as read, unless `--strict` drops one of
    /// its labels; `None` with `--reviewed-only`.
    fn unchanged(
        &self,
        i: usize,
        bytes: &[u8],
        parsed: Option<Record>,
    ) -> anyhow::Result<(Option<Line>, Vec<Span>)> {
        if self.args.reviewed_only {
            return Ok((None, Vec::new()));
        }
        let file = self.dataset.primary();
        if !self.args.strict && self.args.split_by.is_none() {
            let line = Line::as_read(file, i, bytes);
            return Ok((Some(line), Vec::new()));
        }
        let rec = match parsed {
            Some(r) => r,
            None => self.parse(i, bytes)?,
        };
        let (kept, dropped) =
            self.strict(rec.gold_spans().to_vec(), rec.corruption_type.as_deref());
        let (bytes, value) = if dropped.is_empty() {
            (bytes.to_vec(), None)
        } else {
            let v = file.format.write(&rec.raw, &kept, None);
            (style::to_bytes(&v, Style::of(bytes))?, Some(v))
        };
        let (route, no_value) = self.route(value.as_ref().unwrap_or(&rec.raw));
        let clean = rec.corruption_type.as_deref() == Some(CLEAN);
        Ok((
            Some(Line {
                bytes: Bytes::Built(bytes),
                route,
                no_value,
                clean,
                row: None,
            }),
            dropped,
        ))
    }

    /// A record with decisions in force: the kept spans written back in its own schema.
    fn reviewed(
        &mut self,
        i: usize,
        bytes: &[u8],
        rec: Record,
        review: RecordReview,
    ) -> anyhow::Result<Item> {
        let removed = match &review.outcome {
            RecordOutcome::Removed { reason } => Some(reason.clone()),
            _ => None,
        };
        if removed.is_some() && !self.args.keep_removed {
            return Ok(Item {
                line: None,
                strict_dropped: Vec::new(),
                review: Some((rec, review, Vec::new())),
                unreadable: None,
                unlabeled_spans: 0,
                unreadable_labels: 0,
                bad_spans: Vec::new(),
            });
        }
        let (spans, bad_spans) = if removed.is_some() {
            // Kept with a marker: its span decisions still apply.
            let mut open = review.clone();
            open.outcome = RecordOutcome::Open;
            self.kept_spans(i, &rec, &open)
        } else {
            self.kept_spans(i, &rec, &review)
        };
        let type_after = type_after(&rec, &review);
        let (kept, strict_dropped) = self.strict(spans, type_after.as_deref());
        let set_type = outcome::type_to_write(&rec, &review);
        let file = self.dataset.primary();
        self.warn_relabels_not_written(&rec, &review);
        let mut value = file.format.write(&rec.raw, &kept, set_type.as_deref());
        if self.args.provenance || removed.is_some() {
            add_review_meta(
                &mut value,
                self.review_meta(&rec, &review, removed.as_ref()),
            );
        }
        let mut bad_spans = bad_spans;
        if bad_spans.is_empty() {
            // What `validate` would reject is never written (spans that do not slice their
            // output are told above already).
            bad_spans =
                self.refused_spans(i, (&rec, &review), (&value, &kept, set_type.as_deref()));
        }
        let (route, no_value) = self.route(&value);
        let line = Line {
            bytes: Bytes::Built(style::to_bytes(&value, Style::of(bytes))?),
            route,
            no_value,
            clean: type_after.as_deref() == Some(CLEAN),
            row: None,
        };
        let unlabeled_spans = self.unlabeled_spans(&rec, &kept);
        let exported = if removed.is_some() { Vec::new() } else { kept };
        let unreadable_labels = file.format.unreadable_labels(&rec);
        Ok(Item {
            line: Some(line),
            strict_dropped,
            review: Some((rec, review, exported)),
            unreadable: None,
            unlabeled_spans,
            unreadable_labels,
            bad_spans,
        })
    }

    /// Warn that `review`'s relabels of `rec` are not written, in a format whose spans carry
    /// no label.
    fn warn_relabels_not_written(&mut self, rec: &Record, review: &RecordReview) {
        let Some(why) = self.dataset.primary().format.spec().labels_not_written else {
            return;
        };
        let relabels = review
            .applied
            .iter()
            .filter(|d| d.action == ActionKind::Relabel)
            .count();
        if relabels > 0 {
            self.warnings.push(format!(
                "record {:?}: {relabels} relabel(s) not written: {why} (the report still \
                 counts them as categories corrected)",
                rec.id
            ));
        }
    }

    /// `meta.review` of a reviewed record: with `--provenance` its reviewers, time and
    /// outcome; `removed` and its reason when it was removed (and kept).
    fn review_meta(
        &self,
        rec: &Record,
        review: &RecordReview,
        removed: Option<&String>,
    ) -> Map<String, Value> {
        let mut m = Map::new();
        if self.args.provenance {
            let mut who: Vec<&str> = review.applied.iter().map(|d| d.reviewer.as_str()).collect();
            who.sort_unstable();
            who.dedup();
            m.insert("reviewers".into(), json!(who));
            m.insert(
                "time".into(),
                json!(review.applied.iter().map(|d| d.time.as_str()).max()),
            );
            m.insert("outcome".into(), json!(outcome::outcomes(rec, review)));
        }
        if let Some(reason) = removed {
            m.insert("removed".into(), json!(reason));
        }
        m
    }

    /// The kept spans of line `i` that `validate` would reject in the written `value`
    /// ([`span_check::refused`]); what the input already fails there is warned about.
    fn refused_spans(
        &mut self,
        i: usize,
        read: (&Record, &RecordReview),
        written: (&Value, &[Span], Option<&str>),
    ) -> Vec<String> {
        let file = self.dataset.primary();
        let at = format!("{}:{}", file.path().display(), file.line(i));
        let found = span_check::refused(file.format, &at, read, written);
        for w in found.as_read {
            self.warnings
                .push(format!("{w} (the input fails `validate` there too)"));
        }
        found.refused
    }

    /// Warn about each of `spans` (written into `rec`) that has no label, in formats whose
    /// spans carry labels ([`crate::formats::Format::unlabeled`]); the writer writes them as
    /// they are. Returns how many there are.
    fn unlabeled_spans(&mut self, rec: &Record, spans: &[Span]) -> usize {
        let mut n = 0;
        for s in self.dataset.primary().format.unlabeled(spans) {
            n += 1;
            self.warnings.push(format!(
                "record {}: span [{},{}) has no label",
                rec.id, s.start, s.end
            ));
        }
        n
    }

    /// The spans the review keeps, and a message for each that does not slice the output
    /// (reversed, out of range): such a span is never written, the export is refused.
    fn kept_spans(
        &mut self,
        i: usize,
        rec: &Record,
        review: &RecordReview,
    ) -> (Vec<Span>, Vec<String>) {
        let spans = review.kept_spans(&rec.output);
        let kept = review.spans.iter().filter(|s| s.kept());
        let mut bad = Vec::new();
        for (span, rs) in spans.iter().zip(kept) {
            if span.slice(&rec.output).is_some() {
                continue;
            }
            let file = self.dataset.primary();
            let from = span_check::set_by(review, &rs.key);
            bad.push(format!(
                "{}:{}: record {:?}: span {} [{}, {}) does not slice its output ({} code points: \
                 {}); {from}",
                file.path().display(),
                file.line(i),
                rec.id,
                rs.key,
                span.start,
                span.end,
                crate::model::offsets::char_len(&rec.output),
                if span.start > span.end {
                    "the span is reversed"
                } else {
                    "the span reaches past its end"
                },
            ));
        }
        if !rec.warnings.is_empty() {
            self.warnings.push(format!(
                "record {:?}: reviewed, but some of its labels could not be read and are not in \
                 the export: {}",
                rec.id,
                rec.warnings.join("; ")
            ));
        }
        (spans, bad)
    }
}

/// Put `review` under `meta.review` (`meta` created last when absent; a top-level `review`
/// when `meta` is not an object).
fn add_review_meta(value: &mut Value, review: Map<String, Value>) {
    let Some(obj) = value.as_object_mut() else {
        return;
    };
    match obj.get_mut("meta") {
        Some(Value::Object(meta)) => {
            meta.insert("review".into(), Value::Object(review));
        }
        Some(_) => {
            obj.insert("review".into(), Value::Object(review));
        }
        None => {
            obj.insert("meta".into(), json!({ "review": review }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn review_goes_under_meta_created_last_when_absent() {
        let review = || Map::from_iter([("removed".to_owned(), json!("other"))]);
        let mut with_meta = json!({"id": "a", "meta": {"x": 1}, "z": 2});
        add_review_meta(&mut with_meta, review());
        assert_eq!(
            with_meta.to_string(),
            r#"{"id":"a","meta":{"x":1,"review":{"removed":"other"}},"z":2}"#
        );
        let mut without = json!({"id": "a", "gold_spans": []});
        add_review_meta(&mut without, review());
        assert_eq!(
            without.to_string(),
            r#"{"id":"a","gold_spans":[],"meta":{"review":{"removed":"other"}}}"#
        );
        let mut odd = json!({"id": "a", "meta": "text"});
        add_review_meta(&mut odd, review());
        assert_eq!(odd["meta"], "text");
        assert_eq!(odd["review"]["removed"], "other");
    }
}
