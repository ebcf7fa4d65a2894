//! A file still being indexed in the background (a lazy open, see
//! [`Dataset::open_lazy`](crate::formats::Dataset::open_lazy)): records are taken in on idle
//! ticks; a move past the part indexed so far waits a little, then is remembered and made when
//! the index gets there; the clustering of the `disputed` queue and of auto-accept starts once
//! every record is indexed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{App, Status};
use crate::tui::clustering::Clustering;
use crate::tui::queue::QueueKind;
use crate::tui::strings;

/// How long a move past the indexed part waits for the index before it is left pending: the
/// index grows by megabytes in milliseconds, so the next record is nearly always there in time.
pub const INDEX_WAIT: Duration = Duration::from_millis(250);

/// A move waiting for the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pending {
    /// The first record of the queue not reviewed (opening), looked for from this position.
    Resume(usize),
    /// A queue position.
    Pos(usize),
}

impl App {
    /// Take in what the background indexer found, waiting up to `wait` when it has nothing new;
    /// true when something changed (records added, the index completed or failed). Completion
    /// starts the clustering that waited for it.
    pub(super) fn poll_index(&mut self, wait: Duration) -> bool {
        if self.dataset.indexed() {
            return false;
        }
        // Nothing else holds the dataset before it is indexed (clustering waits for it).
        let Some(ds) = Arc::get_mut(&mut self.dataset) else {
            tracing::error!("the dataset is shared before it is indexed: indexing not taken in");
            return false;
        };
        let changed = match ds.poll_index(wait) {
            Ok(n) => n > 0 || ds.indexed(),
            Err(e) => {
                tracing::error!(error = %e, "background indexing stopped");
                self.status = Status::Error(strings::index_failed(&e));
                true
            }
        };
        if self.dataset.indexed() {
            tracing::info!(records = self.dataset.len(), "indexed");
            if self.clustering_deferred {
                self.clustering_deferred = false;
                self.start_clustering();
                if self.queue.kind == QueueKind::Disputed && self.cur.is_err() {
                    self.cur = Err(strings::NO_DISPUTED_YET.to_owned());
                }
            }
        }
        changed
    }

    /// Start the background clustering, or leave it for when the dataset is indexed.
    pub(super) fn start_clustering(&mut self) {
        if self.dataset.indexed() {
            self.clustering = Some(Clustering::start(
                Arc::clone(&self.dataset),
                &self.arb_config,
            ));
        } else {
            self.clustering_deferred = true;
        }
    }

    /// Dataset index at queue position `pos`, waiting up to `wait` for the index when the
    /// position lies past the records indexed so far. `None` past the end, or past
    /// what the index reached in that time ([`Dataset::indexed`](crate::formats::Dataset::indexed)
    /// tells which).
    pub(super) fn queue_get(&mut self, pos: usize, wait: Duration) -> Option<usize> {
        let t0 = Instant::now();
        loop {
            if let Some(i) = self.queue.get(pos, &self.dataset, &self.states) {
                return Some(i);
            }
            if self.dataset.indexed() || self.queue.kind == QueueKind::Disputed {
                return None;
            }
            let left = wait.saturating_sub(t0.elapsed());
            if !self.poll_index(left) {
                return None;
            }
        }
    }

    /// Wait up to [`App::index_wait`] for the whole index; true when it is complete.
    pub(super) fn wait_for_index(&mut self) -> bool {
        let t0 = Instant::now();
        while !self.dataset.indexed() {
            let left = self.index_wait.saturating_sub(t0.elapsed());
            if !self.poll_index(left) {
                return false;
            }
        }
        true
    }

    /// Remember a move the index has not reached yet, and say so.
    pub(super) fn wait_to_go(&mut self, pending: Pending) {
        self.pending = Some(pending);
        self.status = Status::Info(strings::not_indexed_yet(self.dataset.len()));
    }

    /// An idle tick while indexing: take in what the indexer found and make the move that
    /// waited for it, when the index has reached it.
    pub(super) fn index_tick(&mut self) {
        if !self.poll_index(Duration::ZERO) {
            return;
        }
        match self.pending {
            Some(Pending::Resume(from)) => {
                let start = self.resume_position(from, Duration::ZERO);
                if self.pending.is_none() {
                    self.go(start);
                }
            }
            Some(Pending::Pos(p)) => {
                if self.queue.get(p, &self.dataset, &self.states).is_some() {
                    self.go(p);
                } else if self.dataset.indexed() {
                    self.pending = None;
                    self.status = Status::Info(strings::QUEUE_END.to_owned());
                }
            }
            None => {}
        }
    }
}
