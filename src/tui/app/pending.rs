//! Decisions not saved because the database was unreachable (a lost PostgreSQL connection):
//! kept with their origins and saved again on the idle tick, once a second by the log's clock,
//! until the database takes them. While some are kept, new decisions are refused (the screen
//! does not show the kept ones, so a decision made on top of them could be wrong); reading and
//! moving go on. The same origins are given on every try, so a COMMIT that landed while its
//! reply was lost is not saved twice. A retry the database refuses (not a lost connection)
//! ends the tries, but its decisions are not dropped: they wait for the rescue file. Quitting
//! with any not saved asks once, then hands them to the caller, which writes them to a rescue
//! file for `spanreview apply`.

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
    kept: Option<Unsaved>,
    /// Refused on a retry: no more tries; written to the rescue file at quit.
    refused: Vec<(Decision, String)>,
    /// The reviewer pressed quit once (the next quit quits).
    quit_asked: bool,
}

/// Decisions kept for a retry.
#[derive(Debug)]
struct Unsaved {
    /// The record they are on (it may no longer be on screen), and its dataset index.
    index: usize,
    record: Record,
    /// The decisions in order, each with its origin.
    rows: Vec<(Decision, String)>,
    /// When the next try is due.
    next: SystemTime,
    /// The last try found the write lock held elsewhere (not the database unreachable).
    busy: bool,
}

impl App {
    /// Keep `rows` (on dataset record `index`) for a retry after a lost connection; returns
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
            "database unreachable; decisions kept for a retry"
        );
        self.unsaved.kept = Some(Unsaved {
            index,
            record,
            rows,
            next: self.log.now() + RETRY_EVERY,
            busy: error == crate::tui::log::BUSY,
        });
        self.unsaved_status()
    }

    /// The status line while decisions are kept ("NOT saved yet …").
    fn unsaved_status(&self) -> String {
        match &self.unsaved.kept {
            Some(u) if u.busy => strings::waiting_for_db(u.rows.len()),
            u => strings::not_saved_yet(u.as_ref().map_or(0, |u| u.rows.len())),
        }
    }

    /// Why a new decision is refused now (decisions are kept), or `None`.
    pub(super) fn unsaved_refusal(&self) -> Option<String> {
        self.unsaved
            .kept
            .as_ref()
            .map(|_| strings::refused_while_unsaved(&self.unsaved_status()))
    }

    /// True while decisions are kept for a retry.
    #[must_use]
    pub fn retrying(&self) -> bool {
        self.unsaved.kept.is_some()
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

    /// Save the kept decisions again when the try is due (the idle tick).
    pub(super) fn retry_unsaved(&mut self) {
        let now = self.log.now();
        let Some(u) = self.unsaved.kept.take_if(|u| u.next <= now) else {
            return;
        };
        match self.save_rows(u.index, &u.record, &u.rows) {
            Ok(saved) => {
                let ids: Vec<i64> = saved.iter().map(|d| d.id).collect();
                tracing::info!(?ids, "kept decisions saved on a retry");
                self.status = Status::Saved(strings::saved_on_retry(&ids));
            }
            Err((e, true)) => {
                tracing::debug!(error = %e, "retry: the database is still unreachable or busy");
                self.unsaved.kept = Some(Unsaved {
                    next: now + RETRY_EVERY,
                    busy: e == crate::tui::log::BUSY,
                    ..u
                });
                self.status = Status::Error(self.unsaved_status());
            }
            // Refused (not a lost connection): no more tries, and new decisions are taken
            // again; what the reviewer did waits for the rescue file rather than being lost.
            Err((e, false)) => {
                tracing::error!(error = %e, "kept decisions refused on a retry");
                self.unsaved.refused.extend(u.rows);
                self.status =
                    Status::Error(strings::refused_on_retry(&e, self.unsaved.refused.len()));
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
