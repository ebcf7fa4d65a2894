//! Boundary moves for adjusting and adding spans, over the output's code points: by a
//! character (a whole grapheme cluster: a letter with its combining marks, an emoji sequence),
//! by a word, and trimming whitespace and punctuation.

use unicode_segmentation::UnicodeSegmentation;

use super::action::Action;

/// A word character: letters, digits, marks and `_`.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || is_mark(c)
}

/// Combining marks stay with their letter (the kana voicing marks too).
fn is_mark(c: char) -> bool {
    matches!(
        u32::from(c),
        0x300..=0x36F
            | 0x1AB0..=0x1AFF
            | 0x1DC0..=0x1DFF
            | 0x20D0..=0x20FF
            | 0xFE20..=0xFE2F
            | 0x3099..=0x309A
    )
}

/// Whitespace or punctuation, trimmed by `T`.
fn is_trim(c: char) -> bool {
    c.is_whitespace()
        || c.is_ascii_punctuation()
        || matches!(
            c,
            '’' | '‘' | '“' | '”' | '…' | '—' | '–' | '。' | '、' | '«' | '»' | '¿' | '¡'
        )
}

/// Chinese and Japanese characters: each is a word of its own (the texts have no spaces
/// between words, so a word move would otherwise cross a whole sentence).
fn is_ideograph(c: char) -> bool {
    matches!(
        u32::from(c),
        0x3005..=0x3007 // 々 〆 〇
            | 0x3040..=0x309F // hiragana
            | 0x30A0..=0x30FF // katakana
            | 0x31F0..=0x31FF
            | 0x3400..=0x4DBF // CJK extension A
            | 0x4E00..=0x9FFF // CJK unified ideographs
            | 0xF900..=0xFAFF
            | 0xFF66..=0xFF9F // halfwidth katakana
            | 0x20000..=0x3FFFF
    )
}

/// The script of a word character, roughly (the blocks that matter for word moves): a change
/// of script inside a run of word characters starts a new word (`Tōkyō東京`, `abcабв`).
fn script(c: char) -> u8 {
    match u32::from(c) {
        0x370..=0x3FF | 0x1F00..=0x1FFF => 1, // Greek
        0x400..=0x52F => 2,                   // Cyrillic
        0x590..=0x5FF => 3,                   // Hebrew
        0x600..=0x6FF | 0x750..=0x77F => 4,   // Arabic
        0x900..=0x97F => 5,                   // Devanagari
        0xE00..=0xE7F => 6,                   // Thai
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => 7, // Hangul
        _ => 0,                               // Latin, digits, `_` and the rest
    }
}

/// What a character belongs to for word moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WordOf {
    /// Whitespace, punctuation, symbols, emoji: between words.
    Gap,
    /// A run of word characters of one script.
    Script(u8),
    /// The ideograph (or kana) at this index, with the marks after it.
    Ideograph(usize),
}

/// The word each character of `chars` belongs to: two neighbours are in one word when this
/// is equal and not a gap. Combining marks belong to the character before them.
fn words_of(chars: &[char]) -> Vec<WordOf> {
    let mut out: Vec<WordOf> = Vec::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let w = if is_mark(c) {
            out.last().copied().unwrap_or(WordOf::Script(0))
        } else if is_ideograph(c) {
            WordOf::Ideograph(i)
        } else if is_word(c) {
            WordOf::Script(script(c))
        } else {
            WordOf::Gap
        };
        out.push(w);
    }
    out
}

/// Start of the next word after `pos` (a boundary), or the end of the text.
#[must_use]
pub fn next_word_start(chars: &[char], pos: usize) -> usize {
    let w = words_of(chars);
    let n = chars.len();
    let mut i = pos.min(n);
    if i < n && w[i] != WordOf::Gap {
        let this = w[i];
        while i < n && w[i] == this {
            i += 1;
        }
    }
    while i < n && w[i] == WordOf::Gap {
        i += 1;
    }
    i
}

/// Start of the word before `pos` (a boundary), or 0.
#[must_use]
pub fn prev_word_start(chars: &[char], pos: usize) -> usize {
    let w = words_of(chars);
    let mut i = pos.min(chars.len());
    while i > 0 && w[i - 1] == WordOf::Gap {
        i -= 1;
    }
    if i > 0 {
        let this = w[i - 1];
        while i > 0 && w[i - 1] == this {
            i -= 1;
        }
    }
    i
}

/// End (one past the last character) of the next word after boundary `pos`.
#[must_use]
pub fn next_word_end(chars: &[char], pos: usize) -> usize {
    let w = words_of(chars);
    let n = chars.len();
    let mut i = pos.min(n);
    while i < n && w[i] == WordOf::Gap {
        i += 1;
    }
    if i < n {
        let this = w[i];
        while i < n && w[i] == this {
            i += 1;
        }
    }
    i
}

/// End of the word before boundary `pos`.
#[must_use]
pub fn prev_word_end(chars: &[char], pos: usize) -> usize {
    let w = words_of(chars);
    let mut i = pos.min(chars.len());
    if i > 0 && w[i - 1] != WordOf::Gap {
        let this = w[i - 1];
        while i > 0 && w[i - 1] == this {
            i -= 1;
        }
    }
    while i > 0 && w[i - 1] == WordOf::Gap {
        i -= 1;
    }
    i
}

/// Code points on each side of a position whose clusters are looked at: a cluster never
/// reaches that far, and a 10 M-character answer is not segmented whole on every key.
const NEAR: usize = 256;

/// Grapheme cluster boundaries of `chars` within [`NEAR`] code points of `at`, in code points
/// (0 and the length included when that close). The window's own ends count as boundaries.
fn boundaries(chars: &[char], at: usize) -> Vec<usize> {
    let at = at.min(chars.len());
    let lo = at.saturating_sub(NEAR);
    let hi = at.saturating_add(NEAR).min(chars.len());
    let text: String = chars[lo..hi].iter().collect();
    let mut at = lo;
    let mut out = vec![lo];
    for g in text.graphemes(true) {
        at += g.chars().count();
        out.push(at);
    }
    out
}

/// The first character boundary after `pos`, or the length: one character right, never
/// between a letter and its combining mark.
#[must_use]
pub fn next_boundary(chars: &[char], pos: usize) -> usize {
    let b = boundaries(chars, pos);
    b.iter().copied().find(|&x| x > pos).unwrap_or(chars.len())
}

/// The last character boundary before `pos`, or 0: one character left.
#[must_use]
pub fn prev_boundary(chars: &[char], pos: usize) -> usize {
    let b = boundaries(chars, pos);
    b.iter().copied().rev().find(|&x| x < pos).unwrap_or(0)
}

/// The first character of the line holding `pos` that is not whitespace (`^`), or the
/// line's start when it is blank. Lines end at `\n`.
#[must_use]
pub fn line_first(chars: &[char], pos: usize) -> usize {
    let pos = pos.min(chars.len());
    let start = chars[..pos]
        .iter()
        .rposition(|&c| c == '\n')
        .map_or(0, |i| i + 1);
    let end = line_past(chars, pos);
    (start..end)
        .find(|&i| !chars[i].is_whitespace())
        .unwrap_or(start)
}

/// One past the last character of the line holding `pos` that is not whitespace (`$`), or
/// the line's start when it is blank.
#[must_use]
pub fn line_last(chars: &[char], pos: usize) -> usize {
    let pos = pos.min(chars.len());
    let start = chars[..pos]
        .iter()
        .rposition(|&c| c == '\n')
        .map_or(0, |i| i + 1);
    let mut end = line_past(chars, pos);
    while end > start && chars[end - 1].is_whitespace() {
        end -= 1;
    }
    end
}

/// Index of the `\n` that ends the line holding `pos`, or the length.
fn line_past(chars: &[char], pos: usize) -> usize {
    chars[pos..]
        .iter()
        .position(|&c| c == '\n')
        .map_or(chars.len(), |i| pos + i)
}

/// Where a find-character move from `pos` lands (add mode's `f`, `F`, `t`, `T`, repeated
/// `times`): on the `times`-th next (`forward`) or previous character that is exactly `c` (a
/// whole character: `e` is not the `e` of `e` + U+0301), or with `till` on the character just
/// before it (`forward`) or just after it. `till` skips a `c` right next to `pos`, so that `t`
/// can be repeated. `None` when there are not that many.
#[must_use]
pub fn find_char(
    chars: &[char],
    pos: usize,
    c: char,
    forward: bool,
    till: bool,
    times: usize,
) -> Option<usize> {
    // Only the clusters near each candidate are segmented: a 10 M-character answer is not
    // segmented whole on every key.
    let whole = |i: usize| {
        chars[i] == c && {
            let b = boundaries(chars, i);
            b.contains(&i) && b.contains(&(i + 1))
        }
    };
    // The cluster holding `pos` starts at or before it.
    let here = boundaries(chars, pos)
        .into_iter()
        .rev()
        .find(|&x| x <= pos)
        .unwrap_or(0);
    let mut at = here;
    for i in 0..times.max(1) {
        let skip = till && i == 0;
        at = if forward {
            let from = next_boundary(chars, at);
            let from = if skip && from < chars.len() && whole(from) {
                from + 1
            } else {
                from
            };
            (from..chars.len()).find(|&k| whole(k))?
        } else {
            let to = if skip {
                let p = prev_boundary(chars, at);
                if at > 0 && whole(p) {
                    p
                } else {
                    at
                }
            } else {
                at
            };
            (0..to).rev().find(|&k| whole(k))?
        };
    }
    Some(match (till, forward) {
        (false, _) => at,
        (true, true) => prev_boundary(chars, at),
        (true, false) => next_boundary(chars, at),
    })
}

/// The span marked from the character at `a` to the character at `b` (either order): whole
/// characters, from the start of the first to the end of the last.
#[must_use]
pub fn marked(chars: &[char], a: usize, b: usize) -> (usize, usize) {
    let (lo, hi) = (a.min(b), a.max(b));
    let start = boundaries(chars, lo)
        .into_iter()
        .rev()
        .find(|&x| x <= lo)
        .unwrap_or(0);
    let end = boundaries(chars, hi)
        .into_iter()
        .find(|&x| x > hi)
        .unwrap_or(chars.len());
    (start, end.max(start + 1))
}

/// `[start, end)` without leading and trailing whitespace and punctuation; `None` when nothing
/// would be left.
#[must_use]
pub fn trim(chars: &[char], start: usize, end: usize) -> Option<(usize, usize)> {
    let end = end.min(chars.len());
    let mut s = start.min(end);
    let mut e = end;
    while s < e && is_trim(chars[s]) {
        s += 1;
    }
    while e > s && is_trim(chars[e - 1]) {
        e -= 1;
    }
    (s < e).then_some((s, e))
}

/// A span's boundaries while they are being moved: never empty, never outside the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// First code point.
    pub start: usize,
    /// One past the last.
    pub end: usize,
}

impl Bounds {
    /// Move the start to `to`, kept before the end.
    pub fn set_start(&mut self, to: usize) {
        self.start = to.min(self.end.saturating_sub(1));
    }

    /// Move the end to `to`, kept after the start and within `len`.
    pub fn set_end(&mut self, to: usize, len: usize) {
        self.end = to.clamp(self.start + 1, len.max(self.start + 1));
    }

    /// Move the start one character (grapheme cluster) left or right; it stays where it is
    /// rather than reach the end.
    pub fn step_start(&mut self, chars: &[char], right: bool) {
        let to = if right {
            next_boundary(chars, self.start)
        } else {
            prev_boundary(chars, self.start)
        };
        if to < self.end || self.start >= self.end {
            // A reversed span from the file is clamped into shape, as the word moves do.
            self.set_start(to);
        }
    }

    /// Move the end one character (grapheme cluster) left or right; it stays where it is
    /// rather than reach the start.
    pub fn step_end(&mut self, chars: &[char], right: bool) {
        let to = if right {
            next_boundary(chars, self.end)
        } else {
            prev_boundary(chars, self.end)
        };
        if to > self.start || self.start >= self.end {
            self.set_end(to, chars.len());
        }
    }

    /// Apply a boundary move of the adjust keys (`h`/`l`/`H`/`L`, the word moves, `T`) over
    /// `chars`, shared by the adjust mode and the arbitration edit.
    pub fn apply(&mut self, action: Action, chars: &[char]) -> Moved {
        let len = chars.len();
        match action {
            Action::StartLeft => self.step_start(chars, false),
            Action::StartRight => self.step_start(chars, true),
            Action::EndLeft => self.step_end(chars, false),
            Action::EndRight => self.step_end(chars, true),
            Action::StartWordLeft => self.set_start(prev_word_start(chars, self.start)),
            Action::StartWordRight => self.set_start(next_word_start(chars, self.start)),
            Action::EndWordLeft => self.set_end(prev_word_end(chars, self.end), len),
            Action::EndWordRight => self.set_end(next_word_end(chars, self.end), len),
            // The line of each end: the start to its line's first character, the end past
            // the last character of the line holding the span's last character.
            Action::LineStart => self.set_start(line_first(chars, self.start)),
            Action::LineEnd => {
                let last = self.end.saturating_sub(1).max(self.start);
                self.set_end(line_last(chars, last), len);
            }
            Action::Trim => match trim(chars, self.start, self.end) {
                Some((s, e)) => *self = Bounds { start: s, end: e },
                None => return Moved::WouldEmpty,
            },
            _ => return Moved::NotAMove,
        }
        Moved::Yes
    }
}

/// What [`Bounds::apply`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// The bounds moved (or stayed at a limit).
    Yes,
    /// Trimming would leave nothing: the bounds are unchanged.
    WouldEmpty,
    /// The action is not a boundary move.
    NotAMove,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_far_into_a_long_text_are_those_of_the_whole_text() {
        let text = format!(
            "{}👨\u{200D}👩\u{200D}👧 e\u{301}nd",
            "ab e\u{301}क्ष ".repeat(50_000)
        );
        let chars: Vec<char> = text.chars().collect();
        let mut all = vec![0];
        for g in text.graphemes(true) {
            all.push(all[all.len() - 1] + g.chars().count());
        }
        let n = chars.len();
        for pos in [
            0,
            1,
            2,
            3,
            5,
            300,
            123_457,
            n - 9,
            n - 8,
            n - 3,
            n - 2,
            n - 1,
            n,
        ] {
            let next = all.iter().copied().find(|&x| x > pos).unwrap_or(n);
            let prev = all.iter().copied().rev().find(|&x| x < pos).unwrap_or(0);
            assert_eq!(next_boundary(&chars, pos), next, "next of {pos}");
            assert_eq!(prev_boundary(&chars, pos), prev, "prev of {pos}");
        }
        let (a, b) = (123_457, n - 3);
        let start = all.iter().copied().rev().find(|&x| x <= a).unwrap_or(0);
        let end = all.iter().copied().find(|&x| x > b).unwrap_or(n);
        assert_eq!(marked(&chars, b, a), (start, end));
        assert_eq!(next_boundary(&chars, n + 5), n);
    }
    use rstest::rstest;

    fn c(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[rstest]
    #[case("It is 25°C today", 0, 3)]
    #[case("It is 25°C today", 3, 6)]
    #[case("It is 25°C today", 6, 9)]
    #[case("It is 25°C today", 16, 16)]
    fn next_starts(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(next_word_start(&c(s), pos), want);
    }

    #[rstest]
    #[case("It is 25°C today", 16, 11)]
    #[case("It is 25°C today", 11, 9)]
    #[case("It is 25°C today", 3, 0)]
    #[case("It is", 0, 0)]
    fn prev_starts(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(prev_word_start(&c(s), pos), want);
    }

    #[rstest]
    #[case("It is 25°C today", 0, 2)]
    #[case("It is 25°C today", 2, 5)]
    #[case("東京 は", 0, 1)]
    fn next_ends(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(next_word_end(&c(s), pos), want);
    }

    #[rstest]
    #[case("It is 25°C today", 16, 10)]
    #[case("It is 25°C today", 5, 2)]
    #[case("It", 2, 0)]
    fn prev_ends(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(prev_word_end(&c(s), pos), want);
    }

    #[rstest]
    #[case(" «rainy», ", 0, 10, Some((2, 7)))]
    #[case("**H4G8**\n", 0, 9, Some((2, 6)))]
    #[case(" .. ", 0, 4, None)]
    #[case("café\u{301}!", 0, 6, Some((0, 5)))]
    fn trims(
        #[case] s: &str,
        #[case] a: usize,
        #[case] b: usize,
        #[case] want: Option<(usize, usize)>,
    ) {
        assert_eq!(trim(&c(s), a, b), want);
    }

    // "e\u{301}" is one character of two code points, the family emoji one of five.
    #[rstest]
    #[case("ne\u{301} x", 1, 3, 0)]
    #[case("ne\u{301} x", 2, 3, 1)]
    #[case("ne\u{301} x", 3, 4, 1)]
    #[case("a \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}!", 2, 7, 1)]
    #[case("a \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}!", 7, 8, 2)]
    #[case("ab", 2, 2, 1)]
    #[case("ab", 0, 1, 0)]
    fn character_steps_keep_grapheme_clusters_whole(
        #[case] s: &str,
        #[case] pos: usize,
        #[case] next: usize,
        #[case] prev: usize,
    ) {
        assert_eq!(next_boundary(&c(s), pos), next);
        assert_eq!(prev_boundary(&c(s), pos), prev);
    }

    #[rstest]
    #[case("ne\u{301} x", 1, 1, (1, 3))]
    #[case("ne\u{301} x", 2, 0, (0, 3))]
    #[case("a \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}!", 2, 2, (2, 7))]
    #[case("東京", 0, 1, (0, 2))]
    fn marks_cover_whole_characters(
        #[case] s: &str,
        #[case] a: usize,
        #[case] b: usize,
        #[case] want: (usize, usize),
    ) {
        assert_eq!(marked(&c(s), a, b), want);
    }

    #[test]
    fn bounds_step_over_combining_marks_and_stay_non_empty() {
        let t = c("ne\u{301} x");
        let mut b = Bounds { start: 0, end: 1 };
        b.step_end(&t, true);
        assert_eq!(b.end, 3, "e and its accent together");
        b.step_start(&t, true);
        assert_eq!(b.start, 1);
        b.step_start(&t, true);
        assert_eq!(b.start, 1, "the start never reaches the end");
        b.step_end(&t, false);
        assert_eq!(b.end, 3, "the end never reaches the start");
        b.step_start(&t, false);
        b.step_end(&t, false);
        assert_eq!(b, Bounds { start: 0, end: 1 });
        // A reversed span (a defect of the file) is brought into shape by any move.
        let mut r = Bounds { start: 4, end: 2 };
        r.step_start(&t, false);
        assert_eq!(r, Bounds { start: 1, end: 2 });
        let mut r = Bounds { start: 4, end: 2 };
        r.step_end(&t, true);
        assert_eq!(r, Bounds { start: 4, end: 5 });
    }

    // Chinese and Japanese have no spaces between words: each character is a word, and a
    // change of script (Latin, Cyrillic, Hangul, …) inside a run of letters starts one too.
    #[rstest]
    #[case("東京の天気", 0, 1)]
    #[case("東京の天気", 3, 4)]
    #[case("東京の天気", 4, 5)]
    #[case("天気は晴れ。気温25°C", 5, 6)]
    #[case("天気は晴れ。気温25°C", 6, 7)]
    #[case("天気は晴れ。気温25°C", 8, 11)]
    #[case("Tōkyō東京 x", 0, 5)]
    #[case("Tōkyō東京 x", 5, 6)]
    #[case("Tōkyō東京 x", 6, 8)]
    #[case("abcабв def", 0, 3)]
    #[case("abcабв def", 3, 7)]
    #[case("서울은 맑음", 0, 4)]
    #[case("cafe\u{301}の", 0, 5)]
    #[case("か\u{3099}き", 0, 2)]
    #[case("don’t 👋 go", 0, 4)]
    #[case("don’t 👋 go", 4, 8)]
    #[case("a 👩\u{200D}👩\u{200D}👧 b", 0, 8)]
    fn word_starts_stop_at_each_cjk_character_and_script_change(
        #[case] s: &str,
        #[case] pos: usize,
        #[case] want: usize,
    ) {
        assert_eq!(next_word_start(&c(s), pos), want, "w from {pos} in {s:?}");
    }

    #[rstest]
    #[case("東京の天気", 5, 4)]
    #[case("東京の天気", 1, 0)]
    #[case("Tōkyō東京 x", 7, 6)]
    #[case("Tōkyō東京 x", 6, 5)]
    #[case("Tōkyō東京 x", 5, 0)]
    #[case("か\u{3099}き", 3, 2)]
    #[case("か\u{3099}き", 2, 0)]
    #[case("25°C、東京", 7, 6)]
    #[case("25°C、東京", 6, 5)]
    #[case("25°C、東京", 5, 3)]
    fn word_starts_back(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(prev_word_start(&c(s), pos), want, "b from {pos} in {s:?}");
    }

    #[rstest]
    #[case("東京の天気", 0, 1)]
    #[case("東京の天気", 1, 2)]
    #[case("Tōkyō東京", 0, 5)]
    #[case("Tōkyō東京", 5, 6)]
    #[case("か\u{3099}き", 0, 2)]
    fn word_ends_stop_at_each_cjk_character(
        #[case] s: &str,
        #[case] pos: usize,
        #[case] want: usize,
    ) {
        assert_eq!(next_word_end(&c(s), pos), want);
    }

    #[rstest]
    #[case("東京の天気", 5, 4)]
    #[case("東京の天気", 2, 1)]
    #[case("Tōkyō東京", 6, 5)]
    #[case("Tōkyō東京", 5, 0)]
    #[case("か\u{3099}き", 3, 2)]
    #[case("晴れ。 25°C", 8, 6)]
    #[case("晴れ。 25°C", 6, 2)]
    fn word_ends_back(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(prev_word_end(&c(s), pos), want);
    }

    // The adjust moves over CJK text: `w` on the start and `B` on the end take one character
    // at a time, where they used to cross the whole run.
    #[test]
    fn adjust_word_moves_over_cjk_take_one_character() {
        let t = c("東京の天気は晴れ。");
        let mut b = Bounds { start: 0, end: 8 };
        assert_eq!(b.apply(Action::StartWordRight, &t), Moved::Yes);
        assert_eq!(b, Bounds { start: 1, end: 8 });
        b.apply(Action::EndWordLeft, &t);
        assert_eq!(b, Bounds { start: 1, end: 7 });
        b.apply(Action::EndWordLeft, &t);
        assert_eq!(b, Bounds { start: 1, end: 6 });
        b.apply(Action::StartWordLeft, &t);
        assert_eq!(b, Bounds { start: 0, end: 6 });
    }

    // `f`/`F`/`t`/`T` over whole characters: `e` is not the start of `e` + U+0301, the emoji
    // and CJK characters are found, `t` skips a match right next to the cursor.
    #[rstest]
    #[case("cafe\u{301} e’s 東京 👋 x", 0, 'e', true, false, 1, Some(6))]
    #[case("cafe\u{301} e’s 東京 👋 x", 0, '’', true, false, 1, Some(7))]
    #[case("cafe\u{301} e’s 東京 👋 x", 0, '京', true, true, 1, Some(10))]
    #[case("cafe\u{301} e’s 東京 👋 x", 0, '👋', true, false, 1, Some(13))]
    #[case("cafe\u{301} e’s 東京 👋 x", 0, ' ', true, false, 3, Some(12))]
    #[case("cafe\u{301} e’s 東京 👋 x", 0, 'q', true, false, 1, None)]
    #[case("cafe\u{301} e’s 東京 👋 x", 0, ' ', true, false, 9, None)]
    #[case("cafe\u{301} e’s 東京 👋 x", 15, 'e', false, false, 1, Some(6))]
    #[case("cafe\u{301} e’s 東京 👋 x", 15, ' ', false, true, 1, Some(13))]
    #[case("cafe\u{301} e’s 東京 👋 x", 15, ' ', false, true, 2, Some(10))]
    #[case("cafe\u{301} e’s 東京 👋 x", 3, 'c', false, false, 1, Some(0))]
    #[case("a,,b,", 0, ',', true, true, 1, Some(1))]
    #[case("a,,b,", 1, ',', true, true, 1, Some(3))]
    #[case("a,,b,", 4, ',', false, true, 1, Some(3))]
    fn find_characters(
        #[case] s: &str,
        #[case] pos: usize,
        #[case] ch: char,
        #[case] forward: bool,
        #[case] till: bool,
        #[case] times: usize,
        #[case] want: Option<usize>,
    ) {
        assert_eq!(find_char(&c(s), pos, ch, forward, till, times), want);
    }

    // Lines end at `\n`; `^` skips the indent, `$` the trailing blanks (a blank line: its start).
    const LINES: &str = "  • 東京: 25°C  \n\n  cafe\u{301} ☀\u{fe0f} ok’  \nend";

    #[rstest]
    #[case(0, 2, 12)]
    #[case(9, 2, 12)]
    #[case(14, 2, 12)]
    #[case(15, 15, 15)]
    #[case(22, 18, 30)]
    #[case(31, 18, 30)]
    #[case(34, 33, 36)]
    #[case(36, 33, 36)]
    fn line_moves(#[case] pos: usize, #[case] first: usize, #[case] last: usize) {
        assert_eq!(line_first(&c(LINES), pos), first, "^ from {pos}");
        assert_eq!(line_last(&c(LINES), pos), last, "$ from {pos}");
    }

    #[test]
    fn adjust_line_moves_take_each_end_to_its_line() {
        let t = c(LINES);
        let mut b = Bounds { start: 21, end: 25 };
        b.apply(Action::LineStart, &t);
        b.apply(Action::LineEnd, &t);
        assert_eq!(b, Bounds { start: 18, end: 30 });
        // The end's line is that of the span's last character, not of the `\n` after it.
        let mut b = Bounds { start: 4, end: 15 };
        b.apply(Action::LineEnd, &t);
        assert_eq!(b, Bounds { start: 4, end: 12 });
    }

    #[test]
    fn bounds_never_empty_or_out_of_range() {
        let mut b = Bounds { start: 2, end: 4 };
        b.set_start(9);
        assert_eq!(b, Bounds { start: 3, end: 4 });
        b.set_end(0, 10);
        assert_eq!(b, Bounds { start: 3, end: 4 });
        b.set_end(99, 10);
        assert_eq!(b.end, 10);
    }
}
