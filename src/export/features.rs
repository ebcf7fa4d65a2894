//! `--features`: the types of every field of the exported records, as a Hugging Face `datasets`
//! `Features` dictionary (`Features.to_dict()`), so that the files of one export load together.
//!
//! `datasets`' JSON loader infers the types from the first file alone and casts every later
//! file to them: a first file whose labels are all `[]` (the `clean` split file), whose
//! `meta.review` is missing (a file without reviewed records under `--provenance`) or null,
//! gives a type the other files cannot be cast to. JSON cannot type an empty list; this
//! schema, merged over every record of every file, can: `load_dataset("json", data_files=...,
//! features=Features.from_dict(json.load(open(PATH))))`.
//!
//! `--verdicts-features`: the same for the verdicts file, whose one shape is known statically:
//! the types come from the serialised form of a verdict with every field filled (every list one
//! element, every option given), so they follow the verdict struct and cannot drift from it.

use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::Context;
use serde_json::{json, Map, Value};

use super::atomic::AtomicFile;
use super::output::RecordFile;
use crate::formats::index::Layout;
use crate::model::escape::to_stderr;
use crate::review::outcome::{Dispute, LabelView, Reason, Verdict};

/// The type of a field, merged over records.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// Only `null` (or an empty list's element) seen so far.
    Null,
    /// `true`/`false`.
    Bool,
    /// Integers.
    Int,
    /// Numbers with a fraction (integers seen too are widened).
    Float,
    /// Strings.
    Str,
    /// Lists of this element type (`Null` for lists only ever empty).
    List(Box<Ty>),
    /// Objects: each key with its type, in first-seen order.
    Struct(Vec<(String, Ty)>),
    /// Types that do not merge (a string here, an object there): stored as JSON text.
    Mixed,
}

impl Ty {
    /// The type of one value.
    #[must_use]
    pub fn of(v: &Value) -> Self {
        match v {
            Value::Null => Self::Null,
            Value::Bool(_) => Self::Bool,
            Value::Number(n) if n.is_i64() || n.is_u64() => Self::Int,
            Value::Number(_) => Self::Float,
            Value::String(_) => Self::Str,
            Value::Array(a) => Self::List(Box::new(
                a.iter().fold(Self::Null, |t, v| t.merge(Self::of(v))),
            )),
            Value::Object(o) => {
                Self::Struct(o.iter().map(|(k, v)| (k.clone(), Self::of(v))).collect())
            }
        }
    }

    /// The type of both: null and empty lists take the other's type, integers widen to
    /// floats, objects take every key of both; anything else is [`Ty::Mixed`].
    #[must_use]
    pub fn merge(self, other: Self) -> Self {
        match (self, other) {
            (Self::Null, t) | (t, Self::Null) => t,
            (Self::Int, Self::Float) | (Self::Float, Self::Int) => Self::Float,
            (Self::List(a), Self::List(b)) => Self::List(Box::new(a.merge(*b))),
            (Self::Struct(mut a), Self::Struct(b)) => {
                for (k, t) in b {
                    match a.iter_mut().find(|(ka, _)| *ka == k) {
                        Some((_, ta)) => *ta = std::mem::replace(ta, Self::Null).merge(t),
                        None => a.push((k, t)),
                    }
                }
                Self::Struct(a)
            }
            (a, b) if a == b => a,
            _ => Self::Mixed,
        }
    }

    /// As a `datasets` feature (`Features.to_dict()` form).
    #[must_use]
    pub fn feature(&self) -> Value {
        let value = |dtype: &str| json!({"dtype": dtype, "_type": "Value"});
        match self {
            Self::Null => value("null"),
            Self::Bool => value("bool"),
            Self::Int => value("int64"),
            Self::Float => value("float64"),
            Self::Str => value("string"),
            Self::List(t) => json!({"feature": t.feature(), "_type": "List"}),
            Self::Struct(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, t)| (k.clone(), t.feature()))
                    .collect::<Map<String, Value>>(),
            ),
            Self::Mixed => json!({"_type": "Json"}),
        }
    }

    /// Dotted paths of the fields of mixed types (`meta.x`, `labels[].y`).
    #[must_use]
    pub fn mixed(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.mixed_at("", &mut out);
        out
    }

    fn mixed_at(&self, at: &str, out: &mut Vec<String>) {
        match self {
            Self::Mixed => out.push(at.to_owned()),
            Self::List(t) => t.mixed_at(&format!("{at}[]"), out),
            Self::Struct(fields) => {
                for (k, t) in fields {
                    let p = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    t.mixed_at(&p, out);
                }
            }
            _ => {}
        }
    }
}

/// Merge the type of every record of the record file at `path` (`layout`) into `ty`. Lines
/// that are not JSON (unreadable input lines passed through) are skipped: they were reported.
///
/// # Errors
/// The file cannot be read.
pub fn add_file(ty: Ty, path: &Path, layout: Layout) -> anyhow::Result<Ty> {
    let read = || format!("reading {}", path.display());
    let file = std::fs::File::open(path).with_context(read)?;
    let mut ty = ty;
    match layout {
        Layout::Array => {
            let v: Value =
                serde_json::from_reader(std::io::BufReader::new(file)).with_context(read)?;
            for r in v.as_array().into_iter().flatten() {
                ty = ty.merge(Ty::of(r));
            }
        }
        Layout::Lines | Layout::Parquet => {
            let mut r = std::io::BufReader::with_capacity(1 << 20, file);
            let mut line = Vec::new();
            loop {
                line.clear();
                if r.read_until(b'\n', &mut line).with_context(read)? == 0 {
                    break;
                }
                if let Ok(v) = serde_json::from_slice::<Value>(&line) {
                    if v.is_object() {
                        ty = ty.merge(Ty::of(&v));
                    }
                }
            }
        }
    }
    Ok(ty)
}

/// The `--features` file at `p`: the types of every record of `files`, merged (fields of
/// several types warned about).
///
/// # Errors
/// A record file cannot be read, or `p` cannot be written.
pub fn write(p: &Path, files: &[RecordFile], layout: Layout) -> anyhow::Result<AtomicFile> {
    let mut ty = Ty::Null;
    for f in files {
        ty = add_file(ty, f.written(), layout)?;
    }
    let mixed = ty.mixed();
    if !mixed.is_empty() {
        to_stderr!(
            "warning: --features: these fields have values of several types in the records \
             (typed Json: datasets keeps them as JSON text): {}",
            mixed.join(", ")
        );
    }
    write_json(p, &ty.feature())
}

/// A verdict with every field filled: every list holds one element, every option is given, so
/// that its serialised form types every field (a new field must be given here to compile, and
/// a test refuses one left `null` or empty).
fn full_verdict() -> Verdict {
    let label = LabelView {
        start: 0,
        end: 1,
        text: "°".into(),
        label: "label".into(),
        category: Some("category".into()),
        subcategory: Some("subcategory".into()),
    };
    let s = |v: &str| vec![v.to_owned()];
    Verdict {
        id: "id".into(),
        reviewed: true,
        outcomes: s("kept"),
        corruption_type_before: Some("before".into()),
        corruption_type_after: Some("after".into()),
        labels_before: vec![label.clone()],
        labels_after: vec![label.clone()],
        strict_dropped: vec![label],
        disputes: vec![Dispute {
            decision: 1,
            span_key: Some("gold:0".into()),
            unit: "cluster 0-1".into(),
            upheld_span: true,
            upheld: s("judge_a"),
            dismissed: s("judge_b"),
            reviewer: "ann".into(),
            superseded_by: Some(2),
        }],
        upheld: s("judge_a"),
        dismissed: s("judge_b"),
        reviewers: s("ann"),
        time: Some("time".into()),
        notes: s("note"),
        reasons: vec![Reason {
            decision: 1,
            action: "drop".into(),
            span_key: Some("gold:0".into()),
            reason: Some("reason".into()),
            note: Some("note".into()),
        }],
        flagged: true,
        decisions: vec![1],
        stale: vec![2],
        undone: vec![3],
        undo_redo: vec![4],
    }
}

/// The type of the verdicts file's line.
///
/// # Errors
/// A verdict does not serialise (it always does: plain strings, numbers and lists).
pub fn verdict_type() -> anyhow::Result<Ty> {
    let v = serde_json::to_value(full_verdict()).context("serialising a verdict")?;
    Ok(Ty::of(&v))
}

/// The `--verdicts-features` file at `p`: the types of the verdicts file's line.
///
/// # Errors
/// `p` cannot be written.
pub fn write_verdicts(p: &Path) -> anyhow::Result<AtomicFile> {
    write_json(p, &verdict_type()?.feature())
}

fn write_json(p: &Path, v: &Value) -> anyhow::Result<AtomicFile> {
    let mut out = AtomicFile::create(p)?;
    let w = out.writer()?;
    serde_json::to_writer_pretty(&mut *w, v).with_context(|| format!("writing {}", p.display()))?;
    w.write_all(b"\n")?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths of the fields `ty` leaves untyped (`null`, or lists of `null`).
    fn untyped(ty: &Ty, at: &str, out: &mut Vec<String>) {
        match ty {
            Ty::Null => out.push(at.to_owned()),
            Ty::List(t) => untyped(t, &format!("{at}[]"), out),
            Ty::Struct(fields) => {
                for (k, t) in fields {
                    untyped(t, &format!("{at}.{k}"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn the_verdict_features_type_every_field_the_verdict_serialiser_writes() {
        let ty = verdict_type().expect("type");
        let mut bare = Vec::new();
        untyped(&ty, "", &mut bare);
        assert!(bare.is_empty(), "untyped: {bare:?}");
        assert!(ty.mixed().is_empty(), "{:?}", ty.mixed());
        let f = ty.feature();
        assert_eq!(f["notes"]["feature"]["dtype"], "string");
        assert_eq!(f["decisions"]["feature"]["dtype"], "int64");
        assert_eq!(f["labels_after"]["feature"]["category"]["dtype"], "string");
        assert_eq!(f["flagged"]["dtype"], "bool");
    }

    #[test]
    fn empty_lists_nulls_and_missing_keys_take_the_type_seen_elsewhere() {
        let recs = [
            json!({"id": "a°", "labels": [], "meta": {"t": "clean", "note": null}}),
            json!({"id": "b", "labels": [{"start": 1, "end": 3, "text": "東京", "label": "x"}],
                   "meta": {"t": "x", "note": "’", "review": {"reviewers": ["ann"], "outcome": []}}}),
            json!({"id": "c", "labels": [{"start": 1, "end": 2.5, "extra": true}], "meta": {"t": 3}}),
        ];
        let ty = recs.iter().fold(Ty::Null, |t, r| t.merge(Ty::of(r)));
        let f = ty.feature();
        assert_eq!(f["id"], json!({"dtype": "string", "_type": "Value"}));
        let label = &f["labels"]["feature"];
        assert_eq!(f["labels"]["_type"], "List");
        assert_eq!(label["end"]["dtype"], "float64");
        assert_eq!(label["text"]["dtype"], "string");
        assert_eq!(label["extra"]["dtype"], "bool");
        assert_eq!(f["meta"]["note"]["dtype"], "string");
        assert_eq!(
            f["meta"]["review"]["reviewers"]["feature"]["dtype"],
            "string"
        );
        // only ever empty: no type to give
        assert_eq!(f["meta"]["review"]["outcome"]["feature"]["dtype"], "null");
        assert_eq!(f["meta"]["t"], json!({"_type": "Json"}));
        assert_eq!(ty.mixed(), ["meta.t"]);
        let keys: Vec<&String> = f.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["id", "labels", "meta"]);
    }
}
