//! The one place where code-point offsets meet UTF-8 byte positions.
//!
//! Every offset a user or a file sees is a Python string index: a count of Unicode code points,
//! half-open `[start, end)`. Rust strings are UTF-8 bytes, so all slicing of answer text by span
//! offsets goes through this module. Nothing else in the crate converts between the two.

/// Number of code points in `s` (Python's `len(s)`).
#[must_use]
pub fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Byte position of code point `cp` in `s`; `cp == char_len(s)` gives `s.len()`.
/// `None` when `cp` is past the end.
#[must_use]
pub fn byte_of(s: &str, cp: usize) -> Option<usize> {
    if s.is_ascii() {
        return (cp <= s.len()).then_some(cp);
    }
    if cp == 0 {
        return Some(0);
    }
    let mut seen = 0usize;
    for (byte, _) in s.char_indices() {
        if seen == cp {
            return Some(byte);
        }
        seen += 1;
    }
    (seen == cp).then_some(s.len())
}

/// Code-point index of byte position `byte` in `s`. `None` when `byte` is past the end or not on a
/// character boundary.
#[must_use]
pub fn char_of(s: &str, byte: usize) -> Option<usize> {
    if byte > s.len() || !s.is_char_boundary(byte) {
        return None;
    }
    Some(char_len(&s[..byte]))
}

/// `s[start:end]` with Python code-point semantics; `None` when the range is reversed or out of
/// range (Python would clamp; a span file must not rely on that).
#[must_use]
pub fn slice(s: &str, start: usize, end: usize) -> Option<&str> {
    if start > end {
        return None;
    }
    let b0 = byte_of(s, start)?;
    let b1 = b0 + byte_of(&s[b0..], end - start)?;
    Some(&s[b0..b1])
}

/// A precomputed code-point → byte table for repeated lookups into one long text (the TUI and
/// the metrics walk the same answer many times). For ASCII text it stores nothing.
#[derive(Debug, Clone)]
pub struct CharMap {
    /// `bytes[i]` is the byte position of code point `i`; the last entry is the text length.
    /// Empty when the text is ASCII (code point == byte).
    bytes: Vec<usize>,
    len_chars: usize,
}

impl CharMap {
    /// Build the table for `s`.
    #[must_use]
    pub fn new(s: &str) -> Self {
        if s.is_ascii() {
            return Self {
                bytes: Vec::new(),
                len_chars: s.len(),
            };
        }
        let mut bytes: Vec<usize> = s.char_indices().map(|(b, _)| b).collect();
        let len_chars = bytes.len();
        bytes.push(s.len());
        Self { bytes, len_chars }
    }

    /// Number of code points in the text.
    #[must_use]
    pub fn len_chars(&self) -> usize {
        self.len_chars
    }

    /// Byte position of code point `cp` (`cp == len_chars()` allowed).
    #[must_use]
    pub fn byte_of(&self, cp: usize) -> Option<usize> {
        if self.bytes.is_empty() {
            return (cp <= self.len_chars).then_some(cp);
        }
        self.bytes.get(cp).copied()
    }

    /// Code point that starts at byte position `byte`, or `None` if `byte` is not a boundary.
    #[must_use]
    pub fn char_of(&self, byte: usize) -> Option<usize> {
        if self.bytes.is_empty() {
            return (byte <= self.len_chars).then_some(byte);
        }
        self.bytes.binary_search(&byte).ok()
    }

    /// Code point containing byte position `byte` (rounds down to the character start).
    #[must_use]
    pub fn char_at_or_before(&self, byte: usize) -> usize {
        if self.bytes.is_empty() {
            return byte.min(self.len_chars);
        }
        match self.bytes.binary_search(&byte) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Slice `text` (the string this map was built from) by code points.
    #[must_use]
    pub fn slice<'a>(&self, text: &'a str, start: usize, end: usize) -> Option<&'a str> {
        if start > end {
            return None;
        }
        Some(&text[self.byte_of(start)?..self.byte_of(end)?])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rstest::rstest;

    #[rstest]
    #[case("abc", 0, 3, Some("abc"))]
    #[case("25°C today", 2, 4, Some("°C"))]
    #[case("it’s fine", 2, 4, Some("’s"))]
    #[case("東京は晴れ", 2, 5, Some("は晴れ"))]
    #[case("hi 👋 there", 3, 4, Some("👋"))]
    #[case("hi 👋 there", 5, 10, Some("there"))]
    #[case("cafe\u{301} ok", 3, 5, Some("e\u{301}"))]
    #[case("abc", 2, 1, None)]
    #[case("abc", 1, 4, None)]
    #[case("°", 1, 1, Some(""))]
    fn slices(#[case] s: &str, #[case] a: usize, #[case] b: usize, #[case] want: Option<&str>) {
        assert_eq!(slice(s, a, b), want);
        let map = CharMap::new(s);
        assert_eq!(map.slice(s, a, b), want);
    }

    #[rstest]
    #[case("a°b", 0, Some(0))]
    #[case("a°b", 1, Some(1))]
    #[case("a°b", 2, Some(3))]
    #[case("a°b", 3, Some(4))]
    #[case("a°b", 4, None)]
    #[case("👋x", 1, Some(4))]
    fn byte_positions(#[case] s: &str, #[case] cp: usize, #[case] want: Option<usize>) {
        assert_eq!(byte_of(s, cp), want);
        assert_eq!(CharMap::new(s).byte_of(cp), want);
    }

    #[test]
    fn char_of_rejects_inside_a_character() {
        assert_eq!(char_of("a°b", 2), None);
        assert_eq!(char_of("a°b", 3), Some(2));
        assert_eq!(CharMap::new("a°b").char_of(2), None);
        assert_eq!(CharMap::new("a°b").char_at_or_before(2), 1);
    }

    fn unicode_text() -> impl Strategy<Value = String> {
        // Mix ASCII, Latin-1, general BMP, combining marks and astral characters.
        let ch = prop_oneof![
            proptest::char::range('a', 'z'),
            proptest::char::range('\u{a0}', '\u{ff}'),
            proptest::char::range('\u{300}', '\u{36f}'),
            proptest::char::range('\u{4e00}', '\u{4fff}'),
            proptest::char::range('\u{1f300}', '\u{1f64f}'),
            proptest::char::any(),
        ];
        proptest::collection::vec(ch, 0..60).prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #[test]
        fn code_point_byte_round_trip(s in unicode_text()) {
            let chars: Vec<char> = s.chars().collect();
            let map = CharMap::new(&s);
            prop_assert_eq!(char_len(&s), chars.len());
            prop_assert_eq!(map.len_chars(), chars.len());
            for cp in 0..=chars.len() {
                let b = byte_of(&s, cp).expect("in range");
                prop_assert_eq!(map.byte_of(cp), Some(b));
                prop_assert_eq!(char_of(&s, b), Some(cp));
                prop_assert_eq!(map.char_of(b), Some(cp));
            }
            prop_assert_eq!(byte_of(&s, chars.len() + 1), None);
        }

        #[test]
        fn slices_equal_char_vector_slices(s in unicode_text(), a in 0usize..70, b in 0usize..70) {
            let chars: Vec<char> = s.chars().collect();
            let want: Option<String> = (a <= b && b <= chars.len())
                .then(|| chars[a..b].iter().collect());
            prop_assert_eq!(slice(&s, a, b).map(str::to_owned), want.clone());
            prop_assert_eq!(CharMap::new(&s).slice(&s, a, b).map(str::to_owned), want);
        }
    }
}
