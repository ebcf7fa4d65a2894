//! The checks of span lists and spans: offsets, bounds, characters split, text, labels.

use std::cell::OnceCell;

use unicode_segmentation::GraphemeCursor;

use super::super::shape::{List, Scalar, SpanItem, SpanObj};
use super::super::Kind;
use super::Checker;
use crate::formats::quote_str;
use crate::model::offsets::{self, CharMap};
use crate::model::CLEAN;

/// The answer spans index into, measured once. Non-ASCII text is sliced by walking it for the
/// first few spans; a code-point table is built only when a record has many spans.
pub(crate) struct Out<'a> {
    text: &'a str,
    name: &'static str,
    ascii: bool,
    len: usize,
    walks: std::cell::Cell<u8>,
    map: OnceCell<CharMap>,
}

impl<'a> Out<'a> {
    pub(crate) fn new(text: &'a str, name: &'static str) -> Self {
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
pub(crate) struct ListSpec<'k> {
    /// Name in messages (`hallucination_labels`, `annotations.annotator_x`).
    pub(crate) key: &'k str,
    /// JSON pointer of the list, to quote values.
    pub(crate) ptr: &'k str,
    /// `[start, end]` pairs instead of objects.
    pub(crate) pairs: bool,
    /// Objects must carry `text`.
    pub(crate) need_text: bool,
    /// Objects must carry `label`.
    pub(crate) need_label: bool,
    /// The labels under review: label, category and type checks apply.
    pub(crate) gold: bool,
}

impl<'k> ListSpec<'k> {
    /// Gold span objects under `key` (`ptr`: its JSON pointer) that must carry `text`
    /// (`need_text`) and a label (`need_label`).
    #[must_use]
    pub(crate) const fn gold(
        key: &'k str,
        ptr: &'k str,
        need_text: bool,
        need_label: bool,
    ) -> Self {
        Self {
            key,
            ptr,
            pairs: false,
            need_text,
            need_label,
            gold: true,
        }
    }

    /// Another source's span objects under `key`: offsets and text checked, labels not.
    #[must_use]
    pub(crate) const fn source(key: &'k str, ptr: &'k str) -> Self {
        Self {
            gold: false,
            ..Self::gold(key, ptr, false, false)
        }
    }

    /// The same list made of `[start, end]` pairs.
    #[must_use]
    pub(crate) const fn pairs(self) -> Self {
        Self {
            pairs: true,
            ..self
        }
    }
}

impl Checker<'_> {
    /// Check a span list; returns the number of items (`None` when it is not a list).
    pub(crate) fn list(
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
    pub(crate) fn item(
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

    pub(crate) fn object(
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
    pub(crate) fn offset(
        &mut self,
        v: &Scalar<'_>,
        at: &str,
        name: &str,
        ptr: &str,
    ) -> Option<usize> {
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
    pub(crate) fn range<'o>(
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
                            quote_str(cluster),
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
    pub(crate) fn text(
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
                            quote_str(text),
                            quote_str(got)
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
                            quote_str(text),
                            e - s
                        ),
                    );
                }
            }
        }
    }

    /// Label, category and subcategory of a gold span.
    pub(crate) fn label(&mut self, o: &SpanObj<'_>, at: &str, ptr: &str, spec: ListSpec<'_>) {
        let labels = self.set.labels;
        match &o.label {
            Scalar::Str(l) => {
                if l.as_ref() == CLEAN {
                    // The toolace set holds `clean` as a record type; a span marks a hallucination.
                    self.sink.push(
                        Kind::UnknownLabel,
                        format!("{at}: label \"clean\" is a record's type, not a span's"),
                    );
                } else if !labels.has_label(l) {
                    self.sink.push(
                        Kind::UnknownLabel,
                        format!(
                            "{at}: label {} is not in the label set ({})",
                            quote_str(l),
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
                                    quote_str(l),
                                    quote_str(t)
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
            if labels.is_record_only(c) {
                self.sink.push(
                    Kind::UnknownLabel,
                    format!(
                        "{at}: category {} is a record's, not a span's (a span's is one of {})",
                        quote_str(c),
                        labels.describe_categories()
                    ),
                );
            } else if !labels.has_category(c) {
                self.sink.push(
                    Kind::UnknownLabel,
                    format!(
                        "{at}: category {} is not a category of the label set ({})",
                        quote_str(c),
                        labels.describe_categories()
                    ),
                );
            }
        }
        if let Some(sc) = o.subcategory.as_str() {
            if !labels.has_subcategory(category, sc) {
                let under =
                    category.map_or_else(String::new, |c| format!(" under {}", quote_str(c)));
                self.sink.push(
                    Kind::UnknownLabel,
                    format!(
                        "{at}: subcategory {} is not listed{under} in the label set",
                        quote_str(sc)
                    ),
                );
            }
        }
    }
}
