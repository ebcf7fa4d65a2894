//! Shared pieces of the per-format writers: span objects patched into their original JSON.
//!
//! Each format module has `write(raw, gold, corruption_type) -> Value`: the record as read, with
//! its gold spans replaced and (when given) its type set; every other field passes through
//! unchanged, key order included (serde_json's `preserve_order`). A span that was read keeps its
//! object (`Span::raw`): `start`, `end`, `text`, `label` (and `category`/`subcategory` when set)
//! are patched in place, other keys (`confidence`, ...) stay where they were. A span added in
//! review (empty `raw`) gets the managed keys in the order the record's other spans use, or the
//! format's default order when there are none. `text` is always `output[start:end]` in code
//! points when the output is known.

use serde_json::{Map, Value};

use crate::model::offsets::CharMap;
use crate::model::Span;

/// The answer a record's spans index into, with its code-point table.
#[derive(Debug)]
pub struct Output<'a> {
    text: &'a str,
    map: CharMap,
}

impl<'a> Output<'a> {
    /// Build the table for `text`.
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            map: CharMap::new(text),
        }
    }

    /// `text[start:end]` in code points, when in range.
    #[must_use]
    pub fn slice(&self, start: usize, end: usize) -> Option<&'a str> {
        self.map.slice(self.text, start, end)
    }

    /// The whole answer.
    #[must_use]
    pub fn text(&self) -> &'a str {
        self.text
    }
}

/// The output string of a record object's `key`, when it is a string.
#[must_use]
pub fn output_of<'a>(raw: &'a Value, key: &str) -> Option<Output<'a>> {
    raw.get(key).and_then(Value::as_str).map(Output::new)
}

/// The text written for `span`: `output[start:end]` in code points when the answer is known
/// and the range slices it, else the span's own text. Every writer's `text`.
#[must_use]
pub fn span_text<'a>(output: Option<&Output<'a>>, span: &'a Span) -> &'a str {
    output
        .and_then(|o| o.slice(span.start, span.end))
        .unwrap_or(span.text.as_str())
}

/// How a format writes span objects.
#[derive(Debug, Clone, Copy)]
pub struct SpanKeys<'a> {
    /// Key order of an existing span of the same list (used for new spans).
    pub template: Option<&'a [String]>,
    /// Whether the format's span objects carry `text`.
    pub text: bool,
    /// Whether a new span's keys are sorted (files written with `sort_keys`) when there is no
    /// template; otherwise `start, end, text, label, category, subcategory`.
    pub sorted: bool,
}

impl<'a> SpanKeys<'a> {
    /// Spans with `text`, sorted keys by default (RAGTruth-compatible records, predictions,
    /// judge decisions: all written by Python with `sort_keys`).
    #[must_use]
    pub fn with_text(template: Option<&'a [String]>) -> Self {
        Self {
            template,
            text: true,
            sorted: true,
        }
    }
}

const CANONICAL: [&str; 6] = ["start", "end", "text", "label", "category", "subcategory"];

/// The JSON object of `span` (see the module doc).
#[must_use]
pub fn span_object(
    span: &Span,
    output: Option<&Output<'_>>,
    keys: &SpanKeys<'_>,
) -> Map<String, Value> {
    let text = span_text(output, span);
    let mut fields: Vec<(&str, Value)> = vec![
        ("start", Value::from(span.start)),
        ("end", Value::from(span.end)),
    ];
    let fresh = span.raw.is_empty();
    if keys.text || span.raw.contains_key("text") {
        fields.push(("text", Value::String(text.to_owned())));
    }
    // A span read without a label stays without one (a round trip changes nothing); a span
    // the reviewer added always has the key, empty or not, as a relabeled one has.
    if !span.label.is_empty() || fresh || span.raw.contains_key("label") {
        fields.push(("label", Value::String(span.label.clone())));
    }
    if let Some(c) = &span.category {
        fields.push(("category", Value::String(c.clone())));
    }
    if let Some(c) = &span.subcategory {
        fields.push(("subcategory", Value::String(c.clone())));
    }
    if !fresh {
        let mut m = span.raw.clone();
        for (k, v) in fields {
            m.insert(k.to_owned(), v);
        }
        return m;
    }
    let mut order: Vec<&str> = Vec::new();
    if let Some(t) = keys.template.filter(|t| !t.is_empty()) {
        order.extend(
            t.iter()
                .map(String::as_str)
                .filter(|k| fields.iter().any(|(f, _)| f == k)),
        );
        for k in CANONICAL {
            if fields.iter().any(|(f, _)| *f == k) && !order.contains(&k) {
                order.push(k);
            }
        }
    } else {
        order.extend(fields.iter().map(|(k, _)| *k));
        if keys.sorted {
            order.sort_unstable();
        }
    }
    let mut m = Map::new();
    for k in order {
        if let Some((_, v)) = fields.iter().find(|(f, _)| *f == k) {
            m.insert(k.to_owned(), v.clone());
        }
    }
    m
}

/// The key order of the first object in `list` (a template for new spans).
#[must_use]
pub fn template_of(list: Option<&Value>) -> Option<Vec<String>> {
    list?
        .as_array()?
        .iter()
        .find_map(Value::as_object)
        .map(|m| m.keys().cloned().collect())
}

/// `gold` as a JSON list of span objects, in the style of the list `original` (the record's
/// current list under that key).
#[must_use]
pub fn span_list(
    original: Option<&Value>,
    gold: &[Span],
    output: Option<&Output<'_>>,
    text: bool,
    sorted: bool,
) -> Value {
    let template = template_of(original);
    let keys = SpanKeys {
        template: template.as_deref(),
        text,
        sorted,
    };
    Value::Array(
        gold.iter()
            .map(|s| Value::Object(span_object(s, output, &keys)))
            .collect(),
    )
}

/// `raw` with its span list `list` replaced by `gold` ([`span_list`] over the answer under
/// `answer`); every other field unchanged.
#[must_use]
pub fn with_list(
    raw: &Value,
    answer: &str,
    list: &str,
    gold: &[Span],
    text: bool,
    sorted: bool,
) -> Value {
    let output = output_of(raw, answer);
    let spans = span_list(raw.get(list), gold, output.as_ref(), text, sorted);
    let mut out = raw.clone();
    if let Some(obj) = out.as_object_mut() {
        set(obj, list, spans);
    }
    out
}

/// Set `key` of `obj` (in place when present, appended otherwise).
pub fn set(obj: &mut Map<String, Value>, key: &str, value: Value) {
    obj.insert(key.to_owned(), value);
}

/// Set `meta.corruption_type` (creating `meta` when the record has none).
pub fn set_meta_type(obj: &mut Map<String, Value>, corruption_type: &str) {
    let meta = obj
        .entry("meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Some(m) = meta.as_object_mut() {
        set(
            m,
            "corruption_type",
            Value::String(corruption_type.to_owned()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_span_is_patched_in_place() {
        let raw: Value =
            serde_json::from_str(r#"{"start":1,"end":3,"text":"xx","confidence":0.5,"label":"a"}"#)
                .expect("json");
        let mut s = Span::new("", 0, 0, "b");
        s.start = 5;
        s.end = 7;
        s.raw = raw.as_object().expect("obj").clone();
        let out = Output::new("It’s 25°C");
        let m = span_object(&s, Some(&out), &SpanKeys::with_text(None));
        assert_eq!(
            Value::Object(m).to_string(),
            r#"{"start":5,"end":7,"text":"25","confidence":0.5,"label":"b"}"#
        );
    }

    #[test]
    fn new_span_follows_template_else_sorted() {
        let out = Output::new("It’s 25°C");
        let s = Span::new("It’s 25°C", 5, 9, "contradiction");
        let sorted = span_object(&s, Some(&out), &SpanKeys::with_text(None));
        assert_eq!(
            Value::Object(sorted).to_string(),
            r#"{"end":9,"label":"contradiction","start":5,"text":"25°C"}"#
        );
        let t = vec!["start".to_owned(), "end".to_owned(), "label".to_owned()];
        let keys = SpanKeys {
            template: Some(&t),
            text: true,
            sorted: true,
        };
        let m = span_object(&s, Some(&out), &keys);
        assert_eq!(
            Value::Object(m).to_string(),
            r#"{"start":5,"end":9,"label":"contradiction","text":"25°C"}"#
        );
    }

    #[test]
    fn an_empty_label_is_written_as_a_relabel_writes_it_and_kept_absent_when_read_absent() {
        let out = Output::new("It’s 25°C");
        let keys = SpanKeys::with_text(None);
        // Added with no label: the key is there, as a relabel to "" leaves it.
        let added = Span::new("It’s 25°C", 5, 9, "");
        let m = Value::Object(span_object(&added, Some(&out), &keys));
        assert_eq!(m["label"], "", "{m}");
        let mut relabeled = Span::new("", 5, 9, "");
        relabeled.raw = serde_json::from_str::<Value>(r#"{"start":5,"end":9,"label":"a"}"#)
            .expect("json")
            .as_object()
            .expect("obj")
            .clone();
        let m = Value::Object(span_object(&relabeled, Some(&out), &keys));
        assert_eq!(m["label"], "", "{m}");
        // Read without one: still without one.
        let mut bare = Span::new("", 5, 9, "");
        bare.raw = serde_json::from_str::<Value>(r#"{"start":5,"end":9}"#)
            .expect("json")
            .as_object()
            .expect("obj")
            .clone();
        let m = Value::Object(span_object(&bare, Some(&out), &keys));
        assert!(m.get("label").is_none(), "{m}");
    }

    fn unicode_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let ch = prop_oneof![
            proptest::char::range('a', 'z'),
            Just('°'),
            Just('’'),
            proptest::char::range('\u{4e00}', '\u{4e20}'),
            proptest::char::range('\u{1f300}', '\u{1f320}'),
            Just('\u{301}'),
        ];
        proptest::collection::vec(ch, 1..40).prop_map(|v| v.into_iter().collect())
    }

    proptest::proptest! {
        /// read -> write with any spans -> read gives the same spans, and every written
        /// `text` is `output[start:end]` in code points.
        #[test]
        fn ragtruth_round_trip(output in unicode_text(), cuts in proptest::collection::vec((0usize..50, 0usize..50), 0..4)) {
            use crate::formats::ragtruth;
            let n = output.chars().count();
            let spans: Vec<Span> = cuts
                .iter()
                .map(|&(a, b)| {
                    let (a, b) = (a.min(n), b.min(n));
                    Span::new(&output, a.min(b), a.max(b), "contradiction")
                })
                .collect();
            let raw = serde_json::json!({"id": "x", "query": "q", "context": "c", "output": output,
                "hallucination_labels": [], "meta": {"corruption_type": "clean", "extra": [1]}});
            let written = ragtruth::write(&raw, &spans, Some("contradiction"));
            let back = ragtruth::parse(written.clone()).expect("parse");
            proptest::prop_assert_eq!(back.corruption_type.as_deref(), Some("contradiction"));
            let got: Vec<(usize, usize, String)> =
                back.gold_spans().iter().map(|s| (s.start, s.end, s.text.clone())).collect();
            let want: Vec<(usize, usize, String)> = spans
                .iter()
                .map(|s| {
                    let t: String = output.chars().skip(s.start).take(s.end - s.start).collect();
                    (s.start, s.end, t)
                })
                .collect();
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(&written["meta"]["extra"], &serde_json::json!([1]));
            // Writing again what was read changes nothing.
            proptest::prop_assert_eq!(ragtruth::write(&written, back.gold_spans(), None), written);
        }
    }
}
