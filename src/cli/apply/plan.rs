//! Turning the lines of a decisions file, one at a time, into a checked [`Batch`]: each line
//! completed from the flags and the records, checked against its record's log with the earlier
//! lines of the file in it ([`check_with`]), and given a provisional id.
//!
//! What is kept while the file is read: the batch (each decision once), each touched record's
//! content hash, its decisions in the database and the indexes of the file's rows on it, and
//! its state as those rows join ([`LiveReplay`]); the parsed records only for the last
//! [`CACHED`] records named (a record is read again from its file by the index when needed).

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use crate::formats::{Dataset, FormatError};
use crate::model::Record;
use crate::review::check::{check_with, ReviewerLog};
use crate::review::decision::{replay, Decision, LiveReplay};
use crate::review::rubric::Rubric;
use crate::store::{
    derived_origin, parse_rfc3339, Batch, Store, StoreError, ORIGINS_PER_QUERY, PROVISIONAL,
};
use crate::tui::log::state_of;

use super::line::Canonical;
pub use super::line::Line;

/// Why a plan saves nothing.
#[derive(Debug)]
pub enum Refused {
    /// These lines (number, why).
    Lines(Vec<(usize, String)>),
    /// The database could not be read.
    Store(StoreError),
    /// The records or the file could not be read again.
    Other(anyhow::Error),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

/// How many parsed records are kept (the last ones named): a file on more records reads a
/// record again from its file when its lines come back to it.
pub const CACHED: usize = 256;

/// One touched record's log: its decisions in the database, the file's rows on it (indexes
/// into the batch) and its state with them.
#[derive(Default)]
struct RecordLog {
    db: Vec<Decision>,
    file: Vec<usize>,
    live: LiveReplay,
}

/// A reviewer's log on the dataset as undo and redo walk it: the database's rows, then the
/// file's (indexes into the batch).
#[derive(Default)]
struct MineLog {
    db: Vec<Decision>,
    file: Vec<usize>,
}

/// A [`MineLog`] over the batch's rows.
struct Mine<'b> {
    log: &'b MineLog,
    rows: &'b [(Decision, String)],
}

impl ReviewerLog for Mine<'_> {
    fn len(&self) -> usize {
        self.log.db.len() + self.log.file.len()
    }
    fn at(&self, i: usize) -> &Decision {
        match self.log.db.get(i) {
            Some(d) => d,
            None => &self.rows[self.log.file[i - self.log.db.len()]].0,
        }
    }
}

/// A line with its origin, or why it is refused.
type Originated = Result<(Line, String), String>;

/// The state of one apply while its lines are checked.
pub struct Planner<'a> {
    dataset: &'a Dataset,
    name: &'a str,
    reviewer: Option<&'a str>,
    dry_run: bool,
    /// Record id → its index in the dataset.
    index: HashMap<String, usize>,
    /// The content hash of each record named so far, or why it cannot be read.
    hashes: HashMap<String, Result<String, String>>,
    /// The last [`CACHED`] records read, parsed, and the order they were read in.
    cache: HashMap<String, Rc<Record>>,
    cached: VecDeque<String>,
    /// Each touched record's log, the file's decisions so far included.
    logs: HashMap<String, RecordLog>,
    /// Each reviewer's log on the dataset (read for undo and redo), the file's included.
    mine: HashMap<String, MineLog>,
    /// A line's `id` → the id its decision has (provisional, or in the database).
    ids: HashMap<i64, i64>,
    /// Origins of the file's decisions so far → their provisional ids.
    origins: HashMap<String, i64>,
    /// How many lines without an origin said the same thing so far (each derived origin).
    copies: HashMap<String, usize>,
    present: usize,
    /// The decisions to save, in order, with their origins: provisional id
    /// `PROVISIONAL + i` for `rows[i]`.
    rows: Vec<(Decision, String)>,
    /// The file's line of each row: a message names the line, not the provisional id.
    row_lines: Vec<usize>,
    /// The lines refused so far (number, why).
    refused: Vec<(usize, String)>,
    /// Lines fed and not checked yet (see [`Planner::feed`]).
    pending: Vec<(usize, Result<Line, String>)>,
    /// The rubric a line's reason code is checked against.
    rubric: Option<&'a Rubric>,
}

/// The accepted years of a line's `time`: a stamp outside them is a mistake (a year 9999
/// sorts after every real decision and would stand as the latest forever).
pub const YEARS: std::ops::RangeInclusive<u64> = 1970..=2099;

impl<'a> Planner<'a> {
    /// A planner for decisions on `dataset`, named `name` in the log.
    ///
    /// # Errors
    /// I/O errors reading the records' ids.
    pub fn new(
        dataset: &'a Dataset,
        name: &'a str,
        reviewer: Option<&'a str>,
        dry_run: bool,
    ) -> Result<Self, FormatError> {
        // An unreadable line has no id to decide on; a decision naming it is refused.
        let index = dataset
            .primary()
            .by_id(&mut Vec::new())?
            .into_iter()
            .filter_map(|(id, at)| Some((id, *at.first()?)))
            .collect();
        Ok(Self {
            dataset,
            name,
            reviewer,
            dry_run,
            index,
            hashes: HashMap::new(),
            cache: HashMap::new(),
            cached: VecDeque::new(),
            logs: HashMap::new(),
            mine: HashMap::new(),
            ids: HashMap::new(),
            origins: HashMap::new(),
            copies: HashMap::new(),
            present: 0,
            rows: Vec::new(),
            row_lines: Vec::new(),
            refused: Vec::new(),
            pending: Vec::new(),
            rubric: None,
        })
    }

    /// Check every line's reason code against `rubric` ([`Rubric::check`]).
    #[must_use]
    pub fn with_rubric(mut self, rubric: Option<&'a Rubric>) -> Self {
        self.rubric = rubric;
        self
    }

    /// Record `id` (at `at` in the dataset), from the cache or read again; its hash is noted
    /// the first time.
    fn record(&mut self, id: &str, at: usize) -> Result<Rc<Record>, String> {
        if let Some(Err(e)) = self.hashes.get(id) {
            return Err(e.clone());
        }
        if let Some(r) = self.cache.get(id) {
            return Ok(Rc::clone(r));
        }
        match self.dataset.record(at) {
            Ok(r) => {
                let r = Rc::new(r);
                if !self.hashes.contains_key(id) {
                    self.hashes.insert(id.to_owned(), Ok(r.content_hash()));
                }
                if self.cached.len() >= CACHED {
                    if let Some(old) = self.cached.pop_front() {
                        self.cache.remove(&old);
                    }
                }
                self.cached.push_back(id.to_owned());
                self.cache.insert(id.to_owned(), Rc::clone(&r));
                Ok(r)
            }
            Err(e) => {
                let e = format!("record {id:?}: {e}");
                self.hashes.insert(id.to_owned(), Err(e.clone()));
                Err(e)
            }
        }
    }

    /// The content hash of record `id`, read when not known yet (`None`: no such record, or
    /// it cannot be read).
    fn hash(&mut self, id: &str) -> Option<&str> {
        if !self.hashes.contains_key(id) {
            let &at = self.index.get(id)?;
            // Why a record cannot be read is reported on the lines naming it.
            let _ = self.record(id, at);
        }
        self.hashes.get(id)?.as_deref().ok()
    }

    /// Check line `n` (`parsed`: the decision, or why the line is none) against the log in
    /// `store` with the file's lines before it (lines are checked a chunk at a time, their
    /// origins looked up in one query; [`Planner::finish`] checks the last ones).
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn feed(
        &mut self,
        store: &Store,
        n: usize,
        parsed: Result<Line, String>,
    ) -> Result<(), StoreError> {
        self.pending.push((n, parsed));
        if self.pending.len() >= ORIGINS_PER_QUERY {
            self.flush(store)?;
        }
        Ok(())
    }

    /// Check the lines fed and not checked yet.
    fn flush(&mut self, store: &Store) -> Result<(), StoreError> {
        let pending = std::mem::take(&mut self.pending);
        // Each line's origin first (in file order: a repeated line's is numbered by the copies
        // before it), then the ones not met in the file yet looked up at once.
        let lines: Vec<(usize, Originated)> = pending
            .into_iter()
            .map(|(n, parsed)| {
                let coded = |l: Line| match self.rubric {
                    Some(r) => r
                        .check(l.action, l.flag_on, l.reason.as_deref())
                        .map(|()| l),
                    None => Ok(l),
                };
                (
                    n,
                    parsed
                        .and_then(coded)
                        .and_then(|l| self.origin(&l).map(|o| (l, o))),
                )
            })
            .collect();
        let asked: Vec<&str> = lines
            .iter()
            .filter_map(|(_, l)| l.as_ref().ok())
            .map(|(_, o)| o.as_str())
            .filter(|o| !self.origins.contains_key(*o))
            .collect();
        let saved = store.ids_with_origins(&asked)?;
        for (n, l) in lines {
            let why = match l {
                Ok((l, origin)) => match self.line(store, n, &l, origin, &saved)? {
                    Ok(()) => continue,
                    Err(why) => why,
                },
                Err(why) => why,
            };
            self.refused.push((n, why));
        }
        Ok(())
    }

    /// The batch of the lines fed, with each touched record's state after it, and how many
    /// lines were skipped as saved already; or every refused line.
    ///
    /// # Errors
    /// The refused lines, or a database that cannot be read.
    pub fn finish(mut self, store: &Store) -> Result<(Batch, usize), Refused> {
        self.flush(store)?;
        if !self.refused.is_empty() {
            return Err(Refused::Lines(std::mem::take(&mut self.refused)));
        }
        let mut batch = Batch {
            dry_run: self.dry_run,
            ..Batch::default()
        };
        let mut touched: Vec<String> = self
            .logs
            .iter()
            .filter(|(_, log)| !log.file.is_empty())
            .map(|(id, _)| id.clone())
            .collect();
        touched.sort();
        for id in touched {
            let Some(&at) = self.index.get(&id) else {
                continue;
            };
            let Ok(rec) = self.record(&id, at) else {
                continue;
            };
            let Some(log) = self.logs.remove(&id) else {
                continue;
            };
            let mut all = log.db;
            all.extend(log.file.iter().map(|&i| self.rows[i].0.clone()));
            let state = state_of(&replay(&rec, &all));
            batch.states.push((self.name.to_owned(), id, state));
        }
        batch.rows = self.rows;
        Ok((batch, self.present))
    }

    /// The origin of line `l` (which has none), on `dataset` by `reviewer`, the record's
    /// content hash `hash` when the line gives none: see [`Canonical`].
    fn derived(l: &Line, dataset: &str, reviewer: &str, hash: Option<&str>) -> String {
        let record_hash = l.record_hash.as_deref().or(hash);
        let c = Canonical {
            v: 1,
            dataset,
            reviewer,
            record_id: &l.record_id,
            record_hash,
            action: l.action,
            span_key: &l.span_key,
            before: &l.before,
            after: &l.after,
            reason: &l.reason,
            note: &l.note,
            target: l.target,
            upheld: &l.upheld,
            dismissed: &l.dismissed,
            group: &l.group,
            unit: l.unit,
            record_units: l.record_units,
            flag_on: l.flag_on,
            record_type: &l.record_type,
            auto: l.auto,
            time: &l.time,
        };
        // Serialising these plain values cannot fail; were it to, the line would still get
        // an origin of its own rather than share one.
        let text = serde_json::to_vec(&c).unwrap_or_else(|_| format!("{l:?}").into_bytes());
        derived_origin(&text)
    }

    /// The origin of line `l` (its own, else derived from what it says), or why the line is
    /// refused before that.
    fn origin(&mut self, l: &Line) -> Result<String, String> {
        let dataset = l.dataset.as_deref().unwrap_or(self.name);
        if dataset != self.name {
            return Err(format!(
                "the decision is on dataset {dataset:?}, these records are dataset {:?} \
                 (give --dataset {dataset:?} if they are the same)",
                self.name
            ));
        }
        let Some(reviewer) = l.reviewer.as_deref().or(self.reviewer) else {
            return Err("no reviewer: the line names none, give --reviewer".to_owned());
        };
        // (A name with control characters may come from another database's log, merged: it
        // is kept, and every output escapes it; `assign` refuses one for a plan.)
        if reviewer.is_empty() {
            return Err("reviewer \"\" is empty: name one".to_owned());
        }
        // A line without an origin gets one from what it says and how many lines of the file
        // said it before: the file applied twice, or regenerated, adds nothing, while a
        // decision the file makes twice (an undo, a redo, the same undo again) is two.
        Ok(match &l.origin {
            Some(o) => o.clone(),
            None => {
                let hash = if l.record_hash.is_some() {
                    None
                } else {
                    self.hash(&l.record_id).map(str::to_owned)
                };
                let base = Self::derived(l, dataset, reviewer, hash.as_deref());
                let k = self.copies.entry(base.clone()).or_insert(0);
                *k += 1;
                if *k == 1 {
                    base
                } else {
                    format!("{base}.{k}")
                }
            }
        })
    }

    /// Line `n`, `l`, with its `origin` (`saved`: the origins of its chunk the database
    /// holds): planned (its decision added to the batch), skipped when it is already saved,
    /// or why it is refused.
    fn line(
        &mut self,
        store: &Store,
        n: usize,
        l: &Line,
        origin: String,
        saved: &HashMap<String, i64>,
    ) -> Result<Result<(), String>, StoreError> {
        // Completed and checked by `origin`.
        let dataset = self.name;
        let Some(reviewer) = l.reviewer.as_deref().or(self.reviewer) else {
            return Ok(Err("no reviewer".to_owned()));
        };
        let known = self
            .origins
            .get(&origin)
            .or_else(|| saved.get(&origin))
            .copied();
        if let Some(k) = known {
            if let Some(id) = l.id {
                self.ids.insert(id, k);
            }
            self.present += 1;
            return Ok(Ok(()));
        }
        if let Some(t) = &l.time {
            let year = t.get(..4).and_then(|y| y.parse::<u64>().ok());
            if parse_rfc3339(t).is_none() || !year.is_some_and(|y| YEARS.contains(&y)) {
                return Ok(Err(format!(
                    "bad time {t:?}: expected RFC 3339 in UTC (2026-11-30T05:52:34.123Z), \
                     years {} to {}",
                    YEARS.start(),
                    YEARS.end()
                )));
            }
        }
        let Some(&at) = self.index.get(&l.record_id) else {
            return Ok(Err(format!(
                "no record {:?} in {}",
                l.record_id,
                self.dataset.primary().path().display()
            )));
        };
        let record = match self.record(&l.record_id, at) {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        let Some(Ok(hash)) = self.hashes.get(&l.record_id).cloned() else {
            return Ok(Err(format!("record {:?} cannot be read", l.record_id)));
        };
        let mut d = Decision::about(
            dataset,
            reviewer,
            &l.record_id,
            l.record_hash.as_deref().unwrap_or(&hash),
            l.action,
        );
        d.time = l.time.clone().unwrap_or_default();
        d.span_key.clone_from(&l.span_key);
        d.before.clone_from(&l.before);
        d.after.clone_from(&l.after);
        d.reason.clone_from(&l.reason);
        d.note.clone_from(&l.note);
        d.target = l.target.map(|t| self.ids.get(&t).copied().unwrap_or(t));
        d.upheld.clone_from(&l.upheld);
        d.dismissed.clone_from(&l.dismissed);
        d.group.clone_from(&l.group);
        d.unit = l.unit;
        d.record_units = l.record_units;
        d.flag_on = l.flag_on.or(d.flag_on);
        d.record_type.clone_from(&l.record_type);
        d.auto = l.auto;
        if !self.logs.contains_key(&l.record_id) {
            let db = store.record_decisions(dataset, &l.record_id)?;
            self.logs.insert(
                l.record_id.clone(),
                RecordLog {
                    db,
                    ..RecordLog::default()
                },
            );
        }
        if d.action.is_meta() && !self.mine.contains_key(reviewer) {
            let db = store.reviewer_log(dataset, reviewer)?;
            let file = (0..self.rows.len())
                .filter(|&i| self.rows[i].0.reviewer == reviewer)
                .collect();
            self.mine.insert(reviewer.to_owned(), MineLog { db, file });
        }
        let rows = &self.rows;
        let Some(log) = self.logs.get_mut(&l.record_id) else {
            return Ok(Err(format!("record {:?} cannot be read", l.record_id)));
        };
        let empty = MineLog::default();
        let mine = Mine {
            log: self.mine.get(reviewer).unwrap_or(&empty),
            rows,
        };
        let (db, file, live) = (&log.db, &log.file, &mut log.live);
        let whole = || {
            let mut all = db.clone();
            all.extend(file.iter().map(|&i| rows[i].0.clone()));
            all
        };
        let mut d = match check_with(&hash, &record, || live.review(&record, whole), &mine, &d) {
            Ok(d) => d,
            Err(why) => return Ok(Err(self.lines_named(&why.to_string()))),
        };
        let row = self.rows.len();
        d.id = PROVISIONAL + i64::try_from(row).unwrap_or(0);
        log.file.push(row);
        log.live.push(&d, &hash);
        if let Some(m) = self.mine.get_mut(reviewer) {
            m.file.push(row);
        }
        self.row_lines.push(n);
        if let Some(id) = l.id {
            self.ids.insert(id, d.id);
        }
        self.origins.insert(origin.clone(), d.id);
        self.rows.push((d, origin));
        Ok(Ok(()))
    }

    /// `why` with each provisional id (`#1152921504606846976`, a decision of this file not
    /// saved yet) written as the line it comes from.
    fn lines_named(&self, why: &str) -> String {
        let mut out = String::with_capacity(why.len());
        let mut rest = why;
        while let Some(i) = rest.find('#') {
            out.push_str(&rest[..i]);
            let digits = rest[i + 1..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(rest.len() - i - 1, |k| k);
            let num = &rest[i + 1..i + 1 + digits];
            let line = num
                .parse::<i64>()
                .ok()
                .and_then(|id| usize::try_from(id.checked_sub(PROVISIONAL)?).ok())
                .and_then(|k| self.row_lines.get(k));
            match line {
                Some(line) => {
                    // "decision #P" and "#P" alike: "the decision of line N".
                    if out.ends_with("decision ") {
                        out.truncate(out.len() - "decision ".len());
                    }
                    out.push_str("the decision of line ");
                    out.push_str(&line.to_string());
                }
                None => {
                    out.push('#');
                    out.push_str(num);
                }
            }
            rest = &rest[i + 1 + digits..];
        }
        out.push_str(rest);
        out
    }
}
