//! `export D --config C --out OUT/` of a dataset folder writes every shard or none: a folder
//! with two configs and a split of two shards exports whole, with no hidden file (manifest,
//! temporary file, staging folder) inside `OUT` or beside it; a last shard that fails (it
//! cannot be read, its decisions are stale, a folder stands at its path in `OUT`) leaves a new
//! `OUT` absent and an existing one byte for byte as it was, and the message names the shard.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::common::{bin, lines, names, stderr};

/// One record whose answer holds `claim`, labeled as a contradiction.
fn record(id: &str, claim: &str) -> Value {
    let output = format!("Le relevé de {id} : {claim} — aujourd’hui à 東京 🌡️.");
    let start = output
        .find(claim)
        .map_or(0, |b| output[..b].chars().count());
    let end = start + claim.chars().count();
    json!({
        "id": id,
        "query": "Quelle température fait-il à 東京 ?",
        "context": "{\"temp_c\": 21, \"city\": \"東京\"}",
        "output": output,
        "hallucination_labels": [
            {"start": start, "end": end, "label": "contradiction", "text": claim}
        ],
        "meta": {"base_id": id, "corruption_type": "contradiction"}
    })
}

/// The card: config `main` (default) with train in two shards and test in one, config
/// `other` with train only.
const CARD: &str = "---\nlicense: apache-2.0\nconfigs:\n- config_name: main\n  default: true\n  \
data_files:\n  - split: train\n    path: main/train-*\n  - split: test\n    path: main/test-*\n\
- config_name: other\n  data_files:\n  - split: train\n    path: other/train-*\n---\n\
# Relevés ’ 東京 🌡️\n";

/// The shards of the folder, relative to it, in the order they are exported.
const MAIN: [&str; 3] = [
    "main/train-00000-of-00002.jsonl",
    "main/train-00001-of-00002.jsonl",
    "main/test-00000-of-00001.jsonl",
];

/// A dataset folder `top/ds` (the card, [`MAIN`] and `other/train-00000-of-00001.jsonl`).
fn folder(top: &Path) -> PathBuf {
    let d = top.join("ds");
    let shards = [
        (
            MAIN[0],
            vec![record("t01", "21 °C"), record("t02", "30 °C")],
        ),
        (
            MAIN[1],
            vec![record("t03", "−4 °C"), record("t04", "12 °C")],
        ),
        (MAIN[2], vec![record("e01", "99 °C")]),
        (
            "other/train-00000-of-00001.jsonl",
            vec![record("o01", "7 °C")],
        ),
    ];
    for (rel, recs) in shards {
        let p = d.join(rel);
        std::fs::create_dir_all(p.parent().expect("folder")).expect("mkdir");
        super::common::write_jsonl(&p, &recs);
    }
    std::fs::write(d.join("README.md"), CARD).expect("card");
    d
}

/// Apply a drop of `id`'s first span in the shard `rel` of split `split` of config `main`,
/// under the dataset name the folder export reads (`ds/main/SPLIT`: a split of two shards is
/// one records file each).
fn drop_span(top: &Path, d: &Path, db: &Path, (rel, split): (&str, &str), id: &str) {
    let file = top.join(format!("{split}.decisions.jsonl"));
    let line = json!({"record_id": id, "action": "drop", "span_key": "gold:0"});
    std::fs::write(&file, format!("{line}\n")).expect("decisions");
    bin()
        .arg("apply")
        .arg(d.join(rel))
        .args(["--dataset", &format!("ds/main/{split}"), "--decisions"])
        .arg(&file)
        .arg("--db")
        .arg(db)
        .args(["--reviewer", "ana"])
        .assert()
        .success();
}

/// `export d --config config --db db --out out/`.
fn export(d: &Path, config: &str, db: &Path, out: &Path) -> assert_cmd::assert::Assert {
    let mut arg = out.as_os_str().to_owned();
    arg.push("/");
    bin()
        .arg("export")
        .arg(d)
        .args(["--config", config, "--db"])
        .arg(db)
        .arg("--out")
        .arg(arg)
        .assert()
}

/// Every file and folder under `dir` by relative path: a file's bytes, `None` for a folder.
fn snapshot(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(here) = todo.pop() {
        for e in std::fs::read_dir(&here).expect("ls") {
            let p = e.expect("entry").path();
            let rel = p
                .strip_prefix(dir)
                .expect("under")
                .to_string_lossy()
                .into_owned();
            if p.is_dir() {
                out.insert(rel, None);
                todo.push(p);
            } else {
                out.insert(rel, Some(std::fs::read(&p).expect("read")));
            }
        }
    }
    out
}

/// The hidden names anywhere under `dir`.
fn hidden(dir: &Path) -> Vec<String> {
    snapshot(dir)
        .into_keys()
        .filter(|k| k.split('/').any(|part| part.starts_with('.')))
        .collect()
}

#[test]
fn a_folder_export_writes_every_shard_and_nothing_hidden() {
    let top = tempfile::tempdir().expect("dir");
    let d = folder(top.path());
    let db = top.path().join("db.sqlite");
    drop_span(top.path(), &d, &db, (MAIN[1], "train"), "t03");
    let out = top.path().join("révisé");
    let a = export(&d, "main", &db, &out).success();
    assert!(
        stderr(&a).contains("3 shard(s) in place in"),
        "{}",
        stderr(&a)
    );
    assert!(!stderr(&a).contains(".partial-"), "{}", stderr(&a));
    for rel in MAIN {
        assert!(out.join(rel).is_file(), "{rel}");
    }
    // The undecided shards are copied as read; the decided record lost its span.
    for rel in [MAIN[0], MAIN[2]] {
        assert_eq!(
            std::fs::read(out.join(rel)).expect("out"),
            std::fs::read(d.join(rel)).expect("in"),
            "{rel}"
        );
    }
    let second = lines(&out.join(MAIN[1]));
    assert_eq!(second[0]["id"], "t03");
    assert_eq!(second[0]["hallucination_labels"], json!([]));
    assert_eq!(second[1]["hallucination_labels"][0]["text"], "12 °C");
    assert_eq!(
        std::fs::read_to_string(out.join("README.md")).expect("card"),
        CARD
    );
    assert!(!out.join("other").exists());
    assert_eq!(hidden(&out), Vec::<String>::new());
    assert_eq!(
        names(top.path()),
        ["db.sqlite", "ds", "révisé", "train.decisions.jsonl"]
    );

    // The second config into the same OUT: both are there, an unrelated file stays.
    std::fs::write(out.join("notes ’東京’.txt"), "à garder\n").expect("notes");
    export(&d, "other", &db, &out).success();
    assert!(out.join("other/train-00000-of-00001.jsonl").is_file());
    for rel in MAIN {
        assert!(out.join(rel).is_file(), "{rel}");
    }
    assert_eq!(
        std::fs::read_to_string(out.join("notes ’東京’.txt")).expect("notes"),
        "à garder\n"
    );
    assert_eq!(hidden(&out), Vec::<String>::new());
    assert_eq!(
        names(top.path()),
        ["db.sqlite", "ds", "révisé", "train.decisions.jsonl"]
    );
}

/// The last shard cannot be read (bytes that are no parquet file under a `.parquet` name):
/// the export fails naming it, a new OUT is not made, an existing one is left byte for byte.
#[test]
fn a_last_shard_that_fails_leaves_out_as_it_was() {
    let top = tempfile::tempdir().expect("dir");
    let d = folder(top.path());
    let db = top.path().join("db.sqlite");
    drop_span(top.path(), &d, &db, (MAIN[0], "train"), "t01");
    let out = top.path().join("out");
    export(&d, "main", &db, &out).success();
    std::fs::write(out.join("vieux °.txt"), "ancien 🙂\n").expect("old");
    let before = snapshot(&out);

    std::fs::remove_file(d.join(MAIN[2])).expect("rm");
    let broken = "main/test-00000-of-00001.parquet";
    std::fs::write(d.join(broken), "PAR1 pas du parquet ’東京’ PAR1").expect("junk");
    drop_span(top.path(), &d, &db, (MAIN[0], "train"), "t02");
    for target in [out.clone(), top.path().join("nouveau")] {
        let a = export(&d, "main", &db, &target).code(2);
        let err = stderr(&a);
        assert!(
            err.contains(&format!(
                "config main split test: {broken} could not be exported"
            )),
            "{err}"
        );
        assert!(err.contains("nothing was written into"), "{err}");
    }
    assert!(!top.path().join("nouveau").exists());
    assert_eq!(snapshot(&out), before, "OUT is as it was");
    assert_eq!(
        names(top.path()),
        ["db.sqlite", "ds", "out", "train.decisions.jsonl"]
    );
}

/// The last split's decision is stale (its record changed since): that shard exits 1 with
/// nothing written, and so does the folder export, OUT left as it was.
#[test]
fn a_last_shard_with_stale_decisions_leaves_out_as_it_was() {
    let top = tempfile::tempdir().expect("dir");
    let d = folder(top.path());
    let db = top.path().join("db.sqlite");
    drop_span(top.path(), &d, &db, (MAIN[2], "test"), "e01");
    let mut changed = record("e01", "98 °C");
    changed["output"] = json!("Le relevé a changé : 98 °C à 東京 ’ 🌡️.");
    super::common::write_jsonl(&d.join(MAIN[2]), &[changed]);
    let new = top.path().join("neu");
    let a = export(&d, "main", &db, &new).code(1);
    let err = stderr(&a);
    assert!(
        err.contains(&format!(
            "config main split test: {} was not exported",
            MAIN[2]
        )),
        "{err}"
    );
    assert!(!new.exists());
    assert_eq!(
        names(top.path()),
        ["db.sqlite", "ds", "test.decisions.jsonl"]
    );
}

/// A folder stands at the last shard's path in an existing OUT: the shards are all exported,
/// but none is put in place (the renames are checked first), and the message names that path.
#[test]
fn a_folder_at_a_shard_path_in_out_leaves_out_as_it_was() {
    let top = tempfile::tempdir().expect("dir");
    let d = folder(top.path());
    let db = top.path().join("db.sqlite");
    drop_span(top.path(), &d, &db, (MAIN[1], "train"), "t04");
    let out = top.path().join("out");
    std::fs::create_dir_all(out.join(MAIN[2])).expect("folder in the way");
    std::fs::write(out.join(MAIN[2]).join("dedans °.txt"), "東京\n").expect("inside");
    std::fs::write(out.join("README.md"), "# ancienne carte ’\n").expect("old card");
    let before = snapshot(&out);
    let a = export(&d, "main", &db, &out).code(2);
    let err = stderr(&a);
    assert!(
        err.contains(MAIN[2]) && err.contains("it is a folder"),
        "{err}"
    );
    assert!(err.contains("nothing was written into"), "{err}");
    assert_eq!(snapshot(&out), before, "OUT is as it was");
    assert_eq!(hidden(&out), Vec::<String>::new());
    assert_eq!(
        names(top.path()),
        ["db.sqlite", "ds", "out", "train.decisions.jsonl"]
    );
}
