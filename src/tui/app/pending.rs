//! Decisions not saved because the database was unreachable (a lost PostgreSQL connection)
//! or busy (another process, a long `apply`, holds the write lock): kept with their origins and
//! saved again on the log's clock, once a second, until the database takes them. While the
//! database is unreachable, new decisions are refused (a record moved to cannot be read, so a
//! decision could be made on a wrong picture); reading and moving go on. While it is only busy
//! the screen still reads, so new decisions (not an undo or redo, whose target may be a kept
//! one) are kept after the others, shown on the screen at once, and saved in the order they
//! were made. The same origins are given on every try, so a COMMIT that landed while its reply
//! was lost is not saved twice. A retry the database refuses (not a lost connection, not busy)
//! ends the tries, but its decisions and those kept after them are not dropped: they wait for
//! the rescue file. Quitting with any not saved asks once, then hands them to the caller,
//! which writes them to a rescue file for `spanreview apply`.

use std::time::{Duration, SystemTime};

use super::{App, Status};
use crate::model::Record;
use crate::review::decision::Decision;
use crate::tui::strings;

/// How long after a failed try the next one is made.
pub const RETRY_EVERY: Duration = Duration::from_secs(1);

/// What was not saved: decisions kept for a retry, and those a retry was refused.
#[derive(Debug, Default)]
pub(super) struct Pending {
    /// Kept for a retry, one entry per record run, in the order they were made.
    kept: Vec<Unsaved>,
    /// When the next try is due.
    next: Option<SystemTime>,
    /// The last try found the write lock held elsewhere (not the database unreachable).
    busy: bool,
    /// Refused on a retry: no more tries; written to the rescue file at quit.
    refused: Vec<(Decision, String)>,
    /// The reviewer pressed quit once (the next quit quits).
    quit_asked: bool,
}

/// Decisions on one record kept for a retry.
#[derive(Debug)]
struct Unsaved {
    /// The record they are on (it may no longer be on screen), and its dataset index.
    index: usize,
    record: Record,
    /// The decisions in order, each with its origin.
    rows: Vec<(Decision, String)>,
}

impl App {
    /// Keep `rows` (on dataset record `index`) for a retry after a lost connection or a busy
    /// database, after any kept already; the record on screen shows them at once while the
    /// database is busy ([`App::with_kept`]). Returns
    /// what the status line says.
    pub(super) fn keep_unsaved(
        &mut self,
        index: usize,
        record: Record,
        mut rows: Vec<(Decision, String)>,
        error: &str,
    ) -> String {
        // Stamped now, when they were made: a retry (or `apply` of the rescue file) saves
        // them later, and the rescue file needs a time.
        let now = crate::store::rfc3339(self.log.now());
        for (d, _) in rows.iter_mut().filter(|(d, _)| d.time.is_empty()) {
            d.time.clone_from(&now);
        }
        tracing::warn!(
            rows = rows.len(),
            error,
            "database unreachable or busy; decisions kept for a retry"
        );
        if self.unsaved.kept.is_empty() {
            self.unsaved.next = Some(self.log.now() + RETRY_EVERY);
            self.unsaved.busy = error == crate::tui::log::BUSY;
        }
        match self.unsaved.kept.last_mut() {
            Some(u) if u.index == index => u.rows.extend(rows),
            _ => self.unsaved.kept.push(Unsaved {
                index,
                record,
                rows,
            }),
        }
        if let Ok(c) = &self.cur {
            if c.index == index {
                let shown = self.with_kept(&c.record.id, c.decisions.clone());
                if let Ok(c) = &mut self.cur {
                    c.decisions = shown;
                }
                self.reload_review();
            }
        }
        self.unsaved_status()
    }

    /// `log` (a record's log as read) with the decisions kept on that record after it, as
    /// the screen shows them until they are saved (provisional ids, after every saved one),
    /// while the database is busy; while it is unreachable the screen shows the log only
    /// (new decisions are refused then). Kept decisions shown already are not added twice.
    pub(super) fn with_kept(&self, record_id: &str, mut log: Vec<Decision>) -> Vec<Decision> {
        log.retain(|d| d.id < crate::store::PROVISIONAL);
        if !self.unsaved.busy {
            return log;
        }
        let kept = self.unsaved.kept.iter().flat_map(|u| u.rows.iter());
        for (i, (d, _)) in kept.enumerate() {
            if d.record_id == record_id {
                let mut d = d.clone();
                d.id = crate::store::PROVISIONAL + i64::try_from(i).unwrap_or(0);
                log.push(d);
            }
        }
        log
    }

    /// The status line while decisions are kept ("NOT saved yet …").
    fn unsaved_status(&self) -> String {
        let n = self.unsaved.kept.iter().map(|u| u.rows.len()).sum();
        if self.unsaved.busy {
            strings::waiting_for_db(n)
        } else {
            strings::not_saved_yet(n)
        }
    }

    /// Why a new decision (`meta`: an undo or redo) is refused now, or `None`: refused while
    /// kept ones wait for an unreachable database, and an undo or redo while any are kept
    /// (its target may be one); otherwise it is kept after them ([`App::must_wait`]).
    pub(super) fn unsaved_refusal(&self, meta: bool) -> Option<String> {
        let refuse = self.retrying() && (!self.unsaved.busy || meta);
        refuse.then(|| strings::refused_while_unsaved(&self.unsaved_status()))
    }

    /// [`App::commit`] `d`: true when it was saved, or kept behind the write lock and shown,
    /// so that the selection moves on as after a save (else a second `a` took the same span).
    pub(super) fn decided(&mut self, d: Decision) -> bool {
        let kept = |app: &Self| app.unsaved.kept.iter().map(|u| u.rows.len()).sum::<usize>();
        let before = kept(self);
        self.commit(d).is_some() || (self.unsaved.busy && kept(self) > before)
    }

    /// True when new decisions wait behind kept ones (the database busy): they are kept
    /// without a try, so that they are saved after them.
    pub(super) fn must_wait(&self) -> bool {
        self.retrying() && self.unsaved.busy
    }

    /// True while decisions are kept for a retry.
    #[must_use]
    pub fn retrying(&self) -> bool {
        !self.unsaved.kept.is_empty()
    }

    /// True while any decision is not saved: kept for a retry, or refused on one.
    #[must_use]
    pub fn has_unsaved(&self) -> bool {
        self.retrying() || !self.unsaved.refused.is_empty()
    }

    /// The decisions not saved (with their origins), in the order they were made, for the
    /// rescue file at quit.
    #[must_use]
    pub fn unsaved_rows(&self) -> Vec<(Decision, String)> {
        let kept = self.unsaved.kept.iter().flat_map(|u| u.rows.iter());
        self.unsaved.refused.iter().chain(kept).cloned().collect()
    }

    /// Save the kept decisions again, in order, when the try is due (the log's clock).
    pub(super) fn retry_unsaved(&mut self) {
        let now = self.log.now();
        if !self.retrying() || self.unsaved.next.is_some_and(|t| t > now) {
            return;
        }
        let mut ids: Vec<i64> = Vec::new();
        while !self.unsaved.kept.is_empty() {
            let u = self.unsaved.kept.remove(0);
            match self.save_rows(u.index, &u.record, &u.rows) {
                Ok(saved) => ids.extend(saved.iter().map(|d| d.id)),
                Err((e, true)) => {
                    tracing::debug!(error = %e, "retry: the database is still unreachable or busy");
                    self.unsaved.kept.insert(0, u);
                    self.unsaved.next = Some(now + RETRY_EVERY);
                    self.unsaved.busy = e == crate::tui::log::BUSY;
                    self.status = Status::Error(self.unsaved_status());
                    return;
                }
                // Refused (not a lost connection): no more tries, and new decisions are taken
                // again; what the reviewer did (these and those kept after them, which may
                // build on them) waits for the rescue file rather than being lost.
                Err((e, false)) => {
                    tracing::error!(error = %e, "kept decisions refused on a retry");
                    self.unsaved.refused.extend(u.rows);
                    let rest = std::mem::take(&mut self.unsaved.kept);
                    self.unsaved
                        .refused
                        .extend(rest.into_iter().flat_map(|u| u.rows));
                    self.status =
                        Status::Error(strings::refused_on_retry(&e, self.unsaved.refused.len()));
                    self.reload_kept();
                    return;
                }
            }
        }
        tracing::info!(?ids, "kept decisions saved on a retry");
        self.status = Status::Saved(strings::saved_on_retry(&ids));
    }

    /// The record on screen read again when it shows kept decisions that are no longer kept
    /// (refused on a retry): the screen shows what the log holds.
    fn reload_kept(&mut self) {
        let Ok(c) = &self.cur else { return };
        if c.decisions
            .iter()
            .any(|d| d.id >= crate::store::PROVISIONAL)
        {
            if let Ok(log) = self.log.record_decisions(&self.dataset.name, &c.record.id) {
                if let Ok(c) = &mut self.cur {
                    c.decisions = log;
                }
                self.reload_review();
            }
        }
    }

    /// Quit asked: with decisions kept, the first press says what will happen to them and
    /// the second quits.
    pub(super) fn quit_or_ask(&mut self) {
        if self.has_unsaved() && !self.unsaved.quit_asked {
            self.unsaved.quit_asked = true;
            let n = self.unsaved_rows().len();
            self.status = Status::Error(strings::quit_with_unsaved(n));
        } else {
            self.quit = true;
        }
    }
}
