use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::fixture::{toolace_schema, write};
use super::*;
use crate::formats::index::FileIndex;
use crate::formats::{DataFile, Dataset, Format};

/// A record of the bundled sample's shape over non-ASCII text: its span `東京 🎉` at code
/// points 12..16 (bytes 14..25); `meta.tools` of varying shape.
fn record(n: usize, tools: Value) -> Value {
    let output = "It’s 20 °C, 東京 🎉 says ok";
    json!({
        "id": format!("rec_{n:05}__contradiction"),
        "query": "weather in 東京?",
        "context": "{\"temp\": \"20 °C\"}",
        "output": output,
        "hallucination_labels": [{"end": 16, "label": "contradiction", "start": 12, "text": "東京 🎉"}],
        "meta": {
            "source": "toolace",
            "base_id": format!("rec_{n:05}"),
            "corruption_type": "contradiction",
            "tools": tools,
            "tool_call": [{"name": "weather", "arguments": {"city": "東京", "page": 1.5}}],
            "reconstruction": null,
        },
    })
}

fn records(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let tools = if i % 2 == 0 {
                json!([{"name": "weather", "parameters": {"type": "dict"}}])
            } else {
                json!({"weather": null})
            };
            record(i, tools)
        })
        .collect()
}

fn fixture(dir: &Path, name: &str, recs: &[Value], per_group: usize) -> PathBuf {
    let p = dir.join(name);
    write(&p, &toolace_schema(), recs, per_group).expect("write parquet");
    p
}

#[test]
fn rows_read_back_as_the_records_with_json_columns_parsed_and_nulls_kept() {
    let dir = tempfile::tempdir().expect("dir");
    let recs = records(5);
    let p = fixture(dir.path(), "x.parquet", &recs, 2);
    let file = DataFile::open(&p, None, None).expect("open");
    assert_eq!(file.format, Format::Ragtruth);
    assert_eq!(file.len(), 5);
    assert_eq!(file.index.parquet_rows().map(Rows::row_groups), Some(3));
    for (i, want) in recs.iter().enumerate() {
        let got = file.value(i).expect("row");
        // The schema's order and every field, as `datasets` reads it back.
        let keys: Vec<&str> = got
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "id",
                "query",
                "context",
                "output",
                "hallucination_labels",
                "meta"
            ]
        );
        assert_eq!(
            got["meta"]["tools"], want["meta"]["tools"],
            "arrow.json parsed"
        );
        assert_eq!(got["meta"]["tool_call"], want["meta"]["tool_call"]);
        assert_eq!(got["meta"]["reconstruction"], Value::Null, "a null struct");
        assert_eq!(got["output"], want["output"]);
        assert_eq!(got["hallucination_labels"], want["hallucination_labels"]);
        assert_eq!(file.line(i), u32::try_from(i + 1).expect("small"));
    }
    let rec = file.record(3).expect("record");
    assert_eq!(rec.id, "rec_00003__contradiction");
    let s = &rec.gold_spans()[0];
    assert_eq!((s.start, s.end), (12, 16), "offsets stay code points");
    let covered: String = rec
        .output
        .chars()
        .skip(s.start)
        .take(s.end - s.start)
        .collect();
    assert_eq!(covered, "東京 🎉");
}

#[test]
fn a_struct_field_datasets_filled_with_null_stays_null() {
    let dir = tempfile::tempdir().expect("dir");
    let mut r = record(0, json!([]));
    r["meta"]["reconstruction"] = json!({"method": "m", "final_answer_verified": true});
    let p = fixture(dir.path(), "x.parquet", &[r], 10);
    let file = DataFile::open(&p, None, None).expect("open");
    let v = file.value(0).expect("row");
    let rec = &v["meta"]["reconstruction"];
    assert_eq!(rec["method"], "m");
    assert_eq!(rec["final_answer_verified"], true);
    assert!(rec.get("exact").is_some_and(Value::is_null), "{rec}");
}

#[test]
fn a_parquet_file_is_told_by_its_bytes_not_its_name() {
    let dir = tempfile::tempdir().expect("dir");
    let p = fixture(dir.path(), "records.jsonl", &records(3), 2);
    let file = DataFile::open(&p, None, None).expect("open");
    assert_eq!(file.index.layout(), crate::formats::index::Layout::Parquet);
    assert_eq!(file.len(), 3);
}

#[test]
fn a_file_named_parquet_that_is_not_is_refused_by_name() {
    let dir = tempfile::tempdir().expect("dir");
    let p = dir.path().join("train-00000-of-00001.parquet");
    std::fs::write(
        &p,
        "version https://git-lfs.github.com/spec/v1\noid sha256:ab\n",
    )
    .expect("w");
    let e = DataFile::open(&p, None, None)
        .expect_err("not parquet")
        .to_string();
    assert!(e.starts_with(&p.display().to_string()), "{e}");
    assert!(
        e.contains("is named .parquet but is not a parquet file"),
        "{e}"
    );
    let e = crate::formats::validate::Input::open(&p, None)
        .expect_err("validate too")
        .to_string();
    assert!(e.contains("is not a parquet file"), "{e}");
}

#[test]
fn a_truncated_shard_is_told_as_cut_short() {
    let dir = tempfile::tempdir().expect("dir");
    let p = fixture(dir.path(), "x.parquet", &records(50), 10);
    let bytes = std::fs::read(&p).expect("read");
    std::fs::write(&p, &bytes[..bytes.len() / 2]).expect("cut");
    for e in [
        DataFile::open(&p, None, None).expect_err("cut").to_string(),
        crate::formats::validate::Input::open(&p, None)
            .expect_err("cut")
            .to_string(),
    ] {
        assert!(e.starts_with(&p.display().to_string()), "{e}");
        assert!(e.contains("a parquet file cut short"), "{e}");
    }
}

#[test]
fn a_schema_without_the_answer_is_refused_naming_the_file_and_its_columns() {
    let dir = tempfile::tempdir().expect("dir");
    let schema = std::sync::Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("id", arrow_schema::DataType::Utf8, true),
        arrow_schema::Field::new("question", arrow_schema::DataType::Utf8, true),
    ]));
    let p = dir.path().join("x.parquet");
    write(&p, &schema, &[json!({"id": "a", "question": "東京?"})], 10).expect("write");
    let e = DataFile::open(&p, None, None)
        .expect_err("no answer")
        .to_string();
    assert!(e.starts_with(&p.display().to_string()), "{e}");
    assert!(e.contains("cannot tell the format"), "{e}");
    assert!(e.contains("its parquet columns: id, question"), "{e}");
}

#[test]
fn a_label_list_of_the_wrong_type_names_the_file_row_group_and_row() {
    let dir = tempfile::tempdir().expect("dir");
    let labels = arrow_schema::Field::new(
        "hallucination_labels",
        arrow_schema::DataType::List(std::sync::Arc::new(arrow_schema::Field::new(
            "item",
            arrow_schema::DataType::Int64,
            true,
        ))),
        true,
    );
    let schema = std::sync::Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("id", arrow_schema::DataType::Utf8, true),
        arrow_schema::Field::new("output", arrow_schema::DataType::Utf8, true),
        labels,
    ]));
    let recs: Vec<Value> = (0..5)
        .map(
            |i| json!({"id": format!("r{i}"), "output": "東京 🎉", "hallucination_labels": [1, 2]}),
        )
        .collect();
    let p = dir.path().join("x.parquet");
    write(&p, &schema, &recs, 2).expect("write");
    let input = crate::formats::validate::Input::open(&p, Some(Format::Ragtruth)).expect("open");
    let report =
        crate::formats::validate::validate(&[input], &crate::formats::validate::Options::default())
            .expect("validate");
    let p4: Vec<&crate::formats::validate::Problem> =
        report.problems.iter().filter(|p| p.line == 4).collect();
    assert!(!p4.is_empty(), "{:?}", report.problems);
    for p in &p4 {
        assert!(
            p.message.starts_with("row group 1, row 1: "),
            "{}",
            p.message
        );
    }
    assert!(
        p4.iter()
            .any(|p| p.kind == crate::formats::validate::Kind::WrongType
                && p.message.contains("hallucination_labels")),
        "{p4:?}"
    );
    // The record reader skips such spans with a warning, as for JSONL.
    let file = DataFile::open(&p, Some(Format::Ragtruth), None).expect("open");
    let rec = file.record(3).expect("record");
    assert!(rec.gold_spans().is_empty());
    assert!(
        rec.warnings[0].contains("span is not an object: 1"),
        "{:?}",
        rec.warnings
    );
}

/// Overwrite the middle of row group `g`'s first column chunk's data with garbage.
fn corrupt_group(p: &Path, g: usize) {
    let file = std::fs::File::open(p).expect("open");
    let rows = Rows::open(p, &file).expect("rows");
    let col = rows.meta.metadata().row_group(g).column(2);
    let (start, len) = col.byte_range();
    let mut bytes = std::fs::read(p).expect("read");
    for b in &mut bytes[usize::try_from(start + len / 4).expect("small")
        ..usize::try_from(start + 3 * len / 4).expect("small")]
    {
        *b = 0xAB;
    }
    std::fs::write(p, bytes).expect("write");
}

#[test]
fn a_row_group_that_cannot_be_read_is_named_and_the_others_still_read() {
    let dir = tempfile::tempdir().expect("dir");
    let p = fixture(dir.path(), "x.parquet", &records(30), 10);
    corrupt_group(&p, 1);
    let file = DataFile::open(&p, None, None).expect("footer intact");
    assert!(file.record(0).is_ok(), "row group 0 reads");
    assert!(file.record(25).is_ok(), "row group 2 reads");
    let e = file.record(15).expect_err("row group 1").to_string();
    assert!(
        e.starts_with(&format!(
            "{}:11: row group 1 (rows 11–20 of the file) cannot be read",
            p.display()
        )),
        "{e}"
    );
    let input = crate::formats::validate::Input::open(&p, None).expect("validate opens");
    let report =
        crate::formats::validate::validate(&[input], &crate::formats::validate::Options::default())
            .expect("validate");
    assert_eq!(report.files[0].records, 20, "the other row groups checked");
    let bad: Vec<_> = report
        .problems
        .iter()
        .filter(|p| p.kind == crate::formats::validate::Kind::Unreadable)
        .collect();
    assert_eq!(bad.len(), 1, "{:?}", report.problems);
    assert_eq!(bad[0].line, 11);
    assert!(
        bad[0].message.contains("(10 records not checked)"),
        "{}",
        bad[0].message
    );
}

#[test]
fn the_lazy_open_reads_the_footer_and_only_the_row_group_asked_for() {
    let dir = tempfile::tempdir().expect("dir");
    let p = fixture(dir.path(), "x.parquet", &records(40), 10);
    // Every row group but the first unreadable: a lazy open and the first record still work.
    for g in 1..4 {
        corrupt_group(&p, g);
    }
    let ds = Dataset::open_lazy(
        std::slice::from_ref(&p),
        None,
        crate::formats::index::Lazy::default(),
    )
    .expect("open");
    assert!(ds.indexed(), "the footer is the whole index");
    assert_eq!(ds.len(), 40);
    assert_eq!(ds.record(0).expect("first").id, "rec_00000__contradiction");
    assert_eq!(
        ds.record(9).expect("row group 0").id,
        "rec_00009__contradiction"
    );
    let held = ds.primary().index.parquet_rows().expect("parquet");
    assert_eq!(held.group_if_last(0).map(|g| g.len()), Some(10));
    assert!(ds.record(10).is_err());
}

#[test]
fn for_each_in_hands_out_every_row_in_order_across_row_groups() {
    let dir = tempfile::tempdir().expect("dir");
    let p = fixture(dir.path(), "x.parquet", &records(23), 5);
    let ix = FileIndex::open(&p).expect("open");
    let mut ids = Vec::new();
    ix.for_each_in(3..21, |i, bytes| {
        let v: Value = serde_json::from_slice(bytes).expect("json");
        ids.push((i, v["id"].as_str().expect("id").to_owned()));
    })
    .expect("read");
    let want: Vec<(usize, String)> = (3..21)
        .map(|i| (i, format!("rec_{i:05}__contradiction")))
        .collect();
    assert_eq!(ids, want);
}

#[test]
fn an_arrow_json_value_that_is_not_json_names_the_column() {
    let schema = std::sync::Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("id", arrow_schema::DataType::Utf8, true),
        super::fixture::json_field("tools"),
    ]));
    // Built by hand: the fixture writes every value as JSON text.
    let batch = arrow_array::RecordBatch::try_new(
        schema.clone(),
        vec![
            std::sync::Arc::new(arrow_array::StringArray::from(vec!["a"])),
            std::sync::Arc::new(arrow_array::StringArray::from(vec!["{not json"])),
        ],
    )
    .expect("batch");
    let mut out = Vec::new();
    let e = super::json::rows(&batch, &mut out).expect_err("not JSON");
    assert!(
        e.contains("column tools (arrow.json) holds \"{not json\""),
        "{e}"
    );
}
