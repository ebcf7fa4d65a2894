//! Boundary moves for adjusting and adding spans, over the output's code points: by a
//! character, by a word, and trimming whitespace and punctuation.

/// A word character: letters, digits, marks and `_`.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || is_mark(c)
}

/// Combining marks stay with their letter.
fn is_mark(c: char) -> bool {
    matches!(
        u32::from(c),
        0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
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

/// Start of the next word after `pos` (a boundary), or the end of the text.
#[must_use]
pub fn next_word_start(chars: &[char], pos: usize) -> usize {
    let n = chars.len();
    let mut i = pos.min(n);
    while i < n && is_word(chars[i]) {
        i += 1;
    }
    while i < n && !is_word(chars[i]) {
        i += 1;
    }
    i
}

/// Start of the word before `pos` (a boundary), or 0.
#[must_use]
pub fn prev_word_start(chars: &[char], pos: usize) -> usize {
    let mut i = pos.min(chars.len());
    while i > 0 && !is_word(chars[i - 1]) {
        i -= 1;
    }
    while i > 0 && is_word(chars[i - 1]) {
        i -= 1;
    }
    i
}

/// End (one past the last character) of the next word after boundary `pos`.
#[must_use]
pub fn next_word_end(chars: &[char], pos: usize) -> usize {
    let n = chars.len();
    let mut i = pos.min(n);
    while i < n && !is_word(chars[i]) {
        i += 1;
    }
    while i < n && is_word(chars[i]) {
        i += 1;
    }
    i
}

/// End of the word before boundary `pos`.
#[must_use]
pub fn prev_word_end(chars: &[char], pos: usize) -> usize {
    let mut i = pos.min(chars.len());
    while i > 0 && is_word(chars[i - 1]) {
        i -= 1;
    }
    while i > 0 && !is_word(chars[i - 1]) {
        i -= 1;
    }
    i
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
}

#[cfg(test)]
mod tests {
    use super::*;
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
    #[case("東京 は", 0, 2)]
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
