//! `export` of parquet back to parquet, checked with real `datasets` (the venv of
//! `.ci/venv.sh`; skipped with a SKIP line without it): a shard made by `load_dataset("json")`
//! → `to_parquet` from the bundled sample plus a record over non-ASCII text, decisions made
//! with `apply`, and the export loaded again: the same features, Arrow schema (types, the
//! `huggingface` metadata), codecs and row groups, the same rows but the decided records'
//! labels, whose offsets slice the same text in Python (code points).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use super::common::{bin, data, root};
use super::hub_folder::{made, venv_python};

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

/// What `same.py` says of `a` and `b` (two folders: of their config `config`).
fn same(python: &str, dir: &Path, a: &Path, b: &Path) -> Value {
    serde_json::from_str(script(python, dir, "same.py", &[a, b]).trim()).expect("json")
}

/// What `same.py` says of the folders `a` and `b`, config `config`.
fn same_config(python: &str, dir: &Path, a: &Path, b: &Path, config: &str) -> Value {
    let out = script(python, dir, "same.py", &[a, b, Path::new(config)]);
    serde_json::from_str(out.trim()).expect("json")
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

/// A shard made by `datasets` in `d`, decided on, and its export to `d/reviewed.parquet`:
/// `(shard, export)`.
fn reviewed(py: &str, d: &Path) -> (PathBuf, PathBuf) {
    let pq = shard(py, d);
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
    (pq, out)
}

#[test]
fn parquet_export_to_parquet_loads_with_the_same_features_and_rows_but_the_decided() {
    let Some(py) = venv_python() else { return };
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let (pq, out) = reviewed(&py, d);
    let s = same(&py, d, &pq, &out);
    assert_eq!(s["features_equal"], true, "{s}");
    assert_eq!(s["shapes_equal"], true, "{s}");
    assert_eq!(s["rows"]["train"], json!([176, 176]), "{s}");
    assert_eq!(s["differ"], json!([FIRST_ID, QUOTE_ID]), "{s}");
    // The other rows are copied as Arrow values: their arrow.json text is datasets' own.
    assert_eq!(s["raw_differ"], json!([FIRST_ID, QUOTE_ID]), "{s}");
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
    let (pq, out) = reviewed(&py, d);
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

/// The id of the first record with a gold span in `file`.
fn first_labeled(file: &Path) -> String {
    let ds = spanreview::formats::Dataset::open(&[file.to_path_buf()], None).expect("opens");
    let p = ds.primary();
    (0..p.len())
        .map(|i| p.record(i).expect("record"))
        .find(|r| !r.gold_spans().is_empty())
        .map(|r| r.id)
        .expect("a labeled record")
}

/// `export D --config combined --out OUT/` after decisions in two splits: OUT has the shards
/// at the same paths and the card, and `datasets` loads it with the input's features and rows
/// but the decided ones.
#[test]
fn parquet_folder_export_writes_every_split_of_the_config_and_the_card() {
    let Some(py) = venv_python() else { return };
    let fx = made(&py, false);
    let d = fx.path().join("configs");
    let db = fx.path().join("db.sqlite");
    let mut decided = Vec::new();
    for split in ["train", "test"] {
        let id = first_labeled(&d.join(format!("combined/{split}-00000-of-00001.parquet")));
        let line = json!({"record_id": id, "action": "drop", "span_key": "gold:0"});
        let file = fx.path().join(format!("{split}.decisions.jsonl"));
        std::fs::write(&file, format!("{line}\n")).expect("decisions");
        bin()
            .arg("apply")
            .arg(&d)
            .args(["--config", "combined", "--split", split, "--decisions"])
            .arg(&file)
            .arg("--db")
            .arg(&db)
            .args(["--reviewer", "ana"])
            .assert()
            .success();
        decided.push(id);
    }
    let out = fx.path().join("reviewed");
    let mut out_arg = out.clone().into_os_string();
    out_arg.push("/");
    bin()
        .arg("export")
        .arg(&d)
        .args(["--config", "combined", "--db"])
        .arg(&db)
        .arg("--out")
        .arg(&out_arg)
        .assert()
        .success();
    for split in ["train", "validation", "test"] {
        let shard = out.join(format!("combined/{split}-00000-of-00001.parquet"));
        assert!(shard.is_file(), "{}", shard.display());
    }
    assert!(!out.join("contradiction").exists());
    let card = std::fs::read_to_string(out.join("README.md")).expect("card");
    assert_eq!(
        card,
        std::fs::read_to_string(d.join("README.md")).expect("card")
    );
    let s = same_config(&py, fx.path(), &d, &out, "combined");
    assert_eq!(s["features_equal"], true, "{s}");
    assert_eq!(s["shapes_equal"], true, "{s}");
    assert_eq!(s["split_names"][0], s["split_names"][1], "{s}");
    assert_eq!(s["differ"], json!(decided), "{s}");
    assert_eq!(s["raw_differ"], json!(decided), "{s}");
    assert!(s.get("other_fields_differ").is_none(), "{s}");
    for id in &decided {
        for l in s["labels"][id].as_array().expect("labels") {
            assert_eq!(l["text"], l["sliced"], "{s}");
        }
    }
}

/// A folder export refuses what writes one file (the report), and `--out` the folder itself.
#[test]
fn parquet_folder_export_refuses_one_file_flags_and_its_own_folder() {
    let fx = made("python3", true);
    let d = fx.path().join("jsonl");
    let db = fx.path().join("db.sqlite");
    let a = bin()
        .arg("export")
        .arg(&d)
        .args(["--db"])
        .arg(&db)
        .arg("--report")
        .arg(fx.path().join("r.md"))
        .arg("--out")
        .arg(fx.path().join("out/"))
        .assert()
        .code(2);
    assert!(
        super::common::stderr(&a).contains("--report with a folder --out"),
        "{}",
        super::common::stderr(&a)
    );
    // The card too: one card per shard at one path would keep the last shard's.
    let a = bin()
        .arg("export")
        .arg(&d)
        .args(["--db"])
        .arg(&db)
        .arg("--card")
        .arg(fx.path().join("card.md"))
        .arg("--out")
        .arg(fx.path().join("out/"))
        .assert()
        .code(2);
    assert!(
        super::common::stderr(&a).contains("--card with a folder --out"),
        "{}",
        super::common::stderr(&a)
    );
    assert!(!fx.path().join("card.md").exists());
    let a = bin()
        .arg("export")
        .arg(&d)
        .args(["--db"])
        .arg(&db)
        .arg("--out")
        .arg(&d)
        .assert()
        .code(2);
    assert!(
        super::common::stderr(&a).contains("the dataset folder itself"),
        "{}",
        super::common::stderr(&a)
    );
}
