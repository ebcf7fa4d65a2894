//! The checks of one record line, per format, on the borrowed views of [`super::shape`].

use std::cell::OnceCell;

use serde_json::Value;

use super::labels::LabelSet;
use super::shape::{self, Obj, OneSpan, Scalar, SpanItem};
use super::Kind;
use crate::formats::{quote, Format};

mod read;
mod spans;

use read::{parse, parse_ragtruth};
use spans::{ListSpec, Out};

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
struct Sink<'b> {
    bytes: &'b [u8],
    value: OnceCell<Option<Value>>,
    problems: Vec<(Kind, String)>,
}

impl Sink<'_> {
    fn push(&mut self, kind: Kind, message: String) {
        self.problems.push((kind, message));
    }

    /// The value at JSON pointer `ptr`, quoted (lists and objects are read again from the line).
    fn quote(&self, ptr: &str, s: &Scalar<'_>) -> String {
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
    fn req_str<'s>(&mut self, s: &'s Scalar<'_>, name: &str, ptr: &str) -> Option<&'s str> {
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
    fn req_text<'s>(&mut self, s: &'s Scalar<'_>, name: &str, ptr: &str) -> Option<&'s str> {
        let v = self.req_str(s, name, ptr)?;
        if v.trim().is_empty() {
            self.push(
                Kind::EmptyField,
                format!("field \"{name}\" is empty: {}", shape::quote_str(v)),
            );
        }
        Some(v)
    }

    /// An optional string field (absent or null is fine).
    fn opt_str<'s>(&mut self, s: &'s Scalar<'_>, name: &str, ptr: &str) -> Option<&'s str> {
        match s {
            Scalar::Missing | Scalar::Null => None,
            _ => self.req_str(s, name, ptr),
        }
    }

    /// A string field kept raw: present, a string and (when `required`) not blank.
    fn blob(&mut self, b: shape::Blob<'_>, name: &str, required: bool) {
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
    fn present(&mut self, s: &Scalar<'_>, name: &str) {
        if s.is_missing() {
            self.push(Kind::MissingField, format!("missing field \"{name}\""));
        }
    }
}

struct Record<'r> {
    sink: Sink<'r>,
    set: &'r Settings<'r>,
    corruption_type: Option<String>,
}

/// Check one record line; returns its problems and facts.
#[must_use]
pub fn check(bytes: &[u8], set: &Settings<'_>) -> (Vec<(Kind, String)>, Facts) {
    let mut r = Record {
        sink: Sink {
            bytes,
            value: OnceCell::new(),
            problems: Vec::new(),
        },
        set,
        corruption_type: None,
    };
    let facts = match set.format {
        Format::Ragtruth => r.ragtruth(bytes),
        Format::Predictions => r.predictions(bytes),
        Format::Decisions => r.decision(bytes),
        Format::Lettuce => r.lettuce(bytes),
        Format::Mushroom => r.mushroom(bytes),
    };
    (r.sink.problems, facts)
}

fn boxed(s: Option<&str>) -> Option<Box<str>> {
    s.map(Box::from)
}

impl Record<'_> {
    fn ragtruth(&mut self, bytes: &[u8]) -> Facts {
        let Some(rec) = parse_ragtruth(&mut self.sink, bytes) else {
            return Facts::default();
        };
        let s = &mut self.sink;
        let id = s.req_str(&rec.id, "id", "/id");
        s.blob(rec.query, "query", true);
        s.blob(rec.context, "context", true);
        let output = s.req_text(&rec.output, "output", "/output");
        let mut base_id = None;
        match &rec.meta {
            Obj::Ok(m) => {
                s.req_str(&m.source, "meta.source", "/meta/source");
                base_id = s.req_str(&m.base_id, "meta.base_id", "/meta/base_id");
                self.corruption_type = s
                    .req_str(
                        &m.corruption_type,
                        "meta.corruption_type",
                        "/meta/corruption_type",
                    )
                    .map(str::to_owned);
                match &m.tools {
                    Scalar::List => {}
                    Scalar::Missing => s.present(&m.tools, "meta.tools"),
                    other => {
                        let q = s.quote("/meta/tools", other);
                        s.push(
                            Kind::WrongType,
                            format!("field \"meta.tools\" is not a list: {q}"),
                        );
                    }
                }
                s.present(&m.tool_call, "meta.tool_call");
            }
            Obj::Missing => s.push(Kind::MissingField, "missing field \"meta\"".to_owned()),
            Obj::Other(o) => {
                let q = s.quote("/meta", o);
                s.push(
                    Kind::WrongType,
                    format!("field \"meta\" is not an object: {q}"),
                );
            }
        }
        if let (Some(id), Some(base)) = (id, base_id) {
            let belongs = id
                .strip_prefix(base)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("__"));
            if !belongs {
                s.push(
                    Kind::IdBaseMismatch,
                    format!(
                        "id {} does not belong to meta.base_id {} (ids are <base_id>__<variant>)",
                        shape::quote_str(id),
                        shape::quote_str(base)
                    ),
                );
            }
        }
        let out = output.map(|o| Out::new(o, "output"));
        let spec = ListSpec {
            key: "hallucination_labels",
            ptr: "/hallucination_labels",
            pairs: false,
            need_text: true,
            need_label: true,
            gold: true,
        };
        let n = self.list(&rec.hallucination_labels, spec, out.as_ref(), true);
        self.check_type("meta.corruption_type", n);
        Facts {
            key: boxed(id),
            base_id: boxed(base_id),
            corruption_type: self.corruption_type.as_deref().map(Box::from),
        }
    }

    fn predictions(&mut self, bytes: &[u8]) -> Facts {
        let Some(rec) = parse::<shape::Predictions<'_>>(&mut self.sink, bytes) else {
            return Facts::default();
        };
        let s = &mut self.sink;
        let id = s.req_str(&rec.id, "id", "/id");
        let output = s.req_text(&rec.output, "output", "/output");
        self.corruption_type = s
            .req_str(&rec.corruption_type, "corruption_type", "/corruption_type")
            .map(str::to_owned);
        let out = output.map(|o| Out::new(o, "output"));
        let gold = ListSpec {
            key: "gold_spans",
            ptr: "/gold_spans",
            pairs: false,
            need_text: true,
            need_label: true,
            gold: true,
        };
        let n = self.list(&rec.gold_spans, gold, out.as_ref(), true);
        let pred = ListSpec {
            key: "pred_spans",
            ptr: "/pred_spans",
            need_text: false,
            need_label: false,
            gold: false,
            ..gold
        };
        self.list(&rec.pred_spans, pred, out.as_ref(), true);
        self.check_type("corruption_type", n);
        Facts {
            key: boxed(id),
            base_id: None,
            corruption_type: self.corruption_type.as_deref().map(Box::from),
        }
    }

    fn decision(&mut self, bytes: &[u8]) -> Facts {
        let Some(rec) = parse::<shape::Decision<'_>>(&mut self.sink, bytes) else {
            return Facts::default();
        };
        let s = &mut self.sink;
        let id = s.req_str(&rec.id, "id", "/id");
        self.corruption_type = s
            .opt_str(&rec.corruption_type, "corruption_type", "/corruption_type")
            .map(str::to_owned);
        s.blob(rec.judge_raw, "judge_raw", false);
        match &rec.judge {
            Obj::Ok(j) => {
                match &j.label_correct {
                    Scalar::Str(v) if matches!(v.as_ref(), "true" | "false" | "unknown") => {}
                    Scalar::Missing => s.present(&j.label_correct, "judge.label_correct"),
                    other => {
                        let q = s.quote("/judge/label_correct", other);
                        s.push(
                            Kind::BadValue,
                            format!("judge.label_correct is not \"true\", \"false\" or \"unknown\": {q}"),
                        );
                    }
                }
                match &j.extra_hallucination {
                    Scalar::Bool(_) => {}
                    Scalar::Missing => {
                        s.present(&j.extra_hallucination, "judge.extra_hallucination");
                    }
                    other => {
                        let q = s.quote("/judge/extra_hallucination", other);
                        s.push(
                            Kind::WrongType,
                            format!("field \"judge.extra_hallucination\" is not a boolean: {q}"),
                        );
                    }
                }
                s.req_str(&j.extra_text, "judge.extra_text", "/judge/extra_text");
                s.req_str(&j.reasoning, "judge.reasoning", "/judge/reasoning");
                s.opt_str(&j.parse_error, "judge.parse_error", "/judge/parse_error");
            }
            Obj::Missing => s.push(Kind::MissingField, "missing field \"judge\"".to_owned()),
            Obj::Other(o) => {
                let q = s.quote("/judge", o);
                s.push(
                    Kind::WrongType,
                    format!("field \"judge\" is not an object: {q}"),
                );
            }
        }
        let spec = ListSpec {
            key: "labeled_span",
            ptr: "/labeled_span",
            pairs: false,
            need_text: true,
            need_label: true,
            gold: true,
        };
        let mut span_key = String::new();
        let n = match &rec.labeled_span {
            OneSpan::Missing => {
                self.sink.push(
                    Kind::MissingField,
                    "missing field \"labeled_span\"".to_owned(),
                );
                None
            }
            OneSpan::Null => Some(0),
            OneSpan::Item(item) => {
                if let SpanItem::Obj(o) = item {
                    span_key = format!(
                        " [{}, {})",
                        o.start.quote().unwrap_or_default(),
                        o.end.quote().unwrap_or_default()
                    );
                }
                self.item(item, None, spec, None);
                Some(1)
            }
        };
        self.check_type("corruption_type", n);
        Facts {
            key: id.map(|i| format!("{i}{span_key}").into_boxed_str()),
            base_id: None,
            corruption_type: self.corruption_type.as_deref().map(Box::from),
        }
    }

    fn lettuce(&mut self, bytes: &[u8]) -> Facts {
        let Some(rec) = parse::<shape::Lettuce<'_>>(&mut self.sink, bytes) else {
            return Facts::default();
        };
        let s = &mut self.sink;
        let id = s.opt_str(&rec.id, "id", "/id");
        s.blob(rec.prompt, "prompt", false);
        let output = s.req_str(&rec.answer, "answer", "/answer");
        let out = output.map(|o| Out::new(o, "answer"));
        let spec = ListSpec {
            key: "labels",
            ptr: "/labels",
            pairs: false,
            need_text: false,
            need_label: true,
            gold: true,
        };
        self.list(&rec.labels, spec, out.as_ref(), true);
        Facts {
            key: boxed(id),
            base_id: None,
            corruption_type: None,
        }
    }

    fn mushroom(&mut self, bytes: &[u8]) -> Facts {
        let Some(rec) = parse::<shape::Mushroom<'_>>(&mut self.sink, bytes) else {
            return Facts::default();
        };
        let s = &mut self.sink;
        let id = s.req_str(&rec.id, "id", "/id");
        s.blob(rec.model_input, "model_input", false);
        let output = s.req_str(
            &rec.model_output_text,
            "model_output_text",
            "/model_output_text",
        );
        let out = output.map(|o| Out::new(o, "model_output_text"));
        let hard = ListSpec {
            key: "hard_labels",
            ptr: "/hard_labels",
            pairs: true,
            need_text: false,
            need_label: false,
            gold: true,
        };
        self.list(&rec.hard_labels, hard, out.as_ref(), true);
        let soft = ListSpec {
            key: "soft_labels",
            ptr: "/soft_labels",
            pairs: false,
            gold: false,
            ..hard
        };
        self.list(&rec.soft_labels, soft, out.as_ref(), false);
        match &rec.annotations {
            Obj::Ok(anns) => {
                for (name, list) in &anns.0 {
                    let key = format!("annotations.{name}");
                    let ptr = format!(
                        "/annotations/{}",
                        name.replace('~', "~0").replace('/', "~1")
                    );
                    let spec = ListSpec {
                        key: &key,
                        ptr: &ptr,
                        pairs: true,
                        gold: false,
                        ..hard
                    };
                    self.list(list, spec, out.as_ref(), true);
                }
            }
            Obj::Missing => {}
            Obj::Other(o) => {
                let q = self.sink.quote("/annotations", o);
                self.sink.push(
                    Kind::WrongType,
                    format!("field \"annotations\" is not an object: {q}"),
                );
            }
        }
        Facts {
            key: boxed(id),
            base_id: None,
            corruption_type: None,
        }
    }

    /// The type's own checks, once the number of gold spans is known (`None`: the list could
    /// not be read, so the label count checks are skipped).
    fn check_type(&mut self, name: &str, n_gold: Option<usize>) {
        let Some(t) = self.corruption_type.as_deref() else {
            return;
        };
        if !self.set.labels.has_label(t) {
            let msg = format!(
                "{name} {} is not in the label set ({})",
                shape::quote_str(t),
                self.set.labels.describe()
            );
            self.sink.push(Kind::UnknownType, msg);
        }
        let Some(n_gold) = n_gold else {
            return;
        };
        if t == "clean" && n_gold > 0 {
            let s = if n_gold == 1 { "" } else { "s" };
            self.sink.push(
                Kind::CleanWithLabels,
                format!("clean record carries {n_gold} label{s} (clean records have none)"),
            );
        } else if t != "clean" && n_gold == 0 && !self.set.allow_clean {
            self.sink.push(
                Kind::Unlabeled,
                format!(
                    "record of type {} has no labels (pass --allow-clean to accept unlabeled records)",
                    shape::quote_str(t)
                ),
            );
        }
    }
}
