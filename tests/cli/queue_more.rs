//! The reviewer-speed pieces: the pace in the header and stats screen, the next-flagged key,
//! the sample queue and the label and source queues.

use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use spanreview::store::Store;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{render, review_queue, walked};

/// A store whose clock the test moves by hand.
fn clocked() -> (Rc<Store>, Arc<Mutex<SystemTime>>) {
    let store = Rc::new(Store::open_in_memory().expect("memory db"));
    let now = Arc::new(Mutex::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
    ));
    let c = Arc::clone(&now);
    store.set_clock(Arc::new(move || *c.lock().expect("clock")));
    (store, now)
}

#[test]
fn the_pace_shows_after_three_reviewed_records_in_the_header_and_stats() {
    let (store, now) = clocked();
    let mut app = review_queue(&store, QueueKind::All);
    let tick = |mins: u64| *now.lock().expect("clock") += Duration::from_secs(mins * 60);
    // Two records in 10 minutes: too few for a rate.
    for _ in 0..2 {
        tick(5);
        app.update(Action::Clean);
        app.update(Action::NextRecord);
    }
    assert_eq!(app.pace(), None);
    assert!(render(&mut app, 140, 30).contains("— /h · — left"));
    // A third at 15 minutes: 12 an hour, one record of four left, 5 minutes.
    tick(5);
    app.update(Action::Clean);
    let (rate, left) = app.pace().expect("a rate");
    assert!((rate - 12.0).abs() < 1e-9, "{rate}");
    assert_eq!(left, 300);
    let screen = render(&mut app, 140, 30);
    assert!(screen.contains("12.0/h · 5m left"), "{screen}");
    app.update(Action::Stats);
    let screen = render(&mut app, 140, 30);
    assert!(
        screen.contains("pace this session: 12.0/h · 5m left"),
        "{screen}"
    );
}

#[test]
fn next_flagged_jumps_in_queue_order_wrapping_and_says_when_there_is_none() {
    use spanreview::tui::app::Status;
    let store = Rc::new(Store::open_in_memory().expect("memory db"));
    let mut app = review_queue(&store, QueueKind::All);
    app.update(Action::NextFlagged);
    assert_eq!(
        app.status,
        Status::Info("no other flagged record in the queue".into())
    );
    assert_eq!(app.pos, 0);
    // Flag the first and the third record.
    app.update(Action::Flag);
    app.update(Action::NextRecord);
    app.update(Action::NextRecord);
    app.update(Action::Flag);
    app.update(Action::FirstRecord);
    app.update(Action::NextFlagged);
    assert_eq!(app.pos, 2);
    assert_eq!(app.status, Status::Info("next flagged record".into()));
    app.update(Action::NextFlagged);
    assert_eq!(app.pos, 0);
    assert_eq!(
        app.status,
        Status::Info("next flagged record (from the queue's start)".into())
    );
    // Unflag the third: only the one on screen is left, nowhere to go.
    app.update(Action::NextFlagged);
    app.update(Action::Flag);
    app.update(Action::NextFlagged);
    assert_eq!(app.pos, 0);
    app.update(Action::NextFlagged);
    assert_eq!(app.pos, 0);
    assert_eq!(
        app.status,
        Status::Info("no other flagged record in the queue".into())
    );
}

#[test]
fn a_sample_queue_is_n_records_in_file_order_the_same_for_a_seed() {
    let store = Rc::new(Store::open_in_memory().expect("memory db"));
    let order: Vec<String> = {
        let mut all = review_queue(&store, QueueKind::All);
        walked(&mut all)
    };
    let mut app = review_queue(&store, QueueKind::Sample { n: 2, seed: 42 });
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("1 / 2 · queue sample"), "{screen}");
    let ids = walked(&mut app);
    assert_eq!(ids.len(), 2);
    let at = |id: &String| order.iter().position(|o| o == id).expect("in the file");
    assert!(at(&ids[0]) < at(&ids[1]), "file order: {ids:?}");
    let mut again = review_queue(&store, QueueKind::Sample { n: 2, seed: 42 });
    assert_eq!(walked(&mut again), ids, "same seed, same records");
    // Over seeds, every record turns up: a sample, not the first N.
    let mut seen: Vec<String> = (0..40)
        .flat_map(|seed| walked(&mut review_queue(&store, QueueKind::Sample { n: 2, seed })))
        .collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), order.len(), "{seen:?}");
}

#[test]
fn label_and_source_queues_hold_the_records_with_such_spans() {
    let store = Rc::new(Store::open_in_memory().expect("memory db"));
    let names: Vec<String> = {
        let app = review_queue(&store, QueueKind::All);
        let c = app.cur.as_ref().expect("record");
        c.record.sources.iter().map(|s| s.name.clone()).collect()
    };
    let label: QueueKind = "label:overgeneration".parse().expect("parses");
    let mut app = review_queue(&store, label);
    let ids = walked(&mut app);
    assert_eq!(ids, ["plain_2__overgeneration"], "{ids:?}");
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("queue label:overgeneration"), "{screen}");
    // The prediction file's source has spans on two records; the other sources on more.
    let pred = names
        .iter()
        .find(|n| n.contains("detector"))
        .unwrap_or_else(|| panic!("a detector source in {names:?}"));
    let mut by_source = review_queue(&store, format!("source:{pred}").parse().expect("parses"));
    assert_eq!(
        walked(&mut by_source),
        ["uni_1__contradiction", "plain_2__overgeneration"]
    );
    let mut none = review_queue(&store, "source:nobody".parse().expect("parses"));
    assert_eq!(none.progress().1, 0);
    assert!(walked(&mut none).is_empty());
    assert!("label:".parse::<QueueKind>().is_err());
    assert!("colour:red".parse::<QueueKind>().is_err());
}
