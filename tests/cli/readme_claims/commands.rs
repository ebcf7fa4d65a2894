//! The README's and `--help`'s claims about the commands, run as written: what each help
//! names and shows, validate, export, stats, apply, compare, and the sample's counts.

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use spanreview::store::Store;

use super::super::common::{bin, data, help, SUBCOMMANDS};

/// `apply` the one decision `line`, written to the file `name` in `dir`, as reviewer `ana` onto
/// `records`, saving into `db`.
fn apply_one(dir: &Path, name: &str, line: Value, records: &Path, db: &Path) -> Output {
    let decisions = super::super::common::write(dir, name, &[line]);
    bin()
        .arg("apply")
        .arg(records)
        .arg("--decisions")
        .arg(&decisions)
        .args(["--reviewer", "ana", "--db"])
        .arg(db)
        .output()
        .expect("runs")
}

/// The line of a decision accepting the first gold span of the sample's first record.
fn accept_first() -> Value {
    serde_json::json!({"record_id": "toolace_train_00021__overgeneration",
        "action": "accept", "span_key": "gold:0"})
}

// ----- `--help`: "every `--help` names the environment variables the subcommand reads ... and
// its exit status"; the examples each subcommand's help shows -----

#[test]
fn every_subcommand_that_reads_files_names_the_input_environment_and_its_exit_status() {
    // `apply` and `convert` read their FILEs as the others do (the index cache, `-` copied
    // into TMPDIR): their help says so too.
    for sub in [
        "review", "validate", "compare", "export", "stats", "assign", "apply", "triage", "judge",
        "convert",
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
    for sub in SUBCOMMANDS {
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
    let records = super::super::common::write(dir.path(), "records.jsonl", &[rec]);
    let db = dir.path().join("review.sqlite");
    let out = apply_one(dir.path(), "d.jsonl", accept_first(), &records, &db);
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

// ----- "Sources are imported into the database once, keyed by the SHA-256 of the file";
// "`decisions`, `export`, `stats` and `merge-db` add no decision to a database" -----

#[test]
fn stats_imports_a_judge_file_once_by_its_bytes_and_adds_no_decision() {
    let dir = tempfile::tempdir().expect("tmp");
    let records = data("toolace/test_records_reconstructed.jsonl");
    let db = dir.path().join("review.sqlite");
    let out = apply_one(dir.path(), "d.jsonl", accept_first(), &records, &db);
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
    let run = |name: &str, line: Value| apply_one(dir.path(), name, line, &records, &db);
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
        let all = super::super::common::lines(&data(rel));
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
