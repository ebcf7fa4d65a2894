//! Dataset folders as the Hugging Face Hub serves them (`spanreview validate D`, `--config`,
//! `--split`), on the layouts `tests/fixtures/hub/make.py` makes from the bundled sample: the
//! JSONL ones with the standard library (always), the parquet ones with real `datasets` in the
//! venv of `.ci/venv.sh` (skipped, with a SKIP line, when SPANREVIEW_TEST_PYTHON is unset).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use spanreview::cli::hub_args::HubArgs;
use spanreview::formats::hub::Folder;
use spanreview::formats::Dataset;
use spanreview::tui::app::{App, Opening};
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;

use super::app_harness::{mem, render};
use super::common::{bin, root, stderr};

/// The layouts of `make.py` under a new folder, made by `python` (`--jsonl`: the JSONL ones).
pub(super) fn made(python: &str, jsonl_only: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = Command::new(python);
    cmd.arg(root().join("tests/fixtures/hub/make.py"));
    if jsonl_only {
        cmd.arg("--jsonl");
    }
    let out = cmd.arg(dir.path()).output().expect("make.py runs");
    assert!(
        out.status.success(),
        "make.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// The JSONL layouts (`jsonl/`: configs combined and contradiction; `jsonl-default/`).
pub(super) fn jsonl() -> tempfile::TempDir {
    made("python3", true)
}

/// The venv's python (`.ci/venv.sh`), or `None` after a SKIP line.
pub(super) fn venv_python() -> Option<String> {
    let py = std::env::var("SPANREVIEW_TEST_PYTHON")
        .ok()
        .filter(|p| !p.is_empty());
    if py.is_none() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIP: SPANREVIEW_TEST_PYTHON is not set (eval \"$(.ci/venv.sh)\"): the tests on parquet folders made by datasets are skipped"
            );
        });
    }
    py
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

#[test]
fn validate_of_a_folder_reports_every_config_and_split() {
    let fx = jsonl();
    let d = fx.path().join("jsonl");
    let a = bin().arg("validate").arg(&d).assert().code(0);
    let out = stdout(&a);
    let shown = d.display();
    assert!(out.contains(&format!("summary of {shown} config combined: 175 records in 3 files: split train: {shown}/combined/train-00000-of-00001.jsonl (ragtruth) 126")), "{out}");
    assert!(out.contains("by split: train 126 records, 0 problems; validation 17 records, 0 problems; test 32 records, 0 problems"), "{out}");
    assert!(
        out.contains(&format!(
            "summary of {shown} config contradiction: 31 records in 3 files"
        )),
        "{out}"
    );
    // Records shared by two configs are no split leakage: each config is checked on its own.
    assert!(!out.contains("split leakage"), "{out}");
    // One config, one split.
    let a = bin()
        .arg("validate")
        .arg(&d)
        .args(["--config", "contradiction", "--split", "test", "--json"])
        .assert()
        .code(0);
    let lines: Vec<Value> = stdout(&a)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let [summary] = lines.as_slice() else {
        panic!("{lines:?}")
    };
    assert_eq!(summary["summary"]["config"], "contradiction");
    assert_eq!(summary["summary"]["records"], 6);
    assert_eq!(summary["summary"]["files"][0]["split"], "test");
    // The default layout (no `configs` in the card).
    let a = bin()
        .arg("validate")
        .arg(fx.path().join("jsonl-default"))
        .assert()
        .code(0);
    assert!(
        stdout(&a).contains("config default: 175 records in 3 files"),
        "{}",
        stdout(&a)
    );
}

#[test]
fn validate_names_the_split_of_each_bad_record_and_the_leak_between_splits() {
    let fx = jsonl();
    let d = fx.path().join("jsonl");
    // A record of validation copied into test: the same base in two splits, and a span
    // whose text is not the answer's (over non-ASCII text).
    let val = d.join("combined/validation-00000-of-00001.jsonl");
    let first = std::fs::read_to_string(&val)
        .expect("read")
        .lines()
        .next()
        .expect("a line")
        .to_owned();
    let mut bad: Value = serde_json::from_str(&first).expect("json");
    bad["id"] = json!("leaked°");
    bad["output"] = json!("Il fait 21 °C à Paris’ — 東京 😀");
    bad["hallucination_labels"] =
        json!([{"start": 8, "end": 13, "label": "contradiction", "text": "21 °F"}]);
    let test = d.join("combined/test-00000-of-00001.jsonl");
    let mut text = std::fs::read_to_string(&test).expect("read");
    text.push_str(&format!("{bad}\n"));
    std::fs::write(&test, text).expect("write");
    let a = bin()
        .arg("validate")
        .arg(&d)
        .args(["--config", "combined"])
        .assert()
        .code(1);
    let out = stdout(&a);
    let at = format!("{}:33: [split test] ", test.display());
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&at)).collect();
    assert!(lines.iter().any(|l| l.contains("21 °F")), "{out}");
    assert!(lines.iter().any(|l| l.contains("split leakage")), "{out}");
    assert!(out.contains("by split: train 126 records, 0 problems; validation 17 records, 0 problems; test 33 records, 4 problems"), "{out}");
    assert!(
        !out.contains("config contradiction"),
        "--config combined only: {out}"
    );
}

#[test]
fn a_missing_config_or_split_or_a_broken_card_says_what_there_is() {
    let fx = jsonl();
    let d = fx.path().join("jsonl");
    let card = d.join("README.md");
    let a = bin()
        .arg("validate")
        .arg(&d)
        .args(["--split", "dev"])
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains(&format!(
            "{}: config \"combined\" has no split \"dev\" (it has: train, validation, test)",
            card.display()
        )),
        "{}",
        stderr(&a)
    );
    let a = bin()
        .arg("stats")
        .arg(&d)
        .args(["--config", "fabricated"])
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains("no config \"fabricated\" (the card has: combined, contradiction)"),
        "{}",
        stderr(&a)
    );
    let a = bin()
        .arg("validate")
        .arg(root().join("data/toolace/test_records_reconstructed.jsonl"))
        .args(["--split", "test"])
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains("none of the files given is a folder"),
        "{}",
        stderr(&a)
    );
    // A card whose YAML does not parse: its line.
    let text = std::fs::read_to_string(&card).expect("card");
    std::fs::write(
        &card,
        text.replacen("  data_files:\n", "  data_files: [\n", 1),
    )
    .expect("write");
    let a = bin().arg("validate").arg(&d).assert().code(2);
    assert!(
        stderr(&a).contains(&format!("{}:", card.display()))
            && stderr(&a).contains("the YAML front matter does not parse"),
        "{}",
        stderr(&a)
    );
}

#[test]
fn other_commands_read_the_split_chosen_under_a_name_of_folder_config_and_split() {
    let fx = jsonl();
    let d = fx.path().join("jsonl");
    let db = fx.path().join("db.sqlite");
    // Without --split, the config's three files cannot be one records file yet: said, named.
    let a = bin()
        .arg("stats")
        .arg(&d)
        .arg("--db")
        .arg(&db)
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains("config \"combined\" has 3 files: train ("),
        "{}",
        stderr(&a)
    );
    assert!(
        stderr(&a).contains("choose one with --split"),
        "{}",
        stderr(&a)
    );
    // A decision applied to contradiction/test is on dataset jsonl/contradiction/test.
    let test = d.join("contradiction/test-00000-of-00001.jsonl");
    let first = std::fs::read_to_string(&test)
        .expect("read")
        .lines()
        .next()
        .expect("a line")
        .to_owned();
    let id = serde_json::from_str::<Value>(&first).expect("json")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let decisions = fx.path().join("d.jsonl");
    std::fs::write(
        &decisions,
        format!("{}\n", json!({"record_id": id, "action": "clean"})),
    )
    .expect("write");
    bin()
        .arg("apply")
        .arg(&d)
        .args([
            "--config",
            "contradiction",
            "--split",
            "test",
            "--reviewer",
            "ana",
            "--decisions",
        ])
        .arg(&decisions)
        .arg("--db")
        .arg(&db)
        .assert()
        .code(0);
    let a = bin()
        .args(["decisions", "--json", "--db"])
        .arg(&db)
        .assert()
        .code(0);
    let rows: Vec<Value> = stdout(&a)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["dataset"], "jsonl/contradiction/test", "{rows:?}");
    let a = bin()
        .arg("stats")
        .arg(&d)
        .args([
            "--config",
            "contradiction",
            "--split",
            "test",
            "--json",
            "--db",
        ])
        .arg(&db)
        .assert()
        .code(0);
    let s: Value = serde_json::from_str(stdout(&a).trim()).expect("json");
    assert!(s.to_string().contains("\"records\":6"), "{s}");
}

/// The review screen's app over the folder `d` as `--config`/`--split` choose it.
fn review_folder(d: &Path, config: &str, split: &str) -> App {
    let hub = HubArgs {
        config: Some(config.to_owned()),
        split: Some(split.to_owned()),
    };
    let mut files: Vec<PathBuf> = vec![d.to_path_buf()];
    let mut name = None;
    hub.select(&mut files, Some(&mut name)).expect("selects");
    let mut ds = Dataset::open(&files, None).expect("opens");
    ds.name = name.expect("a name");
    let opening = Opening::new(QueueKind::All, Config::defaults(true));
    App::open(ds, Box::new(mem()), "tester", opening).expect("app")
}

#[test]
fn the_review_header_names_the_config_and_split() {
    let fx = jsonl();
    let mut app = review_folder(&fx.path().join("jsonl"), "combined", "validation");
    let screen = render(&mut app, 160, 30);
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.contains("jsonl/combined/validation"), "{screen}");
    assert_eq!(app.dataset.len(), 17);
}

/// What `datasets` itself resolves for `config` of the folder `d`: `[[split, [file, ...]], ...]`
/// in its order.
fn datasets_resolution(python: &str, d: &Path, config: Option<&str>) -> Value {
    let script = "import json, sys, datasets\nb = datasets.load_dataset_builder(sys.argv[1], sys.argv[2] or None)\nprint(json.dumps([[str(s), [str(f) for f in fs]] for s, fs in b.config.data_files.items()]))";
    let out = Command::new(python)
        .args(["-c", script])
        .arg(d)
        .arg(config.unwrap_or(""))
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn the_folders_resolve_as_datasets_resolves_them() {
    let Some(py) = venv_python() else { return };
    let fx = made(&py, false);
    for (layout, config) in [
        ("configs", Some("combined")),
        ("configs", Some("contradiction")),
        ("default", None),
        ("jsonl", Some("contradiction")),
        ("jsonl-default", None),
    ] {
        let d = fx.path().join(layout).canonicalize().expect("dir");
        let want = datasets_resolution(&py, &d, config);
        let folder = Folder::open(&d).expect("folder");
        // Split by split in the order `datasets` gives them, each split's files in order.
        let mut got: Vec<(String, Vec<String>)> = Vec::new();
        for h in folder.files(config, None).expect("files") {
            let path = h.path.display().to_string();
            match got.last_mut() {
                Some((s, files)) if *s == h.split => files.push(path),
                _ => got.push((h.split, vec![path])),
            }
        }
        assert_eq!(json!(got), want, "{layout} {config:?}");
    }
}

#[test]
fn parquet_folders_made_by_datasets_validate_per_config_and_split() {
    let Some(py) = venv_python() else { return };
    let fx = made(&py, false);
    for (layout, want) in [
        ("configs", "config combined: 175 records in 3 files"),
        ("default", "config default: 175 records in 3 files"),
        ("mixed", "config combined: 175 records in 3 files"),
    ] {
        let a = bin()
            .arg("validate")
            .arg(fx.path().join(layout))
            .assert()
            .code(0);
        assert!(stdout(&a).contains(want), "{layout}: {}", stdout(&a));
    }
    let a = bin()
        .arg("validate")
        .arg(fx.path().join("configs"))
        .args(["--config", "contradiction"])
        .assert()
        .code(0);
    assert!(stdout(&a).contains("by split: train 22 records, 0 problems; validation 3 records, 0 problems; test 6 records, 0 problems"), "{}", stdout(&a));
    let mut app = review_folder(&fx.path().join("configs"), "combined", "test");
    assert!(render(&mut app, 160, 30)
        .lines()
        .next()
        .unwrap_or_default()
        .contains("configs/combined/test"));
    assert_eq!(app.dataset.len(), 32);
}
