use serde_json::json;

use super::*;

fn written(layout: Layout, values: &[Value]) -> String {
    let dir = tempfile::tempdir().expect("in a temporary folder");
    let path = dir.path().join("out.json");
    let mut out = Written::create(&path, layout).expect("in a temporary folder");
    for v in values {
        out.push(v).expect("in a temporary folder");
    }
    assert_eq!(out.count(), values.len());
    finished(out, &path)
}

/// `out`, a file at `path`, finished and renamed into place: its text.
fn finished(out: Written, path: &Path) -> String {
    let file = out
        .finish()
        .expect("in a temporary folder")
        .expect("a regular file is renamed into place");
    file.persist().expect("in a temporary folder");
    std::fs::read_to_string(path).expect("in a temporary folder")
}

/// `v`'s JSON text.
fn line(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).expect("JSON")
}

#[test]
fn lines_and_arrays_are_written_as_before_one_record_a_line() {
    let a = json!({"id": "a", "output": "25 °C — it’s 東京 🙂"});
    let b = json!({"id": "b"});
    assert_eq!(written(Layout::Lines, &[]), "");
    assert_eq!(
        written(Layout::Lines, &[a.clone(), b.clone()]),
        format!("{a}\n{b}\n")
    );
    assert_eq!(written(Layout::Array, &[]), "[\n]\n");
    assert_eq!(
        written(Layout::Array, std::slice::from_ref(&a)),
        format!("[\n{a}\n]\n")
    );
    let two = written(Layout::Array, &[a.clone(), b.clone()]);
    assert_eq!(two, format!("[\n{a},\n{b}\n]\n"));
    let back: Vec<Value> = serde_json::from_str(&two).expect("in a temporary folder");
    assert_eq!(back, vec![a, b]);
}

#[test]
fn bidirectional_controls_are_escaped_as_they_were() {
    let v = json!({"output": "a\u{202e}b\u{85}c"});
    let text = written(Layout::Lines, std::slice::from_ref(&v));
    assert!(
        text.contains("\\u202e") && text.contains("\\u0085"),
        "{text}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(text.trim()).expect("in a temporary folder"),
        v
    );
}

#[test]
fn a_run_that_is_not_finished_leaves_the_old_file_and_no_temporary() {
    let dir = tempfile::tempdir().expect("in a temporary folder");
    let path = dir.path().join("out.jsonl");
    std::fs::write(&path, "old\n").expect("in a temporary folder");
    let mut out = Written::create(&path, Layout::Lines).expect("in a temporary folder");
    out.push(&json!({"id": 1})).expect("in a temporary folder");
    drop(out);
    assert_eq!(
        std::fs::read_to_string(&path).expect("in a temporary folder"),
        "old\n"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("in a temporary folder")
        .collect();
    assert_eq!(names.len(), 1, "a temporary file was left: {names:?}");
}

#[test]
fn placed_records_go_out_in_the_originals_order_the_later_one_standing() {
    let dir = tempfile::tempdir().expect("in a temporary folder");
    let path = dir.path().join("out.jsonl");
    let mut out = Written::create(&path, Layout::Lines).expect("in a temporary folder");
    let mut placed = Placed::new(true).expect("in a temporary folder");
    let mut put = |j, v: Value| placed.put_json(j, &line(&v), &mut out);
    assert!(!put(2, json!({"id": "c", "v": 1})).expect("in a temporary folder"));
    assert!(!put(0, json!({"id": "a", "v": "°"})).expect("in a temporary folder"));
    assert!(put(2, json!({"id": "c", "v": 2})).expect("in a temporary folder"));
    assert!(!placed.must_redo(), "nothing went straight out");
    out.originals(4, placed, |j| Ok(line(&json!({"original": j}))))
        .expect("in a temporary folder");
    let text = finished(out, &path);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("in a temporary folder"))
        .collect();
    assert_eq!(
        lines,
        vec![
            json!({"id": "a", "v": "°"}),
            json!({"original": 1}),
            json!({"id": "c", "v": 2}),
            json!({"original": 3}),
        ]
    );
}

#[test]
fn a_stream_is_written_only_when_finished() {
    // /dev/null is a stream: nothing is opened until the end, and finishing copies the spool.
    let mut out =
        Written::create(Path::new("/dev/null"), Layout::Array).expect("in a temporary folder");
    out.push(&json!({"id": 1})).expect("in a temporary folder");
    assert!(out.file.is_none() && out.spool.is_some());
    let file = out
        .finish()
        .expect("in a temporary folder")
        .expect("a named stream is an output file");
    assert!(file.is_stream());
    file.persist().expect("in a temporary folder");
}

#[test]
fn placed_records_in_the_originals_order_go_straight_out_and_one_again_asks_for_a_redo() {
    let dir = tempfile::tempdir().expect("in a temporary folder");
    let path = dir.path().join("out.jsonl");
    let mut out = Written::create(&path, Layout::Lines).expect("in a temporary folder");
    let mut placed = Placed::new(true).expect("in a temporary folder");
    for j in [0, 1, 3] {
        let again = placed.put_json(j, &line(&json!({"placed": j})), &mut out);
        assert!(!again.expect("in a temporary folder"));
    }
    assert_eq!(out.count(), 2, "0 and 1 went straight out, 3 waits");
    assert!(!placed.must_redo());
    assert!(placed
        .put_json(1, &line(&json!({"placed": "1 again"})), &mut out)
        .expect("in a temporary folder"));
    assert!(
        placed.must_redo(),
        "1 went out already: the later one cannot stand"
    );
    let mut out = Written::create(&path, Layout::Lines).expect("in a temporary folder");
    let mut placed = Placed::new(true).expect("in a temporary folder");
    for j in [0, 1] {
        let again = placed.put_json(j, &line(&json!({"placed": j})), &mut out);
        assert!(!again.expect("in a temporary folder"));
    }
    out.originals(3, placed, |j| Ok(line(&json!({"original": j}))))
        .expect("in a temporary folder");
    let text = finished(out, &path);
    assert_eq!(text, "{\"placed\":0}\n{\"placed\":1}\n{\"original\":2}\n");
}
