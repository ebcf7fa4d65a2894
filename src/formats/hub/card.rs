//! A dataset card's YAML front matter, and the `configs` it declares:
//! `configs: [{config_name, data_files, data_dir?, default?}]`, where `data_files` is a
//! pattern, a list of patterns (split `train`), a list of `{split, path}` (`path` a pattern or
//! a list of them) or a map `{split: pattern(s)}`, as the Hub reads it.

use std::path::Path;

use serde_norway::Value;

use super::HubError;

/// One config of the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSpec {
    /// `config_name` (`default` when absent, as the Hub names it).
    pub name: String,
    /// `default: true`.
    pub default: bool,
    /// `data_dir`: the folder the patterns are relative to (the dataset folder when absent).
    pub data_dir: Option<String>,
    /// The splits and their patterns, in the card's order; `None`: no `data_files` (the
    /// default layout inside `data_dir`).
    pub splits: Option<Vec<(String, Vec<String>)>>,
}

/// The YAML between the first line `---` and the next line `---`, and the 1-based line of
/// the card where it starts; `None` when the card has no front matter.
#[must_use]
pub fn front_matter(text: &str) -> Option<(&str, usize)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len();
    let mut at = start;
    for line in lines {
        if line.trim_end() == "---" {
            return Some((&text[start..at], 2));
        }
        at += line.len();
    }
    // Never closed: the whole rest is the front matter (its YAML error, if any, says where).
    Some((&text[start..], 2))
}

/// The configs the card at `card` (whose text is `text`) declares; empty when it declares
/// none (no front matter, or no `configs` key).
///
/// # Errors
/// YAML that does not parse (with the card's line), or `configs` of the wrong shape.
pub fn configs(card: &Path, text: &str) -> Result<Vec<ConfigSpec>, HubError> {
    let Some((yaml, first_line)) = front_matter(text) else {
        return Ok(Vec::new());
    };
    let value: Value = match serde_norway::from_str(yaml) {
        Ok(v) => v,
        Err(e) => {
            let line = e.location().map(|l| l.line() + first_line - 1);
            return Err(HubError::Yaml {
                card: card.to_path_buf(),
                line,
                message: e.to_string(),
            });
        }
    };
    let shape = |message: String| HubError::Card {
        card: card.to_path_buf(),
        message,
    };
    let Some(list) = value.get("configs") else {
        return Ok(Vec::new());
    };
    let Value::Sequence(list) = list else {
        return Err(shape(format!(
            "`configs` is {}, not a list of configs",
            kind(list)
        )));
    };
    let mut out: Vec<ConfigSpec> = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let Value::Mapping(_) = c else {
            return Err(shape(format!(
                "configs[{i}] is {}, not a mapping with `config_name` and `data_files`",
                kind(c)
            )));
        };
        let name = match c.get("config_name") {
            None => "default".to_owned(),
            Some(v) => scalar(v).ok_or_else(|| {
                shape(format!(
                    "configs[{i}].config_name is {}, not a name",
                    kind(v)
                ))
            })?,
        };
        if out.iter().any(|o| o.name == name) {
            return Err(shape(format!("config {name:?} is declared twice")));
        }
        let at = |what: &str| format!("config {name:?}: {what}");
        let default = match c.get("default") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(v) => {
                return Err(shape(at(&format!(
                    "`default` is {}, not true or false",
                    kind(v)
                ))))
            }
        };
        let data_dir =
            match c.get("data_dir") {
                None => None,
                Some(v) => Some(scalar(v).ok_or_else(|| {
                    shape(at(&format!("`data_dir` is {}, not a folder", kind(v))))
                })?),
            };
        let splits = match c.get("data_files") {
            None => None,
            Some(v) => Some(data_files(v).map_err(|m| shape(at(&m)))?),
        };
        out.push(ConfigSpec {
            name,
            default,
            data_dir,
            splits,
        });
    }
    Ok(out)
}

/// `data_files` in any of its forms, as `(split, patterns)` in the card's order.
fn data_files(v: &Value) -> Result<Vec<(String, Vec<String>)>, String> {
    let train = || "train".to_owned();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut add =
        |split: String, patterns: Vec<String>| match out.iter_mut().find(|(s, _)| *s == split) {
            Some((_, p)) => p.extend(patterns),
            None => out.push((split, patterns)),
        };
    match v {
        Value::String(_) => add(train(), patterns(v, "data_files")?),
        Value::Sequence(items) if items.iter().all(|i| scalar(i).is_some()) => {
            add(train(), patterns(v, "data_files")?);
        }
        Value::Sequence(items) => {
            for (k, item) in items.iter().enumerate() {
                let Value::Mapping(_) = item else {
                    return Err(format!(
                        "data_files[{k}] is {}, not {{split, path}}",
                        kind(item)
                    ));
                };
                let split = match item.get("split") {
                    None => train(),
                    Some(s) => scalar(s).ok_or_else(|| {
                        format!("data_files[{k}].split is {}, not a name", kind(s))
                    })?,
                };
                let path = item
                    .get("path")
                    .ok_or_else(|| format!("data_files[{k}] (split {split:?}) has no `path`"))?;
                add(split, patterns(path, &format!("data_files[{k}].path"))?);
            }
        }
        Value::Mapping(m) => {
            for (s, path) in m {
                let split = scalar(s)
                    .ok_or_else(|| format!("a data_files key is {}, not a split name", kind(s)))?;
                add(
                    split.clone(),
                    patterns(path, &format!("data_files.{split}"))?,
                );
            }
        }
        other => {
            return Err(format!(
                "`data_files` is {}, not a pattern, a list or a mapping of splits",
                kind(other)
            ))
        }
    }
    Ok(out)
}

/// A pattern or a list of patterns.
fn patterns(v: &Value, what: &str) -> Result<Vec<String>, String> {
    let bad = |v: &Value| format!("{what} is {}, not a file pattern", kind(v));
    match v {
        Value::Sequence(items) if !items.is_empty() => items
            .iter()
            .map(|i| scalar(i).ok_or_else(|| bad(i)))
            .collect(),
        other => Ok(vec![scalar(other).ok_or_else(|| bad(other))?]),
    }
}

/// A string, number or boolean as text (YAML reads `2024` or `true` as such).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// What kind of YAML value `v` is, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}
