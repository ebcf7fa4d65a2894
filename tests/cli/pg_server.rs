//! The subcommands on a PostgreSQL database (`--db postgresql://...`): the same scripted review
//! exported from SQLite and from PostgreSQL gives the same bytes, `merge-db` moves a log between
//! the engines and back, and a server that is down is a clear error (exit 2) that never shows a
//! password. The tests that need a server run when `SPANREVIEW_TEST_PG` names one (CI starts
//! one: `.ci/pg.sh`) and say they were skipped otherwise.

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::common;

/// A fresh database on the test server, dropped after the test (also for `apply`'s and
/// `assign`'s tests on PostgreSQL).
pub(super) struct PgDb {
    admin: String,
    name: String,
    url: String,
}

static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl PgDb {
    pub(super) fn create() -> Option<Self> {
        let Some(admin) = std::env::var("SPANREVIEW_TEST_PG")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            // Past the harness's capture (eprintln! is captured for a passing test), once.
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIP: SPANREVIEW_TEST_PG is not set: the PostgreSQL end-to-end tests are skipped"
                );
            });
            return None;
        };
        let name = format!(
            "spanreview_cli{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let mut c = postgres::Client::connect(&admin, postgres::NoTls).expect("test server");
        c.batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create database");
        let (base, _) = admin.rsplit_once('/').expect("a URL with a database");
        let url = format!("{base}/{name}");
        Some(Self { admin, name, url })
    }

    pub(super) fn path(&self) -> PathBuf {
        PathBuf::from(&self.url)
    }

    /// The database's URL with `password` in it (the test server trusts loopback, so any
    /// password logs in): what a command must never print.
    pub(super) fn path_with_password(&self, password: &str) -> PathBuf {
        let (scheme, rest) = self.url.split_once("://").expect("a URL");
        let (user, host) = rest
            .split_once('@')
            .expect("a user in the test server's URL");
        PathBuf::from(format!("{scheme}://{user}:{password}@{host}"))
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// Export the fixture with `db`'s decisions into `out/`: reviewed records, verdicts, report.
fn export(db: &Path, out: &Path) -> Vec<(String, Vec<u8>)> {
    fs::create_dir_all(out).expect("out");
    let files = ["reviewed.jsonl", "verdicts.jsonl", "report.md"];
    common::bin()
        .arg("export")
        .arg(common::fixture("export/records.jsonl"))
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(out.join(files[0]))
        .arg("--verdicts")
        .arg(out.join(files[1]))
        .arg("--report")
        .arg(out.join(files[2]))
        .assert()
        .success();
    files
        .iter()
        .map(|f| ((*f).to_owned(), fs::read(out.join(f)).expect("exported")))
        .collect()
}

#[test]
fn the_same_review_exports_the_same_bytes_from_sqlite_and_postgresql() {
    let Some(pg) = PgDb::create() else { return };
    let dir = TempDir::new().expect("tmp");
    let file = dir.path().join("review.sqlite");
    super::export::script(&file);
    super::export::script(&pg.path());
    let a = export(&file, &dir.path().join("from-sqlite"));
    let b = export(&pg.path(), &dir.path().join("from-postgresql"));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(!x.is_empty(), "{name} is empty");
        assert!(
            x == y,
            "{name} differs:\n--- sqlite\n{}\n--- postgresql\n{}",
            String::from_utf8_lossy(x),
            String::from_utf8_lossy(y)
        );
    }
}

fn decisions_json(db: &Path) -> String {
    let out = common::bin()
        .args(["decisions", "--json", "--db"])
        .arg(db)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).expect("utf-8")
}

#[test]
fn merge_db_moves_a_postgresql_log_into_sqlite_and_back_losing_nothing() {
    let (Some(team), Some(back)) = (PgDb::create(), PgDb::create()) else {
        return;
    };
    super::export::script(&team.path());
    let dir = TempDir::new().expect("tmp");
    let file = dir.path().join("laptop.sqlite");
    for (out, input) in [(file.clone(), team.path()), (back.path(), file.clone())] {
        let a = common::bin()
            .arg("merge-db")
            .arg(&out)
            .arg(&input)
            .assert()
            .success();
        let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
        assert!(said.contains("0 already present"), "{said}");
    }
    let original = decisions_json(&team.path());
    assert!(original.lines().count() > 10, "{original}");
    assert_eq!(decisions_json(&file), original);
    assert_eq!(decisions_json(&back.path()), original);
}

#[test]
fn a_server_that_is_down_exits_2_and_never_shows_the_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let url = format!("postgresql://ana:hunter2@127.0.0.1:{port}/team");
    for args in [
        vec!["decisions"],
        vec!["merge-db", "out.sqlite"],
        vec!["stats", "records.jsonl"],
    ] {
        let dir = TempDir::new().expect("tmp");
        fs::copy(
            common::fixture("export/records.jsonl"),
            dir.path().join("records.jsonl"),
        )
        .expect("copy");
        let mut cmd = common::bin();
        cmd.current_dir(dir.path()).args(&args);
        if args[0] == "merge-db" {
            cmd.arg(&url);
        } else {
            cmd.arg("--db").arg(&url);
        }
        let a = cmd.assert().code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(
            err.contains("cannot connect to the PostgreSQL database"),
            "{args:?}: {err}"
        );
        assert!(err.contains("ana:***@127.0.0.1"), "{args:?}: {err}");
        assert!(!err.contains("hunter2"), "{args:?}: {err}");
    }
    // Given through SPANREVIEW_DB instead of --db: the same.
    let a = common::bin()
        .env("SPANREVIEW_DB", &url)
        .arg("decisions")
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("ana:***@127.0.0.1") && !err.contains("hunter2"),
        "{err}"
    );
    // The password from PGPASSWORD is not shown either.
    let a = common::bin()
        .env("PGPASSWORD", "hunter2")
        .args(["decisions", "--db"])
        .arg(format!("postgresql://ana@127.0.0.1:{port}/team"))
        .assert()
        .code(2);
    assert!(!String::from_utf8_lossy(&a.get_output().stderr).contains("hunter2"));
}

/// `stats --json` of the fixture with `--judge alice=JUDGE`, on the database `db`.
fn stats_with_judge(db: &Path, judge: &Path) -> serde_json::Value {
    drop(spanreview::store::Store::open(db).expect("this reviewer's database"));
    let out = common::bin()
        .arg("stats")
        .arg(common::fixture("export/records.jsonl"))
        .args(["--json", "--db"])
        .arg(db)
        .arg("--judge")
        .arg(format!("alice={}", judge.display()))
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).expect("json")
}

#[test]
fn a_judge_on_a_postgresql_database_is_read_as_a_judge_file_is() {
    let Some(pg) = PgDb::create() else { return };
    let dir = TempDir::new().expect("tmp");
    let file = dir.path().join("alice.sqlite");
    super::export::script(&file);
    super::export::script(&pg.path());
    let from_file = stats_with_judge(&dir.path().join("me-a.sqlite"), &file);
    let me = dir.path().join("me-b.sqlite");
    let from_pg = stats_with_judge(&me, &pg.path());
    assert_eq!(from_pg["sources"][1]["name"], "alice");
    assert_eq!(from_pg["sources"], from_file["sources"]);
    assert!(from_pg["sources"][1]["overall"]["records"].as_u64() > Some(0));
    // The second time it is read from this database's import (the log has not moved).
    assert_eq!(
        stats_with_judge(&me, &pg.path())["sources"],
        from_pg["sources"]
    );
}

/// A private test server (`.ci/pg.sh`), which a test may stop and start; stopped and removed
/// when dropped.
struct PrivateServer {
    dir: String,
    url: String,
}

impl PrivateServer {
    fn start() -> Self {
        let out = std::process::Command::new(common::root().join(".ci/pg.sh"))
            .arg("start")
            .output()
            .expect(".ci/pg.sh runs");
        assert!(
            out.status.success(),
            ".ci/pg.sh start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let value = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("export {key}=")))
                .expect(key)
                .to_owned()
        };
        Self {
            dir: value("PG_TEST_DIR"),
            url: value("SPANREVIEW_TEST_PG"),
        }
    }

    fn pg(&self, verb: &str) {
        let ok = std::process::Command::new(common::root().join(".ci/pg.sh"))
            .args([verb, &self.dir])
            .status()
            .expect(".ci/pg.sh runs");
        assert!(ok.success(), ".ci/pg.sh {verb}");
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = std::process::Command::new(common::root().join(".ci/pg.sh"))
            .args(["stop", &self.dir])
            .status();
    }
}

/// The log of `s` as (id, action, record, span): what two runs of one script must share.
fn shape(s: &spanreview::store::Store) -> Vec<(i64, String, String, Option<String>)> {
    s.decisions(None)
        .expect("log")
        .into_iter()
        .map(|d| (d.id, d.action.name().to_owned(), d.record_id, d.span_key))
        .collect()
}

/// The log two presses of `action` on the review fixture give without an outage.
fn calm_two(action: spanreview::tui::Action) -> Vec<(i64, String, String, Option<String>)> {
    let calm = super::app_harness::mem();
    let mut calm_app = super::app_harness::review_app(&calm);
    calm_app.update(action);
    calm_app.update(action);
    shape(&calm)
}

#[test]
fn a_review_goes_on_through_a_server_restart_and_saves_only_what_it_says() {
    use spanreview::tui::app::Status;
    use spanreview::tui::Action;
    if PgDb::create().is_none() {
        return;
    }
    // A server of its own: stopping the shared one would fail the other tests.
    let server = PrivateServer::start();
    let store = std::rc::Rc::new(
        spanreview::store::Store::open(Path::new(&server.url)).expect("the team database"),
    );
    // The screen's clock, stepped by hand: the retries are due by it, no sleeping.
    let t = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let clock = std::sync::Arc::clone(&t);
    store.set_clock(std::sync::Arc::new(move || {
        std::time::UNIX_EPOCH
            + std::time::Duration::from_millis(
                1_796_000_000_000 + clock.load(std::sync::atomic::Ordering::Relaxed),
            )
    }));
    let tick = |app: &mut spanreview::tui::app::App| {
        t.fetch_add(1000, std::sync::atomic::Ordering::Relaxed);
        app.idle();
    };
    let mut app = super::app_harness::review_app(&store);
    let said = |app: &spanreview::tui::app::App| match &app.status {
        Status::Saved(m) => format!("saved: {m}"),
        Status::Error(m) => format!("error: {m}"),
        other => format!("{other:?}"),
    };
    app.update(Action::Accept);
    assert!(said(&app).starts_with("saved: saved #1"), "{}", said(&app));

    server.pg("down");
    app.update(Action::Accept);
    let down = said(&app);
    assert_eq!(
        down,
        "error: NOT saved yet: the database is unreachable; retrying (1 pending)"
    );
    // Retried each second while the server is down: still not saved.
    tick(&mut app);
    assert!(said(&app).contains("NOT saved yet"), "{}", said(&app));
    assert!(!said(&app).contains("saved #"), "{}", said(&app));

    server.pg("up");
    // Nobody presses anything: the next tick connects anew and saves it, once.
    tick(&mut app);
    assert!(said(&app).starts_with("saved: saved #2"), "{}", said(&app));
    assert!(!app.has_unsaved());
    tick(&mut app);
    // The log is the one the same two accepts give without an outage.
    assert_eq!(shape(&store), calm_two(Action::Accept));
}

#[test]
fn quitting_a_review_while_the_server_is_down_writes_a_rescue_file_that_apply_brings_in() {
    use super::terminal::{bin, env, shell_quote, Tmux};
    if PgDb::create().is_none() {
        return;
    }
    let server = PrivateServer::start();
    let dir = TempDir::new().expect("tmp");
    let files = super::app_harness::review_files();
    let quoted: Vec<String> = files.iter().map(|p| shell_quote(p)).collect();
    let cmd = format!(
        "sh -c \"cd {} && {} review {} --db '{}' --reviewer tester --queue all; echo exit=\\$?; sleep 600\"",
        shell_quote(dir.path()),
        bin(),
        quoted.join(" "),
        server.url
    );
    let Some(tm) = Tmux::start("pgquit", &cmd, &env(dir.path())) else {
        return;
    };
    tm.wait("uni_1__contradiction");
    // `A`: accept the record's spans and move on.
    tm.press(&["A"], "saved #1");
    server.pg("down");
    tm.press(&["A"], "retrying (1 pending)");
    tm.press(&["q"], "press quit again");
    tm.keys(&["q"]);
    tm.wait("exit=");
    let screen = tm.tmux(&["capture-pane", "-p", "-J", "-t", "t"]);
    assert!(screen.lines().any(|l| l.trim() == "exit=1"), "{screen}");
    let rescue = fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().contains("spanreview-unsaved-"))
        .expect("a rescue file in the review's folder");
    assert!(
        screen.contains(&rescue.display().to_string()),
        "the file is named: {screen}"
    );
    assert!(screen.contains("--decisions"), "{screen}");
    server.pg("up");
    let store = spanreview::store::Store::open(Path::new(&server.url)).expect("db");
    assert_eq!(shape(&store).len(), 1, "only the first was saved");
    let apply = || {
        common::bin()
            .arg("apply")
            .args(&files)
            .arg("--decisions")
            .arg(&rescue)
            .args(["--db", &server.url])
            .assert()
            .success();
    };
    apply();
    assert_eq!(shape(&store), calm_two(spanreview::tui::Action::AcceptAll));
    // Applied twice (the reviewer unsure it went in): still once, by its origin.
    apply();
    assert_eq!(shape(&store), calm_two(spanreview::tui::Action::AcceptAll));
}

#[test]
fn another_reviewers_decision_on_the_server_appears_on_screen_within_a_second() {
    use spanreview::review::decision::{ActionKind, Decision};
    let Some(pg) = PgDb::create() else { return };
    let mine = std::rc::Rc::new(spanreview::store::Store::open(&pg.path()).expect("mine"));
    // The screen's clock, stepped by hand: no sleeping.
    let t = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let clock = std::sync::Arc::clone(&t);
    mine.set_clock(std::sync::Arc::new(move || {
        std::time::UNIX_EPOCH
            + std::time::Duration::from_millis(
                1_796_000_000_000 + clock.load(std::sync::atomic::Ordering::Relaxed),
            )
    }));
    let mut app = super::app_harness::review_app(&mine);
    app.idle();
    let on_screen = app.cur.as_ref().expect("a record").record.clone();
    // Another reviewer, on another machine, drops the record's first span.
    let theirs = spanreview::store::Store::open(&pg.path()).expect("theirs");
    let mut d = Decision::new(&on_screen, "records", "bo", ActionKind::Drop);
    d.span_key = Some("gold:0".into());
    let saved = theirs.append(&d, None).expect("bo saves");
    let seen = |app: &spanreview::tui::app::App| {
        app.cur
            .as_ref()
            .expect("a record")
            .decisions
            .iter()
            .any(|x| x.id == saved.id)
    };
    app.idle();
    assert!(!seen(&app), "not re-read before its time");
    t.store(1000, std::sync::atomic::Ordering::Relaxed);
    app.idle();
    assert!(seen(&app), "re-read within a second");
}
