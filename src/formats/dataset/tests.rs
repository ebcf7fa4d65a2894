use super::*;
use crate::formats::index::Cache;

/// A JSONL file of records with non-ASCII ids (one made unreadable when `broken` is given)
/// and an index cache for files of any size, both in `dir`.
fn file(dir: &Path, broken: Option<usize>) -> (PathBuf, Cache, Vec<String>) {
    let ids: Vec<String> = (0..5000).map(|i| format!("r{i}-°’中🙂e\u{301}")).collect();
    let mut text = String::new();
    for (i, id) in ids.iter().enumerate() {
        if broken == Some(i) {
            text.push_str(&format!("{{\"id\": \"{id}\", \"output\": \n"));
        } else {
            text.push_str(&format!("{{\"id\": \"{id}\", \"output\": \"x{i}\"}}\n"));
        }
    }
    let path = dir.join("records.jsonl");
    std::fs::write(&path, text).expect("write");
    (path, Cache::new(dir.join("cache"), 0), ids)
}

#[test]
fn ids_are_saved_when_every_line_has_one() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, cache, ids) = file(dir.path(), None);
    let index = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(index.saved_ids(|_, b| id_member(b)).is_none());
    assert!(save_ids(&index, Format::Ragtruth));
    let again = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert_eq!(again.saved_ids(|_, b| id_member(b)), Some(ids));
}

#[test]
fn no_ids_are_saved_when_a_line_has_none() {
    // The first line, and the last (in the second block of 4096 lines read).
    for broken in [0, 4999] {
        let dir = tempfile::tempdir().expect("dir");
        let (path, cache, _) = file(dir.path(), Some(broken));
        let index = FileIndex::open_with(&path, Some(&cache)).expect("open");
        assert!(
            !save_ids(&index, Format::Ragtruth),
            "line {broken} has no id"
        );
        let again = FileIndex::open_with(&path, Some(&cache)).expect("open");
        assert!(again.saved_ids(|_, b| id_member(b)).is_none());
    }
}

#[test]
fn a_file_the_cache_does_not_take_gets_no_ids() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, _, _) = file(dir.path(), None);
    let small_only = Cache::new(dir.path().join("cache"), 1 << 40);
    let index = FileIndex::open_with(&path, Some(&small_only)).expect("open");
    assert!(!index.cached());
    assert!(!save_ids(&index, Format::Ragtruth));
    assert!(!dir.path().join("cache").exists(), "nothing written");
}

#[test]
fn id_member_reads_escapes_and_refuses_what_is_not_a_string_id() {
    assert_eq!(
        id_member(br#"{"id": "a\u00b0\"b", "x": 1}"#).as_deref(),
        Some("a°\"b")
    );
    assert_eq!(
        id_member(r#"{"x": [1], "id": "中🙂"}"#.as_bytes()).as_deref(),
        Some("中🙂")
    );
    for bad in [
        &br#"{"id": 5}"#[..],
        br#"{"x": "no id"}"#,
        br#"{"id": "a", "output": "#,
        br#"["id", "a"]"#,
        // An invalid byte in a member the id reader skips (serde_json would not see it).
        b"{\"id\": \"a\", \"context\": \"caf\xff\"}",
    ] {
        assert_eq!(id_member(bad), None, "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn each_line_id_is_the_id_the_reader_gives() {
    // Label Studio: `data.rid` before the task's own `id`, even a string one; LettuceDetect: a
    // numeric `id`, or none (a hash of prompt and answer).
    let cases = [
        (
            Format::LabelStudio,
            [
                r#"{"id": "task-1", "data": {"rid": "r°1", "output": "25°C 東京"}, "annotations": []}"#,
                r#"{"id": 2, "data": {"output": "’🙂"}, "annotations": []}"#,
            ],
        ),
        (
            Format::Lettuce,
            [
                r#"{"id": 7, "answer": "25°C 東京", "labels": []}"#,
                r#"{"prompt": "p", "answer": "e\u0301 中", "labels": []}"#,
            ],
        ),
    ];
    let dir = tempfile::tempdir().expect("dir");
    for (format, lines) in cases {
        let path = dir.path().join(format!("{}.jsonl", format.name()));
        std::fs::write(&path, lines.join("\n")).expect("write");
        let file = DataFile::open(&path, Some(format), None).expect("open");
        for i in 0..file.len() {
            let rec = file.record(i).expect("record");
            assert_eq!(
                file.id(i).expect("id"),
                rec.id,
                "{} line {i}",
                format.name()
            );
        }
    }
}

/// The saved ids are the format's: a Label Studio JSON_MIN row's id is its `rid` when it has
/// one, not its `id` member, at every row (not only those the saved ids are checked at).
#[test]
fn saved_ids_are_read_as_the_format_reads_them() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("rows.jsonl");
    let mut text = String::new();
    for i in 0..20 {
        let mut row = serde_json::json!({"id": format!("row{i}-°中"), "output": "x 🙂",
            "annotator": 1, "annotation_id": i, "label": []});
        // Row 1 is not among the rows the saved ids are checked at.
        if i == 1 {
            row["rid"] = "r1-’e\u{301}".into();
        }
        text.push_str(&format!("{row}\n"));
    }
    std::fs::write(&path, text).expect("write");
    let cache = Cache::new(dir.path().join("cache"), 0);
    let format = Format::LabelStudioMin;
    let index = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(save_ids(&index, format));
    let index = FileIndex::open_with(&path, Some(&cache)).expect("open");
    let file = DataFile::with_index(index, Some(format), None).expect("file");
    let want: Vec<String> = (0..20).map(|i| file.id(i).expect("id")).collect();
    assert_eq!(want[1], "r1-’e\u{301}");
    assert_eq!(file.index.saved_ids(|_, b| file.id_of(b)), Some(want));
}
