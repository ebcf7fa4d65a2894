//! `spanreview triage`: the planted code-agent samples (tests/fixtures/triage/make.py), each
//! with one defect or none, give exactly their planted codes; the flags apply, and
//! `--queue flagged` shows their reasons.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::{json, Value};
use spanreview::store::Store;
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::queue::QueueKind;

use super::app_harness::{open, render};
use super::common::{bin, fixture, lines, write};

/// Run triage on `input`, flags into `out`; its exit code and standard output.
fn triage(input: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> (i32, String) {
    let o = bin()
        .arg("triage")
        .arg(input)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

/// Record id → the codes of its flags, sorted.
fn codes(flags: &[Value]) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in flags {
        assert_eq!(f["action"], "flag");
        assert_eq!(f["flag_on"], true);
        let reason = f["reason"].as_str().expect("reason");
        let (code, why) = reason.split_once(": ").expect("CODE: explanation");
        assert!(!why.is_empty(), "{reason}");
        m.entry(f["record_id"].as_str().expect("id").to_owned())
            .or_default()
            .push(code.to_owned());
    }
    m
}

#[test]
fn each_planted_defect_has_its_code_and_the_controls_none() {
    let input = fixture("triage/code_agent.jsonl");
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("flags.jsonl");
    let (code, summary) = triage(&input, &out, &["--json"]);
    assert_eq!(code, 0, "{summary}");
    let got = codes(&lines(&out));
    let mut want: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in lines(&input) {
        let meta: Value =
            serde_json::from_str(r["metadata"].as_str().expect("metadata")).expect("json");
        if let Some(c) = meta["expect"].as_str() {
            want.insert(r["id"].as_str().expect("id").to_owned(), vec![c.to_owned()]);
        }
    }
    assert_eq!(want.len(), 6, "every code is planted once");
    assert_eq!(got, want);
    let s: Value = serde_json::from_str(&summary).expect("summary json");
    assert_eq!(s["records"], 10);
    assert_eq!(s["flagged_records"], 6);
    assert_eq!(s["findings"], 6);
    assert_eq!(s["by_code"]["boundary-not-minimal"], 1);
}

#[test]
fn flags_apply_and_the_flagged_queue_shows_their_reasons() {
    let input = fixture("triage/code_agent.jsonl");
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("flags.jsonl");
    assert_eq!(triage(&input, &out, &[]).0, 0);
    let db = dir.path().join("team.sqlite");
    let applied = bin()
        .args(["apply"])
        .arg(&input)
        .arg("--decisions")
        .arg(&out)
        .arg("--db")
        .arg(&db)
        .output()
        .expect("apply");
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let store = Rc::new(Store::open(&db).expect("db"));
    let mut app = open(&[input], &store, QueueKind::Flagged, ArbConfig::default());
    let screen = render(&mut app, 200, 50);
    assert!(screen.contains("flagged"), "{screen}");
    // The first flagged record in file order is the span-in-context one.
    assert!(
        screen.contains("⚑ gold:0 span-in-context: a fabricated reference whose text “to_celsius”"),
        "{screen}"
    );
}

#[test]
fn ragtruth_records_get_the_checks_that_make_sense() {
    // A contradiction whose value the tool response states, and one starting mid-word; the
    // other span is fine. Non-ASCII before the spans: offsets are code points.
    let dir = tempfile::tempdir().expect("tmp");
    let output = "Le café’s 東京 office: 25°C, sunny; wind 12 km/h.";
    let at = |t: &str| output[..output.find(t).expect("in output")].chars().count();
    let span = |t: &str| {
        let s = at(t);
        json!({"start": s, "end": s + t.chars().count(), "text": t, "label": "contradiction"})
    };
    let rec = json!({
        "id": "r1__contradiction", "query": "weather?",
        "context": r#"{"content": {"temp": "25°C", "wind": "10 km/h"}, "name": "weather", "role": "tool"}"#,
        "output": output,
        "hallucination_labels": [span("25°C"), span("ind 12"), span("12 km/h")],
        "meta": {"corruption_type": "contradiction", "base_id": "r1"}
    });
    let input = write(dir.path(), "records.jsonl", &[rec]);
    let out = dir.path().join("flags.jsonl");
    assert_eq!(triage(&input, &out, &[]).0, 0);
    let flags = lines(&out);
    let got: Vec<(String, String)> = flags
        .iter()
        .map(|f| {
            let r = f["reason"].as_str().expect("reason");
            (
                f["span_key"].as_str().expect("key").to_owned(),
                r.split(':').next().expect("code").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("gold:0".to_owned(), "span-in-context".to_owned()),
            ("gold:1".to_owned(), "boundary-midword".to_owned()),
        ]
    );
}

#[test]
fn the_span_list_says_where_a_code_span_and_the_old_block_stand_in_the_context() {
    let input = fixture("triage/code_agent.jsonl");
    let store = super::app_harness::mem();
    let mut app = open(&[input], &store, QueueKind::All, ArbConfig::default());
    let mut seen = Vec::new();
    for _ in 0..10 {
        let screen = render(&mut app, 300, 50);
        let id = super::app_harness::id(&app);
        let line = screen
            .lines()
            .find(|l| l.contains('⌕'))
            .map(|l| l.split('⌕').nth(1).unwrap_or("").trim().to_owned());
        seen.push((id, line.unwrap_or_default()));
        super::app_harness::feed(&mut app, &[spanreview::tui::Action::NextRecord]);
    }
    let of = |id: &str| {
        seen.iter()
            .find(|(i, _)| i == id)
            .map(|(_, l)| l.clone())
            .unwrap_or_else(|| panic!("{id} not shown: {seen:?}"))
    };
    // The fabricated name the repository has: found once, on the file's first code line.
    assert!(
        of("planted-span-in-context").starts_with("text in the context once (line 3)"),
        "{seen:?}"
    );
    assert!(
        of("clean-fabricated-absent").starts_with("text not in the context"),
        "{seen:?}"
    );
    // An edit's old block: verbatim, or the nearest line and where it differs.
    assert!(
        of("clean-edit-number").contains("old block verbatim at context line 5"),
        "{seen:?}"
    );
    assert!(
        of("planted-misquote").contains(
            "old block NOT in the context: its line 1 ≈ context line 5, differs at code point 14"
        ),
        "{seen:?}"
    );
}
