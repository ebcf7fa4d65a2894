use super::*;

#[test]
fn a_set_cut_in_two_says_which_files_are_the_runs() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("revu°.jsonl");
    let verdicts = dir.path().join("v中.jsonl");
    std::fs::write(&out, "new\n").expect("out");
    std::fs::write(&verdicts, "old\n").expect("verdicts");
    let mut m = Manifest::new(vec![
        entry("--out", &out, &out).expect("out"),
        entry("--verdicts", &verdicts, &verdicts).expect("v"),
    ]);
    let path = path_for(&out);
    assert_eq!(path, dir.path().join(".revu°.jsonl.manifest.json"));
    m.write(&path).expect("write");
    assert_eq!(Manifest::read(&path).as_ref(), Some(&m));
    // the verdicts were not renamed yet: another file is there
    std::fs::remove_file(&verdicts).expect("rm");
    std::fs::write(&verdicts, "older\n").expect("verdicts");
    let p = m.problems();
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("was stopped"), "{p:?}");
    assert!(p[0].contains(&format!("--out {} is from that run", out.display())));
    assert!(p[0].contains(&format!("--verdicts {} is not", verdicts.display())));
    m.state = COMPLETE.to_owned();
    assert!(m.problems()[0].contains("changed, replaced or removed"));
    m.files.pop();
    assert!(m.problems().is_empty());
}
