//! Parquet records files (as `datasets` writes the Hub's shards) through every command that
//! takes records: validate, review, apply, export, stats, compare, convert and `--judge`. The
//! fixture is the bundled sample written with the schema `datasets` gives it (struct columns,
//! a list of struct labels, `arrow.json` columns, nulls), plus a record over non-ASCII text.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::{json, Value};
use spanreview::formats::index::Lazy;
use spanreview::formats::parquet::fixture;
use spanreview::formats::Dataset;
use spanreview::store::Store;
use spanreview::tui::app::App;
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::terminal;

use crate::common::{bin, compare_json, data, lines, stderr};

const QUOTE: &str = "It’s 25°C in 東京 today 👍🏽 ok";
const QUOTE_ID: &str = "quote_5__contradiction";

/// The sample's records and one over non-ASCII text (its span `25°C` at code points 5..9).
fn sample() -> Vec<Value> {
    let text =
        std::fs::read_to_string(data("toolace/test_records_reconstructed.jsonl")).expect("sample");
    let mut out: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    out.push(json!({
        "id": QUOTE_ID, "query": "weather?", "context": "{\"temp_c\": 25}", "output": QUOTE,
        "hallucination_labels": [{"end": 9, "label": "contradiction", "start": 5, "text": "25°C"}],
        "meta": {"source": "quote", "base_id": "quote_5", "corruption_type": "contradiction",
            "tools": [{"name": "weather"}], "tool_call": null, "reconstruction": null}
    }));
    out
}

/// The sample as a parquet shard (row groups of 64) and as JSONL, in `dir`.
fn shard(dir: &Path) -> (PathBuf, PathBuf) {
    let recs = sample();
    let pq = dir.join("train-00000-of-00001.parquet");
    fixture::write(&pq, &fixture::toolace_schema(), &recs, 64).expect("parquet");
    let jl = dir.join("train.jsonl");
    let text: String = recs.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&jl, text).expect("jsonl");
    (pq, jl)
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

#[test]
fn validate_reads_a_parquet_shard_as_its_jsonl() {
    let dir = tempfile::tempdir().expect("dir");
    let (pq, jl) = shard(dir.path());
    let a = bin().arg("validate").arg(&pq).assert().success();
    let out = stdout(&a);
    assert!(out.contains("176 records in 1 file"), "{out}");
    assert!(out.contains("(ragtruth)"), "{out}");
    let b = bin().arg("validate").arg(&jl).assert().success();
    let by_type = |s: &str| {
        s.lines()
            .find(|l| l.contains("records by corruption type"))
            .map(str::to_owned)
    };
    assert_eq!(by_type(&out), by_type(&stdout(&b)));
}

#[test]
fn validate_names_the_row_group_and_row_of_a_bad_record() {
    let dir = tempfile::tempdir().expect("dir");
    let mut recs = sample();
    // Row 70 of the file (row group 1, row 5): a span past the answer's end.
    recs[69]["hallucination_labels"] =
        json!([{"end": 9999, "label": "contradiction", "start": 0, "text": "x"}]);
    let pq = dir.path().join("x.parquet");
    fixture::write(&pq, &fixture::toolace_schema(), &recs, 64).expect("parquet");
    let a = bin().arg("validate").arg(&pq).assert().code(1);
    let out = stdout(&a);
    let want = format!("{}:70: row group 1, row 5: ", pq.display());
    assert!(out.contains(&want), "{out}");
}

#[test]
fn a_cut_short_or_misnamed_parquet_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("dir");
    let (pq, _) = shard(dir.path());
    let bytes = std::fs::read(&pq).expect("read");
    let cut = dir.path().join("cut.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).expect("cut");
    let html = dir.path().join("page.parquet");
    std::fs::write(&html, "<!DOCTYPE html><html>rate limited</html>\n").expect("html");
    for (f, why) in [
        (&cut, "a parquet file cut short"),
        (&html, "is named .parquet but is not a parquet file"),
    ] {
        for cmd in ["validate", "stats"] {
            let a = bin().arg(cmd).arg(f).assert().code(2);
            let err = stderr(&a);
            assert!(err.contains(&f.display().to_string()), "{cmd}: {err}");
            assert!(err.contains(why), "{cmd}: {err}");
        }
    }
}

#[test]
fn review_shows_the_first_parquet_record_at_once() {
    let dir = tempfile::tempdir().expect("dir");
    let (pq, _) = shard(dir.path());
    let ds = Dataset::open_lazy(std::slice::from_ref(&pq), None, Lazy::default()).expect("open");
    assert_eq!(ds.len(), 176);
    let log = Box::new(Rc::new(Store::open_in_memory().expect("db")));
    let mut app = App::new(
        ds,
        log,
        "tester",
        QueueKind::All,
        Config::defaults(true),
        None,
    )
    .expect("app");
    let mut t = Terminal::new(TestBackend::new(160, 40)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let cur = app.cur.as_ref().expect("a record");
    assert_eq!(cur.record.id, "toolace_train_00021__overgeneration");
    let buf = t.backend().buffer();
    let screen: String = (0..buf.area.height)
        .flat_map(|y| (0..buf.area.width).map(move |x| (x, y)))
        .map(|(x, y)| buf[(x, y)].symbol().to_owned())
        .collect();
    assert!(screen.contains("toolace_train_00021"), "{screen}");
}

/// `apply` on the parquet shard, then `export` from it: the decision saved and the span gone
/// from the JSONL written, the other records as the JSONL input's export has them.
#[test]
fn apply_then_export_from_parquet_writes_jsonl() {
    let dir = tempfile::tempdir().expect("dir");
    let (pq, jl) = shard(dir.path());
    let d = dir.path().join("d.jsonl");
    let line = json!({"record_id": QUOTE_ID, "action": "drop", "span_key": "gold:0"});
    std::fs::write(&d, format!("{line}\n")).expect("decisions");
    for (input, name) in [(&pq, "pq"), (&jl, "jl")] {
        let db = dir.path().join(format!("{name}.sqlite"));
        bin()
            .arg("apply")
            .arg(input)
            .arg("--decisions")
            .arg(&d)
            .arg("--db")
            .arg(&db)
            .args(["--reviewer", "ana"])
            .assert()
            .success();
        let log = Store::open(&db).expect("db").decisions(None).expect("log");
        assert_eq!(log.len(), 1);
        bin()
            .arg("export")
            .arg(input)
            .arg("--db")
            .arg(&db)
            .arg("--out")
            .arg(dir.path().join(format!("out-{name}.jsonl")))
            .assert()
            .success();
    }
    let from_pq = lines(&dir.path().join("out-pq.jsonl"));
    let from_jl = lines(&dir.path().join("out-jl.jsonl"));
    assert_eq!(from_pq.len(), 176);
    let quote = from_pq.iter().find(|r| r["id"] == QUOTE_ID).expect("quote");
    assert_eq!(quote["hallucination_labels"], json!([]));
    assert_eq!(quote["output"], QUOTE);
    for (a, b) in from_pq.iter().zip(&from_jl) {
        assert_eq!(a["id"], b["id"]);
        assert_eq!(
            a["hallucination_labels"], b["hallucination_labels"],
            "{}",
            a["id"]
        );
        assert_eq!(a["meta"]["tools"], b["meta"]["tools"], "{}", a["id"]);
    }
}

#[test]
fn export_writes_parquet_from_parquet_only_and_convert_refuses_it() {
    let dir = tempfile::tempdir().expect("dir");
    let (pq, jl) = shard(dir.path());
    let out = dir.path().join("reviewed.parquet");
    let a = bin()
        .arg("export")
        .arg(&jl)
        .arg("--db")
        .arg(dir.path().join("db.sqlite"))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains("parquet from a parquet input only"),
        "{}",
        stderr(&a)
    );
    assert!(!out.exists());
    let a = bin()
        .arg("convert")
        .arg(&pq)
        .args(["--to", "prodigy", "--out"])
        .arg(&out)
        .assert()
        .code(2);
    assert!(stderr(&a).contains("not parquet yet"), "{}", stderr(&a));
    assert!(!out.exists());
}

#[test]
fn stats_and_a_parquet_judge_read_it() {
    let dir = tempfile::tempdir().expect("dir");
    let (pq, jl) = shard(dir.path());
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let a = bin()
        .arg("stats")
        .arg(&jl)
        .arg("--json")
        .arg("--db")
        .arg(&db)
        .arg("--judge")
        .arg(format!("shard={}", pq.display()))
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&a.get_output().stdout).expect("json");
    let sources = v["sources"].as_array().expect("sources");
    let shard = sources
        .iter()
        .find(|s| s["name"] == "shard")
        .expect("the parquet judge is a source");
    assert_eq!(shard["overall"]["records"], 176, "{shard}");
    let a = bin()
        .arg("stats")
        .arg(&pq)
        .arg("--json")
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&a.get_output().stdout).expect("json");
    assert_eq!(v["sources"][0]["name"], "gold", "{v}");
}

#[test]
fn compare_of_parquet_records_equals_the_jsonl_one() {
    let dir = tempfile::tempdir().expect("dir");
    let (pq, jl) = shard(dir.path());
    let preds = data("toolace/ensemble/predictions_combined.jsonl");
    let a = compare_json(&[pq.as_os_str(), preds.as_os_str()]);
    let b = compare_json(&[jl.as_os_str(), preds.as_os_str()]);
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn convert_from_parquet_equals_convert_from_jsonl() {
    let dir = tempfile::tempdir().expect("dir");
    let (pq, jl) = shard(dir.path());
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    for (input, out) in [(&pq, &a), (&jl, &b)] {
        bin()
            .arg("convert")
            .arg(input)
            .args(["--to", "prodigy", "--out"])
            .arg(out)
            .assert()
            .success();
    }
    let (a, b) = (lines(&a), lines(&b));
    assert_eq!(a.len(), 176);
    let quote = a.iter().find(|r| r["text"] == QUOTE).expect("quote");
    assert_eq!(quote["spans"][0]["start"], 5, "code points");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x["text"], y["text"]);
        assert_eq!(x["spans"], y["spans"]);
    }
}
