//! Label Studio tasks made from records (`convert --to label-studio`), the record a task was
//! made from taken back out of it, and the labeling config for the label set.
//!
//! A task's `data` is the record as read (every field, so a task converts back to the same
//! record) with the fields Label Studio's config reads set: `output`, `query`, `context`, and
//! `rid` (label-studio-converter's JSON_MIN export overwrites a data field `id` with the task's
//! own). What was added or overwritten to do so is noted in the task's `meta.spanreview`, which
//! Label Studio keeps, and undone on the way back.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use crate::formats::labelstudio_min::CONTROL;
use crate::formats::Format;
use crate::model::{Record, GOLD};

/// The `to_name` of regions: the config's answer `Text`.
const TEXT: &str = "output";

/// The task for `rec` (read as `format`): its data, and each of its sources as a prediction
/// (`model_version`: the source's name; `gold` for the gold).
#[must_use]
pub fn task(rec: &Record, format: Format) -> Value {
    let mut data = rec.raw.as_object().cloned().unwrap_or_default();
    let mut added = Vec::new();
    let mut replaced = Map::new();
    for (k, v) in [
        ("rid", &rec.id),
        (TEXT, &rec.output),
        ("query", &rec.query),
        ("context", &rec.context),
    ] {
        match data.get(k) {
            Some(Value::String(s)) if s == v => continue,
            Some(old) => {
                replaced.insert(k.to_owned(), old.clone());
            }
            None => added.push(k),
        }
        data.insert(k.to_owned(), Value::from(v.as_str()));
    }
    let predictions: Vec<Value> = rec
        .sources
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let result: Vec<Value> = s
                .spans
                .iter()
                .enumerate()
                .map(|(j, sp)| {
                    let text = sp.slice(&rec.output).unwrap_or(&sp.text);
                    let labels: Vec<&str> =
                        std::iter::once(sp.label.as_str()).filter(|l| !l.is_empty()).collect();
                    json!({"id": format!("s{k}_{j}"), "from_name": CONTROL, "to_name": TEXT,
                           "type": "labels",
                           "value": {"start": sp.start, "end": sp.end, "text": text, "labels": labels}})
                })
                .collect();
            let name = if s.name == GOLD { "gold" } else { s.name.as_str() };
            json!({"model_version": name, "result": result})
        })
        .collect();
    json!({
        "data": data,
        "meta": {"spanreview": {"format": format.name(), "added": added, "replaced": replaced}},
        "annotations": [],
        "predictions": predictions,
    })
}

/// The record a task was made from, as its format's JSON, when the task says which (its
/// `meta.spanreview`) or its data is a record of some format: the data with the fields
/// [`task`] added taken out and those it overwrote put back.
#[must_use]
pub fn record_of(task: &Value) -> Option<(Format, Value)> {
    let mut data = task.get("data")?.as_object()?.clone();
    let Some(note) = task.pointer("/meta/spanreview").and_then(Value::as_object) else {
        let data = Value::Object(data);
        return Format::detect(&data).map(|f| (f, data));
    };
    let name = note.get("format")?.as_str()?;
    let format = Format::ALL.iter().copied().find(|f| f.name() == name)?;
    for k in note
        .get("added")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(k) = k.as_str() {
            data.shift_remove(k);
        }
    }
    for (k, v) in note
        .get("replaced")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        data.insert(k.clone(), v.clone());
    }
    Some((format, Value::Object(data)))
}

/// Colours of the labels in the config (Okabe-Ito: told apart with any colour vision).
const COLOURS: [&str; 7] = [
    "#D55E00", "#E69F00", "#0072B2", "#009E73", "#CC79A7", "#56B4E9", "#F0E442",
];

/// A labeling config for `labels` (the label `hallucination` when there is none): the request
/// and evidence shown above the answer, whose spans are marked character by character.
#[must_use]
pub fn config(labels: &BTreeSet<String>) -> String {
    let fallback = BTreeSet::from(["hallucination".to_owned()]);
    let labels = if labels.is_empty() { &fallback } else { labels };
    let mut out = String::from(
        "<View>\n  <Header value=\"Query\"/>\n  <Text name=\"query\" value=\"$query\"/>\n  \
         <Header value=\"Context\"/>\n  <Text name=\"context\" value=\"$context\"/>\n  \
         <Header value=\"Output: mark hallucinated spans\"/>\n",
    );
    out.push_str(&format!(
        "  <Labels name=\"{CONTROL}\" toName=\"{TEXT}\">\n"
    ));
    for (i, l) in labels.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        out.push_str(&format!(
            "    <Label value=\"{}\" background=\"{colour}\"/>\n",
            xml_attr(l)
        ));
    }
    out.push_str(&format!(
        "  </Labels>\n  <Text name=\"{TEXT}\" value=\"${TEXT}\" granularity=\"symbol\"/>\n</View>\n"
    ));
    out
}

/// `s` escaped for a double-quoted XML attribute; control and bidirectional characters as
/// character references, so that the config printed to a terminal cannot drive it or reorder
/// it (an XML reader gets the same label back).
fn xml_attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if crate::model::escape::is_hidden(c) => {
                out.push_str(&format!("&#{};", u32::from(c)))
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_escapes_labels_and_falls_back_to_one() {
        let labels = BTreeSet::from(["a<b&\"c\"".to_owned(), "東京".to_owned()]);
        let c = config(&labels);
        assert!(
            c.contains("<Label value=\"a&lt;b&amp;&quot;c&quot;\""),
            "{c}"
        );
        assert!(c.contains("<Label value=\"東京\""), "{c}");
        let hostile = BTreeSet::from(["a\u{1b}[2J\u{202e}b\u{9b}".to_owned()]);
        assert!(
            config(&hostile).contains("<Label value=\"a&#27;[2J&#8238;b&#155;\""),
            "{}",
            config(&hostile)
        );
        assert!(config(&BTreeSet::new()).contains("<Label value=\"hallucination\""));
    }

    #[test]
    fn a_task_gives_back_the_record_it_was_made_from() {
        let raw = json!({"id": "m°", "model_input": "q", "model_output_text": "東京 🙂",
                         "hard_labels": [[0, 2]], "context": ["not", "a string"]});
        let rec = Format::Mushroom.parse(raw.clone(), "x").expect("parse");
        let t = task(&rec, Format::Mushroom);
        assert_eq!(t["data"]["output"], "東京 🙂");
        assert_eq!(t["data"]["rid"], "m°");
        assert!(t["data"]["context"].is_string(), "{t}");
        assert_eq!(t["predictions"][0]["model_version"], "gold");
        assert_eq!(t["predictions"][0]["result"][0]["value"]["text"], "東京");
        let (f, back) = record_of(&t).expect("record");
        assert_eq!((f, back), (Format::Mushroom, raw));
    }
}
