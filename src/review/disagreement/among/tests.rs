//! `--dispute-among` on hand-built sources over non-ASCII text: a detector alone disagreeing
//! with the gold disputes nothing once a reviewer or judge is there, and counts when named.

use super::*;
use crate::model::Span;

/// Twelve code points: `25°C à 東京 👋 ok`.
const OUT: &str = "25°C à 東京 👋 ok";

fn src(name: &str, role: SourceRole, spans: &[(usize, usize, &str)]) -> Source {
    let spans = spans
        .iter()
        .map(|&(s, e, l)| Span::new(OUT, s, e, l))
        .collect();
    Source::new(name.to_owned(), role, spans)
}

/// gold marks `東京` [7, 9); the reviewer agrees; the detector marks `25°C` [0, 4) too.
fn sources() -> Vec<Source> {
    vec![
        src("gold", SourceRole::Gold, &[(7, 9, "contradiction")]),
        src(
            "reviewer:ana",
            SourceRole::Annotator,
            &[(7, 9, "contradiction")],
        ),
        src("ensemble", SourceRole::Detector, &[(0, 4, ""), (7, 9, "")]),
    ]
}

fn disputed(among: &Among, humans: bool) -> Vec<(usize, usize)> {
    cluster_among(OUT, &sources(), &[], &Options::default(), among, humans)
        .disputed()
        .map(|(_, c)| (c.start, c.end))
        .collect()
}

#[test]
fn by_default_detectors_show_but_do_not_dispute() {
    let d = cluster_among(
        OUT,
        &sources(),
        &[],
        &Options::default(),
        &Among::Default,
        false,
    );
    // The detector's lone span still makes a cluster (a lane, evidence) ...
    assert_eq!(d.clusters.len(), 2);
    assert_eq!(d.clusters[0].source(2).map(|s| s.spans.len()), Some(1));
    // ... but nothing is disputed: the gold and the reviewer agree.
    assert!(!d.is_disputed());
    assert_eq!(disputed(&Among::Default, true), []);
}

#[test]
fn named_sources_and_globs_count() {
    let all = Among::parse("*").expect("spec");
    assert_eq!(disputed(&all, true), [(0, 4)]);
    let det = Among::parse("reviewer:*, ens*").expect("spec");
    assert_eq!(disputed(&det, true), [(0, 4)]);
    let rev = Among::parse("reviewer:*").expect("spec");
    assert_eq!(disputed(&rev, true), []);
    // The disputed characters are the counted sources' own.
    let d = cluster_among(OUT, &sources(), &[], &Options::default(), &det, true);
    assert_eq!(d.clusters[0].disputed_ranges, [(0, 4)]);
}

#[test]
fn with_detectors_alone_every_source_counts() {
    let only = vec![sources().remove(0), sources().remove(2)];
    let d = cluster_among(OUT, &only, &[], &Options::default(), &Among::Default, false);
    assert!(d.is_disputed());
    // ... unless the session has a reviewer or judge elsewhere.
    let d = cluster_among(OUT, &only, &[], &Options::default(), &Among::Default, true);
    assert!(!d.is_disputed());
}

#[test]
fn an_empty_name_is_refused_quoting_the_spec() {
    let e = Among::parse("llm,,reviewer:*").expect_err("refused");
    assert!(e.contains("\"llm,,reviewer:*\""), "{e}");
}
