//! The checks of one record line, per format, on the borrowed views of [`super::shape`].

use std::cell::OnceCell;

use serde_json::Value;

use super::labels::LabelSet;
use super::shape::{self, Scalar};
use super::Kind;
use crate::formats::position::{self, Origin};
use crate::formats::{quote, quote_str, Format};
use crate::model::CLEAN;

mod read;
mod spans;

pub(crate) use read::{parse, parse_text, scalar, utf8};
pub(crate) use spans::{ListSpec, Out};

/// What a record contributes to the checks across records.
#[derive(Debug, Default)]
pub struct Facts {
    /// The key duplicates are detected on (the id; id and span for judge decisions).
    pub key: Option<Box<str>>,
    /// `meta.base_id`, for split leakage.
    pub base_id: Option<Box<str>>,
    /// The record's type, for the summary (`None` when the format or the record has none).
    pub corruption_type: Option<Box<str>>,
}

/// Settings of one file's checks.
#[derive(Debug)]
pub struct Settings<'a> {
    /// The file's format.
    pub format: Format,
    /// Labels a gold span may carry.
    pub labels: &'a LabelSet,
    /// Every gold label must equal the record's type.
    pub strict: bool,
    /// Records without labels are accepted whatever their type.
    pub allow_clean: bool,
}

/// Collects one record's problems; can quote any value of the line.
pub(crate) struct Sink<'b> {
    bytes: &'b [u8],
    /// Where the record starts in the file, to place a JSON error.
    origin: &'b Origin<'b>,
    value: OnceCell<Option<Value>>,
    problems: Vec<(Kind, String)>,
}

impl Sink<'_> {
    pub fn push(&mut self, kind: Kind, message: String) {
        self.problems.push((kind, message));
    }

    /// Report `e`, an error parsing the whole record, at its place in the file.
    pub fn invalid_json(&mut self, e: &serde_json::Error) {
        let why = position::json_error(e, self.bytes, self.origin);
        self.push(Kind::InvalidJson, format!("invalid JSON: {why}"));
    }

    /// The value at JSON pointer `ptr`, quoted (lists and objects are read again from the line).
    pub fn quote(&self, ptr: &str, s: &Scalar<'_>) -> String {
        if let Some(q) = s.quote() {
            return q;
        }
        let v = self
            .value
            .get_or_init(|| serde_json::from_slice(self.bytes).ok());
        v.as_ref()
            .and_then(|v| v.pointer(ptr))
            .map_or_else(|| s.kind().to_owned(), quote)
    }

    /// A required string field.
    pub fn req_str<'s>(&mut self, s: &'s Scalar<'_>, name: &str, ptr: &str) -> Option<&'s str> {
        match s {
            Scalar::Str(v) => Some(v),
            Scalar::Missing => {
                self.push(Kind::MissingField, format!("missing field \"{name}\""));
                None
            }
            other => {
                let q = self.quote(ptr, other);
                self.push(
                    Kind::WrongType,
                    format!("field \"{name}\" is not a string: {q}"),
                );
                None
            }
        }
    }

    /// A required, non-blank string field.
    pub fn req_text<'s>(&mut self, s: &'s Scalar<'_>, name: &str, ptr: &str) -> Option<&'s str> {
        let v = self.req_str(s, name, ptr)?;
        if v.trim().is_empty() {
            self.push(
                Kind::EmptyField,
                format!("field \"{name}\" is empty: {}", quote_str(v)),
            );
        }
        Some(v)
    }

    /// An optional string field (absent or null is fine).
    pub fn opt_str<'s>(&mut self, s: &'s Scalar<'_>, name: &str, ptr: &str) -> Option<&'s str> {
        match s {
            Scalar::Missing | Scalar::Null => None,
            _ => self.req_str(s, name, ptr),
        }
    }

    /// A string field kept raw: present, a string and (when `required`) not blank.
    pub fn blob(&mut self, b: shape::Blob<'_>, name: &str, required: bool) {
        let Some(raw) = b.0 else {
            if required {
                self.push(Kind::MissingField, format!("missing field \"{name}\""));
            }
            return;
        };
        if !raw.starts_with('"') {
            if raw == "null" && !required {
                return;
            }
            let q =
                serde_json::from_str::<Value>(raw).map_or_else(|_| raw.to_owned(), |v| quote(&v));
            self.push(
                Kind::WrongType,
                format!("field \"{name}\" is not a string: {q}"),
            );
            return;
        }
        if !required {
            return;
        }
        let inner = raw[1..raw.len().saturating_sub(1)]
            .trim_start_matches(|c: char| c.is_ascii_whitespace());
        let blank = inner.is_empty()
            || (inner.starts_with('\\')
                && serde_json::from_str::<String>(raw).is_ok_and(|s| s.trim().is_empty()));
        if blank {
            self.push(
                Kind::EmptyField,
                format!("field \"{name}\" is empty: {raw}"),
            );
        }
    }

    /// A required field of any type.
    pub fn present(&mut self, s: &Scalar<'_>, name: &str) {
        if s.is_missing() {
            self.push(Kind::MissingField, format!("missing field \"{name}\""));
        }
    }
}

/// One record line being checked: its problems so far and the file's settings. A format's
/// checks ([`crate::formats::FormatSpec::check`]) fill it through the methods here and of
/// [`Sink`].
pub(crate) struct Checker<'r> {
    /// The problems, and the line for quoting.
    pub(crate) sink: Sink<'r>,
    set: &'r Settings<'r>,
    /// The record's type, once read (for [`Checker::check_type`] and the summary).
    pub(crate) corruption_type: Option<String>,
}

/// Check one record, which starts at `origin`; returns its problems and facts.
#[must_use]
pub(crate) fn check(
    bytes: &[u8],
    origin: &Origin<'_>,
    set: &Settings<'_>,
) -> (Vec<(Kind, String)>, Facts) {
    let mut r = Checker {
        sink: Sink {
            bytes,
            origin,
            value: OnceCell::new(),
            problems: Vec::new(),
        },
        set,
        corruption_type: None,
    };
    let facts = (set.format.spec().check)(&mut r, bytes).unwrap_or_default();
    (r.sink.problems, facts)
}

fn boxed(s: Option<&str>) -> Option<Box<str>> {
    s.map(Box::from)
}

impl Checker<'_> {
    /// What the record contributes to the checks across records: `key` (duplicates are found
    /// on it), `base_id` (split leakage) and the type read.
    pub(crate) fn facts(&self, key: Option<&str>, base_id: Option<&str>) -> Facts {
        Facts {
            key: boxed(key),
            base_id: boxed(base_id),
            corruption_type: boxed(self.corruption_type.as_deref()),
        }
    }

    /// The type's own checks, once the number of gold spans is known (`None`: the list could
    /// not be read, so the label count checks are skipped).
    pub(crate) fn check_type(&mut self, name: &str, n_gold: Option<usize>) {
        let Some(t) = self.corruption_type.as_deref() else {
            return;
        };
        if !self.set.labels.has_label(t) {
            let msg = format!(
                "{name} {} is not in the label set ({})",
                quote_str(t),
                self.set.labels.describe()
            );
            self.sink.push(Kind::UnknownType, msg);
        }
        let Some(n_gold) = n_gold else {
            return;
        };
        if t == CLEAN && n_gold > 0 {
            let s = if n_gold == 1 { "" } else { "s" };
            self.sink.push(
                Kind::CleanWithLabels,
                format!("clean record carries {n_gold} label{s} (clean records have none)"),
            );
        } else if t != CLEAN && n_gold == 0 && !self.set.allow_clean {
            self.sink.push(
                Kind::Unlabeled,
                format!(
                    "record of type {} has no labels (pass --allow-clean to accept unlabeled records)",
                    quote_str(t)
                ),
            );
        }
    }
}
