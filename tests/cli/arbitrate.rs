//! The arbitration screen: the disputed queue (first record before clustering ends), single-key
//! resolutions saved as `resolve` rows naming upheld and dismissed sources, undo of a whole
//! resolution, auto-accept of unanimous records, blind mode, the stats screen; snapshots of the
//! lanes; one end-to-end run in tmux.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use spanreview::formats::Dataset;
use spanreview::review::decision::{ActionKind, Decision, Unit};
use spanreview::review::disagreement::{resolve, Outcome, Resolution};
use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Opening, Status};
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{finish, goto, id, mem, open, open_all, render};
use super::common::{data, fixture};
use super::terminal::{bin, env, shell_quote, Tmux};

fn fixture_files() -> Vec<PathBuf> {
    [
        "records.jsonl",
        "predictions_alpha.jsonl",
        "predictions_beta.jsonl",
    ]
    .iter()
    .map(|f| fixture(&format!("arbitrate/{f}")))
    .collect()
}

fn toolace_files() -> Vec<PathBuf> {
    [
        "toolace/test_records_reconstructed.jsonl",
        "toolace/ensemble/predictions_combined.jsonl",
        "toolace/modernbert_ft/predictions_combined.jsonl",
    ]
    .iter()
    .map(|f| data(f))
    .collect()
}

/// The fixture files in the disputed queue over a memory db, clustered to the end.
fn disputed_fixture(config: ArbConfig) -> (Rc<Store>, App) {
    let store = mem();
    let mut app = open(&fixture_files(), &store, QueueKind::Disputed, config);
    finish(&mut app);
    (store, app)
}

/// What resolving the selected cluster `how` should save.
fn expected(app: &App, how: Resolution) -> Outcome {
    let c = app.cur.as_ref().expect("record");
    let arb = app.arb.as_ref().expect("arbitration state");
    // The screen's sources: a detector's own label (`ensemble`) read as no type.
    resolve(&c.record.output, &arb.sources, &arb.d, arb.cluster, how).expect("resolves")
}

/// Move to an unresolved disputed cluster (this record or a later one).
fn to_disputed(app: &mut App) {
    for _ in 0..500 {
        let arb = app.arb.as_ref().expect("arbitration state");
        let k = arb.cluster;
        if arb.d.clusters.get(k).is_some_and(|c| c.is_disputed()) && !app.is_resolved(k) {
            return;
        }
        let before = id(app);
        app.update(Action::NextRecord);
        assert_ne!(id(app), before, "ran out of disputed records");
    }
    panic!("no unresolved disputed cluster found");
}

/// Press `action` on an unresolved disputed cluster; check the rows it saved against
/// `how`'s outcome. Returns the rows.
fn resolve_with(app: &mut App, store: &Store, action: Action, how: Resolution) -> Vec<Decision> {
    to_disputed(app);
    let want = expected(app, how);
    let cluster = app.arb.as_ref().expect("arb").cluster;
    let n0 = store.decisions(None).expect("log").len();
    app.update(action);
    assert!(
        matches!(&app.status, Status::Saved(m) if m.contains("resolve")),
        "{:?}",
        app.status
    );
    let rows: Vec<Decision> = store.decisions(None).expect("log")[n0..].to_vec();
    assert!(!rows.is_empty());
    let group = rows[0].group.clone();
    assert!(group.is_some());
    for r in &rows {
        assert_eq!(r.action, ActionKind::Resolve);
        assert_eq!(r.upheld, want.upheld, "upheld of {r:?}");
        assert_eq!(r.dismissed, want.dismissed, "dismissed of {r:?}");
        assert_eq!(r.group, group, "one resolution, one group");
        assert!(matches!(r.unit, Some(Unit::Cluster { .. })), "{r:?}");
    }
    let kept: Vec<(usize, usize)> = rows
        .iter()
        .filter_map(|r| r.after.as_ref().map(|a| (a.start, a.end)))
        .collect();
    let want_spans: Vec<(usize, usize)> = want.spans.iter().map(|s| (s.start, s.end)).collect();
    assert_eq!(kept, want_spans, "the result spans are saved");
    assert!(app.is_resolved(cluster) || rows.iter().all(|r| r.record_id != id(app)));
    rows
}

#[test]
fn toolace_disputed_queue_resolved_with_single_keys_then_undone() {
    let store = mem();
    let mut app = open(
        &toolace_files(),
        &store,
        QueueKind::Disputed,
        ArbConfig::default(),
    );
    finish(&mut app);
    assert!(
        app.arbitrating,
        "the disputed queue opens on the arbitration screen"
    );
    assert_eq!(app.mode, ModeState::Arbitrate);
    let arb = app.arb.as_ref().expect("arb");
    let c = app.cur.as_ref().expect("record");
    let names: Vec<&str> = arb
        .lanes
        .iter()
        .map(|&s| c.record.sources[s].name.as_str())
        .collect();
    assert_eq!(names, ["gold", "ensemble", "modernbert_ft"]);
    assert!(
        arb.d.is_disputed(),
        "the first record of the queue is disputed"
    );
    // Most disputed first once clustering is done.
    let members = app.queue.members().to_vec();
    for w in members.windows(2).skip(1) {
        let (a, b) = (&app.scores[&w[0]], &app.scores[&w[1]]);
        assert_ne!(a.queue_cmp(b), std::cmp::Ordering::Greater);
    }

    let gold = resolve_with(&mut app, &store, Action::Take1, Resolution::Take(0));
    assert!(gold[0].upheld.contains(&"gold".to_owned()));
    assert!(!gold[0].reason.as_deref().unwrap_or("").is_empty());

    to_disputed(&mut app);
    let ens = app.arb.as_ref().expect("arb").lanes[1];
    let det = resolve_with(&mut app, &store, Action::Take2, Resolution::Take(ens));
    assert!(det[0].upheld.contains(&"ensemble".to_owned()), "{det:?}");
    assert!(det[0]
        .reason
        .as_deref()
        .is_some_and(|r| r.ends_with("take ensemble")));

    let union = resolve_with(&mut app, &store, Action::Union, Resolution::Union);
    assert_eq!(union.iter().filter(|r| r.after.is_some()).count(), 1);

    let dropped = resolve_with(&mut app, &store, Action::Drop, Resolution::DropAll);
    assert!(
        dropped.iter().all(|r| r.after.is_none()),
        "drop all keeps nothing"
    );
    assert!(dropped[0]
        .reason
        .as_deref()
        .is_some_and(|r| r.ends_with("drop all")));

    // Undo reverts the whole last resolution (every row of it), and only it.
    let n0 = store.decisions(None).expect("log").len();
    let on = dropped[0].record_id.clone();
    app.update(Action::Undo);
    let undo: Vec<Decision> = store.decisions(None).expect("log")[n0..].to_vec();
    assert_eq!(undo.len(), dropped.len(), "{undo:?}");
    let targets: HashSet<i64> = undo.iter().filter_map(|d| d.target).collect();
    let ids: HashSet<i64> = dropped.iter().map(|d| d.id).collect();
    assert_eq!(targets, ids);
    assert!(undo.iter().all(|d| d.action == ActionKind::Undo));
    assert_eq!(id(&app), on);
    let c = app.cur.as_ref().expect("record");
    assert!(
        !c.review.applied.iter().any(|d| ids.contains(&d.id)),
        "the resolution is no longer applied"
    );
    // Redo restores it whole.
    let n1 = store.decisions(None).expect("log").len();
    app.update(Action::Redo);
    let redo = store.decisions(None).expect("log")[n1..].to_vec();
    assert_eq!(redo.len(), dropped.len());

    // The stats screen counts the resolutions in force.
    app.update(Action::Stats);
    assert_eq!(app.mode, ModeState::Stats);
    let st = app.stats.clone().expect("stats");
    let log = store.decisions(None).expect("log");
    let active = spanreview::review::decision::active_ids(&log);
    // One vote per source per resolution (its rows share a group), however many spans it
    // settled.
    let upheld_gold = log
        .iter()
        .filter(|d| d.action == ActionKind::Resolve && active.contains(d.id))
        .filter(|d| d.upheld.iter().any(|n| n == "gold"))
        .map(|d| d.group.clone().unwrap_or_else(|| d.id.to_string()))
        .collect::<HashSet<String>>()
        .len();
    let g = st.sources.iter().find(|s| s.name == "gold").expect("gold");
    assert_eq!(g.upheld, upheld_gold);
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("Stats"), "{screen}");
    assert!(screen.contains("records read this session"), "{screen}");
    app.update(Action::Cancel);
    assert_eq!(app.mode, ModeState::Arbitrate);
}

#[test]
fn edit_settles_the_cluster_with_the_reviewers_own_span() {
    let (store, mut app) = disputed_fixture(ArbConfig::default());
    to_disputed(&mut app);
    app.update(Action::Adjust);
    // The edit starts from lane 1's version of the cluster (the motions branch).
    let ModeState::Settle { bounds: from, .. } = app.mode.clone() else {
        panic!("the edit is open: {:?}", app.mode);
    };
    app.update(Action::EndLeft);
    let screen = render(&mut app, 110, 30);
    assert!(screen.contains("edit: ["), "{screen}");
    assert!(screen.contains("Enter ok"), "adjust hints: {screen}");
    app.update(Action::Confirm);
    assert_eq!(app.mode, ModeState::Arbitrate);
    let log = store.decisions(None).expect("log");
    let last = log.last().expect("a row");
    assert_eq!(last.action, ActionKind::Resolve);
    assert!(last.reason.as_deref().is_some_and(|r| r == "edit"));
    // The reviewer's span is lane 1's version with its end moved one character left.
    let reason = last.reason.as_deref().expect("reason");
    let Some(Unit::Cluster { start: s, end: e }) = last.unit else {
        panic!("a resolution of a cluster: {last:?}");
    };
    let after = last.after.as_ref().expect("the edited span");
    assert_eq!(
        (after.start, after.end),
        (from.start, from.end - 1),
        "{reason}: {after:?}"
    );
    assert!(s <= from.start && from.end <= e, "inside cluster {s}-{e}");
    // Every source is judged once: upheld or dismissed, never both.
    assert!(!last.upheld.is_empty() || !last.dismissed.is_empty());
    assert!(
        last.upheld.iter().all(|u| !last.dismissed.contains(u)),
        "{:?} / {:?}",
        last.upheld,
        last.dismissed
    );
}

#[test]
fn first_disputed_record_shows_before_clustering_finishes() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = std::fs::read_to_string(fixture("arbitrate/records.jsonl")).expect("fixture");
    let alpha =
        std::fs::read_to_string(fixture("arbitrate/predictions_alpha.jsonl")).expect("fixture");
    // 2,000 records: agreeing ones first, the first disputed one at index 7.
    let lines: Vec<&str> = src.lines().collect();
    let alines: Vec<&str> = alpha.lines().collect();
    let (agree, ja, multi) = (1, 0, 2);
    let mut recs = std::fs::File::create(dir.path().join("big.jsonl")).expect("create");
    let mut preds =
        std::fs::File::create(dir.path().join("predictions_alpha.jsonl")).expect("create");
    for i in 0..2000 {
        let k = match i {
            7 => ja,
            i if i % 97 == 50 => multi,
            i if i % 89 == 40 => ja,
            _ => agree,
        };
        let rename = |l: &str| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json");
            v["id"] = serde_json::Value::String(format!("r{i:05}"));
            v.to_string()
        };
        writeln!(recs, "{}", rename(lines[k])).expect("write");
        writeln!(preds, "{}", rename(alines[k])).expect("write");
    }
    drop((recs, preds));
    let files = vec![
        dir.path().join("big.jsonl"),
        dir.path().join("predictions_alpha.jsonl"),
    ];
    let store = mem();
    let mut app = open(
        &files,
        &store,
        QueueKind::Disputed,
        ArbConfig {
            throttle: Some(Duration::from_millis(1)),
            ..ArbConfig::default()
        },
    );
    // Opened before clustering ended (no wall-clock bound: the machine may be busy).
    let cl = app.clustering.as_ref().expect("clustering");
    assert!(
        !cl.finished && cl.done < cl.total,
        "{} / {}",
        cl.done,
        cl.total
    );
    assert_eq!(id(&app), "r00007", "the first disputed record, at once");
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("clustering "), "{screen}");
    assert!(screen.contains(" / 2,000"), "{screen}");

    // While clustering runs the queue is in file order; once done, what follows the record
    // on screen is sorted most disputed first, and the record on screen does not move.
    app.update(Action::NextRecord);
    let second = id(&app);
    finish(&mut app);
    assert_eq!(id(&app), second, "the record under the cursor stays");
    let members = app.queue.members().to_vec();
    assert_eq!(members[app.pos], app.cur.as_ref().expect("r").index);
    assert!(
        members[..app.pos].windows(2).all(|w| w[0] < w[1]),
        "file order before"
    );
    for w in members[app.pos + 1..].windows(2) {
        let (a, b) = (&app.scores[&w[0]], &app.scores[&w[1]]);
        assert_ne!(a.queue_cmp(b), std::cmp::Ordering::Greater);
    }
    // The header no longer shows the progress. (The status line may still say "clustering
    // continues" from the `n` above, when it reached the end of the records found so far:
    // how far clustering got by then depends on the machine's load.)
    let screen = render(&mut app, 120, 30);
    let header = screen
        .lines()
        .find(|l| l.contains(" · queue "))
        .expect("header");
    assert!(!header.contains("clustering "), "{screen}");
}

#[test]
fn unanimous_records_are_auto_accepted_and_undoable() {
    let store = mem();
    let mut app = open(
        &fixture_files(),
        &store,
        QueueKind::All,
        ArbConfig {
            auto_accept: true,
            ..ArbConfig::default()
        },
    );
    finish(&mut app);
    let log = store.decisions(None).expect("log");
    let auto: Vec<&Decision> = log.iter().filter(|d| d.auto).collect();
    let ids: Vec<&str> = auto.iter().map(|d| d.record_id.as_str()).collect();
    assert_eq!(ids, ["agree_2__overgeneration", "clean_4__clean"]);
    assert!(auto.iter().all(|d| d.action == ActionKind::AcceptAll));
    assert!(auto
        .iter()
        .all(|d| d.reason.as_deref() == Some("auto: unanimous")));
    assert_eq!(app.auto_accepted, 2);
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("auto-accepted 2"), "{screen}");
    // The stats screen covers them without reading them again.
    app.update(Action::Stats);
    let st = app.stats.clone().expect("stats");
    assert_eq!((st.reviewed, st.compared), (2, 2), "{st:?}");
    let alpha = st
        .sources
        .iter()
        .find(|s| s.name == "alpha")
        .expect("alpha");
    assert_eq!(alpha.overall.records, 2);
    assert!(
        (alpha.overall.char_level.f1 - 1.0).abs() < 1e-9,
        "{alpha:?}"
    );
    app.update(Action::Cancel);

    // `u` elsewhere does not undo a background auto-accept...
    app.update(Action::Undo);
    assert!(matches!(&app.status, Status::Info(m) if m.contains("nothing to undo")));
    // ...but on the record it does.
    app.update(Action::Goto);
    for ch in "agree_2__overgeneration".chars() {
        app.update(Action::Input(ch));
    }
    app.update(Action::Confirm);
    app.update(Action::Undo);
    let last = store.decisions(None).expect("log");
    let last = last.last().expect("row");
    assert_eq!(last.action, ActionKind::Undo);
    assert_eq!(last.target, Some(auto[0].id));
}

fn snapshot_app(blind: bool) -> (Rc<Store>, App) {
    let (store, mut app) = disputed_fixture(ArbConfig {
        blind,
        ..ArbConfig::default()
    });
    // The record with non-ASCII text before its spans.
    app.update(Action::Goto);
    for ch in "ja_1__contradiction".chars() {
        app.update(Action::Input(ch));
    }
    app.update(Action::Confirm);
    assert_eq!(id(&app), "ja_1__contradiction");
    (store, app)
}

#[test]
fn snapshot_arbitration_screen_lanes() {
    let (_store, mut app) = snapshot_app(false);
    let s = render(&mut app, 110, 30);
    assert!(s.contains("1 gold") || s.contains("1gold"), "{s}");
    assert!(s.contains("━"), "lane 1 marks");
    assert!(s.contains("═"), "lane 2 marks");
    insta::assert_snapshot!("arbitrate_lanes_110x30", s);
}

#[test]
fn blind_mode_stats_screen_shows_no_source_names() {
    let (_store, mut app) = snapshot_app(true);
    app.update(Action::Stats);
    assert!(app.stats.is_some(), "the stats screen opens in blind mode");
    let s = render(&mut app, 110, 30);
    assert!(s.contains("blind review"), "{s}");
    for name in ["gold", "alpha", "beta"] {
        assert!(
            !s.contains(name),
            "{name} shown on the blind stats screen:\n{s}"
        );
    }
}

#[test]
fn snapshot_blind_mode_shows_no_source_names_until_resolved() {
    let (store, mut app) = snapshot_app(true);
    let s = render(&mut app, 110, 30);
    for name in ["gold", "alpha", "beta"] {
        assert!(!s.contains(name), "{name} shown in blind mode:\n{s}");
    }
    assert!(s.contains("A") && s.contains("B") && s.contains("C"));
    insta::assert_snapshot!("arbitrate_blind_110x30", s);
    // Same letters after a restart (seeded by the record id).
    let lanes = app.arb.as_ref().expect("arb").lanes.clone();
    let (_s2, again) = snapshot_app(true);
    assert_eq!(again.arb.as_ref().expect("arb").lanes, lanes);
    // Once every cluster of the record is resolved, names are shown.
    while app
        .arb
        .as_ref()
        .is_some_and(|a| a.d.disputed().any(|(i, _)| !app.is_resolved(i)))
    {
        app.update(Action::Take1);
        assert!(matches!(app.status, Status::Saved(_)), "{:?}", app.status);
        if !app.names_visible() {
            let s = render(&mut app, 110, 30);
            for name in ["gold", "alpha", "beta"] {
                assert!(
                    !s.contains(name),
                    "{name} shown before the record is done:\n{s}"
                );
            }
        }
    }
    assert!(app.names_visible());
    let s = render(&mut app, 110, 30);
    assert!(s.contains("gold"), "{s}");
    let log = store.decisions(None).expect("log");
    assert!(log.iter().all(|d| d.action == ActionKind::Resolve));
}

#[test]
fn arbitration_keys_are_in_help_and_hints() {
    let store = mem();
    let mut app = open(
        &fixture_files(),
        &store,
        QueueKind::Disputed,
        ArbConfig::default(),
    );
    // The arbitration screen's hints once clustering has found the record's clusters (a busy
    // machine may not have found them within the opening's wait).
    finish(&mut app);
    let s = render(&mut app, 160, 30);
    assert!(s.contains("1 take 1"), "{s}");
    assert!(s.contains("U union"), "{s}");
    app.update(Action::Help);
    let h = render(&mut app, 100, 160);
    for want in [
        "Arbitration (d)",
        "take source 1's version",
        "union: one span",
        "intersection",
        "drop all",
        "place the selected unplaced judge claim",
        "Stats (S)",
    ] {
        assert!(h.contains(want), "help lacks {want:?}:\n{h}");
    }
}

fn e2e_cmd(db: &Path) -> String {
    let files: Vec<String> = toolace_files().iter().map(|p| shell_quote(p)).collect();
    format!(
        "sh -c \"{} review {} --db {} --reviewer e2e --queue disputed; echo exit=\\$?; sleep 600\"",
        bin(),
        files.join(" "),
        shell_quote(db),
    )
}

#[test]
fn e2e_resolve_a_cluster_with_a_real_key_press() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("arb.sqlite");
    let Some(t) = Tmux::start("arbitrate", &e2e_cmd(&db), &env(dir.path())) else {
        return;
    };
    t.wait("one lane per source");
    t.wait("disputed");
    t.press(&["2"], "saved #");
    t.press(&["q"], "exit=0");
    let store = Store::open(&db).expect("db");
    let log = store.decisions(None).expect("log");
    assert!(!log.is_empty());
    assert!(
        log.iter().all(|d| d.action == ActionKind::Resolve),
        "{log:?}"
    );
    assert!(
        log[0].upheld.iter().any(|n| n == "ensemble")
            || log[0].dismissed.iter().any(|n| n == "ensemble")
    );
    assert!(log[0]
        .reason
        .as_deref()
        .is_some_and(|r| r.ends_with("take ensemble")));
    let text = std::fs::read_to_string(dir.path().join("review.log")).expect("log file");
    assert!(text.contains("decision saved"), "{text}");
    assert!(
        text.contains("action=\"resolve\"") || text.contains("action=resolve"),
        "{text}"
    );
}

/// The fixture's LLM judge decisions file, given as `--judge llm=…`, loaded for `ds`.
fn llm_judges(ds: &Dataset) -> spanreview::formats::judges::Judges {
    use spanreview::cli::judge_args::JudgeArgs;
    let args = JudgeArgs {
        judges: vec![
            format!("llm={}", fixture("judges/decisions.jsonl").display())
                .parse()
                .expect("spec"),
        ],
        ..JudgeArgs::default()
    };
    let (judges, _) = args.load(ds, &ds.name, None).expect("judges load");
    judges
}

fn judged_app(store: &Rc<Store>, blind: bool) -> App {
    let files = toolace_files();
    let ds = Dataset::open(&files, None).expect("files open");
    let judges = llm_judges(&ds);
    App::open(
        ds,
        Box::new(Rc::clone(store)),
        "tester",
        Opening {
            arb: ArbConfig {
                judges: Some(std::sync::Arc::new(judges)),
                blind,
                ..ArbConfig::default()
            },
            ..Opening::new(QueueKind::Disputed, Config::defaults(true))
        },
    )
    .expect("app")
}

/// [`judged_app`] with its clustering finished, on record `id`.
fn judged_app_at(store: &Rc<Store>, blind: bool, id: &str) -> App {
    let mut app = judged_app(store, blind);
    finish(&mut app);
    goto(&mut app, id);
    app
}

#[test]
fn judges_reasoning_is_shown_and_unplaced_claims_are_dismissed_or_placed() {
    let store = mem();
    let mut app = judged_app_at(&store, false, "toolace_train_00039__contradiction");
    assert_eq!(app.mode, ModeState::Arbitrate);
    // Walk the clusters: the judge's verdict on the gold span and its claim each show.
    let mut seen = String::new();
    app.update(Action::PrevSpan);
    app.update(Action::PrevSpan);
    app.update(Action::PrevSpan);
    for _ in 0..app.arb.as_ref().expect("arb").d.clusters.len() {
        seen.push_str(&render(&mut app, 140, 40));
        app.update(Action::NextSpan);
    }
    assert!(seen.contains("⚖ llm"), "{seen}");
    assert!(seen.contains("label WRONG"), "{seen}");
    assert!(seen.contains("claims a missed hallucination"), "{seen}");
    assert!(seen.contains("45000 is not the attendance"), "{seen}");
    assert!(seen.contains(" J1 "), "a lane for the judge: {seen}");

    goto(&mut app, "toolace_train_00058__missing_tool");
    let arb = app.arb.as_ref().expect("arb");
    assert_eq!(arb.d.unplaced.len(), 1, "{:?}", arb.d.unplaced);
    let s = render(&mut app, 140, 40);
    assert!(s.contains("unplaced claims (1)"), "{s}");

    app.update(Action::DismissClaim);
    let log = store.decisions(None).expect("log");
    let d = log.last().expect("row");
    assert_eq!(d.action, ActionKind::Resolve);
    assert_eq!(d.dismissed, ["llm"]);
    assert!(d
        .reason
        .as_deref()
        .is_some_and(|r| r.ends_with("dismissed")));
    assert!(app.claim_settled(0));
    app.update(Action::Undo);
    assert!(!app.claim_settled(0));

    // Place it by hand: mark a start and an end as in add mode, pick the label.
    app.update(Action::PlaceClaim);
    assert!(matches!(app.mode, ModeState::Add { .. }), "{:?}", app.mode);
    let s = render(&mut app, 140, 40);
    assert!(s.contains("Add"), "the review screen's add mode: {s}");
    app.update(Action::Mark);
    for _ in 0..4 {
        app.update(Action::CursorRight);
    }
    app.update(Action::Mark);
    app.update(Action::Confirm);
    let log = store.decisions(None).expect("log");
    let d = log.last().expect("row");
    assert_eq!(d.action, ActionKind::Resolve, "{d:?}");
    assert_eq!(d.upheld, ["llm"]);
    assert!(d
        .span_key
        .as_deref()
        .is_some_and(|k| k.starts_with("added:")));
    assert_eq!(d.after.as_ref().map(|a| a.end - a.start), Some(5));
    assert!(app.claim_settled(0));
    assert_eq!(app.mode, ModeState::Arbitrate);
    // The status names the judge upheld (the claim's, not whatever is at its index after saving).
    let s = render(&mut app, 140, 40);
    assert!(s.contains("upheld llm · dismissed none"), "{s}");
}

/// Blind, a judge is `judge N` wherever the screen names it (its lane is `JN`, its marks on a
/// cluster `judge N`): its unplaced claim in the panel, not a bare "judge", and the status line
/// once the claim is dismissed, not the judge's name while other clusters are still open.
#[test]
fn blind_mode_names_an_unplaced_claims_judge_as_its_lane() {
    let store = mem();
    let mut app = judged_app_at(&store, true, "toolace_train_00058__missing_tool");
    let s = render(&mut app, 140, 40);
    assert!(s.contains("unplaced claims (1)"), "{s}");
    assert!(
        s.contains("› judge 1: «"),
        "the claim's judge as judge 1: {s}"
    );
    assert!(!s.contains("llm"), "the judge's name while blind: {s}");
    app.update(Action::DismissClaim);
    assert!(
        !app.names_visible(),
        "clusters still open: names stay hidden"
    );
    let s = render(&mut app, 140, 40);
    assert!(s.contains("dismissed judge 1"), "{s}");
    assert!(!s.contains("llm"), "the judge's name while blind: {s}");
}

#[test]
fn d_opens_the_arbitration_screen_from_review_and_leaves_it() {
    let store = mem();
    let mut app = open_all(&fixture_files(), &store);
    assert!(!app.arbitrating);
    assert_eq!(app.mode, ModeState::Normal);
    app.update(Action::Arbitrate);
    assert!(app.arbitrating);
    assert_eq!(app.mode, ModeState::Arbitrate);
    assert!(render(&mut app, 100, 30).contains("one lane per source"));
    // It follows the reviewer to the next record.
    app.update(Action::NextRecord);
    assert_eq!(app.mode, ModeState::Arbitrate);
    assert_eq!(id(&app), "agree_2__overgeneration");
    // Help and back.
    app.update(Action::Help);
    app.update(Action::Cancel);
    assert_eq!(app.mode, ModeState::Arbitrate);
    app.update(Action::Cancel);
    assert_eq!(app.mode, ModeState::Normal);
    assert!(!app.arbitrating);
    assert!(!render(&mut app, 100, 30).contains("one lane per source"));
}

#[test]
fn snapshot_stats_screen_with_bar_chart() {
    let (_store, mut app) = disputed_fixture(ArbConfig::default());
    // Resolve every cluster of the first record, accept the rest, so it counts as reviewed.
    while app
        .arb
        .as_ref()
        .is_some_and(|a| a.d.disputed().any(|(i, _)| !app.is_resolved(i)))
    {
        app.update(Action::Take1);
    }
    app.update(Action::AcceptAll);
    app.update(Action::Stats);
    let st = app.stats.clone().expect("stats");
    assert_eq!(st.reviewed, 1);
    assert_eq!(st.compared, 1);
    let gold = st.sources.iter().find(|s| s.name == "gold").expect("gold");
    assert!(
        (gold.overall.char_level.f1 - 1.0).abs() < 1e-9,
        "taking the gold everywhere: {gold:?}"
    );
    assert!(gold.upheld >= 1 && gold.dismissed == 0, "{gold:?}");
    let s = render(&mut app, 100, 30);
    assert!(s.contains("char F1 vs the reviewed result"), "{s}");
    assert!(s.contains("100%"), "{s}");
    // Outcomes by label as bars (the report's by-type counts over the records read), and the
    // upheld rate per source.
    let labels = &st.labels["overgeneration"];
    assert_eq!((labels.before, labels.after, labels.dropped), (2, 2, 0));
    assert!(s.contains("labels before/after/drop/add"), "{s}");
    assert!(s.contains("│overgeneration"), "{s}");
    assert!(s.contains("█2███2██"), "{s}");
    assert!(s.contains("upheld rate (clusters)"), "{s}");
    assert!(s.contains("█50%██ █50%██ █100%█"), "{s}");
    insta::assert_snapshot!("arbitrate_stats_100x30", s);
}

#[test]
fn resolving_a_cluster_again_replaces_the_earlier_result() {
    let (store, mut app) = snapshot_app(false);
    // Cluster 2 of ja_1: "25°C", which only beta marks (no gold span there).
    app.update(Action::NextSpan);
    let k = app.arb.as_ref().expect("arb").cluster;
    let cl = app.arb.as_ref().expect("arb").d.clusters[k].clone();
    assert_eq!(cl.end - cl.start, 4, "{cl:?}");
    app.update(Action::Union);
    let added = store.decisions(None).expect("log");
    let added = added.last().expect("row").clone();
    assert!(added
        .span_key
        .as_deref()
        .is_some_and(|s| s.starts_with("added:")));
    let kept = |app: &App| {
        let c = app.cur.as_ref().expect("record");
        c.review.kept_spans(&c.record.output).len()
    };
    assert_eq!(kept(&app), 2);
    // Back to it, change of mind: drop all.
    while app.arb.as_ref().expect("arb").cluster != k {
        app.update(Action::NextSpan);
    }
    app.update(Action::Drop);
    let log = store.decisions(None).expect("log");
    let last = log.last().expect("row");
    assert_eq!(
        last.span_key, added.span_key,
        "the earlier added span is dropped"
    );
    assert!(last.after.is_none());
    assert_eq!(kept(&app), 1, "only the gold span is left");
    assert_eq!(app.resolution_of(k).as_deref(), Some("drop all"));
}

#[test]
fn review_help_lists_the_arbitration_flags() {
    let out = super::common::bin()
        .args(["review", "--help"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--queue",
        "disputed",
        "--auto-accept-unanimous",
        "--blind",
        "--judge",
        "--tolerance",
        "--ignore-edge-punct",
    ] {
        assert!(text.contains(flag), "{flag} missing:\n{text}");
    }
}

#[test]
fn ignore_edge_punct_and_tolerance_settle_boundary_nits() {
    // ja_1: gold "rainy", alpha "rainy and", beta " rainy" (a leading space) and "25°C".
    let count = |arb: ArbConfig| {
        let store = mem();
        let mut app = open(&fixture_files(), &store, QueueKind::Disputed, arb);
        finish(&mut app);
        goto(&mut app, "ja_1__contradiction");
        let a = app.arb.as_ref().expect("arb");
        let c = &a.d.clusters[0];
        c.pairs
            .iter()
            .filter(|p| !p.coverage_agrees)
            .map(|p| (p.a, p.b))
            .collect::<Vec<_>>()
    };
    let strict = count(ArbConfig::default());
    let punct = count(ArbConfig {
        options: spanreview::review::disagreement::Options {
            ignore_edge_punct: true,
            ..Default::default()
        },
        ..ArbConfig::default()
    });
    assert!(punct.len() < strict.len(), "{strict:?} vs {punct:?}");
    let wide = count(ArbConfig {
        options: spanreview::review::disagreement::Options {
            tolerance: 4,
            ..Default::default()
        },
        ..ArbConfig::default()
    });
    assert!(wide.is_empty(), "{wide:?}");
}

#[test]
fn taking_an_unlabeled_detectors_span_asks_for_its_label() {
    // The ensemble labels every span `ensemble` (no hallucination type): its span over
    // [0, 48) of this record, where the gold has none, must not be saved without a label
    // (the export would refuse it) nor given the record's type unasked: the label picker
    // asks, the record's type (a span label in toolace) suggested.
    let store = mem();
    let mut app = open_all(&toolace_files(), &store);
    finish(&mut app);
    app.update(Action::Goto);
    for ch in "toolace_train_00021__missing_tool".chars() {
        app.update(Action::Input(ch));
    }
    app.update(Action::Confirm);
    assert_eq!(id(&app), "toolace_train_00021__missing_tool");
    app.update(Action::Arbitrate);
    let arb = app.arb.as_ref().expect("arbitration state");
    let cl = &arb.d.clusters[arb.cluster];
    assert_eq!(
        (cl.start, cl.end),
        (0, 48),
        "the ensemble-only cluster is selected"
    );
    app.update(Action::Take2);
    let ModeState::Picker { items, sel, .. } = app.mode.clone() else {
        panic!("the label picker asks: {:?}", app.mode);
    };
    assert_eq!(items[sel], "missing_tool", "the record's type suggested");
    assert!(store.decisions(None).expect("log").is_empty());
    app.update(Action::Confirm);
    let log = store.decisions(None).expect("log");
    let added: Vec<_> = log.iter().filter_map(|d| d.after.as_ref()).collect();
    assert_eq!(added.len(), 1, "{log:?}");
    assert_eq!((added[0].start, added[0].end), (0, 48));
    assert_eq!(added[0].label, "missing_tool", "{log:?}");
    assert_eq!(log[0].upheld, ["ensemble"]);
    assert_eq!(app.mode, ModeState::Arbitrate);
}

/// Every record of `files` clustered by [`cluster_all`] read as `reading`.
fn cluster_with(
    files: &[PathBuf],
    config: &ArbConfig,
    reading: spanreview::tui::clustering::Reading,
) -> Vec<Option<spanreview::tui::clustering::Scored>> {
    let ds = Dataset::open(files, None).expect("files open");
    let mut out = Vec::new();
    spanreview::tui::clustering::cluster_all(
        &ds,
        config,
        reading,
        &std::sync::atomic::AtomicBool::new(false),
        |s| {
            out.push(s);
            true
        },
    );
    out
}

/// The disputed queue once clustering has finished: disputed records in arrival order, sorted
/// most disputed first (stable), as `finish_clustering_if_done` sorts it.
fn disputed_queue(scored: &[spanreview::tui::clustering::Scored]) -> Vec<usize> {
    let mut q: Vec<&spanreview::tui::clustering::Scored> =
        scored.iter().filter(|s| s.score.is_disputed()).collect();
    q.sort_by(|a, b| a.score.queue_cmp(&b.score));
    q.iter().map(|s| s.index).collect()
}

/// The fast background path (records skimmed by `SpanReader` on two threads, read in full only
/// for auto-accept candidates) gives the scores, order and disputed queue of the full path
/// (`ArbConfig::read` on every record) on the real sample, under every rule set, with a
/// `--judge` decisions file attached; the app's `Clustering` delivers the same; a dataset with
/// a joined decisions file falls back to the full read.
#[test]
fn fast_background_clustering_matches_the_full_read() {
    use spanreview::formats::judges::skimmable;
    use spanreview::review::disagreement::Options;
    use spanreview::tui::clustering::{Clustering, Reading, Scored};
    use std::sync::Arc;
    let files = toolace_files();
    let ds = Dataset::open(&files, None).expect("files open");
    assert!(skimmable(&ds), "toolace records + predictions are skimmed");
    let judges = Arc::new(llm_judges(&ds).for_arbitration());
    let configs = [
        ArbConfig::default(),
        ArbConfig {
            auto_accept: true,
            ..ArbConfig::default()
        },
        ArbConfig {
            options: Options {
                tolerance: 3,
                ignore_edge_punct: true,
                compare_labels: false,
            },
            auto_accept: true,
            ..ArbConfig::default()
        },
        ArbConfig {
            judges: Some(Arc::clone(&judges)),
            ..ArbConfig::default()
        },
        ArbConfig {
            judges: Some(Arc::clone(&judges)),
            auto_accept: true,
            ..ArbConfig::default()
        },
    ];
    for (k, config) in configs.iter().enumerate() {
        let full = cluster_with(&files, config, Reading::Full);
        let fast = cluster_with(&files, config, Reading::Fast { threads: 2 });
        assert_eq!(full.len(), 175, "config {k}");
        assert_eq!(fast.len(), full.len(), "config {k}");
        let mut skimmed = 0;
        for (i, (a, b)) in full.iter().zip(&fast).enumerate() {
            let (a, b) = (a.as_ref().expect("readable"), b.as_ref().expect("readable"));
            assert_eq!(b.index, i, "config {k}: file order");
            assert_eq!((&b.id, b.score), (&a.id, a.score), "config {k}: record {i}");
            assert_eq!(b.agreements, a.agreements, "config {k}: record {i}");
            assert_eq!(b.unanimous, a.unanimous, "config {k}: record {i}");
            assert!(a.hash.is_some(), "the full path reads every record in full");
            match &b.hash {
                Some(h) => assert_eq!(Some(h), a.hash.as_ref(), "config {k}: record {i}"),
                None => {
                    skimmed += 1;
                    assert!(
                        !b.unanimous,
                        "config {k}: an auto-accept candidate is read in full"
                    );
                }
            }
        }
        assert!(skimmed > 50, "config {k}: the fast path skims ({skimmed})");
        let full: Vec<Scored> = full.into_iter().flatten().collect();
        let fast: Vec<Scored> = fast.into_iter().flatten().collect();
        let queue = disputed_queue(&full);
        assert!(!queue.is_empty(), "config {k}");
        assert_eq!(disputed_queue(&fast), queue, "config {k}");
        let unanimous = full.iter().filter(|s| s.score.is_unanimous()).count();
        assert!(unanimous > 0, "config {k}: some records to auto-accept");

        // What the app receives: the same, in the same order.
        let mut cl =
            Clustering::start(Arc::new(Dataset::open(&files, None).expect("open")), config);
        let mut got = Vec::new();
        let t0 = Instant::now();
        while !cl.finished {
            got.extend(cl.wait(Duration::from_millis(50)));
            assert!(t0.elapsed() < Duration::from_secs(60), "clustering hangs");
        }
        assert_eq!((cl.done, cl.total), (175, 175));
        assert_eq!(
            got.iter().map(|s| (s.index, s.score)).collect::<Vec<_>>(),
            full.iter().map(|s| (s.index, s.score)).collect::<Vec<_>>(),
            "config {k}"
        );
    }

    // A decisions file joined to the records: several lines per id, not skimmed; the fast
    // reading falls back to the full one.
    let mut joined = files.clone();
    joined.push(fixture("judges/decisions.jsonl"));
    let ds = Dataset::open(&joined, None).expect("files open");
    assert!(!skimmable(&ds));
    let full = cluster_with(&joined, &ArbConfig::default(), Reading::Full);
    let fast = cluster_with(&joined, &ArbConfig::default(), Reading::Fast { threads: 2 });
    assert_eq!(fast, full);
    assert!(
        fast.iter().flatten().all(|s| s.hash.is_some()),
        "read in full"
    );
}

#[test]
fn the_message_about_a_resolved_record_does_not_follow_to_the_next() {
    // "all clusters resolved: A accepts the rest" said on the record resolved stayed on the
    // status line of the next record, whose clusters are open.
    let (store, mut app) = disputed_fixture(ArbConfig::default());
    loop {
        let rows = resolve_with(&mut app, &store, Action::Union, Resolution::Union);
        assert!(!rows.is_empty());
        if matches!(&app.status, Status::Saved(m) if m.contains("all clusters resolved")) {
            break;
        }
    }
    let resolved = id(&app);
    app.update(Action::NextRecord);
    assert_ne!(id(&app), resolved, "a next disputed record");
    let arb = app.arb.as_ref().expect("arbitration state");
    assert!(!app.is_resolved(arb.cluster), "the next record is open");
    assert!(
        !matches!(&app.status, Status::Saved(m) | Status::Info(m) if m.contains("resolved")),
        "{:?}",
        app.status
    );
    assert!(!render(&mut app, 120, 30).contains("all clusters resolved"));
}

#[test]
fn a_resolution_that_keeps_a_span_reopens_a_record_reclassified_clean() {
    // A resolution with a result settles the record (replay reopens it): the arbitration
    // screen saves it, unlike the review screen's own span decisions on a clean record.
    let (store, mut app) = disputed_fixture(ArbConfig::default());
    to_disputed(&mut app);
    app.update(Action::Clean);
    let n = store.decisions(None).expect("log").len();
    app.update(Action::Union);
    assert!(matches!(&app.status, Status::Saved(_)), "{:?}", app.status);
    assert!(store.decisions(None).expect("log").len() > n);
    let c = app.cur.as_ref().expect("record");
    assert_eq!(
        c.review.outcome,
        spanreview::review::decision::RecordOutcome::Open
    );
}

#[test]
fn the_edit_line_keeps_the_end_of_a_long_span_in_sight() {
    // Editing a 511-character cluster: the edit line quoted its first 60 columns only, so
    // moving the end changed nothing in it.
    let store = mem();
    let mut app = open_all(&toolace_files(), &store);
    goto(&mut app, "toolace_train_00258__clean__recovered");
    app.update(Action::Arbitrate);
    let cl = app.arb.as_ref().expect("arbitration state").cluster;
    let span = app.arb.as_ref().expect("arb").d.clusters[cl].clone();
    assert_eq!((span.start, span.end), (0, 511));
    feed_all(
        &mut app,
        &[
            Action::Adjust,
            Action::EndLeft,
            Action::EndLeft,
            Action::EndLeft,
        ],
    );
    let screen = render(&mut app, 160, 45);
    let line = screen
        .lines()
        .find(|l| l.contains("edit: [0, 508)"))
        .unwrap_or_else(|| panic!("the edit line:\n{screen}"));
    assert!(line.contains("«The asset owner"), "{line}");
    assert!(line.contains("the collection:»"), "{line}");
}

fn feed_all(app: &mut App, actions: &[Action]) {
    for a in actions {
        app.update(*a);
    }
}

#[test]
fn sources_past_nine_are_taken_from_a_list() {
    // A Mu-SHROOM record has the gold and eleven annotators: `1`…`9` reached the first nine
    // lanes, and the versions of lanes 10 to 12 could not be taken.
    let Some(path) =
        super::common::shared("multilingual/mushroom/val_v2/mushroom.en-val.v2.extra.jsonl")
    else {
        return;
    };
    let store = mem();
    let mut app = open(&[path], &store, QueueKind::Disputed, ArbConfig::default());
    finish(&mut app);
    to_disputed(&mut app);
    while app.arb.as_ref().expect("arb").lanes.len() < 10 {
        app.update(Action::NextRecord);
        to_disputed(&mut app);
    }
    let (source, name) = {
        let arb = app.arb.as_ref().expect("arb");
        let s = arb.lanes[9];
        (
            s,
            app.cur.as_ref().expect("r").record.sources[s].name.clone(),
        )
    };
    let want = expected(&app, Resolution::Take(source));
    app.update(Action::TakeOther);
    match &app.mode {
        ModeState::Picker { items, .. } => {
            assert!(items.len() >= 10, "{items:?}");
            assert_eq!(items[9], name);
        }
        other => panic!("expected the sources picker, got {other:?}"),
    }
    assert!(render(&mut app, 160, 45).contains(&format!("10 {name}")));
    for _ in 0..9 {
        app.update(Action::Down);
    }
    app.update(Action::Confirm);
    assert_eq!(app.mode, ModeState::Arbitrate);
    let last = store
        .decisions(None)
        .expect("log")
        .last()
        .cloned()
        .expect("a row");
    assert_eq!(last.action, ActionKind::Resolve);
    assert_eq!(last.upheld, want.upheld, "{:?}", last.reason);
    assert!(last.upheld.contains(&name), "{:?}", last.upheld);
}

#[test]
fn adjust_and_the_arbitration_edit_share_one_boundary_editor() {
    let (store, mut app) = disputed_fixture(ArbConfig::default());
    to_disputed(&mut app);
    app.update(Action::Adjust);
    let ModeState::Settle { bounds: from, .. } = app.mode.clone() else {
        panic!("the edit is open: {:?}", app.mode);
    };
    let keys = [
        Action::StartWordRight,
        Action::EndLeft,
        Action::EndWordLeft,
        Action::StartLeft,
        Action::EndRight,
    ];
    let saved = store.decisions(None).expect("log").len();
    let moved = |app: &mut App| {
        for k in keys {
            app.update(k);
        }
        match &app.mode {
            ModeState::Adjust { bounds, before, .. } | ModeState::Settle { bounds, before, .. } => {
                (*bounds, *before)
            }
            other => panic!("not editing: {other:?}"),
        }
    };
    let settled = moved(&mut app);
    assert_ne!(settled.0, from, "the keys move something");
    app.update(Action::Cancel);
    assert_eq!(app.mode, ModeState::Arbitrate, "Esc returns to arbitration");
    // The same keys from the same boundaries in adjust mode land on the same boundaries, and
    // Esc leaves the edit (back to review, which shows arbitration while it is open); neither
    // saves anything.
    app.mode = ModeState::Adjust {
        key: "gold:0".parse().expect("key"),
        bounds: from,
        before: from,
    };
    assert_eq!(moved(&mut app), settled);
    app.update(Action::Cancel);
    assert!(
        !matches!(app.mode, ModeState::Adjust { .. }),
        "Esc leaves adjust: {:?}",
        app.mode
    );
    assert_eq!(store.decisions(None).expect("log").len(), saved);
}

/// The stats screen's boundary chart counts a corrected boundary as the report does: by code
/// points moved at each end, and shows only once a boundary was corrected.
#[test]
fn the_stats_screen_charts_how_far_corrected_boundaries_moved() {
    let store = super::app_harness::mem();
    let mut app = super::app_harness::review_app(&store);
    app.update(Action::Stats);
    assert!(!render(&mut app, 140, 40).contains("boundaries moved start/end"));
    app.update(Action::Cancel);
    // "rainy" [29, 34): the start two code points right, the end one left.
    for a in [
        Action::Adjust,
        Action::StartRight,
        Action::StartRight,
        Action::EndLeft,
        Action::Confirm,
    ] {
        app.update(a);
    }
    app.update(Action::AcceptAll);
    app.update(Action::Stats);
    let st = app.stats.clone().expect("stats");
    assert_eq!(st.moved.0, std::collections::BTreeMap::from([(2, 1)]));
    assert_eq!(st.moved.1, std::collections::BTreeMap::from([(1, 1)]));
    let s = render(&mut app, 140, 40);
    assert!(s.contains("boundaries moved start/end"), "{s}");
    // Bucket "1" holds the end's bar, bucket "2" the start's.
    assert!(s.contains("│0    1    2    3–5"), "{s}");
    assert!(s.contains("│       1█ 1█ "), "{s}");
}
