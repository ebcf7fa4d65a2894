//! Flow tests: with a rubric, the review screen's drop, remove and flag ask for a reason code
//! (its number or letters, then an optional note), saved as the decision's reason; the span
//! list and the flag line show each code with its description.

use std::rc::Rc;

use spanreview::review::decision::{ActionKind, Decision};
use spanreview::review::rubric::Rubric;
use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Opening, PromptKind, Status};
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{feed, goto, mem, render, review_files, typed};
use super::apply_rubric::RUBRIC;

fn app(store: &Rc<Store>) -> App {
    let mut config = Config::defaults(true);
    config.rubric = Some(Rubric::parse("team.toml", RUBRIC).expect("rubric"));
    let ds = spanreview::formats::Dataset::open(&review_files(), None).expect("files");
    let opening = Opening::new(QueueKind::All, config);
    App::open(ds, Box::new(Rc::clone(store)), "tester", opening).expect("app")
}

fn log(store: &Store) -> Vec<Decision> {
    store.decisions(None).expect("log")
}

#[test]
fn review_rubric_drop_takes_a_code_by_number_then_a_note_and_shows_its_description() {
    let store = mem();
    let mut app = app(&store);
    feed(&mut app, &[Action::Drop]);
    assert!(matches!(
        app.mode,
        ModeState::Prompt {
            kind: PromptKind::Reason(_),
            ..
        }
    ));
    let screen = render(&mut app, 160, 40);
    assert!(
        screen.contains("1 V1 span text is supported by the context (25°C) · 2 V2"),
        "{screen}"
    );
    typed(&mut app, "2 it’s a hedge 東京");
    feed(&mut app, &[Action::Confirm]);
    let d = log(&store).pop().expect("saved");
    assert_eq!(d.action, ActionKind::Drop);
    assert_eq!(d.reason.as_deref(), Some("V2: it’s a hedge 東京"));
    let screen = render(&mut app, 160, 40);
    assert!(
        screen.contains("dropped: V2 (not a hallucination: it’s a hedge): it’s a"),
        "{screen}"
    );
}

#[test]
fn review_rubric_a_wrong_code_keeps_the_prompt_open_and_saves_nothing() {
    let store = mem();
    let mut app = app(&store);
    feed(&mut app, &[Action::Drop]);
    typed(&mut app, "B1 boundary");
    feed(&mut app, &[Action::Confirm]);
    assert!(log(&store).is_empty());
    let Status::Error(why) = &app.status else {
        panic!("no error: {:?}", app.status);
    };
    assert!(why.contains("no code \"B1\" for drop"), "{why}");
    assert!(matches!(
        &app.mode,
        ModeState::Prompt { kind: PromptKind::Reason(_), text } if text == "B1 boundary"
    ));
    // The letters, any case, then Enter: saved.
    feed(&mut app, &[Action::Cancel, Action::Drop]);
    typed(&mut app, "v1");
    feed(&mut app, &[Action::Confirm]);
    assert_eq!(
        log(&store).pop().and_then(|d| d.reason).as_deref(),
        Some("V1")
    );
}

#[test]
fn review_rubric_remove_and_flag_take_codes_and_the_flag_shows_its_description() {
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "clean_3__clean");
    feed(&mut app, &[Action::Flag]);
    typed(&mut app, "1 見て 👀");
    feed(&mut app, &[Action::Confirm]);
    let d = log(&store).pop().expect("flag");
    assert_eq!(
        (d.action, d.reason.as_deref()),
        (ActionKind::Flag, Some("確認: 見て 👀"))
    );
    let screen = render(&mut app, 160, 40);
    assert!(
        screen.contains("⚑ 確認 (needs a second look 👀): 見て 👀"),
        "{screen}"
    );
    // Taking the flag off asks nothing.
    feed(&mut app, &[Action::Flag]);
    assert_eq!(app.mode, ModeState::Normal);
    assert_eq!(log(&store).pop().and_then(|d| d.flag_on), Some(false));
    goto(&mut app, "tool_4__missing_tool");
    feed(&mut app, &[Action::Remove]);
    typed(&mut app, "Q1");
    feed(&mut app, &[Action::Confirm]);
    let d = log(&store).pop().expect("remove");
    assert_eq!(
        (d.action, d.reason.as_deref()),
        (ActionKind::Remove, Some("Q1"))
    );
    // The header says why, with the code's description.
    let screen = render(&mut app, 160, 40);
    assert!(
        screen.contains("removed (Q1 (answer does not address the request 東京))"),
        "{screen}"
    );
}

#[test]
fn review_without_a_rubric_keeps_the_free_text_drop_and_the_remove_picker() {
    let store = mem();
    let mut app = super::app_harness::review_app(&store);
    feed(&mut app, &[Action::Drop]);
    assert!(matches!(
        app.mode,
        ModeState::Prompt {
            kind: PromptKind::DropReason,
            ..
        }
    ));
    feed(&mut app, &[Action::Cancel, Action::Remove]);
    assert!(matches!(app.mode, ModeState::Picker { .. }));
    feed(&mut app, &[Action::Cancel, Action::Flag]);
    assert_eq!(app.mode, ModeState::Normal);
    assert_eq!(log(&store).pop().map(|d| d.action), Some(ActionKind::Flag));
}

#[test]
fn review_rubric_adjust_asks_a_code_before_saving_the_new_boundaries() {
    let store = mem();
    let mut app = app(&store);
    // "rainy" [29, 34): the start one to the right, Enter, then the code.
    feed(
        &mut app,
        &[Action::Adjust, Action::StartRight, Action::Confirm],
    );
    assert!(log(&store).is_empty(), "saved before the code");
    assert!(matches!(
        app.mode,
        ModeState::Prompt {
            kind: PromptKind::AdjustReason { start: 30, end: 34 },
            ..
        }
    ));
    let screen = render(&mut app, 160, 40);
    assert!(screen.contains("1 B1 boundary not minimal"), "{screen}");
    typed(&mut app, "1 ’r’ kept °");
    feed(&mut app, &[Action::Confirm]);
    let d = log(&store).pop().expect("adjust");
    assert_eq!(d.action, ActionKind::Adjust);
    assert_eq!(d.reason.as_deref(), Some("B1: ’r’ kept °"));
    assert_eq!(d.after.map(|a| (a.start, a.end)), Some((30, 34)));
}

/// The shared rubric with codes for relabels, adds and cleans too.
fn full_rubric_app(store: &Rc<Store>) -> App {
    let text = format!(
        "{RUBRIC}\n[relabel]\nL1 = \"wrong category: an unsupported addition\"\n\n[add]\n\
         A1 = \"missed: a number not in the tool output (°C)\"\n\n[clean]\n\
         C1 = \"no hallucination left 東京\"\n"
    );
    let mut config = Config::defaults(true);
    config.rubric = Some(Rubric::parse("team.toml", &text).expect("rubric"));
    let ds = spanreview::formats::Dataset::open(&review_files(), None).expect("files");
    App::open(
        ds,
        Box::new(Rc::clone(store)),
        "tester",
        Opening::new(QueueKind::All, config),
    )
    .expect("app")
}

fn label_prompt(app: &App) -> bool {
    matches!(
        app.mode,
        ModeState::Prompt {
            kind: PromptKind::LabelReason { .. },
            ..
        }
    )
}

#[test]
fn review_rubric_relabel_add_and_clean_ask_for_their_codes_after_the_picker() {
    let store = mem();
    let mut app = full_rubric_app(&store);
    // Relabel: the picker, then the code prompt; a wrong code keeps it open, saving nothing.
    feed(&mut app, &[Action::Relabel, Action::Down, Action::Confirm]);
    assert!(label_prompt(&app), "{:?}", app.mode);
    assert!(render(&mut app, 200, 40).contains("Relabel: code"));
    typed(&mut app, "V1");
    feed(&mut app, &[Action::Confirm]);
    assert!(label_prompt(&app), "{:?}", app.mode);
    assert!(log(&store).is_empty());
    feed(
        &mut app,
        &[
            Action::Cancel,
            Action::Relabel,
            Action::Down,
            Action::Confirm,
        ],
    );
    typed(&mut app, "1 it’s °C");
    feed(&mut app, &[Action::Confirm]);
    let d = log(&store).pop().expect("relabel");
    assert_eq!(d.action, ActionKind::Relabel);
    assert_eq!(d.reason.as_deref(), Some("L1: it’s °C"));
    assert!(d
        .after
        .is_some_and(|a| Some(&a.label) != d.before.as_ref().map(|b| &b.label)));
    // Add: mark a range, pick the label, then the add's code.
    feed(
        &mut app,
        &[Action::Add, Action::Mark, Action::CursorRight, Action::Mark],
    );
    feed(&mut app, &[Action::Confirm]);
    assert!(label_prompt(&app), "{:?}", app.mode);
    typed(&mut app, "A1");
    feed(&mut app, &[Action::Confirm]);
    let d = log(&store).pop().expect("add");
    assert_eq!(
        (d.action, d.reason.as_deref()),
        (ActionKind::Add, Some("A1"))
    );
    // Clean: the code prompt; Enter alone saves it without one.
    goto(&mut app, "tool_4__missing_tool");
    feed(&mut app, &[Action::Clean]);
    assert!(matches!(
        app.mode,
        ModeState::Prompt {
            kind: PromptKind::Reason(_),
            ..
        }
    ));
    typed(&mut app, "C1");
    feed(&mut app, &[Action::Confirm]);
    let d = log(&store).pop().expect("clean");
    assert_eq!(
        (d.action, d.reason.as_deref()),
        (ActionKind::Clean, Some("C1"))
    );
    goto(&mut app, "clean_3__clean");
    feed(&mut app, &[Action::Clean, Action::Confirm]);
    let d = log(&store).pop().expect("clean");
    assert_eq!((d.action, d.reason), (ActionKind::Clean, None));
}

#[test]
fn review_rubric_without_relabel_codes_relabels_at_once() {
    let store = mem();
    let mut app = app(&store);
    feed(&mut app, &[Action::Relabel, Action::Down, Action::Confirm]);
    assert_eq!(app.mode, ModeState::Normal);
    let d = log(&store).pop().expect("relabel");
    assert_eq!((d.action, d.reason), (ActionKind::Relabel, None));
}
