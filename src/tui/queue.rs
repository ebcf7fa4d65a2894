//! The review queue: which records, in file order, the reviewer walks through. Membership is
//! decided lazily, record by record, as the reviewer (or idle time) moves forward, so a huge
//! file shows its first record at once. Once a record is in the queue it stays for the session.
//! While the file is still being indexed ([`Dataset::indexed`]), every queue but `disputed`
//! walks the records indexed so far (the app takes in more as the index grows) and its size is a
//! lower bound.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::str::FromStr;

use crate::formats::Dataset;
use crate::review::siblings::base_of;
use crate::review::splitmix::SplitMix64;
use crate::store::RecordState;

mod filters;
pub use filters::{Filter, Range};

/// Which records to review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueKind {
    /// Records not reviewed yet (default).
    Unreviewed,
    /// Every record.
    All,
    /// Records flagged for a second look.
    Flagged,
    /// Records of one corruption type (`type:missing_tool`).
    Type(String),
    /// Records with a span of this label from any source, as the files have it
    /// (`label:contradiction`).
    Label(String),
    /// Records where this source has a span (`source:detector`).
    Source(String),
    /// The variants of one base (`base:toolace_train_00212`: `meta.base_id`, else the id
    /// before its last `__`).
    Base(String),
    /// A confidence range, a reviewer or an outcome (`confidence:0.3-0.7`, `reviewer:ana`,
    /// `outcome:clean`).
    Filter(Filter),
    /// Records where the sources disagree, most disputed first. Members come from the
    /// background clustering ([`Queue::push`]), not from scanning: in file order while it runs,
    /// then the part after the reviewer's position is sorted ([`Queue::finish`]).
    Disputed,
    /// The records the assignment plan gives this reviewer that they have not reviewed yet
    /// (others' decisions on shared records do not count), in file order. Members are given
    /// when the queue is made ([`Queue::force`]), not scanned.
    Mine,
    /// `n` records chosen uniformly at random, deterministically for `seed` (spot checks), in
    /// file order. Drawn when the queue is made, from the dataset's size: the dataset must be
    /// indexed by then (`review --sample` indexes it first).
    Sample {
        /// How many (all of them when the dataset has fewer).
        n: usize,
        /// The seed: the same seed and dataset size give the same records.
        seed: u64,
    },
}

impl FromStr for QueueKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "unreviewed" => Ok(Self::Unreviewed),
            "all" => Ok(Self::All),
            "flagged" => Ok(Self::Flagged),
            "disputed" => Ok(Self::Disputed),
            "mine" => Ok(Self::Mine),
            _ => {
                let unknown = || {
                    format!(
                        "unknown queue {s:?} (expected unreviewed, mine, all, flagged, disputed, \
                         type:T, label:L, source:NAME, base:ID, confidence:LO-HI, reviewer:NAME \
                         or outcome:open|clean|removed)"
                    )
                };
                let (prefix, value) = s.split_once(':').unwrap_or((s, ""));
                match prefix {
                    _ if value.is_empty() => Err(unknown()),
                    "type" => Ok(Self::Type(value.to_owned())),
                    "label" => Ok(Self::Label(value.to_owned())),
                    "source" => Ok(Self::Source(value.to_owned())),
                    "base" => Ok(Self::Base(value.to_owned())),
                    p if filters::PREFIXES.contains(&p) => {
                        Filter::parse(p, value).map(Self::Filter)
                    }
                    _ => Err(unknown()),
                }
            }
        }
    }
}

impl fmt::Display for QueueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unreviewed => f.write_str("unreviewed"),
            Self::All => f.write_str("all"),
            Self::Flagged => f.write_str("flagged"),
            Self::Disputed => f.write_str("disputed"),
            Self::Mine => f.write_str("mine"),
            Self::Type(t) => write!(f, "type:{t}"),
            Self::Label(l) => write!(f, "label:{l}"),
            Self::Source(s) => write!(f, "source:{s}"),
            Self::Base(b) => write!(f, "base:{b}"),
            Self::Filter(x) => x.fmt(f),
            Self::Sample { .. } => f.write_str("sample"),
        }
    }
}

/// The queue: dataset indices in file order, discovered lazily.
#[derive(Debug, Clone)]
pub struct Queue {
    /// Which records.
    pub kind: QueueKind,
    members: Vec<usize>,
    member_set: HashSet<usize>,
    /// Next dataset index to consider.
    scanned: usize,
    /// Records stored as reviewed, and as flagged, at start: with the dataset's size (once
    /// indexed), the expected size of the `unreviewed` and `flagged` queues without scanning.
    stored: (usize, usize),
    /// Members reviewed (filtered queues).
    reviewed: HashSet<usize>,
    /// Records of the dataset reviewed, whatever the queue (the stored states, then every
    /// change [`Queue::mark`] is told of).
    reviewed_count: usize,
}

impl Queue {
    /// A queue over `ds`; `states` are the stored record states at start.
    #[must_use]
    pub fn new(kind: QueueKind, ds: &Dataset, states: &HashMap<String, RecordState>) -> Self {
        let stored = (
            states.values().filter(|s| s.reviewed).count(),
            states.values().filter(|s| s.flagged).count(),
        );
        let mut q = Self {
            kind,
            members: Vec::new(),
            member_set: HashSet::new(),
            scanned: 0,
            stored,
            reviewed: HashSet::new(),
            reviewed_count: states.values().filter(|s| s.reviewed).count(),
        };
        if let QueueKind::Sample { n, seed } = q.kind {
            // Every member is known at once: nothing is left to scan.
            q.scanned = ds.len();
            for i in sample(ds.len(), n, seed) {
                let id = ds.primary().id(i).ok();
                if id
                    .and_then(|id| states.get(&id))
                    .is_some_and(|s| s.reviewed)
                {
                    q.reviewed.insert(i);
                }
                q.members.push(i);
                q.member_set.insert(i);
            }
        }
        q
    }

    /// Records of the queue reviewed so far (of those known, for filtered queues).
    #[must_use]
    pub fn reviewed(&self) -> usize {
        if self.kind == QueueKind::All {
            self.reviewed_count
        } else {
            self.reviewed.len()
        }
    }

    /// Records of the dataset reviewed (stored before this session or since), whatever the
    /// queue holds: a queue of what is left after a restart has none reviewed yet.
    #[must_use]
    pub fn dataset_reviewed(&self) -> usize {
        self.reviewed_count
    }

    /// Record `idx` is (now) reviewed or not; `was` is what the stored state said before.
    pub fn mark(&mut self, idx: usize, was: bool, now: bool) {
        if was != now {
            if now {
                self.reviewed_count += 1;
            } else {
                self.reviewed_count = self.reviewed_count.saturating_sub(1);
            }
        }
        self.mark_member(idx, now);
    }

    /// Member `idx` counts as reviewed in the queue's progress, or not (the `mine` queue's
    /// members by their reviewer's own decisions; the others as [`Queue::mark`] says).
    pub fn mark_member(&mut self, idx: usize, reviewed: bool) {
        if self.kind != QueueKind::All && self.member_set.contains(&idx) {
            if reviewed {
                self.reviewed.insert(idx);
            } else {
                self.reviewed.remove(&idx);
            }
        }
    }

    /// True when every record of the dataset has been considered (never while the dataset is
    /// still being indexed).
    #[must_use]
    pub fn complete(&self, ds: &Dataset) -> bool {
        ds.indexed() && (self.kind == QueueKind::All || self.scanned >= ds.len())
    }

    /// Expected size when known without scanning (from the stored states and the dataset's
    /// size, once it is indexed).
    fn expected(&self, ds: &Dataset) -> Option<usize> {
        if !ds.indexed() {
            return None;
        }
        match &self.kind {
            QueueKind::All => Some(ds.len()),
            QueueKind::Unreviewed => Some(ds.len().saturating_sub(self.stored.0)),
            QueueKind::Flagged => Some(self.stored.1),
            QueueKind::Sample { .. } | QueueKind::Mine => Some(self.members.len()),
            QueueKind::Type(_)
            | QueueKind::Label(_)
            | QueueKind::Source(_)
            | QueueKind::Base(_)
            | QueueKind::Filter(_)
            | QueueKind::Disputed => None,
        }
    }

    /// Number of records known to be in the queue so far.
    #[must_use]
    pub fn known(&self, ds: &Dataset) -> usize {
        if self.kind == QueueKind::All {
            ds.len()
        } else {
            self.members.len()
        }
    }

    /// The queue's size: exact when complete, else the expectation (or what is known so far,
    /// marked as a lower bound by `false`).
    #[must_use]
    pub fn size(&self, ds: &Dataset) -> (usize, bool) {
        if self.complete(ds) {
            (self.known(ds), true)
        } else {
            match self.expected(ds) {
                Some(n) => (n.max(self.known(ds)), true),
                None => (self.known(ds), false),
            }
        }
    }

    /// Dataset index at queue position `pos`, scanning forward as needed. `None` past the end.
    pub fn get(
        &mut self,
        pos: usize,
        ds: &Dataset,
        states: &HashMap<String, RecordState>,
    ) -> Option<usize> {
        if self.kind == QueueKind::All {
            return (pos < ds.len()).then_some(pos);
        }
        while self.kind != QueueKind::Disputed
            && self.members.len() <= pos
            && self.scanned < ds.len()
        {
            self.step(ds, states);
        }
        self.members.get(pos).copied()
    }

    /// Consider up to `n` more records (idle-time scanning); true when something was done
    /// (false too while the records indexed so far are all considered).
    pub fn scan(&mut self, n: usize, ds: &Dataset, states: &HashMap<String, RecordState>) -> bool {
        if self.complete(ds)
            || matches!(self.kind, QueueKind::All | QueueKind::Disputed)
            || self.scanned >= ds.len()
        {
            return false;
        }
        for _ in 0..n {
            if self.scanned >= ds.len() {
                break;
            }
            self.step(ds, states);
        }
        true
    }

    fn step(&mut self, ds: &Dataset, states: &HashMap<String, RecordState>) {
        let i = self.scanned;
        self.scanned += 1;
        if self.member_set.contains(&i) || self.kind == QueueKind::Disputed {
            return;
        }
        if let Some(reviewed) = admits(&self.kind, i, ds, states) {
            self.members.push(i);
            self.member_set.insert(i);
            if reviewed {
                self.reviewed.insert(i);
            }
        }
    }

    /// Position of dataset index `idx` in the queue, adding it when it is not a member (a
    /// record reached by go-to or undo stays reachable).
    pub fn force(&mut self, idx: usize) -> usize {
        if self.kind == QueueKind::All {
            return idx;
        }
        if self.kind == QueueKind::Disputed {
            if let Some(p) = self.members.iter().position(|&m| m == idx) {
                return p;
            }
            self.members.push(idx);
            self.member_set.insert(idx);
            return self.members.len() - 1;
        }
        match self.members.binary_search(&idx) {
            Ok(p) => p,
            Err(p) => {
                self.members.insert(p, idx);
                self.member_set.insert(idx);
                p
            }
        }
    }

    /// True when dataset index `idx` is a member known so far.
    #[must_use]
    pub fn contains(&self, idx: usize) -> bool {
        self.kind == QueueKind::All || self.member_set.contains(&idx)
    }

    /// Add dataset index `idx` at the end (the disputed queue, as clustering finds it);
    /// `reviewed` counts it as done. A member already known is left where it is.
    pub fn push(&mut self, idx: usize, reviewed: bool) {
        if self.member_set.insert(idx) {
            self.members.push(idx);
            if reviewed {
                self.reviewed.insert(idx);
            }
        }
    }

    /// Every record has been considered (clustering finished): sort the members after
    /// position `keep` with `cmp` (stable); those up to `keep` — the record on screen and what
    /// the reviewer has walked past — stay where they are.
    pub fn finish(
        &mut self,
        total: usize,
        keep: Option<usize>,
        cmp: impl Fn(usize, usize) -> std::cmp::Ordering,
    ) {
        self.scanned = self.scanned.max(total);
        let from = keep.map_or(0, |k| (k + 1).min(self.members.len()));
        self.members[from..].sort_by(|&a, &b| cmp(a, b));
    }

    /// Known member indices (empty for the `all` queue, whose members are every index).
    #[must_use]
    pub fn members(&self) -> &[usize] {
        &self.members
    }
}

/// Whether record `i` belongs in a queue of this kind: `Some(reviewed)` when it does. An
/// unreadable record is admitted (as not reviewed) so that the reviewer sees the error.
fn admits(
    kind: &QueueKind,
    i: usize,
    ds: &Dataset,
    states: &HashMap<String, RecordState>,
) -> Option<bool> {
    let state = |id: &str| states.get(id).cloned().unwrap_or_default();
    match kind {
        QueueKind::All => Some(false),
        QueueKind::Disputed | QueueKind::Sample { .. } | QueueKind::Mine => None,
        QueueKind::Unreviewed => match ds.primary().id(i) {
            Ok(id) => (!state(&id).reviewed).then_some(false),
            Err(_) => Some(false),
        },
        QueueKind::Flagged => {
            let s = state(&ds.primary().id(i).ok()?);
            s.flagged.then_some(s.reviewed)
        }
        QueueKind::Type(t) => match ds.primary().record(i) {
            Ok(r) => {
                (r.corruption_type.as_deref() == Some(t.as_str())).then(|| state(&r.id).reviewed)
            }
            Err(_) => Some(false),
        },
        // Joined records: the spans of every file given.
        QueueKind::Label(l) => match ds.record(i) {
            Ok(r) => r
                .sources
                .iter()
                .flat_map(|s| &s.spans)
                .any(|sp| sp.label == *l)
                .then(|| state(&r.id).reviewed),
            Err(_) => Some(false),
        },
        QueueKind::Filter(x) => x.admits(i, ds, states),
        QueueKind::Base(b) => match ds.primary().record(i) {
            Ok(r) => (base_of(&r) == b).then(|| state(&r.id).reviewed),
            Err(_) => Some(false),
        },
        QueueKind::Source(name) => match ds.record(i) {
            Ok(r) => r
                .source(name)
                .is_some_and(|s| !s.spans.is_empty())
                .then(|| state(&r.id).reviewed),
            Err(_) => Some(false),
        },
    }
}

/// `n` distinct indices below `len`, uniformly at random for `seed`, ascending (Floyd's
/// algorithm: `n` draws whatever `len` is).
fn sample(len: usize, n: usize, seed: u64) -> Vec<usize> {
    if n >= len {
        return (0..len).collect();
    }
    let mut rng = SplitMix64(seed);
    let mut chosen = HashSet::with_capacity(n);
    for j in len - n..len {
        let t = rng.below(j + 1);
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    let mut v: Vec<usize> = chosen.into_iter().collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse() {
        assert_eq!("all".parse::<QueueKind>(), Ok(QueueKind::All));
        assert_eq!(
            "type:missing_tool".parse::<QueueKind>(),
            Ok(QueueKind::Type("missing_tool".into()))
        );
        assert!("type:".parse::<QueueKind>().is_err());
        assert!("later".parse::<QueueKind>().is_err());
        assert_eq!(QueueKind::Type("x".into()).to_string(), "type:x");
        for s in ["label:contradiction", "source:detector"] {
            assert_eq!(
                s.parse::<QueueKind>().map(|k| k.to_string()),
                Ok(s.to_owned())
            );
        }
        assert!("source:".parse::<QueueKind>().is_err());
    }

    fn fixture() -> Dataset {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/review/records.jsonl");
        Dataset::open(&[p], None).expect("fixture")
    }

    #[test]
    fn filtered_queues_are_found_lazily_and_count_progress() {
        let ds = fixture();
        let mut states = HashMap::new();
        states.insert(
            "uni_1__contradiction".to_owned(),
            RecordState::marked(true, true),
        );
        states.insert(
            "clean_3__clean".to_owned(),
            RecordState::marked(false, true),
        );
        let mut q = Queue::new(QueueKind::Unreviewed, &ds, &states);
        assert_eq!(q.size(&ds), (3, true));
        assert_eq!(q.get(0, &ds, &states), Some(1));
        assert_eq!(q.known(&ds), 1, "only what was needed was read");
        assert_eq!(q.get(2, &ds, &states), Some(3));
        assert_eq!(q.get(3, &ds, &states), None);
        q.mark(1, false, true);
        assert_eq!(q.reviewed(), 1);
        assert_eq!(q.force(0), 0, "a record reached by go-to joins the queue");
        assert_eq!(q.get(1, &ds, &states), Some(1));

        let mut f = Queue::new(QueueKind::Flagged, &ds, &states);
        assert_eq!(f.get(0, &ds, &states), Some(0));
        assert_eq!(f.get(1, &ds, &states), Some(2));
        assert_eq!(f.get(2, &ds, &states), None);
        assert_eq!(f.reviewed(), 1);

        let mut t = Queue::new(QueueKind::Type("missing_tool".into()), &ds, &states);
        assert_eq!(t.size(&ds), (0, false));
        assert!(t.scan(10, &ds, &states));
        assert_eq!(t.size(&ds), (1, true));
        assert_eq!(t.get(0, &ds, &states), Some(3));

        let mut a = Queue::new(QueueKind::All, &ds, &states);
        assert_eq!(a.get(3, &ds, &states), Some(3));
        assert_eq!(a.reviewed(), 1);
        a.mark(2, false, true);
        a.mark(0, true, false);
        assert_eq!(a.reviewed(), 1);
    }

    #[test]
    fn sample_is_uniform_deterministic_and_in_file_order() {
        let a = sample(1000, 10, 7);
        assert_eq!(a.len(), 10);
        assert!(a.windows(2).all(|w| w[0] < w[1]), "{a:?}");
        assert!(a.iter().all(|&i| i < 1000));
        assert_eq!(a, sample(1000, 10, 7), "same seed, same records");
        assert_ne!(a, sample(1000, 10, 8));
        assert_eq!(sample(3, 10, 1), [0, 1, 2], "fewer records than asked: all");
        // Uniform: each of 10 records drawn 3 at a time about 30% of 20 000 draws.
        let mut hits = [0usize; 10];
        for seed in 0..20_000 {
            for i in sample(10, 3, seed) {
                hits[i] += 1;
            }
        }
        assert!(
            hits.iter().all(|&h| (5_600..6_400).contains(&h)),
            "{hits:?}"
        );

        let ds = fixture();
        let mut states = HashMap::new();
        states.insert(
            "plain_2__overgeneration".to_owned(),
            RecordState::marked(true, false),
        );
        let kind = QueueKind::Sample { n: 2, seed: 3 };
        let mut q = Queue::new(kind.clone(), &ds, &states);
        let want = sample(4, 2, 3);
        assert_eq!(q.members(), want);
        assert_eq!(q.size(&ds), (2, true));
        assert!(q.complete(&ds));
        assert_eq!(q.get(1, &ds, &states), Some(want[1]));
        assert_eq!(q.get(2, &ds, &states), None);
        assert_eq!(q.reviewed(), usize::from(want.contains(&1)));
        assert_eq!(kind.to_string(), "sample");
    }

    #[test]
    fn disputed_queue_is_fed_then_sorted_after_the_cursor() {
        let ds = fixture();
        let states = HashMap::new();
        let mut q = Queue::new(QueueKind::Disputed, &ds, &states);
        assert_eq!(
            q.get(0, &ds, &states),
            None,
            "members come from clustering, not scanning"
        );
        assert!(!q.scan(10, &ds, &states));
        assert!(!q.complete(&ds));
        for i in [0, 1, 2, 3] {
            q.push(i, i == 1);
        }
        q.push(2, false);
        assert_eq!(
            q.members(),
            [0, 1, 2, 3],
            "file order while clustering runs"
        );
        assert_eq!(q.reviewed(), 1);
        assert_eq!(q.size(&ds), (4, false));
        // Scores: higher index = more disputed; the cursor is at position 1.
        q.finish(ds.len(), Some(1), |a, b| b.cmp(&a));
        assert_eq!(q.members(), [0, 1, 3, 2], "sorted after the cursor only");
        assert!(q.complete(&ds));
        assert_eq!(q.size(&ds), (4, true));
        assert_eq!(q.force(2), 3);
        let mut fresh = Queue::new(QueueKind::Disputed, &ds, &states);
        fresh.push(3, false);
        assert_eq!(
            fresh.force(0),
            1,
            "a record reached by go-to joins at the end"
        );
    }
}
