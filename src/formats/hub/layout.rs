//! The default layout, for a card without `configs` (or a config without `data_files`): the
//! splits `datasets` infers from the file names, tried in its order, the first that finds
//! files winning: `data/{split}-NNNNN-of-NNNNN*.*` shards (any split name), then a folder
//! named for a split (`train/`, `data/dev/`, …), then a file named for one (`train.jsonl`,
//! `data/test-0.parquet`, `my_valid.json`), else every file is split `train`.

use super::glob;

/// The three splits `datasets` knows, in its order, with the words that name each.
const KEYWORDS: [(&str, &[&str]); 3] = [
    ("train", &["train", "training"]),
    ("validation", &["validation", "valid", "dev", "val"]),
    ("test", &["test", "testing", "eval", "evaluation"]),
];

/// The characters that may stand around a split word in a name.
const SEP: &str = "[-._ 0-9]";

/// The splits and their patterns that the default layout finds among `files` (from
/// [`glob::walk`], relative to the folder), keeping only files `keep` accepts; empty when
/// it finds none.
#[must_use]
pub fn infer(files: &[String], keep: &dyn Fn(&str) -> bool) -> Vec<(String, Vec<String>)> {
    let found = |pattern: &str| glob::matching(pattern, files).iter().any(|f| keep(f));
    // Shards as `push_to_hub` names them: the split is whatever stands before `-NNNNN-of-`.
    let shard = "[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]*.*";
    let mut names: Vec<String> = glob::matching(&format!("data/*-{shard}"), files)
        .into_iter()
        .filter(|f| keep(f))
        .filter_map(|f| shard_split(f.strip_prefix("data/")?))
        .collect();
    names.sort_by_key(|n| (order(n), n.clone()));
    names.dedup();
    if !names.is_empty() {
        return names
            .into_iter()
            .map(|n| {
                let p = format!("data/{n}-{shard}");
                (n, vec![p])
            })
            .collect();
    }
    let in_dir = [
        "**/{k}/**",
        "**/{k}{s}*/**",
        "**/*{s}{k}/**",
        "**/*{s}{k}{s}*/**",
    ];
    let in_name = ["**/{k}{s}*", "**/*{s}{k}{s}*"];
    for bases in [&in_dir[..], &in_name[..]] {
        let mut out = Vec::new();
        for (split, words) in KEYWORDS {
            let patterns: Vec<String> = words
                .iter()
                .flat_map(|k| {
                    bases
                        .iter()
                        .map(move |b| b.replace("{k}", k).replace("{s}", SEP))
                })
                .filter(|p| found(p))
                .collect();
            if !patterns.is_empty() {
                out.push((split.to_owned(), patterns));
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    if found("**") {
        return vec![("train".to_owned(), vec!["**".to_owned()])];
    }
    Vec::new()
}

/// The split of a shard's name `NAME-NNNNN-of-NNNNN…` when NAME is a split name
/// (`\w+(\.\w+)*`).
fn shard_split(name: &str) -> Option<String> {
    let at = name.find("-of-")?;
    let split = name.get(..at.checked_sub(6)?)?;
    let ok = !split.is_empty()
        && split
            .split('.')
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_'));
    ok.then(|| split.to_owned())
}

/// Where `datasets` sorts a split: its three first, in their order, then the others.
fn order(split: &str) -> usize {
    KEYWORDS
        .iter()
        .position(|(s, _)| *s == split)
        .unwrap_or(KEYWORDS.len())
}
