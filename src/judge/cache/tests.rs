use super::*;

#[test]
fn a_line_cut_by_a_kill_is_skipped_counted_and_the_next_reply_starts_a_line_of_its_own() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("c.jsonl");
    let whole = serde_json::json!({"key": "k1", "id": "東京°", "body": "{\"a\": \"👋\"}"});
    std::fs::write(
        &p,
        format!("{whole}\n{{\"key\": \"k2\", \"id\": \"x\", \"bo"),
    )
    .expect("w");
    let mut c = Cache::open(&p).expect("opens");
    assert_eq!((c.len(), c.torn), (1, 1));
    assert_eq!(c.get("k1"), Some("{\"a\": \"👋\"}"));
    assert_eq!(c.get("k2"), None);
    c.put("k3", "y", "body’s").expect("put");
    let again = Cache::open(&p).expect("reopens");
    assert_eq!((again.len(), again.torn), (2, 1));
    assert_eq!(again.get("k3"), Some("body’s"));
}

#[test]
fn keys_differ_when_any_part_or_its_boundary_does() {
    assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
    assert_ne!(key(&["e", "m", "p"]), key(&["e", "m", "q"]));
    assert_eq!(key(&["e", "m", "p"]), key(&["e", "m", "p"]));
    assert_eq!(key(&["x"]).len(), 64);
}
