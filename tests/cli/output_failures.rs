//! Integration tests: every command that prints, on a standard output that cannot take it. A
//! full disk (`/dev/full`) fails with exit 2 and a message naming standard output; a pipe whose
//! reader is gone (`| head`, made here by closing the read end before the run: no timing) ends
//! a report quietly with its own exit code, and data asked for on standard output quietly with
//! exit 2 and no "written". `--help` and `--version` that could not be written fail too.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::common::{fixture, names};

/// Where the run's standard output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stdout {
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose read end was closed before the run: every write fails with EPIPE.
    Closed,
}

/// Run the binary with `args`, its standard output as `to` says.
fn run_to(args: &[OsString], to: Stdout) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spanreview"));
    cmd.args(args).stdin(Stdio::null());
    match to {
        Stdout::Full => {
            let full = std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full");
            cmd.stdout(full);
        }
        Stdout::Closed => {
            let (reader, writer) = std::io::pipe().expect("pipe");
            drop(reader);
            cmd.stdout(writer);
        }
    }
    cmd.output().expect("runs")
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn path_arg(p: &Path) -> OsString {
    p.as_os_str().to_owned()
}

/// A database with decisions on the hostile records and an assignment plan.
struct Team {
    _dir: tempfile::TempDir,
    db: PathBuf,
    records: PathBuf,
}

impl Team {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tmp");
        let db = dir.path().join("team’.sqlite");
        let records = fixture("hostile/records.jsonl");
        let decisions = dir.path().join("d°.jsonl");
        let lines: Vec<serde_json::Value> = super::hostile::record_ids()
            .into_iter()
            .map(|id| {
                serde_json::json!({"record_id": id, "action": "accept", "span_key": "gold:0",
                                   "reviewer": "ana", "note": "東京 😀 e\u{301}"})
            })
            .collect();
        super::common::write_jsonl(&decisions, &lines);
        for args in [
            vec![
                "apply".into(),
                path_arg(&records),
                "--decisions".into(),
                path_arg(&decisions),
                "--db".into(),
                path_arg(&db),
            ],
            vec![
                "assign".into(),
                path_arg(&records),
                "--reviewers".into(),
                "ana,bo".into(),
                "--db".into(),
                path_arg(&db),
            ],
        ] {
            let out = Command::new(env!("CARGO_BIN_EXE_spanreview"))
                .args(&args)
                .output()
                .expect("runs");
            assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        }
        Self {
            _dir: dir,
            db,
            records,
        }
    }

    /// Every command that prints a report on standard output, with the exit code it gives
    /// when its output is read whole.
    fn reports(&self) -> Vec<(&'static str, Vec<OsString>, i32)> {
        let db = || path_arg(&self.db);
        let records = || path_arg(&self.records);
        let preds = path_arg(&fixture("hostile/predictions_detector.jsonl"));
        let broken = path_arg(&fixture("validate/mixed.jsonl"));
        let clean = path_arg(&fixture("validate/clean_unicode.jsonl"));
        vec![
            ("validate", vec!["validate".into(), clean], 0),
            (
                "validate problems",
                vec!["validate".into(), broken.clone()],
                1,
            ),
            (
                "validate --json",
                vec!["validate".into(), "--json".into(), broken],
                1,
            ),
            (
                "decisions",
                vec!["decisions".into(), "--db".into(), db()],
                0,
            ),
            (
                "decisions --json",
                vec!["decisions".into(), "--json".into(), "--db".into(), db()],
                0,
            ),
            ("compare", vec!["compare".into(), preds.clone()], 0),
            (
                "compare --json",
                vec!["compare".into(), "--json".into(), preds],
                0,
            ),
            (
                "stats",
                vec!["stats".into(), records(), "--db".into(), db()],
                0,
            ),
            (
                "stats --json",
                vec![
                    "stats".into(),
                    "--json".into(),
                    records(),
                    "--db".into(),
                    db(),
                ],
                0,
            ),
            (
                "assign --show",
                vec![
                    "assign".into(),
                    records(),
                    "--show".into(),
                    "--db".into(),
                    db(),
                ],
                0,
            ),
            (
                "assign --show --json",
                vec![
                    "assign".into(),
                    records(),
                    "--show".into(),
                    "--json".into(),
                    "--db".into(),
                    db(),
                ],
                0,
            ),
            ("completions", os(&["completions", "bash"]), 0),
            ("man", os(&["man"]), 0),
        ]
    }

    /// The commands that write data asked for on standard output.
    fn data(&self) -> Vec<(&'static str, Vec<OsString>)> {
        let mut v = Vec::new();
        for out in ["-", "/dev/stdout"] {
            v.push((
                "export",
                vec![
                    "export".into(),
                    path_arg(&self.records),
                    "--db".into(),
                    path_arg(&self.db),
                    "--out".into(),
                    out.into(),
                ],
            ));
            for to in ["prodigy", "label-studio"] {
                v.push((
                    "convert",
                    vec![
                        "convert".into(),
                        path_arg(&self.records),
                        "--to".into(),
                        to.into(),
                        "--out".into(),
                        out.into(),
                    ],
                ));
            }
        }
        v
    }
}

/// Neither a panic nor a claim of a write in `out`'s standard error.
fn no_panic_no_claim(what: &str, out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{what}: {err}");
    for claim in ["written", "saved"] {
        assert!(!err.contains(claim), "{what}: says {claim:?}: {err}");
    }
}

#[test]
fn the_fixtures_print_what_the_cases_expect_when_read_whole() {
    // The cases below compare with these exit codes: check them on a plain pipe.
    let team = Team::new();
    for (what, args, code) in team.reports() {
        let out = Command::new(env!("CARGO_BIN_EXE_spanreview"))
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(code), "{what}: {out:?}");
        assert!(!out.stdout.is_empty(), "{what}: printed nothing");
    }
}

#[test]
fn a_report_on_a_full_disk_names_standard_output_and_exits_2() {
    let team = Team::new();
    for (what, args, _) in team.reports() {
        let out = run_to(&args, Stdout::Full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(
            err.contains("writing to standard output: No space left on device"),
            "{what}: {err}"
        );
        no_panic_no_claim(what, &out);
    }
}

#[test]
fn a_report_to_a_closed_pipe_ends_quietly_with_its_own_exit_code() {
    let team = Team::new();
    for (what, args, code) in team.reports() {
        let out = run_to(&args, Stdout::Closed);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{what}: {err}");
        assert!(!err.to_lowercase().contains("pipe"), "{what}: {err}");
        no_panic_no_claim(what, &out);
    }
}

#[test]
fn data_on_a_full_disk_names_standard_output_and_exits_2() {
    let team = Team::new();
    for (what, args) in team.data() {
        let out = run_to(&args, Stdout::Full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what} {args:?}: {err}");
        let named = err.contains("standard output") || err.contains("/dev/stdout");
        assert!(
            named && err.contains("No space left on device"),
            "{what} {args:?}: {err}"
        );
        no_panic_no_claim(what, &out);
    }
}

/// Data a reader stopped taking was not all delivered: exit 2, and nothing says "written";
/// but quietly, as `cat big | head` ends, without a "Broken pipe".
#[test]
fn data_to_a_closed_pipe_ends_quietly_with_exit_2_and_no_written() {
    let team = Team::new();
    for (what, args) in team.data() {
        let out = run_to(&args, Stdout::Closed);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what} {args:?}: {err}");
        assert!(
            !err.to_lowercase().contains("pipe"),
            "{what} {args:?}: {err}"
        );
        assert!(!err.contains("stopped"), "{what} {args:?}: {err}");
        no_panic_no_claim(what, &out);
    }
}

/// The help and version texts, asked for in every way, including with an argument holding an
/// escape sequence (printed through its own path, escaped).
fn help_cases() -> Vec<Vec<OsString>> {
    let hostile = format!("x{}", super::hostile::hostile_arg());
    vec![
        os(&["--help"]),
        os(&["-h"]),
        os(&["help"]),
        os(&["validate", "--help"]),
        os(&["review", "--help"]),
        os(&["help", "export"]),
        os(&["--version"]),
        os(&["-V"]),
        vec!["--help".into(), hostile.clone().into()],
        vec!["validate".into(), hostile.into(), "--help".into()],
    ]
}

#[test]
fn help_or_version_on_a_full_disk_fails_with_exit_2() {
    for args in help_cases() {
        let out = run_to(&args, Stdout::Full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("to standard output: No space left on device"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn help_or_version_to_a_closed_pipe_ends_quietly_with_exit_0() {
    for args in help_cases() {
        let out = run_to(&args, Stdout::Closed);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

/// Run the binary with `args` where no file may grow past `kib` KiB (`ulimit -f`, SIGXFSZ
/// ignored, so a write past it fails with EFBIG as on a full disk); `None` without bash.
fn run_file_limited(kib: u32, args: &[OsString]) -> Option<Output> {
    if !Path::new("/bin/bash").exists() {
        eprintln!("SKIP: no /bin/bash to set a file size limit with");
        return None;
    }
    let out = Command::new("/bin/bash")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {kib}; exec \"$@\""))
        .arg("bash")
        .arg(env!("CARGO_BIN_EXE_spanreview"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    Some(out)
}

/// A new database (merge-db OUT, apply's and assign's --db) whose setup fails for want of
/// space (at 8 KiB SQLite cannot map its shared memory; at 32 KiB the migrations cannot be
/// committed) leaves nothing: no 4 KB file with `-wal` and `-shm` that the next run would take
/// for an empty database, and no folder made for it. Without the limit the same run makes it.
#[test]
fn a_database_whose_creation_fails_leaves_nothing_behind() {
    let team = Team::new();
    let dir = tempfile::tempdir().expect("tmp");
    let decisions = dir.path().join("d.jsonl");
    let lines: Vec<serde_json::Value> = super::hostile::record_ids()
        .into_iter()
        .map(|id| serde_json::json!({"record_id": id, "action": "accept", "span_key": "gold:0"}))
        .collect();
    super::common::write_jsonl(&decisions, &lines);
    let before = names(dir.path());
    let db = dir.path().join("new’ 東京").join("team😀.sqlite");
    // merge-db maps its input's shared memory first: below 32 KiB that fails, not OUT.
    let runs: Vec<(&str, Vec<OsString>, &[u32])> = vec![
        (
            "apply",
            vec![
                "apply".into(),
                path_arg(&team.records),
                "--decisions".into(),
                path_arg(&decisions),
                "--reviewer".into(),
                "ana".into(),
                "--db".into(),
                path_arg(&db),
            ],
            &[8, 32],
        ),
        (
            "assign",
            vec![
                "assign".into(),
                path_arg(&team.records),
                "--reviewers".into(),
                "ana,bo".into(),
                "--db".into(),
                path_arg(&db),
            ],
            &[8, 32],
        ),
        (
            "merge-db",
            vec!["merge-db".into(), path_arg(&db), path_arg(&team.db)],
            &[32, 64],
        ),
    ];
    for (what, args, limits) in &runs {
        for &kib in *limits {
            let Some(out) = run_file_limited(kib, args) else {
                return;
            };
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{what} at {kib} KiB: {err}");
            assert!(err.contains("team😀.sqlite"), "{what} at {kib} KiB: {err}");
            assert!(
                !err.contains("spanreview-new"),
                "{what} at {kib} KiB: {err}"
            );
            assert_eq!(
                names(dir.path()),
                before,
                "{what} at {kib} KiB: left behind"
            );
            let read = run_to(
                &["decisions".into(), "--db".into(), path_arg(&db)],
                Stdout::Closed,
            );
            assert_eq!(read.status.code(), Some(2), "{what}: {read:?}");
            assert!(
                String::from_utf8_lossy(&read.stderr).contains("no database at"),
                "{what}: {read:?}"
            );
        }
        let out = run_file_limited(4096, args).expect("bash");
        assert_eq!(out.status.code(), Some(0), "{what} unlimited: {out:?}");
        assert!(db.is_file(), "{what}");
        spanreview::store::Store::open_existing(&db).expect("a database");
        std::fs::remove_dir_all(db.parent().expect("folder")).expect("rm");
    }
}
