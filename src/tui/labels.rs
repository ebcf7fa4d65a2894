//! The label set offered by the relabel and add pickers.

use std::path::Path;

use crate::formats::validate::labels::Taxonomy;
use crate::model::{Record, CLEAN};
use crate::review::labeled::LabelName;

/// The text a picker shows for `choice`: the label, then ` / subcategory` when it has one.
#[must_use]
pub fn shown(choice: &LabelName) -> String {
    match &choice.subcategory {
        Some(s) => format!("{} / {s}", choice.label),
        None => choice.label.clone(),
    }
}

/// A taxonomy entry: category `cat` as the label, with subcategory `sub` when given.
fn in_category(cat: &str, sub: Option<&str>) -> LabelName {
    LabelName {
        label: cat.to_owned(),
        category: Some(cat.to_owned()),
        subcategory: sub.map(str::to_owned),
    }
}

/// Each category of `t` a span may carry and its subcategories.
fn categories(t: &Taxonomy) -> impl Iterator<Item = LabelName> + '_ {
    t.categories
        .iter()
        .filter(|(_, c)| c.span_class)
        .flat_map(|(cat, c)| {
            std::iter::once(in_category(cat, None)).chain(
                c.subcategories
                    .iter()
                    .map(|sub| in_category(cat, Some(sub))),
            )
        })
}

/// The choices of a taxonomy file: its labels, then each category and its subcategories.
/// `None` when the text is not a taxonomy.
fn from_taxonomy(text: &str) -> Option<Vec<LabelName>> {
    let t = Taxonomy::parse(text).ok()?;
    let mut out: Vec<LabelName> = t.labels.iter().map(|l| LabelName::plain(l)).collect();
    out.extend(categories(&t));
    (!out.is_empty()).then_some(out)
}

/// Read a label file: a taxonomy TOML file as `validate --labels` takes (`labels = [...]`,
/// `[categories.NAME] subcategories = [...]`), or one label per line, `category/subcategory`
/// for taxonomy entries, `#` comments; `toolace` and `lettucedetect` (no such file) are the
/// embedded taxonomies, as for `validate --labels`.
///
/// # Errors
/// The file cannot be read or holds no label.
pub fn read_file(path: &Path) -> Result<Vec<LabelName>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        // The embedded taxonomies by name, as `validate --labels` takes them.
        Err(e) => match path.to_str().and_then(Taxonomy::builtin_text) {
            Some(text) => text.to_owned(),
            None => {
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
            Some((c, s)) => in_category(c.trim(), Some(s.trim())),
            None => LabelName::plain(line),
        });
    }
    if out.is_empty() {
        return Err(format!("{}: no label in the file", path.display()));
    }
    Ok(out)
}

/// The choices for `record`: the given set, else the embedded LettuceDetect taxonomy's
/// categories when the record's spans carry categories, else the embedded toolace types;
/// labels seen in the record are added. Never `clean`: a record's type, no span's label
/// (`validate` and `apply` refuse it). The embedded sets are the ones `validate` checks against.
#[must_use]
pub fn choices(given: Option<&[LabelName]>, record: &Record) -> Vec<LabelName> {
    let builtin = |name| Taxonomy::builtin(name).unwrap_or_default();
    let mut out: Vec<LabelName> = if let Some(g) = given {
        g.to_vec()
    } else if record
        .sources
        .iter()
        .flat_map(|s| &s.spans)
        .any(|s| s.category.is_some())
    {
        categories(&builtin("lettucedetect")).collect()
    } else {
        builtin("toolace")
            .labels
            .iter()
            .map(|l| LabelName::plain(l))
            .collect()
    };
    for s in record.gold_spans() {
        if !s.label.is_empty() && !out.iter().any(|c| c.label == s.label) {
            out.push(LabelName::of(s));
        }
    }
    out.retain(|c| c.label != CLEAN);
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
        let names: Vec<String> = c.iter().map(shown).collect();
        assert_eq!(
            names,
            ["contradiction", "missing_tool", "overgeneration", "made_up"]
        );
    }

    /// `--labels toolace` names the file whose labels include the record type `clean`, and a
    /// file may label a span so: neither is offered.
    #[test]
    fn clean_is_never_offered() {
        let toolace = read_file(Path::new("toolace")).expect("built in");
        assert!(
            toolace.iter().any(|c| c.label == CLEAN),
            "the file lists it"
        );
        for given in [None, Some(toolace.as_slice())] {
            let c = choices(given, &record(None, CLEAN));
            let names: Vec<String> = c.iter().map(shown).collect();
            assert_eq!(names, ["contradiction", "missing_tool", "overgeneration"]);
        }
    }

    #[test]
    fn taxonomy_when_spans_have_categories() {
        let c = choices(None, &record(Some("contradiction"), "contradiction"));
        assert!(c.iter().any(|x| shown(x) == "contradiction / numerical"
            && x.category.as_deref() == Some("contradiction")
            && x.subcategory.as_deref() == Some("numerical")));
        assert!(c.iter().any(|x| shown(x) == "fabricated_reference"));
    }

    /// The pickers' built-in choices are the taxonomies `validate` checks against: a span
    /// relabeled from the picker must pass `validate` (the two lists were written apart and
    /// offered `unsupported_addition / value`, which validate refuses).
    #[test]
    fn built_in_choices_are_what_validate_accepts() {
        for (category, set) in [(Some("contradiction"), "lettucedetect"), (None, "toolace")] {
            let set = crate::formats::validate::labels::LabelSet::builtin(set).expect("embedded");
            for c in choices(None, &record(category, "")) {
                assert!(set.has_label(&c.label), "{c:?}");
                if let Some(sub) = &c.subcategory {
                    assert!(set.has_subcategory(c.category.as_deref(), sub), "{c:?}");
                }
            }
        }
        let lettuce = choices(None, &record(Some("contradiction"), ""));
        assert!(lettuce
            .iter()
            .any(|c| shown(c) == "fabricated_reference / entity"));
    }

    #[test]
    fn label_file_with_comments_and_subcategories() {
        let dir = tempfile::tempdir().expect("tmp");
        let p = dir.path().join("labels.txt");
        std::fs::write(&p, "# mine\nwrong_value\nclaim/unsupported # note\n\n").expect("write");
        let l = read_file(&p).expect("reads");
        assert_eq!(l[0], LabelName::plain("wrong_value"));
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
        assert!(l.iter().any(|c| c.label == "contradiction"
            && c.category.as_deref() == Some("contradiction")
            && c.subcategory.as_deref() == Some("numerical")));
        assert!(l
            .iter()
            .any(|c| c.label == "fabricated_reference"
                && c.subcategory.as_deref() == Some("attribute")));
        // Categories no span carries are not offered; native labels are not picked but kept.
        for not in [
            "supported",
            "omission",
            "Evident Conflict",
            "fabricated_api",
        ] {
            assert!(l.iter().all(|c| c.label != not), "{not}: {l:?}");
        }
        let p = dir.path().join("toolace.toml");
        std::fs::write(&p, include_str!("../../assets/labels/toolace.toml")).expect("write");
        let names: Vec<String> = read_file(&p).expect("reads").iter().map(shown).collect();
        assert!(names.contains(&"missing_tool".to_owned()), "{names:?}");
        assert!(names.iter().all(|n| !n.contains('=')), "{names:?}");
    }
}
