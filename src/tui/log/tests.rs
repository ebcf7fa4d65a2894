use super::*;
use crate::review::decision::ActionKind;

#[test]
fn a_commit_into_a_file_deleted_meanwhile_is_not_reported_saved() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("db °.sqlite");
    let store = Store::open(&path).expect("db");
    let d = Decision::about("ds", "ana", "r", "abc", ActionKind::Flag);
    // The file goes away between the write and the check that follows it.
    let committed = Store::append(&store, &d, None);
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        std::fs::remove_file(std::path::PathBuf::from(p)).expect("rm");
    }
    let e = in_place(&store, committed).expect_err("not saved where the reviewer thinks");
    assert!(e.contains("deleted or replaced"), "{e}");
    assert!(
        e.contains("the decision just made is in that copy too"),
        "{e}"
    );
    let rescue = store.rescued().expect("copied");
    let copy = Store::open_existing(&rescue).expect("copy");
    assert_eq!(copy.decisions(None).expect("q").len(), 1);
}
