use super::*;

#[test]
fn regular_files_are_replaced_and_everything_else_is_a_stream() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("été.jsonl");
    std::fs::write(&file, "x").expect("write");
    assert_eq!(target(&file).expect("file"), Target::Replace(file.clone()));
    let new = dir.path().join("新.jsonl");
    assert_eq!(target(&new).expect("new"), Target::Replace(new.clone()));
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&file, &link).expect("symlink");
    assert_eq!(
        target(&link).expect("link"),
        Target::Replace(file.canonicalize().expect("canonical"))
    );
    let fd_link = dir.path().join("out");
    std::os::unix::fs::symlink("/proc/self/fd/1", &fd_link).expect("symlink");
    assert_eq!(target(&fd_link).expect("fd link"), Target::Stream);
    for p in ["-", "/dev/stdout", "/dev/stderr", "/dev/null"] {
        assert_eq!(target(Path::new(p)).expect(p), Target::Stream, "{p}");
    }
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).expect("symlink");
    let err = target(&dangling).expect_err("dangling");
    assert!(format!("{err:#}").contains("does not exist"), "{err:#}");
}
