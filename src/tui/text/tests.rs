use super::*;
use rstest::rstest;
fn texts(text: &str, rows: &[Row]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            let mut s = " ".repeat(r.indent);
            for c in &r.cells {
                s.push_str(&display(&text[c.byte..c.byte + c.len]));
            }
            s
        })
        .collect()
}

#[rstest]
#[case("hello world", 5, vec!["hello ", "world"])]
#[case("hello world", 6, vec!["hello ", "world"])]
#[case("abcdefgh", 3, vec!["abc", "def", "gh"])]
#[case("a\nb", 10, vec!["a", "b"])]
#[case("a\r\nb", 10, vec!["a", "b"])]
#[case("東京は晴れ", 4, vec!["東京", "は晴", "れ"])]
#[case("cafe\u{301} ok", 5, vec!["cafe\u{301} ", "ok"])]
#[case("a\tb", 10, vec!["a\\tb"])]
#[case("  key: long value", 10, vec!["  key: ", "  long ", "  value"])]
#[case("東", 1, vec!["東"])]
fn wraps(#[case] text: &str, #[case] w: usize, #[case] want: Vec<&str>) {
    let rows = wrap(text, w);
    let got: Vec<String> = texts(text, &rows)
        .into_iter()
        .map(|s| s.trim_end_matches(' ').to_owned())
        .collect();
    let want: Vec<String> = want
        .into_iter()
        .map(|s| s.trim_end_matches(' ').to_owned())
        .collect();
    assert_eq!(got, want);
}

#[test]
fn every_byte_is_placed_once_at_any_width() {
    let text = "Il fait 25°C à 東京 👋 e\u{301}\u{1b}[0m done\n\n  indented line that wraps";
    for w in 0..30 {
        let rows = wrap(text, w);
        let mut covered: Vec<(usize, usize)> = rows
            .iter()
            .flat_map(|r| r.cells.iter().map(|c| (c.byte, c.len)))
            .collect();
        covered.sort_unstable();
        let total: usize = covered.iter().map(|c| c.1).sum();
        assert_eq!(total + text.matches('\n').count(), text.len(), "width {w}");
        for r in &rows {
            let mut cells = r.cells.clone();
            while cells
                .last()
                .is_some_and(|c| &text[c.byte..c.byte + c.len] == " ")
            {
                cells.pop();
            }
            let used: usize = r.indent + cells.iter().map(|c| c.width).sum::<usize>();
            assert!(used <= w.max(1) || cells.len() == 1, "w {w}: {used} {r:?}");
        }
    }
}

/// `row_end` as first written: every cluster through `grapheme_indices`.
fn row_end_reference(line: &str, from: usize, indent: usize, width: usize) -> usize {
    let (mut used, mut brk, mut any) = (indent, None, false);
    for (off, g) in line[from..].grapheme_indices(true) {
        let c = cell(g, from + off);
        let is_space = g == " ";
        if used + c.width > width && any && !is_space {
            return match brk {
                Some(b) if b < c.byte => b,
                _ => c.byte,
            };
        }
        used += c.width;
        any = true;
        if is_space {
            brk = Some(c.byte + 1);
        }
    }
    line.len()
}

proptest::proptest! {
    #[test]
    fn row_end_equals_the_cluster_by_cluster_walk(
        line in "[a b.\u{301}\u{93e}\u{915}\u{94d}東😀\u{200d}\u{1f3fd}\t\u{7}]{0,40}",
        indent in 0usize..4,
        width in 1usize..12,
    ) {
        let mut from = 0;
        while from < line.len() {
            let want = row_end_reference(&line, from, indent, width);
            proptest::prop_assert_eq!(row_end(&line, from, indent, width), want);
            if want <= from {
                break;
            }
            from = want;
        }
    }
}

/// Code's tabs go to the next stop: a tab is one cell as wide as the gap, so the text after
/// it lines up and a span over it covers its columns; prose keeps `\t`.
#[rstest]
#[case("\tx", 0, vec![4, 1])]
#[case("ab\tx", 0, vec![1, 1, 2, 1])]
#[case("東\t°", 0, vec![2, 2, 1])]
#[case("e\u{301}\t\t’", 0, vec![1, 3, 4, 1])]
#[case("\tx", 2, vec![2, 1])]
fn tabs_expand_to_the_next_stop(
    #[case] line: &str,
    #[case] indent: usize,
    #[case] want: Vec<usize>,
) {
    let end = row_end_tab(line, 0, indent, 80, 4);
    assert_eq!(end, line.len());
    let cells = row_cells_tab(line, (0, end), 0, indent, 4);
    let widths: Vec<usize> = cells.iter().map(|c| c.width).collect();
    assert_eq!(widths, want, "{line:?}");
    assert!(cells.iter().all(|c| !c.escaped));
    // Without tab stops the tab is escaped.
    assert!(row_cells(line, 0, end, 0).iter().any(|c| c.escaped));
}

#[test]
fn a_row_of_tabs_breaks_where_the_expanded_tabs_fill_it() {
    // Two tabs fill 8 columns: "x" goes to the next row at width 8.
    let line = "\t\tx";
    assert_eq!(row_end_tab(line, 0, 0, 8, 4), 2);
    assert_eq!(row_end_tab(line, 0, 0, 9, 4), 3);
}

#[test]
fn row_lookup_and_cell_hit() {
    let text = "hello world again";
    let rows = wrap(text, 6);
    assert_eq!(row_of(&rows, 0), 0);
    assert_eq!(row_of(&rows, 6), 1);
    assert_eq!(row_of(&rows, 13), 2);
    assert_eq!(rows[1].cell_at(2).map(|c| c.byte), Some(8));
    let e = escape_line("a\u{7}b");
    assert_eq!(e, "a\\u{7}b");
    assert_eq!(width("東京"), 4);
    assert_eq!(truncate("abcdef", 4), "abc…");
    assert_eq!(truncate("abc", 4), "abc");
}
