use rstest::rstest;
use unicode_segmentation::UnicodeSegmentation;

use super::*;

/// A cell pads to the columns it takes on screen, its control characters as their escapes
/// (the CLI's tables are printed escaped).
#[rstest]
#[case("ab", 4, "ab  ")]
#[case("東京", 5, "東京 ")]
#[case("e\u{301}°", 3, "e\u{301}° ")]
#[case("longer", 2, "longer")]
#[case("bo\u{1b}", 12, "bo\u{1b}    ")]
fn cells_pad_to_screen_columns(#[case] s: &str, #[case] columns: usize, #[case] want: &str) {
    assert_eq!(pad(s, columns), want);
    if columns >= width(s) {
        assert_eq!(width(&escape_line(want)), columns, "{want:?}");
    }
}

#[rstest]
#[case("a\u{202E}b", "a\\u{202e}b")]
#[case("\u{2066}x\u{2069}", "\\u{2066}x\\u{2069}")]
#[case("\u{7}", "\\u{7}")]
#[case("東京 é", "東京 é")]
fn bidi_overrides_and_controls_are_escaped(#[case] s: &str, #[case] want: &str) {
    assert_eq!(escape_line(s), want);
}

#[rstest]
#[case("a", 1)]
#[case("東", 2)]
#[case("e\u{301}", 1)]
// Devanagari: a spacing vowel sign is a column of its own, a virama and a nasal sign none.
#[case("को", 2)]
#[case("स्ति", 3)]
#[case("में", 1)]
// Bengali and Tamil AA: unicode-width says no column, terminals one.
#[case("বা", 2)]
#[case("பா", 2)]
#[case("น้ำ", 2)]
#[case("ل", 1)]
// Emoji: a ZWJ sequence is one wide glyph; where terminals disagree, the wider count.
#[case("👨\u{200D}👩\u{200D}👧", 2)]
#[case("❤\u{FE0F}", 2)]
#[case("👍🏽", 4)]
#[case("🇫🇷", 2)]
fn clusters_take_the_columns_terminals_give_them(#[case] g: &str, #[case] want: usize) {
    assert_eq!(g.graphemes(true).count(), 1, "{g:?} is one cluster");
    assert_eq!(cluster_width(g), want, "{g:?}");
}
