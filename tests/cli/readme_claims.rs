//! The README's and `--help`'s claims, run as a new user runs them: each test takes one claim
//! that a walk through the README found wrong or untested, and checks it on the command or the
//! flow the README shows.

use std::rc::Rc;

use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Status};
use spanreview::tui::edit::Bounds;
use spanreview::tui::Action;

use super::app_harness::{goto, mem, open_all};
use super::common::{bin, data};

// ----- review, arbitration keys: "`t` ... (`Tab`/`Shift-Tab`: the next / previous lane's)" -----

/// The bundled sample, its three sources, on the arbitration screen at `record`.
fn arbitrating(store: &Rc<Store>, record: &str) -> App {
    let files = [
        data("toolace/test_records_reconstructed.jsonl"),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let mut app = open_all(&files, store);
    goto(&mut app, record);
    app.update(Action::Arbitrate);
    assert_eq!(app.mode, ModeState::Arbitrate);
    app
}

/// The arbitration edit's boundaries and the lane its status line says it started from.
fn editing(app: &App) -> (Bounds, String) {
    let ModeState::Settle { bounds, .. } = &app.mode else {
        panic!("not in the arbitration edit: {:?}", app.mode);
    };
    let Status::Info(s) = &app.status else {
        panic!("no status: {:?}", app.status);
    };
    let lane = s
        .split("lane ")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap_or_else(|| panic!("no lane in {s:?}"));
    (*bounds, lane.to_owned())
}

fn b(start: usize, end: usize) -> Bounds {
    Bounds { start, end }
}

#[test]
fn tab_in_the_arbitration_edit_walks_every_lane_when_two_share_a_version() {
    // toolace_train_00021__overgeneration's second cluster: gold and the ensemble both mark
    // [184, 255), ModernBERT [183, 255). Lanes with equal versions are still two lanes: Tab
    // goes 1 → 2 → 3 → 1, Shift-Tab back.
    let store = mem();
    let mut app = arbitrating(&store, "toolace_train_00021__overgeneration");
    app.update(Action::NextSpan);
    app.update(Action::Adjust);
    assert_eq!(editing(&app), (b(184, 255), "1".into()));
    let mut walk = Vec::new();
    for a in [
        Action::NextVersion,
        Action::NextVersion,
        Action::NextVersion,
        Action::PrevVersion,
        Action::PrevVersion,
    ] {
        app.update(a);
        walk.push(editing(&app));
    }
    assert_eq!(
        walk,
        [
            (b(184, 255), "2".into()),
            (b(183, 255), "3".into()),
            (b(184, 255), "1".into()),
            (b(183, 255), "3".into()),
            (b(184, 255), "2".into()),
        ]
    );
    // Tab to ModernBERT's version, Enter: its version is the one saved.
    app.update(Action::NextVersion);
    assert_eq!(editing(&app).1, "3");
    app.update(Action::Confirm);
    let log = store.decisions(None).expect("log");
    let after = log.last().and_then(|d| d.after.clone()).expect("saved");
    assert_eq!((after.start, after.end), (183, 255));
}

#[test]
fn tab_in_the_arbitration_edit_wraps_over_two_equal_versions() {
    // The first cluster: gold and the ensemble both [0, 48), ModernBERT nothing (no version).
    let store = mem();
    let mut app = arbitrating(&store, "toolace_train_00021__overgeneration");
    app.update(Action::Adjust);
    assert_eq!(editing(&app), (b(0, 48), "1".into()));
    app.update(Action::NextVersion);
    assert_eq!(editing(&app), (b(0, 48), "2".into()));
    app.update(Action::NextVersion);
    assert_eq!(editing(&app), (b(0, 48), "1".into()), "wraps to lane 1");
    app.update(Action::PrevVersion);
    assert_eq!(editing(&app), (b(0, 48), "2".into()), "back to lane 2");
}

// ----- `--help`: "every `--help` names the environment variables the subcommand reads ... and
// its exit status"; the examples each subcommand's help shows -----

fn help(sub: &str) -> String {
    let out = bin()
        .args([sub, "--help"])
        .env_remove("SPANREVIEW_DB")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{sub}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_subcommand_that_reads_files_names_the_input_environment_and_its_exit_status() {
    // `apply` and `convert` read their FILEs as the others do (the index cache, `-` copied
    // into TMPDIR): their help says so too.
    for sub in [
        "review", "validate", "compare", "export", "stats", "assign", "apply", "convert",
    ] {
        let text = help(sub);
        for env in ["SPANREVIEW_CACHE_DIR", "SPANREVIEW_INDEX_CACHE", "TMPDIR"] {
            assert!(
                text.contains(env),
                "{sub} --help does not name {env}:\n{text}"
            );
        }
        assert!(text.contains("Exit status:\n  0  "), "{sub}:\n{text}");
    }
}

#[test]
fn every_subcommand_help_shows_its_examples() {
    // Examples written on a subcommand's arguments were hidden by the ones its entry in the
    // command list gives (clap takes the latter): each help shows one `Examples:` block.
    for sub in [
        "review",
        "validate",
        "compare",
        "decisions",
        "export",
        "stats",
        "assign",
        "apply",
        "merge-db",
        "convert",
        "completions",
        "man",
    ] {
        let text = help(sub);
        let examples: Vec<&str> = text
            .split("Examples:\n")
            .skip(1)
            .map(|rest| rest.split("\n\n").next().unwrap_or_default())
            .collect();
        assert_eq!(examples.len(), 1, "{sub}:\n{text}");
        assert!(
            examples[0]
                .lines()
                .all(|l| l.starts_with(&format!("  spanreview {sub}"))
                    || l.starts_with("  spanreview decisions --json")
                    || l.starts_with("  zcat ")),
            "{sub}: every example runs {sub}:\n{}",
            examples[0]
        );
    }
}

// ----- validate: "A file with no record is a problem (`empty`)" -----

#[test]
fn an_empty_file_is_an_empty_problem_with_format_and_a_usage_error_without() {
    let dir = tempfile::tempdir().expect("tmp");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").expect("write");
    let out = bin().arg("validate").arg(&empty).output().expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot tell the format (the file holds no record); pass --format"),
        "{err}"
    );
    let out = bin()
        .args(["validate", "--json", "--format", "ragtruth"])
        .arg(&empty)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(r#""kind":"empty""#),
        "{out:?}"
    );
    // What `validate --help` says about it.
    assert!(help("validate").contains("a file with no record (`empty`, with --format"));
}

// ----- export: "a kept span that does not slice its answer ... exit 1 ... leave no output" -----

#[test]
fn export_exits_1_on_a_kept_span_that_does_not_slice_and_its_help_says_so() {
    let dir = tempfile::tempdir().expect("tmp");
    let first = std::fs::read_to_string(data("toolace/test_records_reconstructed.jsonl"))
        .expect("sample")
        .lines()
        .next()
        .map(str::to_owned)
        .expect("a line");
    let mut rec: serde_json::Value = serde_json::from_str(&first).expect("json");
    rec["hallucination_labels"]
        .as_array_mut()
        .expect("labels")
        .push(serde_json::json!({"start": 30, "end": 20, "text": "", "label": "overgeneration"}));
    let records = super::common::write(dir.path(), "records.jsonl", &[rec]);
    let decisions = super::common::write(
        dir.path(),
        "d.jsonl",
        &[
            serde_json::json!({"record_id": "toolace_train_00021__overgeneration",
            "action": "accept", "span_key": "gold:0"}),
        ],
    );
    let db = dir.path().join("review.sqlite");
    let out = bin()
        .arg("apply")
        .arg(&records)
        .arg("--decisions")
        .arg(&decisions)
        .args(["--reviewer", "ana", "--db"])
        .arg(&db)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let reviewed = dir.path().join("reviewed.jsonl");
    let out = bin()
        .arg("export")
        .arg(&records)
        .arg("--out")
        .arg(&reviewed)
        .arg("--db")
        .arg(&db)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("[30, 20) does not slice"));
    assert!(!reviewed.exists(), "nothing is written");
    let text = help("export");
    let one = text
        .split("\n  1  ")
        .nth(1)
        .and_then(|s| s.split("\n  2  ").next())
        .expect("exit status 1");
    assert!(one.contains("do not slice their answer"), "{one}");
    assert!(text.contains("128+n  killed by signal n"), "{text}");
}

// ----- review keys: "`v` / `V` | add: the cursor starts at the character last clicked on the
// record (not on a span; a search since wins), else at the search's first hit in the answer
// (after `/`), else at the span's start" — and the help screen says the same -----

#[test]
fn the_help_screen_says_where_v_starts_as_the_readme_does() {
    let text = spanreview::tui::strings::MOTIONS_HELP;
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s:?} not in the help: {text}"))
    };
    let (click, hit, span) = (
        at("v starts at the character last clicked"),
        at("else at the search's first hit"),
        at("else at the selected span"),
    );
    assert!(click < hit && hit < span, "{text}");
}

// ----- "Sources are imported into the database once, keyed by the SHA-256 of the file";
// "`decisions`, `export`, `stats` and `merge-db` add no decision to a database" -----

#[test]
fn stats_imports_a_judge_file_once_by_its_bytes_and_adds_no_decision() {
    let dir = tempfile::tempdir().expect("tmp");
    let records = data("toolace/test_records_reconstructed.jsonl");
    let decisions = super::common::write(
        dir.path(),
        "d.jsonl",
        &[
            serde_json::json!({"record_id": "toolace_train_00021__overgeneration",
            "action": "accept", "span_key": "gold:0"}),
        ],
    );
    let db = dir.path().join("review.sqlite");
    let out = bin()
        .arg("apply")
        .arg(&records)
        .arg("--decisions")
        .arg(&decisions)
        .args(["--reviewer", "ana", "--db"])
        .arg(&db)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The same bytes under another path: read from the database the second time.
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(data("toolace/ensemble/predictions_combined.jsonl"), &copy).expect("copy");
    let mut said = Vec::new();
    for judge in [data("toolace/ensemble/predictions_combined.jsonl"), copy] {
        let out = bin()
            .arg("stats")
            .arg(&records)
            .arg("--judge")
            .arg(format!("ensemble={}", judge.display()))
            .arg("--db")
            .arg(&db)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        said.push(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    assert!(
        said[0].contains("imported into the database: ensemble"),
        "{}",
        said[0]
    );
    assert!(
        said[1].contains("read from the database (imported before)"),
        "{}",
        said[1]
    );
    let log = Store::open_existing(&db)
        .expect("db")
        .decisions(None)
        .expect("log");
    assert_eq!(log.len(), 1, "stats added no decision");
}

// ----- review: "If the database file is deleted or replaced during the review ... everything
// saved until then is copied to `NAME.rescued-TIME.sqlite` beside it (or in the temp folder)",
// with `--db review.sqlite` as the README's examples give it: a name in the current folder -----

#[test]
fn a_relative_db_deleted_during_the_review_is_rescued_beside_it() {
    use super::terminal::{bin, env, shell_quote, Tmux};
    let dir = tempfile::tempdir().expect("tmp");
    let files: Vec<String> = super::app_harness::review_files()
        .iter()
        .map(|p| shell_quote(p))
        .collect();
    let cmd = format!(
        "sh -c \"cd {} && {} review {} --db review.sqlite --queue all; echo exit=\\$?; sleep 600\"",
        shell_quote(dir.path()),
        bin(),
        files.join(" ")
    );
    let Some(t) = Tmux::start("rescue-rel", &cmd, &env(dir.path())) else {
        return;
    };
    t.wait("uni_1__contradiction");
    t.press(&["A"], "saved #1");
    for suffix in ["", "-wal", "-shm"] {
        std::fs::remove_file(dir.path().join(format!("review.sqlite{suffix}"))).expect("rm");
    }
    t.press(&["A"], "NOT saved");
    t.keys(&["q"]);
    t.wait("exit=");
    let rescue = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().contains("review.rescued-"))
        .unwrap_or_else(|| panic!("no rescue file beside review.sqlite:\n{}", t.screen()));
    let log = Store::open_existing(&rescue)
        .expect("rescue")
        .decisions(None)
        .expect("log");
    assert_eq!(log.len(), 1, "{log:?}");
}

// ----- apply: "a record and span key that exist (an `add` names a new one, `added:ID`)" -----

#[test]
fn apply_adds_a_span_under_a_new_added_key_and_refuses_an_add_on_a_gold_key() {
    let dir = tempfile::tempdir().expect("tmp");
    let records = data("toolace/test_records_reconstructed.jsonl");
    let db = dir.path().join("review.sqlite");
    let add = |key: &str| {
        serde_json::json!({"record_id": "toolace_train_00021__overgeneration", "action": "add",
            "span_key": key, "after": {"start": 0, "end": 4, "label": "overgeneration"}})
    };
    let run = |name: &str, line: serde_json::Value| {
        let d = super::common::write(dir.path(), name, &[line]);
        bin()
            .arg("apply")
            .arg(&records)
            .arg("--decisions")
            .arg(&d)
            .args(["--reviewer", "ana", "--db"])
            .arg(&db)
            .output()
            .expect("runs")
    };
    let out = run("gold.jsonl", add("gold:0"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("gold.jsonl:1: "),
        "{out:?}"
    );
    let out = run("new.jsonl", add("added:triage-1"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let log = Store::open_existing(&db)
        .expect("db")
        .decisions(None)
        .expect("log");
    assert_eq!(log.len(), 1, "{log:?}");
    let after = log[0].after.as_ref().expect("after");
    assert_eq!((after.start, after.end), (0, 4));
}

// ----- compare: "`--tolerance N` ignores boundary differences ... when clustering
// disagreements": compare's own numbers are exact, and its help says so -----

#[test]
fn compare_numbers_are_exact_whatever_the_tolerance_and_its_help_says_so() {
    let files = [
        data("toolace/test_records_reconstructed.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let run = |extra: &[&str]| {
        let out = bin()
            .arg("compare")
            .args(&files)
            .arg("--json")
            .args(extra)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        out.stdout
    };
    assert_eq!(
        run(&[]),
        run(&["--tolerance", "3", "--ignore-edge-punct"]),
        "compare's figures do not depend on the clustering options"
    );
    assert!(help("compare").contains("--tolerance and --ignore-edge-punct only matter where"));
}

// ----- data/README.md: "outputs with non-ASCII characters (`°`, `’`): 31 of the 235 in each
// prediction file, 19 of the 175 records" -----

#[test]
fn the_samples_non_ascii_outputs_are_as_data_readme_counts_them() {
    let count = |rel: &str| {
        let all = super::common::lines(&data(rel));
        let non_ascii = all
            .iter()
            .filter(|v| v["output"].as_str().is_some_and(|o| !o.is_ascii()))
            .count();
        (all.len(), non_ascii)
    };
    assert_eq!(count("toolace/test_records_reconstructed.jsonl"), (175, 19));
    assert_eq!(
        count("toolace/ensemble/predictions_combined.jsonl"),
        (235, 31)
    );
    assert_eq!(
        count("toolace/modernbert_ft/predictions_combined.jsonl"),
        (235, 31)
    );
    let readme = std::fs::read_to_string(data("README.md")).expect("data/README.md");
    assert!(
        readme.contains("31 of the 235 in each prediction file,\n19 of the 175 records"),
        "{readme}"
    );
}

// ----- Running a team server: while the server is unreachable, "moving goes on, but a record
// moved to shows the read error instead ...": once the server is back, the screen shows the
// record by itself, as it saves the decisions kept, with no key pressed -----

/// A log over an in-memory store whose reads fail while `down` is set, as a PostgreSQL server
/// gone away does.
struct Unreachable {
    store: Rc<Store>,
    down: Rc<std::cell::Cell<bool>>,
}

impl spanreview::tui::log::DecisionLog for Unreachable {
    fn append(
        &self,
        d: &spanreview::review::decision::Decision,
        state: &spanreview::store::RecordState,
    ) -> Result<spanreview::review::decision::Decision, String> {
        spanreview::tui::log::DecisionLog::append(&*self.store, d, state)
    }
    fn record_decisions(
        &self,
        dataset: &str,
        record_id: &str,
    ) -> Result<Vec<spanreview::review::decision::Decision>, String> {
        if self.down.get() {
            return Err("error connecting to server: Connection refused".into());
        }
        spanreview::tui::log::DecisionLog::record_decisions(&*self.store, dataset, record_id)
    }
    fn reviewer_log(
        &self,
        dataset: &str,
        reviewer: &str,
    ) -> Result<Vec<spanreview::review::decision::Decision>, String> {
        spanreview::tui::log::DecisionLog::reviewer_log(&*self.store, dataset, reviewer)
    }
    fn record_states(
        &self,
        dataset: &str,
    ) -> Result<std::collections::HashMap<String, spanreview::store::RecordState>, String> {
        spanreview::tui::log::DecisionLog::record_states(&*self.store, dataset)
    }
    fn now(&self) -> std::time::SystemTime {
        self.store.now()
    }
}

#[test]
fn a_record_that_could_not_be_read_shows_once_the_server_is_back() {
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, SystemTime};
    let store = mem();
    let clock = Arc::new(Mutex::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1 << 30),
    ));
    let c = Arc::clone(&clock);
    store.set_clock(Arc::new(move || *c.lock().expect("clock")));
    let down = Rc::new(std::cell::Cell::new(false));
    let log = Unreachable {
        store: Rc::clone(&store),
        down: Rc::clone(&down),
    };
    let ds = spanreview::formats::Dataset::open(&super::app_harness::review_files(), None)
        .expect("fixture");
    let mut app = App::new(
        ds,
        Box::new(log),
        "tester",
        spanreview::tui::queue::QueueKind::All,
        spanreview::tui::config::Config::defaults(true),
        None,
    )
    .expect("app");
    let first = super::app_harness::id(&app);
    down.set(true);
    app.update(Action::NextRecord);
    let err = app.cur.as_ref().err().cloned().expect("the read fails");
    assert!(err.contains("Connection refused"), "{err}");
    // Still down: a second goes by, the error stays.
    *clock.lock().expect("clock") += Duration::from_secs(1);
    app.idle();
    assert!(app.cur.is_err());
    // Back: within a second the record moved to is on screen, no key pressed.
    down.set(false);
    *clock.lock().expect("clock") += Duration::from_secs(1);
    app.idle();
    let shown = app.cur.as_ref().map(|c| c.record.id.clone());
    assert!(
        shown.as_ref().is_ok_and(|id| *id != first),
        "{shown:?} (first record {first})"
    );
    assert_eq!(app.pos, 1, "the record moved to, not the one left");
}
