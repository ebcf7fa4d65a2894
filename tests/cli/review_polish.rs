//! The "Reviewer speed" issue's screen polish: original → reviewed in the span list, the
//! legend and hints, the context pane's position and top/bottom keys, compact arbitration
//! lanes, Mu-SHROOM's evidence. Actions are fed into `App`; views rendered into `TestBackend`.

use std::path::{Path, PathBuf};

use serde_json::json;
use spanreview::tui::app::App;
use spanreview::tui::Action;

use super::app_harness;
use super::app_harness::{feed, render};
use super::common::write_jsonl;

fn open(files: &[PathBuf]) -> App {
    app_harness::open_all(files, &app_harness::mem())
}

/// A record whose context is 3,000 numbered lines (`° ’ 東京` in each).
fn long_context(dir: &Path) -> PathBuf {
    let context: String = (1..=3000)
        .map(|k| format!("line {k:04} · 25° ’東京’\n"))
        .collect();
    let path = dir.join("records.jsonl");
    write_jsonl(
        &path,
        &[json!({
            "id": "long_1", "query": "Weather?", "context": context,
            "output": "It is 25°C in 東京 today.",
            "hallucination_labels": [{"start": 6, "end": 10, "label": "contradiction", "text": "25°C"}],
        })],
    );
    path
}

#[test]
fn context_shows_where_it_is_and_goes_to_its_top_and_bottom() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = open(&[long_context(dir.path())]);
    let s = render(&mut app, 120, 30);
    assert!(s.contains("line 0001"), "{s}");
    assert!(s.contains("rows 1–"), "{s}");
    assert!(s.contains("Home/End"), "the keys are named: {s}");
    app.update(Action::ContextBottom);
    let s = render(&mut app, 120, 30);
    assert!(s.contains("line 3000"), "{s}");
    assert!(!s.contains("line 0001"), "{s}");
    assert!(s.contains("/3000 · 100%"), "{s}");
    // Up from the bottom scrolls from what is on screen.
    let bottom = app.layout.context_scroll;
    app.update(Action::ContextUp);
    assert_eq!(app.scroll.context, bottom - 10);
    feed(&mut app, &[Action::ContextDown, Action::ContextTop]);
    let s = render(&mut app, 120, 30);
    assert!(s.contains("line 0001"), "{s}");
    assert!(s.contains("rows 1–"), "{s}");
}

/// A Mu-SHROOM record with the gold and eleven annotators: three mark the same words as the
/// gold, eight mark nothing; the output has a blank line.
fn mushroom_twelve(dir: &Path) -> PathBuf {
    let output = "Pétra van Stövèren won silver.\n\nIn 2008, in Beijing, 中国.";
    let annotations: serde_json::Map<String, serde_json::Value> = (1..=11)
        .map(|k| {
            let spans = match k {
                1..=2 => json!([[23, 29]]),
                3 => json!([[19, 29]]),
                _ => json!([]),
            };
            (format!("ann{k:02}"), spans)
        })
        .collect();
    let path = dir.join("mushroom.en-val.jsonl");
    write_jsonl(
        &path,
        &[json!({
            "id": "val-en-1", "lang": "EN", "model_input": "What did Pétra van Stövèren win?",
            "model_output_text": output, "hard_labels": [[23, 29]], "soft_labels": [],
            "wikipedia_url": "https://en.wikipedia.org/wiki/Petra_van_Stäveren",
            "annotations": annotations,
        })],
    );
    path
}

#[test]
fn mushroom_shows_the_wikipedia_page_and_the_question_as_evidence() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = open(&[mushroom_twelve(dir.path())]);
    let s = render(&mut app, 140, 30);
    assert!(!s.contains("(no context)"), "{s}");
    assert!(s.contains("wikipedia_url:"), "{s}");
    assert!(
        s.contains("https://en.wikipedia.org/wiki/Petra_van_Stäveren"),
        "{s}"
    );
    assert!(
        s.contains("model_input: What did Pétra van Stövèren win?"),
        "{s}"
    );
}

#[test]
fn the_span_list_shows_the_span_as_read_beside_the_reviewed_one() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = open(&[long_context(dir.path())]);
    feed(
        &mut app,
        &[
            Action::Adjust,
            Action::EndRight,
            Action::EndRight,
            Action::Confirm,
        ],
    );
    let s = render(&mut app, 160, 30);
    assert!(
        s.contains("contradiction [6, 10) → contradiction [6, 12) “25°C i”"),
        "{s}"
    );
    // Outside adjust mode, after the change was saved.
    assert!(!matches!(
        app.mode,
        spanreview::tui::app::ModeState::Adjust { .. }
    ));
}

#[test]
fn arbitration_lanes_skip_blank_rows_and_show_the_disputing_sources_of_many() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = open(&[mushroom_twelve(dir.path())]);
    app.update(Action::Arbitrate);
    assert!(app.arb.is_some(), "{:?}", app.status);
    let s = render(&mut app, 140, 40);
    // Twelve sources: gold, ann01, ann02 (one version), ann03 (a longer one), and the eight
    // that mark nothing, shown by one lane.
    assert!(s.contains("+7 more"), "{s}");
    assert!(s.contains("\"│  5 "), "{s}");
    assert!(!s.contains("\"│  6 "), "{s}");
    // The blank line between the sentences has no lanes under it.
    let st = &app.layout.lanes_starts;
    assert!(st.len() >= 3, "{st:?}");
    assert_eq!(st[2] - st[1], 1, "{st:?}\n{s}");
}

/// The screen's last line, trimmed.
fn hint_line(s: &str) -> String {
    let last = s.lines().last().unwrap_or("");
    last.trim_matches('"').trim_end().to_owned()
}

#[test]
fn the_hint_bar_fits_and_keeps_flag_note_search_goto_and_quit() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = open(&[long_context(dir.path())]);
    for w in [80u16, 100, 160] {
        let s = render(&mut app, w, 30);
        let h = hint_line(&s);
        for want in [
            "? help", "f flag", "m note", "/ search", ": go to", "q quit",
        ] {
            assert!(h.contains(want), "{w}: {want} in {h:?}");
        }
        assert!(h.ends_with("q quit"), "{w}: nothing cut off: {h:?}");
    }
    // On the arbitration screen too (`:` goes to a record there).
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = open(&[mushroom_twelve(dir.path())]);
    app.update(Action::Arbitrate);
    let h = hint_line(&render(&mut app, 100, 30));
    assert!(h.contains(": go to"), "{h:?}");
    assert!(h.ends_with("q quit"), "{h:?}");
}

#[test]
fn help_has_a_legend_and_says_when_there_is_more_below() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = open(&[long_context(dir.path())]);
    app.update(Action::Help);
    let s = render(&mut app, 100, 30);
    assert!(s.contains("↓ more below (j/↓)"), "{s}");
    for _ in 0..400 {
        app.update(Action::Down);
    }
    let s = render(&mut app, 100, 30);
    assert!(!s.contains("more below"), "{s}");
    assert!(s.contains("Labels of this record: contradiction"), "{s}");
    assert!(s.contains("━ lane 1"), "{s}");
    assert!(s.contains("x label wrong"), "{s}");
    // The arbitration screen explains its marks.
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = open(&[mushroom_twelve(dir.path())]);
    app.update(Action::Arbitrate);
    let s = render(&mut app, 140, 40);
    assert!(s.contains("▒ ✓ reviewed result"), "{s}");
}
