//! Integration tests: the review screen in a team on one shared database. The `mine` queue of
//! an assignment plan (overlap records stay on a reviewer's queue whatever the other reviewer
//! decided), claims (two reviewers are served different records, "… is on it", expiry by an
//! injected clock, release on quit; two real processes in tmux), and reviewers' disagreements
//! reaching an open disputed queue without a restart.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

use spanreview::cli::judge_args::JudgeArgs;
use spanreview::cli::review::live_reviewer_sources;
use spanreview::formats::Dataset;
use spanreview::model::Record;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::store::{Assignment, RecordState, Store};
use spanreview::tui::app::{App, Opening};
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{goto, render};
use super::common::{data, fixture, reviewed};
use super::terminal::{bin, env, shell_quote, Tmux};

/// The review fixture: `uni_1__contradiction`, `plain_2__overgeneration`, `clean_3__clean`,
/// `tool_4__missing_tool`, in that order.
fn records() -> PathBuf {
    fixture("review/records.jsonl")
}

const IDS: [&str; 4] = [
    "uni_1__contradiction",
    "plain_2__overgeneration",
    "clean_3__clean",
    "tool_4__missing_tool",
];

/// A reviewer's screen on `files` and the database at `db` (their own connection, as another
/// process would have), with the store's clock `clock` when given.
fn screen(
    files: &[PathBuf],
    db: &Path,
    who: &str,
    queue: QueueKind,
    clock: Option<&Arc<AtomicU64>>,
) -> Result<(App, Rc<Store>), String> {
    let store = Rc::new(Store::open(db).expect("db"));
    if let Some(c) = clock {
        let c = Arc::clone(c);
        store.set_clock(Arc::new(move || {
            UNIX_EPOCH + Duration::from_secs(c.load(Ordering::SeqCst))
        }));
    }
    let ds = Dataset::open(files, None).expect("files");
    let app = App::open(
        ds,
        Box::new(Rc::clone(&store)),
        who,
        Opening::new(queue, Config::defaults(true)),
    )?;
    Ok((app, store))
}

/// Save the plan `rows` (record id, its reviewers) for the dataset `records` in `db`.
fn save_plan(db: &Path, rows: &[(&str, &[&str])]) {
    let plan: Vec<Assignment> = rows
        .iter()
        .map(|(id, who)| Assignment {
            record_id: (*id).to_owned(),
            reviewers: who.iter().map(|&w| w.to_owned()).collect(),
        })
        .collect();
    Store::open(db)
        .expect("db")
        .save_plan("records", &plan)
        .expect("plan");
}

/// `who` accepts record `i` whole, through their own connection.
fn accept_all(db: &Path, i: usize, who: &str) {
    let ds = Dataset::open(&[records()], None).expect("files");
    let rec = ds.record(i).expect("record");
    Store::open(db)
        .expect("db")
        .append(
            &Decision::new(&rec, &ds.name, who, ActionKind::AcceptAll),
            Some(&reviewed()),
        )
        .expect("saved");
}

/// The plan both `mine` tests start from: record 0 is an overlap record (zoë and bo both
/// review it), 2 is zoë's, 1 and 3 are bo's.
fn overlap_plan(db: &Path) {
    save_plan(
        db,
        &[
            (IDS[0], &["zoë", "bo"]),
            (IDS[1], &["bo"]),
            (IDS[2], &["zoë"]),
            (IDS[3], &["bo"]),
        ],
    );
}

fn current_id(app: &App) -> String {
    app.cur.as_ref().expect("a record").record.id.clone()
}

/// A reviewer the plan leaves out reviews the unreviewed queue, and the header says why there
/// is no `mine` count rather than `mine 0/0`.
#[test]
fn a_reviewer_outside_the_plan_is_told_so_beside_the_teams_progress() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team °.sqlite");
    overlap_plan(&db);
    accept_all(&db, 1, "bo");
    let (cy, _) = screen(&[records()], &db, "cy", QueueKind::Unreviewed, None).expect("app");
    assert_eq!(
        cy.team_line().as_deref(),
        Some("none assigned to you · team 1/4")
    );
}

#[test]
fn the_mine_queue_serves_the_plan_share_and_keeps_overlap_records_the_other_reviewed() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team °.sqlite");
    overlap_plan(&db);
    // bo has the overlap record on screen, and reviews it (in another process) before zoë
    // starts: it stays on zoë's queue, and nobody tells her bo is on it (each reviews it).
    let (bo, _) = screen(&[records()], &db, "bo", QueueKind::Mine, None).expect("app");
    assert_eq!(current_id(&bo), IDS[0]);
    accept_all(&db, 0, "bo");
    let (mut zoe, _) = screen(&[records()], &db, "zoë", QueueKind::Mine, None).expect("app");
    assert_eq!(zoe.queue.members(), [0, 2], "zoë's share, in file order");
    assert_eq!(
        current_id(&zoe),
        IDS[0],
        "not reviewed by zoë: served first"
    );
    // Blind by default on an overlap record: bo's review of it does not count for zoë until
    // she decides it (a count that did not move when she did would tell her bo had).
    assert_eq!(zoe.team_line().as_deref(), Some("mine 0/2 · team 0/4"));
    assert_eq!(zoe.held_by(), None, "an overlap record: each reviews it");
    drop(bo);
    let frame = render(&mut zoe, 120, 30);
    assert!(frame.contains("queue mine"), "{frame}");
    assert!(frame.contains("mine 0/2 · team 0/4"), "{frame}");
    assert!(frame.contains("0/4 reviewed"), "{frame}");
    assert!(!frame.contains("is on it"), "{frame}");

    // zoë reviews it too; the poll counts it as hers.
    zoe.update(Action::AcceptAll);
    assert_eq!(current_id(&zoe), IDS[2]);
    zoe.poll_team();
    assert_eq!(zoe.team_line().as_deref(), Some("mine 1/2 · team 1/4"));
    // bo's record reviewed in another process: the team's count follows on the next poll.
    accept_all(&db, 3, "bo");
    zoe.poll_team();
    assert_eq!(zoe.team_line().as_deref(), Some("mine 1/2 · team 2/4"));

    // Reopening: what zoë reviewed is off her queue; bo's opens on his own share, the
    // overlap record he reviewed left out.
    let (zoe, _) = screen(&[records()], &db, "zoë", QueueKind::Mine, None).expect("app");
    assert_eq!(zoe.queue.members(), [2]);
    let (bo, _) = screen(&[records()], &db, "bo", QueueKind::Mine, None).expect("app");
    assert_eq!(bo.queue.members(), [1]);
    assert_eq!(bo.team_line().as_deref(), Some("mine 2/3 · team 2/4"));
}

/// The `mine` queue's progress (also what `review` prints on quitting) counts what the header's
/// `mine` count does: the records this reviewer's own decisions leave reviewed. An overlap
/// record another reviewer finished is not done for this one, even once on screen.
#[test]
fn the_mine_queues_progress_is_the_reviewers_own_work() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("mine ’.sqlite");
    overlap_plan(&db);
    accept_all(&db, 0, "bo");
    let (mut zoe, _) = screen(&[records()], &db, "zoë", QueueKind::Mine, None).expect("app");
    assert_eq!(
        current_id(&zoe),
        IDS[0],
        "bo's review leaves it on zoë's queue"
    );
    assert_eq!(zoe.progress(), (0, 2, true), "not done by zoë");
    zoe.update(Action::AcceptAll);
    assert_eq!(current_id(&zoe), IDS[2]);
    assert_eq!(
        zoe.progress(),
        (1, 2, true),
        "done by zoë now, before any poll"
    );
    assert_eq!(zoe.team_line().as_deref(), Some("mine 1/2 · team 1/4"));
    zoe.update(Action::Undo);
    assert_eq!(current_id(&zoe), IDS[0]);
    assert_eq!(zoe.progress(), (0, 2, true), "undone: not hers any more");
    // Blind again on the overlap record: bo's review of it is left out of the team's count.
    assert_eq!(zoe.team_line().as_deref(), Some("mine 0/2 · team 0/4"));
    // Her own record: hers and the team's count move together, before any poll.
    goto(&mut zoe, IDS[2]);
    zoe.update(Action::AcceptAll);
    assert_eq!(zoe.progress(), (1, 2, true));
    assert_eq!(zoe.team_line().as_deref(), Some("mine 1/2 · team 1/4"));
    zoe.poll_team();
    assert_eq!(zoe.team_line().as_deref(), Some("mine 1/2 · team 1/4"));
}

#[test]
fn queue_mine_without_a_plan_or_outside_it_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team.sqlite");
    let e = screen(&[records()], &db, "zoë", QueueKind::Mine, None).expect_err("no plan");
    assert!(e.contains("--queue mine"), "{e}");
    assert!(
        e.contains("dataset \"records\" has no assignment plan"),
        "{e}"
    );
    assert!(e.contains("spanreview assign"), "{e}");
    save_plan(&db, &[(IDS[0], &["zoë"]), (IDS[1], &["bo"])]);
    let e = screen(&[records()], &db, "cy", QueueKind::Mine, None).expect_err("not in it");
    assert!(e.contains("no records to reviewer \"cy\""), "{e}");
    assert!(e.contains("its reviewers: bo, zoë"), "{e}");
    // Other queues open as before on a planned dataset.
    assert!(screen(&[records()], &db, "cy", QueueKind::Unreviewed, None).is_ok());
    assert_eq!("mine".parse::<QueueKind>(), Ok(QueueKind::Mine));
    assert_eq!(QueueKind::Mine.to_string(), "mine");
    let e = "mien".parse::<QueueKind>().expect_err("unknown");
    assert!(e.contains("mine"), "the error lists the queue: {e}");
}

#[test]
fn claims_serve_reviewers_different_records_and_expire_by_the_clock() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team.sqlite");
    let clock = Arc::new(AtomicU64::new(1_790_000_000));
    let files = [records()];
    let (mut zoe, _) =
        screen(&files, &db, "zoë", QueueKind::Unreviewed, Some(&clock)).expect("app");
    assert_eq!(current_id(&zoe), IDS[0]);
    // bo opens while zoë is on record 0: he is served record 1.
    let (mut bo, bo_store) =
        screen(&files, &db, "bo", QueueKind::Unreviewed, Some(&clock)).expect("app");
    assert_eq!(current_id(&bo), IDS[1]);
    assert_eq!(bo.held_by(), None);
    // zoë moves on: `n` passes over record 1, bo's.
    zoe.update(Action::NextRecord);
    assert_eq!(current_id(&zoe), IDS[2]);
    assert!(
        format!("{:?}", zoe.status).contains("passed over 1 record another reviewer is on"),
        "{:?}",
        zoe.status
    );
    // Record 0 is free again: bo's `p` reaches it without a notice; going to zoë's record
    // shows it, saying who is on it.
    bo.update(Action::PrevRecord);
    assert_eq!((current_id(&bo), bo.held_by()), (IDS[0].to_owned(), None));
    bo.go_index(2);
    assert_eq!(current_id(&bo), IDS[2], "still viewable");
    assert_eq!(bo.held_by(), Some("zoë"));
    let frame = render(&mut bo, 120, 30);
    assert!(frame.contains("zoë is on it"), "{frame}");
    // zoë keeps working on it (keys, no idle moment): her claim is renewed, so 4 + 2 minutes
    // after she took it, it still holds.
    clock.fetch_add(4 * 60, Ordering::SeqCst);
    zoe.update(Action::Cancel);
    clock.fetch_add(2 * 60, Ordering::SeqCst);
    bo.idle();
    assert_eq!(bo.held_by(), Some("zoë"), "renewed on her keys");
    // zoë's screen stops renewing (a killed process): past the expiry bo's next poll takes
    // the record over.
    clock.fetch_add(6 * 60, Ordering::SeqCst);
    bo.idle();
    assert_eq!(bo.held_by(), None);
    let frame = render(&mut bo, 120, 30);
    assert!(!frame.contains("is on it"), "{frame}");
    // Quitting releases: nothing of bo's is left claimed.
    bo.release_claims();
    assert!(bo_store
        .claims_of_others("records", "zoë")
        .expect("claims")
        .is_empty());
}

/// `review` in a terminal as `who` on the fixture.
fn review_cmd(db: &Path, who: &str) -> String {
    format!(
        "sh -c \"{} review {} --db {} --reviewer {who}; echo exit=\\$?; sleep 600\"",
        bin(),
        shell_quote(&records()),
        shell_quote(db),
    )
}

#[test]
fn two_reviewers_in_two_terminals_are_served_different_records_and_see_who_is_on_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("shared.sqlite");
    let Some(zoe) = Tmux::start("team-zoe", &review_cmd(&db, "zoë"), &env(dir.path())) else {
        return;
    };
    zoe.wait(IDS[0]);
    let bo = Tmux::start("team-bo", &review_cmd(&db, "bo"), &env(dir.path())).expect("tmux");
    let s = bo.wait(IDS[1]);
    assert!(!s.contains(IDS[0]), "{s}");
    assert!(!s.contains("is on it"), "{s}");
    // bo goes to zoë's record: viewable, and he is told she is on it.
    bo.keys(&[":"]);
    bo.text(IDS[0]);
    bo.keys(&["Enter"]);
    bo.wait("zoë is on it");
    // zoë quits (her claim is released); bo's screen takes the record on its next poll.
    zoe.press(&["q"], "exit=0");
    bo.wait_settled("the claim taken over", |s| {
        s.contains(IDS[0]) && !s.contains("is on it")
    });
    bo.press(&["q"], "exit=0");
    let store = Store::open(&db).expect("db");
    for id in IDS {
        assert_eq!(
            store.claim_holder("records", id).expect("claims"),
            None,
            "{id}"
        );
    }
}

#[test]
fn review_without_queue_opens_the_plan_share_of_the_reviewer_in_a_terminal() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("planned.sqlite");
    save_plan(
        &db,
        &[
            (IDS[0], &["bo"]),
            (IDS[2], &["zoë", "bo"]),
            (IDS[3], &["zoë"]),
        ],
    );
    let Some(t) = Tmux::start("team-mine", &review_cmd(&db, "zoë"), &env(dir.path())) else {
        return;
    };
    let s = t.wait(IDS[2]);
    assert!(s.contains("queue mine"), "{s}");
    assert!(s.contains("mine 0/2 · team 0/3"), "{s}");
    t.press(&["A"], IDS[3]);
    t.wait("mine 1/2 · team 1/3");
    t.press(&["q"], "exit=0");
}

#[test]
fn a_reviewer_the_plan_leaves_out_reviews_the_unreviewed_queue_and_is_told_why() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("planned.sqlite");
    save_plan(&db, &[(IDS[0], &["bo"]), (IDS[1], &["zoë"])]);
    let Some(t) = Tmux::start("team-out", &review_cmd(&db, "cy"), &env(dir.path())) else {
        return;
    };
    let s = t.wait(IDS[0]);
    assert!(s.contains("queue unreviewed"), "{s}");
    let s = t.press(&["q"], "exit=0");
    assert!(s.contains("gives no records to reviewer \"cy\""), "{s}");
}

#[test]
fn review_queue_mine_without_a_plan_exits_2_saying_how_to_make_one() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("unplanned.sqlite");
    let cmd = format!(
        "sh -c \"{} review {} --db {} --reviewer zoë --queue mine; echo exit=\\$?; sleep 600\"",
        bin(),
        shell_quote(&records()),
        shell_quote(&db),
    );
    let Some(t) = Tmux::start("team-noplan", &cmd, &env(dir.path())) else {
        return;
    };
    let s = t.wait("exit=2");
    assert!(s.contains("has no assignment plan"), "{s}");
    assert!(s.contains("spanreview assign"), "{s}");
}

#[test]
fn review_help_lists_the_mine_queue() {
    let out = super::common::bin()
        .args(["review", "--help"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let help = String::from_utf8_lossy(&out);
    assert!(help.contains("mine (the records the dataset's"), "{help}");
    assert!(help.contains("the default when the plan gives"), "{help}");
}

/// `n` records like the fixture's first, with ids `rec°{i}`.
fn many_records(dir: &Path, n: usize) -> PathBuf {
    let first = std::fs::read_to_string(records()).expect("fixture");
    let mut v: serde_json::Value =
        serde_json::from_str(first.lines().next().expect("a line")).expect("json");
    let mut out = String::new();
    for i in 0..n {
        v["id"] = serde_json::Value::String(format!("rec°{i}"));
        out.push_str(&v.to_string());
        out.push('\n');
    }
    let p = dir.join("many.jsonl");
    std::fs::write(&p, out).expect("write");
    p
}

#[test]
fn a_bulk_of_decisions_elsewhere_is_taken_in_a_bounded_number_per_poll() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("bulk.sqlite");
    let files = [many_records(dir.path(), 300)];
    let (mut zoe, _) = screen(&files, &db, "zoë", QueueKind::Unreviewed, None).expect("app");
    // bo's bulk (a scripted triage): 299 records accepted in one transaction.
    let ds = Dataset::open(&files, None).expect("files");
    let rows: Vec<(Decision, RecordState)> = (1..300)
        .map(|i| {
            let rec = ds.record(i).expect("record");
            let d = Decision::new(&rec, &ds.name, "bo", ActionKind::AcceptAll);
            (d, reviewed())
        })
        .collect();
    Store::open(&db)
        .expect("db")
        .append_each(&rows)
        .expect("saved");
    let done = |app: &App| app.states.values().filter(|s| s.reviewed).count();
    zoe.poll_team();
    assert_eq!(done(&zoe), 256, "one poll reads at most 256 records");
    zoe.poll_team();
    assert_eq!(done(&zoe), 299, "the rest on the next");
}

/// The toolace sample: reviewers disagree on record `R`'s one gold span.
const R: usize = 1;

fn toolace() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

/// `who`'s decision on `rec`'s first gold span.
fn on_span(rec: &Record, dataset: &str, who: &str, action: ActionKind) -> Decision {
    let mut d = Decision::new(rec, dataset, who, action);
    d.span_key = Some("gold:0".to_owned());
    d.before = Some(SpanValue::of(&rec.gold_spans()[0]));
    d
}

#[test]
fn another_reviewers_decision_reaches_the_open_disputed_queue_without_a_restart() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("shared.sqlite");
    let ds = Dataset::open(&[toolace()], None).expect("open");
    let rec = ds.record(R).expect("R");
    // ana kept R's span before opening: one reviewer, nothing disputed yet.
    let ana_store = Rc::new(Store::open(&db).expect("db"));
    ana_store
        .append(&on_span(&rec, &ds.name, "ana", ActionKind::Accept), None)
        .expect("saved");
    let mut app = App::open(
        Dataset::open(&[toolace()], None).expect("open"),
        Box::new(Rc::clone(&ana_store)),
        "ana",
        Opening::new(QueueKind::Disputed, Config::defaults(true)),
    )
    .expect("app");
    app.set_live_sources(live_reviewer_sources(JudgeArgs::default().options()));
    let t0 = Instant::now();
    while app.busy() {
        app.idle();
        assert!(t0.elapsed() < Duration::from_secs(60), "idle work hangs");
    }
    assert!(!app.queue.members().contains(&R), "nothing disputed yet");

    // bo, in another connection, drops the span ana kept.
    Store::open(&db)
        .expect("db")
        .append(&on_span(&rec, &ds.name, "bo", ActionKind::Drop), None)
        .expect("saved");
    app.poll_team();
    assert!(
        app.queue.members().contains(&R),
        "{:?}",
        app.queue.members()
    );
    assert_eq!(app.cur.as_ref().expect("R shown").index, R);
    let arb = app.arb.as_ref().expect("arbitration screen");
    let lanes: Vec<&str> = arb
        .lanes
        .iter()
        .map(|&i| arb.sources[i].name.as_str())
        .collect();
    assert!(lanes.contains(&"reviewer:ana"), "{lanes:?}");
    assert!(lanes.contains(&"reviewer:bo"), "{lanes:?}");
    assert!(arb.d.is_disputed());
    let frame = render(&mut app, 140, 40);
    assert!(frame.contains("reviewer:bo"), "{frame}");
    assert!(
        format!("{:?}", app.status).contains("1 record newly disputed between reviewers"),
        "{:?}",
        app.status
    );

    // A note of bo's on the record changes no lane: the screen is not reloaded under ana.
    app.scroll.context = 2;
    let mut note = Decision::new(&rec, &ds.name, "bo", ActionKind::Note);
    note.note = Some("voir la 2ᵉ phrase".to_owned());
    Store::open(&db)
        .expect("db")
        .append(&note, None)
        .expect("saved");
    app.poll_team();
    assert_eq!(app.scroll.context, 2, "not reloaded");

    // bo comes round to ana's view: the record is no longer disputed between them, and the
    // lanes on screen follow.
    Store::open(&db)
        .expect("db")
        .append(&on_span(&rec, &ds.name, "bo", ActionKind::Accept), None)
        .expect("saved");
    app.poll_team();
    let arb = app.arb.as_ref().expect("arbitration screen");
    assert!(
        arb.sources.iter().all(|s| !s.name.starts_with("reviewer:")),
        "reviewers agree: nothing to arbitrate between them"
    );
}

/// The arbitration lanes say why a reviewer's lane has no span: their drop's reason, its code
/// described by the rubric.
#[test]
fn a_reviewers_lane_shows_the_reason_of_their_drop_with_its_codes_description() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("shared.sqlite");
    let ds = Dataset::open(&[toolace()], None).expect("open");
    let rec = ds.record(R).expect("R");
    let store = Rc::new(Store::open(&db).expect("db"));
    store
        .append(&on_span(&rec, &ds.name, "ana", ActionKind::Accept), None)
        .expect("saved");
    let mut drop = on_span(&rec, &ds.name, "bo", ActionKind::Drop);
    drop.reason = Some("V2: hedged 東京".to_owned());
    store.append(&drop, None).expect("saved");
    let mut config = Config::defaults(true);
    let rubric = super::apply_rubric::RUBRIC;
    config.rubric = Some(spanreview::review::rubric::Rubric::parse("r.toml", rubric).expect("ok"));
    // The reviewers as sources, as `review` loads them when the database holds several.
    let log = store.decisions(Some(&ds.name)).expect("log");
    let (judges, _) = JudgeArgs::default()
        .load_with_log(&ds, &ds.name, &store, &log)
        .expect("reviewers");
    let mut opening = Opening::new(QueueKind::Disputed, config);
    opening.arb.judges = Some(Arc::new(judges.for_arbitration()));
    let mut app = App::open(ds, Box::new(Rc::clone(&store)), "cy", opening).expect("app");
    let t0 = Instant::now();
    while app.busy() {
        app.idle();
        assert!(t0.elapsed() < Duration::from_secs(60), "idle work hangs");
    }
    assert_eq!(app.cur.as_ref().expect("R shown").index, R);
    let frame = render(&mut app, 160, 50);
    // Wrapped in the cluster panel.
    assert!(
        frame.contains("reviewer:bo: — dropped: V2 (not a hallucination: it’s a"),
        "{frame}"
    );
    assert!(frame.contains("hedge): hedged 東京"), "{frame}");
    // ana's lane keeps the span: no reason there.
    assert_eq!(frame.matches("— dropped:").count(), 1, "{frame}");
}

/// The stats screen charts each reviewer pair's label-aware F1 over the whole log, the figure
/// `stats --json` gives.
#[test]
fn the_stats_screen_charts_reviewer_pairs_as_stats_computes_them() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team.sqlite");
    let files = super::app_harness::review_files();
    for (who, second) in [("ana", Action::Accept), ("zoë", Action::Drop)] {
        let (mut app, _store) = screen(&files, &db, who, QueueKind::All, None).expect("screen");
        goto(&mut app, "uni_1__contradiction");
        app.update(Action::Accept);
        goto(&mut app, "tool_4__missing_tool");
        app.update(second);
        if second == Action::Drop {
            app.update(Action::Confirm);
        }
    }
    let (mut app, _store) = screen(&files, &db, "cy", QueueKind::All, None).expect("screen");
    app.update(Action::Stats);
    let pairs = app.stats.as_ref().expect("stats").pairs.clone();
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    assert_eq!(pairs[0].0, "ana vs zoë");
    let out = super::common::bin()
        .arg("stats")
        .args(&files)
        .arg("--db")
        .arg(&db)
        .arg("--json")
        .output()
        .expect("stats runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    let want = json["team"]["pairs"][0]["scores"]["char_level_labeled"]["f1"]
        .as_f64()
        .expect("pair F1");
    assert!((pairs[0].1 - want).abs() < 1e-12, "{pairs:?} vs {want}");
    assert!(
        want > 0.0 && want < 1.0,
        "one record agreed, one not: {want}"
    );
    let frame = render(&mut app, 160, 40);
    assert!(frame.contains("reviewer pairs: labeled F1"), "{frame}");
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let shown = format!("{}%", (want * 100.0).round() as u64);
    assert!(frame.contains(&shown), "{shown} {frame}");
}
