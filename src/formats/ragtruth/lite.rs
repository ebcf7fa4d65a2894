//! A RAGTruth record read without building its JSON tree, for passes over every record that
//! need only its text and gold spans (`triage`): the fields it needs read from the line, the
//! rest skipped, and the request and evidence (most of a line) left as they are in the line
//! until asked for ([`Lazy`]). Any line this reader does not take exactly as [`super::parse`]
//! would (a value of another type, a span it would skip with a warning, a duplicate key) gives
//! `None`, and the caller reads it the full way: the two never give different records.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::formats::validate::skim;
use crate::model::{Record, Span};

#[derive(Deserialize)]
struct LineSpan<'a> {
    start: u64,
    end: u64,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    label: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    category: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subcategory: Option<Cow<'a, str>>,
    #[serde(default)]
    confidence: Option<f64>,
}

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
    let labels: Vec<LineSpan<'_>> = match labels {
        None => Vec::new(),
        Some(l) => serde_json::from_str(l).ok()?,
    };
    let own = |c: Option<Cow<'_, str>>| c.map(Cow::into_owned);
    let gold = labels
        .into_iter()
        .map(|s| {
            Some(Span {
                start: usize::try_from(s.start).ok()?,
                end: usize::try_from(s.end).ok()?,
                text: own(s.text).unwrap_or_default(),
                label: own(s.label).unwrap_or_default(),
                category: own(s.category),
                subcategory: own(s.subcategory),
                confidence: s.confidence,
                raw: serde_json::Map::new(),
            })
        })
        .collect::<Option<Vec<Span>>>()?;
    let string = |raw: Option<&str>| -> Option<String> {
        serde_json::from_str::<Cow<'_, str>>(raw?).ok().map(Cow::into_owned)
    };
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

/// The raw values of the members named `keys`, in that order; `None` when a key of `members`
/// holds an escape or one of `keys` occurs twice.
fn slots<'a, const N: usize>(members: &[(&'a str, &'a str)], keys: [&str; N]) -> Option<[Option<&'a str>; N]> {
    let mut out = [None; N];
    for &(k, v) in members {
        if k.contains('\\') {
            return None;
        }
        if let Some(i) = keys.iter().position(|&key| key == k) {
            if out[i].replace(v).is_some() {
                return None;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests;
