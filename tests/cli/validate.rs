//! `spanreview validate`: every problem with its line, one known-bad case per check, clean
//! files, split leakage, non-ASCII text, and a cross-check of offsets against Python.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{bin, data, fixture, shared};

/// Run validate; returns (exit code, stdout).
fn run(args: &[&str]) -> (i32, String) {
    let out = bin().arg("validate").args(args).output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf8"),
    )
}

fn fx(rel: &str) -> String {
    fixture(&format!("validate/{rel}")).display().to_string()
}

/// The problem lines of a text report (without the summary).
fn problem_lines(out: &str) -> Vec<&str> {
    out.lines()
        .take_while(|l| !l.starts_with("summary:"))
        .collect()
}

/// Problems of a `--json` report as (line, kind, message), and the summary object.
fn json_report(out: &str) -> (Vec<(u64, String, String)>, Value) {
    let mut problems = Vec::new();
    let mut summary = Value::Null;
    for l in out.lines() {
        let v: Value = serde_json::from_str(l).expect("one JSON object per line");
        if let Some(s) = v.get("summary") {
            summary = s.clone();
        } else {
            problems.push((
                v["line"].as_u64().expect("line"),
                v["kind"].as_str().expect("kind").to_owned(),
                v["message"].as_str().expect("message").to_owned(),
            ));
        }
    }
    (problems, summary)
}

#[test]
fn mixed_file_reports_every_problem_with_its_line() {
    let path = fx("mixed.jsonl");
    let (code, out) = run(&[&path]);
    assert_eq!(code, 1, "{out}");
    let want = [
        "4: invalid JSON: EOF while parsing a string at column 64",
        "5: hallucination_labels[0]: span [14, 999) ends past the end of output (52 code points)",
        "6: hallucination_labels[0]: reversed span: start 20 > end 14",
        "7: hallucination_labels[0]: \"start\" is not an integer: 14.0",
        "8: hallucination_labels[0]: \"end\" is not an integer: \"19\"",
        "9: hallucination_labels[0]: text \"sunny\" does not match output[14:19] \"rainy\"",
        "10: missing field \"output\"",
        "11: record is not a JSON object: [1,2,3]",
        "12: duplicate id \"toolace_fixture_00001__contradiction\" (first at line 1)",
        "14: hallucination_labels[0]: \"start\" is negative: -3",
        "16: hallucination_labels[0]: empty span [14, 14)",
        "17: hallucination_labels[0]: label \"halucination\" is not in the label set (clean, contradiction, missing_tool, overgeneration)",
        "18: clean record carries 1 label (clean records have none)",
        "19: record of type \"missing_tool\" has no labels (pass --allow-clean to accept unlabeled records)",
    ];
    let want: Vec<String> = want.iter().map(|w| format!("{path}:{w}")).collect();
    assert_eq!(problem_lines(&out), want, "{out}");
    // The good records (lines 1, 2, 15 with \u escapes, 20) are read and counted: 18 non-blank
    // lines in all, 2 of them unreadable (no type).
    assert!(out.contains("summary: 18 records in 1 file"), "{out}");
    assert!(
        out.contains("records by corruption type: (none) 2, clean 2, contradiction 12, missing_tool 1, overgeneration 1"),
        "{out}"
    );
    assert!(out.contains("14 problems in 14 records"), "{out}");
}

#[test]
fn json_output_has_one_object_per_problem_and_a_summary() {
    let (code, out) = run(&["--json", &fx("mixed.jsonl")]);
    assert_eq!(code, 1);
    let (problems, summary) = json_report(&out);
    let lines: Vec<u64> = problems.iter().map(|p| p.0).collect();
    assert_eq!(lines, [4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 17, 18, 19]);
    assert_eq!(problems[0].1, "invalid_json");
    assert_eq!(problems[8].1, "duplicate_id");
    assert_eq!(summary["records"], 18);
    assert_eq!(summary["problems"], 14);
    assert_eq!(summary["records_with_problems"], 14);
    assert_eq!(summary["by_kind"]["non_integer_offset"], 2);
    assert_eq!(summary["by_corruption_type"]["contradiction"], 12);
    assert_eq!(summary["files"][0]["format"], "ragtruth");
}

/// Every check catches its known-bad case: `bad/<kind>.jsonl` has a good line 1 and a line 2
/// with exactly that problem.
#[test]
fn each_check_catches_its_known_bad_case() {
    let dir = fixture("validate/bad");
    let mut kinds = Vec::new();
    for e in std::fs::read_dir(&dir).expect("dir").flatten() {
        let p = e.path();
        let kind = p
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("stem")
            .to_owned();
        let mut args = vec!["--json".to_owned()];
        if kind == "label_type_mismatch" {
            // Only a problem under --strict; without it the file is clean.
            let (code, out) = run(&[&p.display().to_string()]);
            assert_eq!(code, 0, "{out}");
            args.push("--strict".to_owned());
        }
        args.push(p.display().to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out) = run(&args);
        assert_eq!(code, 1, "{kind}: {out}");
        let (problems, _) = json_report(&out);
        assert!(
            problems.iter().all(|(line, _, _)| *line == 2),
            "{kind}: only line 2 is bad: {problems:?}"
        );
        assert_eq!(problems[0].1, kind, "{kind}: {problems:?}");
        kinds.push(kind);
    }
    assert!(kinds.len() >= 19, "{kinds:?}");
}

#[test]
fn truncated_array_is_reported_and_its_records_checked() {
    let p = fixture("formats/lettuce_tr_test_small.json");
    let (code, out) = run(&["--json", &p.display().to_string()]);
    assert_eq!(code, 1, "{out}");
    let (problems, summary) = json_report(&out);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!((problems[0].0, problems[0].1.as_str()), (40, "truncated"));
    assert_eq!(summary["records"], 3);
    assert_eq!(summary["files"][0]["format"], "lettuce");
}

#[test]
fn bundled_data_is_clean() {
    let files = [
        data("toolace/test_records_reconstructed.jsonl"),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let args: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out) = run(&args);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("summary: 645 records in 3 files"), "{out}");
    assert!(
        out.contains("clean 31,") || out.contains("clean 89,"),
        "{out}"
    );
    // The published schema holds strictly too: every label equals the record's type.
    let mut strict = vec!["--strict"];
    strict.extend(&args);
    assert_eq!(run(&strict).0, 0);
}

#[test]
fn shared_toolace_results_are_clean() {
    let Some(dir) = shared("toolace/results") else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p.display().to_string());
            }
        }
    }
    assert!(files.len() >= 8);
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let (code, out) = run(&args);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn split_leakage_names_both_files_and_lines() {
    let train = fx("split_train.jsonl");
    let test = fx("split_test.jsonl");
    let (code, out) = run(&[&train, &test]);
    assert_eq!(code, 1);
    assert_eq!(
        problem_lines(&out),
        [
            format!("{test}:2: meta.base_id \"toolace_fixture_00201\" is also in {train}:2 (split leakage: all variants of a base belong in one split)"),
            format!("{test}:3: meta.base_id \"toolace_fixture_00202\" is also in {train}:3 (split leakage: all variants of a base belong in one split)"),
        ]
    );
    // Each file alone is fine.
    assert_eq!(run(&[&train]).0, 0);
    assert_eq!(run(&[&test]).0, 0);
}

#[test]
fn non_ascii_before_spans_is_read_in_code_points() {
    let (code, out) = run(&[&fx("clean_unicode.jsonl")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("summary: 6 records"), "{out}");
}

#[test]
fn allow_clean_accepts_unlabeled_records_but_not_labeled_clean_ones() {
    let unlabeled = fx("bad/unlabeled.jsonl");
    assert_eq!(run(&[&unlabeled]).0, 1);
    assert_eq!(run(&["--allow-clean", &unlabeled]).0, 0);
    let labeled_clean = fx("bad/clean_with_labels.jsonl");
    assert_eq!(run(&["--allow-clean", &labeled_clean]).0, 1);
}

#[test]
fn labels_taxonomy_widens_the_label_set() {
    let dir = tempfile::tempdir().expect("tmp");
    let taxonomy = dir.path().join("labels.toml");
    std::fs::write(&taxonomy, "labels = [\"wrong\"]\n").expect("write");
    let bad = fx("bad/unknown_label.jsonl");
    assert_eq!(run(&[&bad]).0, 1);
    assert_eq!(
        run(&["--labels", &taxonomy.display().to_string(), &bad]).0,
        0
    );
    // A built-in taxonomy by name, and categories checked against it.
    let rec = dir.path().join("cat.jsonl");
    let line = r#"{"prompt":"p","answer":"It was 1945.","labels":[{"start":7,"end":11,"label":"contradiction","category":"contradiction","subcategory":"temporal"},{"start":0,"end":2,"label":"contradiction","category":"contradiction","subcategory":"claim"}]}"#;
    std::fs::write(&rec, format!("{line}\n")).expect("write");
    let (code, out) = run(&["--labels", "lettucedetect", &rec.display().to_string()]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        problem_lines(&out),
        [format!(
            "{}:1: labels[1]: subcategory \"claim\" is not listed under \"contradiction\" in the label set",
            rec.display()
        )]
    );
}

#[test]
fn usage_and_io_errors_exit_2() {
    let out = bin()
        .args(["validate", "/nonexistent/file.jsonl"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/file.jsonl"));
    let out = bin()
        .args([
            "validate",
            "--labels",
            "/nonexistent.toml",
            &fx("mixed.jsonl"),
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = bin().arg("validate").output().expect("run");
    assert_eq!(out.status.code(), Some(2), "no FILE is a usage error");
}

#[test]
fn mushroom_defects_are_reported() {
    let (Some(en), Some(hi)) = (
        shared("multilingual/mushroom/val_v2/mushroom.en-val.v2.extra.jsonl"),
        shared("multilingual/mushroom/val_v2/mushroom.hi-val.v2.extra.jsonl"),
    ) else {
        return;
    };
    let (code, out) = run(&["--json", &en.display().to_string()]);
    assert_eq!(code, 1);
    let (problems, summary) = json_report(&out);
    assert_eq!(summary["records"], 50);
    assert!(
        problems.iter().any(|(line, kind, msg)| *line == 28
            && kind == "out_of_range"
            && msg
                == "annotations.annotator_1fbf607dd218221a[5]: span [301, 373) ends past the end of model_output_text (372 code points)"),
        "{problems:?}"
    );
    assert!(problems.iter().any(|(_, kind, _)| kind == "empty_span"));
    let (_, out) = run(&["--json", &hi.display().to_string()]);
    let (problems, _) = json_report(&out);
    assert!(
        problems.iter().any(|(line, kind, msg)| *line == 48
            && kind == "grapheme_split"
            && msg.starts_with("hard_labels[2]: end 194 splits the character")),
        "{problems:?}"
    );
}

/// Python slices every span of a file full of non-ASCII (spans given in code points, UTF-8
/// bytes and UTF-16 units); the spans it finds wrong are exactly those `validate` reports, and
/// the library slices every in-range span to the same text.
#[test]
fn offsets_agree_with_python() {
    let path = fixture("validate/offsets.jsonl");
    let script = r#"
import json, sys
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    r = json.loads(line)
    out = r["output"]
    for i, s in enumerate(r["hallucination_labels"]):
        ok = 0 <= s["start"] < s["end"] <= len(out) and out[s["start"]:s["end"]] == s["text"]
        piece = out[s["start"]:s["end"]] if s["end"] <= len(out) else None
        print(json.dumps({"line": n, "i": i, "ok": ok, "slice": piece}, ensure_ascii=False))
"#;
    let py = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&path)
        .output()
        .expect("python3 runs (CI installs it)");
    assert!(
        py.status.success(),
        "{}",
        String::from_utf8_lossy(&py.stderr)
    );
    let mut py_bad = BTreeSet::new();
    let mut py_slices = Vec::new();
    for l in String::from_utf8(py.stdout).expect("utf8").lines() {
        let v: Value = serde_json::from_str(l).expect("json");
        let key = (
            v["line"].as_u64().expect("line"),
            v["i"].as_u64().expect("i"),
        );
        if v["ok"] == false {
            py_bad.insert(key);
        }
        py_slices.push((key, v["slice"].as_str().map(str::to_owned)));
    }
    assert!(
        py_bad.len() >= 6,
        "the fixture has wrong offsets: {py_bad:?}"
    );

    let (_, out) = run(&["--json", &path.display().to_string()]);
    let (problems, _) = json_report(&out);
    let mut rs_bad = BTreeSet::new();
    for (line, kind, msg) in &problems {
        assert!(
            kind == "text_mismatch" || kind == "out_of_range",
            "{kind}: {msg}"
        );
        let i: u64 = msg
            .strip_prefix("hallucination_labels[")
            .and_then(|m| m.split(']').next())
            .and_then(|n| n.parse().ok())
            .expect("index");
        rs_bad.insert((*line, i));
    }
    assert_eq!(rs_bad, py_bad);

    // The library's reader slices exactly as Python does.
    let file = spanreview::formats::DataFile::open(Path::new(&path), None, None).expect("open");
    let mut rs_slices = Vec::new();
    for r in 0..file.len() {
        let rec = file.record(r).expect("record");
        for (i, s) in rec.gold_spans().iter().enumerate() {
            let key = (u64::from(file.line(r)), i as u64);
            rs_slices.push((key, s.slice(&rec.output).map(str::to_owned)));
        }
    }
    assert_eq!(rs_slices, py_slices);
}

#[test]
fn format_flag_overrides_detection() {
    let (code, out) = run(&[
        "--format",
        "predictions",
        &PathBuf::from(fx("clean_unicode.jsonl"))
            .display()
            .to_string(),
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("missing field \"corruption_type\""), "{out}");
}

#[test]
fn decisions_and_predictions_are_checked_per_format() {
    let (code, out) = run(&[&fixture("formats/decisions.jsonl").display().to_string()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(decisions) 7"), "{out}");

    let dir = tempfile::tempdir().expect("tmp");
    let decisions = dir.path().join("decisions.jsonl");
    let lines = [
        r#"{"corruption_type": "contradiction", "id": "a__contradiction", "judge": {"extra_hallucination": false, "extra_text": "", "label_correct": "maybe", "reasoning": ""}, "judge_raw": "", "labeled_span": {"end": 9, "label": "contradiction", "start": 4, "text": "25°C"}, "lettuce": {}}"#,
        r#"{"corruption_type": "clean", "id": "b__clean", "judge": {"extra_hallucination": "yes", "extra_text": "", "label_correct": "unknown", "reasoning": ""}, "judge_raw": "", "labeled_span": null, "lettuce": {}}"#,
    ];
    std::fs::write(&decisions, lines.join("\n")).expect("write");
    let (code, out) = run(&["--json", &decisions.display().to_string()]);
    assert_eq!(code, 1);
    let (problems, _) = json_report(&out);
    let got: Vec<(u64, &str)> = problems.iter().map(|(l, k, _)| (*l, k.as_str())).collect();
    assert_eq!(
        got,
        [(1, "bad_value"), (1, "text_mismatch"), (2, "wrong_type")],
        "{problems:?}"
    );
    assert!(problems[1]
        .2
        .contains("text \"25°C\" is 4 code points but the span [4, 9) covers 5"));

    let preds = dir.path().join("predictions_x_combined.jsonl");
    let line = r#"{"id": "a", "output": "It’s 25°C", "corruption_type": "contradiction", "gold_spans": [{"end": 9, "label": "contradiction", "start": 5, "text": "25°C"}], "pred_spans": [{"start": 5, "end": 12, "text": "25°C", "confidence": 0.9}, {"start": 4, "end": 9, "label": "x"}]}"#;
    std::fs::write(&preds, format!("{line}\n")).expect("write");
    let (code, out) = run(&[&preds.display().to_string()]);
    assert_eq!(code, 1);
    assert_eq!(
        problem_lines(&out),
        [format!(
            "{}:1: pred_spans[0]: span [5, 12) ends past the end of output (9 code points)",
            preds.display()
        )],
        "detector labels are not checked against the label set; pred text is optional"
    );
}

/// A file large enough to be split between the two threads: line numbers stay right across the
/// split, with CRLF ends and blank lines, and the lines of the second half are counted from
/// the start of the file.
#[test]
fn line_numbers_hold_across_the_thread_split() {
    let template = std::fs::read_to_string(fixture("validate/clean_unicode.jsonl")).expect("read");
    let good: Vec<&str> = template.lines().collect();
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("big.jsonl");
    let mut text = String::from("\u{feff}");
    let mut line = 0u32;
    let mut want = Vec::new();
    for i in 0..4000usize {
        if i % 7 == 0 {
            text.push_str("\r\n");
            line += 1;
        }
        // Every id and base_id of the template starts with this; make them unique.
        let mut rec =
            good[i % good.len()].replace("toolace_fixture_00", &format!("toolace_big{i:05}_"));
        line += 1;
        if i == 5 || i == 2500 || i == 3999 {
            rec = rec.replacen("\"text\": \"", "\"text\": \"X", 1);
            want.push(line);
        }
        text.push_str(&rec);
        text.push_str("\r\n");
    }
    std::fs::write(&path, text).expect("write");
    assert!(std::fs::metadata(&path).expect("meta").len() > 1 << 20);
    let (code, out) = run(&["--json", &path.display().to_string()]);
    assert_eq!(code, 1);
    let (problems, summary) = json_report(&out);
    let lines: Vec<u64> = problems.iter().map(|p| p.0).collect();
    let want: Vec<u64> = want.into_iter().map(u64::from).collect();
    assert!(
        problems.iter().all(|p| p.1 == "text_mismatch"),
        "{:?}",
        &problems[..3.min(problems.len())]
    );
    assert_eq!(lines, want);
    assert_eq!(summary["records"], 4000);
}

#[test]
fn nesting_deeper_than_the_readers_accept_is_reported_like_they_see_it() {
    // A clean record of the fixture with one extra member nested n deep, in meta and at the
    // top level; serde_json (what export, compare and review read with) decides each line.
    let dir = tempfile::tempdir().expect("tmp");
    let base = std::fs::read_to_string(fx("mixed.jsonl")).expect("read");
    let good: Value = base
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["meta"]["corruption_type"] == "clean")
        .expect("a clean record");
    let mut lines = Vec::new();
    let mut want = Vec::new();
    for (k, n) in [1usize, 126, 127, 128, 129, 200].into_iter().enumerate() {
        for in_meta in [false, true] {
            let mut v = good.clone();
            v["id"] = Value::from(format!("deep°{k}{in_meta}"));
            v["meta"]["base_id"] = v["id"].clone();
            let deep = format!("{}{}", "[".repeat(n), "]".repeat(n));
            let text = v.to_string();
            let line = if in_meta {
                text.replacen("\"meta\":{", &format!("\"meta\":{{\"zz\":{deep},"), 1)
            } else {
                text.replacen('{', &format!("{{\"zz\":{deep},"), 1)
            };
            let refused = serde_json::from_str::<Value>(&line).is_err();
            want.push((lines.len() + 1, refused));
            lines.push(line);
        }
    }
    assert!(want.iter().any(|w| w.1) && want.iter().any(|w| !w.1));
    let file = dir.path().join("deep.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    let (_, out) = run(&[file.to_str().expect("utf-8"), "--allow-clean"]);
    for (line, refused) in want {
        let reported = problem_lines(&out)
            .iter()
            .any(|p| p.contains(&format!("deep.jsonl:{line}: invalid JSON: recursion limit")));
        assert_eq!(reported, refused, "line {line}:\n{out}");
    }
}

/// `clean` is in the default set as a record's type; a span labeled so marks no hallucination.
#[test]
fn a_span_labeled_clean_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let rec = dir.path().join("clean_span.jsonl");
    let line = r#"{"id":"a°__overgeneration","query":"q","context":"c","output":"It’s 25°C in 東京 👋","hallucination_labels":[{"start":5,"end":9,"text":"25°C","label":"clean"}],"meta":{"source":"s","base_id":"a°","corruption_type":"overgeneration","tools":[],"tool_call":{}}}"#;
    std::fs::write(&rec, format!("{line}\n")).expect("write");
    let (code, out) = run(&[&rec.display().to_string()]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        problem_lines(&out),
        [format!(
            "{}:1: hallucination_labels[0]: label \"clean\" is a record's type, not a span's",
            rec.display()
        )]
    );
}

#[test]
fn code_agent_samples_are_checked_against_the_published_taxonomy() {
    // Native labels (fabricated_api, wrong_implementation, unrequested_change, RAGTruth's)
    // are labels; the span's own category/subcategory is checked against taxonomy.py's
    // tables: fabricated_reference has attribute, contradiction has not, and the
    // document-level omission is no span's category. Only sample 4's planted errors remain.
    let p = fixture("formats/code_agent_samples.jsonl")
        .display()
        .to_string();
    let (code, out) = run(&[&p]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        problem_lines(&out),
        [
            format!("{p}:4: labels[0]: subcategory \"attribute\" is not listed under \"contradiction\" in the label set"),
            format!("{p}:4: labels[1]: category \"omission\" is a record's, not a span's (a span's is one of contradiction, fabricated_reference, unsupported_addition)"),
            format!("{p}:4: labels[2]: subcategory \"identifier\" is not listed under \"unsupported_addition\" in the label set"),
        ]
    );
}
