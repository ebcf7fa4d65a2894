//! Tests of the metric core: character counts on non-ASCII answers, kappa, P/R/F1, the
//! label-aware figures and the per-label rows.

use super::*;
use crate::model::{Source, SourceRole, GOLD};
use crate::test_util::gold_record;
use rstest::rstest;

fn spans(v: &[(usize, usize)]) -> Vec<Span> {
    v.iter()
        .map(|&(start, end)| Span {
            start,
            end,
            text: String::new(),
            label: "x".into(),
            category: None,
            subcategory: None,
            confidence: None,
            raw: serde_json::Map::new(),
        })
        .collect()
}

/// (output, A, B) → (tp, fp, fn, invalid A, invalid B)
#[rstest]
// ASCII, exact match
#[case("abcdef", &[(0, 3)], &[(0, 3)], (3, 0, 0, 0, 0))]
// ° is one code point (two UTF-8 bytes): "25°C" is [6, 10)
#[case("It is 25°C and rainy", &[(6, 10)], &[(5, 10)], (4, 1, 0, 0, 0))]
// ’ (three bytes)
#[case("it’s fine", &[(0, 4)], &[(2, 9)], (2, 5, 2, 0, 0))]
// CJK
#[case("東京は晴れです", &[(3, 5)], &[(2, 4)], (1, 1, 1, 0, 0))]
// emoji (astral: one code point, two UTF-16 units, four bytes)
#[case("hi 👋 there", &[(3, 4)], &[(3, 10)], (1, 6, 0, 0, 0))]
// combining mark: e + U+0301 are two code points
#[case("cafe\u{301} ok", &[(3, 5)], &[(4, 5)], (1, 0, 1, 0, 0))]
// nested spans count each character once
#[case("abcdefghij", &[(0, 10), (2, 4)], &[(3, 5), (4, 6)], (3, 0, 7, 0, 0))]
// overlapping
#[case("abcdefghij", &[(0, 5), (3, 8)], &[(7, 10)], (1, 2, 7, 0, 0))]
// adjacent spans merge without double counting
#[case("abcdefghij", &[(0, 3), (3, 6)], &[(2, 4)], (2, 0, 4, 0, 0))]
// duplicates
#[case("abcdef", &[(1, 3), (1, 3)], &[(1, 3)], (2, 0, 0, 0, 0))]
// empty inputs
#[case("", &[], &[], (0, 0, 0, 0, 0))]
#[case("abc", &[], &[], (0, 0, 0, 0, 0))]
#[case("abc", &[(0, 3)], &[], (0, 0, 3, 0, 0))]
// empty and reversed spans cover nothing and are counted
#[case("abc", &[(1, 1)], &[(2, 1)], (0, 0, 0, 1, 1))]
// out of range: clamped to the answer, counted
#[case("a°b", &[(1, 5)], &[(7, 9)], (0, 0, 2, 1, 1))]
#[case("", &[(0, 1)], &[(0, 0)], (0, 0, 0, 1, 1))]
fn char_counts(
    #[case] output: &str,
    #[case] a: &[(usize, usize)],
    #[case] b: &[(usize, usize)],
    #[case] want: (usize, usize, usize, usize, usize),
) {
    let r = RecordAgreement::new(output, &spans(a), &spans(b));
    assert_eq!((r.tp, r.fp, r.fn_, r.invalid_a, r.invalid_b), want);
    // Swapping the sides swaps fp and fn.
    let s = RecordAgreement::new(output, &spans(b), &spans(a));
    assert_eq!((s.tp, s.fp, s.fn_), (want.0, want.2, want.1));
}

/// Brute force over a vector of code points agrees with the interval sweep.
#[rstest]
#[case("東京は晴れです👋 ok", &[(0, 2), (1, 4), (8, 12)], &[(3, 9), (11, 30)])]
#[case("ab", &[(0, 0), (5, 1)], &[(0, 2), (1, 2)])]
fn sweep_equals_brute_force(
    #[case] output: &str,
    #[case] a: &[(usize, usize)],
    #[case] b: &[(usize, usize)],
) {
    let n = output.chars().count();
    let mark = |v: &[(usize, usize)]| {
        let mut m = vec![false; n];
        for &(s, e) in v {
            for x in m.iter_mut().take(e.min(n)).skip(s) {
                *x = true;
            }
        }
        m
    };
    let (ma, mb) = (mark(a), mark(b));
    let both = ma.iter().zip(&mb).filter(|(x, y)| **x && **y).count();
    let only_b = ma.iter().zip(&mb).filter(|(x, y)| !**x && **y).count();
    let only_a = ma.iter().zip(&mb).filter(|(x, y)| **x && !**y).count();
    let r = RecordAgreement::new(output, &spans(a), &spans(b));
    assert_eq!((r.tp, r.fp, r.fn_), (both, only_b, only_a));
    assert_eq!(r.chars, n);
}

#[rstest]
#[case(3, 1, 2, 4, Some(0.4))] // Po 0.7, Pe 0.5·0.4 + 0.5·0.6 = 0.5
#[case(20, 5, 10, 15, Some(0.4))] // Po 0.7, Pe 0.6·0.5 + 0.4·0.5 = 0.5
#[case(5, 0, 0, 5, Some(1.0))]
#[case(0, 5, 5, 0, Some(-1.0))]
#[case(0, 0, 0, 10, None)] // both say "no" everywhere: undefined
#[case(10, 0, 0, 0, None)]
#[case(0, 0, 0, 0, None)]
fn kappa_by_hand(
    #[case] tp: usize,
    #[case] fp: usize,
    #[case] fn_: usize,
    #[case] tn: usize,
    #[case] want: Option<f64>,
) {
    let got = kappa(tp, fp, fn_, tn);
    match (got, want) {
        (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{g} != {w}"),
        (g, w) => assert_eq!(g, w),
    }
}

#[rstest]
#[case(0, 0, 0, 0.0, 0.0, 0.0)]
#[case(0, 131, 0, 0.0, 0.0, 0.0)] // the published `clean` row
#[case(0, 0, 5, 0.0, 0.0, 0.0)]
#[case(1, 1, 0, 0.5, 1.0, 2.0 / 3.0)]
#[case(
    11271,
    67169,
    4889,
    0.143_689_444_161_142_27,
    0.697_462_871_287_128_7,
    0.238_287_526_427_061_3
)]
fn prf(
    #[case] tp: usize,
    #[case] fp: usize,
    #[case] fn_: usize,
    #[case] p: f64,
    #[case] r: f64,
    #[case] f: f64,
) {
    let c = Counts { tp, fp, fn_ };
    assert!((c.precision() - p).abs() < 1e-15);
    assert!((c.recall() - r).abs() < 1e-15);
    assert!((c.f1() - f).abs() < 1e-15);
}

fn record(
    id: &str,
    ty: Option<&str>,
    output: &str,
    a: &[(usize, usize)],
    b: Option<&[(usize, usize)]>,
) -> Record {
    let mut rec = gold_record(id, output, ty, spans(a));
    if let Some(b) = b {
        rec.sources
            .push(Source::new("det", SourceRole::Detector, spans(b)));
    }
    rec
}

#[test]
fn example_level_iou_kappa_and_by_type() {
    let recs = [
        // tp example; IoU 2/6
        record(
            "1",
            Some("contradiction"),
            "25°C today",
            &[(0, 4)],
            Some(&[(2, 6)]),
        ),
        // fn example; IoU 0
        record("2", Some("contradiction"), "東京", &[(0, 2)], Some(&[])),
        // fp example; IoU 0
        record("3", Some("clean"), "ok 👋", &[], Some(&[(3, 4)])),
        // tn example; not in IoU
        record("4", Some("clean"), "fine", &[], Some(&[])),
        // only empty spans: tn, both invalid
        record("5", None, "abc", &[(1, 1)], Some(&[(4, 9)])),
        // no B source: left out
        record("6", Some("clean"), "abc", &[(0, 1)], None),
    ];
    let c = compare(&recs, GOLD, "det");
    let o = &c.overall;
    assert_eq!(o.records, 5);
    assert_eq!(o.chars, 10 + 2 + 4 + 4 + 3);
    assert_eq!(
        o.char_counts,
        Counts {
            tp: 2,
            fp: 2 + 1,
            fn_: 2 + 2
        }
    );
    assert_eq!(o.char_tn(), 23 - 9);
    assert_eq!(
        o.example_counts,
        Counts {
            tp: 1,
            fp: 1,
            fn_: 1
        }
    );
    assert_eq!(o.example_tn, 2);
    assert_eq!(o.iou_records, 3);
    assert!((o.mean_iou().expect("iou") - (2.0 / 6.0) / 3.0).abs() < 1e-12);
    assert_eq!((o.invalid_a, o.invalid_b), (1, 1));
    // kappa by hand: tp 2, fp 3, fn 4, tn 14, n 23
    let (n, po) = (23.0, 16.0 / 23.0);
    let pe = (6.0 / n) * (5.0 / n) + (17.0 / n) * (18.0 / n);
    assert!((o.kappa().expect("kappa") - (po - pe) / (1.0 - pe)).abs() < 1e-12);

    let types: Vec<&str> = c.by_type.keys().map(String::as_str).collect();
    assert_eq!(types, [UNTYPED, "clean", "contradiction"]);
    let clean = &c.by_type["clean"];
    assert_eq!(
        clean.char_counts,
        Counts {
            tp: 0,
            fp: 1,
            fn_: 0
        }
    );
    assert_eq!(clean.scores().char_level.recall, 0.0);
    assert_eq!(clean.scores().char_level.f1, 0.0);
    let mut sum = Agreement::default();
    for a in c.by_type.values() {
        sum.merge(a);
    }
    assert_eq!(&sum, o);
}

fn labeled(v: &[(usize, usize, &str)]) -> Vec<Span> {
    v.iter().map(|&(s, e, l)| Span::new("", s, e, l)).collect()
}

/// The case: one side accepts an `overgeneration` span, the other relabels it
/// `contradiction`. Label-blind: F1 1 and kappa 1; label-aware: no true positive.
#[test]
fn relabeled_span_agrees_blind_but_not_labeled() {
    let out = "It is 25°C and rainy";
    let mut c = Comparison::default();
    c.add(
        Some("overgeneration"),
        out,
        &labeled(&[(6, 10, "overgeneration")]),
        &labeled(&[(6, 10, "contradiction")]),
    );
    let s = c.overall.scores();
    assert_eq!(s.char_level.f1, 1.0);
    assert_eq!(s.kappa, Some(1.0));
    let l = s.char_level_labeled;
    assert_eq!((l.tp, l.fp, l.fn_), (0, 4, 4));
    assert_eq!(l.f1, 0.0);
    // 16 of 20 code points agree ("none"); expected (16·16 + 4·0 + 0·4) / 400.
    let pe = 256.0 / 400.0;
    let want = (16.0 / 20.0 - pe) / (1.0 - pe);
    let k = s.kappa_labeled.expect("kappa");
    assert!((k - want).abs() < 1e-12, "{k} != {want}");
    let v = serde_json::to_value(s).expect("json");
    assert_eq!(v["char_level_labeled"]["fn"], 4);
    assert_eq!(v["char_level_labeled"]["tp"], 0);
    assert!(v["kappa_labeled"].is_number());
}

/// With one label on every span the label-aware figures are the label-blind ones.
#[test]
fn one_label_makes_labeled_equal_blind() {
    let recs = [
        record("1", None, "25°C today", &[(0, 4)], Some(&[(2, 6)])),
        record("2", None, "東京は晴れ", &[(0, 2), (1, 4)], Some(&[(3, 5)])),
        record("3", None, "ok 👋", &[], Some(&[(3, 4)])),
    ];
    let s = compare(&recs, GOLD, "det").overall.scores();
    assert_eq!(
        (s.char_level.tp, s.char_level.fp, s.char_level.fn_),
        (
            s.char_level_labeled.tp,
            s.char_level_labeled.fp,
            s.char_level_labeled.fn_
        )
    );
    let (k, kl) = (s.kappa.expect("k"), s.kappa_labeled.expect("kl"));
    assert!((k - kl).abs() < 1e-12);
}

#[test]
fn by_label_counts_every_record() {
    let mut c = Comparison::default();
    // a: A and B agree on [0,3); b: B only on [5,7)
    c.add(
        None,
        "abcdefghij",
        &labeled(&[(0, 3, "a")]),
        &labeled(&[(0, 3, "a"), (5, 7, "b")]),
    );
    // a record that uses no label: a true negative for both labels
    c.add(None, "東京", &[], &[]);
    // b relabeled a → b: fn for a, fp for b
    c.add(
        None,
        "xyz",
        &labeled(&[(0, 2, "a")]),
        &labeled(&[(0, 2, "b")]),
    );
    let by = c.by_label();
    assert_eq!(by.keys().collect::<Vec<_>>(), ["a", "b"]);
    let (a, b) = (&by["a"], &by["b"]);
    for ag in [a, b] {
        assert_eq!((ag.records, ag.chars), (3, 15));
    }
    assert_eq!(
        a.char_counts,
        Counts {
            tp: 3,
            fp: 0,
            fn_: 2
        }
    );
    assert_eq!(
        b.char_counts,
        Counts {
            tp: 0,
            fp: 4,
            fn_: 0
        }
    );
    assert_eq!(
        (a.example_counts.tp, a.example_counts.fn_, a.example_tn),
        (1, 1, 1)
    );
    assert_eq!((b.example_counts.fp, b.example_tn), (2, 1));
    // kappa over all 15 code points: a: tp 3, fn 2, tn 10
    let want = kappa(3, 0, 2, 10).expect("k");
    assert!((a.kappa().expect("ka") - want).abs() < 1e-12);
    assert!((a.kappa_labeled().expect("kla") - want).abs() < 1e-12);
    assert_eq!(
        c.overall.labeled_counts,
        Counts {
            tp: 3,
            fp: 4,
            fn_: 2
        }
    );
}

#[test]
fn empty_comparison_is_defined() {
    let c = compare(std::iter::empty(), GOLD, "det");
    let s = c.overall.scores();
    assert_eq!(s.records, 0);
    assert_eq!(s.char_level.f1, 0.0);
    assert_eq!(s.mean_iou, None);
    assert_eq!(s.kappa, None);
    assert!(c.by_type.is_empty());
}

#[test]
fn scores_serialise_with_fn_key() {
    let mut a = Agreement::default();
    a.add(&RecordAgreement::new(
        "abcd",
        &spans(&[(0, 2)]),
        &spans(&[(1, 3)]),
    ));
    let v = serde_json::to_value(a.scores()).expect("json");
    assert_eq!(v["char_level"]["fn"], 1);
    assert_eq!(v["char_level"]["tp"], 1);
    assert_eq!(v["example_level"]["n"], 1);
    assert!(v["kappa"].is_number());
}

/// The per-code-point computation the interval sweep replaces, kept as the reference: every
/// code point gets its label set (each label's parts as [`labeled::Labels::set_key`] writes
/// them) on each side, then the code points are counted one by one.
fn per_code_point(output: &str, a: &[Span], b: &[Span]) -> RecordAgreement {
    let n = output.chars().count();
    let sets = |spans: &[Span]| {
        let mut v: Vec<Vec<String>> = vec![Vec::new(); n];
        for s in spans {
            for x in v.iter_mut().take(s.end.min(n)).skip(s.start) {
                x.push(format!(
                    "{}\u{1f}{}\u{1f}{}\u{1e}",
                    s.label,
                    s.category.as_deref().unwrap_or(""),
                    s.subcategory.as_deref().unwrap_or("")
                ));
            }
        }
        v.into_iter()
            .map(|mut x| {
                x.sort();
                x.dedup();
                x.concat()
            })
            .collect::<Vec<String>>()
    };
    let (sa, sb) = (sets(a), sets(b));
    let mut r = RecordAgreement {
        chars: n,
        invalid_a: a.iter().filter(|s| !s.in_bounds(n)).count(),
        invalid_b: b.iter().filter(|s| !s.in_bounds(n)).count(),
        ..RecordAgreement::default()
    };
    let mut marg: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (x, y) in sa.iter().zip(&sb) {
        let (ca, cb) = (!x.is_empty(), !y.is_empty());
        r.tp += usize::from(ca && cb);
        r.fp += usize::from(cb && !ca);
        r.fn_ += usize::from(ca && !cb);
        r.a_positive |= ca;
        r.b_positive |= cb;
        let l = &mut r.labeled;
        l.agree += usize::from(x == y);
        l.tp += usize::from(ca && x == y);
        l.fp += usize::from(cb && x != y);
        l.fn_ += usize::from(ca && x != y);
        marg.entry(x.clone()).or_default().0 += 1;
        marg.entry(y.clone()).or_default().1 += 1;
    }
    r.labeled.marginals = marg.into_iter().map(|(k, (x, y))| (k, x, y)).collect();
    r
}

fn random_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let ch = prop_oneof![
        Just('°'),
        Just('’'),
        Just('é'),
        Just(' '),
        Just('a'),
        proptest::char::range('\u{4e00}', '\u{4e20}'),
        proptest::char::range('\u{1f600}', '\u{1f610}'),
    ];
    proptest::collection::vec(ch, 0..80).prop_map(|v| v.into_iter().collect())
}

fn random_spans() -> impl proptest::strategy::Strategy<Value = Vec<Span>> {
    use proptest::prelude::*;
    // Offsets up to past the end (clamped), empty and reversed ones; labels with and without
    // a category, the empty label among them.
    let one = (0usize..90, 0usize..90, 0usize..5).prop_map(|(start, end, l)| {
        let mut s = Span::new("", start, end, ["a", "b", "", "a", "b"][l]);
        if l == 3 {
            s.category = Some("température".into());
        }
        if l == 4 {
            s.category = Some("東京".into());
            s.subcategory = Some("👍🏽".into());
        }
        s
    });
    proptest::collection::vec(one, 0..12)
}

proptest::proptest! {
    /// The interval sweep gives every count the per-code-point computation gives, label-blind
    /// and label-aware (marginals included), on non-ASCII answers.
    #[test]
    fn intervals_equal_per_code_point(
        output in random_text(),
        a in random_spans(),
        b in random_spans(),
    ) {
        let mut got = RecordAgreement::new(&output, &a, &b);
        got.labeled.marginals.sort();
        proptest::prop_assert_eq!(&got, &per_code_point(&output, &a, &b));
        // B as the reference: what `stats` adds for a pair seen in the other order.
        let mut back = RecordAgreement::new(&output, &b, &a);
        back.labeled.marginals.sort();
        let mut swapped = got.swapped();
        swapped.labeled.marginals.sort();
        proptest::prop_assert_eq!(swapped, back);
    }
}
