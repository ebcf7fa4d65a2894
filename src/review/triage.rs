//! Deterministic checks of a record's labeled spans against its evidence, for `spanreview
//! triage`: each finding becomes a `flag` decision with `reason` = `CODE: explanation`.
//!
//! The code-agent samples' arbitration rule (LettuceDetect's authors): a span whose text
//! occurs in the original repository marks code that was there, not code the answer
//! introduced. The same reading applies to a contradiction whose text the context states.
//! Boundaries: a span should start and end on a word, and in an edit answer cover no more
//! than what the new block changes.

pub mod edit;

use crate::model::{escape, offsets, Record, Span};

/// What a finding is about; the names are the flags' reason codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// A fabricated-reference span (or a contradiction) whose text occurs in the context.
    SpanInContext,
    /// An edit answer whose old block is not in the context.
    Misquote,
    /// A span that starts or ends with whitespace.
    BoundarySpace,
    /// A span that starts or ends inside a word or identifier.
    BoundaryMidword,
    /// In an edit answer, a span wider than what the new block changes.
    BoundaryNotMinimal,
    /// A category not in the label set, or a subcategory its category does not have.
    Taxonomy,
}

impl Code {
    /// Every code, in report order.
    pub const ALL: [Self; 6] = [
        Self::SpanInContext,
        Self::Misquote,
        Self::BoundarySpace,
        Self::BoundaryMidword,
        Self::BoundaryNotMinimal,
        Self::Taxonomy,
    ];

    /// The reason code as flags carry it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::SpanInContext => "span-in-context",
            Self::Misquote => "misquote",
            Self::BoundarySpace => "boundary-space",
            Self::BoundaryMidword => "boundary-midword",
            Self::BoundaryNotMinimal => "boundary-not-minimal",
            Self::Taxonomy => "taxonomy",
        }
    }

    /// One line on what the code means (the triage rubric).
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Self::SpanInContext => "span text occurs in the context: it marks original text",
            Self::Misquote => "the edit's old block is not in the context",
            Self::BoundarySpace => "span starts or ends with whitespace",
            Self::BoundaryMidword => "span starts or ends inside a word or identifier",
            Self::BoundaryNotMinimal => "span is wider than what the edit changes",
            Self::Taxonomy => "category or subcategory not in the label set",
        }
    }
}

/// One finding on a record: about its `span`-th labeled span, or the whole record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What was found.
    pub code: Code,
    /// Index of the span in the record's labels, when it is about one.
    pub span: Option<usize>,
    /// What exactly, for the reviewer (one line).
    pub explanation: String,
}

/// A character of a word or identifier, for boundary checks. Scripts written without spaces
/// (Han, kana, Thai, Lao, Khmer, Myanmar) have no word boundary to respect.
#[must_use]
pub fn is_word(c: char) -> bool {
    (c.is_alphanumeric() || c == '_')
        && !matches!(u32::from(c),
            0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x3040..=0x30FF
            | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
            | 0x20000..=0x3FFFF)
}

/// `s` quoted on one line, cut to 60 code points.
fn quoted(s: &str) -> String {
    let cut: String = s.chars().take(60).collect();
    let more = if cut.len() < s.len() { "…" } else { "" };
    format!("“{}{more}”", escape::line(&cut))
}

/// The spans' category as triage reads it: the span's own, else its label.
fn category(span: &Span) -> &str {
    span.category.as_deref().unwrap_or(&span.label)
}

/// Whether [`check`] reads `record`'s evidence: for an edit answer's old block, or a span of a
/// category whose text is looked for in it. A reader may leave the evidence unread otherwise.
#[must_use]
pub fn reads_context(record: &Record) -> bool {
    edit::parse(&record.output).is_some()
        || record
            .gold_spans()
            .iter()
            .any(|s| matches!(category(s), "fabricated_reference" | "contradiction"))
}

/// Every finding on `record`'s labeled spans and its answer, in span order (record-level ones
/// first). The taxonomy check needs the label set and is the caller's.
#[must_use]
pub fn check(record: &Record) -> Vec<Finding> {
    let out = &record.output;
    let chars: Vec<char> = out.chars().collect();
    let edit = edit::parse(out);
    let mut found: Vec<Finding> = edit
        .and_then(|e| misquote(record, e.old))
        .into_iter()
        .collect();
    for (i, span) in record.gold_spans().iter().enumerate() {
        let Some(text) = offsets::slice(out, span.start, span.end).filter(|t| !t.is_empty()) else {
            continue; // `validate` reports a span that does not slice its answer.
        };
        let mut push = |code, explanation| {
            found.push(Finding {
                code,
                span: Some(i),
                explanation,
            });
        };
        if let Some(why) = in_context(&record.context, category(span), text) {
            push(Code::SpanInContext, why);
        }
        if let Some(why) = space(text) {
            push(Code::BoundarySpace, why);
        }
        if let Some(why) = midword(&chars, span.start, span.end) {
            push(Code::BoundaryMidword, why);
        }
        if let Some(why) = edit.and_then(|e| not_minimal(out, e, span.start, span.end)) {
            push(Code::BoundaryNotMinimal, why);
        }
    }
    found
}

/// Where `needle` occurs in `hay` as a whole token (not inside a longer word), byte offsets.
pub fn token_matches<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let first = needle.chars().next().is_some_and(is_word);
    let last = needle.chars().next_back().is_some_and(is_word);
    hay.match_indices(needle).map(|(b, _)| b).filter(move |&b| {
        let before = hay[..b].chars().next_back().is_some_and(is_word);
        let after = hay[b + needle.len()..].chars().next().is_some_and(is_word);
        !((first && before) || (last && after))
    })
}

/// A fabricated reference (or contradiction) whose text the context holds as a token.
fn in_context(context: &str, category: &str, text: &str) -> Option<String> {
    let what = match category {
        "fabricated_reference" => "a fabricated reference",
        "contradiction" => "a contradiction",
        _ => return None,
    };
    let needle = text.trim();
    // One character (a digit, a bracket) occurs anywhere: no evidence either way.
    if offsets::char_len(needle) < 2 {
        return None;
    }
    let mut hits = token_matches(context, needle);
    let first = hits.next()?;
    let n = 1 + hits.count();
    let at = offsets::char_of(context, first).unwrap_or(0);
    let times = if n == 1 {
        "once".to_owned()
    } else {
        format!("{n} times")
    };
    Some(format!(
        "{what} whose text {} occurs in the context {times} (first at code point {at})",
        quoted(needle)
    ))
}

/// A span that starts or ends with whitespace.
fn space(text: &str) -> Option<String> {
    let starts = text.chars().next().is_some_and(char::is_whitespace);
    let ends = text.chars().next_back().is_some_and(char::is_whitespace);
    let which = match (starts, ends) {
        (true, true) => "starts and ends",
        (true, false) => "starts",
        (false, true) => "ends",
        (false, false) => return None,
    };
    Some(format!("span {} {which} with whitespace", quoted(text)))
}

/// A span whose start or end falls inside a word.
fn midword(chars: &[char], start: usize, end: usize) -> Option<String> {
    let inside =
        |at: usize| at > 0 && at < chars.len() && is_word(chars[at - 1]) && is_word(chars[at]);
    let word_at = |at: usize| {
        let s = (0..at)
            .rev()
            .take_while(|&k| is_word(chars[k]))
            .last()
            .unwrap_or(at);
        let e = (at..chars.len())
            .take_while(|&k| is_word(chars[k]))
            .last()
            .map_or(at, |k| k + 1);
        chars[s..e].iter().collect::<String>()
    };
    let mut parts = Vec::new();
    if inside(start) {
        parts.push(format!("starts inside {}", quoted(&word_at(start))));
    }
    if inside(end) {
        parts.push(format!("ends inside {}", quoted(&word_at(end))));
    }
    (!parts.is_empty()).then(|| format!("span [{start}, {end}) {}", parts.join(" and ")))
}

/// A span inside an edit's new block that covers the change and more.
fn not_minimal(out: &str, e: edit::Edit, start: usize, end: usize) -> Option<String> {
    if start < e.new.start || end > e.new.end {
        return None;
    }
    let old = offsets::slice(out, e.old.start, e.old.end)?;
    let new = offsets::slice(out, e.new.start, e.new.end)?;
    let (cs, ce) = edit::changed(old, new)?;
    let (cs, ce) = (e.new.start + cs, e.new.start + ce);
    let covers = start <= cs && end >= ce;
    if !covers || (start, end) == (cs, ce) {
        return None;
    }
    Some(format!(
        "span [{start}, {end}) is wider than the change [{cs}, {ce}) {} from the old block",
        quoted(offsets::slice(out, cs, ce).unwrap_or(""))
    ))
}

/// Where an edit answer's old block stands in the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OldBlock {
    /// Verbatim, starting on this context line (from 1).
    Verbatim {
        /// The context line it starts on.
        line: usize,
    },
    /// Not in the context: its first line the context lacks, and the nearest context line.
    Misquoted {
        /// The old block's line (from 1) the context lacks.
        line: usize,
        /// Its text.
        text: String,
        /// The nearest context line (from 1), its text and the first code point where the two
        /// differ.
        nearest: Option<(usize, String, usize)>,
    },
}

/// Where the old block of `record`'s edit answer stands in its context; `None` when the
/// answer is no edit or its old block is blank.
#[must_use]
pub fn old_block(record: &Record) -> Option<OldBlock> {
    old_block_at(record, edit::parse(&record.output)?.old)
}

/// [`old_block`] of the edit's old block `old`, already parsed.
fn old_block_at(record: &Record, old: edit::Block) -> Option<OldBlock> {
    let code = offsets::slice(&record.output, old.start, old.end)?;
    if code.trim().is_empty() {
        return None;
    }
    if let Some(b) = record.context.find(code) {
        let line = 1 + record.context[..b].matches('\n').count();
        return Some(OldBlock::Verbatim { line });
    }
    let lines: Vec<&str> = record.context.lines().collect();
    let (n, missing) = code
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !lines.contains(l))
        .unwrap_or((0, code.lines().next().unwrap_or("")));
    Some(OldBlock::Misquoted {
        line: n + 1,
        text: missing.to_owned(),
        nearest: nearest(&lines, missing).map(|(k, l, at)| (k + 1, l.to_owned(), at)),
    })
}

/// The `misquote` finding of an edit whose old block is not in the context.
fn misquote(record: &Record, old: edit::Block) -> Option<Finding> {
    let OldBlock::Misquoted {
        line,
        text,
        nearest,
    } = old_block_at(record, old)?
    else {
        return None;
    };
    let near = nearest.map_or_else(String::new, |(k, l, at)| {
        format!(
            "; nearest is context line {k} {}, differing at code point {at}",
            quoted(&l)
        )
    });
    Some(Finding {
        code: Code::Misquote,
        span: None,
        explanation: format!(
            "the old block's line {line} {} is not in the context{near}",
            quoted(&text)
        ),
    })
}

/// The line of `lines` sharing the longest prefix plus suffix with `line`: its index, text and
/// the first code point where the two differ.
fn nearest<'a>(lines: &[&'a str], line: &str) -> Option<(usize, &'a str, usize)> {
    let a: Vec<char> = line.chars().collect();
    let score = |b: &str| {
        let b: Vec<char> = b.chars().collect();
        let (p, s) = edit::shared_ends(&a, &b);
        (p + s, p)
    };
    let (k, l) = lines
        .iter()
        .enumerate()
        .max_by_key(|(k, l)| (score(l).0, std::cmp::Reverse(*k)))?;
    let (shared, at) = score(l);
    (shared > 0).then_some((k, *l, at))
}

#[cfg(test)]
mod tests;
