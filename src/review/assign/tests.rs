//! The assignment planner's properties: coverage, overlap share (and its spread over types),
//! base grouping, balance, determinism, and re-assignment keeping decided work.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proptest::prelude::*;

use super::*;

const TYPES: [Option<&str>; 5] = [
    Some("clean"),
    Some("contradiction"),
    Some("missing_tool"),
    Some("overgeneration"),
    None,
];
const NAMES: [&str; 7] = ["ana", "bo", "cy", "dan", "eve", "李", "zoë"];

fn item(id: &str, base: &str, kind: Option<&str>) -> Item {
    Item {
        id: id.into(),
        base: base.into(),
        kind: kind.map(str::to_owned),
    }
}

fn team(n: usize) -> Vec<String> {
    NAMES[..n].iter().map(|&s| s.to_owned()).collect()
}

/// Bases of 1 to 4 variants of random types, records shuffled (a base's variants need not be
/// neighbours in the file).
fn items() -> impl Strategy<Value = Vec<Item>> {
    proptest::collection::vec(proptest::collection::vec(0..TYPES.len(), 1..=4), 1..30)
        .prop_map(|bases| {
            bases
                .iter()
                .enumerate()
                .flat_map(|(b, kinds)| {
                    kinds.iter().enumerate().map(move |(v, &t)| {
                        item(&format!("b{b}__v{v}"), &format!("b{b}"), TYPES[t])
                    })
                })
                .collect::<Vec<_>>()
        })
        .prop_shuffle()
}

fn options() -> impl Strategy<Value = Options> {
    (
        prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0_f64],
        2..=4_usize,
        any::<u64>(),
    )
        .prop_map(|(overlap, k, seed)| Options { overlap, k, seed })
}

fn loads(plan: &[Assigned], team: &[String]) -> BTreeMap<String, usize> {
    let mut l: BTreeMap<String, usize> = team.iter().map(|r| (r.clone(), 0)).collect();
    for a in plan {
        for r in &a.reviewers {
            *l.entry(r.clone()).or_default() += 1;
        }
    }
    l
}

fn max_base(items: &[Item]) -> usize {
    let mut n: HashMap<&str, usize> = HashMap::new();
    for i in items {
        *n.entry(&i.base).or_default() += 1;
    }
    n.into_values().max().unwrap_or(0)
}

fn fresh(items: &[Item], team: &[String], opts: &Options) -> Result<Vec<Assigned>, PlanError> {
    plan(items, team, opts, &[], &HashMap::new())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_record_once_with_distinct_team_reviewers(
        items in items(), n in 1..=6_usize, opts in options()
    ) {
        let team = team(n);
        let plan = match fresh(&items, &team, &opts) {
            Err(PlanError::KTooLarge { .. }) => {
                prop_assert!(opts.overlap > 0.0 && opts.k > n);
                return Ok(());
            }
            r => r.expect("plan"),
        };
        let ids: Vec<&str> = plan.iter().map(|a| a.record_id.as_str()).collect();
        let want: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        prop_assert_eq!(ids, want);
        for a in &plan {
            let set: BTreeSet<&String> = a.reviewers.iter().collect();
            prop_assert_eq!(set.len(), a.reviewers.len(), "{:?}", a);
            prop_assert!(a.reviewers.len() == 1 || a.reviewers.len() == opts.k, "{:?}", a);
            prop_assert!(a.reviewers.iter().all(|r| team.contains(r)), "{:?}", a);
        }
    }

    #[test]
    fn overlap_share_holds_overall_and_per_type(
        items in items(), n in 2..=6_usize, opts in options()
    ) {
        prop_assume!(opts.k <= n);
        let team = team(n);
        let plan = fresh(&items, &team, &opts).expect("plan");
        let s_max = max_base(&items) as f64;
        let kinds: HashMap<&str, &Option<String>> =
            items.iter().map(|i| (i.id.as_str(), &i.kind)).collect();
        let over: Vec<&Assigned> = plan.iter().filter(|a| a.reviewers.len() >= 2).collect();
        let total = over.len() as f64;
        prop_assert!((total - opts.overlap * items.len() as f64).abs() <= s_max / 2.0 + 1e-9,
            "{} overlap records of {} for {}", total, items.len(), opts.overlap);
        // Per type: within each stratum (bases with the same multiset of types) the error is
        // below one base's size, shared among its types by their count in such a base.
        let mut strata: BTreeMap<Vec<Option<String>>, (usize, usize)> = BTreeMap::new();
        let mut by_base: BTreeMap<&str, Vec<Option<String>>> = BTreeMap::new();
        for i in &items {
            by_base.entry(&i.base).or_default().push(i.kind.clone());
        }
        for mut t in by_base.into_values() {
            t.sort();
            strata.entry(t).or_default().0 += 1;
        }
        for t in TYPES {
            let t = t.map(str::to_owned);
            let n_t = items.iter().filter(|i| i.kind == t).count() as f64;
            let ov_t = over.iter().filter(|a| *kinds[a.record_id.as_str()] == t).count() as f64;
            let bound: f64 = strata
                .keys()
                .map(|s| {
                    let c = s.iter().filter(|x| **x == t).count() as f64;
                    s_max * c / s.len() as f64
                })
                .sum();
            prop_assert!((ov_t - opts.overlap * n_t).abs() <= bound + 1e-9,
                "type {:?}: {} of {} overlap, bound {}", t, ov_t, n_t, bound);
        }
    }

    #[test]
    fn a_base_goes_to_the_same_reviewers(items in items(), n in 1..=6_usize, opts in options()) {
        prop_assume!(opts.overlap == 0.0 || opts.k <= n);
        let plan = fresh(&items, &team(n), &opts).expect("plan");
        let mut of_base: HashMap<&str, &Vec<String>> = HashMap::new();
        for (i, a) in items.iter().zip(&plan) {
            let first = of_base.entry(&i.base).or_insert(&a.reviewers);
            prop_assert_eq!(*first, &a.reviewers, "base {}", i.base);
        }
    }

    #[test]
    fn loads_end_within_one_base(items in items(), n in 1..=6_usize, opts in options()) {
        prop_assume!(opts.overlap == 0.0 || opts.k <= n);
        let team = team(n);
        let plan = fresh(&items, &team, &opts).expect("plan");
        let l = loads(&plan, &team);
        let (lo, hi) = (l.values().min().expect("min"), l.values().max().expect("max"));
        prop_assert!(hi - lo <= max_base(&items), "{:?} (largest base {})", l, max_base(&items));
    }

    #[test]
    fn the_same_seed_gives_the_same_plan(items in items(), n in 2..=6_usize, opts in options()) {
        prop_assume!(opts.k <= n);
        let team = team(n);
        let a = fresh(&items, &team, &opts).expect("plan");
        prop_assert_eq!(&a, &fresh(&items, &team, &opts).expect("plan"));
        // ... and re-planning it unchanged (same team, no decisions) moves nothing.
        prop_assert_eq!(&a, &plan(&items, &team, &opts, &a, &HashMap::new()).expect("plan"));
    }

    /// A reviewer leaves and one joins after some records were decided by some of their
    /// reviewers: decided records keep their deciders, nothing else names the one who left,
    /// undecided records of a base still share reviewers; with the same team, the plan stands.
    #[test]
    fn reassigning_keeps_decided_work(
        items in items(), n in 2..=6_usize, opts in options(),
        picks in proptest::collection::vec((any::<bool>(), any::<bool>()), 120),
    ) {
        prop_assume!(opts.k <= n);
        let team1 = team(n);
        let p1 = fresh(&items, &team1, &opts).expect("plan");
        let mut decided: HashMap<String, BTreeSet<String>> = HashMap::new();
        for (a, &(on, all)) in p1.iter().zip(picks.iter().cycle()) {
            if on {
                let take = if all { a.reviewers.len() } else { 1 };
                decided.insert(a.record_id.clone(), a.reviewers[..take].iter().cloned().collect());
            }
        }
        let same = plan(&items, &team1, &opts, &p1, &decided).expect("plan");
        prop_assert_eq!(&same, &p1);

        let left = team1[0].clone();
        let mut team2: Vec<String> = team1[1..].to_vec();
        team2.push("zed".into());
        let p2 = plan(&items, &team2, &opts, &p1, &decided).expect("plan");
        let ids: Vec<&str> = p2.iter().map(|a| a.record_id.as_str()).collect();
        let want: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        prop_assert_eq!(ids, want);
        let mut open_of_base: HashMap<&str, &Vec<String>> = HashMap::new();
        for (i, a) in items.iter().zip(&p2) {
            let d = decided.get(&i.id);
            for r in d.into_iter().flatten() {
                prop_assert!(a.reviewers.contains(r), "{} lost decider {}: {:?}", i.id, r, a);
            }
            for r in &a.reviewers {
                prop_assert!(team2.contains(r) || d.is_some_and(|d| d.contains(r)),
                    "{:?} names {} who neither is on the team nor decided", a, r);
            }
            if a.reviewers.contains(&left) {
                prop_assert!(d.is_some_and(|d| d.contains(&left)), "{:?} names {} who left", a, left);
            }
            if d.is_none() {
                let first = open_of_base.entry(&i.base).or_insert(&a.reviewers);
                prop_assert_eq!(*first, &a.reviewers, "base {}", i.base);
            }
        }
        if decided.is_empty() {
            let l = loads(&p2, &team2);
            let (lo, hi) = (l.values().min().expect("min"), l.values().max().expect("max"));
            prop_assert!(hi - lo <= max_base(&items), "{:?}", l);
        }
    }
}

/// One-record bases of three types (20, 30, 50 records) at 10 %: exactly 2, 3 and 5 overlap
/// records for every seed (drawn without regard to type, the counts would wander).
#[test]
fn overlap_is_spread_exactly_over_types_of_single_records() {
    let kinds = ["clean", "contradiction", "missing_tool"];
    let items: Vec<Item> = (0..100)
        .map(|i| {
            let t = if i % 5 == 0 {
                kinds[0]
            } else if i % 10 < 4 {
                kinds[1]
            } else {
                kinds[2]
            };
            item(&format!("r{i}"), &format!("r{i}"), Some(t))
        })
        .collect();
    let n: Vec<usize> = kinds
        .iter()
        .map(|k| {
            items
                .iter()
                .filter(|i| i.kind.as_deref() == Some(*k))
                .count()
        })
        .collect();
    assert_eq!(n, [20, 30, 50]);
    for seed in 0..50 {
        let opts = Options {
            overlap: 0.1,
            k: 2,
            seed,
        };
        let plan = fresh(&items, &team(3), &opts).expect("plan");
        let over: Vec<usize> = kinds
            .iter()
            .map(|k| {
                items
                    .iter()
                    .zip(&plan)
                    .filter(|(i, a)| i.kind.as_deref() == Some(*k) && a.reviewers.len() == 2)
                    .count()
            })
            .collect();
        assert_eq!(over, [2, 3, 5], "seed {seed}");
    }
}

#[test]
fn a_newcomer_takes_unreviewed_records_and_reviewed_ones_stay() {
    let items: Vec<Item> = (0..12)
        .map(|i| item(&format!("r{i}"), &format!("r{i}"), None))
        .collect();
    let p1 = fresh(&items, &team(2), &Options::default()).expect("plan");
    // ana reviewed every record she had; bo none of his.
    let decided: HashMap<String, BTreeSet<String>> = p1
        .iter()
        .filter(|a| a.reviewers == ["ana"])
        .map(|a| (a.record_id.clone(), BTreeSet::from(["ana".to_owned()])))
        .collect();
    assert_eq!(decided.len(), 6);
    let team2: Vec<String> = vec!["ana".into(), "bo".into(), "cy".into()];
    let p2 = plan(&items, &team2, &Options::default(), &p1, &decided).expect("plan");
    for a in &p2 {
        if decided.contains_key(&a.record_id) {
            assert_eq!(a.reviewers, ["ana"], "{a:?}");
        }
    }
    let l = loads(&p2, &team2);
    assert_eq!(l["ana"], 6);
    // bo's six unreviewed records are shared with the newcomer.
    assert_eq!((l["bo"], l["cy"]), (3, 3), "{l:?}");
}

#[test]
fn bad_teams_and_options_are_refused() {
    let items = [item("a", "a", None)];
    let none = HashMap::new();
    let opts = Options::default();
    let cases: [(&[&str], Options, PlanError); 9] = [
        (&[], opts, PlanError::NoReviewers),
        (&["ana", ""], opts, PlanError::BadName(String::new())),
        (
            &["ana", "b\u{1b}]52;c;eA==\u{7}o"],
            opts,
            PlanError::BadName("b\u{1b}]52;c;eA==\u{7}o".into()),
        ),
        (
            &["東京", "b\u{202e}o"],
            opts,
            PlanError::BadName("b\u{202e}o".into()),
        ),
        (&["ana", "ana"], opts, PlanError::Duplicate("ana".into())),
        (&["ana", " bo"], opts, PlanError::BadName(" bo".into())),
        (
            &["ana"],
            Options {
                overlap: 1.5,
                ..opts
            },
            PlanError::Overlap(1.5),
        ),
        (
            &["ana", "bo"],
            Options {
                overlap: 0.2,
                k: 1,
                ..opts
            },
            PlanError::KTooSmall(1),
        ),
        (
            &["ana", "bo"],
            Options {
                overlap: 0.2,
                k: 3,
                ..opts
            },
            PlanError::KTooLarge { k: 3, team: 2 },
        ),
    ];
    for (t, o, want) in cases {
        let t: Vec<String> = t.iter().map(|&s| s.to_owned()).collect();
        assert_eq!(plan(&items, &t, &o, &[], &none), Err(want), "{t:?}");
    }
}

#[test]
fn a_duplicate_id_is_planned_once() {
    let items = [
        item("a", "a", None),
        item("b", "b", None),
        item("a", "a", None),
    ];
    let p = fresh(&items, &team(2), &Options::default()).expect("plan");
    let ids: Vec<&str> = p.iter().map(|a| a.record_id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
}
