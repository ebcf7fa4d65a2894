//! Locating a judge's quoted `extra_text` in the answer, in code points.
//!
//! A judge quotes the text it finds hallucinated without offsets. [`locate`] tries, in order:
//!
//! 1. **Exact**: the first occurrence of the quote (whitespace-trimmed, then also with wrapping
//!    quote marks `"'“”‘’«»` and backticks removed).
//! 2. **Case-insensitive**: the same after `char::to_lowercase` on both sides (plus `ß`, `ẞ` →
//!    `ss` and final `ς` → `σ`, as full case folding does). Folding can change the number of
//!    code points (`İ` → `i̇`, `ß` → `ss`) and of bytes, so the search
//!    runs on a folded copy that remembers, for each folded character, the code point of the
//!    original answer it came from; a match that starts or ends inside the expansion of one
//!    original character covers that whole character.
//! 3. **Fuzzy**: the answer window with the smallest edit distance to the quote (Sellers'
//!    approximate substring matching, code point by code point, after lowercasing, mapping every
//!    whitespace run to one space and curly quotes to straight ones); similarity is
//!    `1 − distance / len(quote)` and must reach the threshold ([`DEFAULT_THRESHOLD`]).
//!
//! `None` means the claim cannot be placed: the reviewer places it by hand or dismisses it.
//! All offsets returned index the original answer (Python string indices).

use serde::{Deserialize, Serialize};

use crate::model::offsets;

/// Similarity a fuzzy match must reach: at most one edit per five characters of the quote.
pub const DEFAULT_THRESHOLD: f64 = 0.8;

/// Fuzzy matching is skipped (the claim stays unplaced) past this many dynamic-programming cells
/// (`len(answer) × len(quote)`), about a tenth of a second of work.
const MAX_FUZZY_CELLS: usize = 40_000_000;

/// How a quote was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// Character for character.
    Exact,
    /// Equal after lowercasing.
    CaseInsensitive,
    /// The closest window by edit distance, at or above the threshold.
    Fuzzy,
}

/// Where a quote was found in the answer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Located {
    /// First code point of the match.
    pub start: usize,
    /// One past the last code point.
    pub end: usize,
    /// How it was found.
    pub kind: MatchKind,
    /// 1.0 for exact and case-insensitive matches; `1 − distance / len(quote)` for fuzzy ones.
    pub similarity: f64,
}

/// Find `quote` in `output`: exact, then case-insensitive, then fuzzy at `threshold` (in
/// `(0, 1]`; see [`DEFAULT_THRESHOLD`]). The first occurrence wins among equal matches. `None`
/// when the quote is empty or not found.
#[must_use]
pub fn locate(output: &str, quote: &str, threshold: f64) -> Option<Located> {
    let trimmed = quote.trim();
    let unquoted = trimmed.trim_matches(|c: char| is_quote_mark(c) || c.is_whitespace());
    if unquoted.is_empty() {
        return None;
    }
    let mut needles = vec![trimmed];
    if unquoted != trimmed {
        needles.push(unquoted);
    }
    for needle in &needles {
        if let Some(byte) = output.find(needle) {
            let start = offsets::char_of(output, byte)?;
            return Some(Located {
                start,
                end: start + offsets::char_len(needle),
                kind: MatchKind::Exact,
                similarity: 1.0,
            });
        }
    }
    let folded = Folded::new(output, false);
    for needle in &needles {
        let n = Folded::new(needle, false);
        if let Some((a, b)) = folded.find(&n) {
            let (start, end) = folded.original(a, b)?;
            return Some(Located {
                start,
                end,
                kind: MatchKind::CaseInsensitive,
                similarity: 1.0,
            });
        }
    }
    let last = needles.last()?;
    fuzzy(output, last, threshold)
}

/// Quote marks a judge may wrap its quote in.
fn is_quote_mark(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '`' | '“' | '”' | '„' | '‘' | '’' | '‚' | '«' | '»' | '「' | '」'
    )
}

/// A case-folded copy of a text that maps each folded character back to the code point of the
/// original text it came from.
struct Folded {
    text: String,
    chars: Vec<char>,
    /// `origin[i]`: original code point of folded character `i`.
    origin: Vec<usize>,
}

impl Folded {
    /// Case-fold `s`; with `normalize`, also map every whitespace run to one space and curly
    /// quotes to straight ones (for fuzzy matching).
    fn new(s: &str, normalize: bool) -> Self {
        let mut chars = Vec::with_capacity(s.len());
        let mut origin = Vec::with_capacity(s.len());
        let mut in_space = false;
        for (i, c) in s.chars().enumerate() {
            if normalize {
                if c.is_whitespace() {
                    if !in_space {
                        chars.push(' ');
                        origin.push(i);
                    }
                    in_space = true;
                    continue;
                }
                in_space = false;
                let straight = match c {
                    '‘' | '’' | '‚' | '`' => Some('\''),
                    '“' | '”' | '„' | '«' | '»' => Some('"'),
                    _ => None,
                };
                if let Some(q) = straight {
                    chars.push(q);
                    origin.push(i);
                    continue;
                }
            }
            match c {
                // Full case folding where lowercasing falls short: STRASSE = Straße = STRAẞE.
                'ß' | 'ẞ' => {
                    chars.extend(['s', 's']);
                    origin.extend([i, i]);
                }
                'ς' => {
                    chars.push('σ');
                    origin.push(i);
                }
                _ => {
                    for l in c.to_lowercase() {
                        chars.push(l);
                        origin.push(i);
                    }
                }
            }
        }
        Self {
            text: chars.iter().collect(),
            chars,
            origin,
        }
    }

    /// First occurrence of `needle` as folded character positions `[a, b)`.
    fn find(&self, needle: &Self) -> Option<(usize, usize)> {
        let byte = self.text.find(&needle.text)?;
        let a = offsets::char_of(&self.text, byte)?;
        Some((a, a + needle.chars.len()))
    }

    /// Original code-point range of folded range `[a, b)` (non-empty), widened to whole
    /// original characters.
    fn original(&self, a: usize, b: usize) -> Option<(usize, usize)> {
        if a >= b {
            return None;
        }
        Some((*self.origin.get(a)?, *self.origin.get(b - 1)? + 1))
    }
}

/// Sellers' approximate substring matching on folded, normalized text.
fn fuzzy(output: &str, quote: &str, threshold: f64) -> Option<Located> {
    let hay = Folded::new(output, true);
    let needle = Folded::new(quote, true);
    let (n, m) = (hay.chars.len(), needle.chars.len());
    if m == 0 || n == 0 || n.saturating_mul(m) > MAX_FUZZY_CELLS {
        return None;
    }
    // Even the best window needs at least m − n deletions.
    if m > n && similarity(m - n, m) < threshold {
        return None;
    }
    // dist[j]: edit distance of the needle prefix to the best window ending at j;
    // from[j]: where that window starts.
    let mut dist: Vec<usize> = vec![0; n + 1];
    let mut from: Vec<usize> = (0..=n).collect();
    let mut next_dist = vec![0usize; n + 1];
    let mut next_from = vec![0usize; n + 1];
    for (i, &nc) in needle.chars.iter().enumerate() {
        next_dist[0] = i + 1;
        next_from[0] = 0;
        for j in 1..=n {
            let sub = dist[j - 1] + usize::from(nc != hay.chars[j - 1]);
            let del = dist[j] + 1;
            let ins = next_dist[j - 1] + 1;
            (next_dist[j], next_from[j]) = if sub <= del && sub <= ins {
                (sub, from[j - 1])
            } else if del <= ins {
                (del, from[j])
            } else {
                (ins, next_from[j - 1])
            };
        }
        std::mem::swap(&mut dist, &mut next_dist);
        std::mem::swap(&mut from, &mut next_from);
    }
    let (end, best) = dist
        .iter()
        .enumerate()
        .min_by_key(|&(j, d)| (*d, j))
        .map(|(j, d)| (j, *d))?;
    let sim = similarity(best, m);
    if sim < threshold {
        return None;
    }
    let (start, end) = hay.original(from[end], end)?;
    Some(Located {
        start,
        end,
        kind: MatchKind::Fuzzy,
        similarity: sim,
    })
}

/// `1 − distance / len`.
#[allow(clippy::cast_precision_loss)] // lengths of answers are far below 2^52
fn similarity(distance: usize, len: usize) -> f64 {
    1.0 - distance as f64 / len as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn at(output: &str, quote: &str) -> Option<(usize, usize, MatchKind)> {
        locate(output, quote, DEFAULT_THRESHOLD).map(|l| (l.start, l.end, l.kind))
    }

    /// Case-fold as the matcher does.
    fn fold(s: &str) -> String {
        Folded::new(s, false).text
    }

    /// Python's `output[start:end]`.
    fn py_slice(output: &str, start: usize, end: usize) -> String {
        output.chars().skip(start).take(end - start).collect()
    }

    #[rstest]
    #[case::exact_ascii("It is 25C and rainy today.", "rainy", 14, 19)]
    #[case::exact_after_degree("It is 25°C and rainy today.", "rainy", 15, 20)]
    #[case::exact_wrapped_in_quotes("It is 25°C and rainy today.", "“rainy today”", 15, 26)]
    #[case::exact_cjk("東京は晴れです", "晴れ", 3, 5)]
    #[case::exact_after_emoji("hi 👋 the flight leaves at 9", "leaves at 9", 16, 27)]
    #[case::exact_combining("cafe\u{301} au lait is 3€", "au lait", 6, 13)]
    #[case::exact_first_of_two("rain, rain", "rain", 0, 4)]
    fn found_exactly(
        #[case] output: &str,
        #[case] quote: &str,
        #[case] start: usize,
        #[case] end: usize,
    ) {
        assert_eq!(at(output, quote), Some((start, end, MatchKind::Exact)));
    }

    #[rstest]
    #[case::ascii("The Booking Was Confirmed.", "booking was confirmed", 4, 25)]
    // ẞ (3 bytes) and ß (2 bytes) both fold to "ss": folded positions shift, original ones do not.
    #[case::sharp_s("Das GROẞE Haus 👋 steht", "große haus 👋", 4, 16)]
    #[case::sharp_s_as_double_s("Die Straße 👋 nach Köln", "STRASSE 👋 NACH", 4, 17)]
    // İ lowercases to two code points (i + U+0307): folded positions after it shift by one.
    #[case::dotted_capital_i("İSTANBUL'da HAVA 25°C", "hava 25°c", 12, 21)]
    #[case::dotted_capital_i_itself("Gidiş İSTANBUL'a", "İstanbul", 6, 14)]
    #[case::greek("ΟΔΥΣΣΕΑΣ και Πηνελόπη", "οδυσσεασ", 0, 8)]
    fn found_case_insensitively(
        #[case] output: &str,
        #[case] quote: &str,
        #[case] start: usize,
        #[case] end: usize,
    ) {
        let got = at(output, quote);
        assert_eq!(got, Some((start, end, MatchKind::CaseInsensitive)));
        assert_eq!(fold(&py_slice(output, start, end)), fold(quote));
    }

    #[rstest]
    #[case::typo(
        "The temperature in Paris is 25°C with light rain.",
        "temprature in paris is 25 °C",
        4,
        32
    )]
    #[case::whitespace_and_quotes(
        "He said it’s   booked\nfor Monday.",
        "it's booked for monday",
        8,
        32
    )]
    #[case::cjk_one_char_off(
        "東京の天気は晴れで気温は二十五度です",
        "天気は曇れで気温は二十五度",
        3,
        16
    )]
    #[case::after_dotted_i(
        "İZMİR: the order 4471 has shipped 📦",
        "the order 4417 has shipped",
        7,
        33
    )]
    fn found_fuzzily(
        #[case] output: &str,
        #[case] quote: &str,
        #[case] start: usize,
        #[case] end: usize,
    ) {
        let got = locate(output, quote, DEFAULT_THRESHOLD).expect("located");
        assert_eq!(got.kind, MatchKind::Fuzzy);
        assert!(got.similarity >= DEFAULT_THRESHOLD && got.similarity <= 1.0);
        assert_eq!(
            (got.start, got.end),
            (start, end),
            "{:?}",
            py_slice(output, got.start, got.end)
        );
    }

    #[rstest]
    #[case::unrelated(
        "The flight leaves at 9:40 from gate B12.",
        "the hotel has a rooftop pool"
    )]
    #[case::empty("The flight leaves at 9:40.", "")]
    #[case::only_quotes("The flight leaves at 9:40.", " “” ")]
    #[case::longer_than_answer("Yes.", "Yes, and the payment was processed as well.")]
    #[case::too_many_edits("東京の天気は晴れ", "大阪の天候は雨")]
    #[case::empty_answer("", "rainy")]
    fn not_found(#[case] output: &str, #[case] quote: &str) {
        assert_eq!(locate(output, quote, DEFAULT_THRESHOLD), None);
    }

    #[test]
    fn threshold_decides_fuzzy_matches() {
        let output = "The booking reference is XK-2291.";
        assert!(locate(output, "booking reference is XK-2219", 0.8).is_some());
        assert_eq!(locate(output, "booking reference is XK-2219", 0.99), None);
    }

    #[test]
    fn folded_origins_point_at_original_code_points() {
        let f = Folded::new("aİẞ👋b", false);
        assert_eq!(f.chars, vec!['a', 'i', '\u{307}', 's', 's', '👋', 'b']);
        assert_eq!(f.origin, vec![0, 1, 1, 2, 2, 3, 4]);
        // A match inside İ's expansion covers the whole original character.
        assert_eq!(f.original(2, 4), Some((1, 3)));
    }
}
