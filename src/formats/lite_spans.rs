//! What the borrowing readers of record lines share ([`crate::formats::ragtruth::lite`],
//! [`crate::formats::predictions::lite`]): a list of span objects read as the full reader reads
//! it ([`crate::formats::spans::span_list`]) but with no raw objects, and a line's members found
//! by key. Either gives `None` where the full reader could read the line otherwise, and the
//! caller then reads it the full way.

use std::borrow::Cow;

use serde::Deserialize;

use crate::model::Span;

/// A span object as the full reader takes it: a member of another type (a string offset, a
/// numeric label) or a duplicate key fails, and the line goes to the full reader.
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

/// The spans of the JSON list `raw` (absent: none), each with an empty raw object; `None`
/// when a span is one the full reader would read otherwise or skip with a warning.
#[must_use]
pub fn spans(raw: Option<&str>) -> Option<Vec<Span>> {
    let Some(raw) = raw else {
        return Some(Vec::new());
    };
    let list: Vec<LineSpan<'_>> = serde_json::from_str(raw).ok()?;
    let own = |c: Option<Cow<'_, str>>| c.map(Cow::into_owned);
    list.into_iter()
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
        .collect()
}

/// The JSON string `raw` as text; `None` for any other value.
#[must_use]
pub fn string(raw: Option<&str>) -> Option<String> {
    serde_json::from_str::<Cow<'_, str>>(raw?)
        .ok()
        .map(Cow::into_owned)
}

/// The raw values of the members named `keys`, in that order; `None` when a key of `members`
/// holds an escape or one of `keys` occurs twice.
#[must_use]
pub fn slots<'a, const N: usize>(
    members: &[(&'a str, &'a str)],
    keys: [&str; N],
) -> Option<[Option<&'a str>; N]> {
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

/// What the borrowing readers' tests share: the full reader's record of `value` in format
/// `format` without the parts a borrowing reader leaves out (raw values), and a bundled file's
/// lines.
#[cfg(test)]
pub(crate) mod testing {
    use serde_json::Value;

    use crate::formats::Format;
    use crate::model::Record;

    /// `format`'s full reading of `value` (source `source`), raw values emptied.
    pub fn full(format: Format, value: Value, source: &str) -> Result<Record, String> {
        let mut r = format.parse(value, source).map_err(|e| e.to_string())?;
        r.raw = Value::Null;
        for s in &mut r.sources {
            for sp in &mut s.spans {
                sp.raw = serde_json::Map::new();
            }
        }
        Ok(r)
    }

    /// Lines every borrowing reader must leave to the full reader, their spans under `list`:
    /// the full reader's errors, spans it skips with a warning or reads as none where typed
    /// serde would not, repeated or escaped keys, and text that is not one JSON value.
    pub fn left_to_the_full_reader(list: &str) -> Vec<String> {
        let base = r#""id": "a", "output": "25°C 東京""#;
        let span = |s: &str| format!(r#"{{{base}, "{list}": [{s}]}}"#);
        let mut lines = vec![
            r#"{"id": 7, "output": "x"}"#.to_owned(),
            r#"{"id": "a"}"#.to_owned(),
            format!(r#"{{{base}, "{list}": null}}"#),
            format!(r#"{{{base}, "{list}": {{}}}}"#),
            "[1, 2]".to_owned(),
            format!(r#"{{{base}, "output": "other"}}"#),
            r#"{"i\u0064": "a", "output": "x"}"#.to_owned(),
            format!(r#"{{{base}"#),
            format!(r#"{{{base}}} {{}}"#),
        ];
        lines.extend(
            [
                r#"{"start": "x", "end": 2}"#,
                r#"{"start": 2.0, "end": 4}"#,
                r#"{"start": -1, "end": 4}"#,
                "7",
                r#"{"start": 0, "end": 4, "label": 5}"#,
                r#"{"start": 0, "end": 4, "text": ["x"]}"#,
                r#"{"start": 0, "end": 4, "confidence": "high"}"#,
                r#"{"start": 0, "end": 4, "start": 1}"#,
            ]
            .map(span),
        );
        lines
    }

    /// The lines of the file at `rel` (from the repository's root).
    pub fn lines(rel: &str) -> Vec<String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .lines()
            .map(str::to_owned)
            .collect()
    }
}
