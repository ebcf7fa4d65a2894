//! A RAGTruth record read without building its JSON tree, for passes over every record that
//! need only its text and gold spans (`triage`): the fields it needs read from the line, the
//! rest skipped, and the request and evidence (most of a line) left as they are in the line
//! until asked for ([`Lazy`]). Any line this reader does not take exactly as [`super::parse`]
//! would (a value of another type, a span it would skip with a warning, a duplicate key) gives
//! `None`, and the caller reads it the full way: the two never give different records.

use std::borrow::Cow;

use serde_json::Value;

use crate::formats::lite_spans::{self, slots, string};
use crate::formats::validate::skim;
use crate::model::Record;

/// A record read from its line with its `query` and `context` still as the line has them:
/// [`Lazy::context`] and [`Lazy::query`] read them into [`Lazy::record`] when needed.
#[derive(Debug)]
pub struct Lazy<'a> {
    /// The record: its `query` and `context` empty until read.
    pub record: Record,
    query: Option<&'a str>,
    context: Option<&'a str>,
}

impl Lazy<'_> {
    /// Read the evidence into the record; false when the line's value is not one the full
    /// reader takes (the caller then reads the line the full way).
    #[must_use]
    pub fn context(&mut self) -> bool {
        text(self.context.take(), &mut self.record.context)
    }

    /// Read the request into the record, as [`Lazy::context`] does the evidence.
    #[must_use]
    pub fn query(&mut self) -> bool {
        text(self.query.take(), &mut self.record.query)
    }
}

/// `raw` (a JSON string or `null`, as the full reader takes an optional text field) into
/// `into`; false for any other value, or one already read (`None` then leaves `into` as is).
fn text(raw: Option<&str>, into: &mut String) -> bool {
    let Some(raw) = raw else { return true };
    match serde_json::from_str::<Option<String>>(raw) {
        Ok(v) => {
            *into = v.unwrap_or_default();
            true
        }
        Err(_) => false,
    }
}

/// The record of the line `bytes` with its fields and gold spans as [`super::parse`] reads
/// them, but no `raw` value (`Value::Null`, span objects empty); `None` when the line needs
/// the full reader.
#[must_use]
pub fn parse(bytes: &[u8]) -> Option<Record> {
    let mut lazy = parse_lazy(bytes)?;
    (lazy.query() && lazy.context()).then_some(lazy.record)
}

/// The span reader's reader ([`crate::formats::FormatSpec::lite`]): [`parse_lazy`]'s record,
/// request and evidence left empty; a joined file's line (whose gold a join drops) is left to
/// the full reader.
#[must_use]
pub fn spans_only(bytes: &[u8], _source: &str, joined: bool) -> Option<Record> {
    if joined {
        return None;
    }
    parse_lazy(bytes).map(|l| l.record)
}

/// [`parse`] with the request and evidence left unread ([`Lazy`]): the line skimmed once
/// ([`skim::top`], which checks it is one JSON object), the members needed parsed from their
/// own slices. A key with an escape (`"i\u0064"` is `"id"`), a duplicate key, or a member of
/// another type gives `None`.
#[must_use]
pub fn parse_lazy(bytes: &[u8]) -> Option<Lazy<'_>> {
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let Ok(skim::Top::Object(members, meta)) = skim::top(text, "meta") else {
        return None;
    };
    let [id, output, query, context, labels, meta_raw] =
        slots(&members, ["id", "output", "query", "context", "hallucination_labels", "meta"])?;
    let corruption_type = match (meta_raw, meta) {
        (None | Some("null"), _) => None,
        (Some(_), Some(m)) => {
            let [t] = slots(&m, ["corruption_type"])?;
            let t: Option<Cow<'_, str>> = t.map_or(Some(None), |t| serde_json::from_str(t).ok())?;
            t.map(Cow::into_owned)
        }
        (Some(_), None) => return None,
    };
    let gold = lite_spans::spans(labels)?;
    let record = Record {
        corruption_type,
        ..Record::new(string(id)?, string(output)?, gold, Vec::new(), Value::Null)
    };
    Some(Lazy {
        record,
        query,
        context,
    })
}

#[cfg(test)]
mod tests;
