//! Boundary moves: words, grapheme clusters, lines, finding characters, trimming, bounds.

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

// The word moves. Chinese and Japanese have no spaces between words: each character is a
// word, and a change of script (Latin, Cyrillic, Hangul, …) inside a run of letters starts one
// too (the second half of each table).
#[rstest]
#[case("It is 25°C today", 0, 3)]
#[case("It is 25°C today", 3, 6)]
#[case("It is 25°C today", 6, 9)]
#[case("It is 25°C today", 16, 16)]
// CJK and changes of script.
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
fn next_starts(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
    assert_eq!(next_word_start(&c(s), pos), want, "w from {pos} in {s:?}");
}

#[rstest]
#[case("It is 25°C today", 16, 11)]
#[case("It is 25°C today", 11, 9)]
#[case("It is 25°C today", 3, 0)]
#[case("It is", 0, 0)]
// CJK and changes of script.
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
fn prev_starts(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
    assert_eq!(prev_word_start(&c(s), pos), want, "b from {pos} in {s:?}");
}

#[rstest]
#[case("It is 25°C today", 0, 2)]
#[case("It is 25°C today", 2, 5)]
#[case("東京 は", 0, 1)]
// CJK and changes of script.
#[case("東京の天気", 0, 1)]
#[case("東京の天気", 1, 2)]
#[case("Tōkyō東京", 0, 5)]
#[case("Tōkyō東京", 5, 6)]
#[case("か\u{3099}き", 0, 2)]
fn next_ends(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
    assert_eq!(next_word_end(&c(s), pos), want);
}

#[rstest]
#[case("It is 25°C today", 16, 10)]
#[case("It is 25°C today", 5, 2)]
#[case("It", 2, 0)]
// CJK and changes of script.
#[case("東京の天気", 5, 4)]
#[case("東京の天気", 2, 1)]
#[case("Tōkyō東京", 6, 5)]
#[case("Tōkyō東京", 5, 0)]
#[case("か\u{3099}き", 3, 2)]
#[case("晴れ。 25°C", 8, 6)]
#[case("晴れ。 25°C", 6, 2)]
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
