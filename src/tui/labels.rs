//! The label set offered by the relabel and add pickers.

use std::fmt;
use std::path::Path;

use super::strings;
use crate::formats::validate::labels as embedded;
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

/// A taxonomy file, the shape `validate --labels` reads (`assets/labels/*.toml`).
#[derive(Debug, serde::Deserialize)]
struct Taxonomy {
    #[serde(default)]
    labels: Vec<String>,
    #[serde(default)]
    categories: std::collections::BTreeMap<String, Category>,
}

#[derive(Debug, serde::Deserialize)]
struct Category {
    #[serde(default)]
    subcategories: Vec<String>,
}

/// The choices of a taxonomy file: its labels, then each category and its subcategories.
/// `None` when the text is not a taxonomy.
fn from_taxonomy(text: &str) -> Option<Vec<LabelChoice>> {
    let t: Taxonomy = toml::from_str(text).ok()?;
    let mut out: Vec<LabelChoice> = t.labels.iter().map(|l| LabelChoice::plain(l)).collect();
    for (cat, c) in &t.categories {
        out.push(LabelChoice {
            label: cat.clone(),
            category: Some(cat.clone()),
            subcategory: None,
        });
        out.extend(c.subcategories.iter().map(|sub| LabelChoice {
            label: cat.clone(),
            category: Some(cat.clone()),
            subcategory: Some(sub.clone()),
        }));
    }
    (!out.is_empty()).then_some(out)
}

/// Read a label file: a taxonomy TOML file as `validate --labels` takes (`labels = [...]`,
/// `[categories.NAME] subcategories = [...]`), or one label per line, `category/subcategory`
/// for taxonomy entries, `#` comments; `toolace` and `lettucedetect` (no such file) are the
/// embedded taxonomies, as for `validate --labels`.
///
/// # Errors
/// The file cannot be read or holds no label.
pub fn read_file(path: &Path) -> Result<Vec<LabelChoice>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        // The embedded taxonomies by name, as `validate --labels` takes them.
        Err(e) => match path.to_str() {
            Some("toolace") => embedded::TOOLACE.to_owned(),
            Some("lettucedetect") => embedded::LETTUCEDETECT.to_owned(),
            _ => {
                return Err(format!(
                    "{}: {e} (--labels takes a label file, toolace or lettucedetect)",
                    path.display()
                ))
            }
        },
    };
    if let Some(out) = from_taxonomy(&text) {
        return Ok(out);
    }
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
    use crate::model::Span;
    use crate::test_util::gold_record;

    fn record(category: Option<&str>, label: &str) -> Record {
        let mut span = Span::new("some output", 0, 4, label);
        span.category = category.map(str::to_owned);
        gold_record("r", "some output", None, vec![span])
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

    #[test]
    fn taxonomy_files_give_their_labels_categories_and_subcategories() {
        // The embedded taxonomies, which validate --labels takes: no TOML line may become a
        // label (`name = "lettucedetect"` did).
        let dir = tempfile::tempdir().expect("tmp");
        let p = dir.path().join("lettucedetect.toml");
        std::fs::write(&p, include_str!("../../assets/labels/lettucedetect.toml")).expect("write");
        let l = read_file(&p).expect("reads");
        assert!(l.iter().all(|c| !c.label.contains('=')), "{l:?}");
        assert!(l.contains(&LabelChoice::plain("Evident Conflict")));
        assert!(l.iter().any(|c| c.label == "contradiction"
            && c.category.as_deref() == Some("contradiction")
            && c.subcategory.as_deref() == Some("numerical")));
        let p = dir.path().join("toolace.toml");
        std::fs::write(&p, include_str!("../../assets/labels/toolace.toml")).expect("write");
        let names: Vec<String> = read_file(&p)
            .expect("reads")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(names.contains(&"missing_tool".to_owned()), "{names:?}");
        assert!(names.iter().all(|n| !n.contains('=')), "{names:?}");
    }
}
