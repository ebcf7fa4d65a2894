//! Keys per positional edit: the count prefix (`3l`), `v` at the search's hit, a click in add
//! mode, find-character (`f,`) and line (`^`, `$`) moves, the arbitration edit from a source's version (Tab walks the lanes), fed into `App`;
//! then the key counts of the three edits pressed for real in tmux, the old way and
//! the new, on the bundled sample (the counts go to BENCHMARKS.md: run with `--nocapture`).

use std::path::{Path, PathBuf};
use std::rc::Rc;

use ratatui::crossterm::event::KeyCode;
use spanreview::review::decision::{ActionKind, Decision};
use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, PromptKind, Status};
use spanreview::tui::edit::Bounds;
use spanreview::tui::keymap::{Key, Mode};
use spanreview::tui::Action;

use super::app_harness::{
    add_cursor, cell_of, feed, mem, open_all, picked, render, review_app, typed,
};
use super::common::data;
use super::terminal::{bin, env, shell_quote, Tmux};

fn sample_files() -> Vec<PathBuf> {
    vec![
        data("toolace/test_records_reconstructed.jsonl"),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ]
}

fn adjusting(app: &App) -> Bounds {
    match &app.mode {
        ModeState::Adjust { bounds, .. } | ModeState::Settle { bounds, .. } => *bounds,
        other => panic!("not adjusting: {other:?}"),
    }
}

fn b(start: usize, end: usize) -> Bounds {
    Bounds { start, end }
}

#[test]
fn a_count_repeats_the_next_move_in_adjust_and_esc_clears_only_the_count() {
    let store = mem();
    let mut app = review_app(&store);
    app.update(Action::Adjust);
    assert_eq!(adjusting(&app), b(29, 34));
    // `3h`: three characters left; `10L`: ten right (digits build one number).
    feed(&mut app, &[Action::Input('3'), Action::StartLeft]);
    assert_eq!(adjusting(&app), b(26, 34));
    feed(
        &mut app,
        &[Action::Input('1'), Action::Input('0'), Action::EndRight],
    );
    assert_eq!(adjusting(&app), b(26, 44));
    // Esc with a count typed forgets the count, not the edit; the next move is one.
    feed(&mut app, &[Action::Input('2'), Action::Cancel]);
    assert_eq!(adjusting(&app), b(26, 44));
    app.update(Action::EndLeft);
    assert_eq!(adjusting(&app), b(26, 43));
    // `0` starts no count; a count larger than the text stops at its end.
    feed(&mut app, &[Action::Input('0'), Action::StartRight]);
    assert_eq!(adjusting(&app), b(27, 43));
    feed(
        &mut app,
        &[Action::Input('9'), Action::Input('9'), Action::EndRight],
    );
    assert_eq!(adjusting(&app), b(27, 50));
    // A count does not repeat Enter: one decision is saved.
    feed(&mut app, &[Action::Input('3'), Action::Confirm]);
    assert_eq!(app.mode, ModeState::Normal);
    let log: Vec<Decision> = store.decisions(None).expect("log");
    assert_eq!(log.len(), 1);
    let after = log[0].after.as_ref().expect("after");
    assert_eq!((after.start, after.end), (27, 50));
}

#[test]
fn counts_in_add_mode_over_cjk_emoji_and_combining_marks() {
    let store = mem();
    let mut app = review_app(&store);
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 29));
    // `2b`: "is", then "it".
    feed(&mut app, &[Action::Input('2'), Action::CursorWordLeft]);
    assert_eq!(add_cursor(&app), (None, 23));
    // `9h` then `5h`: the e and its combining accent are one step ([8, 10)).
    feed(&mut app, &[Action::Input('9'), Action::CursorLeft]);
    assert_eq!(add_cursor(&app), (None, 14));
    feed(&mut app, &[Action::Input('5'), Action::CursorLeft]);
    assert_eq!(add_cursor(&app), (None, 8));
    // `2b`: "café", then 京 alone (each CJK character is a word; the emoji is none).
    feed(&mut app, &[Action::Input('2'), Action::CursorWordLeft]);
    assert_eq!(add_cursor(&app), (None, 1));
    // Mark, `2w` to the end of "naïve", mark: the span is 京 👋 café naïve.
    feed(
        &mut app,
        &[Action::Mark, Action::Input('2'), Action::CursorWordRight],
    );
    assert_eq!(add_cursor(&app), (Some(1), 15));
    app.update(Action::Mark);
    assert_eq!(picked(&app), (1, 16));
    app.update(Action::Confirm);
    let log = store.decisions(None).expect("log");
    let a = log[0].after.as_ref().expect("added");
    assert_eq!((log[0].action, a.start, a.end), (ActionKind::Add, 1, 16));
}

#[test]
fn v_after_a_search_starts_at_the_phrase_in_the_output() {
    let store = mem();
    let mut app = review_app(&store);
    // No search: the selected span's start, as before.
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 29));
    app.update(Action::Cancel);
    // A search found only in the context leaves it there too.
    app.update(Action::Search);
    typed(&mut app, "get_weather");
    app.update(Action::Confirm);
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 29));
    app.update(Action::Cancel);
    // `/25°C`: `v` starts on it; `v 2w v` marks it (the ° is no word: two words).
    app.update(Action::Search);
    typed(&mut app, "25°C");
    app.update(Action::Confirm);
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 39));
    feed(
        &mut app,
        &[
            Action::Mark,
            Action::Input('2'),
            Action::CursorWordRight,
            Action::Mark,
        ],
    );
    assert_eq!(picked(&app), (39, 43));
}

#[test]
fn find_character_moves_in_add_mode_take_any_character_typed() {
    let store = mem();
    let mut app = review_app(&store);
    app.update(Action::Add);
    assert_eq!(add_cursor(&app), (None, 29));
    // After `f` the next key is the character, even one bound in add mode (`w`, `v`).
    app.update(Action::FindForward);
    assert_eq!(app.key_mode(), Mode::Prompt);
    let w = Key::plain(KeyCode::Char('w'));
    assert_eq!(
        app.config.keymap.resolve(app.key_mode(), w),
        Some(Action::Input('w'))
    );
    app.update(Action::Input('°'));
    assert_eq!(app.key_mode(), Mode::Add);
    assert_eq!(add_cursor(&app), (None, 41));
    // `F東`, then `2ta`: just before the second `a` (of "naïve"; "cafe\u{301}" has the first).
    feed(&mut app, &[Action::FindBackward, Action::Input('東')]);
    assert_eq!(add_cursor(&app), (None, 0));
    feed(
        &mut app,
        &[Action::Input('2'), Action::TillForward, Action::Input('a')],
    );
    assert_eq!(add_cursor(&app), (None, 11));
    // A character not there: the cursor stays, the status says so; Esc gives up a find.
    feed(&mut app, &[Action::FindForward, Action::Input('Q')]);
    assert_eq!(add_cursor(&app), (None, 11));
    assert!(
        matches!(&app.status, Status::Info(m) if m.contains("no “Q”")),
        "{:?}",
        app.status
    );
    feed(&mut app, &[Action::FindForward, Action::Cancel]);
    assert_eq!(add_cursor(&app), (None, 11));
    // Marked with `v`, `f.`: the span ends on the full stop.
    feed(
        &mut app,
        &[
            Action::Mark,
            Action::FindForward,
            Action::Input('.'),
            Action::Mark,
        ],
    );
    assert_eq!(picked(&app), (11, 50));
}

#[test]
fn line_moves_in_adjust_and_add() {
    let store = mem();
    let mut app = review_app(&store);
    let key = |c| Key::plain(KeyCode::Char(c));
    for mode in [Mode::Adjust, Mode::Add] {
        let km = &app.config.keymap;
        assert_eq!(km.resolve(mode, key('^')), Some(Action::LineStart));
        assert_eq!(km.resolve(mode, key('$')), Some(Action::LineEnd));
    }
    // The answer is one line (a tab, no newline): `^` and `$` reach its ends.
    feed(&mut app, &[Action::Add, Action::LineEnd]);
    assert_eq!(add_cursor(&app), (None, 49));
    app.update(Action::LineStart);
    assert_eq!(add_cursor(&app), (None, 0));
    feed(&mut app, &[Action::Cancel, Action::Adjust, Action::LineEnd]);
    assert_eq!(adjusting(&app), b(29, 50));
    app.update(Action::LineStart);
    assert_eq!(adjusting(&app), b(0, 50));
}

#[test]
fn a_click_in_add_mode_moves_the_cursor() {
    let store = mem();
    let mut app = review_app(&store);
    render(&mut app, 100, 30);
    app.update(Action::Add);
    let (x, y) = cell_of(&app, 39);
    feed(&mut app, &[Action::MouseDown(x, y), Action::MouseUp(x, y)]);
    assert_eq!(add_cursor(&app), (None, 39));
    app.update(Action::Mark);
    // With the start marked, a click sets the end's cursor and stays in add mode.
    let (x, y) = cell_of(&app, 42);
    feed(&mut app, &[Action::MouseDown(x, y), Action::MouseUp(x, y)]);
    assert_eq!(add_cursor(&app), (Some(39), 42));
    app.update(Action::Mark);
    assert_eq!(picked(&app), (39, 43));
}

/// The bundled sample on record `toolace_train_00608__contradiction` (its one cluster [0,
/// 195): gold [187, 194), ensemble [0, 195), modernbert [186, 194)), arbitration screen open.
fn arbitrating_00608(store: &Rc<Store>) -> App {
    let mut app = open_all(&sample_files(), store);
    app.update(Action::Goto);
    assert!(matches!(
        app.mode,
        ModeState::Prompt {
            kind: PromptKind::Goto,
            ..
        }
    ));
    typed(&mut app, "toolace_train_00608__contradiction");
    app.update(Action::Confirm);
    app.update(Action::Arbitrate);
    assert_eq!(app.mode, ModeState::Arbitrate);
    app
}

#[test]
fn the_arbitration_edit_starts_from_lane_1s_version_and_tab_walks_the_versions() {
    let store = mem();
    let mut app = arbitrating_00608(&store);
    let cl = &app.arb.as_ref().expect("arb").d.clusters[0];
    assert_eq!((cl.start, cl.end), (0, 195));
    app.update(Action::Adjust);
    assert_eq!(
        adjusting(&app),
        b(187, 194),
        "lane 1 (gold), not the cluster"
    );
    app.update(Action::NextVersion);
    assert_eq!(adjusting(&app), b(0, 195), "lane 2 (ensemble)");
    app.update(Action::NextVersion);
    assert_eq!(adjusting(&app), b(186, 194), "lane 3 (modernbert)");
    app.update(Action::NextVersion);
    assert_eq!(adjusting(&app), b(187, 194), "wraps to lane 1");
    app.update(Action::PrevVersion);
    assert_eq!(adjusting(&app), b(186, 194), "back to lane 3");
    // A move, then Tab: the version replaces the moves made.
    app.update(Action::EndLeft);
    app.update(Action::PrevVersion);
    assert_eq!(adjusting(&app), b(0, 195));
    app.update(Action::NextVersion);
    // `3b` from modernbert's start: "of", "score", "efficiency".
    feed(&mut app, &[Action::Input('3'), Action::StartWordLeft]);
    assert_eq!(adjusting(&app), b(167, 194));
    app.update(Action::Confirm);
    assert_eq!(app.mode, ModeState::Arbitrate);
    let log = store.decisions(None).expect("log");
    let last = log.last().expect("saved");
    assert_eq!(last.action, ActionKind::Resolve);
    let after = last.after.as_ref().expect("the edited span");
    assert_eq!((after.start, after.end), (167, 194));
}

// ----- key counts in a real terminal -----

/// Keys pressed through tmux, counted: `keys` counts each key, `phrase` counts the
/// characters of a search phrase apart (finding is not positioning).
struct Counted<'a> {
    t: &'a Tmux,
    keys: usize,
    phrase: usize,
}

impl<'a> Counted<'a> {
    fn new(t: &'a Tmux) -> Self {
        Self {
            t,
            keys: 0,
            phrase: 0,
        }
    }

    fn press(&mut self, keys: &[&str]) -> &mut Self {
        self.keys += keys.len();
        self.t.keys(keys);
        self
    }

    fn repeat(&mut self, key: &str, n: usize) -> &mut Self {
        self.press(&vec![key; n])
    }

    fn phrase(&mut self, s: &str) -> &mut Self {
        self.phrase += s.chars().count();
        self.t.text(s);
        self
    }
}

/// `review` of the bundled sample (records + two detectors), 100×30, in tmux; `None` without
/// tmux (the harness says so).
fn sample_in_tmux(dir: &Path, name: &str) -> Option<(Tmux, PathBuf)> {
    let db = dir.join("keys.sqlite");
    let files: Vec<String> = sample_files().iter().map(|p| shell_quote(p)).collect();
    let cmd = format!(
        "{} review {} --db {} --reviewer keys",
        bin(),
        files.join(" "),
        shell_quote(&db),
    );
    let t = Tmux::start(name, &cmd, &env(dir))?;
    t.wait("toolace_train_00021__overgeneration");
    t.wait("Spans (2)");
    Some((t, db))
}

/// The span of the last decision saved (the review holds the database open: WAL lets us
/// read beside it).
fn last_after(db: &Path) -> (ActionKind, usize, usize) {
    let store = Store::open(db).expect("db opens");
    let log = store
        .decisions(Some("test_records_reconstructed"))
        .expect("log");
    let d = log.last().expect("a decision");
    let a = d.after.as_ref().expect("a span");
    (d.action, a.start, a.end)
}

fn report(what: &str, before: usize, after: usize, extra: &str) {
    eprintln!("KEYS {what}: before {before}, after {after}{extra}");
}

#[test]
fn tighten_three_characters_at_each_end_in_six_keys() {
    let dir = tempfile::tempdir().expect("tmp");
    let Some((t, db)) = sample_in_tmux(dir.path(), "tighten") else {
        return;
    };
    // Before: t lll HHH Enter (still works).
    let mut old = Counted::new(&t);
    old.press(&["t"]).repeat("l", 3).repeat("H", 3);
    t.wait("[0, 48) → [3, 45)");
    old.press(&["Enter"]);
    t.wait("saved #1 (adjust)");
    assert_eq!(last_after(&db), (ActionKind::Adjust, 3, 45));
    t.keys(&["u"]);
    t.wait("saved #2 (undo #1)");
    // After: t 3l 3H Enter.
    let mut new = Counted::new(&t);
    new.press(&["t", "3", "l", "3", "H"]);
    t.wait("[0, 48) → [3, 45)");
    new.press(&["Enter"]);
    t.wait("saved #3 (adjust)");
    assert_eq!(last_after(&db), (ActionKind::Adjust, 3, 45));
    report("tighten 3+3", old.keys, new.keys, "");
    assert_eq!(old.keys, 8);
    assert!(new.keys <= 6, "{} keys", new.keys);
}

#[test]
fn add_a_four_word_span_at_a_phrase_found_with_search_in_eight_keys() {
    let dir = tempfile::tempdir().expect("tmp");
    let Some((t, db)) = sample_in_tmux(dir.path(), "add") else {
        return;
    };
    // "do not share it" is [95, 110) of the first record's answer.
    // Before: v, twelve w to "do", v, four w, v, Enter (the label).
    let mut old = Counted::new(&t);
    old.press(&["v"])
        .repeat("w", 12)
        .press(&["v"])
        .repeat("w", 4);
    t.wait("[95, 110) do not share it");
    old.press(&["v"]);
    t.wait("Label of the new span");
    old.press(&["Enter"]);
    t.wait("saved #1 (add)");
    assert_eq!(last_after(&db), (ActionKind::Add, 95, 110));
    t.keys(&["u"]);
    t.wait("saved #2 (undo #1)");
    // After: /do Enter, v (the cursor on "do"), v, 4w, v, Enter.
    let mut new = Counted::new(&t);
    new.press(&["/"]).phrase("do").press(&["Enter"]);
    t.wait("1 match");
    new.press(&["v", "v", "4", "w"]);
    t.wait("[95, 110) do not share it");
    new.press(&["v"]);
    t.wait("Label of the new span");
    new.press(&["Enter"]);
    t.wait("saved #3 (add)");
    assert_eq!(last_after(&db), (ActionKind::Add, 95, 110));
    report(
        "add a 4-word span",
        old.keys,
        new.keys,
        &format!(" (+ {} characters of the phrase searched)", new.phrase),
    );
    assert_eq!(old.keys, 20);
    assert!(new.keys <= 8, "{} keys", new.keys);
}

#[test]
fn arbitration_edit_from_a_sources_version_in_eight_keys() {
    let dir = tempfile::tempdir().expect("tmp");
    let Some((t, db)) = sample_in_tmux(dir.path(), "arbitrate") else {
        return;
    };
    t.keys(&[":"]);
    t.text("toolace_train_00608__contradiction");
    t.keys(&["Enter"]);
    t.wait("toolace_train_00608__contradiction · contradiction");
    t.keys(&["d"]);
    t.wait("cluster 1 / 1 · [0, 195) · disputed");
    // Before: `t` opened on the whole cluster [0, 195); the new build gets there with Tab
    // (lane 2, the ensemble, is that cluster), which the old key count did not have.
    let mut old = Counted::new(&t);
    old.press(&["t"]);
    t.wait("edit: [187, 194)");
    t.keys(&["Tab"]);
    t.wait("edit: [0, 195)");
    old.repeat("w", 32).press(&["H"]);
    t.wait("edit: [167, 194)");
    old.press(&["Enter"]);
    t.wait("saved #1 resolve");
    assert_eq!(last_after(&db), (ActionKind::Resolve, 167, 194));
    t.keys(&["u"]);
    t.wait("saved #2 (undo #1)");
    // After: t (lane 1's version, the gold [187, 194)), 3b, Enter.
    let mut new = Counted::new(&t);
    new.press(&["t", "3", "b"]);
    t.wait("edit: [167, 194)");
    new.press(&["Enter"]);
    t.wait("saved #3 resolve");
    assert_eq!(last_after(&db), (ActionKind::Resolve, 167, 194));
    report("arbitration edit", old.keys, new.keys, "");
    assert_eq!(old.keys, 35);
    assert!(new.keys <= 8, "{} keys", new.keys);
}
