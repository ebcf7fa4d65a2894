//! Search across records: `N` goes to the next record of the queue (wrapping) holding the
//! text searched with `/`, case-insensitively, in its output, query or context; with CJK,
//! emoji and a combining mark, on the review fixture (`uni_1`: `東京 👋 cafe\u{301} naïve …`,
//! `plain_2`: `… Enjoy the trip!`).

use spanreview::tui::app::{App, Status};
use spanreview::tui::keymap::Mode;
use spanreview::tui::Action;

use super::app_harness::{bound, id, mem, render, review_app, typed};

fn search(app: &mut App, text: &str) {
    app.update(Action::Search);
    typed(app, text);
    app.update(Action::Confirm);
}

fn info(app: &App) -> String {
    match &app.status {
        Status::Info(s) => s.clone(),
        other => panic!("no message: {other:?}"),
    }
}

#[test]
fn n_key_finds_the_next_record_with_the_text_case_insensitively() {
    let store = mem();
    let mut app = review_app(&store);
    assert_eq!(
        bound(&app, Mode::Normal, "N"),
        Some(Action::NextSearchRecord)
    );
    app.update(Action::NextSearchRecord);
    assert!(info(&app).contains("search with / first"), "{}", info(&app));
    assert_eq!(app.pos, 0);
    // Upper case finds "Enjoy the trip!" in the second record; its hit is shown there.
    search(&mut app, "ENJOY THE");
    app.update(Action::NextSearchRecord);
    assert_eq!(id(&app), "plain_2__overgeneration");
    assert_eq!(info(&app), "\"ENJOY THE\" in record 2");
    let c = app.cur.as_ref().expect("record");
    assert_eq!(c.hits.search.as_deref(), Some("ENJOY THE"));
    assert_eq!(c.hits.output.len(), 1);
    // No other record has it: N stays and says so.
    app.update(Action::NextSearchRecord);
    assert_eq!(id(&app), "plain_2__overgeneration");
    assert_eq!(info(&app), "no other record in the queue has \"ENJOY THE\"");
    // A text in no record at all.
    search(&mut app, "zebra");
    app.update(Action::NextSearchRecord);
    assert_eq!(app.pos, 1);
    assert!(info(&app).starts_with("no other record"));
}

#[test]
fn cjk_emoji_and_accented_text_are_found_wrapping_to_the_queue_start() {
    let store = mem();
    let mut app = review_app(&store);
    app.update(Action::NextRecord);
    app.update(Action::NextRecord);
    assert_eq!(id(&app), "clean_3__clean");
    for text in ["東京 👋", "NAÏVE", "👋"] {
        search(&mut app, text);
        app.update(Action::NextSearchRecord);
        assert_eq!(id(&app), "uni_1__contradiction", "{text}");
        assert_eq!(
            info(&app),
            format!("{text:?} in record 1 (from the queue's start)")
        );
        assert!(!app.cur.as_ref().expect("r").hits.output.is_empty());
        app.update(Action::LastRecord);
    }
    // Only in the context (the tool's name): found too, and the header shows the record.
    app.update(Action::FirstRecord);
    app.update(Action::NextRecord);
    search(&mut app, "GET_WEATHER");
    app.update(Action::NextSearchRecord);
    assert_eq!(id(&app), "uni_1__contradiction");
    assert!(render(&mut app, 120, 30).contains("uni_1__contradiction"));
}

#[test]
fn n_repeats_the_last_search_after_moving_on() {
    let store = mem();
    let mut app = review_app(&store);
    // "the": uni_1's query, plain_2's "The flight", tool_4's "the table"; not clean_3.
    search(&mut app, "the");
    app.update(Action::NextSearchRecord);
    assert_eq!(id(&app), "plain_2__overgeneration");
    // Moving on clears the record's search; N still looks for "the", past clean_3.
    app.update(Action::NextRecord);
    assert_eq!(id(&app), "clean_3__clean");
    assert!(app.cur.as_ref().expect("r").hits.search.is_none());
    app.update(Action::NextSearchRecord);
    assert_eq!(id(&app), "tool_4__missing_tool");
    assert_eq!(info(&app), "\"the\" in record 4");
}
