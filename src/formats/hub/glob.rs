//! Globs as the Hub resolves a card's `data_files`: relative to the dataset folder, `*` and
//! `?` within one path segment, `[...]` / `[!...]` character classes, `**` as a whole segment
//! for zero or more folders. Matches are in sorted path order; hidden files and folders (`.x`)
//! and `__x` folders are skipped unless the pattern names them, and so are the card and the
//! other files `datasets` never reads as data (`README.md`, `dataset_info.json`, …).

use std::path::{Path, PathBuf};

/// Files `datasets` ignores whatever a pattern says (unless the pattern names one).
const IGNORED: [&str; 6] = [
    "README.md",
    "config.json",
    "dataset_info.json",
    "dataset_infos.json",
    "dummy_data.zip",
    "dataset_dict.json",
];

/// Every regular file under `dir` (file symlinks followed, folder symlinks not entered), as
/// `/`-separated paths relative to `dir`, sorted.
///
/// # Errors
/// A folder that cannot be read.
pub fn walk(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue; // not UTF-8: no card pattern can name it
            };
            let path = rel.join(&name);
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() || (kind.is_symlink() && dir.join(&path).is_file()) {
                out.push(path.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The paths of `files` (from [`walk`]) that `pattern` matches, in their order.
#[must_use]
pub fn matching<'a>(pattern: &str, files: &'a [String]) -> Vec<&'a String> {
    let pattern = pattern.trim_start_matches("./");
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    let names_base = parts.last().copied().unwrap_or_default();
    files
        .iter()
        .filter(|f| {
            let segs: Vec<&str> = f.split('/').collect();
            let base = segs.last().copied().unwrap_or_default();
            if IGNORED.contains(&base) && names_base != base {
                return false;
            }
            if unrequested_hidden(&segs, &parts) {
                return false;
            }
            path_matches(&parts, &segs)
        })
        .collect()
}

/// A file in (or being) a hidden `.x` entry, or inside a `__x` folder, that the pattern does
/// not ask for by a segment of the same kind (as `datasets` does).
fn unrequested_hidden(segs: &[&str], parts: &[&str]) -> bool {
    let hidden = |s: &&str| s.starts_with('.') && s.chars().any(|c| c != '.');
    let special = |s: &&str| s.starts_with("__");
    let dirs = &segs[..segs.len().saturating_sub(1)];
    let in_hidden = segs.iter().filter(|s| hidden(s)).count();
    let in_special = dirs.iter().filter(|s| special(s)).count();
    let asks_hidden = parts.iter().filter(|s| hidden(s)).count();
    let asks_special = parts.iter().filter(|s| special(s)).count();
    in_hidden > asks_hidden || in_special > asks_special
}

/// Whether the pattern's segments `parts` match the path's segments `segs`.
fn path_matches(parts: &[&str], segs: &[&str]) -> bool {
    match parts.split_first() {
        None => segs.is_empty(),
        Some((&"**", rest)) => {
            // Zero or more folders; a trailing `**` matches any file below.
            if rest.is_empty() {
                return !segs.is_empty();
            }
            (0..segs.len()).any(|skip| path_matches(rest, &segs[skip..]))
        }
        Some((part, rest)) => match segs.split_first() {
            Some((seg, more)) => segment_matches(part, seg) && path_matches(rest, more),
            None => false,
        },
    }
}

/// `fnmatch` of one segment: `*` (any run, `**` inside a segment is `*`), `?`, `[...]`.
#[must_use]
pub fn segment_matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    fn go(p: &[char], s: &[char]) -> bool {
        match p.first() {
            None => s.is_empty(),
            Some('*') => {
                let rest = &p[1..];
                (0..=s.len()).any(|k| go(rest, &s[k..]))
            }
            Some('?') => !s.is_empty() && go(&p[1..], &s[1..]),
            Some('[') => match (class(&p[1..]), s.first()) {
                (Some((set, used)), Some(&c)) => set.contains(c) && go(&p[1 + used..], &s[1..]),
                (Some(_), None) => false,
                // An unclosed `[` is a literal.
                (None, Some('[')) => go(&p[1..], &s[1..]),
                (None, _) => false,
            },
            Some(&c) => s.first() == Some(&c) && go(&p[1..], &s[1..]),
        }
    }
    go(&p, &s)
}

/// A character class after its `[`: the set and how many characters it used (with the `]`).
fn class(p: &[char]) -> Option<(Class, usize)> {
    let (negated, start) = match p.first() {
        Some('!' | '^') => (true, 1),
        _ => (false, 0),
    };
    let mut i = start;
    let mut ranges = Vec::new();
    loop {
        let c = *p.get(i)?;
        // A `]` first in the class is a member.
        if c == ']' && i > start {
            return Some((Class { negated, ranges }, i + 1));
        }
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            ranges.push((c, p[i + 2]));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
}

/// The members of a `[...]` class: inclusive ranges, or all but them.
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
}

impl Class {
    fn contains(&self, c: char) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= c && c <= b) != self.negated
    }
}
