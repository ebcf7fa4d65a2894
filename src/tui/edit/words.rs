//! Word moves over code points: what a word character is (scripts, ideographs one at a
//! time, combining marks with their letter), and the next or previous word start or end.

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
pub(super) fn is_trim(c: char) -> bool {
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
