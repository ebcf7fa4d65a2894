//! The arbitration screen's upheld rule against the oracle's: issue 21's defect 6 lives in
//! [`settle`], which decides whom a resolution upholds as the screen saves it, so each of the
//! oracle's resolutions is settled here through the library, on the sources and judge verdict the
//! oracle drew, and the two verdicts compared.

use std::collections::BTreeMap;

use serde_json::Value;
use spanreview::model::{Record, Source, SourceRole, Span};
use spanreview::review::disagreement::{
    cluster_judged, settle, Claim, Cluster, JudgeVerdict, Options,
};

use super::strings;

/// The arbitration screen's own rule ([`settle`]) on each resolution the oracle drew: the
/// record's sources and the judge's verdict clustered as the screen clusters them, the oracle's
/// result settled on the cluster, and whom that upholds and dismisses against issue 21's rule.
pub(super) fn upheld_rule(
    expected: &Value,
    records: &BTreeMap<String, Record>,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for r in expected["resolutions"].as_array().expect("resolutions") {
        let id = r["record"].as_str().expect("record");
        let output = &records[id].output;
        let span = |s: &Value| {
            let n = |i: usize| usize::try_from(s[i].as_u64().expect("offset")).expect("offset");
            Span::new(output, n(0), n(1), s[2].as_str().expect("label"))
        };
        let sources: Vec<Source> = r["sources"]
            .as_object()
            .expect("sources")
            .iter()
            .map(|(name, spans)| {
                let role = if name == "gold" {
                    SourceRole::Gold
                } else {
                    SourceRole::Annotator
                };
                let spans = spans.as_array().expect("spans").iter().map(span).collect();
                Source::new(name.clone(), role, spans)
            })
            .collect();
        let verdicts: Vec<JudgeVerdict> = r["judge"]
            .as_object()
            .map(|j| {
                let l = &r["labeled_span"];
                let at = |k: &str| usize::try_from(l[k].as_u64()?).ok();
                let extra = j["extra_text"].as_str().filter(|t| !t.is_empty());
                vec![JudgeVerdict {
                    source: "llm".to_owned(),
                    gold_span: at("start").zip(at("end")),
                    label_correct: match j["label_correct"].as_str() {
                        Some("true") => Some(true),
                        Some("false") => Some(false),
                        _ => None,
                    },
                    extra: extra.map(|t| Claim::locate(output, t)),
                    reasoning: String::new(),
                }]
            })
            .unwrap_or_default();
        let d = cluster_judged(output, &sources, &verdicts, &Options::default());
        let c = (r["cluster"][0].as_u64(), r["cluster"][1].as_u64());
        let inside = |k: &&Cluster| {
            let (a, b) = (k.start as u64, k.end as u64);
            c.0.is_some_and(|s| s < b) && c.1.is_some_and(|e| a < e)
        };
        let at: Vec<usize> = (0..d.clusters.len())
            .filter(|&i| inside(&&d.clusters[i]))
            .collect();
        // Only where the screen clusters the oracle's cluster as one.
        let [i] = at[..] else { continue };
        let result: Vec<Span> = r["result"]
            .as_array()
            .expect("result")
            .iter()
            .map(span)
            .collect();
        let Some(o) = settle(output, &sources, &d, i, result) else {
            continue;
        };
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        let got = (sorted(o.upheld), sorted(o.dismissed));
        let want = (
            strings(&r["upheld"]).into_iter().collect::<Vec<_>>(),
            strings(&r["dismissed"]).into_iter().collect::<Vec<_>>(),
        );
        if got != want {
            let c = &r["cluster"];
            let res = &r["result"];
            out.push((
                "upheld-rule",
                format!("{id} cluster {c} settled to {res}: the screen upholds {:?} and dismisses {:?}, oracle {:?} / {:?}", got.0, got.1, want.0, want.1),
            ));
        }
    }
    out
}

/// The comparison catches a resolution whose upheld and dismissed sources are swapped.
#[test]
fn the_screen_rule_comparison_catches_a_swapped_vote() {
    let dir = tempfile::tempdir().expect("tmp");
    if !super::oracle(dir.path(), 1) {
        return;
    }
    let text = std::fs::read_to_string(dir.path().join("expected.json")).expect("expected");
    let mut expected: Value = serde_json::from_str(&text).expect("expected JSON");
    let records: BTreeMap<String, Record> =
        super::super::common::records(&super::data("toolace/test_records_reconstructed.jsonl"))
            .into_iter()
            .map(|r| (r.id.clone(), r))
            .collect();
    let before: Vec<String> = upheld_rule(&expected, &records)
        .into_iter()
        .map(|(_, w)| w)
        .collect();
    let said = |r: &Value| {
        format!(
            "{} cluster {} ",
            r["record"].as_str().unwrap_or(""),
            r["cluster"]
        )
    };
    // A resolution both rules agree on, its vote swapped: the comparison must now name it.
    let list = expected["resolutions"].as_array_mut().expect("resolutions");
    let r = list
        .iter_mut()
        .find(|r| {
            let named = said(r);
            r["upheld"].as_array().is_some_and(|u| !u.is_empty())
                && !before.iter().any(|w| w.starts_with(&named))
        })
        .expect("a resolution the screen and the oracle agree on");
    let up = r["upheld"].clone();
    r["upheld"] = r["dismissed"].clone();
    r["dismissed"] = up;
    let named = said(r);
    let after = upheld_rule(&expected, &records);
    assert!(
        after
            .iter()
            .any(|(t, w)| *t == "upheld-rule" && w.starts_with(&named)),
        "{named}: {after:#?}"
    );
}
