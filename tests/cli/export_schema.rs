//! `spanreview export --features`: the files of one export load together in Hugging Face
//! `datasets` whatever their order. `datasets`' JSON loader takes the types of the first file
//! and casts the others to them; the check here follows its cast rules (a null fits any type,
//! an empty list any list, a missing key of an object is filled; an extra key, or a value of
//! another type, fails).

use std::fs;
use std::path::Path;

use serde_json::Value;
use spanreview::review::decision::{ActionKind, Decision};
use spanreview::store::Store;
use tempfile::TempDir;

use super::common::records;
use crate::common;

fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// Why `v` cannot be cast to the `datasets` feature `f` (`Features.to_dict()` form), if it
/// cannot; `at` names the field.
fn cast_error(v: &Value, f: &Value, at: &str) -> Option<String> {
    if v.is_null() || f.get("_type").and_then(Value::as_str) == Some("Json") {
        return None;
    }
    let bad = || Some(format!("{at}: {v} does not fit {f}"));
    match f.get("_type").and_then(Value::as_str) {
        Some("Value") => {
            let ok = match f["dtype"].as_str() {
                Some("string") => v.is_string(),
                Some("int64") => v.is_i64() || v.is_u64(),
                Some("float64") => v.is_number(),
                Some("bool") => v.is_boolean(),
                _ => false, // "null" takes nothing but null
            };
            if ok {
                None
            } else {
                bad()
            }
        }
        Some("List") => match v.as_array() {
            Some(items) => items
                .iter()
                .find_map(|x| cast_error(x, &f["feature"], &format!("{at}[]"))),
            None => bad(),
        },
        Some(_) => bad(),
        None => match (v.as_object(), f.as_object()) {
            (Some(o), Some(fields)) => o.iter().find_map(|(k, x)| match fields.get(k) {
                Some(fk) => cast_error(x, fk, &format!("{at}.{k}")),
                None => Some(format!("{at}.{k}: not in the features")),
            }),
            _ => bad(),
        },
    }
}

/// The features `datasets` would infer from a file whose records all have the shape of its
/// first one: an empty list's elements and a null typed `null`.
fn inferred(records: &[Value]) -> Value {
    fn ty(v: &Value) -> Value {
        match v {
            Value::Null => serde_json::json!({"dtype": "null", "_type": "Value"}),
            Value::Array(a) => serde_json::json!({
                "feature": a.first().map_or_else(|| ty(&Value::Null), ty),
                "_type": "List"
            }),
            Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), ty(x))).collect()),
            Value::String(_) => serde_json::json!({"dtype": "string", "_type": "Value"}),
            Value::Bool(_) => serde_json::json!({"dtype": "bool", "_type": "Value"}),
            Value::Number(n) if n.is_f64() => {
                serde_json::json!({"dtype": "float64", "_type": "Value"})
            }
            Value::Number(_) => serde_json::json!({"dtype": "int64", "_type": "Value"}),
        }
    }
    records.first().map_or(Value::Null, ty)
}

#[test]
fn split_and_provenance_files_load_together_with_the_features_written() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    let input = common::fixture("export/records.jsonl");
    let recs = records(&input);
    let store = Store::open(&db).expect("db");
    let by_id = |id: &str| recs.iter().find(|r| r.id == id).expect("record");
    // reviewed with a label kept, and reclassified clean: `meta.review` on two records only
    let mut d = Decision::new(
        by_id("f01__contradiction"),
        "records",
        "ann",
        ActionKind::Accept,
    );
    d.span_key = Some("gold:0".into());
    store.append(&d, None).expect("append");
    let d = Decision::new(
        by_id("f06__contradiction"),
        "records",
        "ann",
        ActionKind::Clean,
    );
    store.append(&d, None).expect("append");

    let out = dir.path().join("revu.jsonl");
    let features = dir.path().join("features.json");
    let a = common::bin()
        .arg("export")
        .arg(&input)
        .arg("--db")
        .arg(&db)
        .args(["--out", out.to_str().expect("utf-8")])
        .args(["--split-by", "meta.corruption_type", "--provenance"])
        .args(["--features", features.to_str().expect("utf-8")])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    let mut files: Vec<_> = fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("e").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "revu.clean.jsonl",
            "revu.contradiction.jsonl",
            "revu.missing_tool.jsonl",
            "revu.overgeneration.jsonl"
        ],
        "{stderr}"
    );
    let all: Vec<Vec<Value>> = files.iter().map(|p| lines(p)).collect();

    // The problem: the types of the first file alone (labels all `[]`, no `meta.review`) do not
    // take the others' records.
    let first = inferred(&all[0]);
    let fails: Vec<String> = all[1..]
        .iter()
        .flatten()
        .filter_map(|r| cast_error(r, &first, "record"))
        .collect();
    assert!(
        fails.iter().any(|e| e.contains("hallucination_labels[]")),
        "{fails:?}"
    );
    // and those of a file without reviewed records (missing_tool) do not take `meta.review`
    let no_review = inferred(&all[2]);
    assert!(
        all[1]
            .iter()
            .filter_map(|r| cast_error(r, &no_review, "record"))
            .any(|e| e.contains("meta.review: not in the features")),
        "{:?}",
        all[1]
    );

    // The written features take every record of every file.
    let f: Value = serde_json::from_slice(&fs::read(&features).expect("features")).expect("json");
    for (name, recs) in names.iter().zip(&all) {
        for r in recs {
            assert_eq!(cast_error(r, &f, "record"), None, "{name}: {}", r["id"]);
        }
    }
    let label = &f["hallucination_labels"]["feature"];
    assert_eq!(label["start"]["dtype"], "int64");
    assert_eq!(label["text"]["dtype"], "string");
    assert_eq!(
        f["meta"]["review"]["reviewers"]["feature"]["dtype"],
        "string"
    );
    assert_eq!(f["meta"]["review"]["time"]["dtype"], "string");
    // and the features file is one of the set
    let manifest: Value = serde_json::from_slice(
        &fs::read(dir.path().join(".revu.jsonl.manifest.json")).expect("manifest"),
    )
    .expect("json");
    assert!(manifest["files"]
        .as_array()
        .expect("files")
        .iter()
        .any(|e| e["what"] == "--features"));
}

#[test]
fn the_cast_check_refuses_what_datasets_refuses() {
    let f: Value = serde_json::json!({
        "id": {"dtype": "string", "_type": "Value"},
        "labels": {"feature": {"start": {"dtype": "int64", "_type": "Value"}}, "_type": "List"},
        "meta": {"note": {"dtype": "null", "_type": "Value"}}
    });
    let ok = serde_json::json!({"id": "é", "labels": [], "meta": {"note": null}});
    assert_eq!(cast_error(&ok, &f, "r"), None);
    for bad in [
        serde_json::json!({"id": 5}),
        serde_json::json!({"labels": [{"start": "4"}]}),
        serde_json::json!({"meta": {"note": "’"}}),
        serde_json::json!({"meta": {"review": {}}}),
        serde_json::json!({"extra": 1}),
    ] {
        assert!(cast_error(&bad, &f, "r").is_some(), "{bad}");
    }
}

/// Dotted paths of every key in `v` (`.a`, `.a[].b`).
fn key_paths(v: &Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                out.insert(format!("{at}.{k}"));
                key_paths(x, &format!("{at}.{k}"), out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| key_paths(x, &format!("{at}[]"), out)),
        _ => {}
    }
}

/// Dotted paths of every key a `datasets` features dictionary types.
fn feature_paths(f: &Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    match f.get("_type").and_then(Value::as_str) {
        Some("List") => feature_paths(&f["feature"], &format!("{at}[]"), out),
        Some(_) => {}
        None => {
            for (k, x) in f.as_object().into_iter().flatten() {
                out.insert(format!("{at}.{k}"));
                feature_paths(x, &format!("{at}.{k}"), out);
            }
        }
    }
}

#[test]
fn verdict_files_of_two_exports_load_together_with_the_verdicts_features() {
    let dir = TempDir::new().expect("tmp");
    let input = common::fixture("export/records.jsonl");
    let recs = records(&input);
    let export = |name: &str, decisions: Vec<Decision>| {
        let db = dir.path().join(format!("{name}.sqlite"));
        let store = Store::open(&db).expect("db");
        for d in &decisions {
            store.append(d, None).expect("append");
        }
        let verdicts = dir.path().join(format!("{name}.verdicts.jsonl"));
        let features = dir.path().join(format!("{name}.verdicts.features.json"));
        common::bin()
            .arg("export")
            .arg(&input)
            .arg("--db")
            .arg(&db)
            .args([
                "--out",
                dir.path()
                    .join(format!("{name}.jsonl"))
                    .to_str()
                    .expect("utf-8"),
            ])
            .args(["--verdicts", verdicts.to_str().expect("utf-8")])
            .args(["--verdicts-features", features.to_str().expect("utf-8")])
            .assert()
            .success();
        let f: Value =
            serde_json::from_slice(&fs::read(&features).expect("features")).expect("json");
        (
            lines(&verdicts),
            f,
            dir.path().join(format!(".{name}.jsonl.manifest.json")),
        )
    };
    let d = |i: usize, kind: ActionKind, edit: &dyn Fn(&mut Decision)| {
        let mut d = Decision::new(&recs[i], "records", "ann", kind);
        edit(&mut d);
        d
    };
    // One review with nothing but accepts (every `notes`, `reasons`, `disputes` is `[]`), one
    // with notes, a reason, a resolution and a removal.
    let (plain, plain_f, _) = export(
        "plain",
        vec![d(0, ActionKind::Accept, &|d| {
            d.span_key = Some("gold:0".into())
        })],
    );
    let (rich, rich_f, manifest) = export(
        "rich",
        vec![
            d(0, ActionKind::Note, &|d| {
                d.note = Some("checked 25°C, 東京 👍".into())
            }),
            d(0, ActionKind::Drop, &|d| {
                d.span_key = Some("gold:0".into());
                d.reason = Some("supported by the tool’s answer".into());
            }),
            d(1, ActionKind::Remove, &|d| {
                d.reason = Some("mismatch".into())
            }),
            d(2, ActionKind::Resolve, &|d| {
                d.span_key = Some("gold:0".into());
                d.upheld = vec!["judge_a".into()];
                d.dismissed = vec!["judge_b".into()];
                d.note = Some("é".into());
            }),
        ],
    );
    assert!(
        plain.iter().all(|v| v["notes"] == serde_json::json!([])),
        "{plain:?}"
    );

    // The problem: the types of the file without notes do not take the other's notes.
    let first = inferred(&plain);
    let fails: Vec<String> = rich
        .iter()
        .filter_map(|r| cast_error(r, &first, "verdict"))
        .collect();
    assert!(fails.iter().any(|e| e.contains("notes[]")), "{fails:?}");
    // nor, in the other order, those of the rich file (no label kept) the plain one's labels
    let first = inferred(&rich);
    assert!(
        plain
            .iter()
            .filter_map(|r| cast_error(r, &first, "verdict"))
            .any(|e| e.contains("labels_after[]")),
        "{plain:?}"
    );

    // The features, the same for both exports, take every line of both, in either order.
    assert_eq!(plain_f, rich_f);
    for v in plain.iter().chain(&rich) {
        assert_eq!(cast_error(v, &plain_f, "verdict"), None, "{}", v["id"]);
    }
    // and type every key the verdicts carry, nested ones included
    let (mut written, mut typed) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    for v in plain.iter().chain(&rich) {
        key_paths(v, "", &mut written);
    }
    feature_paths(&plain_f, "", &mut typed);
    let untyped: Vec<&String> = written.difference(&typed).collect();
    assert!(untyped.is_empty(), "{untyped:?}");
    assert!(written.contains(".reasons[].note") && written.contains(".disputes[].upheld"));
    assert_eq!(plain_f["notes"]["feature"]["dtype"], "string");
    assert_eq!(plain_f["reasons"]["feature"]["note"]["dtype"], "string");

    // The features file is one of the set.
    let manifest: Value =
        serde_json::from_slice(&fs::read(manifest).expect("manifest")).expect("json");
    assert!(manifest["files"]
        .as_array()
        .expect("files")
        .iter()
        .any(|e| e["what"] == "--verdicts-features"));
}
