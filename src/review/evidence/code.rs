//! Where a text holds code, for showing it as code: fenced blocks (a `File: path` section's,
//! an edit answer's old block after `replace:` and new block after `with:`) and unified diffs,
//! fenced or not. Pure: byte ranges of the text in, no colours; the screen highlights the lines
//! of a region it draws.
//!
//! Offsets here are BYTES of the text given (the screen lays text out by byte); a region starts
//! at a line start and ends at one (or at the text's end).

/// What a region's code is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Code, as a file holds it.
    Code,
    /// An edit's old block: the code the answer says the file has (`replace:`).
    Old,
    /// An edit's new block: the code the answer puts in its place (`with:`).
    New,
    /// A unified diff: lines marked `+`, `-`, `@@`.
    Diff,
}

/// A run of whole lines of code in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// First byte of its first line (after an opening fence's line).
    pub start: usize,
    /// One past its last line's `\n` (a closing fence's line start, or the text's end).
    pub end: usize,
    /// What it is.
    pub kind: Kind,
    /// The language: the fence's tag, else the extension of the file the text names for it
    /// (`File: a/b.py`, `In file a/b.py, replace:`, a diff's `+++ b/x.rs`), lowercase; `None`
    /// when neither says.
    pub lang: Option<String>,
}

/// What one line of a diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLine {
    /// `+…` (not `+++ `).
    Added,
    /// `-…` (not `--- `).
    Removed,
    /// `@@ … @@` hunk header.
    Hunk,
    /// `diff --git`, `index`, `--- a/…`, `+++ b/…`.
    Header,
    /// Unchanged context (` …`) or anything else.
    Context,
}

/// What diff line `line` (no `\n`) is.
#[must_use]
pub fn diff_line(line: &str) -> DiffLine {
    if line.starts_with("@@") {
        DiffLine::Hunk
    } else if line.starts_with("+++ ")
        || line.starts_with("--- ")
        || line.starts_with("diff ")
        || line.starts_with("index ")
    {
        DiffLine::Header
    } else if line.starts_with('+') {
        DiffLine::Added
    } else if line.starts_with('-') {
        DiffLine::Removed
    } else {
        DiffLine::Context
    }
}

/// The lines of `text` as (start byte, line without `\n` or `\r`), the last one included even
/// when empty.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0usize;
    text.split('\n').map(move |l| {
        let start = at;
        at += l.len() + 1;
        (start, l.strip_suffix('\r').unwrap_or(l))
    })
}

/// A fence line's tag (```` ```python ```` → `python`), when `line` is a fence.
fn fence(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let rest = t.strip_prefix("```")?;
    Some(rest.split_whitespace().next().unwrap_or(""))
}

/// The extension of a path's file name, lowercase (`convert.py` → `py`, `Makefile` → none).
fn extension(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\']).next()?;
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()))
        .then(|| ext.to_ascii_lowercase())
}

/// The path a line names for the code after it: `File: PATH`, `In file PATH, replace:`, a
/// diff header's `+++ b/PATH` or `--- a/PATH`.
fn named_path(line: &str) -> Option<&str> {
    let t = line.trim();
    if let Some(p) = t.strip_prefix("File:") {
        return Some(p.trim());
    }
    if let Some(rest) = t.strip_prefix("In file ") {
        return Some(rest.split(',').next().unwrap_or(rest).trim());
    }
    let p = t.strip_prefix("+++ ").or_else(|| t.strip_prefix("--- "))?;
    let p = p.split('\t').next().unwrap_or(p).trim();
    Some(
        p.strip_prefix("a/")
            .or_else(|| p.strip_prefix("b/"))
            .unwrap_or(p),
    )
}

/// Whether the lines from `i` on start a unified diff: `--- X` then `+++ Y`, or `diff --git`.
fn diff_starts(all: &[(usize, &str)], i: usize) -> bool {
    let l = all[i].1;
    l.starts_with("diff --git ")
        || (l.starts_with("--- ") && all.get(i + 1).is_some_and(|n| n.1.starts_with("+++ ")))
}

/// Whether an unfenced diff goes on through this line.
fn diff_goes_on(line: &str) -> bool {
    matches!(
        line.as_bytes().first(),
        Some(b' ' | b'+' | b'-' | b'@' | b'\\')
    ) || line.starts_with("diff ")
        || line.starts_with("index ")
}

/// Whether a fenced block's code reads as a unified diff (its first line that is not blank is
/// a diff header or a hunk).
fn looks_like_diff(all: &[(usize, &str)]) -> bool {
    all.iter()
        .map(|l| l.1)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| {
            l.starts_with("@@") || l.starts_with("--- ") || l.starts_with("diff --git ")
        })
}

/// The code regions of `text`, in text order, never overlapping.
#[must_use]
pub fn regions(text: &str) -> Vec<Region> {
    let all: Vec<(usize, &str)> = lines(text).collect();
    let mut out = Vec::new();
    // The last line that was not blank before the current one, and the path it named.
    let mut before: &str = "";
    let mut path: Option<&str> = None;
    let mut i = 0;
    while i < all.len() {
        let (_, line) = all[i];
        if let Some(tag) = fence(line) {
            let close = (i + 1..all.len())
                .find(|&k| fence(all[k].1) == Some(""))
                .unwrap_or(all.len());
            let start = all.get(i + 1).map_or(text.len(), |l| l.0);
            let end = all.get(close).map_or(text.len(), |l| l.0);
            let body = &all[(i + 1).min(all.len())..close];
            let b = before.trim_end();
            let kind = if tag == "diff" || tag == "patch" || looks_like_diff(body) {
                Kind::Diff
            } else if b.ends_with("replace:") {
                Kind::Old
            } else if b.ends_with("with:") {
                Kind::New
            } else {
                Kind::Code
            };
            let lang = match tag {
                "" | "diff" | "patch" | "text" => None,
                t => Some(t.to_ascii_lowercase()),
            }
            .or_else(|| path.and_then(extension))
            .or_else(|| {
                (kind == Kind::Diff)
                    .then(|| body.iter().find_map(|l| named_path(l.1)))
                    .flatten()
                    .and_then(extension)
            });
            if start < end {
                out.push(Region {
                    start,
                    end,
                    kind,
                    lang,
                });
            }
            // Past the closing fence; the path a `with:` block takes is its `replace:`'s.
            i = close + 1;
            before = "";
            if !b.ends_with("replace:") {
                path = None;
            }
            continue;
        }
        if diff_starts(&all, i) {
            let mut k = i + 1;
            while k < all.len() && diff_goes_on(all[k].1) {
                k += 1;
            }
            let lang = all[i..k]
                .iter()
                .find(|l| l.1.starts_with("+++ "))
                .and_then(|l| named_path(l.1))
                .and_then(extension);
            out.push(Region {
                start: all[i].0,
                end: all.get(k).map_or(text.len(), |l| l.0),
                kind: Kind::Diff,
                lang,
            });
            i = k;
            before = "";
            path = None;
            continue;
        }
        if !line.trim().is_empty() {
            before = line;
            if let Some(p) = named_path(line) {
                path = Some(p);
            } else if !line.trim_end().ends_with("with:") {
                path = None;
            }
        }
        i += 1;
    }
    out
}

/// The code regions of a code sample's answer: its own fenced blocks and diffs, else, when the
/// answer reads as code (a function rendered bare), the whole answer as one block in the
/// language `lang` of the context's file (else a guess from the code).
#[must_use]
pub fn answer_regions(answer: &str, lang: Option<&str>) -> Vec<Region> {
    let own = regions(answer);
    if !own.is_empty() || answer.trim().is_empty() {
        return own;
    }
    let Some(guessed) = guess(answer) else {
        return own;
    };
    vec![Region {
        start: 0,
        end: answer.len(),
        kind: Kind::Code,
        lang: Some(lang.unwrap_or(guessed).to_owned()),
    }]
}

/// A guess at a block's language from its code when nothing names it: an extension
/// (`py`, `rs`, `js`, `go`, `java`, `c`), or `None`.
#[must_use]
pub fn guess(code: &str) -> Option<&'static str> {
    let mut cut = code.len().min(4096);
    while !code.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &code[..cut];
    let has = |s: &str| head.contains(s);
    if has("fn ") && (has("let ") || has("pub ") || has("impl ") || has("->")) {
        Some("rs")
    } else if has("def ") || has("import ") && has(":\n") || has("self.") || has("elif ") {
        Some("py")
    } else if has("func ") && has("package ") || has(":= ") && has("func ") {
        Some("go")
    } else if has("public class ") || has("private ") && has("void ") {
        Some("java")
    } else if has("function ") || has("const ") && has("=>") || has("console.") {
        Some("js")
    } else if has("#include") {
        Some("c")
    } else {
        None
    }
}

/// The region holding byte `b`, by binary search over `regions` (in text order).
#[must_use]
pub fn region_at(regions: &[Region], b: usize) -> Option<usize> {
    let i = regions.partition_point(|r| r.end <= b);
    regions.get(i).filter(|r| r.start <= b).map(|_| i)
}

#[cfg(test)]
mod tests;
