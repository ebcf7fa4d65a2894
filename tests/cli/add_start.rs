//! Where add mode starts: `V` just after the selected span, `v` at a character clicked on
//! the record (a click on a span only selects it; a later search takes `v` to its hit). Key
//! counts, the old way and the new, on the bundled sample's first record (run with
//! `--nocapture` for the `KEYS` lines in BENCHMARKS.md).

use std::rc::Rc;

use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState};
use spanreview::tui::keymap::Mode;
use spanreview::tui::Action;

use super::app_harness::{add_cursor, bound, cell_of, mem, open_all, picked, render, review_app};
use super::common::data;

/// The bundled sample, on `toolace_train_00021__overgeneration`: `Your generated password
/// is: **H4G8fb9A3eKt2LpO**\n\nRemember to store this password securely …`, its span [0, 48)
/// selected.
fn sample_app(store: &Rc<Store>) -> App {
    open_all(
        &[
            data("toolace/test_records_reconstructed.jsonl"),
            data("toolace/ensemble/predictions_combined.jsonl"),
        ],
        store,
    )
}

/// Keys pressed, counted (each action is one key; a count's digits one each).
struct Counted<'a> {
    app: &'a mut App,
    keys: usize,
}

impl Counted<'_> {
    fn press(&mut self, a: Action) -> &mut Self {
        self.keys += 1;
        self.app.update(a);
        self
    }
}

/// Undo the span just added and select the record's first span [0, 48) again.
fn undo_and_reselect(app: &mut App) {
    app.update(Action::Undo);
    for _ in 0..5 {
        app.update(Action::PrevSpan);
    }
    let c = app.cur.as_ref().expect("record");
    let v = &c.review.spans[c.order[c.selected]].current;
    assert_eq!((v.start, v.end), (0, 48));
}

#[test]
fn capital_v_starts_just_after_the_selected_span_over_non_ascii_text() {
    let store = mem();
    let mut app = review_app(&store);
    assert_eq!(bound(&app, Mode::Normal, "V"), Some(Action::AddAfterSpan));
    // After "rainy" [29, 34): the blank skipped, "and" at 35; `v 2w v` marks "and 25".
    app.update(Action::AddAfterSpan);
    assert_eq!(add_cursor(&app), (None, 35));
    for a in [
        Action::Mark,
        Action::Input('2'),
        Action::CursorWordRight,
        Action::Mark,
    ] {
        app.update(a);
    }
    assert_eq!(picked(&app), (35, 41));
    // `v` still starts at the span's start.
    app.update(Action::Cancel);
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 29));
}

#[test]
fn v_starts_at_a_character_clicked_unless_on_a_span_or_searched_since() {
    let store = mem();
    let mut app = review_app(&store);
    render(&mut app, 100, 30);
    // A click on "25°C" (39), outside every span of the record, then `v`.
    let (x, y) = cell_of(&app, 39);
    app.update(Action::MouseDown(x, y));
    app.update(Action::MouseUp(x, y));
    assert_eq!(
        app.mode,
        ModeState::Normal,
        "a click adds nothing by itself"
    );
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 39));
    app.update(Action::Cancel);
    // A search made after the click: `v` goes to its hit ("note" at 17).
    app.update(Action::Search);
    for c in "note".chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Confirm);
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 17));
    app.update(Action::Cancel);
    app.update(Action::Cancel);
    // A click on the span "rainy" only selects it: `v` at the span's start.
    let (x, y) = cell_of(&app, 31);
    app.update(Action::MouseDown(x, y));
    app.update(Action::MouseUp(x, y));
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 29));
    app.update(Action::Cancel);
    // On another record the click is forgotten.
    app.update(Action::NextRecord);
    app.update(Action::PrevRecord);
    let (x, y) = cell_of(&app, 39);
    app.update(Action::MouseDown(x, y));
    app.update(Action::MouseUp(x, y));
    app.update(Action::NextRecord);
    app.update(Action::Add);
    let on_2 = app.cur.as_ref().expect("r");
    let start = on_2.review.spans[on_2.order[on_2.selected]].current.start;
    assert_eq!(add_cursor(&app), (None, start));
}

/// Add "Remember to store this password securely" [50, 90), the sentence after the selected
/// span: `v` + `w` presses (the old way), `v` with a count typed (the old way for a reviewer
/// who counts words), `V` (new), and a click then `v` (new).
#[test]
fn adding_the_words_after_a_span_takes_fewer_keys_from_its_end_or_a_click() {
    let target = (50, 90);
    let finish = |c: &mut Counted| {
        c.press(Action::Mark)
            .press(Action::Input('6'))
            .press(Action::CursorWordRight)
            .press(Action::Mark);
        assert_eq!(picked(c.app), target);
        c.press(Action::Confirm);
        assert_eq!(c.app.mode, ModeState::Normal);
    };
    let store = mem();
    let mut app = sample_app(&store);
    // Old: v, then w until the cursor is on "Remember".
    let mut old = Counted {
        app: &mut app,
        keys: 0,
    };
    old.press(Action::Add);
    let mut w = 0;
    while add_cursor(old.app).1 < target.0 {
        old.press(Action::CursorWordRight);
        w += 1;
        assert!(w < 100, "never reached {}", target.0);
    }
    assert_eq!(add_cursor(old.app).1, target.0);
    finish(&mut old);
    let old_keys = old.keys;
    undo_and_reselect(&mut app);
    // Old, with the word count known: v, the count's digits, w.
    let digits = w.to_string();
    let mut counted = Counted {
        app: &mut app,
        keys: 0,
    };
    counted.press(Action::Add);
    for d in digits.chars() {
        counted.press(Action::Input(d));
    }
    counted.press(Action::CursorWordRight);
    assert_eq!(add_cursor(counted.app).1, target.0);
    finish(&mut counted);
    let counted_keys = counted.keys;
    undo_and_reselect(&mut app);
    // New: V.
    let mut new = Counted {
        app: &mut app,
        keys: 0,
    };
    new.press(Action::AddAfterSpan);
    assert_eq!(add_cursor(new.app), (None, target.0));
    finish(&mut new);
    let new_keys = new.keys;
    undo_and_reselect(&mut app);
    // New: a click on "Remember", then v (the click counted as a key).
    render(&mut app, 100, 30);
    let (x, y) = cell_of(&app, target.0);
    let mut click = Counted {
        app: &mut app,
        keys: 1,
    };
    click.app.update(Action::MouseDown(x, y));
    click.app.update(Action::MouseUp(x, y));
    click.press(Action::Add);
    assert_eq!(add_cursor(click.app), (None, target.0));
    finish(&mut click);
    let click_keys = click.keys;
    eprintln!(
        "KEYS add the sentence after a span: before {old_keys} ({w} w), with a count typed \
         {counted_keys}, after V {new_keys}, after click+v {click_keys}"
    );
    // Measured: 11 (5 w), 8, 6, 7. The click's count holds wherever the start is; V's only
    // right after a span.
    assert_eq!((old_keys, counted_keys), (11, 8));
    assert!(new_keys <= 6 && click_keys <= 7, "{new_keys} {click_keys}");
}
