use super::*;
use crate::export::set::persist_all;
use serde_json::json;

#[test]
fn input_lines_come_from_the_file_indexed_even_when_its_path_is_replaced() {
    let dir = tempfile::tempdir().expect("dir");
    let input = dir.path().join("in.jsonl");
    let first = "{\"id\": \"a°\"}\n{\"id\": \"b中\"}\n";
    std::fs::write(&input, first).expect("write");
    let indexed = FileIndex::open_with(&input, None).expect("index");
    // `mv`, `sed -i` or a checkout replaces the path with another file of the same shape.
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, "{\"id\": \"X°\"}\n{\"id\": \"Y中\"}\n").expect("write");
    std::fs::rename(&other, &input).expect("replace");
    let out = dir.path().join("out.jsonl");
    let mut f = RecordFile::create(&out, Layout::Lines).expect("create");
    let n = u32::try_from(first.find('\n').expect("line")).expect("len");
    f.push_input(&indexed, 0, n).expect("line 1");
    f.push_input(&indexed, u64::from(n) + 1, n + 1)
        .expect("line 2");
    f.finish().expect("finish");
    f.file.persist().expect("persist");
    assert_eq!(std::fs::read_to_string(&out).expect("read"), first);
}

#[test]
fn routes_and_split_names() {
    let v = json!({"meta": {"corruption_type": "missing_tool", "n": 3}});
    assert_eq!(
        route_of(&v, "meta.corruption_type").as_deref(),
        Some("missing_tool")
    );
    assert_eq!(route_of(&v, "meta.n").as_deref(), Some("3"));
    assert_eq!(route_of(&v, "meta.nope"), None);
    assert_eq!(
        split_path(Path::new("out/reviewed.jsonl"), "missing_tool"),
        Path::new("out/reviewed.missing_tool.jsonl")
    );
    assert_eq!(file_part("a/b c"), "a_b_c");
    assert_eq!(file_part(".."), "none");
}

#[test]
fn dropped_file_leaves_nothing() {
    let dir = std::env::temp_dir().join(format!("spanreview-atomic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let dest = dir.join("x.jsonl");
    {
        let mut f = RecordFile::create(&dest, Layout::Lines).expect("create");
        f.push(b"{}").expect("push");
    }
    assert_eq!(std::fs::read_dir(&dir).expect("ls").count(), 0);
    let mut f = RecordFile::create(&dest, Layout::Array).expect("create");
    f.push(b"{}").expect("push");
    f.push(b"[1]").expect("push");
    f.finish().expect("finish");
    persist_all(vec![(f.into_file(), "--out")], None).expect("persist");
    assert_eq!(
        std::fs::read_to_string(&dest).expect("read"),
        "[\n  {},\n  [1]\n]\n"
    );
    std::fs::remove_dir_all(&dir).expect("cleanup");
}
