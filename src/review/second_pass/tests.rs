//! The alarm on scripted passes: a 144/144 non-blind second pass, a blind one with ordinary
//! disagreement, fast and slow decisions.

use super::*;
use crate::model::Span;
use crate::review::decision::ActionKind;
use crate::test_util::gold_record;

const OUTPUT: &str = "Il fait 25°C à 東京 👋 aujourd’hui.";

fn records(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| {
            let gold = vec![Span::new(OUTPUT, 15, 17, "contradiction")];
            gold_record(&format!("r{i}"), OUTPUT, Some("contradiction"), gold)
        })
        .collect()
}

/// The seconds of a time [`at`] wrote (`tN`): the parser the alarm is handed.
fn secs(t: &str) -> Option<f64> {
    t.strip_prefix('t').and_then(|s| s.parse().ok())
}

fn at(s: u64) -> String {
    format!("t{s}")
}

struct Log {
    rows: BTreeMap<String, Vec<Decision>>,
    next: i64,
}

impl Log {
    fn new() -> Self {
        Self {
            rows: BTreeMap::new(),
            next: 1,
        }
    }

    fn push(&mut self, rec: &Record, who: &str, action: ActionKind, time: u64, blind: bool) {
        let mut d = Decision::new(rec, "ds", who, action);
        d.id = self.next;
        self.next += 1;
        d.time = at(time);
        if action == ActionKind::Drop || action == ActionKind::Accept {
            d.span_key = Some("gold:0".into());
        }
        if blind {
            d.group = Some(format!("{BLIND_GROUP}{}", d.id));
        }
        self.rows.entry(rec.id.clone()).or_default().push(d);
    }

    fn passes(&self, recs: &[Record]) -> SecondPasses {
        let mut p = SecondPasses::default();
        for r in recs {
            let applied = replay(r, self.rows.get(&r.id).map_or(&[][..], Vec::as_slice)).applied;
            p.add(r, &applied);
        }
        p
    }
}

fn of<'a>(list: &'a [FirstPassAgreement], who: &str) -> &'a FirstPassAgreement {
    list.iter().find(|f| f.reviewer == who).expect("listed")
}

/// A model's first pass over `n` records (drops every other span), 60 s per record.
fn first_pass(recs: &[Record], log: &mut Log) {
    for (i, r) in recs.iter().enumerate() {
        let action = if i % 2 == 0 {
            ActionKind::Drop
        } else {
            ActionKind::Accept
        };
        log.push(r, "model", action, 60 * i as u64, false);
    }
}

#[test]
fn a_non_blind_second_pass_agreeing_on_144_of_144_raises_the_alarm() {
    let recs = records(144);
    let mut log = Log::new();
    first_pass(&recs, &mut log);
    // ana accepts what the screen shows, record after record, 30 s each.
    for (i, r) in recs.iter().enumerate() {
        log.push(
            r,
            "ana",
            ActionKind::AcceptAll,
            100_000 + 30 * i as u64,
            false,
        );
    }
    let list = log.passes(&recs).report(secs, DEFAULT_MIN_SECONDS);
    let ana = of(&list, "ana");
    assert_eq!((ana.followed, ana.agreed, ana.blind), (144, 144, 0));
    assert_eq!(ana.first_passes, ["model"]);
    assert!(ana.rubber_stamp && !ana.too_fast, "{ana:?}");
    let w = ana.warnings(DEFAULT_MIN_SECONDS);
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("ana") && w[0].contains("144 of 144"), "{w:?}");
    // The first pass itself follows nobody.
    assert_eq!(of(&list, "model").followed, 0);
}

#[test]
fn a_blind_second_pass_with_ordinary_disagreement_stays_silent() {
    let recs = records(144);
    let mut log = Log::new();
    first_pass(&recs, &mut log);
    // bo, blind: keeps the span on two records in three, whatever the model did.
    for (i, r) in recs.iter().enumerate() {
        let action = if i % 3 == 0 {
            ActionKind::Drop
        } else {
            ActionKind::Accept
        };
        log.push(r, "bo", action, 100_000 + 30 * i as u64, true);
    }
    let list = log.passes(&recs).report(secs, DEFAULT_MIN_SECONDS);
    let bo = of(&list, "bo");
    assert_eq!((bo.followed, bo.blind), (0, 144));
    assert!(bo.blind_agreed > 0 && bo.blind_agreed < 144, "{bo:?}");
    assert!(
        !bo.rubber_stamp && bo.warnings(DEFAULT_MIN_SECONDS).is_empty(),
        "{bo:?}"
    );
}

#[test]
fn the_agreement_rule_needs_fifty_records_and_ninety_eight_percent() {
    for (n, disagree, fires) in [
        (49, 0, false),
        (50, 0, true),
        (100, 2, true),
        (100, 3, false),
    ] {
        let recs = records(n);
        let mut log = Log::new();
        first_pass(&recs, &mut log);
        for (i, r) in recs.iter().enumerate() {
            // Undoing the model's decision by a contrary one disagrees.
            let action = if i < disagree && i % 2 == 0 {
                ActionKind::Accept
            } else if i < disagree {
                ActionKind::Drop
            } else {
                ActionKind::AcceptAll
            };
            log.push(r, "ana", action, 100_000 + 30 * i as u64, false);
        }
        let list = log.passes(&recs).report(secs, DEFAULT_MIN_SECONDS);
        let ana = of(&list, "ana");
        assert_eq!(ana.agreed, n - disagree, "{n} {disagree}: {ana:?}");
        assert_eq!(
            ana.rubber_stamp, fires,
            "{n} records, {disagree} disagreeing: {ana:?}"
        );
    }
}

#[test]
fn the_time_rule_fires_on_fast_decisions_and_not_on_slow_ones() {
    let recs = records(20);
    let mut log = Log::new();
    for (i, r) in recs.iter().enumerate() {
        log.push(r, "fast", ActionKind::Accept, 2 * i as u64, false);
        // Two decisions on one record, 4 s and 6 s after the previous record: 10 s.
        log.push(r, "slow", ActionKind::Accept, 10 * i as u64 + 4, false);
        log.push(r, "slow", ActionKind::Drop, 10 * i as u64 + 10, false);
    }
    let list = log.passes(&recs).report(secs, DEFAULT_MIN_SECONDS);
    let (fast, slow) = (of(&list, "fast"), of(&list, "slow"));
    assert_eq!((fast.timed_records, fast.median_seconds), (19, Some(2.0)));
    assert!(fast.too_fast, "{fast:?}");
    let w = fast.warnings(DEFAULT_MIN_SECONDS);
    assert!(
        w.iter().any(|l| l.contains("fast") && l.contains("2.0 s")),
        "{w:?}"
    );
    assert_eq!(slow.median_seconds, Some(10.0));
    assert!(
        !slow.too_fast && slow.warnings(DEFAULT_MIN_SECONDS).is_empty(),
        "{slow:?}"
    );
    // A higher threshold catches the slow one too.
    assert!(of(&log.passes(&recs).report(secs, 11.0), "slow").too_fast);
}

#[test]
fn the_time_rule_waits_for_enough_timed_records() {
    // A quick try of the screen, a few records at 1 s each, is no evidence of rubber-stamping.
    let few = records(MIN_TIMED);
    let mut log = Log::new();
    for (i, r) in few.iter().enumerate() {
        log.push(r, "quick", ActionKind::Accept, i as u64, false);
    }
    let early = of(&log.passes(&few).report(secs, DEFAULT_MIN_SECONDS), "quick").clone();
    assert_eq!(early.timed_records, MIN_TIMED - 1, "{early:?}");
    assert!(!early.too_fast, "{early:?}");
    // One more timed record at the same pace and the rule fires.
    let more = records(MIN_TIMED + 1);
    log.push(
        &more[MIN_TIMED],
        "quick",
        ActionKind::Accept,
        MIN_TIMED as u64,
        false,
    );
    let late = of(
        &log.passes(&more).report(secs, DEFAULT_MIN_SECONDS),
        "quick",
    )
    .clone();
    assert!(late.too_fast, "{late:?}");
}

#[test]
fn a_break_counts_as_ten_minutes() {
    let recs = records(3);
    let mut log = Log::new();
    for (i, r) in recs.iter().enumerate() {
        log.push(r, "ana", ActionKind::Accept, 10_000 * i as u64, false);
    }
    let list = log.passes(&recs).report(secs, DEFAULT_MIN_SECONDS);
    assert_eq!(of(&list, "ana").median_seconds, Some(600.0));
}
