//! Integration tests: `compare` and the metric core. The numbers must equal the ones
//! halu-toolace published for every prediction file at hand.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use spanreview::formats::Dataset;
use spanreview::model::{Record, GOLD};
use spanreview::review::metrics::{self, Comparison, RecordAgreement};

use crate::common::{bin, compare_json, data, shared, write};

const CONFIGS: [&str; 4] = [
    "combined",
    "contradiction",
    "missing_tool",
    "overgeneration",
];

/// Prediction files under `dir`: `predictions_*.jsonl` and `raw/**/*_test.jsonl`, sorted.
fn prediction_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, under_raw: bool, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                walk(&p, under_raw || name == "raw", out);
            } else if name.ends_with(".jsonl")
                && (name.starts_with("predictions_")
                    || (under_raw && name.ends_with("_test.jsonl")))
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, false, &mut out);
    out.sort();
    out
}

/// The dataset config a prediction file belongs to, from its name.
fn config_of(path: &Path) -> &'static str {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    CONFIGS
        .into_iter()
        .find(|c| stem.contains(c))
        .unwrap_or("combined")
}

/// The published metrics of `detector` on `config`: the nearest `metrics.json` (keyed by config,
/// the scores under `metrics` for the ensemble) or `metrics_all.json` (keyed by detector, then
/// config), looking from the file's folder up to `root`.
fn published(file: &Path, detector: &str, config: &str, root: &Path) -> Option<(PathBuf, Value)> {
    for dir in file.ancestors().skip(1) {
        for name in ["metrics.json", "metrics_all.json"] {
            let path = dir.join(name);
            let Ok(text) = fs::read_to_string(&path) else {
                continue;
            };
            let v: Value = serde_json::from_str(&text).expect("metrics file is JSON");
            let entry = v
                .get(detector)
                .and_then(|d| d.get(config))
                .or_else(|| (name == "metrics.json").then(|| v.get(config)).flatten());
            if let Some(e) = entry {
                let scores = e.get("metrics").unwrap_or(e).clone();
                return Some((path, scores));
            }
        }
        if dir == root {
            break;
        }
    }
    None
}

/// A comparison in the shape `compare --json` prints.
fn as_json(c: &Comparison) -> Value {
    let by_type: serde_json::Map<String, Value> = c
        .by_type
        .iter()
        .map(|(t, a)| (t.clone(), json!(a.scores())))
        .collect();
    json!({"overall": c.overall.scores(), "by_type": by_type})
}

/// Every difference between our scores (`compare --json` shape) and a published entry
/// (`{span_level, example_level}` each with `overall` and `by_type`).
fn differences(ours: &Value, theirs: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    for (our_level, their_level) in [
        ("char_level", "span_level"),
        ("example_level", "example_level"),
    ] {
        let t = &theirs[their_level];
        let mut groups = vec![("overall".to_owned(), &ours["overall"], &t["overall"])];
        let their_types = t["by_type"].as_object().cloned().unwrap_or_default();
        let our_types = ours["by_type"].as_object().cloned().unwrap_or_default();
        let mut names: Vec<&String> = their_types.keys().collect();
        names.sort();
        let mut ours_sorted: Vec<&String> = our_types.keys().collect();
        ours_sorted.sort();
        if names != ours_sorted {
            diffs.push(format!(
                "{their_level} types: published {names:?}, ours {ours_sorted:?}"
            ));
        }
        for name in names {
            groups.push((name.clone(), &ours["by_type"][name], &t["by_type"][name]));
        }
        for (group, o, th) in groups {
            let o = &o[our_level];
            for k in ["tp", "fp", "fn", "n"] {
                if o[k] != th[k] {
                    diffs.push(format!(
                        "{their_level}/{group}/{k}: published {}, ours {}",
                        th[k], o[k]
                    ));
                }
            }
            for k in ["precision", "recall", "f1"] {
                let (a, b) = (o[k].as_f64(), th[k].as_f64());
                match (a, b) {
                    (Some(a), Some(b)) if (a - b).abs() < 1e-12 => {}
                    _ => diffs.push(format!(
                        "{their_level}/{group}/{k}: published {b:?}, ours {a:?}"
                    )),
                }
            }
        }
    }
    diffs
}

/// Read every record of `paths` joined as one dataset; a record that cannot be read fails.
fn records(paths: &[PathBuf]) -> (Dataset, Vec<Record>) {
    let ds = Dataset::open(paths, None).expect("open");
    assert!(ds.problems.is_empty(), "{:?}", ds.problems);
    let recs = (0..ds.len())
        .map(|i| ds.record(i).expect("record reads"))
        .collect();
    (ds, recs)
}

/// Compare gold with the file's detector through the library and check against the published
/// entry. `Err` holds what differs (or that no entry was found).
fn check_file(file: &Path, root: &Path) -> Result<Value, Vec<String>> {
    let (ds, recs) = records(&[file.to_path_buf()]);
    let detector = ds.primary().source.clone();
    let config = config_of(file);
    let Some((from, theirs)) = published(file, &detector, config, root) else {
        return Err(vec![format!(
            "{}: no published metrics for detector {detector:?}, config {config:?}",
            file.display()
        )]);
    };
    let ours = as_json(&metrics::compare(&recs, GOLD, &detector));
    let diffs = differences(&ours, &theirs);
    if diffs.is_empty() {
        Ok(ours)
    } else {
        Err(diffs
            .into_iter()
            .map(|d| format!("{} vs {}: {d}", file.display(), from.display()))
            .collect())
    }
}

fn check_all(root: &Path, at_least: usize) -> Vec<PathBuf> {
    let files = prediction_files(root);
    assert!(
        files.len() >= at_least,
        "expected at least {at_least} prediction files under {}, found {files:?}",
        root.display()
    );
    let mut failures = Vec::new();
    for f in &files {
        if let Err(d) = check_file(f, root) {
            failures.extend(d);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    files
}

#[test]
fn every_bundled_prediction_file_equals_the_published_metrics() {
    let files = check_all(&data("toolace"), 2);
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.strip_prefix(data("toolace"))
                .expect("under data")
                .display()
                .to_string()
        })
        .collect();
    assert!(
        names.contains(&"ensemble/predictions_combined.jsonl".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"modernbert_ft/predictions_combined.jsonl".to_owned()),
        "{names:?}"
    );
}

#[test]
fn every_shared_prediction_file_equals_the_published_metrics() {
    let Some(root) = shared("toolace/results") else {
        return;
    };
    // ensemble, missing_tool_rule, modernbert_ft, nli_zeroshot, qwen_lora, lexical and the two
    // LettuceDetect models.
    let files = check_all(&root, 8);
    let raw = files
        .iter()
        .filter(|f| f.components().any(|c| c.as_os_str() == "raw"))
        .count();
    assert!(
        raw >= 2,
        "the LettuceDetect raw files were not found: {files:?}"
    );
}

#[test]
fn lexical_numbers_are_the_documented_ones() {
    let Some(file) =
        shared("toolace/results/baselines_resentence/predictions_lexical_combined.jsonl")
    else {
        return;
    };
    let (_, recs) = records(&[file]);
    let c = metrics::compare(&recs, GOLD, "lexical");
    let s = c.overall.scores();
    assert_eq!(
        (s.char_level.tp, s.char_level.fp, s.char_level.fn_),
        (11271, 67169, 4889)
    );
    assert!((s.char_level.f1 - 0.2383).abs() < 5e-5);
    assert_eq!(
        (s.example_level.tp, s.example_level.fp, s.example_level.fn_),
        (204, 30, 0)
    );
}

#[test]
fn binary_json_equals_the_published_metrics() {
    let mut cases = vec![(
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace"),
        "ensemble",
    )];
    if let Some(root) = shared("toolace/results") {
        cases.push((
            root.join("baselines_resentence/predictions_lexical_combined.jsonl"),
            root.clone(),
            "lexical",
        ));
        cases.push((
            root.join(
                "lettucedetect_baseline/raw/lettucedect-large-modernbert-en-v1/combined_test.jsonl",
            ),
            root,
            "lettucedect-large-modernbert-en-v1",
        ));
    }
    for (file, root, detector) in cases {
        let lines = compare_json(&[file.as_os_str()]);
        assert_eq!(lines.len(), 1, "one comparison: {lines:?}");
        let ours = &lines[0];
        assert_eq!(ours["a"], GOLD);
        assert_eq!(ours["b"], detector);
        assert_eq!(ours["left_out"], 0);
        let (_, theirs) = published(&file, detector, "combined", &root).expect("published entry");
        let diffs = differences(ours, &theirs);
        assert!(diffs.is_empty(), "{}: {}", file.display(), diffs.join("\n"));
    }
}

#[test]
fn several_prediction_files_give_one_comparison_each() {
    let e = data("toolace/ensemble/predictions_combined.jsonl");
    let m = data("toolace/modernbert_ft/predictions_combined.jsonl");
    let lines = compare_json(&[e.as_os_str(), m.as_os_str()]);
    let bs: Vec<&str> = lines.iter().map(|l| l["b"].as_str().expect("b")).collect();
    assert_eq!(bs, ["ensemble", "modernbert_ft"]);
    assert_eq!(lines[1]["overall"]["char_level"]["tp"], 11537);
    // --b picks one; --a swaps the reference (fp and fn swap).
    let lines = compare_json(&[
        e.as_os_str(),
        m.as_os_str(),
        "--a".as_ref(),
        "modernbert_ft".as_ref(),
        "--b".as_ref(),
        "gold".as_ref(),
    ]);
    assert_eq!(lines.len(), 1);
    let c = &lines[0]["overall"]["char_level"];
    assert_eq!(
        (&c["tp"], &c["fp"], &c["fn"]),
        (&json!(11537), &json!(4623), &json!(1511))
    );
}

/// A copy of the ensemble predictions with one predicted span shifted by one character, chosen
/// so that the shift changes the character counts.
fn shifted_fixture(dir: &Path) -> PathBuf {
    let src = data("toolace/ensemble/predictions_combined.jsonl");
    let text = fs::read_to_string(&src).expect("read");
    let (_, recs) = records(std::slice::from_ref(&src));
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut done = false;
    for (line, rec) in lines.iter_mut().zip(&recs) {
        let (Some(g), Some(p)) = (rec.source(GOLD), rec.source("ensemble")) else {
            continue;
        };
        let Some(first) = p.spans.first() else {
            continue;
        };
        if first.end >= spanreview::model::offsets::char_len(&rec.output) {
            continue;
        }
        let mut shifted = p.spans.clone();
        shifted[0].start += 1;
        shifted[0].end += 1;
        let before = RecordAgreement::new(&rec.output, &g.spans, &p.spans);
        let after = RecordAgreement::new(&rec.output, &g.spans, &shifted);
        if (before.tp, before.fp, before.fn_) == (after.tp, after.fp, after.fn_) {
            continue;
        }
        let mut v: Value = serde_json::from_str(line).expect("json");
        let span = &mut v["pred_spans"][0];
        span["start"] = json!(first.start + 1);
        span["end"] = json!(first.end + 1);
        *line = v.to_string();
        done = true;
        break;
    }
    assert!(done, "no span whose shift changes the counts");
    let out_dir = dir.join("ensemble");
    fs::create_dir_all(&out_dir).expect("mkdir");
    fs::copy(
        data("toolace/ensemble/metrics.json"),
        out_dir.join("metrics.json"),
    )
    .expect("copy");
    let out = out_dir.join("predictions_combined.jsonl");
    fs::write(&out, lines.join("\n") + "\n").expect("write");
    out
}

#[test]
fn a_shifted_span_is_caught() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bad = shifted_fixture(tmp.path());
    let diffs = check_file(&bad, tmp.path()).expect_err("the shifted file must not match");
    assert!(
        diffs.iter().any(|d| d.contains("span_level/overall")),
        "{diffs:?}"
    );
    // Through the binary too.
    let lines = compare_json(&[bad.as_os_str()]);
    let (_, theirs) = published(&bad, "ensemble", "combined", tmp.path()).expect("published entry");
    assert!(!differences(&lines[0], &theirs).is_empty());
}

/// Character tp/fp/fn of `gold_spans` vs `pred_spans`, computed by Python. With `records`, the
/// gold comes from that RAGTruth file's `hallucination_labels` and only its ids count.
fn python_counts(predictions: &Path, records: Option<&Path>) -> Option<(u64, u64, u64)> {
    const SCRIPT: &str = r#"
import json, sys
preds, recs = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
gold = None
if recs:
    gold = {}
    for line in open(recs, encoding="utf-8"):
        if line.strip():
            r = json.loads(line)
            gold[r["id"]] = r["hallucination_labels"]
def cover(spans, n):
    s = set()
    for x in spans:
        s.update(range(max(0, x["start"]), min(n, x["end"])))
    return s
tp = fp = fn = 0
for line in open(preds, encoding="utf-8"):
    if not line.strip():
        continue
    r = json.loads(line)
    if gold is not None and r["id"] not in gold:
        continue
    n = len(r["output"])
    g = cover(gold[r["id"]] if gold is not None else r["gold_spans"], n)
    p = cover(r["pred_spans"], n)
    tp += len(g & p); fp += len(p - g); fn += len(g - p)
print(tp, fp, fn)
"#;
    let mut cmd = std::process::Command::new("python3");
    cmd.arg("-c").arg(SCRIPT).arg(predictions);
    if let Some(r) = records {
        cmd.arg(r);
    }
    let Ok(out) = cmd.output() else {
        eprintln!("SKIP: python3 is not installed (.ci/run installs it)");
        return None;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let n: Vec<u64> = text
        .split_whitespace()
        .map(|x| x.parse().expect("number"))
        .collect();
    Some((n[0], n[1], n[2]))
}

fn char_counts(v: &Value) -> (u64, u64, u64) {
    let c = &v["overall"]["char_level"];
    let n = |k: &str| c[k].as_u64().expect("count");
    (n("tp"), n("fp"), n("fn"))
}

#[test]
fn python_agrees_on_one_file() {
    // The ensemble file has outputs with ° and ’, which shift byte offsets but not code points.
    let file = data("toolace/ensemble/predictions_combined.jsonl");
    let Some(py) = python_counts(&file, None) else {
        return;
    };
    let lines = compare_json(&[file.as_os_str()]);
    assert_eq!(char_counts(&lines[0]), py);
}

#[test]
fn python_agrees_on_records_joined_with_predictions() {
    let recs = data("toolace/test_records_reconstructed.jsonl");
    let preds = data("toolace/ensemble/predictions_combined.jsonl");
    let Some(py) = python_counts(&preds, Some(&recs)) else {
        return;
    };
    let lines = compare_json(&[recs.as_os_str(), preds.as_os_str()]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["b"], "ensemble");
    assert_eq!(lines[0]["records"], 175);
    assert_eq!(char_counts(&lines[0]), py);
}

fn pred(
    id: &str,
    ty: &str,
    output: &str,
    gold: &[(usize, usize)],
    pred: &[(usize, usize)],
) -> Value {
    let spans = |v: &[(usize, usize)]| -> Vec<Value> {
        v.iter()
            .map(|&(s, e)| json!({"start": s, "end": e, "text": "", "label": ty}))
            .collect()
    };
    json!({"id": id, "output": output, "corruption_type": ty,
           "gold_spans": spans(gold), "pred_spans": spans(pred)})
}

#[test]
fn non_ascii_outputs_count_code_points() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = write(
        tmp.path(),
        "predictions_det_combined.jsonl",
        &[
            // "25°C" is [6, 10); the prediction takes the space before it too.
            pred(
                "a",
                "contradiction",
                "It is 25°C and rainy",
                &[(6, 10)],
                &[(5, 10)],
            ),
            // CJK and an emoji: gold "晴れ👋" [2, 5), predicted "れ👋 " [3, 6)
            pred(
                "b",
                "overgeneration",
                "東京晴れ👋 です",
                &[(2, 5)],
                &[(3, 6)],
            ),
            // e + combining acute: two code points
            pred("c", "clean", "cafe\u{301}", &[], &[(3, 5)]),
        ],
    );
    let lines = compare_json(&[f.as_os_str()]);
    let o = &lines[0]["overall"];
    assert_eq!(char_counts(&lines[0]), (4 + 2, 1 + 1 + 2, 1));
    assert_eq!(o["example_level"]["tp"], 2);
    assert_eq!(o["example_level"]["fp"], 1);
    assert_eq!(o["chars"], 20 + 8 + 5);
    assert_eq!(lines[0]["by_type"]["clean"]["char_level"]["fp"], 2);
    if let Some(py) = python_counts(&f, None) {
        assert_eq!(char_counts(&lines[0]), py);
    }
}

#[test]
fn a_bad_line_is_reported_and_the_rest_compared() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let good = [
        pred("a", "contradiction", "abcdef", &[(0, 3)], &[(1, 3)]),
        pred("b", "clean", "xyz", &[], &[]),
        pred("c", "missing_tool", "hello", &[(0, 5)], &[(0, 5)]),
    ];
    let p = tmp.path().join("predictions_det_combined.jsonl");
    let text = format!(
        "{}\n{{\"id\": \"broken\", \"output\": \n{}\n{}\n",
        good[0], good[1], good[2]
    );
    fs::write(&p, text).expect("write");
    let out = bin().args(["compare", "--json"]).arg(&p).assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(&format!("{}:2:", p.display())),
        "stderr names file and line: {stderr}"
    );
    let v: Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(v["records"], 3);
    assert_eq!(v["unreadable"], 1);
    assert_eq!(char_counts(&v), (2 + 5, 0, 1));
}

#[test]
fn invalid_spans_are_clamped_and_reported() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = write(
        tmp.path(),
        "predictions_det_combined.jsonl",
        // An empty gold span, and a prediction one past the end.
        &[pred(
            "a",
            "overgeneration",
            "a°b",
            &[(1, 1), (0, 2)],
            &[(1, 4)],
        )],
    );
    let out = bin().args(["compare", "--json"]).arg(&f).assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("invalid spans"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(char_counts(&v), (1, 1, 1));
    assert_eq!(v["overall"]["invalid_spans_a"], 1);
    assert_eq!(v["overall"]["invalid_spans_b"], 1);
}

#[test]
fn an_unknown_source_exits_2_listing_the_sources() {
    let f = data("toolace/ensemble/predictions_combined.jsonl");
    for flag in ["--a", "--b"] {
        let out = bin()
            .arg("compare")
            .arg(&f)
            .args([flag, "lettuce"])
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains("\"lettuce\""), "{stderr}");
        assert!(stderr.contains("gold, ensemble"), "{stderr}");
    }
}

#[test]
fn only_gold_is_nothing_to_compare() {
    let out = bin()
        .arg("compare")
        .arg(data("toolace/test_records_reconstructed.jsonl"))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("nothing to compare"), "{stderr}");
}

#[test]
fn the_table_has_a_row_per_comparison_and_type() {
    let out = bin()
        .arg("compare")
        .arg(data("toolace/ensemble/predictions_combined.jsonl"))
        .arg("--by-type")
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let row = stdout
        .lines()
        .find(|l| l.starts_with("gold vs ensemble"))
        .unwrap_or_else(|| panic!("no comparison row: {stdout}"));
    for cell in [
        "235", "14019", "8224", "2141", "0.6303", "0.8675", "0.7301", "0.9801",
    ] {
        assert!(
            row.split_whitespace().any(|c| c == cell),
            "{cell} not in {row}"
        );
    }
    for ty in ["clean", "contradiction", "missing_tool", "overgeneration"] {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(ty)),
            "no {ty} row: {stdout}"
        );
    }
}

#[test]
fn a_judge_files_warning_is_printed_at_its_own_place_once() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let recs = write(
        tmp.path(),
        "predictions_det_combined.jsonl",
        &[
            pred("a", "contradiction", "It is 25°C", &[(6, 10)], &[(6, 10)]),
            pred("b", "overgeneration", "東京晴れ👋", &[(2, 5)], &[(2, 4)]),
        ],
    );
    // The judge's line for "b" was made on another answer ('’' added in front).
    let judge = write(
        tmp.path(),
        "théo’s.jsonl",
        &[
            pred("a", "contradiction", "It is 25°C", &[(6, 10)], &[(5, 10)]),
            pred("b", "overgeneration", "’東京晴れ👋", &[(3, 6)], &[(3, 6)]),
        ],
    );
    let out = bin()
        .args(["compare", "--json", "--judge"])
        .arg(format!("theo={}", judge.display()))
        .arg(&recs)
        .assert()
        .success();
    let err = crate::common::stderr(&out);
    let want = format!("{}:2: the answer text differs", judge.display());
    assert!(
        err.lines().any(|l| l.starts_with(&want)),
        "the judge file's warning names its own file and line, not the record's too: {err}"
    );
}
