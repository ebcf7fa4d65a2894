//! Turning the parsed lines of a decisions file into a checked [`Batch`], under the write
//! lock: each line completed from the flags and the records, checked against its record's log
//! with the earlier lines of the file in it ([`check`]), and given a provisional id.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::formats::{Dataset, FormatError};
use crate::model::Record;
use crate::review::check::check;
use crate::review::decision::{replay, ActionKind, Decision, SpanValue, Unit};
use crate::store::{derived_origin, parse_rfc3339, Batch, Store, StoreError, PROVISIONAL};
use crate::tui::log::state_of;

/// One line of a decisions file: a [`Decision`] as `decisions --json` prints it (with its
/// `origin`), every field but `record_id` and `action` optional.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    id: Option<i64>,
    reviewer: Option<String>,
    time: Option<String>,
    dataset: Option<String>,
    record_id: String,
    record_hash: Option<String>,
    action: ActionKind,
    span_key: Option<String>,
    before: Option<SpanValue>,
    after: Option<SpanValue>,
    reason: Option<String>,
    note: Option<String>,
    target: Option<i64>,
    #[serde(default)]
    upheld: Vec<String>,
    #[serde(default)]
    dismissed: Vec<String>,
    group: Option<String>,
    unit: Option<Unit>,
    record_units: Option<usize>,
    flag_on: Option<bool>,
    record_type: Option<String>,
    #[serde(default)]
    auto: bool,
    origin: Option<String>,
}

/// What a line without an `origin` says, as its derived origin is made from
/// ([`derived_origin`]): every value of the line but its `id` (a handle for the file's undo
/// targets, not part of the decision), the dataset and reviewer as completed from the flags,
/// and the record's hash (the line's, else the record's in FILE). `before` is the line's own:
/// completed from the span now, it would differ once the line was applied.
#[derive(Serialize)]
struct Canonical<'a> {
    v: u8,
    dataset: &'a str,
    reviewer: &'a str,
    record_id: &'a str,
    record_hash: Option<&'a str>,
    action: ActionKind,
    span_key: &'a Option<String>,
    before: &'a Option<SpanValue>,
    after: &'a Option<SpanValue>,
    reason: &'a Option<String>,
    note: &'a Option<String>,
    target: Option<i64>,
    upheld: &'a [String],
    dismissed: &'a [String],
    group: &'a Option<String>,
    unit: Option<Unit>,
    record_units: Option<usize>,
    flag_on: Option<bool>,
    record_type: &'a Option<String>,
    auto: bool,
    time: &'a Option<String>,
}

/// Why a plan saves nothing.
#[derive(Debug)]
pub enum Refused {
    /// These lines (number, why).
    Lines(Vec<(usize, String)>),
    /// The database could not be read.
    Store(StoreError),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

/// The state of one apply while its lines are checked.
pub struct Planner<'a> {
    dataset: &'a Dataset,
    name: &'a str,
    reviewer: Option<&'a str>,
    dry_run: bool,
    /// Record id → its index in the dataset.
    index: HashMap<String, usize>,
    /// The records named so far, with their content hashes (or why they cannot be read).
    records: HashMap<String, (Record, String)>,
    unreadable: HashMap<String, String>,
    /// Each touched record's log, the file's decisions so far included.
    logs: HashMap<String, Vec<Decision>>,
    /// Each reviewer's log on the dataset (read for undo and redo), the file's included.
    mine: HashMap<String, Vec<Decision>>,
    /// A line's `id` → the id its decision has (provisional, or in the database).
    ids: HashMap<i64, i64>,
    /// Origins of the file's decisions so far → their provisional ids.
    origins: HashMap<String, i64>,
    /// How many lines without an origin said the same thing so far (each derived origin).
    copies: HashMap<String, usize>,
    present: usize,
    planned: Vec<Decision>,
    /// The file's line of each planned decision (`planned[i]`, provisional id
    /// `PROVISIONAL + i`): a message names the line, not the provisional id.
    planned_lines: Vec<usize>,
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
            records: HashMap::new(),
            unreadable: HashMap::new(),
            logs: HashMap::new(),
            mine: HashMap::new(),
            ids: HashMap::new(),
            origins: HashMap::new(),
            copies: HashMap::new(),
            present: 0,
            planned: Vec::new(),
            planned_lines: Vec::new(),
        })
    }

    /// Read the records `lines` name (before the write lock is taken: it is held while the
    /// lines are checked, and other reviewers wait for it).
    pub fn read_records(&mut self, lines: &[(usize, Line)]) {
        for (_, l) in lines {
            if let Some(&at) = self.index.get(&l.record_id) {
                if !self.records.contains_key(&l.record_id) {
                    // Why a record cannot be read is reported on the lines naming it.
                    let _ = self.load(&l.record_id, at);
                }
            }
        }
    }

    /// Read record `id` (at `at` in the dataset) with its content hash.
    fn load(&mut self, id: &str, at: usize) -> Result<(), String> {
        if let Some(e) = self.unreadable.get(id) {
            return Err(e.clone());
        }
        match self.dataset.record(at) {
            Ok(r) => {
                let hash = r.content_hash();
                self.records.insert(id.to_owned(), (r, hash));
                Ok(())
            }
            Err(e) => {
                let e = format!("record {id:?}: {e}");
                self.unreadable.insert(id.to_owned(), e.clone());
                Err(e)
            }
        }
    }

    /// Lines skipped because their origin is already saved (or earlier in the file).
    pub fn present(&self) -> usize {
        self.present
    }

    /// Lines planned to be saved.
    pub fn planned(&self) -> usize {
        self.planned.len()
    }

    /// Check every line against the log in `store` (under its write lock) and return the
    /// batch, or every refused line.
    ///
    /// # Errors
    /// The refused lines, or a database that cannot be read.
    pub fn plan(&mut self, store: &Store, lines: &[(usize, Line)]) -> Result<Batch, Refused> {
        let mut refused = Vec::new();
        let mut batch = Batch {
            dry_run: self.dry_run,
            ..Batch::default()
        };
        for (n, line) in lines {
            match self.line(store, *n, line)? {
                Ok(Some((d, origin))) => batch.rows.push((d, origin)),
                Ok(None) => {}
                Err(why) => refused.push((*n, why)),
            }
        }
        if !refused.is_empty() {
            return Err(Refused::Lines(refused));
        }
        let mut touched: Vec<&String> = self.logs.keys().collect();
        touched.sort();
        for id in touched {
            let (Some((rec, _)), Some(log)) = (self.records.get(id), self.logs.get(id)) else {
                continue;
            };
            if log.iter().any(|d| d.id >= PROVISIONAL) {
                let state = state_of(&replay(rec, log));
                batch.states.push((self.name.to_owned(), id.clone(), state));
            }
        }
        Ok(batch)
    }

    /// The origin of line `l` (which has none), on `dataset` by `reviewer`: see [`Canonical`].
    fn derived(&self, l: &Line, dataset: &str, reviewer: &str) -> String {
        let record_hash = l
            .record_hash
            .as_deref()
            .or_else(|| self.records.get(&l.record_id).map(|(_, h)| h.as_str()));
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

    /// One line: the decision to save with its origin, `None` when it is already saved, or
    /// why it is refused.
    fn line(
        &mut self,
        store: &Store,
        n: usize,
        l: &Line,
    ) -> Result<Result<Option<(Decision, String)>, String>, StoreError> {
        let dataset = l.dataset.as_deref().unwrap_or(self.name);
        if dataset != self.name {
            return Ok(Err(format!(
                "the decision is on dataset {dataset:?}, these records are dataset {:?} \
                 (give --dataset {dataset:?} if they are the same)",
                self.name
            )));
        }
        let Some(reviewer) = l.reviewer.as_deref().or(self.reviewer) else {
            return Ok(Err(
                "no reviewer: the line names none, give --reviewer".to_owned()
            ));
        };
        // (A name with control characters may come from another database's log, merged: it
        // is kept, and every output escapes it; `assign` refuses one for a plan.)
        if reviewer.is_empty() {
            return Ok(Err("reviewer \"\" is empty: name one".to_owned()));
        }
        // A line without an origin gets one from what it says and how many lines of the file
        // said it before: the file applied twice, or regenerated, adds nothing, while a
        // decision the file makes twice (an undo, a redo, the same undo again) is two.
        let origin = match &l.origin {
            Some(o) => o.clone(),
            None => {
                let base = self.derived(l, dataset, reviewer);
                let k = self.copies.entry(base.clone()).or_insert(0);
                *k += 1;
                if *k == 1 {
                    base
                } else {
                    format!("{base}.{k}")
                }
            }
        };
        let known = match self.origins.get(&origin) {
            Some(&id) => Some(id),
            None => store.id_with_origin(&origin)?,
        };
        if let Some(k) = known {
            if let Some(id) = l.id {
                self.ids.insert(id, k);
            }
            self.present += 1;
            return Ok(Ok(None));
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
        if !self.records.contains_key(&l.record_id) {
            if let Err(e) = self.load(&l.record_id, at) {
                return Ok(Err(e));
            }
        }
        let Some((record, hash)) = self.records.get(&l.record_id) else {
            return Ok(Err(format!("record {:?} cannot be read", l.record_id)));
        };
        let mut d = Decision::about(
            dataset,
            reviewer,
            &l.record_id,
            l.record_hash.as_deref().unwrap_or(hash),
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
            let log = store.record_decisions(dataset, &l.record_id)?;
            self.logs.insert(l.record_id.clone(), log);
        }
        if d.action.is_meta() && !self.mine.contains_key(reviewer) {
            let mut log = store.reviewer_log(dataset, reviewer)?;
            log.extend(
                self.planned
                    .iter()
                    .filter(|p| p.reviewer == reviewer)
                    .cloned(),
            );
            self.mine.insert(reviewer.to_owned(), log);
        }
        let log = self.logs.get(&l.record_id).map_or(&[][..], Vec::as_slice);
        let mine = self.mine.get(reviewer).map_or(&[][..], Vec::as_slice);
        let mut d = match check(record, log, mine, &d) {
            Ok(d) => d,
            Err(why) => return Ok(Err(self.lines_named(&why.to_string()))),
        };
        d.id = PROVISIONAL + i64::try_from(self.planned.len()).unwrap_or(0);
        self.planned_lines.push(n);
        if let Some(id) = l.id {
            self.ids.insert(id, d.id);
        }
        self.origins.insert(origin.clone(), d.id);
        if let Some(log) = self.logs.get_mut(&l.record_id) {
            log.push(d.clone());
        }
        if let Some(log) = self.mine.get_mut(reviewer) {
            log.push(d.clone());
        }
        self.planned.push(d.clone());
        Ok(Ok(Some((d, origin))))
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
                .and_then(|k| self.planned_lines.get(k));
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
