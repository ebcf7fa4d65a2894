use super::*;
use crate::formats::judge_decisions::{Judgement, LabelCorrect};
use crate::judge::reply::{Claim, SpanVerdict};
use crate::model::{Record, Span};

fn claim(q: &str) -> Claim {
    Claim {
        quote: q.into(),
        label: "contradiction".into(),
        code: String::new(),
        reason: "r".into(),
    }
}

#[test]
fn quotes_are_placed_in_code_points_on_non_ascii_answers() {
    let output = "Tōkyō: 20°C, it’s SUNNY 👋 and 晴れ tomorrow";
    let r = Record::new(
        "a".into(),
        output.into(),
        vec![],
        vec![],
        serde_json::Value::Null,
    );
    let v = Verdict {
        unlabeled: vec![
            claim("晴れ"),
            claim("it's sunny"),
            claim("sunny 👋 and 晴れ tomorow"),
            claim("rainy in Osaka"),
        ],
        ..Verdict::default()
    };
    let (ls, unplaced) = lines(&r, &v, "raw", "m", 0.8);
    assert_eq!(ls.len(), 4);
    let p = |i: usize| &ls[i]["extra_placed"];
    assert_eq!(
        (
            p(0)["start"].clone(),
            p(0)["end"].clone(),
            p(0)["match"].clone()
        ),
        (json!(30), json!(32), json!("exact"))
    );
    assert_eq!(p(0)["text"], json!("晴れ"));
    // `it's` against `it’s` and SUNNY: not exact, not case-insensitive; fuzzy (curly quotes
    // count as straight ones there).
    assert_eq!(p(1)["match"], json!("fuzzy"));
    assert_eq!(p(1)["text"], json!("it’s SUNNY"));
    // A typo: fuzzy, with its score below 1.
    assert_eq!(p(2)["match"], json!("fuzzy"));
    assert_eq!(p(2)["text"], json!("SUNNY 👋 and 晴れ tomorrow"));
    assert!(
        p(2)["similarity"]
            .as_f64()
            .is_some_and(|s| s > 0.8 && s < 1.0),
        "{}",
        p(2)
    );
    assert_eq!(p(3)["match"], json!("not_found"));
    assert_eq!(unplaced, ["rainy in Osaka"]);
    // Each claim line reads back as a claim with its quote.
    for l in &ls {
        let j = Judgement::from_line(l.as_object().expect("obj")).expect("judgement");
        assert!(j.extra_hallucination);
        assert_eq!(j.label_correct, LabelCorrect::Unknown);
    }
}

#[test]
fn each_labeled_span_gets_its_line_and_a_skipped_one_says_so() {
    let output = "東京 is 20°C";
    let gold = vec![
        Span::new(output, 0, 2, "contradiction"),
        Span::new(output, 6, 10, "overgeneration"),
    ];
    let r = Record::new(
        "b".into(),
        output.into(),
        gold,
        vec![],
        serde_json::Value::Null,
    );
    let v = Verdict {
        labeled: vec![SpanVerdict {
            span: 1,
            label_correct: "false",
            code: "H2".into(),
            reason: "supported".into(),
        }],
        ..Verdict::default()
    };
    let (ls, unplaced) = lines(&r, &v, "{\"labeled\": []}", "m", 0.8);
    assert!(unplaced.is_empty());
    assert_eq!(ls.len(), 2);
    assert_eq!(
        ls[0]["labeled_span"],
        json!({"start": 0, "end": 2, "label": "contradiction", "text": "東京"})
    );
    assert_eq!(ls[0]["judge"]["label_correct"], json!("unknown"));
    assert_eq!(
        ls[0]["judge"]["reasoning"],
        json!("the reply gave no verdict on this span")
    );
    assert_eq!(ls[1]["judge"]["label_correct"], json!("false"));
    assert_eq!(ls[1]["judge"]["reasoning"], json!("H2: supported"));
    assert_eq!(ls[1]["judge_raw"], json!("{\"labeled\": []}"));
    // A record with no span and no claim still gets its line (a clean verdict).
    let clean = Record::new(
        "c".into(),
        output.into(),
        vec![],
        vec![],
        serde_json::Value::Null,
    );
    let (ls, _) = lines(&clean, &Verdict::default(), "", "m", 0.8);
    assert_eq!(ls.len(), 1);
    assert_eq!(ls[0]["labeled_span"], Value::Null);
}
