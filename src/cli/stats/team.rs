//! The team figures of `stats`: each reviewer's pace against the assignment plan
//! (`--by-reviewer`), and the tables of the reviewers' agreement ([`crate::review::team`], from
//! the opinions [`crate::cli::judge_args::reviewers`] replays) and of their pace.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::UNIX_EPOCH;

use crate::cli::score4;
use crate::model::escape::line as cell;
use crate::model::width::{self as text, pad};
use crate::review::decision::Decision;
use crate::review::team::{decided_by, Arbiter, Pace, TeamAgreement};
use crate::store::{parse_rfc3339, Assignment};

/// The one definition of two reviewers' agreement, said under the team table: the pairs
/// table's row of the same two is the same figures ([`super::compute`]).
pub(super) const AGREEMENT_RULE: &str = "a pair is compared on the records both reviewers \
decided on (each one's own decisions replayed; a removal is no span), as its row in the pairs \
table;\nchar F1 and kappa are label-aware there (lbl F1, kappa)\n";

/// Disagreements listed in the table (`--json` lists every one).
const SHOWN: usize = 50;

/// Every reviewer's pace: those the plan names and those with decisions, by name.
pub(super) fn paces(log: &[Decision], plan: Option<&[Assignment]>) -> Vec<Pace> {
    let arbiter = Arbiter::of(log);
    let decided = decided_by(log, |d| arbiter.made(d));
    let mut done: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (id, who) in &decided {
        for r in who {
            done.entry(r).or_default().insert(id);
        }
    }
    let mut times: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for d in log {
        let t = parse_rfc3339(&d.time)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|t| t.as_secs());
        let e = times.entry(&d.reviewer).or_default();
        e.extend(t);
    }
    let mut assigned: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for a in plan.unwrap_or_default() {
        for r in &a.reviewers {
            assigned.entry(r).or_default().insert(&a.record_id);
        }
    }
    let names: BTreeSet<&str> = times.keys().chain(assigned.keys()).copied().collect();
    let none = BTreeSet::new();
    names
        .into_iter()
        .map(|r| {
            let mine = plan.map(|_| assigned.get(r).unwrap_or(&none));
            Pace::of(
                r,
                times.get(r).map_or(&[][..], Vec::as_slice),
                done.get(r).unwrap_or(&none),
                mine,
            )
        })
        .collect()
}

/// The team section (names escaped where they are put: a newline in one cannot start a line
/// of its own): label-aware agreement per pair and for the team, then the disagreements.
pub(super) fn team_table(t: &TeamAgreement) -> String {
    // (who, records, char F1, kappa, alpha)
    type Row = (String, usize, f64, Option<f64>, Option<f64>);
    let rows: Vec<Row> = t
        .pairs
        .iter()
        .map(|p| {
            (
                format!("{} vs {}", cell(&p.a), cell(&p.b)),
                p.scores.records,
                p.scores.char_level_labeled.f1,
                p.scores.kappa_labeled,
                p.alpha.labeled,
            )
        })
        .chain(std::iter::once((
            format!("team ({})", t.reviewers.len()),
            t.records,
            t.team.char_level_labeled.f1,
            t.team.kappa_labeled,
            t.alpha.labeled,
        )))
        .collect();
    let width = rows
        .iter()
        .map(|r| text::width(&r.0))
        .chain([text::width("reviewers")])
        .max()
        .unwrap_or(0);
    let mut s = format!(
        "\nreviewers' agreement on {} record(s) two or more of them decided on (label-aware):\n",
        t.records
    );
    let _ = writeln!(
        s,
        "{} {:>7} {:>7} {:>7} {:>7}",
        pad("reviewers", width),
        "records",
        "char F1",
        "kappa",
        "alpha"
    );
    for (label, n, f1, kappa, alpha) in rows {
        let _ = writeln!(
            s,
            "{} {n:>7} {f1:>7.4} {:>7} {:>7}",
            pad(&label, width),
            score4(kappa),
            score4(alpha)
        );
    }
    s.push_str(AGREEMENT_RULE);
    if t.disagreements.is_empty() {
        s.push_str("no disagreement\n");
        return s;
    }
    let _ = writeln!(s, "disagreements ({}):", t.disagreements.len());
    for d in t.disagreements.iter().take(SHOWN) {
        let _ = writeln!(s, "  {}", cell(&d.record_id));
        for o in &d.opinions {
            let spans = if o.removed {
                "removed the record".to_owned()
            } else if o.spans.is_empty() {
                "no span".to_owned()
            } else {
                o.spans
                    .iter()
                    .map(|sp| {
                        format!(
                            "[{},{}) {} {:?}",
                            sp.start,
                            sp.end,
                            cell(&crate::review::labeled::LabelName::of(sp).to_string()),
                            sp.text
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let _ = writeln!(s, "    {}: {spans}", cell(&o.reviewer));
        }
    }
    if t.disagreements.len() > SHOWN {
        let _ = writeln!(
            s,
            "  ... and {} more (--json lists every one)",
            t.disagreements.len() - SHOWN
        );
    }
    s
}

/// The `--by-reviewer` section.
pub(super) fn pace_table(paces: &[Pace]) -> String {
    let width = paces
        .iter()
        .map(|p| text::width(&p.reviewer))
        .chain([text::width("reviewer")])
        .max()
        .unwrap_or(0);
    let opt = |x: Option<usize>| x.map_or_else(|| "-".to_owned(), |v| v.to_string());
    let hours = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |v| format!("{v:.1} h"));
    let mut s = String::from("\nby reviewer (rate: records decided per hour of work):\n");
    let _ = writeln!(
        s,
        "{} {:>8} {:>6} {:>6} {:>8} {:>9}",
        pad("reviewer", width),
        "assigned",
        "done",
        "left",
        "rate/h",
        "time left"
    );
    for p in paces {
        let _ = writeln!(
            s,
            "{} {:>8} {:>6} {:>6} {:>8} {:>9}",
            pad(&cell(&p.reviewer), width),
            opt(p.assigned),
            p.done,
            opt(p.left),
            p.rate_per_hour
                .map_or_else(|| "-".to_owned(), |r| format!("{r:.1}")),
            hours(p.hours_left)
        );
    }
    s
}

/// Each reviewer's agreement with the first pass and median time per record, then the
/// alarm's warning lines (`alarms`); empty when no reviewer followed another's pass and no
/// decision was timed.
pub(super) fn first_pass_table(
    list: &[crate::review::second_pass::FirstPassAgreement],
    alarms: &[String],
) -> String {
    if list
        .iter()
        .all(|f| f.followed + f.blind == 0 && f.timed_records == 0)
    {
        return String::new();
    }
    let width = list
        .iter()
        .map(|f| text::width(&cell(&f.reviewer)))
        .chain([text::width("reviewer")])
        .max()
        .unwrap_or(0);
    let mut s = String::from(
        "\nagreement with the first pass (records decided after another's decisions; same kept \
         spans and labels, or both removed) and time per record:\n",
    );
    let _ = writeln!(
        s,
        "{} {:>8} {:>6} {:>7} {:>6} {:>12} {:>9}",
        pad("reviewer", width),
        "followed",
        "agreed",
        "share",
        "blind",
        "blind agreed",
        "median s"
    );
    for f in list {
        let share = f
            .agreement
            .map_or_else(|| "-".to_owned(), |a| format!("{:.1}%", a * 100.0));
        let median = f
            .median_seconds
            .map_or_else(|| "-".to_owned(), |m| format!("{m:.1}"));
        let _ = writeln!(
            s,
            "{} {:>8} {:>6} {share:>7} {:>6} {:>12} {median:>9}",
            pad(&cell(&f.reviewer), width),
            f.followed,
            f.agreed,
            f.blind,
            f.blind_agreed
        );
    }
    for w in alarms {
        let _ = writeln!(s, "warning: {}", cell(w));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{pace_table, text, Pace};

    /// The table is printed escaped: a reviewer name with a control character, in CJK or with
    /// a combining mark keeps every column under its header.
    #[test]
    fn reviewer_names_of_any_kind_keep_the_columns() {
        let pace = |r: &str| Pace {
            reviewer: r.to_owned(),
            assigned: Some(4),
            done: 1,
            left: Some(3),
            hours: 0.5,
            rate_per_hour: Some(2.0),
            hours_left: Some(1.5),
        };
        let names = ["ana", "robert\u{1b}", "東京", "e\u{301}va"];
        let table = pace_table(&names.map(pace));
        let shown = crate::model::escape::lines(&table);
        let widths: Vec<usize> = shown.lines().skip(2).map(text::width).collect();
        assert_eq!(widths.len(), 5, "{shown}");
        assert!(
            widths.iter().all(|&w| w == widths[0]),
            "{widths:?}\n{shown}"
        );
    }
}
