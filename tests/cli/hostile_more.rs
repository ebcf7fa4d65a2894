//! Integration tests: the hostile corpus (see [`super::hostile`]) fed to the commands
//! `hostile.rs` leaves out: `assign` (reviewer names, `--show`, `--json`), `apply` (its
//! `FILE:LINE` messages, `--dry-run`), `merge-db`, `convert` (every direction, its warnings
//! and the labeling config), `stats --by-reviewer` and the team tables, `completions` and
//! `man`, the bundled sample's errors, `review`'s errors before the screen opens, and usage
//! errors. Beyond no raw control character, no value may start a line of its own (the
//! corpus' `x\nINFO forged line`), and `--json` reads back as the same strings.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use spanreview::store::Store;

use super::common::{bin, fixture, installed};
use super::hostile::{
    all_hostile, assert_clean, corpus, hostile_arg, json_lines, plain_and_json, record_ids, run,
};

/// The line the corpus' newline entry tries to forge.
const FORGED: &str = "INFO forged";

/// `bytes` hold no forbidden character and no line that a value started.
pub(crate) fn assert_safe(channel: &str, bytes: &[u8]) {
    assert_clean(channel, bytes);
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with(FORGED)),
        "{channel}: a value started a line of its own:\n{text}"
    );
}

/// Both channels of a run are safe.
fn assert_run_safe(what: &str, out: &std::process::Output) {
    assert_safe(&format!("{what} stdout"), &out.stdout);
    assert_safe(&format!("{what} stderr"), &out.stderr);
}

/// One reviewer name per corpus entry, usable as a command-line argument (no NUL, no comma)
/// and as a team member (nothing to trim at either end).
fn team() -> Vec<String> {
    corpus()
        .into_iter()
        .map(|(name, h)| format!("{name}{}z", h.replace(['\0', ','], "_")))
        .collect()
}

/// The hostile records under a hostile name in `dir` (the dataset's name is its stem).
fn hostile_records(dir: &Path) -> PathBuf {
    let p = dir.join(format!("rec{}.jsonl", hostile_arg()));
    std::fs::copy(fixture("hostile/records.jsonl"), &p).expect("copy");
    p
}

/// A decisions file for `apply`: on each record, reviewer `a` accepts its span and reviewer
/// `b` accepts it on even records and drops it on odd ones (a disagreement).
fn decisions_file(dir: &Path, a: &[String], b: &[String]) -> PathBuf {
    let mut lines = Vec::new();
    for (i, id) in record_ids().into_iter().enumerate() {
        let ai = &a[i % a.len()];
        let bi = &b[i % b.len()];
        lines.push(
            json!({"record_id": id, "action": "accept", "span_key": "gold:0", "reviewer": ai}),
        );
        let action = if i % 2 == 0 { "accept" } else { "drop" };
        lines
            .push(json!({"record_id": id, "action": action, "span_key": "gold:0", "reviewer": bi}));
    }
    let p = dir.join(format!("d{}.jsonl", hostile_arg()));
    super::common::write_jsonl(&p, &lines);
    p
}

/// Every string anywhere in the JSON lines of `bytes`.
fn json_strings(channel: &str, bytes: &[u8]) -> BTreeSet<String> {
    let mut all = Vec::new();
    for v in json_lines(channel, bytes) {
        super::hostile::strings(&v, &mut all);
    }
    all.into_iter().collect()
}

/// [`plain_and_json`] with both runs safe: the plain run's standard output and every string
/// of the JSON run's.
fn text_and_json_strings(
    what: &str,
    build: impl Fn(&mut assert_cmd::Command, bool),
) -> (String, BTreeSet<String>) {
    let [plain, json] = plain_and_json(build);
    assert_run_safe(what, &plain);
    assert_run_safe(&format!("{what} --json"), &json);
    (
        String::from_utf8_lossy(&plain.stdout).into_owned(),
        json_strings(&format!("{what} --json"), &json.stdout),
    )
}

/// `apply` of the decisions in `decisions` onto `records`, saving into `db`, to run.
fn apply(records: &Path, decisions: &Path, db: &Path) -> assert_cmd::Command {
    let mut cmd = bin();
    cmd.arg("apply")
        .arg(records)
        .arg("--decisions")
        .arg(decisions)
        .arg("--db")
        .arg(db);
    cmd
}

#[test]
fn assign_summary_json_and_show_escape_reviewers_and_the_dataset() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("plan.sqlite");
    // A hostile team is refused (issue 22): the message names the first bad name, escaped.
    let out = run(bin()
        .arg("assign")
        .arg(fixture("hostile/records.jsonl"))
        .arg("--reviewers")
        .arg(team().join(","))
        .arg("--db")
        .arg(&db));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_run_safe("assign (hostile team)", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holds a control or bidirectional character"),
        "{err}"
    );
    let team: Vec<String> = ["ana°", "bo’", "東京", "cy👋🏽"].map(str::to_owned).to_vec();
    let dataset = format!("ds{}", hostile_arg());
    let (text, names) = text_and_json_strings("assign", |cmd, json| {
        cmd.arg("assign")
            .arg(fixture("hostile/records.jsonl"))
            .arg("--reviewers")
            .arg(team.join(","))
            .args(["--overlap", "0.5", "--seed", if json { "2" } else { "1" }])
            .arg("--dataset")
            .arg(&dataset)
            .arg("--db")
            .arg(&db);
    });
    // The header, a line per reviewer: nothing more.
    assert_eq!(text.lines().count(), 3 + team.len(), "{text}");
    assert!(text.contains("ds") && text.contains("\\u{1b}[2J"), "{text}");
    for r in &team {
        assert!(names.contains(r), "{r:?} not among {names:?}");
    }
    let (text, names) = text_and_json_strings("assign --show", |cmd, _| {
        cmd.args(["assign", "--show", "--dataset"])
            .arg(&dataset)
            .arg("--db")
            .arg(&db);
    });
    assert_eq!(text.lines().count(), 3 + team.len(), "{text}");
    for id in record_ids() {
        assert!(names.contains(&id), "{id:?} not among {names:?}");
    }
    // No plan for a hostile dataset name: one line, escaped.
    let out = run(bin()
        .args(["assign", "--show", "--dataset"])
        .arg(format!("nope{}", hostile_arg()))
        .arg("--db")
        .arg(&db));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_run_safe("assign --show (no plan)", &out);
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn assign_warnings_on_hostile_lines_and_paths() {
    let dir = tempfile::tempdir().expect("tmp");
    let input = hostile_records(dir.path());
    let mut text = std::fs::read_to_string(&input).expect("read");
    let first = text.lines().next().expect("a line").to_owned();
    // The first record again (assigned once), one cut after its id and one with no id (left
    // out).
    text.push_str(&format!("{first}\n"));
    text.push_str("{\"id\": \"cut\\u001b]52;c;UFdORUQ=\\u0007\\nINFO forged\", \"output\": \n");
    text.push_str("{\"output\": \"\\u001b[2J\\nINFO forged\n");
    std::fs::write(&input, text).expect("write");
    let out = run(bin()
        .arg("assign")
        .arg(&input)
        .args(["--reviewers", "ana,bo", "--db"])
        .arg(dir.path().join("p.sqlite")));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_run_safe("assign warnings", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("was seen on line 1"), "{err}");
    assert_eq!(err.matches("(no id: not assigned)").count(), 2, "{err}");
    assert!(err.contains("rec\\u{1b}[2J"), "{err}");
}

#[test]
fn apply_refusals_dry_run_and_saves_quote_hostile_values() {
    let dir = tempfile::tempdir().expect("tmp");
    let records = hostile_records(dir.path());
    let db = dir.path().join("a.sqlite");
    let team = team();
    let good = decisions_file(dir.path(), &team, &team);
    // Refused lines quoting hostile values: an unknown record, an unknown action, a bad span key.
    let h = all_hostile();
    let bad = dir.path().join(format!("bad{}.jsonl", hostile_arg()));
    let first = &record_ids()[0];
    super::common::write_jsonl(
        &bad,
        &[
            json!({"record_id": format!("nope{h}"), "action": "accept", "span_key": "gold:0"}),
            json!({"record_id": first, "action": format!("bogus{h}"), "span_key": "gold:0"}),
            json!({"record_id": first, "action": "accept", "span_key": format!("gold:9{h}")}),
        ],
    );
    let out = run(&mut apply(&records, &bad, &db));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_run_safe("apply (refused)", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    // Three refusals and the summary, each on its line, the file named escaped.
    assert_eq!(err.lines().count(), 4, "{err}");
    assert!(err
        .lines()
        .take(3)
        .all(|l| l.starts_with("/") && l.contains("bad\\u{1b}[2J")));
    assert!(err.contains("nothing saved"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("saved"));
    // --dry-run: said, not saved.
    let out = run(apply(&records, &good, &db).arg("--dry-run"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_run_safe("apply --dry-run", &out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("dry run: nothing saved"));
    assert!(Store::open(&db)
        .expect("db")
        .decisions(None)
        .expect("log")
        .is_empty());
    // Saved: the reviewers' names kept exactly.
    let out = run(&mut apply(&records, &good, &db));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_run_safe("apply", &out);
    let log = Store::open(&db).expect("db").decisions(None).expect("log");
    let who: BTreeSet<&str> = log.iter().map(|d| d.reviewer.as_str()).collect();
    assert_eq!(who, team.iter().map(String::as_str).collect());
}

#[test]
fn stats_team_and_by_reviewer_tables_escape_reviewers_and_ids() {
    let dir = tempfile::tempdir().expect("tmp");
    let records = hostile_records(dir.path());
    let db = dir.path().join(format!("s{}.sqlite", hostile_arg()));
    let team = team();
    let (a, b): (Vec<String>, Vec<String>) = (
        team.iter().map(|t| format!("a{t}")).collect(),
        team.iter().map(|t| format!("b{t}")).collect(),
    );
    let out = run(&mut apply(
        &records,
        &decisions_file(dir.path(), &a, &b),
        &db,
    ));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let both: Vec<String> = a.iter().chain(&b).cloned().collect();
    let out = run(bin()
        .arg("assign")
        .arg(&records)
        .arg("--reviewers")
        .arg(both.join(","))
        .arg("--db")
        .arg(&db));
    // Names with controls are kept in a log (applied, merged) but make no plan (issue 22).
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_run_safe("assign (hostile team)", &out);
    let (text, all) = text_and_json_strings("stats --by-reviewer", |cmd, _| {
        cmd.arg("stats")
            .arg(&records)
            .arg("--by-reviewer")
            .arg("--db")
            .arg(&db);
    });
    assert!(text.contains("disagreements ("), "{text}");
    assert!(text.contains("by reviewer"), "{text}");
    assert!(text.contains("acsi\\u{1b}[2J"), "{text}");
    for r in &both {
        assert!(all.contains(r), "{r:?} not in the JSON");
    }
}

#[test]
fn merge_db_lines_and_errors_name_hostile_paths() {
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    let records = hostile_records(dir.path());
    let input = dir.path().join(format!("in{h}.sqlite"));
    let decisions = decisions_file(dir.path(), &team(), &team());
    let out = run(&mut apply(&records, &decisions, &input));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let second = dir.path().join(format!("in2{h}.sqlite"));
    std::fs::copy(&input, &second).expect("copy");
    let merged = dir.path().join(format!("out{h}.sqlite"));
    let out = run(bin().arg("merge-db").arg(&merged).arg(&input).arg(&second));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_run_safe("merge-db", &out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("in\\u{1b}[2J"), "{text}");
    let not_db = dir.path().join(format!("bad{h}.sqlite"));
    std::fs::write(&not_db, format!("text{}", all_hostile())).expect("write");
    let folder = dir.path().join(format!("dir{h}"));
    std::fs::create_dir(&folder).expect("mkdir");
    let missing = dir.path().join(format!("missing{h}.sqlite"));
    for (what, args) in [
        ("into itself", vec![&merged, &merged]),
        ("missing input", vec![&merged, &missing]),
        ("input no database", vec![&merged, &not_db]),
        ("output no database", vec![&not_db, &input]),
        ("output a folder", vec![&folder, &input]),
    ] {
        let out = run(bin().arg("merge-db").args(args));
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        assert_run_safe(what, &out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(err.contains("\\u{1b}[2J"), "{what}: {err}");
    }
}

/// Run `convert` with `args`; its output, checked safe.
fn convert(what: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    let out = run(bin().arg("convert").args(args));
    assert_run_safe(what, &out);
    out
}

/// Run `convert INPUT --to TO --out OUT`; its output, checked safe.
fn convert_to(what: &str, input: &Path, to: &str, out: &Path) -> std::process::Output {
    convert(
        what,
        &[
            input.as_ref(),
            "--to".as_ref(),
            to.as_ref(),
            "--out".as_ref(),
            out.as_ref(),
        ],
    )
}

#[test]
fn convert_every_direction_escapes_its_warnings_and_the_labeling_config() {
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    let records = hostile_records(dir.path());
    let o = |name: &str| dir.path().join(format!("{name}{h}"));
    let (ls, pg, rt) = (o("tasks.json"), o("prodigy.jsonl"), o("back.jsonl"));
    // To Label Studio: the labeling config (every hostile label in it) on standard output.
    let out = convert_to("to label-studio", &records, "label-studio", &ls);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(
        xml.contains("<Label value=\"contradiction&#8234;a&#8235;b"),
        "{xml}"
    );
    let out = convert_to("to prodigy", &records, "prodigy", &pg);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("prodigy.jsonl\\u{1b}[2J"), "{err}");
    // Back onto records missing one of the ids: the warning quotes it and names the file.
    let short = dir.path().join(format!("short{h}.jsonl"));
    let text = std::fs::read_to_string(&records).expect("read");
    let kept: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&short, kept).expect("write");
    for (what, input) in [("from label-studio", &ls), ("from prodigy", &pg)] {
        let out = convert(
            what,
            &[
                input.as_ref(),
                "--to".as_ref(),
                "ragtruth".as_ref(),
                "--records".as_ref(),
                short.as_ref(),
                "--out".as_ref(),
                rt.as_ref(),
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{what}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not in"), "{what}: {err}");
        assert!(err.contains("short\\u{1b}[2J"), "{what}: {err}");
    }
    // A Label Studio region whose text is not the answer's slice: reported, quoted.
    let mut tasks: Value =
        serde_json::from_str(&std::fs::read_to_string(&ls).expect("read")).expect("tasks");
    for t in tasks.as_array_mut().expect("array") {
        let region = &mut t["predictions"][0]["result"][0]["value"];
        region["text"] = Value::from(format!("wrong{}", all_hostile()));
    }
    let edited = o("edited.json");
    std::fs::write(&edited, tasks.to_string()).expect("write");
    // (Into a file: records written to standard output are data, kept as they are.)
    let again = o("again");
    for to in ["ragtruth", "prodigy", "label-studio"] {
        let out = convert_to(&format!("edited to {to}"), &edited, to, &again);
        assert_eq!(out.status.code(), Some(1), "{to}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("edited.json\\u{1b}[2J"), "{to}: {err}");
        assert!(err.contains("wrong\\u001b[2J"), "{to}: {err}");
    }
    // Every direction between the three, each summary naming the hostile output escaped.
    for (from, input) in [
        ("ragtruth", &records),
        ("label-studio", &ls),
        ("prodigy", &pg),
    ] {
        for to in ["ragtruth", "prodigy", "label-studio"] {
            let what = format!("{from} to {to}");
            let out = convert_to(&what, input, to, &again);
            assert_eq!(out.status.code(), Some(0), "{what}: {out:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("again\\u{1b}[2J"), "{what}: {err}");
        }
    }
}

#[test]
fn completions_and_man_are_clean() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(bin().args(["completions", shell]));
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert_run_safe(shell, &out);
    }
    let out = run(bin().arg("man"));
    assert_eq!(out.status.code(), Some(0));
    assert_run_safe("man", &out);
}

#[test]
fn the_bundled_samples_errors_name_a_hostile_home() {
    let dir = tempfile::tempdir().expect("tmp");
    let home = dir.path().join(format!("home{}", hostile_arg()));
    let data = home.join("share");
    std::fs::create_dir_all(&home).expect("mkdir");
    // The data folder is a file: the sample cannot be written there.
    std::fs::write(&data, "x").expect("write");
    let out = run(bin()
        .args(["stats", "--db"])
        .arg(dir.path().join("none.sqlite"))
        .env("XDG_DATA_HOME", &data)
        .env("HOME", &home));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_run_safe("sample", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bundled sample") && err.contains("home\\u{1b}[2J"),
        "{err}"
    );
}

#[test]
fn review_errors_before_the_screen_opens_are_escaped() {
    if !installed("script") {
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    let not_db = dir.path().join(format!("bad{h}.sqlite"));
    std::fs::write(&not_db, "not a database").expect("write");
    let folder = dir.path().join(format!("dir{h}"));
    std::fs::create_dir(&folder).expect("mkdir");
    let missing = dir.path().join(format!("missing{h}.jsonl"));
    let garbage = dir.path().join(format!("garbage{h}.jsonl"));
    std::fs::write(&garbage, format!("{}\n", all_hostile().replace('\0', ""))).expect("write");
    let records = fixture("hostile/records.jsonl");
    let db = dir.path().join("ok.sqlite");
    let queue = format!("q{h}");
    let cases: Vec<(&str, Vec<&std::ffi::OsStr>)> = vec![
        (
            "not a database",
            vec![records.as_ref(), "--db".as_ref(), not_db.as_ref()],
        ),
        (
            "a folder",
            vec![records.as_ref(), "--db".as_ref(), folder.as_ref()],
        ),
        (
            "missing dataset",
            vec![missing.as_ref(), "--db".as_ref(), db.as_ref()],
        ),
        (
            "not a dataset",
            vec![garbage.as_ref(), "--db".as_ref(), db.as_ref()],
        ),
        (
            "unknown queue",
            vec![
                records.as_ref(),
                "--db".as_ref(),
                db.as_ref(),
                "--queue".as_ref(),
                queue.as_ref(),
            ],
        ),
    ];
    for (what, args) in cases {
        // A terminal for stdout (review refuses to start without one), the arguments
        // through the environment (script's command line is read by a shell).
        let line: String = (0..args.len()).map(|i| format!(" \"$SR_A{i}\"")).collect();
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &format!("\"$SR_BIN\" review{line}"), "/dev/null"])
            .env("SR_BIN", env!("CARGO_BIN_EXE_spanreview"))
            .env("SPANREVIEW_LOG", dir.path().join("review.log"))
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .stdin(std::process::Stdio::null());
        for (i, a) in args.iter().enumerate() {
            cmd.env(format!("SR_A{i}"), a);
        }
        let out = cmd.output().expect("script runs");
        // The terminal ends lines with \r\n.
        let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
        assert_safe(what, text.as_bytes());
        assert!(text.contains("\\u{1b}[2J"), "{what}: {text}");
        assert_eq!(text.trim_end().lines().count(), 1, "{what}: {text}");
    }
}

#[test]
fn usage_errors_quoting_a_newline_stay_one_message() {
    let h = hostile_arg();
    for args in [
        vec![
            "compare".to_owned(),
            "x".into(),
            "--judge".into(),
            format!("gold{h}"),
        ],
        vec!["validate".into(), "--format".into(), h.clone(), "x".into()],
        vec![
            "assign".into(),
            "x".into(),
            "--reviewers".into(),
            "a".into(),
            "--overlap".into(),
            h.clone(),
        ],
    ] {
        let out = run(bin().args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert_run_safe(&args[0], &out);
    }
}
