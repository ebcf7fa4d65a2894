//! Integration tests: label-aware agreement (`char_level_labeled`, `kappa_labeled`), `compare
//! --by-label` and Krippendorff's alpha (`compare --alpha`, `stats`), the alphas checked against
//! the `krippendorff` package on PyPI over real Mu-SHROOM files.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{bin, compare_json, shared, write};

/// A prediction line: gold and predicted spans as `(start, end, label)`.
fn pred(
    id: &str,
    output: &str,
    gold: &[(usize, usize, &str)],
    pred: &[(usize, usize, &str)],
) -> Value {
    let spans = |v: &[(usize, usize, &str)]| -> Vec<Value> {
        v.iter()
            .map(|&(s, e, l)| {
                let text: String = output.chars().skip(s).take(e - s).collect();
                json!({"start": s, "end": e, "text": text, "label": l})
            })
            .collect()
    };
    let ty = gold.first().map_or("clean", |g| g.2);
    json!({"id": id, "output": output, "corruption_type": ty,
           "gold_spans": spans(gold), "pred_spans": spans(pred)})
}

/// `stats FILE --db DB --json`, which must succeed: its JSON.
fn stats_json(file: &Path, db: &Path) -> Value {
    let out = bin()
        .arg("stats")
        .arg(file)
        .arg("--db")
        .arg(db)
        .arg("--json")
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).expect("json")
}

/// The issue's case: gold says `overgeneration`, the detector relabels it `contradiction`.
fn relabeled(dir: &Path) -> PathBuf {
    write(
        dir,
        "predictions_det_combined.jsonl",
        &[
            // "25°C" [6, 10): same range, other label
            pred(
                "a",
                "It is 25°C and rainy",
                &[(6, 10, "overgeneration")],
                &[(6, 10, "contradiction")],
            ),
            // "晴れ👋" [2, 5): same range, same label
            pred(
                "b",
                "東京晴れ👋 です",
                &[(2, 5, "overgeneration")],
                &[(2, 5, "overgeneration")],
            ),
        ],
    )
}

#[test]
fn json_carries_label_aware_figures() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = relabeled(tmp.path());
    let lines = compare_json(&[f.as_os_str()]);
    let o = &lines[0]["overall"];
    assert_eq!(o["char_level"]["f1"], 1.0);
    assert_eq!(o["kappa"], 1.0);
    let l = &o["char_level_labeled"];
    assert_eq!(
        (&l["tp"], &l["fp"], &l["fn"]),
        (&json!(3), &json!(4), &json!(4))
    );
    let f1 = l["f1"].as_f64().expect("f1");
    assert!((f1 - 3.0 / 7.0).abs() < 1e-12, "{f1}");
    // 28 code points: 21 "none" on both sides agree, 3 overgeneration agree, 4 differ.
    // A: none 21, over 7; B: none 21, over 3, contra 4.
    let n = 28.0;
    let pe = (21.0 * 21.0 + 7.0 * 3.0) / (n * n);
    let want = (24.0 / n - pe) / (1.0 - pe);
    let k = o["kappa_labeled"].as_f64().expect("kappa_labeled");
    assert!((k - want).abs() < 1e-12, "{k} != {want}");
}

#[test]
fn by_label_rows_and_json() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = relabeled(tmp.path());
    let lines = compare_json(&[f.as_os_str()]);
    let by = &lines[0]["by_label"];
    let keys: Vec<&String> = by.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["contradiction", "overgeneration"]);
    let over = &by["overgeneration"];
    assert_eq!(over["records"], 2);
    assert_eq!(
        (&over["char_level"]["tp"], &over["char_level"]["fn"]),
        (&json!(3), &json!(4))
    );
    assert_eq!(by["contradiction"]["char_level"]["fp"], 4);

    let out = bin()
        .arg("compare")
        .arg(&f)
        .arg("--by-label")
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let row = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("label contradiction"))
        .unwrap_or_else(|| panic!("no label row: {stdout}"));
    assert!(row.split_whitespace().any(|c| c == "4"), "{row}");
    assert!(stdout.contains("label overgeneration"), "{stdout}");
    // Without the flag, no label rows.
    let out = bin().arg("compare").arg(&f).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!stdout.contains("label overgeneration"), "{stdout}");
    assert!(stdout.contains("lbl F1"), "{stdout}");
}

#[test]
fn alpha_needs_two_sources_besides_a() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = relabeled(tmp.path());
    let out = bin().arg("compare").arg(&f).arg("--alpha").assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("--alpha needs at least two sources"),
        "{stderr}"
    );
}

/// `compare FILE --alpha --json` on real Mu-SHROOM files: gold (the hard labels) is A, every
/// annotator a coder. Expected values from the `krippendorff` package (0.9.0 on PyPI), one unit
/// per code point, every annotator of the file a coder, NaN where the annotator did not
/// annotate the record, pairs that are not non-negative integers skipped as the reader does:
///
/// ```python
/// import json, sys, krippendorff, numpy as np
/// recs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
/// coders = sorted({a for r in recs for a in r["annotations"]})
/// cols = []
/// for r in recs:
///     ann = r["annotations"]
///     for i in range(len(r["model_output_text"])):  # code points
///         cols.append([np.nan if c not in ann else
///                      float(any(s <= i < e for s, e in ann[c]
///                                if isinstance(s, int) and isinstance(e, int) and s >= 0))
///                      for c in coders])
/// print(len(coders), len(cols), krippendorff.alpha(reliability_data=np.array(cols).T,
///                                                  level_of_measurement="nominal"))
/// ```
///
/// Mu-SHROOM has one label, so label-aware alpha equals label-blind alpha.
#[test]
fn alpha_on_mushroom_equals_the_krippendorff_package() {
    let cases = [
        // 4 annotators, 3 per record (missing values)
        (
            "test_labeled/mushroom.ca-tst.v1.extra.jsonl",
            4,
            14383,
            0.614_184_873_513_368_4,
        ),
        // 95 annotators, 11 per record
        (
            "val_v2/mushroom.en-val.v2.extra.jsonl",
            95,
            12211,
            0.224_046_984_891_203_23,
        ),
        // Hindi: combining vowel signs, a span splitting a character from its sign
        (
            "val_v2/mushroom.hi-val.v2.extra.jsonl",
            3,
            7628,
            0.321_552_387_936_454,
        ),
    ];
    for (rel, coders, units, want) in cases {
        let Some(f) = shared(&format!("multilingual/mushroom/{rel}")) else {
            return;
        };
        let lines = compare_json(&[f.as_os_str(), "--alpha".as_ref()]);
        let al = &lines.last().expect("lines")["alpha"];
        assert_eq!(
            al["coders"].as_array().expect("coders").len(),
            coders,
            "{rel}"
        );
        assert_eq!(al["units"], units, "{rel}");
        for key in ["blind", "labeled"] {
            let got = al[key].as_f64().expect("alpha");
            assert!((got - want).abs() < 1e-9, "{rel} {key}: {got} != {want}");
        }
        // One comparison line per annotator before it.
        assert_eq!(lines.len(), coders + 1, "{rel}");
    }
}

#[test]
fn alpha_summary_line_in_the_table() {
    let Some(f) = shared("multilingual/mushroom/test_labeled/mushroom.ca-tst.v1.extra.jsonl")
    else {
        return;
    };
    let out = bin()
        .arg("compare")
        .arg(&f)
        .arg("--alpha")
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("label-blind 0.6142, label-aware 0.6142"),
        "{stdout}"
    );
    assert!(stdout.contains("among 4 sources"), "{stdout}");
}

/// `stats` reports alpha among the annotator sources (gold, the hard labels, is not one): with
/// nothing reviewed it is the alpha `compare --alpha` gives (see the test above for the Python).
#[test]
fn stats_reports_alpha_among_annotators() {
    let Some(f) = shared("multilingual/mushroom/test_labeled/mushroom.ca-tst.v1.extra.jsonl")
    else {
        return;
    };
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    spanreview::store::Store::open(&db).expect("store");
    let run = |json: bool| {
        let mut cmd = bin();
        cmd.arg("stats").arg(&f).arg("--db").arg(&db);
        if json {
            cmd.arg("--json");
        }
        cmd.assert().success().get_output().stdout.clone()
    };
    let v: Value = serde_json::from_slice(&run(true)).expect("json");
    let al = &v["alpha"];
    assert_eq!(al["coders"].as_array().expect("coders").len(), 4);
    assert_eq!(al["units"], 14383);
    let got = al["labeled"].as_f64().expect("alpha");
    assert!((got - 0.614_184_873_513_368_4).abs() < 1e-9, "{got}");
    // Label-aware figures per source and pair.
    assert!(v["sources"][0]["overall"]["char_level_labeled"]["f1"].is_number());
    assert!(v["pairs"][0]["overall"]["kappa_labeled"].is_number());
    let table = String::from_utf8(run(false)).expect("utf-8");
    assert!(
        table.contains(
            "alpha among 4 annotators over 14383 characters of 100 records: \
                        label-blind 0.6142, label-aware 0.6142"
        ),
        "{table}"
    );
}

/// Without annotators there is no alpha.
#[test]
fn stats_without_annotators_has_no_alpha() {
    let f = crate::common::data("toolace/ensemble/predictions_combined.jsonl");
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    spanreview::store::Store::open(&db).expect("store");
    let v = stats_json(&f, &db);
    assert!(v.as_object().expect("object").contains_key("alpha"), "{v}");
    assert_eq!(v["alpha"], Value::Null);
}

/// Three reviewers on the same two records of one database (`reviewer:<NAME>` sources): on
/// record 1 ana and cy keep the gold span and bo drops it; all accept record 0 whole (its spans
/// are `overgeneration`, record 1's `missing_tool`: the label-aware alpha has three categories).
/// Expected alphas from the `krippendorff` package over the records' code points:
///
/// ```python
/// import json, krippendorff, numpy as np
/// q, r = [json.loads(l) for l in open("data/toolace/test_records_reconstructed.jsonl")][:2]
/// cats = {"": 0.0, "overgeneration": 1.0, "missing_tool": 2.0}
/// for blind in (True, False):
///     def v(rec, i):
///         l = next((h["label"] for h in rec["hallucination_labels"]
///                   if h["start"] <= i < h["end"]), "")
///         return float(l != "") if blind else cats[l]
///     cols = [[v(q, i)] * 3 for i in range(len(q["output"]))]
///     cols += [[v(r, i), 0.0, v(r, i)] for i in range(len(r["output"]))]
///     print(krippendorff.alpha(reliability_data=np.array(cols).T,
///                              level_of_measurement="nominal"))
/// ```
#[test]
fn stats_reports_alpha_among_reviewers() {
    use spanreview::formats::Dataset;
    use spanreview::review::decision::{ActionKind, Decision, SpanValue};
    let records = crate::common::data("toolace/test_records_reconstructed.jsonl");
    let ds = Dataset::open(std::slice::from_ref(&records), None).expect("open");
    let (q, r) = (ds.record(0).expect("Q"), ds.record(1).expect("R"));
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let store = spanreview::store::Store::open(&db).expect("store");
    for (who, keep) in [("ana", true), ("bo", false), ("cy", true)] {
        let action = if keep {
            ActionKind::Accept
        } else {
            ActionKind::Drop
        };
        let mut d = Decision::new(&r, &ds.name, who, action);
        d.span_key = Some("gold:0".to_owned());
        d.before = Some(SpanValue::of(&r.gold_spans()[0]));
        store.append(&d, None).expect("save");
        let all = Decision::new(&q, &ds.name, who, ActionKind::AcceptAll);
        store.append(&all, None).expect("save");
    }
    let v = stats_json(&records, &db);
    let al = &v["alpha"];
    assert_eq!(
        al["coders"],
        json!(["reviewer:ana", "reviewer:bo", "reviewer:cy"]),
        "{v}"
    );
    assert_eq!(
        (&al["records"], &al["units"]),
        (&json!(2), &json!(255 + 230))
    );
    for (key, want) in [
        ("blind", 0.851_926_304_090_822_5),
        ("labeled", 0.861_963_354_783_319_4),
    ] {
        let got = al[key].as_f64().expect("alpha");
        assert!((got - want).abs() < 1e-9, "{key}: {got} != {want}");
    }
}

/// The issue's case in `stats`: on record 1 ana accepts the `missing_tool` span [124, 170) and
/// bo relabels it `contradiction`; both accept record 0 whole. Label-blind the two reviewers
/// agree everywhere (F1 1, kappa 1, alpha 1); label-aware the 46 relabeled code points are
/// false positives and false negatives.
#[test]
fn stats_tells_a_relabel_from_agreement() {
    use spanreview::formats::Dataset;
    use spanreview::review::decision::{ActionKind, Decision, SpanValue};
    let records = crate::common::data("toolace/test_records_reconstructed.jsonl");
    let ds = Dataset::open(std::slice::from_ref(&records), None).expect("open");
    let (q, r) = (ds.record(0).expect("Q"), ds.record(1).expect("R"));
    let g = r.gold_spans()[0].clone();
    assert_eq!(
        (g.start, g.end, g.label.as_str()),
        (124, 170, "missing_tool")
    );
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let store = spanreview::store::Store::open(&db).expect("store");
    for (who, action) in [("ana", ActionKind::Accept), ("bo", ActionKind::Relabel)] {
        let mut d = Decision::new(&r, &ds.name, who, action);
        d.span_key = Some("gold:0".to_owned());
        d.before = Some(SpanValue::of(&g));
        if action == ActionKind::Relabel {
            d.after = Some(SpanValue::new(g.start, g.end, "contradiction"));
        }
        store.append(&d, None).expect("save");
        let all = Decision::new(&q, &ds.name, who, ActionKind::AcceptAll);
        store.append(&all, None).expect("save");
    }
    let v = stats_json(&records, &db);
    let pair = v["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .find(|p| {
            p["a"].as_str().unwrap_or("").starts_with("reviewer:")
                && p["b"].as_str().unwrap_or("").starts_with("reviewer:")
        })
        .unwrap_or_else(|| panic!("no reviewer pair: {v}"));
    let o = &pair["overall"];
    assert_eq!(o["char_level"]["f1"], 1.0, "{o}");
    assert_eq!(o["kappa"], 1.0);
    let l = &o["char_level_labeled"];
    assert_eq!(
        (&l["tp"], &l["fp"], &l["fn"]),
        (&json!(48 + 71), &json!(46), &json!(46))
    );
    assert!(o["kappa_labeled"].as_f64().expect("kappa") < 1.0);
    assert_eq!(v["alpha"]["blind"], 1.0);
    assert!(v["alpha"]["labeled"].as_f64().expect("alpha") < 1.0);
}
