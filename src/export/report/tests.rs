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
        rubric: None,
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

fn header(rubric: Option<&Rubric>) -> Header<'_> {
    Header {
        dataset: "d",
        inputs: vec!["r.jsonl".to_owned()],
        strict: false,
        split: false,
        repeated_lines: 0,
        unreadable_labels: 0,
        cut_short: 0,
        rubric,
    }
}

fn reasons(t: &Tally, rubric: Option<&Rubric>) -> String {
    let md = markdown(&header(rubric), t);
    let at = md.find("## Decisions per reason").expect("section");
    let rest = &md[at..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    rest[..end].to_owned()
}

#[test]
fn decisions_are_counted_per_reason_code_with_the_rubrics_description() {
    let rubric = Rubric::parse(
        "team.toml",
        "[drop]\nV2 = \"hedged — ‘maybe’\"\nV1 = \"span text is supported by the context\"\n",
    )
    .expect("rubric");
    let mut t = Tally::default();
    let mut put = |action: &str, code: &str, n: usize| {
        t.by_reason
            .entry(action.to_owned())
            .or_default()
            .insert(code.to_owned(), n);
    };
    put("drop", "V1", 23);
    put("drop", "Z|9", 2);
    put("drop", "", 4);
    put("flag", "misquote", 1);
    let md = reasons(&t, Some(&rubric));
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| drop") || l.starts_with("| flag"))
        .collect();
    assert_eq!(
        rows,
        [
            "| drop | `V1` | span text is supported by the context | 23 |",
            "| drop | `Z\\|9` | (not in the rubric) | 2 |",
            "| drop | – | (no reason code) | 4 |",
            "| flag | `misquote` | the edit's old block is not in the context | 1 |",
        ],
        "{md}"
    );
    assert!(md.contains("the rubric `team.toml`"), "{md}");
    // No rubric: triage's codes are still described.
    let md = reasons(&t, None);
    assert!(
        md.contains("| drop | `V1` | (not in the rubric) | 23 |"),
        "{md}"
    );
    assert!(md.contains("built-in"), "{md}");
    let md = reasons(&Tally::default(), None);
    assert!(
        md.contains("No drop, adjust, relabel, add, clean, remove or flag decision is in force."),
        "{md}"
    );
}
