use std::fs::File;

use serde_json::json;

use super::*;
use crate::formats::parquet::{fixture, json as pjson, Rows};

/// Write `recs` with the toolace schema in row groups of 2, read them back as `Rows`.
fn input(dir: &std::path::Path, recs: &[Value]) -> Rows {
    let path = dir.join("in.parquet");
    fixture::write(&path, &fixture::toolace_schema(), recs, 2).expect("fixture");
    Rows::open(&path, &File::open(&path).expect("open")).expect("rows")
}

fn record(id: &str, output: &str, labels: Value) -> Value {
    json!({
        "id": id, "query": "q", "context": "c", "output": output,
        "hallucination_labels": labels,
        "meta": {"source": "s", "base_id": id, "corruption_type": null,
            "tools": [{"name": "weather", "args": {"city": "東京"}}], "tool_call": null,
            "reconstruction": null}
    })
}

/// Every row of `rows` as JSON.
fn all(rows: &Rows) -> Vec<Value> {
    (0..rows.row_groups())
        .flat_map(|g| rows.group(g).expect("group").to_vec())
        .map(|b| serde_json::from_slice(&b).expect("json"))
        .collect()
}

#[test]
fn rows_written_back_keep_schema_metadata_codec_and_values() {
    let dir = tempfile::tempdir().expect("dir");
    let span = json!([{"start": 5, "end": 9, "label": "contradiction", "text": "25°C"}]);
    let recs = vec![
        record("a", "It’s 25°C in 東京 👍🏽", span),
        record("b", "plain", json!([])),
        record("c", "third", json!([])),
    ];
    let rows = input(dir.path(), &recs);
    let shape = Shape::of(&rows);
    let mut out = ParquetOut::new(&shape).expect("writer");
    let mut bytes = Vec::new();
    for r in all(&rows) {
        out.push(r.to_string().as_bytes()).expect("push");
        bytes.extend(out.ready());
    }
    bytes.extend(out.finish().expect("finish"));
    let path = dir.path().join("out.parquet");
    std::fs::write(&path, bytes).expect("write");
    let back = Rows::open(&path, &File::open(&path).expect("open")).expect("rows");
    assert_eq!(back.schema(), rows.schema());
    assert!(back.schema().metadata().contains_key("huggingface"));
    let tools = back.schema().field_with_name("meta").expect("meta");
    assert!(format!("{tools:?}").contains(pjson::JSON_EXTENSION));
    assert_eq!(back.row_groups(), 2);
    let codec = |r: &Rows| r.metadata().row_group(0).column(0).compression();
    assert_eq!(codec(&back), codec(&rows));
    assert_eq!(all(&back), all(&rows));
    assert_eq!(all(&back)[0]["meta"]["tools"][0]["args"]["city"], "東京");
}

#[test]
fn a_record_that_does_not_fit_the_schema_is_named() {
    let dir = tempfile::tempdir().expect("dir");
    let rows = input(dir.path(), &[record("a", "x", json!([]))]);
    let mut out = ParquetOut::new(&Shape::of(&rows)).expect("writer");
    let mut good = record("a", "x", json!([]));
    out.push(good.to_string().as_bytes()).expect("push");
    // A label list of the wrong type, and a field the schema lacks.
    good["hallucination_labels"] = json!("not a list");
    out.push(good.to_string().as_bytes()).expect("push");
    let e = out.finish().expect_err("refused").to_string();
    assert!(e.contains("record 2 (id \"a\")"), "{e}");
    let mut out = ParquetOut::new(&Shape::of(&rows)).expect("writer");
    let mut extra = record("b", "x", json!([]));
    extra["meta"]["review"] = json!({"reviewers": ["ana"]});
    out.push(extra.to_string().as_bytes()).expect("push");
    let e = format!("{:#}", out.finish().expect_err("refused"));
    assert!(
        e.contains("record 1 (id \"b\")") && e.contains("review"),
        "{e}"
    );
}

#[test]
fn json_columns_become_text_at_any_depth() {
    let schema = fixture::toolace_schema();
    assert!(text::has_json(schema.fields()));
    let mut v = record("a", "x", json!([]));
    text::json_to_text(schema.fields(), &mut v);
    assert_eq!(
        v["meta"]["tools"],
        json!(r#"[{"name":"weather","args":{"city":"東京"}}]"#)
    );
    assert_eq!(v["meta"]["tool_call"], Value::Null);
    assert_eq!(v["output"], "x");
}

#[test]
fn copied_rows_and_built_ones_are_written_in_their_order() {
    let dir = tempfile::tempdir().expect("dir");
    let recs: Vec<Value> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|id| record(id, "It’s 25°C", json!([])))
        .collect();
    let rows = input(dir.path(), &recs);
    let json = all(&rows);
    let mut out = ParquetOut::new(&Shape::of(&rows)).expect("writer");
    let mut bytes = Vec::new();
    // Rows 0 and 1 copied (one run), 2 built, 3 copied (row group 1, row 1), 4 built.
    out.push_row(&rows, 0, 0).expect("row");
    out.push_row(&rows, 0, 1).expect("row");
    let mut changed = json[2].clone();
    changed["output"] = json!("東京 👍🏽");
    out.push(changed.to_string().as_bytes()).expect("push");
    out.push_row(&rows, 1, 1).expect("row");
    out.push(json[4].to_string().as_bytes()).expect("push");
    bytes.extend(out.ready());
    bytes.extend(out.finish().expect("finish"));
    let path = dir.path().join("out.parquet");
    std::fs::write(&path, bytes).expect("write");
    let back = all(&Rows::open(&path, &File::open(&path).expect("open")).expect("rows"));
    let mut want = json;
    want[2] = changed;
    assert_eq!(back, want);
}
