use super::*;
use crate::review::outcome::TypeCounts;

/// A label no table or chart may be broken by: a `|`, a newline, ESC and BEL, XML's `<&"`, and
/// text beyond ASCII (`°`, `’`, CJK, an emoji, a combining mark).
const HOSTILE: &str = "a|b\nc\u{1b}[31m\u{7}<x&\"y'>°’東京👋e\u{301}";

fn header() -> Header<'static> {
    Header {
        dataset: "d’東",
        inputs: vec!["r.jsonl".to_owned()],
        strict: false,
        split: false,
        repeated_lines: 0,
        unreadable_labels: 0,
        cut_short: 0,
        rubric: None,
        min_seconds: crate::review::second_pass::DEFAULT_MIN_SECONDS,
    }
}

fn tally() -> Tally {
    let mut t = Tally {
        records_in: 2038,
        reviewed: 2038,
        reviewed_retained: 2015,
        disputes: 44,
        disputes_upheld: 41,
        disputes_dropped: 3,
        ..Tally::default()
    };
    t.removed.insert("incoherent".to_owned(), 23);
    let counts = |before, after| TypeCounts {
        before,
        after,
        ..TypeCounts::default()
    };
    t.by_type.insert(HOSTILE.to_owned(), counts(7, 5));
    t.by_type.insert("東京".to_owned(), counts(3, 4));
    t.by_type.insert(String::new(), counts(0, 2));
    t.judges.insert(HOSTILE.to_owned(), Default::default());
    t.judges.get_mut(HOSTILE).expect("judge").upheld = 3;
    t.judges.get_mut(HOSTILE).expect("judge").dismissed = 1;
    t.start_moved.insert(1, 2);
    t.end_moved.insert(12, 2);
    t
}

fn bars(svg: &str) -> Vec<(String, String, f64, f64)> {
    let doc = roxmltree::Document::parse(svg).expect("the chart is XML");
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("bar"))
        .map(|n| {
            let f = |a: &str| n.attribute(a).and_then(|v| v.parse().ok()).expect(a);
            let s = |a: &str| n.attribute(a).expect(a).to_owned();
            (
                s("data-category"),
                s("data-series"),
                f("data-value"),
                f("height"),
            )
        })
        .collect()
}

#[test]
fn the_paragraph_says_the_tallys_numbers_in_the_papers_form() {
    let c = card(
        Path::new("out/card.md"),
        &header(),
        &tally(),
        &TeamFigures::default(),
    );
    assert!(
        c.markdown.contains(
            "We reviewed 2,038 examples of the 2,038 in the input and retained 2,015: 23 were \
             removed"
        ),
        "{}",
        c.markdown
    );
    assert!(
        c.markdown
            .contains("For the 44 disputed hallucinations (in 0 disputed clusters and judge claims), arbitration upheld 41 and dropped 3."),
        "{}",
        c.markdown
    );
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1_000), "1,000");
    assert_eq!(thousands(1_234_567), "1,234,567");
}

#[test]
fn charts_parse_and_hold_one_bar_per_label_with_its_height() {
    let c = card(
        Path::new("out/my card.md"),
        &header(),
        &tally(),
        &TeamFigures::default(),
    );
    let names: Vec<String> = c
        .charts
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "out/my card-outcomes.svg",
            "out/my card-upheld.svg",
            "out/my card-boundaries.svg"
        ]
    );
    let outcomes = bars(&c.charts[0].1);
    let shown = crate::model::escape::line(HOSTILE).into_owned();
    for (series, want) in [("before", [0.0, 7.0, 3.0]), ("after", [2.0, 5.0, 4.0])] {
        let got: Vec<(String, f64)> = outcomes
            .iter()
            .filter(|b| b.1 == series)
            .map(|b| (b.0.clone(), b.2))
            .collect();
        let labels = ["(none)".to_owned(), shown.clone(), "東京".to_owned()];
        assert_eq!(got, labels.into_iter().zip(want).collect::<Vec<_>>());
    }
    // Heights: the axis tops at 10 (a round number above 7), PLOT_H tall.
    for b in &outcomes {
        assert!((b.3 - b.2 / 10.0 * svg::PLOT_H).abs() < 1e-3, "{b:?}");
    }
    // The upheld rate of 3 of 4 is three quarters of the axis of rates.
    let upheld = bars(&c.charts[1].1);
    assert_eq!(upheld.len(), 1);
    assert!(
        (upheld[0].3 - 0.75 * svg::PLOT_H).abs() < 1e-3,
        "{upheld:?}"
    );
    // No raw control character reaches the SVG text.
    for (_, text) in &c.charts {
        assert!(!text
            .chars()
            .any(|ch| ch != '\n' && crate::model::escape::is_hidden(ch)));
    }
}

#[test]
fn a_markdown_renderer_sees_the_tables_and_the_images_beside_the_card() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let c = card(
        Path::new("out/my card.md"),
        &header(),
        &tally(),
        &TeamFigures::default(),
    );
    let (mut images, mut rows, mut cells_in_row, mut widths) = (Vec::new(), 0, 0, Vec::new());
    for e in Parser::new_ext(&c.markdown, Options::ENABLE_TABLES) {
        match e {
            Event::Start(Tag::Image { dest_url, .. }) => images.push(dest_url.to_string()),
            Event::Start(Tag::TableRow) => {
                rows += 1;
                cells_in_row = 0;
            }
            Event::Start(Tag::TableCell) => cells_in_row += 1,
            Event::End(TagEnd::TableRow) => widths.push(cells_in_row),
            _ => {}
        }
    }
    let beside: Vec<String> = c
        .charts
        .iter()
        .map(|(p, _)| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(images, beside);
    assert!(rows >= 12, "{}", c.markdown);
    // The hostile label keeps its row one row of the table's width: `|` and the newline are
    // escaped, not cell or line ends.
    let label_row = c
        .markdown
        .lines()
        .find(|l| l.starts_with("| a\\|b"))
        .expect("the label's row");
    assert!(
        label_row.contains("a\\|b\\nc\\u{1b}[31m\\u{7}<x&\"y'>°’東京👋e\u{301}"),
        "{label_row}"
    );
    assert_eq!(label_row.replace("\\|", "").matches('|').count(), 10);
    assert!(!c
        .markdown
        .chars()
        .any(|ch| ch != '\n' && crate::model::escape::is_hidden(ch)));
}

#[test]
fn xml_escaping_cannot_end_an_attribute_or_open_a_tag() {
    let svg = svg::Chart {
        title: HOSTILE.to_owned(),
        unit: "<u>".to_owned(),
        categories: vec![HOSTILE.to_owned()],
        series: vec![svg::Series {
            name: "\"s\"".to_owned(),
            values: vec![-2.0],
        }],
        top: None,
        decimals: 0,
    }
    .render();
    let b = bars(&svg);
    assert_eq!(b.len(), 1, "{svg}");
    assert_eq!(b[0].0, crate::model::escape::line(HOSTILE));
    assert_eq!(b[0].1, "\"s\"");
    // A negative value is drawn down from the zero line, to scale.
    assert!((b[0].3 - 2.0 / 3.0 * svg::PLOT_H).abs() < 1e-3, "{svg}");
}

#[test]
fn ticks_have_the_decimals_their_step_needs() {
    assert_eq!(svg::tick_decimals(25.0), 0);
    assert_eq!(svg::tick_decimals(2.5), 1);
    assert_eq!(svg::tick_decimals(0.25), 2);
    assert_eq!(svg::tick_decimals(1.0 / 3.0), 3);
}
