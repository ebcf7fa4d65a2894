//! Integration tests: the commands that write a file (`convert --out`/`--config`, `merge-db`
//! OUT, the databases of `assign` and `apply`) on every failure path a test can provoke (the
//! folder missing, the destination a folder, a file that is no database, a full disk through
//! `/dev/full`, a full standard output, an unreadable input): exit 2 with a message naming the
//! path, no temporary file left, nothing existing replaced or cut short, and no "written" or
//! "saved" for what was not.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::common::{fixture, names};
use super::hostile::hostile_arg;

/// Run the binary with `args`, its standard output `/dev/full` when `full_stdout`.
fn spanreview(args: &[&std::ffi::OsStr], full_stdout: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spanreview"));
    cmd.args(args).stdin(Stdio::null());
    if full_stdout {
        let full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        cmd.stdout(full);
    }
    cmd.output().expect("runs")
}

/// The run failed as it must: exit 2, one message on stderr naming `path` (as escaped), and
/// neither channel claiming a write or a save.
fn failed_naming(what: &str, out: &Output, path: &str) {
    assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(path), "{what}: {path:?} not in {err}");
    for channel in [&out.stdout[..], &out.stderr[..]] {
        let text = String::from_utf8_lossy(channel);
        for claim in ["records written", "saved in", "decisions saved", " added"] {
            assert!(!text.contains(claim), "{what}: says {claim:?}: {text}");
        }
    }
}

/// A folder holding an old `--out`, an old `--config` and a folder named `dir`.
struct Scene {
    dir: tempfile::TempDir,
    out: PathBuf,
    config: PathBuf,
    folder: PathBuf,
}

const OLD_OUT: &str = "old ’out’ 東京\n";
const OLD_CONFIG: &str = "<View>old °</View>\n";

impl Scene {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tmp");
        let out = dir.path().join("tasks°.json");
        let config = dir.path().join("config’.xml");
        let folder = dir.path().join(format!("dir{}", hostile_arg()));
        std::fs::write(&out, OLD_OUT).expect("write");
        std::fs::write(&config, OLD_CONFIG).expect("write");
        std::fs::create_dir(&folder).expect("mkdir");
        Self {
            dir,
            out,
            config,
            folder,
        }
    }

    /// The old files are as they were, and nothing was added beside them.
    fn unchanged(&self, what: &str, before: &[String]) {
        assert_eq!(
            std::fs::read_to_string(&self.out).expect("out"),
            OLD_OUT,
            "{what}"
        );
        assert_eq!(
            std::fs::read_to_string(&self.config).expect("config"),
            OLD_CONFIG,
            "{what}"
        );
        assert_eq!(names(self.dir.path()), before, "{what}: left behind");
        assert!(
            names(&self.folder).is_empty(),
            "{what}: wrote into the folder"
        );
    }
}

#[test]
fn convert_whose_config_cannot_be_written_replaces_nothing() {
    let s = Scene::new();
    let records = fixture("hostile/records.jsonl");
    let before = names(s.dir.path());
    let missing = s
        .dir
        .path()
        .join(format!("gone{}", hostile_arg()))
        .join("c.xml");
    let full = PathBuf::from("/dev/full");
    for (what, config, named) in [
        (
            "config in a missing folder",
            Some(&missing),
            "gone\\u{1b}[2J",
        ),
        ("config a folder", Some(&s.folder), "dir\\u{1b}[2J"),
        ("config on a full disk", Some(&full), "/dev/full"),
        ("config to a full stdout", None, "standard output"),
    ] {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "convert".as_ref(),
            records.as_ref(),
            "--to".as_ref(),
            "label-studio".as_ref(),
            "--out".as_ref(),
            s.out.as_ref(),
        ];
        if let Some(c) = config {
            args.extend(["--config".as_ref(), c.as_os_str()]);
        }
        let out = spanreview(&args, config.is_none());
        failed_naming(what, &out, named);
        s.unchanged(what, &before);
    }
}

#[test]
fn convert_whose_out_cannot_be_written_replaces_nothing() {
    let s = Scene::new();
    let records = fixture("hostile/records.jsonl");
    let before = names(s.dir.path());
    let h = hostile_arg();
    let missing = s.dir.path().join(format!("gone{h}")).join("o.jsonl");
    let folder = s.folder.to_string_lossy().into_owned();
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "out a folder",
            vec!["--out".into(), folder],
            "dir\\u{1b}[2J",
        ),
        (
            "out in a missing folder",
            vec!["--out".into(), missing.to_string_lossy().into_owned()],
            "gone\\u{1b}[2J",
        ),
        (
            "out on a full disk",
            vec!["--out".into(), "/dev/full".into()],
            "/dev/full",
        ),
        (
            "out to a full stdout",
            vec!["--out".into(), "-".into()],
            "standard output",
        ),
        (
            "records missing",
            vec![
                "--out".into(),
                s.out.to_string_lossy().into_owned(),
                "--records".into(),
                format!("{}/nope{h}.jsonl", s.dir.path().display()),
            ],
            "nope\\u{1b}[2J",
        ),
    ];
    for (what, extra, named) in cases {
        let to = if extra.iter().any(|a| a == "--records") {
            "ragtruth"
        } else {
            "prodigy"
        };
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "convert".as_ref(),
            records.as_ref(),
            "--to".as_ref(),
            to.as_ref(),
        ];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        let out = spanreview(&args, what.contains("stdout"));
        failed_naming(what, &out, named);
        s.unchanged(what, &before);
    }
    // An input that cannot be read (a folder, a missing file) writes nothing either.
    for (what, input) in [
        ("input a folder", s.folder.clone()),
        ("input missing", s.dir.path().join(format!("none{h}"))),
    ] {
        let out = spanreview(
            &[
                "convert".as_ref(),
                input.as_ref(),
                "--to".as_ref(),
                "prodigy".as_ref(),
                "--out".as_ref(),
                s.out.as_ref(),
            ],
            false,
        );
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        s.unchanged(what, &before);
    }
}

/// A database with the hostile records' decisions applied, at `path`.
fn applied_db(dir: &Path, path: &Path) {
    let decisions = dir.join("d.jsonl");
    let lines: Vec<serde_json::Value> = super::hostile::record_ids()
        .into_iter()
        .map(|id| serde_json::json!({"record_id": id, "action": "accept", "span_key": "gold:0"}))
        .collect();
    super::common::write_jsonl(&decisions, &lines);
    let out = spanreview(
        &[
            "apply".as_ref(),
            fixture("hostile/records.jsonl").as_ref(),
            "--decisions".as_ref(),
            decisions.as_ref(),
            "--reviewer".as_ref(),
            "ana".as_ref(),
            "--db".as_ref(),
            path.as_ref(),
        ],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn merge_db_failures_leave_out_as_it_was() {
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    let out_db = dir.path().join(format!("team{h}.sqlite"));
    applied_db(dir.path(), &out_db);
    let input = dir.path().join("in.sqlite");
    std::fs::copy(&out_db, &input).expect("copy");
    let not_db = dir.path().join(format!("text{h}.sqlite"));
    std::fs::write(&not_db, "not a database ’\n").expect("write");
    let folder = dir.path().join(format!("dir{h}"));
    std::fs::create_dir(&folder).expect("mkdir");
    let missing = dir.path().join(format!("none{h}.sqlite"));
    let full = PathBuf::from("/dev/full");
    let bytes = |p: &Path| std::fs::read(p).expect("read");
    let (out_before, text_before, names_before) =
        (bytes(&out_db), bytes(&not_db), names(dir.path()));
    for (what, out, inputs, named) in [
        ("input missing", &out_db, vec![&missing], "none\\u{1b}[2J"),
        (
            "input no database",
            &out_db,
            vec![&input, &not_db],
            "text\\u{1b}[2J",
        ),
        ("input a folder", &out_db, vec![&folder], "dir\\u{1b}[2J"),
        ("out no database", &not_db, vec![&input], "text\\u{1b}[2J"),
        ("out a folder", &folder, vec![&input], "dir\\u{1b}[2J"),
        ("out on a full disk", &full, vec![&input], "/dev/full"),
    ] {
        let mut args: Vec<&std::ffi::OsStr> = vec!["merge-db".as_ref(), out.as_ref()];
        args.extend(inputs.iter().map(|p| p.as_os_str()));
        let run = spanreview(&args, false);
        failed_naming(what, &run, named);
        assert_eq!(bytes(&out_db), out_before, "{what}");
        assert_eq!(bytes(&not_db), text_before, "{what}");
        assert_eq!(names(dir.path()), names_before, "{what}: left behind");
        assert!(names(&folder).is_empty(), "{what}");
    }
}

#[test]
fn assign_and_apply_on_a_database_that_cannot_be_written_say_so_and_save_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    let records = fixture("hostile/records.jsonl");
    let not_db = dir.path().join(format!("text{h}.sqlite"));
    std::fs::write(&not_db, "not a database ’\n").expect("write");
    let folder = dir.path().join(format!("dir{h}"));
    std::fs::create_dir(&folder).expect("mkdir");
    let decisions = dir.path().join("d.jsonl");
    super::common::write_jsonl(
        &decisions,
        &[
            serde_json::json!({"record_id": super::hostile::record_ids()[0], "action": "accept",
                             "span_key": "gold:0", "reviewer": "ana"}),
        ],
    );
    let before = names(dir.path());
    let full = PathBuf::from("/dev/full");
    for (what, db, named) in [
        ("no database", &not_db, "text\\u{1b}[2J"),
        ("a folder", &folder, "dir\\u{1b}[2J"),
        ("a full disk", &full, "/dev/full"),
    ] {
        let assign = spanreview(
            &[
                "assign".as_ref(),
                records.as_ref(),
                "--reviewers".as_ref(),
                "ana,bo".as_ref(),
                "--db".as_ref(),
                db.as_ref(),
            ],
            false,
        );
        failed_naming(&format!("assign: {what}"), &assign, named);
        let apply = spanreview(
            &[
                "apply".as_ref(),
                records.as_ref(),
                "--decisions".as_ref(),
                decisions.as_ref(),
                "--db".as_ref(),
                db.as_ref(),
            ],
            false,
        );
        failed_naming(&format!("apply: {what}"), &apply, named);
        assert_eq!(
            std::fs::read_to_string(&not_db).expect("read"),
            "not a database ’\n"
        );
        assert_eq!(names(dir.path()), before, "{what}: left behind");
        assert!(names(&folder).is_empty(), "{what}");
    }
}

/// Interrupted (SIGTERM) while its output is being written, convert leaves no temporary file
/// and the old `--config` as it was. The run is held mid-write without a timing: `--out` is a
/// FIFO that this test reads one chunk of and then leaves full, so convert is blocked flushing
/// it, after `--config`'s temporary file was made.
#[test]
fn convert_interrupted_mid_write_leaves_nothing_behind() {
    use std::io::Read;
    let dir = tempfile::tempdir().expect("tmp");
    let fifo = dir.path().join("tasks.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let cfg = dir.path().join("cfg");
    std::fs::create_dir(&cfg).expect("mkdir");
    let config = cfg.join("config°.xml");
    std::fs::write(&config, OLD_CONFIG).expect("write");
    // About 600 kB of tasks: more than a pipe holds, less than the writer's buffer, so the
    // first write to the FIFO is the flush after both outputs were opened.
    let mut child = Command::new(env!("CARGO_BIN_EXE_spanreview"))
        .arg("convert")
        .arg(super::common::data(
            "toolace/test_records_reconstructed.jsonl",
        ))
        .args(["--to", "label-studio", "--out"])
        .arg(&fifo)
        .arg("--config")
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut reader = std::fs::File::open(&fifo).expect("open the FIFO");
    let mut chunk = [0u8; 4096];
    let n = reader.read(&mut chunk).expect("read");
    assert!(n > 0 && chunk.starts_with(b"["), "{n}");
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    assert!(killed.success());
    let status = child.wait().expect("wait");
    drop(reader);
    assert_eq!(names(&cfg), vec!["config°.xml".to_owned()], "left behind");
    // The signal handler's exit: 128 + SIGTERM.
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert_eq!(
        std::fs::read_to_string(&config).expect("config"),
        OLD_CONFIG
    );
}

/// `apply` that saves nothing (a dry run, a line that is no decision, a line the check
/// refuses) makes no database file, nor its folder, where there was none.
#[test]
fn apply_saving_nothing_makes_no_database() {
    let dir = tempfile::tempdir().expect("tmp");
    let records = fixture("hostile/records.jsonl");
    let id = &super::hostile::record_ids()[0];
    let good = serde_json::json!({"record_id": id, "action": "accept", "span_key": "gold:0",
                                  "reviewer": "ana"});
    let unknown = serde_json::json!({"record_id": "nope°", "action": "accept",
                                     "span_key": "gold:0", "reviewer": "ana"});
    let write = |name: &str, text: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p
    };
    let good_file = write("good.jsonl", format!("{good}\n"));
    let not_json = write("broken.jsonl", format!("{good}\n{{\"record_id\": \n"));
    let refused = write("refused.jsonl", format!("{good}\n{unknown}\n"));
    let db = dir.path().join("new’/team.sqlite");
    for (what, file, dry, code) in [
        ("dry run", &good_file, true, 0),
        ("not a decision", &not_json, false, 1),
        ("refused by the check", &refused, false, 1),
    ] {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "apply".as_ref(),
            records.as_ref(),
            "--decisions".as_ref(),
            file.as_ref(),
            "--db".as_ref(),
            db.as_ref(),
        ];
        if dry {
            args.push("--dry-run".as_ref());
        }
        let out = spanreview(&args, false);
        assert_eq!(out.status.code(), Some(code), "{what}: {out:?}");
        assert!(
            !db.parent().expect("folder").exists(),
            "{what}: made {}",
            db.display()
        );
    }
    // Saving makes it.
    let out = spanreview(
        &[
            "apply".as_ref(),
            records.as_ref(),
            "--decisions".as_ref(),
            good_file.as_ref(),
            "--db".as_ref(),
            db.as_ref(),
        ],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let log = spanreview::store::Store::open_existing(&db)
        .expect("made")
        .decisions(None)
        .expect("log");
    assert_eq!(log.len(), 1);
}

/// `convert` that converts none of its records (every line unreadable, or of another format
/// than `--format` says) writes nothing over an existing `--out`: exit 2, each line reported.
#[test]
fn convert_converting_nothing_replaces_nothing() {
    let s = Scene::new();
    let before = names(s.dir.path());
    let broken = s.dir.path().join("broken°.jsonl");
    std::fs::write(&broken, "{\"id\": \"a’\", \"output\": \n{\"id\": \"b\",\n").expect("write");
    std::fs::rename(&broken, s.folder.join("broken°.jsonl")).expect("move");
    let broken = s.folder.join("broken°.jsonl");
    let records = fixture("hostile/records.jsonl");
    for (what, input, format) in [
        ("every line unreadable", &broken, "ragtruth"),
        ("every record another format", &records, "label-studio"),
    ] {
        let out = spanreview(
            &[
                "convert".as_ref(),
                input.as_ref(),
                "--format".as_ref(),
                format.as_ref(),
                "--to".as_ref(),
                "prodigy".as_ref(),
                "--out".as_ref(),
                s.out.as_ref(),
            ],
            false,
        );
        failed_naming(what, &out, "tasks°.json");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(":2: "), "{what}: every line reported: {err}");
        assert_eq!(
            std::fs::read_to_string(&s.out).expect("out"),
            OLD_OUT,
            "{what}"
        );
        assert_eq!(names(s.dir.path()), before, "{what}: left behind");
    }
}

/// `merge-db` whose standard output is full says which output failed (the merge itself is
/// committed, input by input, before its line is printed).
#[test]
fn merge_db_to_a_full_stdout_names_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let input = dir.path().join("ana°.sqlite");
    applied_db(dir.path(), &input);
    let out_db = dir.path().join("team’.sqlite");
    let out = spanreview(
        &["merge-db".as_ref(), out_db.as_ref(), input.as_ref()],
        true,
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("standard output"), "{err}");
    let merged = spanreview::store::Store::open_existing(&out_db)
        .expect("out")
        .decisions(None)
        .expect("log");
    assert_eq!(merged.len(), super::hostile::record_ids().len());
}

/// `--config` that is `--out` (the same path, or the same file under another name) is refused
/// before anything is written: the config renamed over the tasks would lose them.
#[test]
fn convert_refuses_a_config_that_is_the_out_file() {
    let s = Scene::new();
    let records = fixture("hostile/records.jsonl");
    let link = s.dir.path().join("link’.xml");
    std::fs::hard_link(&s.out, &link).expect("link");
    let before = names(s.dir.path());
    for (what, config) in [("same path", &s.out), ("hard link", &link)] {
        let out = spanreview(
            &[
                "convert".as_ref(),
                records.as_ref(),
                "--to".as_ref(),
                "label-studio".as_ref(),
                "--out".as_ref(),
                s.out.as_ref(),
                "--config".as_ref(),
                config.as_ref(),
            ],
            false,
        );
        failed_naming(what, &out, "--config");
        assert!(String::from_utf8_lossy(&out.stderr).contains("tasks°.json"));
        s.unchanged(what, &before);
    }
}

/// `export` with one of its outputs on a full disk (or a full standard output) replaces none
/// of the others and says which failed.
#[test]
fn export_with_one_output_on_a_full_disk_replaces_none() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("log.sqlite");
    applied_db(dir.path(), &db);
    let old = |name: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("old {name} ’\n")).expect("write");
        p
    };
    let (out, verdicts, report) = (old("out°.jsonl"), old("verdicts.jsonl"), old("report.md"));
    let before = names(dir.path());
    let full = PathBuf::from("/dev/full");
    let dash = PathBuf::from("-");
    for (what, o, v, r, named) in [
        ("--out", &full, &verdicts, &report, "/dev/full"),
        ("--verdicts", &out, &full, &report, "/dev/full"),
        ("--report", &out, &verdicts, &full, "/dev/full"),
        ("--out - to a full stdout", &dash, &verdicts, &report, "-"),
    ] {
        let run = spanreview(
            &[
                "export".as_ref(),
                fixture("hostile/records.jsonl").as_ref(),
                "--db".as_ref(),
                db.as_ref(),
                "--out".as_ref(),
                o.as_ref(),
                "--verdicts".as_ref(),
                v.as_ref(),
                "--report".as_ref(),
                r.as_ref(),
            ],
            o == &dash,
        );
        failed_naming(what, &run, named);
        assert!(
            !String::from_utf8_lossy(&run.stderr).contains("exported"),
            "{what}"
        );
        for (p, name) in [
            (&out, "out°.jsonl"),
            (&verdicts, "verdicts.jsonl"),
            (&report, "report.md"),
        ] {
            assert_eq!(
                std::fs::read_to_string(p).expect("old"),
                format!("old {name} ’\n"),
                "{what}"
            );
        }
        assert_eq!(names(dir.path()), before, "{what}: left behind");
    }
}
