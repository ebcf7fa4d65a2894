use super::*;

/// What a hostile file can put into a name: OSC 52 (set the clipboard), `ESC c` (reset the
/// terminal), leaving the alternate screen, BEL, a table's `|` and a newline.
const HOSTILE: &str = "x\u{1b}]52;c;UFdORUQ=\u{7}\u{1b}c\u{1b}[?1049l|y\nz°’東京👋";

#[test]
fn names_in_the_report_hold_no_escape_sequence_and_cannot_break_its_tables() {
    let mut t = Tally::default();
    t.removed.insert(HOSTILE.to_owned(), 1);
    t.judges.insert(HOSTILE.to_owned(), Default::default());
    t.by_type.insert(HOSTILE.to_owned(), Default::default());
    t.strict_by_type.insert(HOSTILE.to_owned(), 2);
    let h = Header {
        dataset: HOSTILE,
        inputs: vec![format!("{HOSTILE}`.jsonl")],
        strict: true,
        split: false,
        repeated_lines: 0,
        unreadable_labels: 0,
        cut_short: 0,
    };
    let md = markdown(&h, &t);
    let raw: Vec<char> = md
        .chars()
        .filter(|&c| c != '\n' && crate::model::escape::is_hidden(c))
        .collect();
    assert!(raw.is_empty(), "raw controls {raw:?} in:\n{md}");
    let shown = "x\\u{1b}]52;c;UFdORUQ=\\u{7}\\u{1b}c\\u{1b}[?1049l\\|y\\nz°’東京👋";
    // Each table row with the name is one line of the table's own number of cells.
    for line in md.lines().filter(|l| l.starts_with("| x")) {
        assert!(line.starts_with(&format!("| {shown} |")), "{line}");
        let cells = line.replace("\\|", "").matches('|').count();
        let header = if line.ends_with("| 2 |") || line.ends_with("| 1 |") {
            3
        } else {
            0
        };
        assert!(header == 0 || cells == header, "{line}");
    }
    assert_eq!(
        md.lines().filter(|l| l.starts_with("| x")).count(),
        4,
        "{md}"
    );
    // In the title and the inputs: inline code whose fence is longer than any backtick run.
    assert!(md.starts_with("# Review report: `x\\u{1b}]52"), "{md}");
    assert!(md.contains("from `` x\\u{1b}"), "{md}");
}
