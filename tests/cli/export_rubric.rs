//! Integration tests: `export --rubric` counts the decisions per reason code in the report with
//! each code's description and copies the rubric beside the export; `stats --rubric` shows the
//! same counts.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::apply_rubric::{coded_lines, RUBRIC};
use crate::common::{bin, fixture};

/// A database holding [`coded_lines`] and a rubric file in `dir/in/`.
fn setup(dir: &Path) -> (PathBuf, PathBuf) {
    let input = dir.join("in");
    std::fs::create_dir(&input).expect("mkdir");
    let rubric = input.join("team-rubric.toml");
    std::fs::write(&rubric, RUBRIC).expect("rubric");
    let d = dir.join("d.jsonl");
    let text: String = coded_lines().iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&d, text).expect("decisions");
    let db = dir.join("db.sqlite");
    bin()
        .arg("apply")
        .arg(fixture("review/records.jsonl"))
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(&db)
        .args(["--reviewer", "ana"])
        .arg("--rubric")
        .arg(&rubric)
        .assert()
        .success();
    (db, rubric)
}

fn export(db: &Path, out: &Path, extra: &[&std::ffi::OsStr]) -> assert_cmd::assert::Assert {
    bin()
        .arg("export")
        .arg(fixture("review/records.jsonl"))
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(out.join("reviewed.jsonl"))
        .arg("--report")
        .arg(out.join("report.md"))
        .args(extra)
        .assert()
}

#[test]
fn export_report_counts_decisions_per_reason_with_the_rubrics_descriptions() {
    let dir = tempfile::tempdir().expect("tmp");
    let (db, rubric) = setup(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir(&out).expect("mkdir");
    export(&db, &out, &["--rubric".as_ref(), rubric.as_os_str()]).success();
    let report = std::fs::read_to_string(out.join("report.md")).expect("report");
    let at = report.find("## Decisions per reason").expect("section");
    let rows: Vec<&str> = report[at..]
        .lines()
        .skip_while(|l| !l.starts_with("|---"))
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(
        rows,
        [
            "| drop | `V1` | span text is supported by the context (25°C) | 2 |",
            "| drop | `V2` | not a hallucination: it’s a hedge | 1 |",
            "| remove | `Q1` | answer does not address the request 東京 | 1 |",
            "| flag | `確認` | needs a second look 👀 | 1 |",
            "| flag | `misquote` | the edit's old block is not in the context | 1 |",
        ],
        "{report}"
    );
    assert!(
        report.contains(&format!("the rubric `{}`", rubric.display())),
        "{report}"
    );
    // The rubric is copied beside the export, byte for byte, and listed in the manifest.
    let copy = out.join("team-rubric.toml");
    assert_eq!(std::fs::read_to_string(&copy).expect("copy"), RUBRIC);
    let manifest =
        std::fs::read_to_string(out.join(".reviewed.jsonl.manifest.json")).expect("manifest");
    assert!(manifest.contains("team-rubric.toml"), "{manifest}");
    assert!(manifest.contains("\"complete\""), "{manifest}");
}

#[test]
fn export_without_a_rubric_still_counts_per_reason() {
    let dir = tempfile::tempdir().expect("tmp");
    let (db, _) = setup(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir(&out).expect("mkdir");
    export(&db, &out, &[]).success();
    let report = std::fs::read_to_string(out.join("report.md")).expect("report");
    assert!(
        report.contains("| drop | `V1` | (not in the rubric) | 2 |"),
        "{report}"
    );
    assert!(
        report.contains("| flag | `misquote` | the edit's old block is not in the context | 1 |"),
        "{report}"
    );
    assert!(!out.join("team-rubric.toml").exists());
}

#[test]
fn export_with_a_bad_rubric_writes_nothing_and_names_the_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let (db, rubric) = setup(dir.path());
    std::fs::write(&rubric, "[drop]\n\"V 1\" = \"x\"\n").expect("rubric");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).expect("mkdir");
    let a = export(&db, &out, &["--rubric".as_ref(), rubric.as_os_str()]).code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains(&format!("{}:2: code \"V 1\" has spaces", rubric.display())),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&out).expect("ls").count(),
        0,
        "something written"
    );
}

#[test]
fn export_rubric_already_beside_the_export_is_not_copied_over_itself() {
    let dir = tempfile::tempdir().expect("tmp");
    let (db, rubric) = setup(dir.path());
    let out = rubric.parent().expect("folder").to_path_buf();
    export(&db, &out, &["--rubric".as_ref(), rubric.as_os_str()]).success();
    assert_eq!(std::fs::read_to_string(&rubric).expect("rubric"), RUBRIC);
    // An output named like the rubric's copy is refused before anything is written.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).expect("mkdir");
    let a = bin()
        .arg("export")
        .arg(fixture("review/records.jsonl"))
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(other.join("team-rubric.toml"))
        .arg("--rubric")
        .arg(&rubric)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("would replace the output"), "{err}");
    assert_eq!(std::fs::read_dir(&other).expect("ls").count(), 0);
}

#[test]
fn export_rubric_stats_show_the_same_per_reason_counts() {
    let dir = tempfile::tempdir().expect("tmp");
    let (db, rubric) = setup(dir.path());
    let run = |json: bool| {
        let mut c = bin();
        c.arg("stats")
            .arg(fixture("review/records.jsonl"))
            .arg("--db")
            .arg(&db)
            .arg("--rubric")
            .arg(&rubric);
        if json {
            c.arg("--json");
        }
        let a = c.assert().success();
        String::from_utf8_lossy(&a.get_output().stdout).into_owned()
    };
    let text = run(false);
    let at = text.find("Decisions per reason:").expect("table");
    let table: Vec<&str> = text[at..].lines().skip(1).collect();
    assert_eq!(
        table,
        [
            "  drop    V1            2  span text is supported by the context (25°C)",
            "  drop    V2            1  not a hallucination: it’s a hedge",
            "  remove  Q1            1  answer does not address the request 東京",
            "  flag    確認          1  needs a second look 👀",
            "  flag    misquote      1  the edit's old block is not in the context",
        ],
        "{text}"
    );
    let v: Value = serde_json::from_str(&run(true)).expect("json");
    let rows = v["reasons"].as_array().expect("reasons");
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0]["action"], "drop");
    assert_eq!(rows[0]["code"], "V1");
    assert_eq!(rows[0]["decisions"], 2);
    // Without --rubric the key is not there (the JSON as before).
    let mut c = bin();
    c.arg("stats")
        .arg(fixture("review/records.jsonl"))
        .arg("--db")
        .arg(&db)
        .arg("--json");
    let a = c.assert().success();
    let v: Value = serde_json::from_slice(&a.get_output().stdout).expect("json");
    assert!(v.get("reasons").is_none());
}

/// A log older than the rubric (free-text reasons) still exports: its reasons count as having
/// no code, a one-word one as a code the rubric lacks.
#[test]
fn export_rubric_counts_an_older_logs_free_text_reasons_as_uncoded() {
    let dir = tempfile::tempdir().expect("tmp");
    let (_, rubric) = setup(dir.path());
    let db = dir.path().join("old.sqlite");
    let d = dir.path().join("old.jsonl");
    let lines = [
        serde_json::json!({"record_id": "uni_1__contradiction", "action": "drop",
            "span_key": "gold:0", "reason": "it’s fine at 25°C"}),
        serde_json::json!({"record_id": "plain_2__overgeneration", "action": "drop",
            "span_key": "gold:0"}),
        serde_json::json!({"record_id": "tool_4__missing_tool", "action": "remove",
            "reason": "incoherent"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&d, text).expect("decisions");
    bin()
        .arg("apply")
        .arg(fixture("review/records.jsonl"))
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(&db)
        .args(["--reviewer", "ana"])
        .assert()
        .success();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).expect("mkdir");
    export(&db, &out, &["--rubric".as_ref(), rubric.as_os_str()]).success();
    let report = std::fs::read_to_string(out.join("report.md")).expect("report");
    for row in [
        "| drop | – | (no reason code) | 2 |",
        "| remove | `incoherent` | (not in the rubric) | 1 |",
    ] {
        assert!(report.contains(row), "no {row:?} in:\n{report}");
    }
    assert!(!report.contains("| drop | `V1`"), "{report}");
}
