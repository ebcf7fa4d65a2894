//! Integration tests: a hostile corpus (`tests/fixtures/hostile/corpus.json`: CSI, OSC 52, OSC 8,
//! DCS, C1 controls, bidirectional controls, NUL, newlines) fed to every channel that reaches a
//! terminal or a log: `validate`, `compare`, `decisions` (table and `--json`), `stats`,
//! `export`'s messages, errors naming paths, and `review.log`. No raw control character (but the
//! newline between lines), C1, ESC or bidirectional control may come out; `--json` output stays
//! valid JSON and reads back as the same strings.

use std::path::{Path, PathBuf};

use serde_json::Value;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::store::Store;

use crate::common::{bin, fixture};

/// The corpus: (name, hostile text).
pub(crate) fn corpus() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(fixture("hostile/corpus.json")).expect("corpus");
    let v: Vec<Value> = serde_json::from_str(&text).expect("corpus is JSON");
    v.iter()
        .map(|e| {
            (
                e["name"].as_str().expect("name").to_owned(),
                e["text"].as_str().expect("text").to_owned(),
            )
        })
        .collect()
}

/// Every hostile string of the corpus, one after the other.
pub(crate) fn all_hostile() -> String {
    corpus().into_iter().map(|(_, t)| t).collect()
}

/// The corpus as one command-line argument or file name: no NUL (which neither can hold), no
/// `/`, `=` (which would split a path or a `--judge NAME=FILE`).
pub(crate) fn hostile_arg() -> String {
    all_hostile().replace(['/', '=', '\0'], "_")
}

/// What must never reach a terminal: C0 controls but the newline, DEL, C1 controls, and the
/// bidirectional embeddings, overrides, isolates and marks.
pub(crate) fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
}

/// Fail naming the channel, the line and the character when `bytes` hold a forbidden one.
pub(crate) fn assert_clean(channel: &str, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes)
        .unwrap_or_else(|e| panic!("{channel}: not UTF-8 ({e}): {bytes:?}"));
    for (n, line) in text.split('\n').enumerate() {
        if let Some(c) = line.chars().find(|&c| forbidden(c)) {
            panic!(
                "{channel}: line {} holds U+{:04X} raw: {line:?}",
                n + 1,
                u32::from(c)
            );
        }
    }
}

/// Each line of `bytes` parses as JSON and holds no forbidden character; the values.
pub(crate) fn json_lines(channel: &str, bytes: &[u8]) -> Vec<Value> {
    assert_clean(channel, bytes);
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{channel}: {e}: {l}")))
        .collect()
}

/// Every string anywhere in `v` (keys included).
pub(crate) fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

pub(crate) fn run(cmd: &mut assert_cmd::Command) -> std::process::Output {
    cmd.output().expect("runs")
}

/// Run the command `build` sets up (told whether this is the `--json` run) as it is and then
/// with `--json`: both exit 0. Their outputs, the plain one first.
pub(crate) fn plain_and_json(
    build: impl Fn(&mut assert_cmd::Command, bool),
) -> [std::process::Output; 2] {
    [false, true].map(|json| {
        let mut cmd = bin();
        build(&mut cmd, json);
        if json {
            cmd.arg("--json");
        }
        let out = run(&mut cmd);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        out
    })
}

/// The ids of the hostile records, in file order.
pub(crate) fn record_ids() -> Vec<String> {
    let text = std::fs::read_to_string(fixture("hostile/records.jsonl")).expect("records");
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("record");
            v["id"].as_str().expect("id").to_owned()
        })
        .collect()
}

#[test]
fn validate_text_escapes_messages_and_the_summary() {
    let out = run(bin().arg("validate").arg(fixture("hostile/records.jsonl")));
    assert_eq!(out.status.code(), Some(1));
    assert_clean("validate stdout", &out.stdout);
    assert_clean("validate stderr", &out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    // The example: the corruption type in the summary, escaped, not dropped.
    assert!(
        text.contains("t\\u{1b}]52;c;UFdORUQ=\\u{7}\\u{1b}[2J"),
        "{text}"
    );
    // A C1 control and a bidi override in a quoted id, in the message's JSON notation.
    assert!(text.contains("\\u009b2J"), "{text}");
    assert!(text.contains("\\u202eevil"), "{text}");
}

#[test]
fn validate_json_stays_valid_and_keeps_the_values() {
    let out = run(bin()
        .args(["validate", "--json"])
        .arg(fixture("hostile/records.jsonl")));
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines("validate --json", &out.stdout);
    let summary = &lines.last().expect("summary")["summary"];
    let types: Vec<&String> = summary["by_corruption_type"]
        .as_object()
        .expect("types")
        .keys()
        .collect();
    for (name, h) in corpus() {
        assert!(types.contains(&&h), "{name}: {h:?} not among {types:?}");
    }
}

#[test]
fn validate_messages_naming_hostile_paths_and_ids() {
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    // Two files sharing base ids: the split-leakage message names the other file.
    let a = dir.path().join(format!("a{h}.jsonl"));
    let b = dir.path().join(format!("b{h}.jsonl"));
    std::fs::copy(fixture("hostile/records.jsonl"), &a).expect("copy");
    std::fs::copy(fixture("hostile/records.jsonl"), &b).expect("copy");
    for args in [vec![], vec!["--json"]] {
        let out = run(bin().arg("validate").args(&args).arg(&a).arg(&b));
        assert_eq!(out.status.code(), Some(1));
        assert_clean("validate stdout (paths)", &out.stdout);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("split leakage"), "{text}");
        if !args.is_empty() {
            let lines = json_lines("validate --json (paths)", &out.stdout);
            assert_eq!(lines[0]["file"], a.display().to_string());
        }
    }
}

#[test]
fn compare_table_json_and_warnings() {
    let records = fixture("hostile/records.jsonl");
    let preds = fixture("hostile/predictions_detector.jsonl");
    let out = run(bin()
        .arg("compare")
        .arg(&records)
        .arg(&preds)
        .arg("--by-type"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_clean("compare stdout", &out.stdout);
    assert_clean("compare stderr", &out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  \\u{9b}2J"), "{text}");
    // One row per type: a newline in a type does not make a line of its own.
    assert!(
        !text.lines().any(|l| l.starts_with("INFO forged")),
        "{text}"
    );
    let out = run(bin().arg("compare").arg(&records).arg(&preds).arg("--json"));
    let lines = json_lines("compare --json", &out.stdout);
    let types: Vec<&String> = lines[0]["by_type"]
        .as_object()
        .expect("by_type")
        .keys()
        .collect();
    for (_, h) in corpus() {
        assert!(types.contains(&&h), "{h:?} not among {types:?}");
    }
    // A hostile source name (a --judge NAME) in the table, the JSON and the warnings.
    let name = format!("judge{}", hostile_arg());
    let spec = format!("{name}={}", preds.display());
    let [plain, json] = plain_and_json(|cmd, _| {
        cmd.arg("compare").arg(&records).arg("--judge").arg(&spec);
    });
    for out in [&plain, &json] {
        assert_clean("compare --judge stdout", &out.stdout);
        assert_clean("compare --judge stderr", &out.stderr);
    }
    let lines = json_lines("compare --judge --json", &json.stdout);
    assert!(lines.iter().any(|l| l["b"] == name.as_str()), "{lines:?}");
}

/// A database with decisions whose every text field is hostile, on the hostile records (with
/// a hash they do not have: `stats` and `export` call them stale and list them).
pub(crate) fn hostile_db(db: &Path, dataset: &str) -> Vec<Decision> {
    let store = Store::open(db).expect("open");
    let mut saved = Vec::new();
    for ((_, h), id) in corpus().into_iter().zip(record_ids()) {
        let mut d = Decision::about(
            dataset,
            &format!("ana{h}"),
            &id,
            "feedc0ffee",
            ActionKind::Adjust,
        );
        d.span_key = Some(format!("gold:0{h}"));
        d.before = Some(SpanValue::new(23, 28, format!("contradiction{h}")));
        d.after = Some(SpanValue::new(23, 27, format!("missing_tool{h}")));
        d.reason = Some(format!("why{h}"));
        d.note = Some(format!("note{h}"));
        saved.push(store.append(&d, None).expect("append"));
    }
    saved
}

#[test]
fn decisions_table_escapes_every_field() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("log.sqlite");
    hostile_db(&db, &format!("ds{}", all_hostile()));
    let out = run(bin().arg("decisions").arg("--db").arg(&db));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_clean("decisions stdout", &out.stdout);
    let text = String::from_utf8_lossy(&out.stdout);
    // A header and one line per decision.
    assert_eq!(text.lines().count(), 1 + corpus().len(), "{text}");
    assert!(text.contains("\\u{202e}evil"), "{text}");
}

#[test]
fn decisions_json_is_valid_and_round_trips() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("log.sqlite");
    let saved = hostile_db(&db, &format!("ds{}", all_hostile()));
    let out = run(bin().args(["decisions", "--json", "--db"]).arg(&db));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = json_lines("decisions --json", &out.stdout);
    let read: Vec<Decision> = lines
        .into_iter()
        .map(|v| serde_json::from_value(v).expect("a decision"))
        .collect();
    assert_eq!(read, saved);
    // And a warning naming the database and a dataset it does not have.
    let out = run(bin()
        .args([
            "decisions",
            "--dataset",
            &format!("nope{}", hostile_arg()),
            "--db",
        ])
        .arg(&db));
    assert_clean("decisions stderr", &out.stderr);
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning"));
}

#[test]
fn stats_table_json_and_stale_warnings() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("log.sqlite");
    hostile_db(&db, "records");
    let preds = fixture("hostile/predictions_detector.jsonl");
    let spec = format!("judge{}={}", hostile_arg(), preds.display());
    let [plain, json] = plain_and_json(|cmd, _| {
        cmd.arg("stats")
            .arg(fixture("hostile/records.jsonl"))
            .arg("--judge")
            .arg(&spec)
            .arg("--db")
            .arg(&db);
    });
    for out in [&plain, &json] {
        assert_clean("stats stderr", &out.stderr);
        assert!(String::from_utf8_lossy(&out.stderr).contains("stale"));
    }
    assert_clean("stats stdout", &plain.stdout);
    let v = &json_lines("stats --json", &json.stdout)[0];
    let mut all = Vec::new();
    strings(v, &mut all);
    assert!(
        all.iter().any(|s| s.starts_with("judge\u{1b}[2J")),
        "{all:?}"
    );
}

#[test]
fn export_messages_name_hostile_paths_ids_and_lines() {
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    let input = dir.path().join(format!("in{h}.jsonl"));
    let mut text = std::fs::read_to_string(fixture("hostile/records.jsonl")).expect("records");
    // A line cut short after its id: reported as FILE:LINE, its id quoted.
    text.push_str("{\"id\": \"cut\\u001b]52;c;UFdORUQ=\\u0007\\u202e\", \"output\": \n");
    std::fs::write(&input, text).expect("write");
    let stem = input
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned();
    let db = dir.path().join("log.sqlite");
    hostile_db(&db, &stem);
    let out = run(bin()
        .arg("export")
        .arg(&input)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(dir.path().join(format!("out{h}.jsonl"))));
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert_clean("export stdout", &out.stdout);
    assert_clean("export stderr", &out.stderr);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("stale") || err.contains("not applied"),
        "{err}"
    );
    // The unreadable line is reported under the input's path, escaped.
    assert!(err.contains("in\\u{1b}[2J"), "{err}");
}

#[test]
fn errors_naming_hostile_paths() {
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    let missing: PathBuf = dir.path().join(format!("missing{h}.jsonl"));
    let runs: Vec<(&str, assert_cmd::Command)> = vec![
        ("validate", {
            let mut c = bin();
            c.arg("validate").arg(&missing);
            c
        }),
        ("compare", {
            let mut c = bin();
            c.arg("compare").arg(&missing);
            c
        }),
        ("decisions", {
            let mut c = bin();
            c.arg("decisions").arg("--db").arg(&missing);
            c
        }),
        ("export", {
            let mut c = bin();
            c.arg("export")
                .arg(&missing)
                .arg("--db")
                .arg(&missing)
                .arg("--out")
                .arg(dir.path().join("out.jsonl"));
            c
        }),
        ("validate --labels", {
            let mut c = bin();
            c.arg("validate")
                .arg("--labels")
                .arg(&missing)
                .arg(fixture("hostile/records.jsonl"));
            c
        }),
    ];
    for (what, mut cmd) in runs {
        let out = run(&mut cmd);
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        assert_clean(what, &out.stderr);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("missing\\u{1b}[2J"), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
    }
}

#[test]
fn usage_errors_quoting_a_hostile_argument() {
    let h = hostile_arg();
    let runs: Vec<(&str, Vec<String>)> = vec![
        (
            "bad --format",
            vec!["validate".into(), "--format".into(), h.clone(), "x".into()],
        ),
        (
            "bad --judge",
            vec![
                "compare".into(),
                "x".into(),
                "--judge".into(),
                format!("gold{h}"),
            ],
        ),
        ("unknown option", vec!["validate".into(), format!("--{h}")]),
    ];
    for (what, args) in runs {
        let out = run(bin().args(&args));
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        assert_clean(what, &out.stderr);
        assert_clean(what, &out.stdout);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("\\u{202e}evil"),
            "{what}: {out:?}"
        );
    }
}

#[test]
fn review_log_lines_are_escaped() {
    use super::terminal::{bin as exe, env, shell_quote, Tmux};
    let dir = tempfile::tempdir().expect("tmp");
    let h = hostile_arg();
    let db = dir.path().join(format!("db{h}.sqlite"));
    let mut vars = env(dir.path());
    // Through the environment: tmux's command line would not carry these bytes intact.
    vars.push(("HOSTILE_DB", db.display().to_string()));
    vars.push(("HOSTILE_NAME", format!("ds{}", hostile_arg())));
    let cmd = format!(
        "sh -c \"{} review {} --db \\\"\\$HOSTILE_DB\\\" --dataset \\\"\\$HOSTILE_NAME\\\" \
         --reviewer e2e --queue all; echo exit=\\$?; sleep 600\"",
        exe(),
        shell_quote(&fixture("hostile/records.jsonl")),
    );
    let Some(t) = Tmux::start("hostile", &cmd, &vars) else {
        return;
    };
    t.wait("Spans (1)");
    t.press(&["c"], "saved #1");
    t.press(&["q"], "exit=0");
    let log = std::fs::read(dir.path().join("review.log")).expect("log file");
    assert_clean("review.log", &log);
    let text = String::from_utf8_lossy(&log);
    // One line per event: opened, the decision, closed.
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.contains("decision saved"), "{text}");
    assert!(text.contains("csi_0\\u{1b}[2J"), "{text}");
    assert!(text.contains("dataset=ds\\u{1b}[2J"), "{text}");
    assert!(
        text.contains("db=") && text.contains("db\\u{1b}[2J"),
        "{text}"
    );
}
