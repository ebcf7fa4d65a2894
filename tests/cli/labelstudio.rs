//! Integration tests: Label Studio exports read by the other subcommands (a `--judge` source,
//! a `review` input) and `convert --to` completed by bash.

use serde_json::Value;

use super::app_harness::{mem, open_all, render};
use super::common::{bin, data, fixture, installed};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_label_studio_export_is_a_judge_source() {
    let out = bin()
        .args([
            "compare",
            "--json",
            "--a",
            "gold",
            "--b",
            "ls/prediction_gold",
        ])
        .arg(data("toolace/test_records_reconstructed.jsonl"))
        .arg("--judge")
        .arg(format!(
            "ls={}",
            fixture("formats/labelstudio/export_sample.json").display()
        ))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().expect("line"))
        .expect("json");
    // The two records the export shares with the records file, their gold as its prediction.
    assert_eq!(v["overall"]["char_level"]["f1"], 1.0, "{v}");
    assert!(
        v["overall"]["char_level"]["tp"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "{v}"
    );
}

#[test]
fn a_label_studio_export_opens_in_the_review_screen() {
    let store = mem();
    let path = fixture("formats/labelstudio/export_sample.json");
    let mut app = open_all(&[path], &store);
    let screen = render(&mut app, 140, 40);
    assert!(
        screen.contains("toolace_train_00021__overgeneration"),
        "{screen}"
    );
    assert!(screen.contains("Your generated password"), "{screen}");
}

#[test]
fn bash_completes_the_formats_of_convert_to() {
    if !installed("bash") {
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let script = dir.path().join("spanreview.bash");
    let out = bin().args(["completions", "bash"]).output().expect("runs");
    std::fs::write(&script, &out.stdout).expect("write");
    let run = std::process::Command::new("bash")
        .arg("-c")
        .arg(
            "source \"$1\" && COMP_WORDS=(spanreview convert x --to pro) COMP_CWORD=4 && \
              _spanreview spanreview pro --to && echo \"to: ${COMPREPLY[*]}\"",
        )
        .arg("bash")
        .arg(&script)
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        text.contains("to: prodigy"),
        "{text}{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// label-studio-converter's own JSON_MIN export of the fixture tasks (see the fixture README).
fn json_min() -> std::path::PathBuf {
    fixture("formats/labelstudio/json_min_sample.json")
}

#[test]
fn label_studio_converters_json_min_reads_in_code_points() {
    use spanreview::formats::{Dataset, Format};
    let ds = Dataset::open(&[json_min()], None).expect("open");
    assert_eq!(ds.primary().format, Format::LabelStudioMin);
    assert_eq!(ds.len(), 3, "no row for the cancelled annotation");
    let emoji = ds.record(2).expect("record");
    assert_eq!(emoji.id, "toolace_train_00021__overgeneration__emoji");
    let texts: Vec<&str> = emoji.gold_spans().iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["Your generated password", "H4G8fb9A3eKt2LpO"]);
    assert!(emoji.warnings.is_empty(), "{:?}", emoji.warnings);
    let out = bin()
        .arg("validate")
        .arg(json_min())
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("0 problems"), "{text}");
}

#[test]
fn json_min_annotations_go_onto_the_records_and_unannotated_ones_stay() {
    let dir = tempfile::tempdir().expect("tmp");
    let records = data("toolace/test_records_reconstructed.jsonl");
    let out_path = dir.path().join("out.jsonl");
    let out = bin()
        .arg("convert")
        .arg(json_min())
        .args(["--to", "ragtruth", "--records"])
        .arg(&records)
        .arg("--out")
        .arg(&out_path)
        .arg("--lenient")
        .output()
        .expect("runs");
    let err = stderr(&out);
    // The emoji task's record is not in the records file: told, with its id.
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("id \"toolace_train_00021__overgeneration__emoji\" is not in"),
        "{err}"
    );
    assert!(
        err.contains(
            "1 not annotated in the input, or not by --source: their records left as they were"
        ),
        "{err}"
    );
    let read = |p: &std::path::Path| -> Vec<Value> {
        std::fs::read_to_string(p)
            .expect("read")
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect()
    };
    let (orig, got) = (read(&records), read(&out_path));
    assert_eq!(orig.len(), got.len());
    for (o, g) in orig.iter().zip(&got) {
        if o["id"] == "toolace_train_00021__overgeneration" {
            assert_eq!(
                g["hallucination_labels"],
                serde_json::json!([{"end": 14, "label": "contradiction", "start": 5, "text": "generated"}])
            );
        } else {
            // toolace_train_00021__missing_tool's row has no annotation: its labels stay.
            assert_eq!(o, g);
        }
    }
}

#[test]
fn json_min_rows_of_two_annotators_need_a_source() {
    let dir = tempfile::tempdir().expect("tmp");
    let rows: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(json_min()).expect("read")).expect("json");
    // The first task annotated again by annotator 2, who marks nothing.
    let mut second = rows[0].clone();
    second.as_object_mut().expect("row").shift_remove("label");
    (second["annotator"], second["annotation_id"]) = (2.into(), 14.into());
    let two = dir.path().join("two.json");
    let both = serde_json::json!([rows[0], second]);
    std::fs::write(&two, serde_json::to_string_pretty(&both).expect("json")).expect("write");
    let records = data("toolace/test_records_reconstructed.jsonl");
    let run = |extra: &[&str]| {
        let out_path = dir.path().join("out.jsonl");
        let out = bin()
            .arg("convert")
            .arg(&two)
            .args(["--to", "ragtruth", "--records"])
            .arg(&records)
            .arg("--out")
            .arg(&out_path)
            .args(extra)
            .output()
            .expect("runs");
        let text = std::fs::read_to_string(&out_path).expect("read");
        let first: Value = serde_json::from_str(text.lines().next().expect("line")).expect("json");
        (out, first["hallucination_labels"].clone())
    };
    let (out, _) = run(&["--lenient"]);
    assert_eq!(out.status.code(), Some(1));
    let want = "again (JSON_MIN: another annotator's row? pass --source annotator_<id>)";
    assert!(stderr(&out).contains(want), "{}", stderr(&out));
    let (out, labels) = run(&["--source", "annotator_1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(labels[0]["text"], "generated");
    let (out, labels) = run(&["--source", "annotator_2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(labels, serde_json::json!([]));
}

/// A JSON_MIN row's record id is its `rid` even when its `id` is a string: `export` applies
/// the decisions made on that id (it read the `id` member, found no decision under it and
/// copied the row as read).
#[test]
fn a_json_min_row_with_a_string_id_is_exported_with_its_decisions() {
    use spanreview::formats::Dataset;
    use spanreview::review::decision::{ActionKind, Decision};
    let dir = tempfile::tempdir().expect("tmp");
    let rows = dir.path().join("rows.jsonl");
    let row = serde_json::json!({"rid": "r1", "id": "task-1", "output": "It is 25°C 東京",
        "corruption_type": "contradiction", "annotator": 1, "annotation_id": 11,
        "label": [{"start": 6, "end": 10, "text": "25°C", "labels": ["contradiction"]}]});
    std::fs::write(&rows, format!("{row}\n")).expect("write");
    let ds = Dataset::open(std::slice::from_ref(&rows), None).expect("open");
    let rec = ds.record(0).expect("record");
    assert_eq!(rec.id, "r1");
    let db = dir.path().join("review.sqlite");
    let store = spanreview::store::Store::open(&db).expect("db");
    store
        .append(
            &Decision::new(&rec, &ds.name, "ann", ActionKind::Clean),
            None,
        )
        .expect("save");
    drop(store);
    let out = dir.path().join("out.jsonl");
    let run = bin()
        .arg("export")
        .arg(&rows)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(run.status.success(), "{}", stderr(&run));
    let got: Value =
        serde_json::from_str(std::fs::read_to_string(&out).expect("read").trim()).expect("json");
    // Reclassified clean: no region left (a row has no type of its own to set).
    assert_eq!(got["label"], serde_json::json!([]), "{got}");
}
