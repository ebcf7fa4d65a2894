//! The label set offered by the relabel and add pickers.

use std::fmt;
use std::path::Path;

use super::strings;
use crate::model::Record;

/// One choice: a label, with category and subcategory when the taxonomy has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelChoice {
    /// The label written to the span.
    pub label: String,
    /// Taxonomy category.
    pub category: Option<String>,
    /// Taxonomy subcategory.
    pub subcategory: Option<String>,
}

impl LabelChoice {
    /// A plain label.
    #[must_use]
    pub fn plain(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            category: None,
            subcategory: None,
        }
    }
}

impl fmt::Display for LabelChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.subcategory {
            Some(s) => write!(f, "{} / {s}", self.label),
            None => f.write_str(&self.label),
        }
    }
}

/// Read a label file: one label per line, `category/subcategory` for taxonomy entries, `#`
/// comments.
///
/// # Errors
/// The file cannot be read or holds no label.
pub fn read_file(path: &Path) -> Result<Vec<LabelChoice>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        out.push(match line.split_once('/') {
            Some((c, s)) => LabelChoice {
                label: c.trim().to_owned(),
                category: Some(c.trim().to_owned()),
                subcategory: Some(s.trim().to_owned()),
            },
            None => LabelChoice::plain(line),
        });
    }
    if out.is_empty() {
        return Err(format!("{}: no label in the file", path.display()));
    }
    Ok(out)
}

/// The choices for `record`: the given set, else the LettuceDetect taxonomy when the record's
/// spans carry categories, else the toolace types; labels seen in the record are added.
#[must_use]
pub fn choices(given: Option<&[LabelChoice]>, record: &Record) -> Vec<LabelChoice> {
    let mut out: Vec<LabelChoice> = if let Some(g) = given {
        g.to_vec()
    } else if record
        .sources
        .iter()
        .flat_map(|s| &s.spans)
        .any(|s| s.category.is_some())
    {
        strings::LETTUCE_TAXONOMY
            .iter()
            .flat_map(|(cat, subs)| {
                std::iter::once(LabelChoice {
                    label: (*cat).to_owned(),
                    category: Some((*cat).to_owned()),
                    subcategory: None,
                })
                .chain(subs.iter().map(|s| LabelChoice {
                    label: (*cat).to_owned(),
                    category: Some((*cat).to_owned()),
                    subcategory: Some((*s).to_owned()),
                }))
            })
            .collect()
    } else {
        strings::TOOLACE_LABELS
            .iter()
            .map(|l| LabelChoice::plain(l))
            .collect()
    };
    for s in record.gold_spans() {
        if !s.label.is_empty() && !out.iter().any(|c| c.label == s.label) {
            out.push(LabelChoice {
                label: s.label.clone(),
                category: s.category.clone(),
                subcategory: s.subcategory.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Source, SourceRole, Span, GOLD};

    fn record(category: Option<&str>, label: &str) -> Record {
        let mut span = Span::new("some output", 0, 4, label);
        span.category = category.map(str::to_owned);
        Record {
            id: "r".into(),
            query: String::new(),
            context: String::new(),
            output: "some output".into(),
            corruption_type: None,
            sources: vec![Source::new(GOLD, SourceRole::Gold, vec![span])],
            raw: serde_json::Value::Null,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn toolace_types_plus_labels_seen() {
        let c = choices(None, &record(None, "made_up"));
        let names: Vec<String> = c.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            ["contradiction", "missing_tool", "overgeneration", "made_up"]
        );
    }

    #[test]
    fn taxonomy_when_spans_have_categories() {
        let c = choices(None, &record(Some("contradiction"), "contradiction"));
        assert!(c
            .iter()
            .any(|x| x.to_string() == "contradiction / numerical"
                && x.category.as_deref() == Some("contradiction")
                && x.subcategory.as_deref() == Some("numerical")));
        assert!(c.iter().any(|x| x.to_string() == "fabricated_reference"));
    }

    #[test]
    fn label_file_with_comments_and_subcategories() {
        let dir = tempfile::tempdir().expect("tmp");
        let p = dir.path().join("labels.txt");
        std::fs::write(&p, "# mine\nwrong_value\nclaim/unsupported # note\n\n").expect("write");
        let l = read_file(&p).expect("reads");
        assert_eq!(l[0], LabelChoice::plain("wrong_value"));
        assert_eq!(l[1].subcategory.as_deref(), Some("unsupported"));
        let empty = dir.path().join("empty.txt");
        std::fs::write(&empty, "# nothing\n").expect("write");
        assert!(read_file(&empty).expect_err("empty").contains("no label"));
    }
}
