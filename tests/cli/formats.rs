//! The format readers and writers on real files: every record parses, and writing it back with
//! its spans unchanged gives the input again, as a JSON value, record by record.

use std::path::{Path, PathBuf};

use spanreview::formats::judge_decisions::{Judgement, LabelCorrect};
use spanreview::formats::{DataFile, Dataset, Format};
use spanreview::model::{SourceRole, Span};

use crate::common::{data, fixture, shared};

/// Parse every record of `path` and write it back unchanged; returns the number of records.
fn round_trip(path: &Path, want: Format) -> usize {
    let file = DataFile::open(path, None, None).expect("open");
    assert_eq!(file.format, want, "{}", path.display());
    for i in 0..file.len() {
        let value = file.value(i).expect("json");
        let rec = file.record(i).expect("record");
        let again = file.format.write(&value, rec.gold_spans(), None);
        assert_eq!(again, value, "{}:{}", path.display(), file.line(i));
        // Setting the type a record already has changes nothing either.
        let typed = file
            .format
            .write(&value, rec.gold_spans(), rec.corruption_type.as_deref());
        assert_eq!(typed, value, "{}:{} (typed)", path.display(), file.line(i));
        // The same holds for the serialised text: key order is kept.
        assert_eq!(
            serde_json::to_string(&again).expect("ser"),
            serde_json::to_string(&value).expect("ser")
        );
    }
    file.len()
}

fn jsonl_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn bundled_data_round_trips() {
    assert_eq!(
        round_trip(
            &data("toolace/test_records_reconstructed.jsonl"),
            Format::Ragtruth
        ),
        175
    );
    for det in ["ensemble", "modernbert_ft"] {
        let p = data(&format!("toolace/{det}/predictions_combined.jsonl"));
        assert_eq!(round_trip(&p, Format::Predictions), 235);
    }
}

#[test]
fn shared_toolace_files_round_trip() {
    let Some(dir) = shared("toolace") else {
        return;
    };
    let files = jsonl_under(&dir);
    assert!(files.len() >= 9, "{files:?}");
    for p in files {
        let want = if p.to_string_lossy().contains("derived") {
            Format::Ragtruth
        } else {
            Format::Predictions
        };
        assert!(round_trip(&p, want) > 0, "{}", p.display());
    }
}

#[test]
fn mushroom_files_round_trip() {
    let Some(dir) = shared("multilingual/mushroom") else {
        return;
    };
    let files = jsonl_under(&dir);
    assert_eq!(files.len(), 14);
    for p in files {
        assert!(round_trip(&p, Format::Mushroom) >= 49, "{}", p.display());
    }
}

#[test]
fn mushroom_keeps_real_defects() {
    let (Some(en), Some(hi)) = (
        shared("multilingual/mushroom/val_v2/mushroom.en-val.v2.extra.jsonl"),
        shared("multilingual/mushroom/val_v2/mushroom.hi-val.v2.extra.jsonl"),
    ) else {
        return;
    };
    let file = DataFile::open(&en, None, None).expect("open");
    let rec = (0..file.len())
        .map(|i| file.record(i).expect("record"))
        .find(|r| r.id == "val-en-34")
        .expect("val-en-34");
    let ann = rec.source("annotator_1fbf607dd218221a").expect("annotator");
    assert_eq!(ann.role, SourceRole::Annotator);
    let last = ann.spans.last().expect("spans");
    assert_eq!((last.start, last.end), (301, 373), "out-of-range span kept");
    assert_eq!(rec.output.chars().count(), 372);

    let file = DataFile::open(&hi, None, None).expect("open");
    let rec = (0..file.len())
        .map(|i| file.record(i).expect("record"))
        .find(|r| r.id == "val-hi-7")
        .expect("val-hi-7");
    let g = &rec.gold_spans()[2];
    assert_eq!((g.start, g.end), (95, 194));
    assert!(g.text.ends_with('ह'), "{:?}", g.text);
    assert_eq!(rec.output.chars().nth(194), Some('\u{948}'));
    // Empty annotator spans are kept too (val-en-1 has [69, 69]).
    let file = DataFile::open(&en, None, None).expect("open");
    let first = file.record(0).expect("record");
    assert!(first
        .sources
        .iter()
        .any(|s| s.role == SourceRole::Annotator && s.spans.iter().any(Span::is_empty)));
}

#[test]
fn truncated_lettuce_array_keeps_three_records_and_reports_the_line() {
    let p = fixture("formats/lettuce_tr_test_small.json");
    let file = DataFile::open(&p, None, None).expect("open");
    assert_eq!(file.format, Format::Lettuce);
    assert_eq!(file.len(), 3);
    assert_eq!(file.index.problems.len(), 1);
    let (line, msg) = &file.index.problems[0];
    assert_eq!(*line, 40, "the 4th element starts on line 40");
    assert!(msg.contains("truncated"), "{msg}");
    let third = file.record(2).expect("record");
    let spans = third.gold_spans();
    assert_eq!(spans.len(), 2);
    assert_eq!(spans[0].label, "Evident Conflict");
    assert_eq!(spans[0].text.chars().count(), 596 - 545);
    assert_eq!(round_trip(&p, Format::Lettuce), 3);
}

#[test]
fn decisions_round_trip_and_join_onto_records() {
    let p = fixture("formats/decisions.jsonl");
    assert_eq!(round_trip(&p, Format::Decisions), 7);
    let records = data("toolace/test_records_reconstructed.jsonl");
    let ds = Dataset::open(&[records, p], None).expect("dataset");
    let mut judged = 0;
    for i in 0..ds.len() {
        let rec = ds.record(i).expect("record");
        let Some(judge) = rec.source("decisions") else {
            continue;
        };
        judged += 1;
        assert_eq!(judge.role, SourceRole::Judge);
        for s in &judge.spans {
            let verdict = Judgement::of(s).expect("verdict");
            if rec.id == "toolace_train_00021__overgeneration" {
                assert_eq!(judge.spans.len(), 2, "two lines share this id");
            }
            if rec.id == "toolace_train_00027__clean" {
                assert_eq!(verdict.label_correct, LabelCorrect::Unknown);
                assert!(verdict.extra_hallucination);
            }
            if !s.is_empty() {
                // The judged span is one of the record's own labels.
                assert!(rec
                    .gold_spans()
                    .iter()
                    .any(|g| (g.start, g.end, &g.text) == (s.start, s.end, &s.text)));
                assert!(s.text_matches(&rec.output));
            }
        }
    }
    assert_eq!(judged, 6, "6 distinct ids in the fixture");
}

#[test]
fn writer_replaces_gold_and_type_only() {
    let p = data("toolace/test_records_reconstructed.jsonl");
    let file = DataFile::open(&p, None, None).expect("open");
    let value = file.value(0).expect("json");
    let rec = file.record(0).expect("record");
    let mut gold = rec.gold_spans().to_vec();
    gold.remove(0);
    gold[0].start += 1; // tighten: text follows the output
    gold.push(Span::new(&rec.output, 0, 4, "contradiction"));
    let out = Format::Ragtruth.write(&value, &gold, Some("contradiction"));
    let labels = out["hallucination_labels"].as_array().expect("list");
    assert_eq!(labels.len(), 2);
    assert_eq!(
        labels[0]["text"],
        "our generated password is: **H4G8fb9A3eKt2LpO**"
    );
    assert_eq!(
        labels[1].to_string(),
        r#"{"end":4,"label":"contradiction","start":0,"text":"Your"}"#
    );
    assert_eq!(out["meta"]["corruption_type"], "contradiction");
    let keys = |v: &serde_json::Value| {
        v.as_object()
            .expect("obj")
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&out), keys(&value));
    assert_eq!(keys(&out["meta"]), keys(&value["meta"]));
    for k in ["id", "query", "context", "output"] {
        assert_eq!(out[k], value[k]);
    }
    assert_eq!(out["meta"]["tools"], value["meta"]["tools"]);
}

#[test]
fn a_missing_input_is_named_with_its_cause_once() {
    // The library's errors quote their cause; the binary must not print it a second time.
    for cmd in ["validate", "compare", "review"] {
        let out = crate::common::bin()
            .args([cmd, "/nonexistent/file.jsonl"])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("/nonexistent/file.jsonl"), "{cmd}: {err}");
        assert_eq!(err.matches("(os error 2)").count(), 1, "{cmd}: {err}");
    }
}

/// The join fixtures: three records with non-ASCII answers, and a prediction file whose second
/// line was made on another version of the answer (`fährt` → `fahrt`, before the span).
fn join_mismatch() -> (PathBuf, PathBuf) {
    (
        fixture("formats/join_mismatch_records.jsonl"),
        fixture("formats/join_mismatch_preds.jsonl"),
    )
}

#[test]
fn a_joined_line_with_another_answer_text_attaches_no_span_and_says_where() {
    use spanreview::formats::judges::SpanReader;
    let (records, preds) = join_mismatch();
    let ds = Dataset::open(&[records, preds.clone()], None).expect("dataset");
    assert_eq!(ds.len(), 3);
    let det = "join_mismatch_preds";
    for i in [0, 2] {
        let rec = ds.record(i).expect("record");
        assert!(rec.warnings.is_empty(), "{}: {:?}", rec.id, rec.warnings);
        let src = rec.source(det).expect("matching line attaches");
        assert_eq!(src.role, SourceRole::Detector);
        assert_eq!(src.spans.len(), 1);
        assert!(src.spans[0].text_matches(&rec.output));
    }
    let rec = ds.record(1).expect("record");
    assert_eq!(rec.id, "jm_b");
    assert!(rec.source(det).is_none(), "{:?}", rec.sources);
    assert_eq!(rec.gold_spans().len(), 1, "the record's own labels stay");
    assert_eq!(rec.warnings.len(), 1, "{:?}", rec.warnings);
    let w = &rec.warnings[0];
    assert!(
        w.contains(&format!("{}:2:", preds.display())),
        "file and line: {w}"
    );
    assert!(w.contains("at character 9 "), "code-point position: {w}");
    assert!(
        w.contains("fahrt") && w.contains("fährt"),
        "quotes both: {w}"
    );
    assert!(w.contains("not attached"), "{w}");
    // The fast reader used for clustering follows the same rule.
    let paths: Vec<PathBuf> = ds.files().map(|f| f.path().to_path_buf()).collect();
    for reader in [
        SpanReader::new(&ds),
        SpanReader::open(&paths, None).expect("open"),
    ] {
        for i in 0..ds.len() {
            let full = ds.record(i).expect("full");
            let skim = reader.record(i).expect("skim");
            assert_eq!(skim.sources, full.sources, "{}", full.id);
            assert_eq!(skim.warnings, full.warnings, "{}", full.id);
        }
    }
}

#[test]
fn a_prediction_file_that_repeats_an_id_names_its_lines() {
    let (records, _) = join_mismatch();
    let dup = fixture("formats/join_mismatch_preds_dup.jsonl");
    let ds = Dataset::open(&[records, dup.clone()], None).expect("dataset");
    let a = ds.record(0).expect("record");
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    let c = ds.record(2).expect("record");
    assert_eq!(c.id, "jm_c");
    let src = c.source("join_mismatch_preds_dup").expect("joined");
    assert_eq!(src.spans.len(), 2, "both lines' spans are still merged");
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    let w = &c.warnings[0];
    assert!(w.contains(&dup.display().to_string()), "{w}");
    assert!(w.contains("lines (1, 3)"), "{w}");
    assert!(w.contains("\"jm_c\""), "{w}");
}
