//! Integration tests: `spanreview convert` between RAGTruth, Label Studio (full and JSON_MIN)
//! and back onto the original records; round trips over every data file; a span that does not
//! slice; standard input and output; the labeling config; arguments refused.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use spanreview::formats::{DataFile, Dataset, Format};

use super::common::{bin, fixture, installed, root, shared, write_jsonl};
use super::convert_common::{
    convert, exits, lines, onto, records, s, says, stderr, to_label_studio,
};

/// Every record of `path` as JSON values (JSONL or a JSON array).
fn values(path: &Path) -> Vec<Value> {
    let f = DataFile::open(path, None, None).expect("open");
    (0..f.len()).map(|i| f.value(i).expect("value")).collect()
}

/// The Label Studio fixture's tasks whose records are in `records()`.
fn fixture_tasks() -> Vec<Value> {
    let all: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixture("formats/labelstudio/export_sample.json")).expect("read"),
    )
    .expect("json");
    all.into_iter()
        .filter(|t| !t["data"]["rid"].as_str().unwrap_or("").ends_with("__emoji"))
        .collect()
}

/// Data files of the repository and of `../shared/data` in a format spanreview reads (with
/// answer text), walked so that a new file is covered without a change here.
fn data_files() -> Vec<(PathBuf, Format)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl" || x == "json") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&root().join("data"), &mut paths);
    if let Some(s) = shared("") {
        walk(&s, &mut paths);
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let ds = Dataset::open(std::slice::from_ref(&p), None).ok()?;
            let format = ds.primary().format;
            // Every record must read (a file of metrics may pass for one by accident).
            (0..ds.len())
                .all(|i| ds.record(i).is_ok())
                .then_some((p, format))
        })
        .collect()
}

#[test]
fn every_data_file_round_trips_through_label_studio_and_through_ragtruth() {
    let files = data_files();
    let names: Vec<String> = files
        .iter()
        .map(|(p, f)| format!("{} ({})", p.display(), f.name()))
        .collect();
    assert!(files.len() >= 3, "{names:?}");
    let dir = tempfile::tempdir().expect("tmp");
    for (n, (path, format)) in files.iter().enumerate() {
        let tasks = dir.path().join(format!("{n}.json"));
        let back = dir.path().join(format!("{n}.back"));
        // A truncated file's cut is a problem: --lenient writes the records before it.
        let config = dir.path().join("c.xml");
        let out = convert(
            &[s(path), "--to", "label-studio", "--out", s(&tasks)]
                .into_iter()
                .chain(["--config", s(&config), "--lenient"])
                .collect::<Vec<_>>(),
        );
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{}: {}",
            path.display(),
            stderr(&out)
        );
        let out = convert(&[
            s(&tasks),
            "--to",
            format.name(),
            "--out",
            s(&back),
            "--lenient",
        ]);
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{}: {}",
            path.display(),
            stderr(&out)
        );
        assert_eq!(
            values(&back),
            values(path),
            "{} → label-studio → {}",
            path.display(),
            format.name()
        );

        // RAGTruth → Label Studio → RAGTruth, on the file's records made RAGTruth first.
        let rt = dir.path().join(format!("{n}.rt.jsonl"));
        let out = convert(&[s(path), "--to", "ragtruth", "--out", s(&rt), "--lenient"]);
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{}: {}",
            path.display(),
            stderr(&out)
        );
        let out = to_label_studio(&rt, &tasks, &dir.path().join("c.xml"));
        assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
        let out = convert(&[s(&tasks), "--to", "ragtruth", "--out", s(&back)]);
        assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
        let want = lines(&rt);
        assert_eq!(
            lines(&back),
            want,
            "{}: ragtruth → label-studio → ragtruth",
            path.display()
        );
        let spans: usize = want
            .iter()
            .map(|r| r["hallucination_labels"].as_array().map_or(0, Vec::len))
            .sum();
        eprintln!("{}: {} records, {spans} spans", path.display(), want.len());
    }
}

#[test]
fn a_label_studio_annotation_goes_back_onto_its_record_by_id_and_the_rest_is_kept() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut tasks = fixture_tasks();
    // An annotator marks one word instead of the gold's two sentences.
    let output = tasks[0]["data"]["output"]
        .as_str()
        .expect("output")
        .to_owned();
    let start = output.find("generated").expect("word");
    let start = output[..start].chars().count();
    tasks[0]["annotations"] = json!([{"id": 9, "completed_by": 2, "was_cancelled": false, "result": [
        {"id": "a", "from_name": "label", "to_name": "output", "type": "labels",
         "value": {"start": start, "end": start + 9, "text": "generated", "labels": ["contradiction"]}}]}]);
    let export = write_export(dir.path(), &tasks);
    let out_path = dir.path().join("reviewed.jsonl");
    let out = onto(&export, "ragtruth", &records(), &out_path);
    exits(&out, 0);
    let (orig, got) = (lines(&records()), lines(&out_path));
    assert_eq!(got.len(), orig.len(), "every original record is written");
    let id = tasks[0]["data"]["rid"].as_str().expect("rid");
    for (o, g) in orig.iter().zip(&got) {
        if o["id"] != id {
            assert_eq!(o, g, "untouched");
            continue;
        }
        assert_eq!(
            g["hallucination_labels"],
            json!([{"end": start + 9, "label": "contradiction", "start": start, "text": "generated"}])
        );
        let mut rest = g.clone();
        rest["hallucination_labels"] = o["hallucination_labels"].clone();
        assert_eq!(&rest, o, "every other field kept");
    }
}

#[test]
fn the_id_field_names_the_label_studio_data_field_of_the_id() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut tasks = fixture_tasks();
    for t in &mut tasks {
        t["data"]["key"] = t["data"]["rid"].clone();
        t["data"]["rid"] = json!("something else");
    }
    let export = write_export(dir.path(), &tasks);
    let out_path = dir.path().join("out.jsonl");
    let out = onto(&export, "ragtruth", &records(), &out_path);
    exits(&out, 1);
    says(&out, "id \"something else\" is not in");
    let out = convert(&[
        s(&export),
        "--to",
        "ragtruth",
        "--records",
        s(&records()),
        "--id-field",
        "key",
        "--out",
        s(&out_path),
    ]);
    exits(&out, 0);
    assert_eq!(lines(&out_path), lines(&records()));
}

/// `tasks` written as the Label Studio export `export.json` in `dir`; its path.
fn write_export(dir: &Path, tasks: &[Value]) -> PathBuf {
    let export = dir.join("export.json");
    std::fs::write(&export, serde_json::to_string(tasks).expect("json")).expect("write");
    export
}

/// JSON_MIN rows as label-studio-converter writes them for tasks made by `--to label-studio`.
fn json_min(tasks: &Path) -> Vec<Value> {
    let tasks: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(tasks).expect("read")).expect("json");
    tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut row = t["data"].as_object().expect("data").clone();
            row.insert("id".to_owned(), json!(i + 1));
            let result = &t["predictions"][0]["result"];
            let regions: Vec<Value> = result
                .as_array()
                .expect("result")
                .iter()
                .map(|r| r["value"].clone())
                .collect();
            if !regions.is_empty() {
                row.insert("label".to_owned(), Value::Array(regions));
            }
            for (k, v) in [
                ("annotator", json!(1)),
                ("annotation_id", json!(i + 10)),
                ("created_at", json!("2026-12-01T13:02:35Z")),
                ("updated_at", json!("2026-12-01T13:02:35Z")),
                ("lead_time", json!(2.5)),
            ] {
                row.insert(k.to_owned(), v);
            }
            Value::Object(row)
        })
        .collect()
}

#[test]
fn json_min_rows_go_back_onto_the_records() {
    let dir = tempfile::tempdir().expect("tmp");
    let tasks = dir.path().join("tasks.json");
    let out = to_label_studio(&records(), &tasks, &dir.path().join("c.xml"));
    exits(&out, 0);
    let mut rows = json_min(&tasks);
    // The annotator drops the first region of the first row that has two.
    let k = rows
        .iter()
        .position(|r| r["label"].as_array().is_some_and(|l| l.len() == 2))
        .expect("a row");
    let kept = rows[k]["label"][1].clone();
    rows[k]["label"] = json!([kept]);
    let min = dir.path().join("min.json");
    std::fs::write(&min, serde_json::to_string_pretty(&rows).expect("json")).expect("write");
    let back = dir.path().join("back.jsonl");
    let out = onto(&min, "ragtruth", &records(), &back);
    exits(&out, 0);
    let (orig, got) = (lines(&records()), lines(&back));
    for (i, (o, g)) in orig.iter().zip(&got).enumerate() {
        if i == k {
            assert_eq!(
                g["hallucination_labels"],
                json!([o["hallucination_labels"][1]]),
                "the kept label, its object as it was"
            );
        } else {
            assert_eq!(o, g);
        }
    }
}

/// A task with a region counted in UTF-16 units (as JavaScript would): "👩‍💻 Note" ends at 14 in
/// code points, 16 in UTF-16.
fn utf16_task() -> Value {
    json!({"id": 3, "data": {"rid": "e1", "output": "été 🙂 👩‍💻 Note 東京"}, "annotations": [],
           "predictions": [{"model_version": "gold", "result": [{"id": "x", "from_name": "label", "to_name": "output", "type": "labels",
             "value": {"start": 6, "end": 16, "text": "👩‍💻 Note", "labels": ["contradiction"]}}]}]})
}

#[test]
fn a_span_that_does_not_slice_is_reported_with_its_file_and_kept_unshifted() {
    let dir = tempfile::tempdir().expect("tmp");
    let export = dir.path().join("export.json");
    let good = json!({"id": 2, "data": {"rid": "e0", "output": "x"}, "annotations": [], "predictions": []});
    std::fs::write(&export, format!("[\n{good},\n{}\n]\n", utf16_task())).expect("write");
    let out_path = dir.path().join("out.jsonl");
    let out = convert(&[s(&export), "--to", "ragtruth", "--out", s(&out_path)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = stderr(&out);
    let want = format!("{}:3 (element 2): task e1: predictions[0].result[0]: value.text \"👩‍💻 Note\" is not data.output[6:16]", export.display());
    assert!(err.contains(&want), "{err}");
    assert!(err.contains("not shifted"), "{err}");
    // Written only when asked, the problem listed again.
    assert!(err.contains("nothing written to"), "{err}");
    assert!(!out_path.exists(), "written without --lenient");
    let lenient = [
        s(&export),
        "--to",
        "ragtruth",
        "--out",
        s(&out_path),
        "--lenient",
    ];
    let out = convert(&lenient);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stderr(&out).contains(&want), "{}", stderr(&out));
    let got = lines(&out_path);
    assert_eq!(
        (
            got[1]["hallucination_labels"][0]["start"].as_u64(),
            got[1]["hallucination_labels"][0]["end"].as_u64()
        ),
        (Some(6), Some(16))
    );
}

#[test]
fn dash_reads_standard_input_and_writes_standard_output() {
    let out = bin()
        .args(["convert", "-", "--to", "label-studio", "--out", "-"])
        .write_stdin(std::fs::read(records()).expect("read"))
        .output()
        .expect("runs");
    exits(&out, 0);
    let tasks: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array of tasks");
    assert_eq!(tasks.len(), 175);
    says(&out, "pass --config OUT.xml");
    let back = bin()
        .args(["convert", "-", "--to", "ragtruth", "--out", "-"])
        .write_stdin(out.stdout)
        .output()
        .expect("runs");
    exits(&back, 0);
    assert_eq!(stdout_lines(&back), lines(&records()));
}

/// The JSON values of the JSONL a finished command wrote to standard output.
fn stdout_lines(out: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// `--out` is written as `export` writes its outputs: through a symbolic link into the file it
/// points to (the link kept), and to a stream such as `/dev/stdout` in place.
#[test]
fn out_through_a_link_or_to_a_stream_is_written_where_it_points() {
    let dir = tempfile::tempdir().expect("tmp");
    let real = dir.path().join("real.jsonl");
    let link = dir.path().join("link.jsonl");
    std::fs::write(&real, "old\n").expect("write");
    std::os::unix::fs::symlink(&real, &link).expect("link");
    let out = convert(&[s(&records()), "--to", "ragtruth", "--out", s(&link)]);
    exits(&out, 0);
    assert!(
        std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()),
        "the link was replaced by a file"
    );
    assert_eq!(lines(&real), lines(&records()));
    let out = convert(&[s(&records()), "--to", "ragtruth", "--out", "/dev/stdout"]);
    exits(&out, 0);
    assert_eq!(stdout_lines(&out), lines(&records()));
}

#[test]
fn the_labeling_config_lists_the_labels_and_goes_to_stdout_or_config() {
    let dir = tempfile::tempdir().expect("tmp");
    let tasks = dir.path().join("t.json");
    let out = convert(&[s(&records()), "--to", "label-studio", "--out", s(&tasks)]);
    exits(&out, 0);
    let xml = String::from_utf8(out.stdout).expect("utf-8");
    for l in ["contradiction", "missing_tool", "overgeneration"] {
        assert!(xml.contains(&format!("<Label value=\"{l}\"")), "{xml}");
    }
    assert!(
        xml.contains("<Labels name=\"label\" toName=\"output\">"),
        "{xml}"
    );
    let cfg = dir.path().join("c.xml");
    let out = to_label_studio(&records(), &tasks, &cfg);
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&cfg).expect("config"), xml);
    // The tasks name the config's controls and carry the gold as the prediction "gold".
    let t: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&tasks).expect("read")).expect("json");
    let r = &t[0]["predictions"][0];
    assert_eq!(r["model_version"], "gold");
    assert_eq!(
        (
            r["result"][0]["from_name"].as_str(),
            r["result"][0]["to_name"].as_str()
        ),
        (Some("label"), Some("output"))
    );
}

#[test]
fn several_annotators_need_a_source_and_bad_arguments_exit_2() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut tasks = fixture_tasks();
    tasks[0]["annotations"] = json!([{"id": 1, "completed_by": 2, "result": []}, {"id": 2, "completed_by": 3, "result": []}]);
    let export = write_export(dir.path(), &tasks);
    let out_path = dir.path().join("o.jsonl");
    let out = convert(&[s(&export), "--to", "ragtruth", "--out", s(&out_path)]);
    exits(&out, 1);
    says(
        &out,
        "annotations of 2 annotators (annotator_2, annotator_3); pass --source NAME",
    );
    let out = convert(&[
        s(&export),
        "--to",
        "ragtruth",
        "--out",
        s(&out_path),
        "--source",
        "annotator_3",
        "--lenient",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the other task has no annotator_3: {}",
        stderr(&out)
    );
    assert_eq!(lines(&out_path)[0]["hallucination_labels"], json!([]));

    let out = convert(&[s(&records()), "--to", "mushroom", "--out", s(&out_path)]);
    exits(&out, 2);
    says(
        &out,
        "mushroom records cannot be made from ragtruth records",
    );
    let out = onto(&export, "prodigy", &records(), &out_path);
    exits(&out, 2);
    says(&out, "--records are ragtruth records");
    let out = convert(&[
        s(&records()),
        "--to",
        "ragtruth",
        "--config",
        "c.xml",
        "--out",
        s(&out_path),
    ]);
    exits(&out, 2);
}

#[test]
fn reviewed_spans_go_onto_a_label_studio_export_as_spanreviews_annotation() {
    let dir = tempfile::tempdir().expect("tmp");
    let export = fixture("formats/labelstudio/export_sample.json");
    let out_path = dir.path().join("tasks.json");
    let out = onto(&records(), "label-studio", &export, &out_path);
    // The records the Label Studio project does not hold are told, and nothing is written
    // unless --lenient asks; then they are told and left out.
    exits(&out, 1);
    assert!(!out_path.exists(), "written without --lenient");
    let recs = records();
    let args = [s(&recs), "--to", "label-studio", "--records", s(&export)];
    let out = convert(&[&args[..], &["--out", s(&out_path), "--lenient"]].concat());
    exits(&out, 1);
    assert_eq!(
        stderr(&out).matches("; not placed").count(),
        173,
        "{}",
        stderr(&out)
    );
    let (orig, got) = (values(&export), values(&out_path));
    assert_eq!(got.len(), orig.len(), "every task written");
    let want = lines(&records());
    for (o, g) in orig.iter().zip(&got) {
        let Some(r) = want.iter().find(|r| r["id"] == o["data"]["rid"]) else {
            assert_eq!(o, g, "a task with no record: untouched");
            continue;
        };
        let ann = &g["annotations"][0];
        assert_eq!(ann["completed_by"], "spanreview");
        let spans: Vec<(Value, Value)> = ann["result"]
            .as_array()
            .expect("result")
            .iter()
            .map(|x| (x["value"]["start"].clone(), x["value"]["text"].clone()))
            .collect();
        let gold: Vec<(Value, Value)> = r["hallucination_labels"]
            .as_array()
            .expect("labels")
            .iter()
            .map(|x| (x["start"].clone(), x["text"].clone()))
            .collect();
        assert_eq!(spans, gold);
        assert_eq!(g["predictions"], o["predictions"], "predictions kept");
    }
}

#[test]
fn written_offsets_slice_in_python_and_the_man_page_renders() {
    // Label Studio tasks and Prodigy lines made from the emoji tasks: every region's and span's
    // offsets are Python string indices of the answer.
    let dir = tempfile::tempdir().expect("tmp");
    let export = fixture("formats/labelstudio/export_sample.json");
    let (ls, pg) = (dir.path().join("t.json"), dir.path().join("p.jsonl"));
    let cfg = dir.path().join("c.xml");
    for (to, out) in [("label-studio", &ls), ("prodigy", &pg)] {
        let mut args = vec![s(&export), "--to", to, "--out", s(out)];
        if to == "label-studio" {
            args.extend(["--config", s(&cfg)]);
        }
        let o = convert(&args);
        exits(&o, 0);
    }
    // The Prodigy spans are the tasks' gold predictions, in order: same text by Python slicing.
    let script = "import json,sys\n\
        n=0\n\
        tasks=json.load(open(sys.argv[1]))\n\
        for t,l in zip(tasks,open(sys.argv[2])):\n\
        \x20   for r in t['predictions'][0]['result']:\n\
        \x20       v=r['value']; assert t['data']['output'][v['start']:v['end']]==v['text'], v; n+=1\n\
        \x20   p=json.loads(l)\n\
        \x20   want=[r['value']['text'] for r in t['predictions'][0]['result']]\n\
        \x20   got=[p['text'][sp['start']:sp['end']] for sp in p['spans']]\n\
        \x20   assert got==want, (got, want); n+=len(got)\n\
        print(n)\n";
    match std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&ls)
        .arg(&pg)
        .output()
    {
        Err(_) => eprintln!("SKIP: python3 is not installed (.ci/run installs it)"),
        Ok(o) => {
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let n: usize = String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse()
                .expect("count");
            assert!(n >= 8, "{n} spans checked");
        }
    }
    // `spanreview-convert.1` as man shows it: the examples and the exit status.
    let man1 = dir.path().join("man1");
    let o = bin()
        .arg("man")
        .arg("--dir")
        .arg(&man1)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    if !installed("man") {
        return;
    }
    let page = std::process::Command::new("man")
        .arg("-l")
        .arg(man1.join("spanreview-convert.1"))
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .expect("man runs");
    let text = String::from_utf8_lossy(&page.stdout);
    assert!(text.contains("spanreview-convert"), "{text}");
    assert!(text.contains("--records"), "{text}");
    assert!(text.contains("Exit status"), "{text}");
}

/// A joined file's warning names its own file and line: convert reports it as it is, not behind
/// the place of the record it was joined to.
#[test]
fn a_joined_files_warning_is_reported_at_its_own_place_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let pred = |id: &str, output: &str| {
        json!({"id": id, "output": output, "corruption_type": "contradiction",
               "gold_spans": [{"start": 0, "end": 2, "text": "", "label": "contradiction"}],
               "pred_spans": []})
    };
    let lead = dir.path().join("predictions_a.jsonl");
    let joined = dir.path().join("predictions_théo’s.jsonl");
    write_jsonl(&lead, &[pred("a", "25°C ok"), pred("b", "東京晴れ👋")]);
    write_jsonl(&joined, &[pred("a", "25°C ok"), pred("b", "’東京晴れ👋")]);
    let out_path = dir.path().join("out.jsonl");
    let out = convert(&[
        s(&lead),
        s(&joined),
        "--to",
        "ragtruth",
        "--out",
        s(&out_path),
    ]);
    let err = stderr(&out);
    let want = format!("{}:2: the answer text differs", joined.display());
    assert!(err.lines().any(|l| l.starts_with(&want)), "{err}");
}

/// Issue 22 item 14: every input `convert` would change silently is reported with its file,
/// line and value (exit 1) and nothing is written; `--lenient` writes and lists the same
/// problems; `validate` reports each too.
#[test]
fn convert_changes_nothing_silently_and_lenient_lists_what_it_changed() {
    let dir = tempfile::tempdir().expect("tmp");
    let region = |value: Value| json!({"type": "labels", "value": value});
    let task = |id: u32, result: Value| {
        json!({"id": id, "data": {"output": "25°C in 東京 🙂 ’today’"},
               "annotations": [{"id": 1, "completed_by": 2, "result": result}]})
    };
    let labels = |l: Value| region(json!({"start": 8, "end": 10, "text": "東京", "labels": l}));
    let prodigy = json!({"text": "25°C in 東京", "spans": [{"start": 8, "end": 10}],
                         "answer": "accept", "meta": {"id": "p°"}});
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "empty.jsonl",
            task(1, json!([labels(json!([]))])).to_string(),
            "value.labels holds no label: []",
        ),
        (
            "null.jsonl",
            task(1, json!([labels(json!([1, null]))])).to_string(),
            "value.labels[0] is not a label: 1",
        ),
        (
            "two.jsonl",
            task(1, json!([labels(json!(["a", "b"]))])).to_string(),
            "value.labels holds 2 labels [\"a\",\"b\"]; a span carries one: only \"a\" was kept",
        ),
        (
            "object.jsonl",
            task(1, labels(json!(["x"]))).to_string(),
            "annotations[0].result is not a list: {",
        ),
        (
            "reversed.jsonl",
            task(
                1,
                json!([region(json!({"start": 5, "end": 2, "labels": ["x"]}))]),
            )
            .to_string(),
            "[5, 2) is reversed (start after end)",
        ),
        (
            "prodigy.jsonl",
            prodigy.to_string(),
            "spans[0]: no label: none",
        ),
        // The second task is cut off: the array never closes.
        (
            "cut.json",
            format!(
                "[\n{},\n{{\"id\": 2, \"data\": {{\"output\": \"東京\"}}, \"annotations\": [",
                task(1, json!([labels(json!(["x"]))]))
            ),
            "the JSON array is not closed: the file is truncated",
        ),
    ];
    for (name, text, says) in cases {
        let input = dir.path().join(name);
        std::fs::write(&input, format!("{text}\n")).expect("write");
        let out_path = dir.path().join(format!("{name}.out"));
        let out = convert(&[s(&input), "--to", "ragtruth", "--out", s(&out_path)]);
        let err = stderr(&out);
        exits(&out, 1);
        let line = if name == "cut.json" { 3 } else { 1 };
        let at = format!("{}:{line}", input.display());
        assert!(
            err.lines().any(|l| l.starts_with(&at) && l.contains(says)),
            "{name}: {err}"
        );
        assert!(err.contains("nothing written to"), "{name}: {err}");
        assert!(!out_path.exists(), "{name}: written without --lenient");
        // --lenient writes, and says the same.
        let out = convert(&[
            s(&input),
            "--to",
            "ragtruth",
            "--out",
            s(&out_path),
            "--lenient",
        ]);
        exits(&out, 1);
        assert!(stderr(&out).contains(says), "{name}: {}", stderr(&out));
        assert_eq!(lines(&out_path).len(), 1, "{name}");
        // validate reports it as well.
        let v = bin().arg("validate").arg(&input).output().expect("runs");
        let report = String::from_utf8_lossy(&v.stdout);
        assert_eq!(v.status.code(), Some(1), "{name}: {report}");
        assert!(report.contains(says), "{name}: {report}");
    }
}
