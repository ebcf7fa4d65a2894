//! Integration tests: `spanreview assign` on the toolace sample (175 records, 52 bases of 2 to
//! 4 variants): the stored plan, `--show`, re-assignment after decisions, and refusals.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;
use spanreview::formats::Dataset;
use spanreview::review::decision::{ActionKind, Decision};
use spanreview::store::Store;

use crate::common::{bin, data};

fn records() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

/// Record id → (base id, corruption type), from the file itself.
fn bases() -> BTreeMap<String, (String, String)> {
    std::fs::read_to_string(records())
        .expect("read")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json");
            (
                v["id"].as_str().expect("id").to_owned(),
                (
                    v["meta"]["base_id"].as_str().expect("base").to_owned(),
                    v["meta"]["corruption_type"]
                        .as_str()
                        .expect("type")
                        .to_owned(),
                ),
            )
        })
        .collect()
}

fn run(db: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    bin()
        .arg("assign")
        .arg(records())
        .arg("--db")
        .arg(db)
        .args(args)
        .env_remove("SPANREVIEW_DB")
        .assert()
}

/// The plan printed by `--json`: record id → reviewers, in print order.
fn plan_of(out: &[u8]) -> Vec<(String, Vec<String>)> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("one JSON object per line");
            let o = v.as_object().expect("object");
            assert_eq!(o.len(), 2, "{l}");
            let revs = v["reviewers"]
                .as_array()
                .expect("reviewers")
                .iter()
                .map(|r| r.as_str().expect("name").to_owned())
                .collect();
            (v["record_id"].as_str().expect("id").to_owned(), revs)
        })
        .collect()
}

#[test]
fn a_plan_covers_every_record_keeps_bases_together_and_spreads_overlap() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team.sqlite");
    let out = run(
        &db,
        &["--reviewers", "ana,bo,李", "--overlap", "0.2", "--json"],
    )
    .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("plan generation 1"), "{stderr}");
    let plan = plan_of(&out.get_output().stdout);
    let bases = bases();
    let ids: Vec<&String> = plan.iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), 175);
    assert_eq!(
        ids.iter().copied().collect::<BTreeSet<_>>(),
        bases.keys().collect()
    );
    let mut of_base: HashMap<&str, &Vec<String>> = HashMap::new();
    let mut load: BTreeMap<&str, usize> = BTreeMap::new();
    let mut over_by_type: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (id, revs) in &plan {
        let (base, kind) = &bases[id];
        assert_eq!(**of_base.entry(base).or_insert(revs), *revs, "base {base}");
        for r in revs {
            *load.entry(r).or_default() += 1;
        }
        let e = over_by_type.entry(kind).or_default();
        e.0 += 1;
        e.1 += usize::from(revs.len() == 2);
        assert!(revs.len() == 1 || revs.len() == 2, "{id}: {revs:?}");
    }
    assert_eq!(
        load.keys().copied().collect::<Vec<_>>(),
        ["ana", "bo", "李"]
    );
    let (lo, hi) = (
        load.values().min().expect("min"),
        load.values().max().expect("max"),
    );
    assert!(hi - lo <= 4, "loads {load:?} (bases hold up to 4 records)");
    // 20 % of 175 = 35 overlap records, within half a base; every type gets its share.
    let over: usize = over_by_type.values().map(|v| v.1).sum();
    assert!((33..=37).contains(&over), "{over}");
    for (kind, (n, o)) in &over_by_type {
        let share = *o as f64 / *n as f64;
        assert!((0.1..=0.3).contains(&share), "{kind}: {o} of {n}");
    }

    // Stored: --show --json prints the same lines; the human summary one row per reviewer.
    let shown = run(&db, &["--show", "--json"]).success();
    assert_eq!(plan_of(&shown.get_output().stdout), plan);
    let human = run(&db, &["--show"]).success();
    let text = String::from_utf8_lossy(&human.get_output().stdout).into_owned();
    assert!(text.contains("175 records"), "{text}");
    for (r, n) in &load {
        let row = text
            .lines()
            .find(|l| l.starts_with(r))
            .unwrap_or_else(|| panic!("no row for {r}:\n{text}"));
        assert_eq!(
            row.split_whitespace().nth(1),
            Some(n.to_string().as_str()),
            "{row}"
        );
    }

    // The same command again: the same plan, nothing saved.
    let again = run(&db, &["--reviewers", "ana,bo,李", "--overlap", "0.2"]).success();
    let text = String::from_utf8_lossy(&again.get_output().stdout).into_owned();
    assert!(text.contains("unchanged; nothing saved"), "{text}");
    // Another seed, another plan.
    let other = run(
        &db,
        &[
            "--reviewers",
            "ana,bo,李",
            "--overlap",
            "0.2",
            "--seed",
            "9",
            "--json",
        ],
    )
    .success();
    assert_ne!(plan_of(&other.get_output().stdout), plan);
}

/// ana reviews some of her records, then leaves and dan joins: every record ana decided on
/// stays hers, no other record names her, and bo's and cy's records stay where they were.
#[test]
fn reassigning_moves_only_records_nobody_decided_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team.sqlite");
    let first = run(&db, &["--reviewers", "ana,bo,cy", "--json"]).success();
    let p1 = plan_of(&first.get_output().stdout);
    let ds = Dataset::open(&[records()], None).expect("open");
    let index: HashMap<String, usize> = (0..ds.len())
        .map(|i| (ds.record(i).expect("record").id, i))
        .collect();
    let hers: Vec<&String> = p1
        .iter()
        .filter(|(_, r)| r == &["ana"])
        .map(|(id, _)| id)
        .collect();
    assert!(hers.len() > 40, "{}", hers.len());
    let decided: BTreeSet<&String> = hers.iter().copied().take(10).collect();
    {
        let store = Store::open(&db).expect("db");
        for id in &decided {
            let rec = ds.record(index[*id]).expect("record");
            let d = Decision::new(&rec, &ds.name, "ana", ActionKind::AcceptAll);
            store.append(&d, None).expect("save");
        }
        // An undone decision is no review: that record may move.
        let rec = ds.record(index[hers[20]]).expect("record");
        let d = store
            .append(
                &Decision::new(&rec, &ds.name, "ana", ActionKind::AcceptAll),
                None,
            )
            .expect("save");
        let mut undo = Decision::new(&rec, &ds.name, "ana", ActionKind::Undo);
        undo.target = Some(d.id);
        store.append(&undo, None).expect("save");
    }
    let second = run(&db, &["--reviewers", "bo,cy,dan", "--json"]).success();
    let stderr = String::from_utf8_lossy(&second.get_output().stderr).into_owned();
    assert!(
        stderr.contains("10 decided record(s) kept with their reviewers"),
        "{stderr}"
    );
    let p2 = plan_of(&second.get_output().stdout);
    let before: HashMap<&String, &Vec<String>> = p1.iter().map(|(i, r)| (i, r)).collect();
    for (id, revs) in &p2 {
        if decided.contains(id) {
            assert_eq!(revs, &["ana"], "{id}");
        } else {
            assert!(!revs.contains(&"ana".to_owned()), "{id}: {revs:?}");
        }
        // bo's and cy's records stay, or go to the newcomer to even the loads out.
        if !before[id].contains(&"ana".to_owned()) && before[id] != revs {
            assert_eq!(revs, &["dan"], "{id} moved from {:?}", before[id]);
        }
    }
    let mut load: BTreeMap<&str, usize> = BTreeMap::new();
    for r in p2.iter().flat_map(|(_, r)| r) {
        *load.entry(r).or_default() += 1;
    }
    let team: Vec<usize> = ["bo", "cy", "dan"].iter().map(|r| load[r]).collect();
    let (lo, hi) = (
        team.iter().min().expect("min"),
        team.iter().max().expect("max"),
    );
    assert!(hi - lo <= 4, "{load:?}");
    let moved = p2.iter().filter(|(id, r)| before[id] != r).count();
    assert!(
        moved < hers.len() + 10,
        "{moved} records moved for {} of ana's",
        hers.len()
    );

    // --show tells who decided what.
    let shown = run(&db, &["--show"]).success();
    let text = String::from_utf8_lossy(&shown.get_output().stdout).into_owned();
    let row = text
        .lines()
        .find(|l| l.starts_with("ana"))
        .expect("ana row");
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        ["ana", "10", "0", "10"],
        "{text}"
    );
}

#[test]
fn unusable_teams_and_options_are_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team.sqlite");
    for (args, want) in [
        (
            &[
                "--reviewers",
                "ana,bo",
                "--overlap",
                "0.2",
                "--overlap-k",
                "3",
            ][..],
            "--overlap-k 3 needs at least 3 reviewers; the team has 2",
        ),
        (
            &["--reviewers", "ana,bo", "--overlap", "1.5"][..],
            "--overlap 1.5 is not a share between 0 and 1",
        ),
        (&["--reviewers", "ana,ana"][..], "\"ana\" is named twice"),
        (
            &["--reviewers", "ana,,bo"][..],
            "reviewer name \"\" is empty",
        ),
        (&["--show"][..], "no database at"),
    ] {
        let out = run(&db, args).code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
    Store::open(&db).expect("db");
    run(&db, &["--show"])
        .code(2)
        .stderr(predicates::str::contains(
            "holds no plan for dataset \"test_records_reconstructed\"",
        ));
    bin()
        .args(["assign", "--show", "--db"])
        .arg(&db)
        .env_remove("SPANREVIEW_DB")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("give FILE or --dataset"));
}

/// A line that is not JSON is named (file and line) and left out, exit 1; a record that cannot
/// be read but has an id is assigned (its reviewer sees the error); an id seen again is named
/// and assigned once.
#[test]
fn bad_lines_are_named_and_every_readable_id_is_assigned() {
    let dir = tempfile::tempdir().expect("tmp");
    let text = std::fs::read_to_string(records()).expect("read");
    let lines: Vec<&str> = text.lines().take(3).collect();
    let mut no_output: Value = serde_json::from_str(lines[2]).expect("json");
    no_output.as_object_mut().expect("object").remove("output");
    no_output["id"] = "sans_réponse_東".into();
    let file = dir.path().join("bad.jsonl");
    std::fs::write(
        &file,
        format!(
            "{}\n{}\n{{\"id\": \"broken\n{}\n{no_output}\n",
            lines[0], lines[1], lines[0]
        ),
    )
    .expect("write");
    let db = dir.path().join("team.sqlite");
    let out = bin()
        .arg("assign")
        .arg(&file)
        .args(["--reviewers", "ana,bo", "--json", "--db"])
        .arg(&db)
        .env_remove("SPANREVIEW_DB")
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let name = file.display().to_string();
    assert!(
        stderr.contains(&format!("{name}:3: invalid JSON")) && stderr.contains("not assigned"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{name}:4: record id")) && stderr.contains("seen on line 1"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("{name}:5: ")), "{stderr}");
    let ids: Vec<String> = plan_of(&out.get_output().stdout)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let first = |l: &str| -> String {
        serde_json::from_str::<Value>(l).expect("json")["id"]
            .as_str()
            .expect("id")
            .to_owned()
    };
    assert_eq!(
        ids,
        [
            first(lines[0]),
            first(lines[1]),
            "sans_réponse_東".to_owned()
        ]
    );
}

/// On a PostgreSQL database (`--db postgresql://…`, a password in the URL): the same plans as
/// on SQLite for the same steps (a plan, then a re-assignment), stored and shown again, and the
/// password never printed (the saved note, `--show`, and the error for a dataset without a
/// plan all name the database).
#[test]
fn plans_on_postgresql_are_the_plans_on_sqlite_and_its_password_is_never_shown() {
    let Some(pg) = crate::pg_server::PgDb::create() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tmp");
    let url = pg.path_with_password("hunter2");
    let (on_sqlite, _) = steps(&dir.path().join("team.sqlite"));
    let (on_pg, said) = steps(&url);
    assert_eq!(on_pg, on_sqlite);
    assert!(said.contains("plan generation 2"), "{said}");
    assert!(said.contains("holds no plan"), "{said}");
    assert_eq!(said.matches("postgres:***@127.0.0.1").count(), 4, "{said}");
    assert!(!said.contains("hunter2"), "{said}");
}

/// A plan as printed: record id → reviewers.
type Plan = Vec<(String, Vec<String>)>;

/// Assign, re-assign, show (as JSON lines and as text), and show a dataset without a plan on
/// `db`: the plans printed, and everything the runs said.
fn steps(db: &Path) -> (Vec<Plan>, String) {
    let mut said = String::new();
    let mut keep = |a: &assert_cmd::assert::Assert| {
        let out = a.get_output();
        said.push_str(&String::from_utf8_lossy(&out.stdout));
        said.push_str(&String::from_utf8_lossy(&out.stderr));
    };
    let first = run(
        db,
        &["--reviewers", "ana,bo,李", "--overlap", "0.2", "--json"],
    )
    .success();
    keep(&first);
    let second = run(db, &["--reviewers", "ana,bo", "--seed", "7"]).success();
    keep(&second);
    let shown = run(db, &["--show", "--json"]).success();
    keep(&run(db, &["--show"]).success());
    keep(
        &bin()
            .args(["assign", "--show", "--dataset", "nothing planned", "--db"])
            .arg(db)
            .env_remove("SPANREVIEW_DB")
            .assert()
            .failure(),
    );
    let plans = vec![
        plan_of(&first.get_output().stdout),
        plan_of(&shown.get_output().stdout),
    ];
    (plans, said)
}
