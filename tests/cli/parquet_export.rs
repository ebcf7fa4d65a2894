//! `export` of parquet back to parquet, checked with real `datasets` (the venv of
//! `.ci/venv.sh`; skipped with a SKIP line without it): a shard made by `load_dataset("json")`
//! → `to_parquet` from the bundled sample plus a record over non-ASCII text, decisions made
//! with `apply`, and the export loaded again: the same features, Arrow schema (types, the
//! `huggingface` metadata), codecs and row groups, the same rows but the decided records'
//! labels, whose offsets slice the same text in Python (code points).

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use super::common::{bin, data, root};
use super::hub_folder::venv_python;

const QUOTE: &str = "It’s 25°C in 東京 today 👍🏽 ok";
const QUOTE_ID: &str = "quote_5__contradiction";
const FIRST_ID: &str = "toolace_train_00021__overgeneration";

/// Run `script` (of tests/fixtures/parquet_export/) with `args` under `python`; its stdout.
fn script(python: &str, dir: &Path, name: &str, args: &[&Path]) -> String {
    let out = Command::new(python)
        .arg(root().join("tests/fixtures/parquet_export").join(name))
        .args(args)
        .env("HF_DATASETS_CACHE", dir.join("hf-cache"))
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What `same.py` says of `a` and `b`.
fn same(python: &str, dir: &Path, a: &Path, b: &Path) -> Value {
    serde_json::from_str(script(python, dir, "same.py", &[a, b]).trim()).expect("json")
}

/// The sample plus the non-ASCII record as a parquet shard written by `datasets`, row groups
/// of 50 rows.
fn shard(python: &str, dir: &Path) -> std::path::PathBuf {
    let mut text =
        std::fs::read_to_string(data("toolace/test_records_reconstructed.jsonl")).expect("sample");
    let quote = json!({
        "id": QUOTE_ID, "query": "weather?", "context": "{\"temp_c\": 25}", "output": QUOTE,
        "hallucination_labels": [{"end": 9, "label": "contradiction", "start": 5, "text": "25°C"}],
        "meta": {"source": "quote", "base_id": "quote_5", "corruption_type": "contradiction"}
    });
    text.push_str(&format!("{quote}\n"));
    let jl = dir.join("in.jsonl");
    std::fs::write(&jl, text).expect("jsonl");
    let pq = dir.join("train-00000-of-00001.parquet");
    script(python, dir, "shard.py", &[&jl, &pq, Path::new("50")]);
    pq
}

/// Decisions on two records through `apply`: the first record's span dropped, the quote's
/// widened over CJK and a span added over an emoji with its modifier.
fn decide(input: &Path, db: &Path, dir: &Path) {
    let span = |a: usize, b: usize| json!({"start": a, "end": b, "label": "contradiction"});
    let lines = [
        json!({"record_id": FIRST_ID, "action": "drop", "span_key": "gold:0"}),
        json!({"record_id": QUOTE_ID, "action": "adjust", "span_key": "gold:0", "after": span(5, 15)}),
        json!({"record_id": QUOTE_ID, "action": "add", "span_key": "added:x", "after": span(22, 24)}),
    ];
    let d = dir.join("decisions.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&d, text).expect("decisions");
    bin()
        .arg("apply")
        .arg(input)
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(db)
        .args(["--reviewer", "ana"])
        .assert()
        .success();
}

#[test]
fn parquet_export_to_parquet_loads_with_the_same_features_and_rows_but_the_decided() {
    let Some(py) = venv_python() else { return };
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let pq = shard(&py, d);
    let db = d.join("db.sqlite");
    decide(&pq, &db, d);
    let out = d.join("reviewed.parquet");
    bin()
        .arg("export")
        .arg(&pq)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let s = same(&py, d, &pq, &out);
    assert_eq!(s["features_equal"], true, "{s}");
    assert_eq!(s["shapes_equal"], true, "{s}");
    assert_eq!(s["rows"]["train"], json!([176, 176]), "{s}");
    assert_eq!(s["differ"], json!([FIRST_ID, QUOTE_ID]), "{s}");
    assert!(s.get("other_fields_differ").is_none(), "{s}");
    // The first record had two spans: the one dropped is gone, the other kept as it was.
    let first = s["labels"][FIRST_ID].as_array().expect("labels");
    assert_eq!(first.len(), 1, "{s}");
    assert_eq!(first[0]["text"], first[0]["sliced"], "{s}");
    let quote = s["labels"][QUOTE_ID].as_array().expect("labels");
    let sliced: Vec<&str> = quote.iter().filter_map(|l| l["sliced"].as_str()).collect();
    assert_eq!(sliced, ["25°C in 東京", "👍🏽"], "{s}");
    for l in quote {
        assert!(l["text"].is_null() || l["text"] == l["sliced"], "{s}");
    }
}

/// The comparison itself can fail: the export with its `huggingface` metadata dropped, or with
/// a column's type changed, is not the input's shape.
#[test]
fn parquet_export_check_catches_a_changed_type_or_metadata() {
    let Some(py) = venv_python() else { return };
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let pq = shard(&py, d);
    let db = d.join("db.sqlite");
    decide(&pq, &db, d);
    let out = d.join("reviewed.parquet");
    bin()
        .arg("export")
        .arg(&pq)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let tamper = "import sys, pyarrow as pa, pyarrow.parquet as pq\nt = pq.read_table(sys.argv[1])\npq.write_table(t.replace_schema_metadata({}), sys.argv[2])\ni = t.schema.get_field_index('id')\nf = t.schema.field(i).with_type(pa.large_string())\npq.write_table(t.cast(t.schema.set(i, f)), sys.argv[3])";
    let (no_meta, retyped) = (d.join("no-meta.parquet"), d.join("retyped.parquet"));
    let status = Command::new(&py)
        .args(["-c", tamper])
        .args([&out, &no_meta, &retyped])
        .status()
        .expect("python");
    assert!(status.success());
    for bad in [&no_meta, &retyped] {
        let s = same(&py, d, &pq, bad);
        assert_eq!(s["shapes_equal"], false, "{}: {s}", bad.display());
    }
}
