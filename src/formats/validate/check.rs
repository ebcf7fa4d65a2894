//! The checks of one record line, per format, on the borrowed views of [`super::shape`].

use std::cell::OnceCell;

use serde_json::Value;
use unicode_segmentation::GraphemeCursor;

use super::labels::LabelSet;
use super::shape::{self, List, Obj, OneSpan, Scalar, SpanItem, SpanObj};
use super::skim;
use super::Kind;
use crate::formats::{quote, Format};
use crate::model::offsets::{self, CharMap};

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

/// The answer spans index into, measured once. Non-ASCII text is sliced by walking it for the
/// first few spans; a code-point table is built only when a record has many spans.
struct Out<'a> {
    text: &'a str,
    name: &'static str,
    ascii: bool,
    len: usize,
    walks: std::cell::Cell<u8>,
    map: OnceCell<CharMap>,
}

impl<'a> Out<'a> {
    fn new(text: &'a str, name: &'static str) -> Self {
        let ascii = text.is_ascii();
        Self {
            text,
            name,
            ascii,
            len: if ascii {
                text.len()
            } else {
                offsets::char_len(text)
            },
            walks: std::cell::Cell::new(0),
            map: OnceCell::new(),
        }
    }

    /// The table, once more than a few lookups were made.
    fn map(&self) -> Option<&CharMap> {
        if self.map.get().is_none() {
            let n = self.walks.get();
            if n < 4 {
                self.walks.set(n + 1);
                return None;
            }
        }
        Some(self.map.get_or_init(|| CharMap::new(self.text)))
    }

    fn slice(&self, start: usize, end: usize) -> Option<&'a str> {
        if self.ascii {
            return self.text.get(start..end);
        }
        match self.map() {
            Some(m) => m.slice(self.text, start, end),
            None => offsets::slice(self.text, start, end),
        }
    }

    /// Byte position of `part` (a slice of the text) in the text.
    fn offset_of(&self, part: &str) -> usize {
        (part.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize)
    }

    /// The grapheme cluster that byte boundary `b` splits, if it splits one.
    fn split_cluster(&self, b: usize) -> Option<&'a str> {
        let n = self.text.len();
        if self.ascii || b == 0 || b >= n {
            return None;
        }
        if GraphemeCursor::new(b, n, true).is_boundary(self.text, 0) != Ok(false) {
            return None;
        }
        let a = GraphemeCursor::new(b, n, true)
            .prev_boundary(self.text, 0)
            .ok()
            .flatten()
            .unwrap_or(0);
        let z = GraphemeCursor::new(b, n, true)
            .next_boundary(self.text, 0)
            .ok()
            .flatten()
            .unwrap_or(n);
        Some(&self.text[a..z])
    }
}

/// What a span list is and which checks apply.
#[derive(Clone, Copy)]
struct ListSpec<'k> {
    /// Name in messages (`hallucination_labels`, `annotations.annotator_x`).
    key: &'k str,
    /// JSON pointer of the list, to quote values.
    ptr: &'k str,
    /// `[start, end]` pairs instead of objects.
    pairs: bool,
    /// Objects must carry `text`.
    need_text: bool,
    /// Objects must carry `label`.
    need_label: bool,
    /// The labels under review: label, category and type checks apply.
    gold: bool,
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

/// The line as `T`, or `None` after reporting why not.
/// The line as text, or `None` after reporting that it is not UTF-8.
fn utf8<'a>(sink: &mut Sink<'_>, bytes: &'a [u8]) -> Option<&'a str> {
    // simdutf8 checks a whole line many times faster than `std::str::from_utf8` on text with
    // many non-ASCII characters; the standard one words the rare error.
    match simdutf8::basic::from_utf8(bytes).map_err(|_| std::str::from_utf8(bytes)) {
        Ok(t) | Err(Ok(t)) => Some(t),
        Err(Err(e)) => {
            sink.push(
                Kind::InvalidJson,
                format!(
                    "invalid JSON: not UTF-8 at byte {} of the record",
                    e.valid_up_to()
                ),
            );
            None
        }
    }
}

/// The line as `T`, or `None` after reporting why not.
fn parse<'a, T: serde::Deserialize<'a>>(sink: &mut Sink<'_>, bytes: &'a [u8]) -> Option<T> {
    let text = utf8(sink, bytes)?;
    parse_text(sink, text)
}

fn parse_text<'a, T: serde::Deserialize<'a>>(sink: &mut Sink<'_>, text: &'a str) -> Option<T> {
    match shape::read::<T>(text) {
        Ok(Obj::Ok(t)) => Some(t),
        Ok(Obj::Other(s)) => {
            let q = sink.quote("", &s);
            sink.push(Kind::NotObject, format!("record is not a JSON object: {q}"));
            None
        }
        Ok(Obj::Missing) => {
            sink.push(Kind::NotObject, "record is not a JSON object".to_owned());
            None
        }
        Err(e) => {
            sink.push(Kind::InvalidJson, format!("invalid JSON: {e}"));
            None
        }
    }
}

/// A member's value as a [`Scalar`]: lists and objects by their first byte (the skimmer has
/// checked them), scalars parsed.
fn scalar(v: &str) -> Result<Scalar<'_>, serde_json::Error> {
    match v.as_bytes().first() {
        Some(b'[') => Ok(Scalar::List),
        Some(b'{') => Ok(Scalar::Object),
        _ => serde_json::from_str(v),
    }
}

/// A RAGTruth-compatible record read with the skimmer: the whole line is checked once, long
/// strings (`context`, `query`) and `meta.tools` are never parsed, and the members a check needs
/// are parsed from their own slices. Anything unusual (invalid JSON, not an object, a duplicate
/// key) falls back to the plain parse, which words the problem.
fn parse_ragtruth<'a>(sink: &mut Sink<'_>, bytes: &'a [u8]) -> Option<shape::Ragtruth<'a>> {
    let text = utf8(sink, bytes)?;
    if let Ok(skim::Top::Object(members, meta)) = skim::top(text, "meta") {
        if let Some(rec) = ragtruth_of(&members, meta.as_deref()) {
            return Some(rec);
        }
    }
    parse_text(sink, text)
}

/// Sets each slot once; `None` on a duplicate key or a member that does not parse.
fn ragtruth_of<'a>(
    members: &[(&'a str, &'a str)],
    meta: Option<&[(&'a str, &'a str)]>,
) -> Option<shape::Ragtruth<'a>> {
    let mut rec = shape::Ragtruth::default();
    let mut seen = 0u8;
    let mut once = |bit: u8| {
        let fresh = seen & bit == 0;
        seen |= bit;
        fresh.then_some(())
    };
    for &(k, v) in members {
        match k {
            "id" => {
                once(1)?;
                rec.id = scalar(v).ok()?;
            }
            "query" => {
                once(2)?;
                rec.query = shape::Blob(Some(v));
            }
            "context" => {
                once(4)?;
                rec.context = shape::Blob(Some(v));
            }
            "output" => {
                once(8)?;
                rec.output = scalar(v).ok()?;
            }
            "hallucination_labels" => {
                once(16)?;
                rec.hallucination_labels = serde_json::from_str(v).ok()?;
            }
            "meta" => {
                once(32)?;
                rec.meta = match meta {
                    Some(m) => Obj::Ok(meta_of(m)?),
                    None => Obj::Other(shape::owned(scalar(v).ok()?)),
                };
            }
            _ => {}
        }
    }
    Some(rec)
}

fn meta_of<'a>(members: &[(&'a str, &'a str)]) -> Option<shape::Meta<'a>> {
    let mut m = shape::Meta::default();
    let mut seen = 0u8;
    for &(k, v) in members {
        let (bit, slot) = match k {
            "source" => (1, &mut m.source),
            "base_id" => (2, &mut m.base_id),
            "corruption_type" => (4, &mut m.corruption_type),
            "tools" => (8, &mut m.tools),
            "tool_call" => (16, &mut m.tool_call),
            _ => continue,
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        *slot = scalar(v).ok()?;
    }
    Some(m)
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

    /// Check a span list; returns the number of items (`None` when it is not a list).
    fn list(
        &mut self,
        list: &List<SpanItem<'_>>,
        spec: ListSpec<'_>,
        out: Option<&Out<'_>>,
        required: bool,
    ) -> Option<usize> {
        match list {
            List::Ok(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.item(item, Some(i), spec, out);
                }
                Some(items.len())
            }
            List::Missing if !required => Some(0),
            List::Missing => {
                self.sink.push(
                    Kind::MissingField,
                    format!("missing field \"{}\"", spec.key),
                );
                None
            }
            List::Other(o) => {
                let q = self.sink.quote(spec.ptr, o);
                self.sink.push(
                    Kind::WrongType,
                    format!("field \"{}\" is not a list: {q}", spec.key),
                );
                None
            }
        }
    }

    /// Check one span: `index` is its place in the list (`None` for a single span field).
    fn item(
        &mut self,
        item: &SpanItem<'_>,
        index: Option<usize>,
        spec: ListSpec<'_>,
        out: Option<&Out<'_>>,
    ) {
        let (at, ptr) = match index {
            Some(i) => (format!("{}[{i}]", spec.key), format!("{}/{i}", spec.ptr)),
            None => (spec.key.to_owned(), spec.ptr.to_owned()),
        };
        match (item, spec.pairs) {
            (SpanItem::Obj(o), false) => self.object(o, &at, &ptr, spec, out),
            (SpanItem::Pair(p), true) if p.len() == 2 => {
                let s = self.offset(&p[0], &at, "start", &format!("{ptr}/0"));
                let e = self.offset(&p[1], &at, "end", &format!("{ptr}/1"));
                if let (Some(s), Some(e)) = (s, e) {
                    let _ = self.range(s, e, &at, out);
                }
            }
            (other, pairs) => {
                let want = if pairs {
                    "a [start, end] pair"
                } else {
                    "a span object"
                };
                let q = match other {
                    SpanItem::Other(s) => self.sink.quote(&ptr, s),
                    _ => self.sink.quote(&ptr, &Scalar::Object),
                };
                self.sink
                    .push(Kind::WrongType, format!("{at} is not {want}: {q}"));
            }
        }
    }

    fn object(
        &mut self,
        o: &SpanObj<'_>,
        at: &str,
        ptr: &str,
        spec: ListSpec<'_>,
        out: Option<&Out<'_>>,
    ) {
        let s = self.offset(&o.start, at, "start", &format!("{ptr}/start"));
        let e = self.offset(&o.end, at, "end", &format!("{ptr}/end"));
        let text = match &o.text {
            Scalar::Str(t) => Some(t.as_ref()),
            Scalar::Missing if !spec.need_text => None,
            Scalar::Missing => {
                self.sink
                    .push(Kind::MissingField, format!("{at}: missing \"text\""));
                None
            }
            other => {
                let q = self.sink.quote(&format!("{ptr}/text"), other);
                self.sink.push(
                    Kind::WrongType,
                    format!("{at}: \"text\" is not a string: {q}"),
                );
                None
            }
        };
        if let (Some(s), Some(e)) = (s, e) {
            if let Some(got) = self.range(s, e, at, out) {
                self.text(s, e, text, at, got, out.map_or("", |o| o.name));
            }
        }
        if spec.gold {
            self.label(o, at, ptr, spec);
        }
    }

    /// An offset: a non-negative integer.
    fn offset(&mut self, v: &Scalar<'_>, at: &str, name: &str, ptr: &str) -> Option<usize> {
        match v {
            Scalar::UInt(n) => usize::try_from(*n).ok(),
            Scalar::Missing => {
                self.sink
                    .push(Kind::MissingField, format!("{at}: missing \"{name}\""));
                None
            }
            Scalar::Int(n) => {
                self.sink.push(
                    Kind::NegativeOffset,
                    format!("{at}: \"{name}\" is negative: {n}"),
                );
                None
            }
            other => {
                let q = self.sink.quote(ptr, other);
                self.sink.push(
                    Kind::NonIntegerOffset,
                    format!("{at}: \"{name}\" is not an integer: {q}"),
                );
                None
            }
        }
    }

    /// Order, emptiness and bounds of `[s, e)`, and that its ends do not split a character;
    /// `None` when the range cannot be sliced, else the slice (when there is an output).
    fn range<'o>(
        &mut self,
        s: usize,
        e: usize,
        at: &str,
        out: Option<&Out<'o>>,
    ) -> Option<Option<&'o str>> {
        if s > e {
            self.sink.push(
                Kind::ReversedSpan,
                format!("{at}: reversed span: start {s} > end {e}"),
            );
            return None;
        }
        if let Some(o) = out {
            if e > o.len {
                let what = if s >= o.len { "starts" } else { "ends" };
                self.sink.push(
                    Kind::OutOfRange,
                    format!(
                        "{at}: span [{s}, {e}) {what} past the end of {} ({} code points)",
                        o.name, o.len
                    ),
                );
                return None;
            }
        }
        if s == e {
            self.sink
                .push(Kind::EmptySpan, format!("{at}: empty span [{s}, {e})"));
        }
        let Some(o) = out else {
            return Some(None);
        };
        let got = o.slice(s, e)?;
        if !o.ascii {
            let b0 = o.offset_of(got);
            for (name, cp, b) in [("start", s, b0), ("end", e, b0 + got.len())] {
                if name == "end" && s == e {
                    break;
                }
                if let Some(cluster) = o.split_cluster(b) {
                    let chars: Vec<String> = cluster
                        .chars()
                        .map(|c| format!("U+{:04X}", u32::from(c)))
                        .collect();
                    self.sink.push(
                        Kind::GraphemeSplit,
                        format!(
                            "{at}: {name} {cp} splits the character {} ({}) of {}",
                            shape::quote_str(cluster),
                            chars.join(" "),
                            o.name
                        ),
                    );
                }
            }
        }
        Some(Some(got))
    }

    /// `output[s:e] == text` (`got` is that slice), or, with no output, that the lengths agree.
    fn text(
        &mut self,
        s: usize,
        e: usize,
        text: Option<&str>,
        at: &str,
        got: Option<&str>,
        name: &str,
    ) {
        let Some(text) = text else {
            return;
        };
        match got {
            Some(got) => {
                if got != text {
                    self.sink.push(
                        Kind::TextMismatch,
                        format!(
                            "{at}: text {} does not match {name}[{s}:{e}] {}",
                            shape::quote_str(text),
                            shape::quote_str(got)
                        ),
                    );
                }
            }
            None => {
                let n = offsets::char_len(text);
                if n != e - s {
                    self.sink.push(
                        Kind::TextMismatch,
                        format!(
                            "{at}: text {} is {n} code points but the span [{s}, {e}) covers {}",
                            shape::quote_str(text),
                            e - s
                        ),
                    );
                }
            }
        }
    }

    /// Label, category and subcategory of a gold span.
    fn label(&mut self, o: &SpanObj<'_>, at: &str, ptr: &str, spec: ListSpec<'_>) {
        let labels = self.set.labels;
        match &o.label {
            Scalar::Str(l) => {
                if !labels.has_label(l) {
                    self.sink.push(
                        Kind::UnknownLabel,
                        format!(
                            "{at}: label {} is not in the label set ({})",
                            shape::quote_str(l),
                            labels.describe()
                        ),
                    );
                }
                if self.set.strict {
                    if let Some(t) = self.corruption_type.as_deref() {
                        if t != l.as_ref() {
                            self.sink.push(
                                Kind::LabelTypeMismatch,
                                format!(
                                    "{at}: label {} differs from the record's type {} (--strict)",
                                    shape::quote_str(l),
                                    shape::quote_str(t)
                                ),
                            );
                        }
                    }
                }
            }
            Scalar::Missing if !spec.need_label => {}
            Scalar::Missing => self
                .sink
                .push(Kind::MissingField, format!("{at}: missing \"label\"")),
            other => {
                let q = self.sink.quote(&format!("{ptr}/label"), other);
                self.sink.push(
                    Kind::WrongType,
                    format!("{at}: \"label\" is not a string: {q}"),
                );
            }
        }
        let category = o.category.as_str();
        if let Some(c) = category {
            if !labels.has_category(c) {
                self.sink.push(
                    Kind::UnknownLabel,
                    format!(
                        "{at}: category {} is not a category of the label set ({})",
                        shape::quote_str(c),
                        labels.describe_categories()
                    ),
                );
            }
        }
        if let Some(sc) = o.subcategory.as_str() {
            if !labels.has_subcategory(category, sc) {
                let under = category
                    .map_or_else(String::new, |c| format!(" under {}", shape::quote_str(c)));
                self.sink.push(
                    Kind::UnknownLabel,
                    format!(
                        "{at}: subcategory {} is not listed{under} in the label set",
                        shape::quote_str(sc)
                    ),
                );
            }
        }
    }
}
