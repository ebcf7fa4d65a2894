//! Evidence for a span: the context pretty-printed for reading, and where the span's text and
//! the numbers, names and values inside it occur in the context and the query.

use memchr::memmem;
use serde_json::Value;

use crate::model::offsets::CharMap;

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

/// A term to look for, folded with [`fold`] for case-insensitive search.
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

/// Bytes of a span's text that terms are taken from: a span of a whole 10 M-character answer
/// would otherwise be folded and split into words on every key. Evidence for a longer span is
/// looked for by its first words.
pub const TERM_SOURCE_BYTES: usize = 4096;

/// Terms looked for at most (the strongest first: the whole text, then in text order).
pub const MAX_TERMS: usize = 64;

/// Terms of a span's text: the whole (trimmed) text, numbers (also without thousands commas),
/// identifiers mixing letters and digits, capitalised names and content words of 4+ letters.
/// Only the first [`TERM_SOURCE_BYTES`] of a longer text are read (the whole text is then no
/// term), and at most [`MAX_TERMS`] terms are kept.
#[must_use]
pub fn terms(span_text: &str) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    let mut push = |text: String, weight: Weight| {
        let text = fold(&text);
        if out.len() < MAX_TERMS && text.chars().count() >= 2 && !out.iter().any(|t| t.text == text)
        {
            out.push(Term { text, weight });
        }
    };
    let whole = span_text.trim_matches(|c: char| c.is_whitespace() || is_punct(c));
    let mut cut = span_text.len().min(TERM_SOURCE_BYTES);
    while !span_text.is_char_boundary(cut) {
        cut -= 1;
    }
    if whole.len() <= TERM_SOURCE_BYTES {
        push(whole.to_owned(), Weight::Whole);
    } else {
        // The last word may be cut in two: leave it out.
        cut = span_text[..cut].rfind(char::is_whitespace).unwrap_or(cut);
    }
    let span_text = &span_text[..cut];
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

/// One character folded for search, handed to `emit`: its lower case, with the final sigma `ς`
/// taken as `σ` (so "ΣΟΦΙΑΣ" finds "σοφιας"), canonically decomposed (so `é` typed as one
/// character finds `e` + U+0301 and the other way round: the same text in NFC or NFD). A
/// character may fold to several (`İ` → `i̇`, `É` → `e` + U+0301).
fn fold_char(c: char, mut emit: impl FnMut(char)) {
    for l in c.to_lowercase() {
        let l = if l == 'ς' { 'σ' } else { l };
        unicode_normalization::char::decompose_canonical(l, &mut emit);
    }
}

/// `s` folded for case-insensitive search (ASCII text: ASCII lower case). Search terms and the
/// searched text must both go through it.
#[must_use]
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        fold_char(c, |l| out.push(l));
    }
    out
}

/// A text folded with [`fold`], and the way back from a position in the folded text to the
/// original: folding can change the number of code points (`İ` becomes two) and of bytes
/// (`K` KELVIN SIGN, three bytes, becomes `k`, one), so an occurrence found in the folded text
/// is mapped back through code points ([`CharMap`]) before it marks the original.
#[derive(Debug, Clone)]
pub struct Folded {
    /// The folded text.
    text: String,
    /// Empty when the text is ASCII (positions unchanged). Else: for code point `k` of the
    /// folded text, the code point of the original it comes from, and one more entry, the
    /// original's length in code points.
    from: Vec<usize>,
    /// Code point ↔ byte of the folded text.
    folded_map: CharMap,
    /// Code point ↔ byte of the original.
    original_map: CharMap,
}

impl Folded {
    /// Fold `original`.
    #[must_use]
    pub fn new(original: &str) -> Self {
        if original.is_ascii() {
            let text = original.to_ascii_lowercase();
            let map = CharMap::new(&text);
            return Self {
                text,
                from: Vec::new(),
                folded_map: map.clone(),
                original_map: map,
            };
        }
        let mut text = String::with_capacity(original.len());
        let mut from = Vec::with_capacity(original.len() + 1);
        let mut n = 0;
        for (k, c) in original.chars().enumerate() {
            fold_char(c, |l| {
                text.push(l);
                from.push(k);
            });
            n = k + 1;
        }
        from.push(n);
        Self {
            folded_map: CharMap::new(&text),
            original_map: CharMap::new(original),
            text,
            from,
        }
    }

    /// The folded text.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Byte range `[start, end)` of the folded text as a byte range of the original, widened
    /// to whole original characters (a hit on the `i` of a folded `İ` marks the `İ`).
    fn original(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        if self.from.is_empty() {
            return Some((start, end));
        }
        let a = self.folded_map.char_of(start)?;
        let b = self.folded_map.char_of(end)?;
        let oa = *self.from.get(a)?;
        // One past the original character holding the folded text's last code point.
        let ob = if b > a { self.from.get(b - 1)? + 1 } else { oa };
        Some((
            self.original_map.byte_of(oa)?,
            self.original_map.byte_of(ob)?,
        ))
    }

    /// Every occurrence of `terms` (folded with [`fold`]), as byte ranges of the ORIGINAL
    /// text, in text order, overlapping hits merged (keeping the strongest weight).
    /// Number-like terms must not be part of a longer number (`25` does not match inside
    /// `2025`).
    #[must_use]
    pub fn find(&self, terms: &[Term]) -> Vec<Hit> {
        let bytes = self.text.as_bytes();
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
                // A term that starts (ends) with a letter or digit must not continue a longer
                // word or number there: `25` does not match inside `2025`.
                let before = at.checked_sub(1).and_then(|b| bytes.get(b));
                if (edge_start && alnum(before)) || (edge_end && alnum(bytes.get(end))) {
                    continue;
                }
                // Nor split a character from its combining marks: `e` does not match the `e`
                // of `é` (folded `e` + U+0301), whichever form the text is in.
                if self.text[end..]
                    .chars()
                    .next()
                    .is_some_and(unicode_normalization::char::is_combining_mark)
                {
                    continue;
                }
                // A valid UTF-8 needle found in valid UTF-8 starts and ends on character
                // boundaries, so the mapping back cannot fail.
                if let Some((start, end)) = self.original(at, end) {
                    hits.push(Hit {
                        start,
                        end,
                        weight: t.weight,
                    });
                }
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
    use crate::model::offsets;
    use rstest::rstest;

    /// The original text of every hit of `needle` (searched as the `/` prompt does).
    fn found<'a>(hay: &'a str, needle: &str) -> Vec<&'a str> {
        let term = [Term {
            text: fold(needle),
            weight: Weight::Whole,
        }];
        Folded::new(hay)
            .find(&term)
            .iter()
            .map(|h| &hay[h.start..h.end])
            .collect()
    }

    #[rstest]
    #[case::accents("l'été dernier, ÉTÉ 2024", "ÉTÉ", &["été", "ÉTÉ"])]
    #[case::degree("Il fait 25°C, 25°c", "25°C", &["25°C", "25°c"])]
    #[case::apostrophe("It’s FINE, it’s fine", "it’s fine", &["It’s FINE", "it’s fine"])]
    #[case::cjk("東京は晴れ TOKYO 東京", "東京", &["東京", "東京"])]
    #[case::cjk_then_ascii("東京は晴れ TOKYO", "tokyo", &["TOKYO"])]
    #[case::emoji("hi 👋 THERE 👋 there", "There", &["THERE", "there"])]
    #[case::combining("CAFE\u{301} cafe\u{301}", "Cafe\u{301}", &["CAFE\u{301}", "cafe\u{301}"])]
    #[case::greek("ΣΟΦΙΑ σοφια", "ΣΟΦΙΑ", &["ΣΟΦΙΑ", "σοφια"])]
    #[case::final_sigma("ΛΟΓΟΣ λογο\u{3c2}", "λογοσ", &["ΛΟΓΟΣ", "λογο\u{3c2}"])]
    #[case::dotted_i("İstanbul istanbul", "İSTANBUL", &["İstanbul"])]
    #[case::dotted_i_lower("İstanbul istanbul", "istanbul", &["istanbul"])]
    #[case::sharp_s("STRAẞE straße", "STRASSE", &[])]
    #[case::sharp_s_capital("STRAẞE straße", "straße", &["STRAẞE", "straße"])]
    #[case::titlecase_dz("ǅemal ǆemal ǄEMAL", "ǅEMAL", &["ǅemal", "ǆemal", "ǄEMAL"])]
    // Folding changes lengths BEFORE the hit: İ grows by a code point and a byte, K (KELVIN
    // SIGN) shrinks from three bytes to one, Ⱥ grows from two bytes to three. A hit mapped by
    // folded positions would mark the wrong characters.
    #[case::grows_before("İİİ ÉTÉ", "été", &["ÉTÉ"])]
    #[case::shrinks_before("\u{212a}\u{212a}\u{212a} ÉTÉ", "été", &["ÉTÉ"])]
    #[case::grows_bytes_before("ȺȺȺ ÉTÉ", "été", &["ÉTÉ"])]
    #[case::kelvin("5 \u{212a} or 5 k", "5 K", &["5 \u{212a}", "5 k"])]
    #[case::ascii("Paris, PARIS, paris", "Paris", &["Paris", "PARIS", "paris"])]
    fn search_is_unicode_case_insensitive(
        #[case] hay: &str,
        #[case] needle: &str,
        #[case] want: &[&str],
    ) {
        assert_eq!(found(hay, needle), want);
    }

    #[test]
    fn hits_are_at_the_original_code_points() {
        // "İ" folds to two code points and "\u{212a}" to one byte: the code points a user sees
        // are the original's.
        let hay = "İ\u{212a} 👋 e\u{301}t ÉTÉ";
        let hits = Folded::new(hay).find(&terms("été"));
        assert_eq!(hits.len(), 1);
        let h = hits[0];
        assert_eq!(offsets::char_of(hay, h.start), Some(9));
        assert_eq!(offsets::char_of(hay, h.end), Some(12));
        assert_eq!(offsets::slice(hay, 9, 12), Some("ÉTÉ"));
    }

    #[test]
    fn a_hit_never_splits_a_character_from_its_marks_and_marks_whole_characters() {
        let find = |hay: &str, term: &str| -> Vec<String> {
            Folded::new(hay)
                .find(&[Term {
                    text: fold(term),
                    weight: Weight::Word,
                }])
                .iter()
                .map(|h| hay[h.start..h.end].to_owned())
                .collect()
        };
        // "İ" folds to "i" + U+0307: "i" alone would split it; "i̇" marks the whole "İ".
        assert!(find("İ x", "i").is_empty());
        assert_eq!(find("İ x", "i\u{307}"), ["İ"]);
        // NFC and NFD are the same text: each finds the other, whole.
        let (nfc, nfd) = (
            "Un été à Hà Nội",
            "Un e\u{301}te\u{301} a\u{300} Ha\u{300} N\u{1ed9}i",
        );
        assert_eq!(find(nfd, "été"), ["e\u{301}te\u{301}"]);
        assert_eq!(find(nfc, "e\u{301}te\u{301}"), ["été"]);
        assert_eq!(find(nfd, "HÀ NỘI"), ["Ha\u{300} N\u{1ed9}i"]);
        // Known-bad: a base letter does not match inside an accented one.
        assert!(find(nfc, "ete").is_empty());
        assert!(find(nfd, "ete").is_empty());
        assert_eq!(find("cafe café", "cafe"), ["cafe"]);
    }

    #[test]
    fn ascii_text_keeps_ascii_folding() {
        let f = Folded::new("ABC def");
        assert_eq!(f.text(), "abc def");
        assert!(f.from.is_empty(), "no table for ASCII text");
        assert_eq!(fold("ÀB"), "a\u{300}b", "lower case, decomposed");
    }

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
    fn a_huge_span_gives_few_terms_from_its_start() {
        let text = "Zurich 2024 report ".repeat(1_000_000);
        let t = terms(&text);
        assert!(t.len() <= MAX_TERMS);
        assert!(t.iter().all(|t| t.weight != Weight::Whole));
        let words: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(words, ["zurich", "2024", "report"]);
        let many: String = (0..10_000).map(|i| format!("Word{i}x ")).collect();
        assert_eq!(terms(&many).len(), MAX_TERMS);
        // A short span keeps its whole text first.
        assert_eq!(terms("ITEM-42 costs")[0].weight, Weight::Whole);
    }

    #[test]
    fn numbers_do_not_match_inside_longer_numbers() {
        let hay = "year 2025, temp 25 c";
        let hits = Folded::new(hay).find(&terms("25"));
        assert_eq!(hits.len(), 1);
        assert_eq!(&hay[hits[0].start..hits[0].end], "25");
    }

    #[test]
    fn hits_merge_and_first_best_prefers_whole_text() {
        let hay = "Paris is nice. The trip to Paris cost 300 euros";
        let hits = Folded::new(hay).find(&terms("trip to Paris cost 300"));
        let i = first_best(&hits).expect("hit");
        assert_eq!(&hay[hits[i].start..hits[i].end], "trip to Paris cost 300");
        assert_eq!(&hay[hits[0].start..hits[0].end], "Paris");
        assert!(Folded::new("nothing here")
            .find(&terms("absent"))
            .is_empty());
    }
}
