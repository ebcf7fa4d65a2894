//! The monkey test's checks (`monkey.rs`): the frame holds no control or bidirectional
//! character, and the screen shows exactly what the store holds; with tests that each check
//! catches what it is for.

use std::collections::HashMap;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use spanreview::review::check::check;
use spanreview::review::decision::{replay, Decision, RecordReview};
use spanreview::review::team::blind_view;
use spanreview::store::Store;
use spanreview::tui::app::{App, Status};
use spanreview::tui::terminal;

use super::monkey::{open, Clock, Screen};

/// What must never reach a terminal: C0 and C1 controls (ESC among them), DEL, and the
/// bidirectional embeddings, overrides, isolates and marks.
pub fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
}

/// Draw one frame at `w` × `h` and check no cell holds a forbidden character.
pub fn draw_clean(app: &mut App, (w, h): (u16, u16)) -> Result<(), String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal::frame(&mut t, app).expect("draw");
    let buf = t.backend().buffer();
    for (i, cell) in buf.content().iter().enumerate() {
        if let Some(c) = cell.symbol().chars().find(|&c| forbidden(c)) {
            let (x, y) = (i % usize::from(w), i / usize::from(w));
            return Err(format!(
                "cell ({x}, {y}) at {w}x{h} holds U+{:04X}: {:?}\n{}",
                u32::from(c),
                cell.symbol(),
                t.backend()
            ));
        }
    }
    Ok(())
}

/// What a record's review shows (the spans and the record's outcome), without the log rows.
pub type Shown = (
    Vec<spanreview::review::decision::ReviewSpan>,
    spanreview::review::decision::RecordOutcome,
    bool,
    Vec<String>,
    bool,
    Option<String>,
);

pub fn shown(r: &RecordReview) -> Shown {
    (
        r.spans.clone(),
        r.outcome.clone(),
        r.flagged,
        r.notes.clone(),
        r.confirmed,
        r.record_type.clone(),
    )
}

/// Every record's replayed review, by id, from the store.
pub fn replayed_all(app: &App, store: &Store) -> HashMap<String, Shown> {
    let mut out = HashMap::new();
    for i in 0..app.dataset.len() {
        let r = app.dataset.record(i).expect("record");
        let log = store
            .record_decisions(&app.dataset.name, &r.id)
            .expect("log");
        out.insert(r.id.clone(), shown(&replay(&r, &log)));
    }
    out
}

/// Every decision the screen saved passes `apply`'s checks where it stands in the log, and
/// comes back as saved: a reviewer's log replays through `decisions --json | apply`, and the
/// screen saves nothing `apply` would refuse.
pub fn apply_accepts(app: &App, store: &Store, reviewer: &str) -> Result<(), String> {
    let name = &app.dataset.name;
    let log = store.decisions(Some(name)).map_err(|e| e.to_string())?;
    let records: HashMap<String, _> = (0..app.dataset.len())
        .map(|i| app.dataset.record(i).expect("record"))
        .map(|r| (r.id.clone(), r))
        .collect();
    for (i, d) in log
        .iter()
        .enumerate()
        .filter(|(_, d)| d.reviewer == reviewer)
    {
        let record = &records[&d.record_id];
        let earlier = &log[..i];
        let on_record: Vec<Decision> = earlier
            .iter()
            .filter(|e| e.record_id == d.record_id)
            .cloned()
            .collect();
        let mine: Vec<Decision> = earlier
            .iter()
            .filter(|e| e.reviewer == d.reviewer)
            .cloned()
            .collect();
        match check(record, &on_record, &mine, d) {
            Ok(again) if again == *d => {}
            Ok(again) => {
                return Err(format!(
                    "apply would save #{} as {again:?}, not {d:?}",
                    d.id
                ))
            }
            Err(why) => return Err(format!("apply refuses #{} {d:?}: {why}", d.id)),
        }
    }
    Ok(())
}

/// What the screen says saved is in the store: the ids the status line names, the decisions
/// the record on screen shows (another reviewer's may be missing until the next poll, but
/// nothing the store lacks).
pub fn nothing_unsaved(app: &App, store: &Store) -> Result<(), String> {
    let name = &app.dataset.name;
    if let Status::Saved(msg) = &app.status {
        let stored: Vec<i64> = store
            .reviewer_log(name, &app.reviewer)
            .map_err(|e| e.to_string())?
            .iter()
            .map(|d| d.id)
            .collect();
        for id in saved_ids(msg) {
            if !stored.contains(&id) {
                return Err(format!("status says {msg:?}, #{id} is not in the store"));
            }
        }
    }
    if let Ok(c) = &app.cur {
        let log = store
            .record_decisions(name, &c.record.id)
            .map_err(|e| e.to_string())?;
        if let Some(d) = c.decisions.iter().find(|d| !log.contains(d)) {
            return Err(format!(
                "record {:?} shows #{} the store lacks",
                c.record.id, d.id
            ));
        }
    }
    Ok(())
}

/// The screen shows nothing the store does not hold: saved ids are stored, the record on
/// screen is the store's log replayed, the states are the store's.
pub fn agrees_with_store(app: &App, store: &Store) -> Result<(), String> {
    nothing_unsaved(app, store)?;
    let name = &app.dataset.name;
    if let Ok(c) = &app.cur {
        let log = store
            .record_decisions(name, &c.record.id)
            .map_err(|e| e.to_string())?;
        if c.decisions != log {
            return Err(format!(
                "record {:?} shows decisions {:?}, the store has {:?}",
                c.record.id,
                c.decisions.iter().map(|d| d.id).collect::<Vec<_>>(),
                log.iter().map(|d| d.id).collect::<Vec<_>>()
            ));
        }
        // Blind review shows the log as `blind_view` leaves it (own decisions only until the
        // record is decided).
        let seen = app
            .hides_others(&c.record.id)
            .then(|| blind_view(&c.record, &log, &app.reviewer))
            .flatten();
        let want = replay(&c.record, seen.as_deref().unwrap_or(&log));
        if shown(&c.review) != shown(&want) {
            return Err(format!(
                "record {:?} shows {:?}, the store replays to {:?}",
                c.record.id, c.review, want
            ));
        }
    }
    let states = store.record_states(name).map_err(|e| e.to_string())?;
    for (id, s) in &app.states {
        if states.get(id) != Some(s) {
            return Err(format!(
                "record {id:?}: the app's state {s:?}, the store's {:?}",
                states.get(id)
            ));
        }
    }
    if let Some(id) = states.keys().find(|id| !app.states.contains_key(*id)) {
        return Err(format!("record {id:?} has a stored state the app lacks"));
    }
    // The header's "N/M reviewed" counts what the store holds as reviewed.
    let reviewed = (0..app.dataset.len())
        .filter_map(|i| app.dataset.primary().id(i).ok())
        .filter(|id| states.get(id).is_some_and(|s| s.reviewed))
        .count();
    // Blind review counts only the reviewer's own (checked in arbiter_team.rs).
    let Some((shown, _)) = app.dataset_progress().filter(|_| !app.counts_hidden()) else {
        return Ok(());
    };
    if shown != reviewed {
        return Err(format!(
            "the header says {shown} reviewed, the store {reviewed}"
        ));
    }
    Ok(())
}

/// The decision ids (`#12`) a status line names.
pub fn saved_ids(msg: &str) -> Vec<i64> {
    msg.split('#')
        .skip(1)
        .filter_map(|s| {
            let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

#[test]
fn the_frame_check_refuses_controls_and_bidi_but_not_text() {
    for c in [
        '\u{1b}', '\u{9b}', '\u{7f}', '\0', '\t', '\u{85}', '\u{202e}', '\u{2066}',
    ] {
        assert!(forbidden(c), "U+{:04X}", u32::from(c));
    }
    for c in ['a', '°', '’', '東', '👋', '\u{301}', '\u{200d}'] {
        assert!(!forbidden(c), "U+{:04X}", u32::from(c));
    }
}

#[test]
fn the_store_check_catches_a_decision_the_screen_does_not_show() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("decisions.db");
    let (store, app) = open(Screen::Plain, &db, &Clock::new());
    agrees_with_store(&app, &store).expect("agrees at first");
    // Another connection saves a flag on the record on screen behind the app's back.
    let other = Store::open(&db).expect("db opens");
    let c = app.cur.as_ref().expect("a record");
    let d = spanreview::review::decision::Decision::new(
        &c.record,
        &app.dataset.name,
        "someone",
        spanreview::review::decision::ActionKind::Flag,
    );
    other.append(&d, None).expect("saved");
    let e = agrees_with_store(&app, &store).expect_err("the screen is behind the store");
    assert!(e.contains("shows decisions"), "{e}");
}

#[test]
fn the_apply_check_catches_a_decision_apply_refuses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("decisions.db");
    let (store, app) = open(Screen::Plain, &db, &Clock::new());
    let c = app.cur.as_ref().expect("a record");
    let mut d = Decision::new(
        &c.record,
        &app.dataset.name,
        &app.reviewer,
        spanreview::review::decision::ActionKind::Retype,
    );
    apply_accepts(&app, &store, &app.reviewer).expect("nothing saved yet");
    // A retype to the type the record has: the screen's picker never offers it.
    d.record_type.clone_from(&c.record.corruption_type);
    store.append(&d, None).expect("saved");
    let e = apply_accepts(&app, &store, &app.reviewer).expect_err("apply refuses it");
    assert!(e.contains("apply refuses"), "{e}");
}
