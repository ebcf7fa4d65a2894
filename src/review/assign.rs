//! Team review's assignment plan (`spanreview assign`): which reviewers review which record.
//!
//! Pure: records (id, base, type), the team, the options, the standing plan and who decided
//! what go in; the new plan comes out. The rules:
//!
//! - **Bases stay together.** A base's variants (`meta.base_id`, the dataset's unit of
//!   splitting; a record without one is its own base) go to the same reviewers.
//! - **Overlap.** A share `overlap` of the records goes to `k` reviewers, so that agreement can
//!   be measured. Overlap is chosen per base: bases are ordered by their multiset of corruption
//!   types (the stratum), shuffled within it for the seed, and walked with an error-diffusion
//!   quota (a base is taken when that brings the overlap records nearer `overlap` × the records
//!   walked), so every stratum — and with it every type — gets its share; the total is within
//!   half a base of `overlap` × records.
//! - **Balance.** Bases are dealt largest first (ties in seeded order) to the least-loaded
//!   reviewers; loads (records, an overlap record counting for each of its reviewers) then end
//!   within one base's size of each other.
//! - **Re-assignment.** A record keeps every reviewer who decided on it (left the team or not);
//!   a base keeps the team members who decided on its records, then its reviewers in the
//!   standing plan still on the team. The places this leaves open (a reviewer left, a new
//!   record, more overlap) go to the least loaded; then, while the most and the least loaded
//!   are more than a base apart, a base the former holds and decided nothing of moves to the
//!   latter. Re-running with the same team moves nothing; a newcomer takes bases until the
//!   loads even out.
//!
//! Deterministic: the same input and seed give the same plan (no hash-map order is used).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::review::splitmix::SplitMix64;

/// One record as the planner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Record id.
    pub id: String,
    /// Its base (`meta.base_id`; the id itself when it has none).
    pub base: String,
    /// Its corruption type, when the format has one.
    pub kind: Option<String>,
}

/// A record and its reviewers, as planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assigned {
    /// Record id.
    pub record_id: String,
    /// Its reviewers: the team's in the order given, then reviewers who left, by name.
    pub reviewers: Vec<String>,
}

/// How to plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Share of the records reviewed by `k` reviewers (0 to 1).
    pub overlap: f64,
    /// Reviewers of an overlap record (2 or more).
    pub k: usize,
    /// Seed of the shuffles.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            overlap: 0.0,
            k: 2,
            seed: 0,
        }
    }
}

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// No reviewer given.
    #[error("no reviewer given: name at least one (--reviewers ana,bo)")]
    NoReviewers,
    /// A reviewer name that is empty, has surrounding spaces or holds a control or
    /// bidirectional character ([`name_problem`]).
    #[error("reviewer name {0:?} {why}", why = name_problem(.0).unwrap_or("is refused"))]
    BadName(String),
    /// A reviewer named twice.
    #[error("reviewer {0:?} is named twice in --reviewers")]
    Duplicate(String),
    /// Overlap outside 0..=1.
    #[error("--overlap {0} is not a share between 0 and 1 (0.2 is 20 % of the records)")]
    Overlap(f64),
    /// Fewer than two reviewers per overlap record.
    #[error("--overlap-k {0}: an overlap record needs at least 2 reviewers")]
    KTooSmall(usize),
    /// More reviewers per overlap record than the team has.
    #[error("--overlap-k {k} needs at least {k} reviewers; the team has {team}")]
    KTooLarge {
        /// `k`.
        k: usize,
        /// Team size.
        team: usize,
    },
}

/// A base: its records (indices into the deduplicated items) and sort keys.
struct Base {
    members: Vec<usize>,
    /// Its records' types, sorted: the overlap stratum.
    types: Vec<Option<String>>,
    /// Seeded shuffle key.
    key: u64,
}

/// What is wrong with `name` as a reviewer's name, if anything: empty, surrounding spaces, or
/// a control or bidirectional character (a name is shown on screens, tables and logs, where
/// such a character would be an escape sequence or reorder the text; it could not be typed
/// back either).
#[must_use]
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.trim() != name {
        Some("has surrounding spaces")
    } else if name.chars().any(crate::model::escape::is_hidden) {
        Some("holds a control or bidirectional character")
    } else {
        None
    }
}

/// Check the team and options.
///
/// # Errors
/// As [`PlanError`].
pub fn check(team: &[String], opts: &Options) -> Result<(), PlanError> {
    if team.is_empty() {
        return Err(PlanError::NoReviewers);
    }
    let mut seen = BTreeSet::new();
    for r in team {
        if name_problem(r).is_some() {
            return Err(PlanError::BadName(r.clone()));
        }
        if !seen.insert(r.as_str()) {
            return Err(PlanError::Duplicate(r.clone()));
        }
    }
    if !(0.0..=1.0).contains(&opts.overlap) {
        return Err(PlanError::Overlap(opts.overlap));
    }
    if opts.overlap > 0.0 {
        if opts.k < 2 {
            return Err(PlanError::KTooSmall(opts.k));
        }
        if opts.k > team.len() {
            return Err(PlanError::KTooLarge {
                k: opts.k,
                team: team.len(),
            });
        }
    }
    Ok(())
}

/// Plan `items` (a record id seen twice is planned once, at its first place) for `team`.
/// `previous` is the standing plan (empty for none); `decided` names, per record id, the
/// reviewers with a decision in force on it.
///
/// # Errors
/// The team or the options are unusable ([`check`]).
pub fn plan<'a>(
    items: &'a [Item],
    team: &'a [String],
    opts: &Options,
    previous: &'a [Assigned],
    decided: &'a HashMap<String, BTreeSet<String>>,
) -> Result<Vec<Assigned>, PlanError> {
    check(team, opts)?;
    let mut seen = BTreeSet::new();
    let items: Vec<&Item> = items
        .iter()
        .filter(|i| seen.insert(i.id.as_str()))
        .collect();
    let mut rng = SplitMix64(opts.seed);
    let bases = bases(&items, &mut rng);
    let overlap = choose_overlap(&bases, opts.overlap);
    let rank: HashMap<&str, u64> = team.iter().map(|r| (r.as_str(), rng.next_u64())).collect();
    let position: HashMap<&str, usize> = team
        .iter()
        .enumerate()
        .map(|(i, r)| (r.as_str(), i))
        .collect();
    let before: HashMap<&str, &[String]> = previous
        .iter()
        .map(|a| (a.record_id.as_str(), a.reviewers.as_slice()))
        .collect();
    let decided_on = |i: usize| decided.get(&items[i].id).into_iter().flatten();
    let s_max = bases.iter().map(|b| b.members.len()).max().unwrap_or(0);
    let want: Vec<usize> = overlap
        .iter()
        .map(|&o| if o { opts.k } else { 1 })
        .collect();
    // A record's reviewers: who decided on it, then its base's reviewers up to the count.
    let revs = |i: usize, chosen: &[&'a str], want: usize| -> Vec<&'a str> {
        let mut v: Vec<&str> = decided_on(i).map(String::as_str).collect();
        for &c in chosen {
            if v.len() >= want {
                break;
            }
            if !v.contains(&c) {
                v.push(c);
            }
        }
        v
    };

    // Start from what stays: team members who decided on a base's records, then its
    // reviewers in the standing plan who are still on the team.
    let mut lockers: Vec<BTreeSet<&str>> = Vec::with_capacity(bases.len());
    let mut chosen: Vec<Vec<&str>> = Vec::with_capacity(bases.len());
    for (b, base) in bases.iter().enumerate() {
        let (mut locks, mut prev) = (BTreeMap::new(), BTreeMap::new());
        for &i in &base.members {
            for r in decided_on(i).filter(|r| rank.contains_key(r.as_str())) {
                *locks.entry(r.as_str()).or_insert(0_usize) += 1;
            }
            let before_i = before
                .get(items[i].id.as_str())
                .copied()
                .unwrap_or_default();
            for r in before_i.iter().filter(|r| rank.contains_key(r.as_str())) {
                *prev.entry(r.as_str()).or_insert(0_usize) += 1;
            }
        }
        let ordered = |m: BTreeMap<&'a str, usize>| {
            let mut v: Vec<(&str, usize)> = m.into_iter().collect();
            v.sort_by_key(|&(r, n)| (std::cmp::Reverse(n), rank[r]));
            v.into_iter().map(|(r, _)| r).collect::<Vec<_>>()
        };
        lockers.push(locks.keys().copied().collect());
        let mut c = ordered(locks);
        for r in ordered(prev) {
            if !c.contains(&r) {
                c.push(r);
            }
        }
        c.truncate(want[b]);
        chosen.push(c);
    }
    let mut load: HashMap<&str, usize> = team.iter().map(|r| (r.as_str(), 0)).collect();
    let add = |load: &mut HashMap<&'a str, usize>, b: usize, c: &[&'a str], sign: bool| {
        for &i in &bases[b].members {
            for r in revs(i, c, want[b]) {
                let l = load.entry(r).or_insert(0);
                *l = if sign { *l + 1 } else { *l - 1 };
            }
        }
    };
    for (b, c) in chosen.iter().enumerate() {
        add(&mut load, b, c, true);
    }

    // Fill the open places, largest bases first, with the least loaded.
    let mut order: Vec<usize> = (0..bases.len()).collect();
    order.sort_by_key(|&b| (std::cmp::Reverse(bases[b].members.len()), bases[b].key));
    for &b in &order {
        while chosen[b].len() < want[b] {
            let Some(least) = team
                .iter()
                .map(String::as_str)
                .filter(|r| !chosen[b].contains(r))
                .min_by_key(|r| (load[*r], rank[*r]))
            else {
                break;
            };
            add(&mut load, b, &chosen[b], false);
            chosen[b].push(least);
            add(&mut load, b, &chosen[b], true);
        }
    }

    // Even out: move a base the most loaded holds (and decided none of) to the least loaded
    // while they are more than a base apart; each move lowers the sum of squared loads.
    let mut holds: HashMap<&str, BTreeSet<usize>> = HashMap::new();
    for (b, c) in chosen.iter().enumerate() {
        for &r in c {
            holds.entry(r).or_default().insert(b);
        }
    }
    loop {
        let mut by_load: Vec<&str> = team.iter().map(String::as_str).collect();
        by_load.sort_by_key(|r| (load[*r], rank[*r]));
        let pairs = by_load
            .iter()
            .rev()
            .flat_map(|&hi| by_load.iter().map(move |&lo| (hi, lo)));
        let mut pick = None;
        for (hi, lo) in pairs {
            let gap = load[hi].saturating_sub(load[lo]);
            if gap <= s_max {
                continue;
            }
            let held = |b: usize| {
                bases[b]
                    .members
                    .iter()
                    .filter(|&&i| revs(i, &chosen[b], want[b]).contains(&hi))
                    .count()
            };
            pick = holds
                .get(hi)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&b| !chosen[b].contains(&lo) && !lockers[b].contains(hi))
                .map(|b| (held(b), b))
                .filter(|&(n, _)| n > 0 && n < gap)
                .max_by_key(|&(n, b)| (n, std::cmp::Reverse(bases[b].key)))
                .map(|(_, b)| (hi, lo, b));
            if pick.is_some() {
                break;
            }
        }
        let Some((hi, lo, b)) = pick else {
            break;
        };
        add(&mut load, b, &chosen[b], false);
        for c in &mut chosen[b] {
            if *c == hi {
                *c = lo;
            }
        }
        add(&mut load, b, &chosen[b], true);
        if let Some(h) = holds.get_mut(hi) {
            h.remove(&b);
        }
        holds.entry(lo).or_default().insert(b);
    }

    let mut out: Vec<Vec<String>> = vec![Vec::new(); items.len()];
    for (b, base) in bases.iter().enumerate() {
        for &i in &base.members {
            let mut v = revs(i, &chosen[b], want[b]);
            v.sort_by_key(|r| (position.get(r).copied().unwrap_or(usize::MAX), *r));
            out[i] = v.into_iter().map(str::to_owned).collect();
        }
    }
    Ok(items
        .iter()
        .zip(out)
        .map(|(item, reviewers)| Assigned {
            record_id: item.id.clone(),
            reviewers,
        })
        .collect())
}

/// The bases of `items`, in order of first appearance, each with its seeded key.
fn bases(items: &[&Item], rng: &mut SplitMix64) -> Vec<Base> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut out: Vec<Base> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let b = *index.entry(item.base.as_str()).or_insert_with(|| {
            out.push(Base {
                members: Vec::new(),
                types: Vec::new(),
                key: rng.next_u64(),
            });
            out.len() - 1
        });
        out[b].members.push(i);
        out[b].types.push(item.kind.clone());
    }
    for b in &mut out {
        b.types.sort();
    }
    out
}

/// Which bases are overlap: strata (type multisets) in order, seeded order within, walked with
/// an error-diffusion quota (see the module docs).
fn choose_overlap(bases: &[Base], share: f64) -> Vec<bool> {
    let mut order: Vec<usize> = (0..bases.len()).collect();
    order.sort_by(|&a, &b| (&bases[a].types, bases[a].key).cmp(&(&bases[b].types, bases[b].key)));
    let mut chosen = vec![false; bases.len()];
    let mut owed = 0.0_f64;
    for b in order {
        #[allow(clippy::cast_precision_loss)] // record counts are far below 2^52
        let size = bases[b].members.len() as f64;
        owed += share * size;
        if share > 0.0 && owed >= size / 2.0 {
            chosen[b] = true;
            owed -= size;
        }
    }
    chosen
}

#[cfg(test)]
mod tests;
