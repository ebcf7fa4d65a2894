use super::*;
use crate::review::locate::MatchKind;
use crate::test_util::gold_record;
use serde_json::json;

fn judge_span(line: serde_json::Value) -> Span {
    let mut s = Span::new("", 0, 0, "");
    if let Some(ls) = line.get("labeled_span").and_then(|v| v.as_object()) {
        s.start = usize::try_from(ls["start"].as_u64().unwrap_or(0)).unwrap_or(0);
        s.end = usize::try_from(ls["end"].as_u64().unwrap_or(0)).unwrap_or(0);
    }
    s.raw = line.as_object().cloned().unwrap_or_default();
    s
}

fn record(output: &str, gold: Vec<Span>, extra: Vec<Source>) -> Record {
    let mut rec = gold_record("r", output, Some("contradiction"), gold);
    rec.sources.extend(extra);
    rec
}

#[test]
fn spans_made_on_another_answer_text_are_not_attached() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("predictions_det.jsonl");
    let same = "Il fait 25°C à 東京 🙂 — e\u{301}té.";
    let line = |id: &str, output: &str| {
        json!({"id": id, "output": output, "gold_spans": [],
               "pred_spans": [{"start": 8, "end": 12, "text": "25°C"}]})
        .to_string()
    };
    // r2's answer in the file lost one character before the span: its offsets are off.
    // Line 4 repeats r1 on another answer text: left out and named, r1 keeps line 1's.
    let text = [
        line("r1", same),
        line("r2", &same.replacen('I', "", 1)),
        line("r3", same),
        line("r1", &format!("XX{same}")),
    ]
    .join("\n");
    std::fs::write(&path, text + "\n").expect("write");
    let spec = JudgeSpec {
        name: "det".into(),
        path: path.clone(),
    };
    let (sources, problems) = read_file(&spec, Format::Predictions).expect("read");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(&format!(
            "{}:4: the id \"r1\" is also on line 1 with another answer text",
            path.display()
        )),
        "{problems:?}"
    );
    assert_eq!(sources[0].answers.len(), 3);
    assert_eq!(sources[0].spans["r1"].len(), 1, "line 4's span left out");
    let judges = Judges {
        sources,
        agreed: HashSet::new(),
    };
    let mut attached = Vec::new();
    for id in ["r1", "r2", "r3"] {
        let mut r = record(same, Vec::new(), Vec::new());
        r.id = id.into();
        judges.attach(&mut r);
        attached.push((r.source("det").is_some(), r.warnings));
    }
    assert!(attached[0].0 && attached[0].1.is_empty());
    assert!(attached[2].0 && attached[2].1.is_empty());
    assert!(!attached[1].0, "r2's spans were made on another answer");
    assert_eq!(attached[1].1.len(), 1);
    let w = &attached[1].1[0];
    assert!(
        w.starts_with(&format!("{}:2: the answer text differs", path.display())),
        "{w}"
    );
    assert!(w.contains("the spans of det were not attached"), "{w}");
}

#[test]
fn specs_parse_and_refuse_bad_ones() {
    let f = tempfile::NamedTempFile::new().expect("tmp");
    let p = f.path().display().to_string();
    let s: JudgeSpec = format!("ens={p}").parse().expect("spec");
    assert_eq!(s.name, "ens");
    for bad in [
        "ens".to_owned(),
        format!("={p}"),
        "ens=".to_owned(),
        "ens=/no/such/file".to_owned(),
        format!("gold={p}"),
        format!("a/b={p}"),
    ] {
        assert!(bad.parse::<JudgeSpec>().is_err(), "{bad}");
    }
}

#[test]
fn verdicts_locate_claims_and_keep_unplaced_ones() {
    let out = "It is 25°C and Rainy today in Paris.";
    let line = |correct: &str, extra: bool, text: &str| {
        judge_span(
            json!({"id": "r", "labeled_span": {"start": 15, "end": 20, "text": "Rainy",
            "label": "contradiction"}, "judge": {"label_correct": correct,
            "extra_hallucination": extra, "extra_text": text, "reasoning": "because"}}),
        )
    };
    let judge = Source::new(
        "j",
        SourceRole::Judge,
        vec![
            line("false", true, "rainy today"),
            line("true", true, "nothing like this at all"),
            line("unknown", false, "ignored"),
        ],
    );
    let r = record(
        out,
        vec![Span::new(out, 15, 20, "contradiction")],
        vec![judge],
    );
    let v = verdicts(&r);
    assert_eq!(v.len(), 3);
    assert_eq!(v[0].label_correct, Some(false));
    assert_eq!(v[0].gold_span, Some((15, 20)));
    let l = v[0].extra.as_ref().and_then(|c| c.located).expect("placed");
    assert_eq!(
        (l.start, l.end, l.kind),
        (15, 26, MatchKind::CaseInsensitive)
    );
    assert_eq!(v[1].extra.as_ref().map(|c| c.located), Some(None));
    assert_eq!(v[2].label_correct, None);
    assert!(v[2].extra.is_none());
    let a = Arbitration::of(&r, &Options::default());
    assert_eq!(a.disagreement.unplaced.len(), 1);
    assert_eq!(a.disagreement.judge_disputes, 1);
}

#[test]
fn unknown_detector_labels_make_no_label_dispute() {
    let out = "The hotel has a rooftop pool.";
    let gold = vec![Span::new(out, 4, 9, "contradiction")];
    let det = |label: &str| {
        Source::new(
            "det",
            SourceRole::Detector,
            vec![Span::new(out, 4, 9, label)],
        )
    };
    let r = record(out, gold.clone(), vec![det("ensemble")]);
    assert!(!Arbitration::of(&r, &Options::default())
        .disagreement
        .is_disputed());
    let r = record(out, gold, vec![det("overgeneration")]);
    assert!(Arbitration::of(&r, &Options::default())
        .disagreement
        .is_disputed());
}
