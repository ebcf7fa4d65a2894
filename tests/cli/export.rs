//! `spanreview export`: round trips, every outcome from a scripted review to the exported line,
//! verdicts, report numbers, Python's own slicing, and a known-bad case for each refusal.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;
use spanreview::formats::DataFile;
use spanreview::model::offsets::char_of;
use spanreview::model::Record;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::review::outcome::original_invalid;
use spanreview::store::Store;
use tempfile::TempDir;

use super::common::{cell, lines, records, row, stderr};
use crate::common;

/// The fixture: 11 RAGTruth-compatible records full of non-ASCII text (`°`, `’`, CJK, emoji,
/// combining marks, ZWJ sequences), extra keys at every level.
pub(crate) fn fixture() -> PathBuf {
    common::fixture("export/records.jsonl")
}

fn by_id(values: Vec<Value>) -> BTreeMap<String, Value> {
    values
        .into_iter()
        .map(|v| (v["id"].as_str().expect("id").to_owned(), v))
        .collect()
}

/// `[start, end)` in code points of `sub` in `output`.
fn cp(output: &str, sub: &str) -> (usize, usize) {
    let b = output.find(sub).expect("substring");
    let s = char_of(output, b).expect("boundary");
    (s, s + sub.chars().count())
}

fn value(output: &str, sub: &str, label: &str) -> SpanValue {
    let (start, end) = cp(output, sub);
    SpanValue::new(start, end, label)
}

/// A decision log being scripted into a database.
struct Script {
    store: Store,
    dataset: String,
}

impl Script {
    /// The store's clock steps one second per decision from a fixed start, so the same
    /// script gives the same log (times included) on any database.
    fn new(db: &Path, dataset: &str) -> Self {
        let store = Store::open(db).expect("db");
        let tick = std::sync::atomic::AtomicU64::new(0);
        store.set_clock(std::sync::Arc::new(move || {
            let n = tick.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_000_000 + n)
        }));
        Self {
            store,
            dataset: dataset.into(),
        }
    }

    fn push(
        &self,
        rec: &Record,
        who: &str,
        action: ActionKind,
        f: impl FnOnce(&mut Decision),
    ) -> Decision {
        let mut d = Decision::new(rec, &self.dataset, who, action);
        f(&mut d);
        self.store.append(&d, None).expect("append")
    }
}

fn key(k: &str) -> Option<String> {
    Some(k.into())
}

/// The scripted review of the fixture (dataset `records`, its file stem):
/// f01 accept (+ note), f02 tighten, f03 relabel, f04 accept + add, f05 drop (+ flag), f06 clean,
/// f07 remove, f08 three resolutions (kept, dropped, added), f09 drop of an invalid span, f10 a
/// drop that was undone, f11 nothing; and one decision on a record the input does not have.
pub(crate) fn script(db: &Path) {
    let recs = records(&fixture());
    let s = Script::new(db, "records");
    let r = |i: usize| &recs[i - 1];
    s.push(r(1), "ann", ActionKind::Accept, |d| {
        d.span_key = key("gold:0")
    });
    s.push(r(1), "ann", ActionKind::Note, |d| {
        d.note = Some("checked the context".into());
    });
    s.push(r(2), "ann", ActionKind::Adjust, |d| {
        d.span_key = key("gold:0");
        d.before = Some(SpanValue::of(&r(2).gold_spans()[0]));
        d.after = Some(value(&r(2).output, "rating is 4.5 ★", "overgeneration"));
    });
    s.push(r(3), "bob", ActionKind::Relabel, |d| {
        d.span_key = key("gold:0");
        d.after = Some(value(&r(3).output, "25°C", "overgeneration"));
    });
    s.push(r(4), "ann", ActionKind::Accept, |d| {
        d.span_key = key("gold:0")
    });
    s.push(r(4), "ann", ActionKind::Add, |d| {
        d.span_key = key("added:a1");
        d.after = Some(value(&r(4).output, "emailed José", "missing_tool"));
    });
    s.push(r(5), "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
        d.reason = Some("supported".into());
    });
    s.push(r(5), "ann", ActionKind::Flag, |_| {});
    s.push(r(6), "ann", ActionKind::Clean, |_| {});
    s.push(r(7), "ann", ActionKind::Remove, |d| {
        d.reason = Some("question/answer mismatch".into());
    });
    s.push(r(8), "arb", ActionKind::Resolve, |d| {
        d.span_key = key("gold:0");
        d.after = Some(value(&r(8).output, "30°C", "contradiction"));
        d.upheld = vec!["judge_a".into()];
        d.dismissed = vec!["judge_b".into()];
    });
    s.push(r(8), "arb", ActionKind::Resolve, |d| {
        d.span_key = key("gold:1");
        d.upheld = vec!["judge_b".into()];
        d.dismissed = vec!["judge_a".into()];
    });
    s.push(r(8), "arb", ActionKind::Resolve, |d| {
        d.span_key = key("added:r1");
        d.after = Some(value(&r(8).output, "80 %", "contradiction"));
        d.upheld = vec!["judge_a".into()];
    });
    s.push(r(9), "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
        d.reason = Some("invalid".into());
    });
    let undone = s.push(r(10), "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0")
    });
    s.push(r(10), "ann", ActionKind::Undo, |d| {
        d.target = Some(undone.id)
    });
    let mut gone = r(11).clone();
    gone.id = "gone".into();
    s.push(&gone, "ann", ActionKind::Accept, |d| {
        d.span_key = key("gold:0")
    });
}

/// A temp folder with the scripted database.
pub(crate) fn scripted() -> (TempDir, PathBuf) {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("review.sqlite");
    script(&db);
    (dir, db)
}

/// `export FILE --db DB`, for the rest of the command line to be added.
fn export_cmd(file: &Path, db: &Path) -> assert_cmd::Command {
    let mut cmd = common::bin();
    cmd.arg("export").arg(file).arg("--db").arg(db);
    cmd
}

fn export(db: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    export_cmd(&fixture(), db).args(extra).assert()
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// What an export of the scripted review wrote: its output, verdicts and report, read back.
struct Run {
    out: BTreeMap<String, Value>,
    verdicts: BTreeMap<String, Value>,
    report: String,
    stderr: String,
    out_raw: String,
}

/// Export the scripted review with verdicts and report (and `extra` options).
fn run(extra: &[&str]) -> Run {
    let (dir, db) = scripted();
    let out = dir.path().join("reviewed.jsonl");
    let verdicts = dir.path().join("v.jsonl");
    let report = dir.path().join("report.md");
    let mut args = vec![
        "--out",
        s(&out),
        "--verdicts",
        s(&verdicts),
        "--report",
        s(&report),
    ];
    args.extend_from_slice(extra);
    let a = export(&db, &args).success();
    Run {
        out: by_id(lines(&out)),
        verdicts: by_id(lines(&verdicts)),
        report: fs::read_to_string(&report).expect("report"),
        stderr: String::from_utf8_lossy(&a.get_output().stderr).into_owned(),
        out_raw: fs::read_to_string(&out).expect("out"),
    }
}

/// The export of the scripted review with no extra option: run once, read by every test that
/// checks it.
fn plain() -> &'static Run {
    static PLAIN: OnceLock<Run> = OnceLock::new();
    PLAIN.get_or_init(|| run(&[]))
}

fn input() -> BTreeMap<String, Value> {
    by_id(lines(&fixture()))
}

/// `value` without the fields export manages (labels and type), for pass-through checks.
fn unmanaged(v: &Value) -> Value {
    let mut v = v.clone();
    let o = v.as_object_mut().expect("object");
    o.remove("hallucination_labels");
    if let Some(m) = o.get_mut("meta").and_then(Value::as_object_mut) {
        m.remove("corruption_type");
        m.remove("review");
    }
    v
}

fn labels(v: &Value) -> Vec<(u64, u64, String, String)> {
    v["hallucination_labels"]
        .as_array()
        .expect("labels")
        .iter()
        .map(|l| {
            (
                l["start"].as_u64().expect("start"),
                l["end"].as_u64().expect("end"),
                l["text"].as_str().expect("text").to_owned(),
                l["label"].as_str().expect("label").to_owned(),
            )
        })
        .collect()
}

/// The keys of the `i`th exported label of `v`, in the order written.
fn label_keys(v: &Value, i: usize) -> Vec<&String> {
    v["hallucination_labels"][i]
        .as_object()
        .expect("o")
        .keys()
        .collect()
}

fn texts(v: &Value) -> Vec<String> {
    labels(v).into_iter().map(|l| l.2).collect()
}

// ---- each outcome, from the scripted review to the exported line ----

#[test]
fn unmanaged_fields_pass_through_and_untouched_lines_are_byte_equal() {
    let r = plain();
    let inp = input();
    assert_eq!(r.out.len(), 10, "f07 was removed");
    for (id, v) in &r.out {
        assert_eq!(unmanaged(v), unmanaged(&inp[id]), "{id}");
        let keys: Vec<&String> = v.as_object().expect("o").keys().collect();
        let want: Vec<&String> = inp[id].as_object().expect("o").keys().collect();
        assert_eq!(keys, want, "{id}: key order");
    }
    // no decision in force (f10's only drop was undone; f11 has none): the very same bytes
    let in_text = fs::read_to_string(fixture()).expect("read");
    for id in ["f10__overgeneration", "f11"] {
        let pick = |text: &str| -> String {
            let tag = format!("{{\"id\": \"{id}\",");
            text.lines()
                .find(|l| l.starts_with(&tag))
                .expect("line")
                .to_owned()
        };
        assert_eq!(pick(&r.out_raw), pick(&in_text), "{id}");
    }
    // changed lines keep the input's JSON style: Python separators, non-ASCII raw
    let f02 = r
        .out_raw
        .lines()
        .find(|l| l.contains("f02__overgeneration"))
        .expect("f02");
    assert!(
        f02.starts_with(r#"{"id": "f02__overgeneration", "query": "#),
        "{f02}"
    );
    assert!(f02.contains("★"));
}

#[test]
fn accept_exports_the_input_value() {
    let r = plain();
    let id = "f01__contradiction";
    assert_eq!(r.out[id], input()[id]);
}

#[test]
fn tighten_moves_the_boundaries_and_retakes_the_text() {
    let r = plain();
    let v = &r.out["f02__overgeneration"];
    let out = v["output"].as_str().expect("output");
    let (a, b) = cp(out, "rating is 4.5 ★");
    assert_eq!(
        labels(v),
        [(
            a as u64,
            b as u64,
            "rating is 4.5 ★".into(),
            "overgeneration".into()
        )]
    );
    assert_eq!(label_keys(v, 0), ["end", "label", "start", "text"]);
}

#[test]
fn relabel_changes_the_label_and_keeps_extra_keys() {
    let r = plain();
    let l = &r.out["f03__contradiction"]["hallucination_labels"][0];
    assert_eq!(l["label"], "overgeneration");
    assert_eq!(l["text"], "25°C");
    assert_eq!(l["confidence"], 0.8);
    assert_eq!(l["annotator"], "a1");
    assert_eq!(
        r.out["f03__contradiction"]["meta"]["corruption_type"],
        "contradiction"
    );
}

#[test]
fn add_appends_a_span_in_the_list_style() {
    let r = plain();
    let v = &r.out["f04__missing_tool"];
    assert_eq!(texts(v), ["booked the flight ✈️", "emailed José"]);
    assert_eq!(label_keys(v, 1), ["end", "label", "start", "text"]);
}

#[test]
fn drop_removes_the_label() {
    let r = plain();
    assert!(texts(&r.out["f05__contradiction"]).is_empty());
    assert!(texts(&r.out["f09__contradiction"]).is_empty());
}

#[test]
fn clean_empties_labels_and_sets_the_type() {
    let r = plain();
    let v = &r.out["f06__contradiction"];
    assert!(texts(v).is_empty());
    assert_eq!(v["meta"]["corruption_type"], "clean");
}

#[test]
fn remove_leaves_the_record_out_unless_kept_with_a_marker() {
    let r = plain();
    assert!(!r.out.contains_key("f07__overgeneration"));
    let r = run(&["--keep-removed"]);
    let v = &r.out["f07__overgeneration"];
    assert_eq!(v["meta"]["review"]["removed"], "question/answer mismatch");
    assert_eq!(unmanaged(v), unmanaged(&input()["f07__overgeneration"]));
    assert_eq!(r.out.len(), 11);
}

#[test]
fn resolutions_keep_drop_and_add_spans() {
    let r = plain();
    assert_eq!(texts(&r.out["f08__contradiction"]), ["30°C", "80 %"]);
    let v = &r.verdicts["f08__contradiction"];
    assert_eq!(v["upheld"], serde_json::json!(["judge_a", "judge_b"]));
    assert_eq!(v["dismissed"], serde_json::json!(["judge_a", "judge_b"]));
    assert_eq!(v["disputes"].as_array().expect("disputes").len(), 3);
    assert_eq!(v["disputes"][1]["upheld_span"], false);
    assert_eq!(
        v["outcomes"],
        serde_json::json!(["kept", "dropped", "added"])
    );
}

#[test]
fn provenance_adds_meta_review() {
    let r = run(&["--provenance"]);
    let m = &r.out["f02__overgeneration"]["meta"]["review"];
    assert_eq!(m["reviewers"], serde_json::json!(["ann"]));
    assert_eq!(m["outcome"], serde_json::json!(["tightened"]));
    assert!(m["time"].as_str().is_some_and(|t| t.starts_with("20")));
    assert!(
        r.out["f11"]["meta"].get("review").is_none(),
        "unreviewed: no provenance"
    );
}

#[test]
fn reviewed_only_leaves_out_records_without_decisions_in_force() {
    let r = run(&["--reviewed-only"]);
    let ids: Vec<&str> = r.out.keys().map(String::as_str).collect();
    assert_eq!(ids.len(), 8);
    assert!(!ids.contains(&"f10__overgeneration") && !ids.contains(&"f11"));
    assert!(r
        .report
        .contains("| Unreviewed records left out (--reviewed-only) | 2 |"));
}

#[test]
fn strict_drops_labels_of_another_type() {
    let r = run(&["--strict"]);
    assert!(texts(&r.out["f03__contradiction"]).is_empty());
    let v = &r.verdicts["f03__contradiction"];
    assert_eq!(v["strict_dropped"][0]["label"], "overgeneration");
    assert_eq!(cell(&r.report, "Labels dropped by --strict"), "1");
    assert!(r.report.contains("## Dropped by --strict, by label"));
}

#[test]
fn split_by_routes_records_and_clean_in_all_copies_clean_ones() {
    let (dir, db) = scripted();
    let out = dir.path().join("reviewed.jsonl");
    export(
        &db,
        &["--out", s(&out), "--split-by", "meta.corruption_type"],
    )
    .success();
    let file = |v: &str| dir.path().join(format!("reviewed.{v}.jsonl"));
    assert!(
        !out.exists(),
        "--out names the files, it is not written itself"
    );
    let ids = |v: &str| -> Vec<String> { by_id(lines(&file(v))).into_keys().collect() };
    assert_eq!(ids("clean"), ["f06__contradiction", "f11"]);
    assert_eq!(ids("missing_tool"), ["f04__missing_tool"]);
    assert_eq!(
        ids("overgeneration"),
        ["f02__overgeneration", "f10__overgeneration"]
    );
    assert_eq!(ids("contradiction").len(), 5);

    let dir2 = TempDir::new().expect("tmp");
    let out2 = dir2.path().join("cfg.jsonl");
    export(
        &db,
        &[
            "--out",
            s(&out2),
            "--split-by",
            "meta.corruption_type",
            "--clean-in-all",
        ],
    )
    .success();
    let mut names: Vec<String> = fs::read_dir(dir2.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".cfg.jsonl.manifest.json",
            "cfg.contradiction.jsonl",
            "cfg.missing_tool.jsonl",
            "cfg.overgeneration.jsonl"
        ]
    );
    for n in &names[1..] {
        let got = by_id(lines(&dir2.path().join(n)));
        assert!(
            got.contains_key("f06__contradiction") && got.contains_key("f11"),
            "{n}"
        );
    }
}

#[test]
fn the_validator_accepts_the_export() {
    let (dir, db) = scripted();
    let input = fixture();
    // the input holds one known-bad span (f09's stated text); the reviewer dropped it
    common::bin().arg("validate").arg(&input).assert().code(1);
    for (extra, validate) in [
        (&[][..], &["--allow-clean"][..]),
        (&["--strict"][..], &["--strict", "--allow-clean"][..]),
    ] {
        let out = dir.path().join("reviewed.jsonl");
        let mut args = vec!["--out", s(&out)];
        args.extend_from_slice(extra);
        export(&db, &args).success();
        // --allow-clean: records whose every span was dropped keep their type (the export
        // warns about them and the report counts them)
        common::bin()
            .arg("validate")
            .args(validate)
            .arg(&out)
            .assert()
            .success();
    }
}

/// Export `file` after `decide` scripted decisions on its records; the input and output values
/// by record.
fn scripted_export(
    file: &Path,
    decide: impl FnOnce(&Script, &[Record]),
) -> (Vec<Value>, Vec<Value>, Vec<Record>) {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    let recs = records(file);
    let dataset = file
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned();
    decide(&Script::new(&db, &dataset), &recs);
    let out = dir.path().join("out.jsonl");
    export_cmd(file, &db)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let f = DataFile::open(file, None, None).expect("open");
    let input = (0..f.len()).map(|i| f.value(i).expect("value")).collect();
    (input, lines(&out), recs)
}

#[test]
fn prediction_files_keep_their_schema_and_the_detector_spans() {
    let file = common::data("toolace/ensemble/predictions_combined.jsonl");
    let (input, out, recs) = scripted_export(&file, |s, recs| {
        let g = &recs[0].gold_spans()[0];
        s.push(&recs[0], "ann", ActionKind::Relabel, |d| {
            d.span_key = key("gold:0");
            d.after = Some(SpanValue {
                label: "contradiction".into(),
                ..SpanValue::of(g)
            });
        });
        s.push(&recs[1], "ann", ActionKind::Clean, |_| {});
        s.push(&recs[2], "ann", ActionKind::Remove, |d| {
            d.reason = Some("incoherent".into())
        });
    });
    assert_eq!(out.len(), input.len() - 1);
    assert_eq!(out[0]["gold_spans"][0]["label"], "contradiction");
    assert_eq!(out[0]["pred_spans"], input[0]["pred_spans"]);
    assert_eq!(out[1]["gold_spans"], serde_json::json!([]));
    assert_eq!(out[1]["corruption_type"], "clean");
    assert_eq!(out[1]["pred_spans"], input[1]["pred_spans"]);
    assert_eq!(out[2]["id"], input[3]["id"], "record 2 was removed");
    assert!(out[2..].iter().zip(&input[3..]).all(|(a, b)| a == b));
    let keys = |v: &Value| -> Vec<String> { v.as_object().expect("o").keys().cloned().collect() };
    assert_eq!(keys(&out[0]), keys(&input[0]));
    assert_eq!(recs.len(), input.len());
}

#[test]
fn mushroom_hard_labels_are_the_reviewed_spans() {
    let Some(file) = common::shared("multilingual/mushroom/val_v2/mushroom.en-val.v2.extra.jsonl")
    else {
        return;
    };
    let mut picked = (0, 0);
    let (input, out, recs) = scripted_export(&file, |s, recs| {
        let i = recs
            .iter()
            .position(|r| r.gold_spans().len() >= 2)
            .expect("a record with two hard labels");
        picked = (i, recs[i].gold_spans()[1].start);
        s.push(&recs[i], "ann", ActionKind::Drop, |d| {
            d.span_key = key("gold:0")
        });
    });
    let (i, start) = picked;
    let hard = out[i]["hard_labels"].as_array().expect("hard_labels");
    assert_eq!(hard.len(), recs[i].gold_spans().len() - 1);
    assert_eq!(hard[0][0], start);
    for k in ["soft_labels", "annotations", "model_output_text", "lang"] {
        assert_eq!(out[i].get(k), input[i].get(k), "{k}");
    }
    assert_eq!(out.len(), input.len());
}

#[test]
fn a_relabel_mushroom_cannot_carry_is_warned_about() {
    let Some(file) = common::shared("multilingual/mushroom/val_v2/mushroom.en-val.v2.extra.jsonl")
    else {
        return;
    };
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    let recs = records(&file);
    let i = recs
        .iter()
        .position(|r| !r.gold_spans().is_empty())
        .expect("a record with a hard label");
    let stem = file
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned();
    let g = &recs[i].gold_spans()[0];
    Script::new(&db, &stem).push(&recs[i], "ann", ActionKind::Relabel, |d| {
        d.span_key = key("gold:0");
        d.after = Some(SpanValue::new(g.start, g.end, "contradiction"));
    });
    let out = dir.path().join("out.jsonl");
    let a = common::bin()
        .arg("export")
        .arg(&file)
        .args(["--db", s(&db), "--out", s(&out)])
        .assert()
        .success();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains(&format!(
            "record {:?}: 1 relabel(s) not written: Mu-SHROOM's hard_labels",
            recs[i].id
        )),
        "{err}"
    );
    let got = lines(&out);
    assert_eq!(
        got[i]["hard_labels"][0],
        serde_json::json!([g.start, g.end])
    );
}

// ---- verdicts ----

#[test]
fn verdicts_account_for_every_decision() {
    let r = plain();
    // f01..f10 have decisions; f11 has none; "gone" is not in the input
    assert_eq!(r.verdicts.len(), 10);
    let v = &r.verdicts["f01__contradiction"];
    assert_eq!(v["outcomes"], serde_json::json!(["kept"]));
    assert_eq!(v["notes"], serde_json::json!(["checked the context"]));
    assert_eq!(v["reviewers"], serde_json::json!(["ann"]));
    assert!(v["time"].as_str().is_some());
    assert_eq!(
        r.verdicts["f02__overgeneration"]["outcomes"],
        serde_json::json!(["tightened"])
    );
    assert_eq!(
        r.verdicts["f03__contradiction"]["outcomes"],
        serde_json::json!(["relabeled"])
    );
    assert_eq!(
        r.verdicts["f03__contradiction"]["reviewers"],
        serde_json::json!(["bob"])
    );
    assert_eq!(
        r.verdicts["f04__missing_tool"]["outcomes"],
        serde_json::json!(["kept", "added"])
    );
    assert_eq!(
        r.verdicts["f05__contradiction"]["outcomes"],
        serde_json::json!(["dropped"])
    );
    assert_eq!(r.verdicts["f05__contradiction"]["flagged"], true);
    assert_eq!(
        r.verdicts["f06__contradiction"]["outcomes"],
        serde_json::json!(["reclassified_clean"])
    );
    assert_eq!(
        r.verdicts["f07__overgeneration"]["outcomes"],
        serde_json::json!(["removed:question/answer mismatch"])
    );
    let f10 = &r.verdicts["f10__overgeneration"];
    assert_eq!(f10["decisions"], serde_json::json!([]));
    assert_eq!(f10["reviewed"], false);
    let before = &r.verdicts["f02__overgeneration"]["labels_before"][0]["text"];
    assert_eq!(before, " rating is 4.5 ★ ");
    assert_eq!(f10["undone"].as_array().map(Vec::len), Some(1));
    assert_eq!(f10["undo_redo"].as_array().map(Vec::len), Some(1));
    let mut ids: Vec<i64> = r
        .verdicts
        .values()
        .flat_map(|v| {
            ["decisions", "stale", "undone", "undo_redo"]
                .into_iter()
                .filter_map(|k| v.get(k).and_then(Value::as_array))
                .flatten()
                .map(|x| x.as_i64().expect("id"))
                .collect::<Vec<_>>()
        })
        .collect();
    ids.sort_unstable();
    // every row of the log once, but the one on "gone" (not in the input: reported instead)
    assert_eq!(ids, (1..=16).collect::<Vec<i64>>());
    assert!(r
        .stderr
        .contains("1 decision(s) name 1 record(s) the input does not have"));
}

// ---- report numbers against the scripted review ----

#[test]
fn report_numbers_match_the_scripted_review() {
    let r = run(&["--strict"]);
    let want = [
        ("Records in the input", "11"),
        ("Records exported", "10"),
        ("Records reviewed", "9"),
        ("Records reviewed and retained", "8"),
        ("Records fully reviewed", "9"),
        ("Records flagged for a second look", "1"),
        ("Labels in reviewed records", "10"),
        ("Labels kept unchanged", "3"),
        ("Boundaries tightened", "1"),
        ("Categories corrected", "1"),
        ("Labels dropped", "3"),
        ("Invalid spans dropped", "1"),
        ("Spans added", "2"),
        ("Records reclassified clean", "1"),
        ("Records removed", "1"),
        ("Disputed spans resolved", "3"),
        ("Disputed spans upheld", "2"),
        ("Disputed spans dropped", "1"),
        ("Labels dropped by --strict", "1"),
        ("Stale decisions not applied", "0"),
        ("Decisions on records not in the input", "1"),
        // f05 and f09 (every span dropped), f03 (its only label left out by --strict)
        (
            "Reviewed records left with a hallucination type and no label",
            "3",
        ),
    ];
    for (name, n) in want {
        assert_eq!(cell(&r.report, name), n, "{name}");
    }
    assert_eq!(row(&r.report, "question/answer mismatch"), ["1"]);
    // f08's resolutions carry no cluster tag: each settles its own unit.
    assert_eq!(row(&r.report, "judge_a"), ["2", "1", "0.667", "2", "1"]);
    assert_eq!(row(&r.report, "judge_b"), ["1", "1", "0.500", "1", "1"]);
    // Label | Before | After | Tightened | Widened | Shifted | Relabeled away | Relabeled to |
    // Dropped | Added | Cleared
    assert_eq!(
        row(&r.report, "contradiction"),
        ["7", "3", "0", "0", "0", "1", "0", "3", "1", "1"]
    );
    // the by-type row of overgeneration comes first; the --strict table's row second
    assert_eq!(
        row(&r.report, "overgeneration"),
        ["2", "2", "1", "0", "0", "0", "1", "0", "0", "1"]
    );
    assert_eq!(
        row(&r.report, "missing_tool"),
        ["1", "2", "0", "0", "0", "0", "0", "0", "1", "0"]
    );
    let strict_rows: Vec<&str> = r
        .report
        .split("## Dropped by --strict")
        .nth(1)
        .expect("strict section")
        .lines()
        .filter(|l| l.starts_with("| overgeneration |"))
        .collect();
    assert_eq!(strict_rows, ["| overgeneration | 1 |"]);
}

#[test]
fn judges_named_on_the_command_line_are_listed_even_unnamed_by_resolutions() {
    let judge_file = common::data("toolace/ensemble/predictions_combined.jsonl");
    let spec = format!("judge_c={}", judge_file.display());
    let r = run(&["--judge", &spec]);
    assert_eq!(row(&r.report, "judge_c"), ["0", "0", "–", "0", "0"]);
    assert_eq!(row(&r.report, "judge_a"), ["2", "1", "0.667", "2", "1"]);
    let (dir, db) = scripted();
    let out = dir.path().join("o.jsonl");
    for bad in ["judge_c", "=x", "judge_c=/no/such/file"] {
        export(&db, &["--out", s(&out), "--judge", bad]).code(2);
    }
    assert!(!out.exists());
}

#[test]
fn report_without_disputes_says_zero() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let out = dir.path().join("o.jsonl");
    let report = dir.path().join("r.md");
    export(&db, &["--out", s(&out), "--report", s(&report)]).success();
    let text = fs::read_to_string(&report).expect("report");
    assert_eq!(cell(&text, "Disputed spans resolved"), "0");
    assert_eq!(cell(&text, "Records reviewed"), "0");
    assert_eq!(cell(&text, "Records exported"), "11");
    assert!(text.contains("No disputed span was resolved."));
}

// ---- Python's own slicing ----

#[test]
fn python_slices_every_exported_span_to_its_text() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIP: python3 is not installed");
        return;
    }
    let (dir, db) = scripted();
    let out = dir.path().join("reviewed.jsonl");
    export(&db, &["--out", s(&out), "--keep-removed"]).success();
    let script = r#"
import json, sys
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    if r["id"] == "f09__contradiction":
        assert r["hallucination_labels"] == [], r
    for l in r["hallucination_labels"]:
        if r["id"] == "f09__contradiction":
            continue
        got = r["output"][l["start"]:l["end"]]
        assert got == l["text"], (r["id"], l, got)
        n += 1
print(n)
"#;
    let o = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&out)
        .output()
        .expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // f01 1, f02 1, f03 1, f04 2, f07 1, f08 2, f10 1
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "9");
}

// ---- refusals ----

#[test]
fn stale_decisions_refuse_the_export_unless_skipped() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    let recs = records(&fixture());
    let sc = Script::new(&db, "records");
    sc.push(&recs[0], "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
        d.record_hash = "made-on-other-content".into();
    });
    sc.push(&recs[1], "ann", ActionKind::Clean, |_| {});
    let out = dir.path().join("o.jsonl");
    let a = export(&db, &["--out", s(&out)]).code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("stale: record \"f01__contradiction\""),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!out.exists());
    let tmp = fs::read_dir(dir.path())
        .expect("ls")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().contains("spanreview-tmp"))
        })
        .count();
    assert_eq!(tmp, 0, "no temporary file left");

    let report = dir.path().join("r.md");
    export(
        &db,
        &["--out", s(&out), "--skip-stale", "--report", s(&report)],
    )
    .success();
    let got = by_id(lines(&out));
    assert_eq!(
        got["f01__contradiction"],
        input()["f01__contradiction"],
        "not applied"
    );
    assert_eq!(
        got["f02__overgeneration"]["meta"]["corruption_type"],
        "clean"
    );
    assert_eq!(
        cell(
            &fs::read_to_string(&report).expect("r"),
            "Stale decisions not applied"
        ),
        "1"
    );
}

#[test]
fn refuses_to_overwrite_an_input() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let input = dir.path().join("records.jsonl");
    fs::copy(fixture(), &input).expect("copy");
    fs::create_dir(dir.path().join("sub")).expect("mkdir");
    let before = fs::read(&input).expect("read");
    let sneaky = dir.path().join("sub/../records.jsonl");
    for (flag, path) in [
        ("--out", &input),
        ("--out", &sneaky),
        ("--verdicts", &input),
        ("--report", &db),
    ] {
        let mut cmd = export_cmd(&input, &db);
        if flag != "--out" {
            cmd.arg("--out").arg(dir.path().join("fine.jsonl"));
        }
        let a = cmd.arg(flag).arg(path).assert().code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(
            err.contains("refusing to write"),
            "{flag} {}: {err}",
            path.display()
        );
        assert_eq!(fs::read(&input).expect("read"), before);
        assert!(!dir.path().join("fine.jsonl").exists());
    }
}

#[test]
fn refuses_two_outputs_on_one_file() {
    let (dir, db) = scripted();
    let same = dir.path().join("same.txt");
    let out = dir.path().join("o.jsonl");
    let a = export(
        &db,
        &[
            "--out",
            s(&out),
            "--verdicts",
            s(&same),
            "--report",
            s(&same),
        ],
    )
    .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("are the same file"), "{err}");
    assert!(!same.exists() && !out.exists());
    // a split file that would be the report
    let report = dir.path().join("cfg.clean.jsonl");
    let a = export(
        &db,
        &[
            "--out",
            s(&dir.path().join("cfg.jsonl")),
            "--split-by",
            "meta.corruption_type",
            "--report",
            s(&report),
        ],
    )
    .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("refusing to write"), "{err}");
    assert!(!report.exists());
    assert!(!dir.path().join("cfg.contradiction.jsonl").exists());
}

#[test]
fn a_failure_mid_write_leaves_no_partial_output() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    // 1,000 records (about 600 kB) written under a file-size limit of 64 kB: writing fails
    // part way through (EFBIG; SIGXFSZ ignored so the write returns the error)
    let base: Vec<Value> = lines(&fixture());
    let mut text = String::new();
    for i in 0..1000 {
        let mut v = base[i % base.len()].clone();
        v["id"] = Value::from(format!("r{i:04}"));
        text.push_str(&v.to_string());
        text.push('\n');
    }
    let big = dir.path().join("records.jsonl");
    fs::write(&big, text).expect("write");
    let out = dir.path().join("out.jsonl");
    fs::write(&out, "old\n").expect("old output");
    let verdicts = dir.path().join("v.jsonl");
    let bin = assert_cmd::cargo::cargo_bin("spanreview");
    let a = assert_cmd::Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 128; trap '' XFSZ; exec \"$@\"")
        .arg("sh")
        .arg(&bin)
        .arg("export")
        .arg(&big)
        .arg("--db")
        .arg(&db)
        .args(["--out", s(&out), "--verdicts", s(&verdicts)])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("out.jsonl"), "{err}");
    assert_eq!(
        fs::read_to_string(&out).expect("out"),
        "old\n",
        "old output untouched"
    );
    assert!(!verdicts.exists());
    let leftovers: Vec<String> = fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("e").file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("spanreview-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // an output folder that does not exist: nothing is created
    let nowhere = dir.path().join("nope/out.jsonl");
    export(&db, &["--out", s(&nowhere)]).code(2);
    assert!(!dir.path().join("nope").exists());
}

#[test]
fn a_missing_database_is_an_error() {
    let dir = TempDir::new().expect("tmp");
    let out = dir.path().join("o.jsonl");
    export(&dir.path().join("none.sqlite"), &["--out", s(&out)]).code(2);
    assert!(!out.exists());
    assert!(
        !dir.path().join("none.sqlite").exists(),
        "export never creates a database"
    );
}

// ---- round trips ----

/// Export `file` with an empty database: every record equals its input, as JSON values and
/// here byte for byte. Then accept every span of the first `n` records (through the writers):
/// still equal as JSON values.
fn round_trip(file: &Path, n: usize) {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let out = dir.path().join(file.file_name().expect("name"));
    let f = DataFile::open(file, None, None).expect("open");
    // an input cut short (the truncated LettuceDetect file) exports its complete records, exit 1
    let code = i32::from(!f.index.problems.is_empty());
    export_cmd(file, &db)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(code);
    let got = DataFile::open(&out, None, None).expect("open out");
    assert_eq!(got.len(), f.len(), "{}", file.display());
    for i in 0..f.len() {
        assert_eq!(
            got.value(i).expect("out value"),
            f.value(i).expect("in value"),
            "{} record {i}",
            file.display()
        );
    }

    let dataset = file
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned();
    let sc = Script::new(&db, &dataset);
    for i in 0..f.len().min(n) {
        let rec = f.record(i).expect("record");
        sc.push(&rec, "ann", ActionKind::AcceptAll, |_| {});
    }
    let out2 = dir.path().join("accepted.json");
    export_cmd(file, &db)
        .arg("--out")
        .arg(&out2)
        .assert()
        .code(code);
    let got = DataFile::open(&out2, None, None).expect("open out");
    assert_eq!(got.len(), f.len());
    for i in 0..f.len() {
        let rec = f.record(i).expect("record");
        if i < n
            && rec
                .gold_spans()
                .iter()
                .any(|s| original_invalid(s, &rec.output))
        {
            // a stated text that disagrees with the output is corrected, never passed on
            let back = got.record(i).expect("out record");
            assert!(back
                .gold_spans()
                .iter()
                .all(|s| s.text_matches(&back.output)));
            continue;
        }
        assert_eq!(
            got.value(i).expect("out value"),
            f.value(i).expect("in value"),
            "{} record {i} through the writer",
            file.display()
        );
    }
}

#[test]
fn round_trip_fixture_and_data_files() {
    round_trip(&fixture(), usize::MAX);
    for rel in [
        "toolace/test_records_reconstructed.jsonl",
        "toolace/ensemble/predictions_combined.jsonl",
        "toolace/modernbert_ft/predictions_combined.jsonl",
    ] {
        round_trip(&common::data(rel), 60);
    }
}

#[test]
fn round_trip_shared_data() {
    let Some(root) = common::shared("") else {
        return;
    };
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("ls") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl" || x == "json") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut done = 0;
    for f in &files {
        // Files no reader recognises (string-only prompt examples, metrics) or that are not
        // valid JSON (the truncated LettuceDetect file) have no round trip to check.
        let Ok(df) = DataFile::open(f, None, None) else {
            eprintln!("SKIP: {}: no known format", f.display());
            continue;
        };
        if !df.format.has_output() || (0..df.len()).any(|i| df.record(i).is_err()) {
            eprintln!("SKIP: {}: not a readable records file", f.display());
            continue;
        }
        round_trip(f, 15);
        done += 1;
    }
    assert!(done >= 10, "only {done} shared files were round-tripped");
}

/// A file of many chunks (1,000 records: export works on two threads, 256 records at a time)
/// with CRLF ends, blank and indented lines: undecided records come out byte for byte as their
/// input line (copied as runs of lines), in file order, around the records with decisions.
#[test]
fn many_records_keep_order_and_bytes() {
    let dir = TempDir::new().expect("tmp");
    let input = dir.path().join("many.jsonl");
    let base = fs::read_to_string(fixture()).expect("fixture");
    let base: Vec<Value> = base
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let mut text = String::new();
    let mut want_lines = Vec::new();
    for i in 0..1000 {
        let mut v = base[i % base.len()].clone();
        v["id"] = Value::from(format!("r{i:04}"));
        let line = v.to_string();
        match i % 7 {
            0 => text.push_str(&format!("{line}\r\n")),
            1 => text.push_str(&format!("\n  {line}  \n")),
            _ => text.push_str(&format!("{line}\n")),
        }
        want_lines.push(line);
    }
    fs::write(&input, &text).expect("write");
    let recs = records(&input);
    let db = dir.path().join("db.sqlite");
    let s = Script::new(&db, "many");
    // Removed records at the start of a chunk, in its middle and at the very end.
    for i in [256usize, 300, 999] {
        s.push(&recs[i], "ann", ActionKind::Remove, |d| {
            d.reason = Some("incoherent".into());
        });
    }
    let out = dir.path().join("out.jsonl");
    export_cmd(&input, &db)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let got = fs::read_to_string(&out).expect("out");
    let want: Vec<&str> = want_lines
        .iter()
        .enumerate()
        .filter(|(i, _)| ![256, 300, 999].contains(i))
        .map(|(_, l)| l.as_str())
        .collect();
    assert_eq!(got.lines().collect::<Vec<_>>(), want);
    assert!(got.ends_with('\n'));
}

// ---- QA findings: unreadable lines, spans without a label, clean records with labels ----

/// The fixture with line 3 (f03) made invalid JSON and line 4 (f04) given a numeric id.
fn with_unreadable_lines(dir: &Path) -> (PathBuf, String, String) {
    let text = fs::read_to_string(fixture()).expect("read");
    let mut ls: Vec<String> = text.lines().map(str::to_owned).collect();
    let broken = r#"{"id": "f03__contradiction", "output":"#.to_owned();
    let numeric = ls[3].replacen(r#""id": "f04__missing_tool""#, r#""id": 5"#, 1);
    ls[2] = broken.clone();
    ls[3] = numeric.clone();
    let file = dir.join("records.jsonl");
    fs::write(&file, ls.join("\n") + "\n").expect("write");
    (file, broken, numeric)
}

#[test]
fn unreadable_lines_pass_through_in_their_place() {
    let dir = TempDir::new().expect("tmp");
    let (file, broken, numeric) = with_unreadable_lines(dir.path());
    let db = dir.path().join("db.sqlite");
    let recs = records(&fixture());
    let sc = Script::new(&db, "records");
    sc.push(&recs[4], "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
    });
    let out = dir.path().join("out.jsonl");
    let report = dir.path().join("report.md");
    let a = export_cmd(&file, &db)
        .args(["--out", s(&out), "--report", s(&report)])
        .assert()
        .code(0);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    let name = file.display().to_string();
    assert!(
        err.lines()
            .any(|l| l.starts_with(&format!("{name}:3: ")) && l.contains("invalid JSON")),
        "{err}"
    );
    assert!(
        err.lines().any(|l| l.starts_with(&format!("{name}:4: "))),
        "{err}"
    );
    let got = fs::read_to_string(&out).expect("out");
    let got: Vec<&str> = got.lines().collect();
    assert_eq!(got.len(), 11);
    assert_eq!(got[2], broken, "byte for byte, in its place");
    assert_eq!(got[3], numeric, "byte for byte, in its place");
    let f05: Value = serde_json::from_str(got[4]).expect("json");
    assert!(texts(&f05).is_empty(), "the other decisions still apply");
    let report = fs::read_to_string(&report).expect("report");
    assert_eq!(
        cell(&report, "Unreadable input lines passed through unchanged"),
        "2"
    );
}

#[test]
fn an_unreadable_line_with_decisions_reports_them_not_applied() {
    let dir = TempDir::new().expect("tmp");
    let (file, _, _) = with_unreadable_lines(dir.path());
    // valid JSON with the id readable, but not a record: its output is not a string
    let text = fs::read_to_string(&file).expect("read");
    let mut ls: Vec<&str> = text.lines().collect();
    let broken = r#"{"id": "f03__contradiction", "output": 5}"#;
    ls[2] = broken;
    fs::write(&file, ls.join("\n") + "\n").expect("write");
    let db = dir.path().join("db.sqlite");
    let recs = records(&fixture());
    Script::new(&db, "records").push(&recs[2], "bob", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
    });
    let out = dir.path().join("out.jsonl");
    let a = export_cmd(&file, &db)
        .args(["--out", s(&out)])
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("f03__contradiction") && err.contains("not applied"),
        "{err}"
    );
    assert!(!err.contains("the input does not have"), "{err}");
    let got = fs::read_to_string(&out).expect("written");
    assert_eq!(got.lines().nth(2), Some(broken));
    assert!(err.contains(&format!("{}:3: ", file.display())), "{err}");
}

#[test]
fn unreadable_lines_are_left_out_of_split_files() {
    let dir = TempDir::new().expect("tmp");
    let (file, _, _) = with_unreadable_lines(dir.path());
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let out = dir.path().join("cfg.jsonl");
    let a = export_cmd(&file, &db)
        .args(["--out", s(&out), "--split-by", "meta.corruption_type"])
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains(&format!("{}:3: ", file.display())), "{err}");
    let mut n = 0;
    for e in fs::read_dir(dir.path()).expect("ls") {
        let p = e.expect("e").path();
        if p.file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with("cfg."))
        {
            n += lines(&p).len();
        }
    }
    assert_eq!(
        n, 9,
        "every readable record routed, the two unreadable left out"
    );
}

/// Export the fixture after `decide`; the stderr and the report.
fn export_after(decide: impl FnOnce(&Script, &[Record])) -> (String, String) {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    let recs = records(&fixture());
    decide(&Script::new(&db, "records"), &recs);
    let out = dir.path().join("out.jsonl");
    let report = dir.path().join("report.md");
    let a = export(&db, &["--out", s(&out), "--report", s(&report)]).success();
    (
        String::from_utf8_lossy(&a.get_output().stderr).into_owned(),
        fs::read_to_string(&report).expect("report"),
    )
}

/// Export the fixture after `decide`, expecting it refused (exit 1): its stderr, and whether
/// any output was written.
fn refused_after(decide: impl FnOnce(&Script, &[Record]) -> Vec<Decision>) -> (String, Vec<i64>) {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    let recs = records(&fixture());
    let saved = decide(&Script::new(&db, "records"), &recs);
    let out = dir.path().join("out.jsonl");
    let report = dir.path().join("report.md");
    let a = export(&db, &["--out", s(&out), "--report", s(&report)]).code(1);
    assert!(!out.exists() && !report.exists(), "nothing is written");
    (
        String::from_utf8_lossy(&a.get_output().stderr).into_owned(),
        saved.iter().map(|d| d.id).collect(),
    )
}

/// A span `validate` would reject is never exported: refused (exit 1, nothing written), named
/// by record, span and the decision that set it. Known-bad cases: no label, a record's type
/// (`clean`) as label, a label not in the label set, each on text with `é`, `’`, CJK.
#[test]
fn a_span_validate_would_reject_refuses_the_export() {
    let cases = [
        ("", "label \"\" is not in the label set"),
        ("clean", "label \"clean\" is a record's type, not a span's"),
        ("made_up", "label \"made_up\" is not in the label set"),
    ];
    for (label, why) in cases {
        let recs = records(&fixture());
        let (b, e) = cp(&recs[3].output, "emailed José");
        let (err, ids) = refused_after(|sc, recs| {
            vec![sc.push(&recs[3], "ann", ActionKind::Add, |d| {
                d.span_key = key("added:x1");
                d.after = Some(value(&recs[3].output, "emailed José", label));
            })]
        });
        let line = err
            .lines()
            .find(|l| l.contains("span added:x1"))
            .unwrap_or_else(|| panic!("{label:?}: the span is named: {err}"));
        let want = format!("records.jsonl:4: record \"f04__missing_tool\": span added:x1 [{b}, {e}) \"{label}\": {why}");
        assert!(line.contains(&want), "{label:?}: want {want:?} in {line}");
        let by = format!("; set by decision #{} (add by ann)", ids[0]);
        assert!(line.ends_with(&by), "{label:?}: {line}");
        assert!(err.contains("nothing was written"), "{err}");
    }
}

/// A record of a hallucination type whose every span is dropped (as a "drop all" resolution
/// leaves it) is an open item: warned about, listed by id in the report's open items, and
/// `--require-settled` refuses the export (exit 1, nothing written) until it is labeled,
/// reclassified clean or removed.
#[test]
fn a_typed_record_left_without_a_span_is_an_open_item() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    let recs = records(&fixture());
    let sc = Script::new(&db, "records");
    sc.push(&recs[3], "lead", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
    });
    let (out, report) = (dir.path().join("out.jsonl"), dir.path().join("report.md"));
    let a = export(&db, &["--out", s(&out), "--report", s(&report)]).success();
    let err = stderr(&a);
    assert!(
        err.contains("keep a hallucination type but no label") && err.contains("f04__missing_tool"),
        "{err}"
    );
    let text = fs::read_to_string(&report).expect("report");
    let open = text
        .split("## Open items")
        .nth(1)
        .unwrap_or_else(|| panic!("an open items section: {text}"));
    assert!(
        open.contains("| `f04__missing_tool` | missing_tool |"),
        "{open}"
    );
    fs::remove_file(&out).expect("rm");
    fs::remove_file(&report).expect("rm");
    let a = export(
        &db,
        &[
            "--out",
            s(&out),
            "--report",
            s(&report),
            "--require-settled",
        ],
    )
    .code(1);
    let err = stderr(&a);
    assert!(err.contains("--require-settled"), "{err}");
    assert!(err.contains("f04__missing_tool"), "{err}");
    assert!(!out.exists() && !report.exists(), "nothing is written");
    // Settled (reclassified clean): the same flag exports.
    sc.push(&recs[3], "lead", ActionKind::Clean, |_| {});
    export(&db, &["--out", s(&out), "--require-settled"]).success();
    let settled = fs::read_to_string(&report).unwrap_or_default();
    assert!(!settled.contains("f04__missing_tool"));
}

#[test]
fn a_clean_record_left_with_labels_is_reported() {
    let (err, report) = export_after(|sc, recs| {
        sc.push(&recs[10], "ann", ActionKind::Add, |d| {
            d.span_key = key("added:x2");
            d.after = Some(value(&recs[10].output, "ça va", "contradiction"));
        });
    });
    assert!(
        err.contains("clean records left with labels: 1 — reclassify them in review")
            && err.contains(": f11"),
        "{err}"
    );
    assert_eq!(
        cell(
            &report,
            "Clean records left with labels — reclassify them in review"
        ),
        "1"
    );
    assert_eq!(cell(&report, "Spans exported without a label"), "0");
}

// ---- ids saved beside the index: later exports copy the lines without decisions unread ----

/// `n` records made from the fixture's, each padded by an unmanaged key to over 17 KB so the
/// file (over 16 MiB) goes through the index cache; line `broken` made invalid JSON.
fn big_input(dir: &Path, n: usize, broken: Option<usize>) -> PathBuf {
    let base = lines(&fixture());
    let pad = "°’中🙂e\u{301} ".repeat(1500);
    let mut text = String::new();
    for i in 0..n {
        if broken == Some(i) {
            text.push_str("{\"id\": \"broken\", \"output\": \n");
            continue;
        }
        let mut v = base[i % base.len()].clone();
        v["id"] = Value::from(format!("r{i:04}"));
        v["padding"] = Value::from(pad.clone());
        text.push_str(&v.to_string());
        text.push('\n');
    }
    let path = dir.join("big.jsonl");
    fs::write(&path, text).expect("write");
    assert!(fs::metadata(&path).expect("size").len() > 16 << 20);
    path
}

/// Saved-ids sidecars in the cache folder `cache`.
fn saved_ids(cache: &Path) -> usize {
    fs::read_dir(cache.join("index"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "ids"))
            })
            .count()
        })
        .unwrap_or(0)
}

/// Export `input` with the decisions in `db` and the index cache in `cache`; its stderr.
fn export_cached(input: &Path, db: &Path, cache: &Path, out: &Path) -> String {
    let a = export_cached_run(input, db, cache, out).success();
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// The same export run, its outcome left to the caller.
fn export_cached_run(
    input: &Path,
    db: &Path,
    cache: &Path,
    out: &Path,
) -> assert_cmd::assert::Assert {
    common::bin()
        .env("SPANREVIEW_CACHE_DIR", cache)
        .env_remove("SPANREVIEW_INDEX_CACHE")
        .arg("export")
        .arg(input)
        .arg("--db")
        .arg(db)
        .arg("--dataset")
        .arg("big")
        .arg("--out")
        .arg(out)
        .assert()
}

/// A temp folder with [`big_input`] (1000 records, none broken), its index cache folder, the
/// records, and a decision database (dataset "big") with a script ready.
fn big_review() -> (TempDir, PathBuf, PathBuf, Vec<Record>, PathBuf, Script) {
    let dir = TempDir::new().expect("tmp");
    let cache = dir.path().join("cache");
    let input = big_input(dir.path(), 1000, None);
    let recs = records(&input);
    let db = dir.path().join("db.sqlite");
    let sc = Script::new(&db, "big");
    (dir, cache, input, recs, db, sc)
}

#[test]
fn exports_after_the_ids_are_saved_give_the_same_file() {
    let (dir, cache, input, recs, db, sc) = big_review();
    sc.push(&recs[256], "ann", ActionKind::Remove, |d| {
        d.reason = Some("incoherent".into());
    });
    sc.push(&recs[700], "ann", ActionKind::Clean, |_| {});
    let with_span = recs[300..]
        .iter()
        .position(|r| !r.gold_spans().is_empty())
        .expect("a labeled record")
        + 300;
    sc.push(&recs[with_span], "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
    });
    let out1 = dir.path().join("out1.jsonl");
    export_cached(&input, &db, &cache, &out1);
    assert_eq!(saved_ids(&cache), 1, "the first export saves the ids");
    let out2 = dir.path().join("out2.jsonl");
    export_cached(&input, &db, &cache, &out2);
    let first = fs::read_to_string(&out1).expect("out1");
    assert_eq!(fs::read_to_string(&out2).expect("out2"), first);
    let got = by_id(lines(&out2));
    assert_eq!(got.len(), 999);
    assert!(!got.contains_key("r0256"));
    assert_eq!(got["r0700"]["meta"]["corruption_type"], "clean");
    let id = format!("r{with_span:04}");
    assert_eq!(
        labels(&got[&id]).len() + 1,
        recs[with_span].gold_spans().len(),
        "{id} lost its first label"
    );

    // Known-bad: the ids saved for the file as it was must not be used for it as it is. The
    // same lines in reverse order (same size): the decisions follow their records.
    let text = fs::read_to_string(&input).expect("input");
    let reversed: Vec<&str> = text.lines().rev().collect();
    fs::write(&input, reversed.join("\n") + "\n").expect("rewrite");
    let out3 = dir.path().join("out3.jsonl");
    export_cached(&input, &db, &cache, &out3);
    let want: Vec<&str> = first.lines().rev().collect();
    assert_eq!(
        fs::read_to_string(&out3)
            .expect("out3")
            .lines()
            .collect::<Vec<_>>(),
        want
    );
}

#[test]
fn a_file_with_an_unreadable_line_gets_no_saved_ids_and_every_export_reports_it() {
    let dir = TempDir::new().expect("tmp");
    let cache = dir.path().join("cache");
    let input = big_input(dir.path(), 1000, Some(600));
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let name = input.display().to_string();
    for k in 0..2 {
        let err = export_cached(&input, &db, &cache, &dir.path().join(format!("o{k}.jsonl")));
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("{name}:601: ")) && l.contains("invalid JSON")),
            "export {k}: {err}"
        );
    }
    assert_eq!(saved_ids(&cache), 0);
}

// ---- QA pass 2: split collisions, partial output, messages, unreadable lines and labels ----

/// The fixture's records, each changed by `edit(index, record)`, written as JSONL `name` in
/// `dir` (non-ASCII written raw).
fn edited(dir: &Path, name: &str, edit: impl Fn(usize, &mut Value)) -> PathBuf {
    let mut text = String::new();
    for (i, mut v) in lines(&fixture()).into_iter().enumerate() {
        edit(i, &mut v);
        text.push_str(&serde_json::to_string(&v).expect("json"));
        text.push('\n');
    }
    let file = dir.join(name);
    fs::write(&file, text).expect("write");
    file
}

/// `spanreview export FILE --db DB ARGS...`, run in `dir`.
fn export_in(dir: &Path, file: &Path, db: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    export_cmd(file, db).current_dir(dir).args(extra).assert()
}

/// [`export_in`] with `--out OUT --split-by FIELD`.
fn split_in(
    dir: &Path,
    file: &Path,
    db: &Path,
    out: &str,
    field: &str,
) -> assert_cmd::assert::Assert {
    export_in(dir, file, db, &["--out", out, "--split-by", field])
}

/// The names of the files in `dir` starting with `prefix`.
fn files_starting(dir: &Path, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("e").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect();
    names.sort();
    names
}

#[test]
fn split_values_with_one_file_name_are_refused_and_nothing_is_written() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    // "東京/ツール" and "東京_ツール" both become the file name part "東京_ツール"
    let file = edited(dir.path(), "records.jsonl", |i, v| {
        v["meta"]["source"] = Value::from(if i % 2 == 0 {
            "東京/ツール"
        } else {
            "東京_ツール"
        });
    });
    let a = split_in(dir.path(), &file, &db, "o.jsonl", "meta.source").code(2);
    let err = stderr(&a);
    assert!(
        err.contains(r#"the values "東京/ツール" and "東京_ツール" would both be written to ./o.東京_ツール.jsonl"#),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(files_starting(dir.path(), "o."), Vec::<String>::new());
    assert_eq!(files_starting(dir.path(), ".o."), Vec::<String>::new());

    // an empty value and a missing one both have the file name part `none`
    let file = edited(dir.path(), "records.jsonl", |i, v| {
        let meta = v["meta"].as_object_mut().expect("meta");
        if i == 0 {
            meta.remove("source");
        } else if i == 1 {
            meta.insert("source".into(), Value::from(""));
        }
    });
    let a = split_in(dir.path(), &file, &db, "o.jsonl", "meta.source").code(2);
    let err = stderr(&a);
    assert!(
        err.contains(r#"the values "none" and "" would both be written to ./o.none.jsonl"#),
        "{err}"
    );
    assert_eq!(files_starting(dir.path(), "o."), Vec::<String>::new());

    // distinct file names: every record is written
    let file = edited(dir.path(), "records.jsonl", |i, v| {
        v["meta"]["source"] = Value::from(if i % 2 == 0 {
            "東京/ツール"
        } else {
            "café"
        });
    });
    split_in(dir.path(), &file, &db, "o.jsonl", "meta.source").code(0);
    let n: usize = ["o.東京_ツール.jsonl", "o.café.jsonl"]
        .iter()
        .map(|f| lines(&dir.path().join(f)).len())
        .sum();
    assert_eq!(n, 11);
}

#[test]
fn an_output_that_is_a_folder_or_in_a_missing_folder_leaves_no_output() {
    let (dir, db) = scripted();
    let d = dir.path();
    fs::create_dir(d.join("rapports°")).expect("mkdir");
    fs::write(d.join("v.jsonl"), "ancien ’verdict’\n").expect("old verdicts");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--report", "rapports°"],
            "refusing to write --report rapports°: it is a folder",
        ),
        (
            &["--report", "nul/r.md"],
            "cannot write --report nul/r.md: the folder nul does not exist",
        ),
        (
            &["--report", "r.md", "--verdicts", "rapports°"],
            "refusing to write --verdicts rapports°: it is a folder",
        ),
        (
            &["--report", "r.md", "--split-by", "meta.corruption_type"],
            "refusing to write --split-by file ./o.contradiction.jsonl: it is a folder",
        ),
    ];
    fs::create_dir(d.join("o.contradiction.jsonl")).expect("mkdir");
    for (extra, message) in cases {
        let mut args = vec!["--out", "o.jsonl"];
        if !extra.contains(&"--verdicts") {
            args.extend(["--verdicts", "v.jsonl"]);
        }
        args.extend_from_slice(extra);
        let mut cmd = common::bin();
        let a = cmd
            .current_dir(d)
            .arg("export")
            .arg(fixture())
            .arg("--db")
            .arg(&db)
            .args(&args)
            .assert()
            .code(2);
        let err = stderr(&a);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!d.join("o.jsonl").exists(), "{args:?}: {err}");
        assert!(!d.join("r.md").exists(), "{args:?}: {err}");
        assert_eq!(
            fs::read_to_string(d.join("v.jsonl")).expect("v"),
            "ancien ’verdict’\n",
            "{args:?}"
        );
        assert_eq!(files_starting(d, "o.overgeneration"), Vec::<String>::new());
        assert_eq!(
            files_starting(d, "."),
            Vec::<String>::new(),
            "no temporary file"
        );
    }
}

#[test]
fn a_split_file_on_another_output_names_that_output() {
    let (dir, db) = scripted();
    let d = dir.path();
    for (flag, name) in [
        ("--verdicts", "o.contradiction.jsonl"),
        ("--report", "o.clean.jsonl"),
    ] {
        let a = export_in(
            d,
            &fixture(),
            &db,
            &[
                "--out",
                "o.jsonl",
                "--split-by",
                "meta.corruption_type",
                flag,
                name,
            ],
        )
        .code(2);
        let err = stderr(&a);
        assert!(
            err.contains(&format!(
                "refusing to write --split-by file ./{name}: it is the {flag} file {}",
                d.canonicalize().expect("dir").join(name).display()
            )),
            "{err}"
        );
        assert!(!err.contains("input file"), "{err}");
        assert_eq!(files_starting(d, "o."), Vec::<String>::new());
    }
    // the database and the input keep their own names
    let input = d.join("entrée’.jsonl");
    fs::copy(fixture(), &input).expect("copy");
    let a = export_in(d, &input, &db, &["--out", "o.jsonl", "--report", s(&db)]).code(2);
    assert!(stderr(&a).contains("it is the database"), "{}", stderr(&a));
    let a = export_in(d, &input, &db, &["--out", s(&input)]).code(2);
    assert!(
        stderr(&a).contains("it is the input file"),
        "{}",
        stderr(&a)
    );
}

#[test]
fn split_by_a_field_records_lack_says_how_many_and_where_they_went() {
    let dir = TempDir::new().expect("tmp");
    let d = dir.path();
    let db = d.join("db.sqlite");
    Store::open(&db).expect("db");
    // two records without meta.langue, one with null; the others "français" or "日本語"
    let file = edited(d, "records.jsonl", |i, v| {
        let meta = v["meta"].as_object_mut().expect("meta");
        match i {
            0 | 1 => {}
            2 => {
                meta.insert("langue".into(), Value::Null);
            }
            _ => {
                let l = if i % 2 == 0 { "français" } else { "日本語" };
                meta.insert("langue".into(), Value::from(l));
            }
        }
    });
    let a = split_in(d, &file, &db, "o.jsonl", "meta.langue").code(0);
    let err = stderr(&a);
    assert!(
        err.contains(
            "warning: 3 of 11 records have no meta.langue (missing or null): they were written \
             to ./o.none.jsonl\n"
        ),
        "{err}"
    );
    let none = lines(&d.join("o.none.jsonl"));
    let ids: Vec<&str> = none.iter().map(|v| v["id"].as_str().expect("id")).collect();
    assert_eq!(
        ids,
        [
            "f01__contradiction",
            "f02__overgeneration",
            "f03__contradiction"
        ]
    );
    // a field no record has
    let a = split_in(d, &file, &db, "p.jsonl", "meta.catégorie").code(0);
    let err = stderr(&a);
    assert!(
        err.contains(
            "warning: 11 of 11 records have no meta.catégorie (missing or null): they were \
             written to ./p.none.jsonl (no record has the field: check the --split-by path)"
        ),
        "{err}"
    );
    assert_eq!(lines(&d.join("p.none.jsonl")).len(), 11);
    // every record has a value: no warning
    let a = split_in(d, &file, &db, "q.jsonl", "meta.corruption_type").code(0);
    assert!(!stderr(&a).contains("have no meta"), "{}", stderr(&a));
}

#[test]
fn the_report_says_unreadable_lines_were_left_out_of_split_files() {
    let dir = TempDir::new().expect("tmp");
    let d = dir.path();
    let (file, _, _) = with_unreadable_lines(d);
    let db = d.join("db.sqlite");
    Store::open(&db).expect("db");
    let a = export_in(
        d,
        &file,
        &db,
        &[
            "--out",
            "o.jsonl",
            "--split-by",
            "meta.corruption_type",
            "--report",
            "r°.md",
        ],
    )
    .code(1);
    let err = stderr(&a);
    assert!(
        err.contains("warning: unreadable input lines left out of the split files: 2\n"),
        "{err}"
    );
    assert!(!err.contains("passed through"), "{err}");
    let report = fs::read_to_string(d.join("r°.md")).expect("report");
    assert_eq!(
        cell(
            &report,
            "Unreadable input lines left out of the split files"
        ),
        "2"
    );
    assert!(!report.contains("passed through"), "{report}");
    let n: usize = files_starting(d, "o.")
        .iter()
        .map(|f| lines(&d.join(f)).len())
        .sum();
    assert_eq!(n, 9);
    // without --split-by they are passed through, and the row says so
    let a = export_in(d, &file, &db, &["--out", "p.jsonl", "--report", "r°.md"]).code(0);
    assert!(
        stderr(&a).contains("warning: unreadable input lines passed through unchanged: 2\n"),
        "{}",
        stderr(&a)
    );
    let report = fs::read_to_string(d.join("r°.md")).expect("report");
    assert_eq!(
        cell(&report, "Unreadable input lines passed through unchanged"),
        "2"
    );
    let text = fs::read_to_string(d.join("p.jsonl")).expect("out");
    assert_eq!(
        text.lines().count(),
        11,
        "the two broken lines in their place"
    );
}

#[test]
fn decisions_on_a_line_cut_short_are_listed_as_not_applied() {
    let dir = TempDir::new().expect("tmp");
    let d = dir.path();
    // line 2 (f02, "The café’s rating is 4.5 ★ …") cut short in its labels
    let text = fs::read_to_string(fixture()).expect("read");
    let mut ls: Vec<String> = text.lines().map(str::to_owned).collect();
    let cut: String = ls[1].chars().take(ls[1].chars().count() - 41).collect();
    assert!(cut.contains("★"));
    ls[1].clone_from(&cut);
    let file = d.join("records.jsonl");
    fs::write(&file, ls.join("\n") + "\n").expect("write");
    let db = d.join("db.sqlite");
    let recs = records(&fixture());
    let sc = Script::new(&db, "records");
    let dropped = sc.push(&recs[1], "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
    });
    sc.push(&recs[4], "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
    });
    let a = export_in(d, &file, &db, &["--out", "o.jsonl", "--report", "r’.md"]).code(1);
    let err = stderr(&a);
    assert!(
        err.contains(&format!("{}:2: invalid JSON", file.display())),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "warning: record \"f02__overgeneration\" could not be read (its line is passed \
             through as it is); its 1 decision(s) in force are not applied: #{}",
            dropped.id
        )),
        "{err}"
    );
    assert!(!err.contains("the input does not have"), "{err}");
    let out = fs::read_to_string(d.join("o.jsonl")).expect("out");
    assert_eq!(
        out.lines().nth(1),
        Some(cut.as_str()),
        "passed through as it is"
    );
    let f05: Value = serde_json::from_str(out.lines().nth(4).expect("f05")).expect("json");
    assert!(texts(&f05).is_empty(), "the other decisions still apply");
    let report = fs::read_to_string(d.join("r’.md")).expect("report");
    assert_eq!(
        cell(&report, "Decisions on unreadable lines (not applied)"),
        "1"
    );
    assert_eq!(cell(&report, "Decisions on records not in the input"), "0");
}

#[test]
fn an_id_on_two_lines_is_warned_about_with_its_lines() {
    let dir = TempDir::new().expect("tmp");
    let d = dir.path();
    // f03 ("東京の気温は25°Cです。") again as line 12, f11 again as line 13
    let text = fs::read_to_string(fixture()).expect("read");
    let ls: Vec<&str> = text.lines().collect();
    let file = d.join("records.jsonl");
    fs::write(&file, format!("{text}{}\n{}\n", ls[2], ls[10])).expect("write");
    let db = d.join("db.sqlite");
    let recs = records(&fixture());
    Script::new(&db, "records").push(&recs[2], "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
    });
    let a = export_in(d, &file, &db, &["--out", "o.jsonl", "--report", "r東.md"]).code(0);
    let err = stderr(&a);
    assert!(
        err.contains(&format!(
            "warning: {}: the id \"f03__contradiction\" is on 2 lines (3, 12); its decisions \
             were applied to each of them, and the report counts each line",
            file.display()
        )),
        "{err}"
    );
    assert!(
        !err.contains("f11"),
        "ids without decisions are not looked for: {err}"
    );
    let out = lines(&d.join("o.jsonl"));
    assert_eq!(out.len(), 13, "nothing lost");
    assert!(texts(&out[2]).is_empty() && texts(&out[11]).is_empty());
    let report = fs::read_to_string(d.join("r東.md")).expect("report");
    assert_eq!(cell(&report, "Records reviewed"), "2");
    assert_eq!(
        cell(
            &report,
            "Input lines repeating an earlier line's id (its decisions applied to each; every \
             count above counts lines)"
        ),
        "1"
    );
}

#[test]
fn labels_of_a_reviewed_record_that_could_not_be_read_are_counted() {
    let dir = TempDir::new().expect("tmp");
    let d = dir.path();
    // f08 has two labels; its first one's start written as a float (a pandas round trip)
    let file = edited(d, "records.jsonl", |i, v| {
        if i == 7 {
            let start = v["hallucination_labels"][0]["start"]
                .as_u64()
                .expect("start");
            #[allow(clippy::cast_precision_loss)]
            let f = start as f64;
            v["hallucination_labels"][0]["start"] = Value::from(f);
        }
    });
    let recs = records(&file);
    let rec = &recs[7];
    assert_eq!(rec.gold_spans().len(), 1, "one label read, one not");
    let db = d.join("db.sqlite");
    Script::new(&db, "records").push(rec, "ann", ActionKind::Accept, |d| {
        d.span_key = key("gold:0");
    });
    let a = export_in(d, &file, &db, &["--out", "o.jsonl", "--report", "r°.md"]).code(0);
    let err = stderr(&a);
    assert!(
        err.contains(&format!(
            "warning: record \"{}\": reviewed, but some of its labels could not be read and are \
             not in the export: hallucination_labels[0]: span \"start\" is not a non-negative \
             integer",
            rec.id
        )),
        "{err}"
    );
    let out = by_id(lines(&d.join("o.jsonl")));
    assert_eq!(labels(&out[&rec.id]).len(), 1);
    let report = fs::read_to_string(d.join("r°.md")).expect("report");
    assert_eq!(
        cell(
            &report,
            "Labels left out of reviewed records because they could not be read"
        ),
        "1"
    );
    // unreviewed, the record's line is copied as it is: nothing left out, nothing counted
    let db2 = d.join("empty.sqlite");
    Store::open(&db2).expect("db");
    export_in(d, &file, &db2, &["--out", "p.jsonl", "--report", "r°.md"]).code(0);
    let report = fs::read_to_string(d.join("r°.md")).expect("report");
    assert_eq!(
        cell(
            &report,
            "Labels left out of reviewed records because they could not be read"
        ),
        "0"
    );
    assert_eq!(
        fs::read_to_string(d.join("p.jsonl")).expect("p"),
        fs::read_to_string(&file).expect("in")
    );
}

/// A LettuceDetect sample (Turkish, with `ğ`, `ş`, `ı` and an emoji) as JSON.
fn lettuce_sample(n: usize) -> String {
    let answer = format!("İstanbul’da hava {n}°C ve güneşli 🌞.");
    let (start, end) = cp(&answer, &format!("{n}°C"));
    serde_json::json!({
        "prompt": "Hava nasıl? ğüşıöç",
        "answer": answer,
        "labels": [{"start": start, "end": end, "label": "hallucination",
                    "category": "contradiction", "subcategory": "numerical"}],
        "split": "test",
        "task_type": "qa",
        "dataset": "örnek",
        "language": "tr"
    })
    .to_string()
}

#[test]
fn a_json_array_cut_short_is_reported_and_exits_1() {
    let dir = TempDir::new().expect("tmp");
    let d = dir.path();
    let whole: Vec<String> = (1..=4).map(lettuce_sample).collect();
    let partial = &whole[3][..whole[3].find("ve güneşli").expect("cut")];
    let text = format!(
        "[\n  {},\n  {},\n  {},\n  {partial}",
        whole[0], whole[1], whole[2]
    );
    let file = d.join("örnek.json");
    fs::write(&file, &text).expect("write");
    let db = d.join("db.sqlite");
    Store::open(&db).expect("db");
    let a = export_in(d, &file, &db, &["--out", "o.json", "--report", "r.md"]).code(1);
    let err = stderr(&a);
    let name = file.display().to_string();
    assert!(
        err.contains(&format!(
            "warning: {name}:5: the JSON array is not closed: the file is truncated; the records \
             before this line were read; the text from this line on is not in the export"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "spanreview: {name}:5: the input is cut short; the record there is not in the export \
             (exit 1)"
        )),
        "{err}"
    );
    let out: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(d.join("o.json")).expect("out")).expect("array");
    assert_eq!(out.len(), 3, "the complete records, in a valid array");
    assert_eq!(out[2]["answer"], "İstanbul’da hava 3°C ve güneşli 🌞.");
    let report = fs::read_to_string(d.join("r.md")).expect("report");
    assert_eq!(
        cell(
            &report,
            "Records cut short at the end of the input (not exported)"
        ),
        "1"
    );
    // closed, the same records export with exit 0 and a zero row
    fs::write(&file, format!("[\n  {}\n]\n", whole.join(",\n  "))).expect("write");
    export_in(d, &file, &db, &["--out", "o.json", "--report", "r.md"]).code(0);
    let report = fs::read_to_string(d.join("r.md")).expect("report");
    assert_eq!(
        cell(
            &report,
            "Records cut short at the end of the input (not exported)"
        ),
        "0"
    );

    // the truncated LettuceDetect file of the shared data, when it is there
    if let Some(shared) = common::shared("multilingual/lettucedetect_tr/test_small.json") {
        let copy = d.join("test_small.json");
        fs::copy(&shared, &copy).expect("copy");
        let a = export_in(d, &copy, &db, &["--out", "tr.json"]).code(1);
        let err = stderr(&a);
        assert!(
            err.contains(&format!("{}:40: the input is cut short", copy.display())),
            "{err}"
        );
    }
}

#[test]
fn split_outputs_check_their_folder_but_not_files_no_record_goes_to() {
    let (dir, db) = scripted();
    let d = dir.path();
    // a folder named like the `none` file: no record goes there, so it does not matter
    fs::create_dir(d.join("o.none.jsonl")).expect("mkdir");
    let args = ["--out", "o.jsonl", "--split-by", "meta.corruption_type"];
    let a = export_in(d, &fixture(), &db, &args).code(0);
    assert!(
        stderr(&a).contains("./o.contradiction.jsonl (5 records)"),
        "{}",
        stderr(&a)
    );
    // --out in a folder that does not exist: refused before anything is written
    let args = [
        "--out",
        "là-bas/o.jsonl",
        "--split-by",
        "meta.corruption_type",
    ];
    let a = export_in(d, &fixture(), &db, &args).code(2);
    assert!(
        stderr(&a).contains("cannot write --out là-bas/o.jsonl: the folder là-bas does not exist"),
        "{}",
        stderr(&a)
    );
    assert!(!d.join("là-bas").exists());
}

#[test]
fn saved_ids_that_do_not_match_a_decided_line_stop_the_export_and_are_removed() {
    let (dir, cache, input, recs, db, sc) = big_review();
    sc.push(&recs[300], "ann", ActionKind::Remove, |d| {
        d.reason = Some("incoherent".into());
    });
    // Ids saved for this very file (the key matches) but wrong on line 500, which the fast
    // path would take for r0300 (a record with a decision); the 8 sampled lines are right.
    let mut ids: Vec<String> = recs.iter().map(|r| r.id.clone()).collect();
    ids[500] = recs[300].id.clone();
    let index = spanreview::formats::index::FileIndex::open_with(
        &input,
        Some(&spanreview::formats::index::Cache::new(
            cache.join("index"),
            0,
        )),
    )
    .expect("index");
    index.save_ids(&ids);
    assert_eq!(saved_ids(&cache), 1);
    let out = dir.path().join("out.jsonl");
    let run = || export_cached_run(&input, &db, &cache, &out);
    let a = run().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains(&format!(
            "{}:501: the record ids saved for this file do not match it",
            input.display()
        )),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    assert_eq!(saved_ids(&cache), 0, "the wrong ids are gone");
    // The next run reads every line: the right file.
    run().success();
    let got = by_id(lines(&out));
    assert_eq!(got.len(), 999);
    assert!(!got.contains_key(&recs[300].id));
    assert!(got.contains_key(&recs[500].id));
}

#[test]
fn a_retype_writes_the_new_type_into_the_record() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let recs = records(&fixture());
    let f11 = recs.iter().find(|r| r.id == "f11").expect("f11");
    assert_eq!(f11.corruption_type.as_deref(), Some("clean"));
    let sc = Script::new(&db, "records");
    sc.push(f11, "ann", ActionKind::Add, |d| {
        d.span_key = key("added:a1");
        d.after = Some(value(&f11.output, "ça va", "contradiction"));
    });
    let out = dir.path().join("reviewed.jsonl");
    let export_types = |out: &Path| {
        let a = export(&db, &["--out", s(out)]).success();
        let got = by_id(lines(out));
        (
            got["f11"]["meta"]["corruption_type"].clone(),
            texts(&got["f11"]),
            String::from_utf8_lossy(&a.get_output().stderr).into_owned(),
        )
    };
    let (ty, spans, stderr) = export_types(&out);
    assert_eq!(ty, "clean", "before the retype");
    assert_eq!(spans, ["ça va"]);
    assert!(stderr.contains("f11"), "the export warns: {stderr}");
    sc.push(f11, "ann", ActionKind::Retype, |d| {
        d.record_type = Some("contradiction".into());
    });
    let (ty, spans, stderr) = export_types(&out);
    assert_eq!(ty, "contradiction");
    assert_eq!(spans, ["ça va"]);
    assert!(!stderr.contains("f11"), "nothing to warn about: {stderr}");
    // Everything else of the line passes through.
    assert_eq!(
        unmanaged(&by_id(lines(&out))["f11"]),
        unmanaged(&input()["f11"])
    );
}

#[test]
fn a_second_file_of_records_is_said_to_be_only_joined_but_a_second_prediction_file_is_not() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let predictions = common::data("toolace/ensemble/predictions_combined.jsonl");
    for (file, told) in [(fixture(), true), (predictions, false)] {
        let copy = dir.path().join("second.jsonl");
        fs::copy(&file, &copy).expect("copy");
        let out = dir.path().join("out.jsonl");
        let a = export_in(dir.path(), &file, &db, &[s(&copy), "--out", s(&out)]).success();
        let err = stderr(&a);
        assert_eq!(
            err.contains("only its extra sources are read"),
            told,
            "{err}"
        );
    }
}
