//! Arbitration support for the review screen: the background clustering that feeds the
//! disputed queue and auto-accept, the per-record arbitration state (clusters, lanes, blind
//! letters), and how a resolution becomes `resolve` decisions.
//!
//! **Background clustering.** A thread reads the records (its own handle on the shared,
//! read-only [`Dataset`]) — skimmed with [`SpanReader`] on two workers when the formats allow,
//! see [`cluster_all`] — clusters each with
//! [`cluster_judged`](crate::review::disagreement::cluster_judged) and sends its
//! [`RecordScore`] to the app in file order; the app drains the channel between key presses.
//! A record is read in full only for an auto-accept candidate (its hash and agreements).
//! Nothing is kept but the scores of disputed records, so memory does not grow with the
//! contexts.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::formats::judges::{self, Arbitration, Judges, SpanReader};
use crate::formats::{Dataset, FormatError};
use crate::model::{Record, Source, SourceRole};
use crate::review::disagreement::{Among, Disagreement, JudgeVerdict, Options, RecordScore};
use crate::review::metrics::RecordAgreement;

/// How the arbitration features are set up (`review` flags).
#[derive(Clone, Default)]
pub struct ArbConfig {
    /// Clustering rules (`--tolerance`, `--ignore-edge-punct`).
    pub options: Options,
    /// `--blind`: sources shown as letters in a per-record shuffled order.
    pub blind: bool,
    /// `--auto-accept-unanimous`.
    pub auto_accept: bool,
    /// `--judge` sources, attached to every record read.
    pub judges: Option<Arc<Judges>>,
    /// Test hook: the background thread sleeps this long after each record.
    pub throttle: Option<Duration>,
    /// Start clustering in the background even for queues other than `disputed` (for
    /// auto-accept).
    pub background: bool,
    /// `--dispute-among`: the sources that count as disputing.
    pub among: Among,
    /// `--see-others`: overlap records show the other reviewers' work before this reviewer
    /// has decided them (blind by default).
    pub see_others: bool,
}

impl std::fmt::Debug for ArbConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArbConfig")
            .field("options", &self.options)
            .field("blind", &self.blind)
            .field("auto_accept", &self.auto_accept)
            .field("judges", &self.judges.as_ref().map(|j| j.names().join(",")))
            .field("throttle", &self.throttle)
            .field("among", &self.among)
            .finish_non_exhaustive()
    }
}

impl ArbConfig {
    /// Record `i` of `dataset` with the `--judge` sources attached.
    ///
    /// # Errors
    /// The record cannot be read.
    pub fn read(&self, dataset: &Dataset, i: usize) -> Result<Record, FormatError> {
        let mut r = dataset.record(i)?;
        if let Some(j) = &self.judges {
            j.attach(&mut r);
        }
        Ok(r)
    }

    /// Cluster `record` with these rules, as `stats` does ([`Arbitration::of`]: its sources
    /// as arbitration compares them, same indices as the record's, and its judges' verdicts).
    #[must_use]
    pub fn cluster(&self, record: &Record) -> Arbitration {
        let humans = self.judges.as_ref().is_some_and(|j| {
            j.sources
                .iter()
                .any(|s| s.role != SourceRole::Detector && !s.spans.is_empty())
        });
        Arbitration::among(record, &self.options, &self.among, humans)
    }
}

/// One record clustered in the background.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Dataset index.
    pub index: usize,
    /// Record id.
    pub id: String,
    /// Its content hash (for an auto-accept decision): only when the record was read in full
    /// ([`ArbConfig::read`]); `None` for a skimmed one, whose hash would be wrong (no context).
    pub hash: Option<String>,
    /// Its score.
    pub score: RecordScore,
    /// With auto-accept: every source agrees (whoever counts as disputing), so the record may
    /// be accepted unseen.
    pub unanimous: bool,
    /// With auto-accept, for a unanimous record: each source's agreement with the gold spans
    /// (its reviewed result once accepted), for the stats screen.
    pub agreements: Vec<(String, RecordAgreement)>,
}

/// How [`cluster_all`] reads the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Every record in full ([`ArbConfig::read`]: every field parsed), on the calling thread.
    Full,
    /// Records skimmed with [`SpanReader`] (no context, query or meta) on `threads` threads,
    /// when the dataset's formats allow it ([`judges::skimmable`]; else [`Reading::Full`]); a record
    /// is read in full only where its hash or agreements are needed (an auto-accept candidate)
    /// or it cannot be skimmed.
    Fast {
        /// Worker threads (1: the calling thread).
        threads: usize,
    },
}

/// Records per chunk a [`Reading::Fast`] worker takes at a time.
const CHUNK: usize = 64;

/// Cluster every record of `dataset` under `config`, handing each result to `emit` in file
/// order (`None`: unreadable). Stops early when `stop` is set or `emit` returns false. With
/// [`ArbConfig::throttle`] each worker sleeps that long after each record.
pub fn cluster_all(
    dataset: &Dataset,
    config: &ArbConfig,
    reading: Reading,
    stop: &AtomicBool,
    mut emit: impl FnMut(Option<Scored>) -> bool,
) {
    let n = dataset.len();
    let reader = match reading {
        Reading::Fast { .. } if judges::skimmable(dataset) => Some(SpanReader::new(dataset)),
        _ => None,
    };
    let threads = match reading {
        Reading::Fast { threads } if reader.is_some() => threads.max(1),
        _ => 1,
    };
    let one = |i: usize| {
        let s = score_one(dataset, config, reader.as_ref(), i);
        if let Some(t) = config.throttle {
            std::thread::sleep(t);
        }
        s
    };
    if threads == 1 {
        for i in 0..n {
            if stop.load(Ordering::Relaxed) || !emit(one(i)) {
                return;
            }
        }
        return;
    }
    // Workers take chunks in turn; chunks are handed on in order as they complete.
    let next = AtomicUsize::new(0);
    let halt = AtomicBool::new(false);
    std::thread::scope(|sc| {
        let (ctx, crx) = mpsc::channel::<(usize, Vec<Option<Scored>>)>();
        for _ in 0..threads {
            let ctx = ctx.clone();
            let (next, halt, one) = (&next, &halt, &one);
            sc.spawn(move || loop {
                let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                if start >= n {
                    return;
                }
                let mut out = Vec::with_capacity(CHUNK);
                for i in start..(start + CHUNK).min(n) {
                    if halt.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    out.push(one(i));
                }
                if ctx.send((start / CHUNK, out)).is_err() {
                    return;
                }
            });
        }
        drop(ctx);
        let mut pending: BTreeMap<usize, Vec<Option<Scored>>> = BTreeMap::new();
        let mut want = 0;
        for (k, chunk) in crx {
            pending.insert(k, chunk);
            while let Some(chunk) = pending.remove(&want) {
                want += 1;
                for s in chunk {
                    if stop.load(Ordering::Relaxed) || !emit(s) {
                        halt.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            }
        }
    });
}

/// Record `i` clustered and scored: skimmed through `reader` when given (falling back to the
/// full read when it cannot be skimmed), read in full again for an auto-accept candidate so
/// that its hash, agreements and the score that decides it come from the real record.
fn score_one(
    dataset: &Dataset,
    config: &ArbConfig,
    reader: Option<&SpanReader<'_>>,
    i: usize,
) -> Option<Scored> {
    let skimmed = reader.and_then(|r| r.record(i).ok()).map(|mut r| {
        if let Some(j) = &config.judges {
            j.attach(&mut r);
        }
        r
    });
    let (mut rec, mut full) = match skimmed {
        Some(r) => (r, false),
        None => (config.read(dataset, i).ok()?, true),
    };
    // Auto-accept asks every source, whoever counts as disputing: a detector's different
    // span is no dispute to arbitrate, but a record it differs on is not accepted unseen.
    let unanimous = |r: &Record| {
        config.auto_accept && Arbitration::of(r, &config.options).score().is_unanimous()
    };
    let mut s = config.cluster(&rec).score();
    let mut all_agree = unanimous(&rec);
    if all_agree && !full {
        rec = config.read(dataset, i).ok()?;
        s = config.cluster(&rec).score();
        all_agree = unanimous(&rec);
        full = true;
    }
    let agreements = if all_agree {
        agreements_with_gold(&mut rec)
    } else {
        Vec::new()
    };
    Some(Scored {
        index: i,
        hash: full.then(|| rec.content_hash()),
        id: rec.id,
        score: s,
        unanimous: all_agree,
        agreements,
    })
}

/// What the background thread reports.
#[derive(Debug)]
enum Msg {
    Scored(Box<Scored>),
    Unreadable,
    Done,
}

/// The background clustering of a dataset: progress and the scores as they arrive.
#[derive(Debug)]
pub struct Clustering {
    rx: Receiver<Msg>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    /// Records clustered so far (unreadable ones included).
    pub done: usize,
    /// Records in the dataset.
    pub total: usize,
    /// Disputed records found so far.
    pub disputed: usize,
    /// True once every record has been clustered.
    pub finished: bool,
}

impl Clustering {
    /// Start clustering `dataset` in the background ([`cluster_all`], [`Reading::Fast`] on
    /// two worker threads; one with [`ArbConfig::throttle`], the tests' hook).
    #[must_use]
    pub fn start(dataset: Arc<Dataset>, config: &ArbConfig) -> Self {
        let threads = if config.throttle.is_some() { 1 } else { 2 };
        Self::start_with(dataset, config, Reading::Fast { threads })
    }

    /// Start clustering `dataset` on a thread of its own, reading records as `reading` says.
    #[must_use]
    pub fn start_with(dataset: Arc<Dataset>, config: &ArbConfig, reading: Reading) -> Self {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let total = dataset.len();
        let config = config.clone();
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("spanreview-clustering".into())
            .spawn(move || {
                let mut open = true;
                cluster_all(&dataset, &config, reading, &flag, |s| {
                    let msg = s.map_or(Msg::Unreadable, |s| Msg::Scored(Box::new(s)));
                    open = tx.send(msg).is_ok();
                    open
                });
                if open && !flag.load(Ordering::Relaxed) {
                    let _ = tx.send(Msg::Done);
                }
            })
            .ok();
        Self {
            rx,
            stop,
            finished: handle.is_none(),
            handle,
            done: 0,
            total,
            disputed: 0,
        }
    }

    /// Scores that arrived, up to `max`, without waiting.
    pub fn drain(&mut self, max: usize) -> Vec<Scored> {
        let mut out = Vec::new();
        while out.len() < max && !self.finished {
            match self.rx.try_recv() {
                Ok(m) => self.take(m, &mut out),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => self.finished = true,
            }
        }
        out
    }

    /// Wait up to `timeout` for the next report.
    pub fn wait(&mut self, timeout: Duration) -> Vec<Scored> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        match self.rx.recv_timeout(timeout) {
            Ok(m) => self.take(m, &mut out),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => self.finished = true,
        }
        out
    }

    fn take(&mut self, m: Msg, out: &mut Vec<Scored>) {
        match m {
            Msg::Scored(s) => {
                self.done += 1;
                if s.score.is_disputed() {
                    self.disputed += 1;
                }
                out.push(*s);
            }
            Msg::Unreadable => self.done += 1,
            Msg::Done => self.finished = true,
        }
    }
}

impl Drop for Clustering {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Not joined: the thread stops at its next record; a drop must not wait for a read.
        drop(self.handle.take());
    }
}

/// Each source's agreement with `record`'s gold spans (judges as the spans their verdicts
/// stand for).
fn agreements_with_gold(record: &mut Record) -> Vec<(String, RecordAgreement)> {
    judges::judges_as_spans(record);
    let gold = record.gold_spans().to_vec();
    record
        .sources
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                RecordAgreement::new(&record.output, &gold, &s.spans),
            )
        })
        .collect()
}

/// The arbitration state of the record on screen.
#[derive(Debug, Clone)]
pub struct Arb {
    /// The sources as clustered (indices are the record's).
    pub sources: Vec<Source>,
    /// Its clusters.
    pub d: Disagreement,
    /// The judges' verdicts it was clustered with.
    pub verdicts: Vec<JudgeVerdict>,
    /// Lanes: participating source indices in display order (lane 1 first). Blind: shuffled.
    pub lanes: Vec<usize>,
    /// Selected cluster (index into `d.clusters`).
    pub cluster: usize,
    /// Selected unplaced claim.
    pub claim: usize,
}

impl Arb {
    /// Cluster `record` and lay out its lanes (`blind`: shuffled by a hash of the id, the gold
    /// first otherwise).
    #[must_use]
    pub fn new(record: &Record, config: &ArbConfig) -> Self {
        let Arbitration {
            sources,
            disagreement: d,
            verdicts,
        } = config.cluster(record);
        let mut lanes: Vec<usize> = d.participants.clone();
        if config.blind {
            shuffle(&mut lanes, &record.id);
        } else {
            lanes.sort_by_key(|&i| (record.sources[i].role != SourceRole::Gold, i));
        }
        Self {
            sources,
            d,
            verdicts,
            lanes,
            cluster: 0,
            claim: 0,
        }
    }

    /// The lane (0-based) of source `source`.
    #[must_use]
    pub fn lane_of(&self, source: usize) -> Option<usize> {
        self.lanes.iter().position(|&s| s == source)
    }
}

/// The blind letter of lane `lane` (A, B, …).
#[must_use]
pub fn letter(lane: usize) -> char {
    u8::try_from(lane)
        .ok()
        .filter(|&l| l < 26)
        .map_or('?', |l| char::from(b'A' + l))
}

/// Shuffle `v` deterministically from `seed` (a restart shows the same order).
pub fn shuffle(v: &mut [usize], seed: &str) {
    // FNV-1a of the seed (stable across runs and builds); a xorshift walks the Fisher-Yates.
    let mut x = seed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }) | 1;
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        #[allow(clippy::cast_possible_truncation)] // i + 1 fits in usize; the modulo too
        let j = (x % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_deterministic_per_seed_and_a_permutation() {
        let mut a = vec![0, 1, 2, 3];
        let mut b = vec![0, 1, 2, 3];
        shuffle(&mut a, "rec_1");
        shuffle(&mut b, "rec_1");
        assert_eq!(a, b);
        let mut s = a.clone();
        s.sort_unstable();
        assert_eq!(s, vec![0, 1, 2, 3]);
        let orders: std::collections::HashSet<Vec<usize>> = (0..20)
            .map(|k| {
                let mut v = vec![0, 1, 2];
                shuffle(&mut v, &format!("id{k}"));
                v
            })
            .collect();
        assert!(orders.len() > 1, "different ids give different orders");
    }

    #[test]
    fn letters() {
        assert_eq!(letter(0), 'A');
        assert_eq!(letter(2), 'C');
        assert_eq!(letter(30), '?');
    }
}
