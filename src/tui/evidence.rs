//! Evidence for a span: the context pretty-printed for reading, and where the span's text and
//! the numbers, names and values inside it occur in the context and the query.

use memchr::memmem;
use serde_json::Value;

/// Pretty-print a context: each line that is a JSON object or array becomes indented JSON
/// (keys in file order, non-ASCII kept); other lines stay as they are.
#[must_use]
pub fn pretty_context(context: &str) -> String {
    let mut out = String::with_capacity(context.len() + context.len() / 4);
    for (i, line) in context.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let t = line.trim();
        let parsed = (t.starts_with('{') || t.starts_with('['))
            .then(|| serde_json::from_str::<Value>(t).ok())
            .flatten();
        match parsed.and_then(|v| serde_json::to_string_pretty(&v).ok()) {
            Some(p) => out.push_str(&p),
            None => out.push_str(line),
        }
    }
    out
}

/// How strongly a term ties a span to the evidence: the whole text first, then numbers and
/// identifiers, then names and other words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Weight {
    /// The span's whole text.
    Whole,
    /// A number, date or identifier.
    Value,
    /// A name or another content word.
    Word,
}

/// A term to look for, lower-cased (ASCII) for case-insensitive search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The text searched for.
    pub text: String,
    /// Its weight.
    pub weight: Weight,
}

const STOP: &[&str] = &[
    "the",
    "and",
    "for",
    "you",
    "are",
    "was",
    "has",
    "not",
    "but",
    "its",
    "our",
    "can",
    "all",
    "about",
    "after",
    "also",
    "been",
    "before",
    "being",
    "could",
    "does",
    "each",
    "from",
    "have",
    "here",
    "into",
    "just",
    "know",
    "like",
    "more",
    "most",
    "other",
    "over",
    "some",
    "such",
    "than",
    "that",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "very",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "will",
    "with",
    "would",
    "your",
    "anything",
    "else",
    "help",
    "please",
    "let",
    "assist",
    "based",
    "provided",
    "information",
    "following",
];

/// Terms of a span's text: the whole (trimmed) text, numbers (also without thousands commas),
/// identifiers mixing letters and digits, capitalised names and content words of 4+ letters.
#[must_use]
pub fn terms(span_text: &str) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    let mut push = |text: String, weight: Weight| {
        let text = text.to_ascii_lowercase();
        if text.chars().count() >= 2 && !out.iter().any(|t| t.text == text) {
            out.push(Term { text, weight });
        }
    };
    let whole = span_text.trim_matches(|c: char| c.is_whitespace() || is_punct(c));
    push(whole.to_owned(), Weight::Whole);
    for tok in tokens(span_text) {
        let has_digit = tok.chars().any(|c| c.is_ascii_digit());
        let has_alpha = tok.chars().any(char::is_alphabetic);
        if has_digit {
            push(tok.to_owned(), Weight::Value);
            if tok.contains(',') {
                push(tok.replace(',', ""), Weight::Value);
            }
            if let Some(int) = tok.strip_suffix(".0") {
                push(int.to_owned(), Weight::Value);
            }
            continue;
        }
        if !has_alpha {
            continue;
        }
        let lower = tok.to_lowercase();
        let capital = tok.chars().next().is_some_and(char::is_uppercase);
        if STOP.contains(&lower.as_str()) {
            continue;
        }
        if tok.chars().count() >= 4 || (capital && tok.chars().count() >= 3) {
            push(tok.to_owned(), Weight::Word);
        }
    }
    out
}

fn is_punct(c: char) -> bool {
    c.is_ascii_punctuation() || matches!(c, '’' | '‘' | '“' | '”' | '…' | '—' | '–' | '。' | '、')
}

/// Tokens: runs of letters, digits and the joiners `_`, and `.,:/-` between digits.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let joiner = matches!(c, '.' | ',' | ':' | '/' | '-')
            && k > 0
            && chars[k - 1].1.is_ascii_digit()
            && chars.get(k + 1).is_some_and(|n| n.1.is_ascii_digit());
        let word = c.is_alphanumeric() || c == '_' || joiner;
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(b)) => {
                out.push(&s[b..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(b) = start {
        out.push(&s[b..]);
    }
    out
}

/// One occurrence: a byte range of the searched text and the weight of the term found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// Weight of the term.
    pub weight: Weight,
}

/// Every occurrence of the terms in `haystack_lower` (an ASCII-lower-cased text), in text order,
/// overlapping hits merged (keeping the strongest weight). Number-like terms must not be part
/// of a longer number (`25` does not match inside `2025`).
#[must_use]
pub fn find(haystack_lower: &str, terms: &[Term]) -> Vec<Hit> {
    let bytes = haystack_lower.as_bytes();
    let mut hits: Vec<Hit> = Vec::new();
    for t in terms {
        let needle = t.text.as_bytes();
        if needle.is_empty() {
            continue;
        }
        let alnum = |b: Option<&u8>| b.is_some_and(u8::is_ascii_alphanumeric);
        let (edge_start, edge_end) = (alnum(needle.first()), alnum(needle.last()));
        for at in memmem::find_iter(bytes, needle) {
            let end = at + needle.len();
            // A term that starts (ends) with a letter or digit must not continue a longer word
            // or number there: `25` does not match inside `2025`.
            let before = at.checked_sub(1).and_then(|b| bytes.get(b));
            if (edge_start && alnum(before)) || (edge_end && alnum(bytes.get(end))) {
                continue;
            }
            hits.push(Hit {
                start: at,
                end,
                weight: t.weight,
            });
        }
    }
    hits.sort_by_key(|h| (h.start, h.end));
    let mut merged: Vec<Hit> = Vec::with_capacity(hits.len());
    for h in hits {
        match merged.last_mut() {
            Some(last) if h.start < last.end => {
                last.end = last.end.max(h.end);
                last.weight = last.weight.min(h.weight);
            }
            _ => merged.push(h),
        }
    }
    merged
}

/// Index of the hit to show first: the first hit of the strongest weight found.
#[must_use]
pub fn first_best(hits: &[Hit]) -> Option<usize> {
    let best = hits.iter().map(|h| h.weight).min()?;
    hits.iter().position(|h| h.weight == best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_prints_json_lines_and_keeps_text() {
        let c = "{\"b\": 1, \"a\": \"東京\"}\nplain line";
        let p = pretty_context(c);
        assert!(p.starts_with("{\n  \"b\": 1,\n  \"a\": \"東京\"\n}"), "{p}");
        assert!(p.ends_with("\nplain line"));
    }

    #[test]
    fn terms_take_numbers_ids_and_names() {
        let t = terms("The event AZR-EVT-1001 starts on 2025-01-15 in Paris at 1,200 people.");
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert!(texts.contains(&"2025-01-15"), "{texts:?}");
        assert!(texts.contains(&"1,200"));
        assert!(texts.contains(&"1200"));
        assert!(texts.contains(&"paris"));
        assert!(texts.contains(&"1001"));
        assert!(texts.contains(&"event"));
        assert!(!texts.contains(&"the"));
        assert_eq!(t[0].weight, Weight::Whole);
    }

    #[test]
    fn numbers_do_not_match_inside_longer_numbers() {
        let hay = "year 2025, temp 25 c";
        let hits = find(hay, &terms("25"));
        assert_eq!(hits.len(), 1);
        assert_eq!(&hay[hits[0].start..hits[0].end], "25");
    }

    #[test]
    fn hits_merge_and_first_best_prefers_whole_text() {
        let hay = "paris is nice. the trip to paris cost 300 euros";
        let hits = find(hay, &terms("trip to Paris cost 300"));
        let i = first_best(&hits).expect("hit");
        assert_eq!(&hay[hits[i].start..hits[i].end], "trip to paris cost 300");
        assert_eq!(&hay[hits[0].start..hits[0].end], "paris");
        assert!(find("nothing here", &terms("absent")).is_empty());
    }
}
