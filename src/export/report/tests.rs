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
        min_seconds: 5.0,
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
        min_seconds: 5.0,
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

/// A non-blind second pass agreeing with a model's first pass on 144 of 144 records, 2 s per
/// record: the report warns twice, naming the reviewer and the figures; a blind one is silent.
#[test]
fn the_report_warns_of_a_rubber_stamp_and_not_of_a_blind_pass() {
    use crate::review::decision::{replay, ActionKind, Decision};
    let output = "25°C à 東京 👋";
    let tally = |group: Option<&str>| {
        let mut t = Tally::default();
        for i in 0..144 {
            let gold = vec![crate::model::Span::new(output, 6, 8, "contradiction")];
            let rec = crate::test_util::gold_record(&format!("r{i}"), output, None, gold);
            let mut first = Decision::new(&rec, "d", "model", ActionKind::Drop);
            first.span_key = Some("gold:0".into());
            first.id = 1;
            first.time = format!("2026-01-01T{:02}:{:02}:00Z", i / 60, i % 60);
            let mut second = Decision::new(&rec, "d", "ana", ActionKind::AcceptAll);
            second.id = 2;
            second.time = format!("2026-01-02T00:{:02}:{:02}Z", 2 * i / 60, 2 * i % 60);
            second.group = group.map(str::to_owned);
            t.add(&rec, &replay(&rec, &[first, second]), true);
        }
        markdown(&header(None), &t)
    };
    let md = tally(None);
    assert!(md.contains("## Second passes"), "{md}");
    let warned: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("> **Warning:**"))
        .collect();
    assert_eq!(warned.len(), 2, "{md}");
    assert!(
        warned[0].contains("ana") && warned[0].contains("144 of 144"),
        "{md}"
    );
    assert!(warned[1].contains("2.0 s"), "{md}");
    assert!(
        md.contains("| ana | 144 | 144 | 100.0% | 0 | 0 | 2.0 |"),
        "{md}"
    );
    let blind = tally(Some("blind-1"));
    assert!(
        blind.contains("| ana | 0 | 0 | – | 144 | 0 | 2.0 |"),
        "{blind}"
    );
    assert!(!blind.contains("144 of 144"), "{blind}");
}
