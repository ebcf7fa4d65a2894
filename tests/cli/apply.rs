//! Integration tests: `spanreview apply` appends decisions from JSON lines, each checked as the
//! review screen checks a key, all or none, once per origin.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{json, Value};
use spanreview::review::decision::{ActionKind, Decision};
use spanreview::store::Store;
use spanreview::tui::app::{App, Opening};
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use crate::common::{bin, fixture};

/// A record whose answer has a curly apostrophe, a degree sign, CJK and an emoji with a skin
/// tone: 28 code points, 43 bytes.
const QUOTE: &str = "It’s 25°C in 東京 today 👍🏽 ok";
const QUOTE_ID: &str = "quote_5__contradiction";

/// The review fixture's records plus [`QUOTE`], written into `dir`; returns the file.
fn records(dir: &Path) -> PathBuf {
    let mut text = std::fs::read_to_string(fixture("review/records.jsonl")).expect("fixture");
    let start = QUOTE.chars().position(|c| c == '2').expect("2");
    let rec = json!({
        "id": QUOTE_ID, "query": "weather?", "context": "{\"temp_c\": 25}", "output": QUOTE,
        "hallucination_labels": [{"start": start, "end": start + 4, "label": "contradiction",
            "text": "25°C"}],
        "meta": {"corruption_type": "contradiction"}
    });
    text.push_str(&format!("{rec}\n"));
    let path = dir.join("records.jsonl");
    std::fs::write(&path, text).expect("write records");
    path
}

/// Run `apply FILE --decisions D --db DB --reviewer ana` with `lines` as D.
fn apply(dir: &Path, file: &Path, lines: &[Value], extra: &[&str]) -> assert_cmd::assert::Assert {
    let d = dir.join("d.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&d, text).expect("write decisions");
    bin()
        .arg("apply")
        .arg(file)
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(dir.join("db.sqlite"))
        .args(["--reviewer", "ana"])
        .args(extra)
        .assert()
}

fn log(db: &Path) -> Vec<Decision> {
    if !db.exists() && !spanreview::store::is_url(&db.to_string_lossy()) {
        return Vec::new();
    }
    Store::open(db).expect("db").decisions(None).expect("log")
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

fn quote_start() -> usize {
    QUOTE.chars().position(|c| c == '2').expect("2")
}

/// Each kind of line the screen would not have saved: refused as `D:LINE: why`, exit 1, and
/// nothing of the file saved (the good first line neither).
#[test]
fn each_refused_line_is_named_and_nothing_of_the_file_is_saved() {
    let s = quote_start();
    let len = QUOTE.chars().count();
    let span = |a: usize, b: usize| json!({"start": a, "end": b, "label": "contradiction"});
    let past = format!("it ends past the answer, which has {len} code points");
    let cases: Vec<(Vec<Value>, &str)> = vec![
        (
            vec![json!({"record_id": "nope", "action": "clean"})],
            "no record \"nope\"",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "accept", "span_key": "gold:3"})],
            "has no span gold:3 (it has gold:0)",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "accept", "span_key": "3"})],
            "bad span_key \"3\"",
        ),
        // One code point past the end (the byte length is far more).
        (
            vec![
                json!({"record_id": QUOTE_ID, "action": "adjust", "span_key": "gold:0",
                "after": span(s, len + 1)}),
            ],
            &past,
        ),
        (
            vec![
                json!({"record_id": QUOTE_ID, "action": "add", "span_key": "added:x",
                "after": span(s + 2, s + 2)}),
            ],
            "it is empty",
        ),
        (
            vec![
                json!({"record_id": QUOTE_ID, "action": "add", "span_key": "added:x",
                "after": span(s + 3, s + 1)}),
            ],
            "it is reversed",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "clean", "record_hash": "0ld"})],
            "has changed since the decision was made (record_hash 0ld",
        ),
        (
            vec![
                json!({"record_id": QUOTE_ID, "action": "clean"}),
                json!({"record_id": QUOTE_ID, "action": "accept", "span_key": "gold:0"}),
            ],
            "is reclassified clean by ana, so it keeps no span",
        ),
        (
            vec![
                json!({"record_id": QUOTE_ID, "action": "remove", "reason": "duplicate"}),
                json!({"record_id": QUOTE_ID, "action": "add", "span_key": "added:y",
                    "after": span(0, 4)}),
            ],
            "is removed by ana",
        ),
        (
            vec![
                json!({"id": 7, "record_id": QUOTE_ID, "action": "note", "note": "a"}),
                json!({"id": 8, "record_id": QUOTE_ID, "action": "flag"}),
                json!({"record_id": QUOTE_ID, "action": "undo", "target": 7}),
            ],
            // The file's lines are named, not their provisional ids (#1152921504606846976).
            "cannot undo the decision of line 2: the undo of ana would act on the decision of \
             line 3",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "redo", "target": 1})],
            "cannot redo decision #1: it is not a decision of ana",
        ),
        (
            vec![
                json!({"record_id": QUOTE_ID, "action": "drop", "span_key": "gold:0",
                "before": span(0, 4)}),
            ],
            "span gold:0 is [5, 9) \"contradiction\" now, not [0, 4)",
        ),
        (
            vec![
                json!({"record_id": QUOTE_ID, "action": "adjust", "span_key": "gold:0",
                "after": span(s, s + 4)}),
            ],
            "the adjust of span gold:0 changes nothing, or what it may not (only its boundaries",
        ),
        (
            vec![
                json!({"record_id": QUOTE_ID, "action": "add", "span_key": "added:z",
                "after": span(s, s + 4)}),
            ],
            "already keeps [5, 9) \"contradiction\" with that label",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "note", "note": " "})],
            "action note needs a note",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "clean", "dataset": "other"})],
            "the decision is on dataset \"other\"",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "clean", "spankey": "gold:0"})],
            "not a decision: unknown field `spankey`",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "clean", "target": 1})],
            "action clean takes no target",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "flag", "time": "yesterday"})],
            "bad time \"yesterday\": expected RFC 3339",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "flag", "time": "9999-12-31T23:59:59Z"})],
            "bad time \"9999-12-31T23:59:59Z\": expected RFC 3339 in UTC \
             (2026-11-30T05:52:34.123Z), years 1970 to 2099",
        ),
        (
            vec![json!({"record_id": QUOTE_ID, "action": "flag", "reviewer": ""})],
            "reviewer \"\" is empty",
        ),
    ];
    for (k, (lines, why)) in cases.into_iter().enumerate() {
        let dir = tempfile::tempdir().expect("tmp");
        let file = records(dir.path());
        let mut all = vec![json!({"record_id": "plain_2__overgeneration", "action": "flag"})];
        all.extend(lines);
        let n = all.len();
        let a = apply(dir.path(), &file, &all, &[]).code(1);
        let err = stderr(&a);
        assert!(err.contains(&format!("d.jsonl:{n}: ")), "case {k}: {err}");
        assert!(err.contains(why), "case {k}: want {why:?} in {err}");
        assert!(err.contains("nothing saved"), "case {k}: {err}");
        assert!(log(&dir.path().join("db.sqlite")).is_empty(), "case {k}");
    }
}

#[test]
fn offsets_are_code_points_and_the_export_slices_them() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path());
    let len = QUOTE.chars().count();
    let tokyo = QUOTE.chars().position(|c| c == '東').expect("東");
    let lines = [
        // The emoji with its skin tone and the last word: up to the last code point.
        json!({"record_id": QUOTE_ID, "action": "add", "span_key": "added:1",
            "after": {"start": len - 5, "end": len, "label": "contradiction"}}),
        json!({"record_id": QUOTE_ID, "action": "add", "span_key": "added:2",
            "after": {"start": tokyo, "end": tokyo + 2, "label": "contradiction"}}),
        json!({"record_id": QUOTE_ID, "action": "accept", "span_key": "gold:0"}),
    ];
    apply(dir.path(), &file, &lines, &[]).success();
    let out = dir.path().join("out.jsonl");
    bin()
        .arg("export")
        .arg(&file)
        .arg("--db")
        .arg(dir.path().join("db.sqlite"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).expect("out");
    let rec: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .find(|v| v["id"] == QUOTE_ID)
        .expect("record");
    let texts: Vec<&str> = rec["hallucination_labels"]
        .as_array()
        .expect("labels")
        .iter()
        .map(|l| l["text"].as_str().expect("text"))
        .collect();
    assert_eq!(texts, ["25°C", "👍🏽 ok", "東京"]);
}

#[test]
fn a_file_applied_twice_adds_nothing_the_second_time() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path());
    let db = dir.path().join("db.sqlite");
    let lines = [
        json!({"record_id": QUOTE_ID, "action": "accept", "span_key": "gold:0",
            "origin": "o-accept"}),
        json!({"id": 41, "record_id": QUOTE_ID, "action": "note", "note": "’°", "origin": "o-note"}),
        json!({"record_id": QUOTE_ID, "action": "undo", "target": 41, "origin": "o-undo"}),
    ];
    let a = apply(dir.path(), &file, &lines, &[]).success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(said.contains("3 decisions saved, 0 already"), "{said}");
    let first = log(&db);
    assert_eq!(first.len(), 3);
    // The undo names the note's id here, not the file's 41.
    assert_eq!(first[2].target, Some(first[1].id));
    let a = apply(dir.path(), &file, &lines, &[]).success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(said.contains("0 decisions saved, 3 already"), "{said}");
    assert_eq!(log(&db), first);
    let state = Store::open(&db)
        .expect("db")
        .record_state("records", QUOTE_ID)
        .expect("state")
        .expect("a state");
    assert!(state.reviewed, "{state:?}");
}

/// Lines without an `origin` (a triage file) get one derived from their content: the file
/// applied again, or regenerated with the same lines in another order, adds nothing; a line
/// that differs in any value (its `time` included) is a decision of its own, and a second copy
/// of a line in one file is a second decision (an undo, a redo and the same undo again is
/// three), counted so in every later run.
#[test]
fn a_file_without_origins_applied_twice_adds_nothing_the_second_time() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path());
    let db = dir.path().join("db.sqlite");
    let s = quote_start();
    let lines = [
        json!({"record_id": QUOTE_ID, "action": "adjust", "span_key": "gold:0",
            "after": {"start": s, "end": s + 2, "label": "contradiction"},
            "reason": "only the number 25° ’"}),
        json!({"record_id": QUOTE_ID, "action": "note", "note": "東京 👍🏽"}),
        json!({"record_id": QUOTE_ID, "action": "note", "note": "東京 👍🏽"}),
        json!({"record_id": QUOTE_ID, "action": "note", "note": "東京 👍🏽",
            "time": "2026-01-02T03:04:05Z"}),
        json!({"record_id": "plain_2__overgeneration", "action": "flag"}),
        json!({"id": 5, "record_id": "plain_2__overgeneration", "action": "note", "note": "°"}),
        json!({"record_id": "plain_2__overgeneration", "action": "undo", "target": 5}),
    ];
    let a = apply(dir.path(), &file, &lines, &[]).success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(said.contains("7 decisions saved, 0 already"), "{said}");
    let first = log(&db);
    assert_eq!(first.len(), 7);
    assert_eq!(
        first[6].target,
        Some(first[5].id),
        "the undo names the note"
    );
    let a = apply(dir.path(), &file, &lines, &[]).success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(said.contains("0 decisions saved, 7 already"), "{said}");
    assert_eq!(log(&db), first, "applied twice: nothing added");
    // Regenerated: the same lines, the notes in another order.
    let mut again = lines.to_vec();
    again.swap(1, 3);
    let a = apply(dir.path(), &file, &again, &[]).success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(said.contains("0 decisions saved, 7 already"), "{said}");
    assert_eq!(log(&db), first);
    // One value changed: a new decision.
    let other = [json!({"record_id": QUOTE_ID, "action": "note", "note": "東京 👍"})];
    apply(dir.path(), &file, &other, &[]).success();
    assert_eq!(log(&db).len(), 8);
}

#[test]
fn dry_run_checks_and_counts_but_saves_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path());
    let lines = [
        json!({"record_id": QUOTE_ID, "action": "accept", "span_key": "gold:0"}),
        json!({"record_id": "clean_3__clean", "action": "accept_all"}),
    ];
    let a = apply(dir.path(), &file, &lines, &["--dry-run"]).success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(said.contains("2 would be saved"), "{said}");
    assert!(log(&dir.path().join("db.sqlite")).is_empty());
    let bad = [json!({"record_id": QUOTE_ID, "action": "drop", "span_key": "gold:9"})];
    apply(dir.path(), &file, &bad, &["--dry-run"])
        .code(1)
        .stderr(predicates::str::contains("d.jsonl:1: record"));
}

/// The scripted review: every kind of key the screen saves, on every record.
fn review(db: &Path, file: &Path) {
    let store = Rc::new(Store::open(db).expect("db1"));
    let ds = spanreview::formats::Dataset::open(&[file.to_owned()], None).expect("records");
    let mut app = App::open(
        ds,
        Box::new(Rc::clone(&store)),
        "ana",
        Opening::new(
            QueueKind::All,
            spanreview::tui::config::Config::defaults(true),
        ),
    )
    .expect("app");
    let feed = |app: &mut App, actions: &[Action]| {
        for a in actions {
            app.update(*a);
        }
    };
    let typed = |app: &mut App, s: &str| {
        for c in s.chars() {
            app.update(Action::Input(c));
        }
        app.update(Action::Confirm);
    };
    use Action::{Accept, Add, Adjust, Confirm, CursorWordRight, Drop, EndLeft, Mark, Redo};
    use Action::{Flag, Note, Remove, StartRight, Undo};
    let ids: Vec<String> = (0..5)
        .map(|i| {
            app.go(i);
            app.cur.as_ref().expect("record").record.id.clone()
        })
        .collect();
    let at = |app: &mut App, id: &str| {
        let i = ids.iter().position(|x| x == id).expect("id");
        app.go(i);
    };
    at(&mut app, "uni_1__contradiction");
    feed(&mut app, &[Adjust, StartRight, EndLeft, Confirm]);
    feed(
        &mut app,
        &[Add, Mark, CursorWordRight, CursorWordRight, Mark, Confirm],
    );
    app.update(Note);
    typed(&mut app, "it’s 25°C in 東京 👍🏽");
    app.update(Flag);
    at(&mut app, "plain_2__overgeneration");
    app.update(Accept);
    app.update(Drop);
    typed(&mut app, "not a claim");
    feed(&mut app, &[Undo, Redo, Undo]);
    at(&mut app, "tool_4__missing_tool");
    feed(&mut app, &[Remove, Confirm, Undo, Action::Clean]);
    at(&mut app, QUOTE_ID);
    feed(&mut app, &[Action::AcceptAll]);
    let n = store.decisions(None).expect("log").len();
    assert!(n >= 12, "the script saved {n} decisions");
}

fn export(db: &Path, file: &Path, out: &Path) -> (Vec<u8>, Vec<u8>) {
    let (o, v) = (out.with_extension("jsonl"), out.with_extension("verdicts"));
    bin()
        .arg("export")
        .arg(file)
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(&o)
        .arg("--verdicts")
        .arg(&v)
        .assert()
        .success();
    (
        std::fs::read(o).expect("out"),
        std::fs::read(v).expect("verdicts"),
    )
}

/// The databases a test applies into: a new SQLite file in `dir`, and a new PostgreSQL database
/// (its URL carrying a password, never to be printed) when `SPANREVIEW_TEST_PG` names a server.
fn targets(dir: &Path) -> Vec<(PathBuf, Option<crate::pg_server::PgDb>)> {
    let mut v = vec![(dir.join("two.sqlite"), None)];
    if let Some(pg) = crate::pg_server::PgDb::create() {
        v.push((pg.path_with_password(PASSWORD), Some(pg)));
    }
    v
}

const PASSWORD: &str = "hunter2";

/// Neither output of a run shows the password of its database's URL.
fn no_password(a: &assert_cmd::assert::Assert) {
    let out = a.get_output();
    for text in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(text);
        assert!(!text.contains(PASSWORD), "{text}");
    }
}

#[test]
fn a_log_applied_to_a_fresh_database_exports_the_same_files() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path());
    let db1 = dir.path().join("one.sqlite");
    review(&db1, &file);
    let json = bin()
        .args(["decisions", "--json", "--db"])
        .arg(&db1)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    for (db2, _pg) in targets(dir.path()) {
        applied_into(&dir, &file, &db1, &db2, &json);
    }
}

/// `json` (the decisions of `db1`) applied twice into `db2` gives the same log, states and
/// export.
fn applied_into(dir: &tempfile::TempDir, file: &Path, db1: &Path, db2: &Path, json: &[u8]) {
    for _ in 0..2 {
        let a = bin()
            .arg("apply")
            .arg(file)
            .args(["--decisions", "-", "--db"])
            .arg(db2)
            .write_stdin(json.to_vec())
            .assert()
            .success();
        no_password(&a);
    }
    let (one, two) = (log(db1), log(db2));
    assert_eq!(one.len(), two.len(), "the second apply added nothing");
    let strip = |d: &Decision| Decision {
        id: 0,
        target: None,
        ..d.clone()
    };
    assert_eq!(
        one.iter().map(strip).collect::<Vec<_>>(),
        two.iter().map(strip).collect::<Vec<_>>()
    );
    assert!(one.iter().any(|d| d.action == ActionKind::Undo));
    let states = |db: &Path| {
        Store::open(db)
            .expect("db")
            .record_states("records")
            .expect("st")
    };
    assert_eq!(states(db1), states(db2));
    let a = export(db1, file, &dir.path().join("a"));
    let b = export(db2, file, &dir.path().join("b"));
    assert!(a == b, "the exports differ");
    assert_ne!(
        a.0,
        std::fs::read(file).expect("in"),
        "the review changed something"
    );
}

#[test]
fn applies_running_at_once_lose_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = records(dir.path());
    for (db, _pg) in targets(dir.path()) {
        at_once(dir.path(), &file, &db);
    }
}

/// 4 `apply` processes of 25 notes each into `db` at once: all 100 saved.
fn at_once(dir: &Path, file: &Path, db: &Path) {
    let children: Vec<std::process::Child> = (0..4)
        .map(|k| {
            let d = dir.join(format!("d{k}.jsonl"));
            let lines: String = (0..25)
                .map(|i| {
                    let l = json!({"record_id": QUOTE_ID, "action": "note",
                        "note": format!("{k}/{i} ’°")});
                    format!("{l}\n")
                })
                .collect();
            std::fs::write(&d, lines).expect("write");
            std::process::Command::new(env!("CARGO_BIN_EXE_spanreview"))
                .arg("apply")
                .arg(file)
                .arg("--decisions")
                .arg(&d)
                .arg("--db")
                .arg(db)
                .args(["--reviewer", &format!("r{k}")])
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().expect("wait").success());
    }
    assert_eq!(log(db).len(), 100);
}

#[test]
fn records_and_decisions_cannot_both_be_stdin() {
    let dir = tempfile::tempdir().expect("tmp");
    bin()
        .args(["apply", "-", "--decisions", "-", "--db"])
        .arg(dir.path().join("db.sqlite"))
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cannot both be standard input"));
}
