//! Integration tests: every command that writes to standard error, on a standard error that
//! cannot take it. A pipe whose reader is gone (`2>&1 | head -1`, made here by closing the read
//! end before the run: no timing) or a full disk (`2>/dev/full`) loses the messages, never the
//! run: no panic (exit 101), the exit code the same as with a working standard error, standard
//! output and the files written unchanged.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::common::{data, fixture};

/// Where the run's standard error goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stderr {
    /// A pipe the test reads.
    Working,
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose read end was closed before the run: every write fails with EPIPE.
    Closed,
}

/// Run the binary with `args` in `dir`, its standard error as `to` says.
fn run_with(dir: &Path, args: &[OsString], to: Stderr) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spanreview"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("SPANREVIEW_DB")
        .stdin(Stdio::null());
    match to {
        Stderr::Working => {}
        Stderr::Full => {
            let full = std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full");
            cmd.stderr(full);
        }
        Stderr::Closed => {
            let (reader, writer) = std::io::pipe().expect("pipe");
            drop(reader);
            cmd.stderr(writer);
        }
    }
    cmd.output().expect("runs")
}

fn p(path: &Path) -> OsString {
    path.as_os_str().to_owned()
}

/// A folder with a database holding one decision (on the toolace sample) and the files the
/// cases read.
struct Setup {
    dir: tempfile::TempDir,
    db: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tmp");
        let db = dir.path().join("team’ 東京.sqlite");
        let good = dir.path().join("good°.jsonl");
        let line = serde_json::json!({"record_id": "toolace_train_00039__contradiction",
            "action": "accept", "span_key": "gold:0", "reviewer": "ana",
            "note": "東京 😀 e\u{301}"});
        super::common::write_jsonl(&good, std::slice::from_ref(&line));
        // The same line naming no reviewer (and none is given): apply refuses it.
        let mut refused = line;
        refused.as_object_mut().expect("object").remove("reviewer");
        super::common::write_jsonl(&dir.path().join("refused’.jsonl"), &[refused]);
        let out = Command::new(env!("CARGO_BIN_EXE_spanreview"))
            .arg("apply")
            .arg(toolace())
            .arg("--decisions")
            .arg(&good)
            .arg("--db")
            .arg(&db)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        Self { dir, db }
    }

    /// The cases: name, arguments (`tag` makes the names of files they write distinct per
    /// run) and whether the run writes to standard error when it can.
    fn cases(&self, tag: &str) -> Vec<(&'static str, Vec<OsString>, bool)> {
        let db = || p(&self.db);
        let judge = || {
            let mut s = OsString::from("j°=");
            s.push(fixture("judges/decisions.jsonl"));
            s
        };
        let out = |name: &str| p(&self.dir.path().join(format!("{tag}-{name}")));
        let mixed = || p(&fixture("validate/mixed.jsonl"));
        let hostile = || p(&fixture("hostile/records.jsonl"));
        vec![
            ("validate problems", vec!["validate".into(), mixed()], false),
            (
                "validate a missing file",
                vec!["validate".into(), p(&self.dir.path().join("nö 😀.jsonl"))],
                true,
            ),
            (
                "export warning of another dataset",
                vec![
                    "export".into(),
                    hostile(),
                    "--db".into(),
                    db(),
                    "--out".into(),
                    out("export’.jsonl"),
                ],
                true,
            ),
            (
                "export --out - with a warning",
                vec![
                    "export".into(),
                    hostile(),
                    "--db".into(),
                    db(),
                    "--out".into(),
                    "-".into(),
                ],
                true,
            ),
            (
                "convert with problems",
                vec![
                    "convert".into(),
                    mixed(),
                    "--to".into(),
                    "prodigy".into(),
                    "--out".into(),
                    out("prodigy°.jsonl"),
                ],
                true,
            ),
            (
                "compare --judge",
                vec!["compare".into(), p(&toolace()), "--judge".into(), judge()],
                true,
            ),
            (
                "stats --judge",
                vec![
                    "stats".into(),
                    p(&toolace()),
                    "--judge".into(),
                    judge(),
                    "--db".into(),
                    db(),
                ],
                true,
            ),
            (
                "apply with a refused line",
                vec![
                    "apply".into(),
                    p(&toolace()),
                    "--decisions".into(),
                    p(&self.dir.path().join("refused’.jsonl")),
                    "--db".into(),
                    db(),
                ],
                true,
            ),
            (
                "decisions on a missing database",
                vec![
                    "decisions".into(),
                    "--db".into(),
                    p(&self.dir.path().join("none 東京.sqlite")),
                ],
                true,
            ),
            ("a usage error", vec!["frobnicate°".into()], true),
        ]
    }

    /// The files of the folder written by the runs tagged `tag`, by name without the tag, with
    /// their contents.
    fn written(&self, tag: &str) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(self.dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").path())
            .filter_map(|f| {
                let name = f.file_name()?.to_string_lossy().into_owned();
                let rest = name.strip_prefix(&format!("{tag}-"))?.to_owned();
                Some((rest, std::fs::read(&f).expect("read")))
            })
            .collect();
        v.sort();
        v
    }
}

fn toolace() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

/// Each case run with a working standard error, then with `to`: the same exit code (never
/// 101), the same standard output, the same files written.
fn same_as_with_a_working_stderr(to: Stderr) {
    let setup = Setup::new();
    let working = setup.cases("working");
    let failing = setup.cases("failing");
    for ((what, args, writes), (_, failing_args, _)) in working.into_iter().zip(failing) {
        let want = run_with(setup.dir.path(), &args, Stderr::Working);
        let err = String::from_utf8_lossy(&want.stderr);
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert_eq!(!err.is_empty(), writes, "{what} writes to stderr: {err}");
        let got = run_with(setup.dir.path(), &failing_args, to);
        assert_ne!(got.status.code(), Some(101), "{what} on {to:?}: panicked");
        assert_eq!(
            got.status.code(),
            want.status.code(),
            "{what} on {to:?}: {got:?}"
        );
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "{what} on {to:?}: standard output"
        );
        assert_eq!(
            setup.written("failing"),
            setup.written("working"),
            "{what} on {to:?}: the files written"
        );
    }
}

#[test]
fn a_closed_stderr_loses_the_messages_not_the_exit_code_or_the_output() {
    same_as_with_a_working_stderr(Stderr::Closed);
}

#[test]
fn a_full_stderr_loses_the_messages_not_the_exit_code_or_the_output() {
    same_as_with_a_working_stderr(Stderr::Full);
}

/// A review whose database was deleted under it quits with exit 1 and its decisions in the
/// rescue copy when the message saying so cannot be written (`2>/dev/full`: it panicked, 101).
#[test]
fn a_review_that_cannot_say_where_its_decisions_went_still_keeps_them_and_exits_1() {
    use super::terminal::{bin, env, shell_quote, Tmux};
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("rév 東京.sqlite");
    let files: Vec<String> = super::app_harness::review_files()
        .iter()
        .map(|f| shell_quote(f))
        .collect();
    let cmd = format!(
        "sh -c \"{} review {} --db {} --reviewer e2e --queue all 2>/dev/full; echo exit=\\$?; \
         sleep 600\"",
        bin(),
        files.join(" "),
        shell_quote(&db)
    );
    let Some(t) = Tmux::start("stderr-full", &cmd, &env(dir.path())) else {
        return;
    };
    t.wait("uni_1__contradiction");
    t.press(&["A"], "saved #1");
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        std::fs::remove_file(PathBuf::from(p)).expect("rm");
    }
    t.press(&["A"], "NOT saved");
    t.keys(&["q"]);
    let screen = t.wait("exit=");
    // A line of its own: "exit=101" contains "exit=1".
    assert!(screen.lines().any(|l| l.trim() == "exit=1"), "{screen}");
    let rescue = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().contains(".rescued-"))
        .expect("a rescue file beside the database");
    let log = spanreview::store::Store::open_existing(&rescue)
        .expect("rescue")
        .decisions(None)
        .expect("log");
    assert_eq!(log.len(), 1, "{log:?}");
}
