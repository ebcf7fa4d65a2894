//! Background clustering feeding the app: scores into the disputed queue (file order while it
//! runs, sorted after the cursor when it ends) and unanimous records auto-accepted.

use std::time::Duration;

use super::{App, Status};
use crate::review::decision::{ActionKind, Decision};
use crate::store::RecordState;
use crate::tui::clustering::Scored;
use crate::tui::queue::QueueKind;
use crate::tui::strings;

impl App {
    /// Block up to `max` until the background work (the index, then the clustering) reports,
    /// for a caller with nothing else to do meanwhile (a test or bench waiting for
    /// [`App::busy`] to end), instead of calling [`App::idle`] on a timer.
    pub fn wait_background(&mut self, max: Duration) {
        if !self.dataset.indexed() {
            self.poll_index(max);
        } else if self.wait_clustering(max) {
            self.finish_clustering_if_done();
        }
    }

    /// Wait up to `max` for the running clustering's next scores and take them in; false
    /// when no clustering is running.
    pub(super) fn wait_clustering(&mut self, max: Duration) -> bool {
        let Some(cl) = self.clustering.as_mut().filter(|c| !c.finished) else {
            return false;
        };
        let batch = cl.wait(max);
        self.absorb(batch);
        true
    }

    // ----- background clustering -----

    /// Take in background scores: disputed records join the disputed queue (file order while
    /// clustering runs); unanimous ones are accepted when `--auto-accept-unanimous` is on.
    pub(super) fn absorb(&mut self, batch: Vec<Scored>) {
        for s in batch {
            if self.arb_config.auto_accept && s.unanimous {
                self.pending_accepts.push_back(s.clone());
            }
            if s.score.is_disputed() {
                self.scores.insert(s.index, s.score);
                if self.queue.kind == QueueKind::Disputed {
                    let reviewed = self.states.get(&s.id).is_some_and(|st| st.reviewed);
                    self.queue.push(s.index, reviewed);
                }
            }
        }
    }

    /// Drain up to `max` background scores; when clustering has finished, sort the queue.
    pub(super) fn drain_clustering(&mut self, max: usize) {
        let Some(cl) = self.clustering.as_mut() else {
            return;
        };
        let batch = cl.drain(max);
        self.absorb(batch);
        if self.cur.is_err() && !self.queue.members().is_empty() {
            let start = self.first_unreviewed();
            self.go(start);
        }
        self.finish_clustering_if_done();
    }

    fn first_unreviewed(&self) -> usize {
        self.queue
            .members()
            .iter()
            .position(|&i| {
                let id = self.dataset.primary().id(i).ok();
                !id.and_then(|id| self.states.get(&id))
                    .is_some_and(|s| s.reviewed)
            })
            .unwrap_or(0)
    }

    /// Once clustering has finished: the disputed queue after the record on screen is sorted
    /// most disputed first ([`RecordScore::queue_cmp`](crate::review::disagreement::RecordScore::queue_cmp));
    /// the record on screen and those before it stay put.
    pub(super) fn finish_clustering_if_done(&mut self) {
        let Some(cl) = &self.clustering else { return };
        if !cl.finished || self.queue.complete(&self.dataset) {
            return;
        }
        if self.queue.kind == QueueKind::Disputed {
            let keep = self.cur.is_ok().then_some(self.pos);
            let scores = &self.scores;
            self.queue.finish(self.dataset.len(), keep, |a, b| {
                match (scores.get(&a), scores.get(&b)) {
                    (Some(x), Some(y)) => x.queue_cmp(y),
                    _ => std::cmp::Ordering::Equal,
                }
            });
            if self.cur.is_err() {
                self.go(0);
            }
        }
    }

    /// Save pending auto-accepts for up to `budget`, in batches of up to [`ACCEPT_BATCH`]
    /// records per transaction (one fsync each: a large file's unanimous records are accepted
    /// over a few idle ticks, keys staying responsive). True while some are left.
    pub(super) fn save_pending_accepts(&mut self, budget: std::time::Duration) -> bool {
        let t0 = std::time::Instant::now();
        while t0.elapsed() < budget && !self.pending_accepts.is_empty() {
            let mut batch = Vec::new();
            while batch.len() < ACCEPT_BATCH {
                let Some(s) = self.pending_accepts.pop_front() else {
                    break;
                };
                if let Some(row) = self.auto_accept_row(&s) {
                    batch.push((s, row));
                }
            }
            self.save_accepts(batch);
        }
        !self.pending_accepts.is_empty()
    }

    /// The decision and state that accept a unanimous record nobody has decided on yet (and
    /// not on screen: the reviewer is looking at it): one `accept_all` row marked
    /// [`Decision::auto`] (reason "auto: unanimous", for humans; undoable from the record).
    /// `None` for any other record.
    fn auto_accept_row(&self, s: &Scored) -> Option<(Decision, RecordState)> {
        let on_screen = self.cur.as_ref().is_ok_and(|c| c.index == s.index);
        if self.states.contains_key(&s.id) || on_screen {
            return None;
        }
        // Only a record read in full carries its real hash (a skimmed one has no context).
        let Some(hash) = s.hash.clone() else {
            tracing::warn!(record = %s.id, "auto-accept skipped: record not read in full");
            return None;
        };
        let d = Decision {
            reason: Some(strings::AUTO_UNANIMOUS.to_owned()),
            auto: true,
            ..Decision::about(
                &self.dataset.name,
                &self.reviewer,
                &s.id,
                &hash,
                ActionKind::AcceptAll,
            )
        };
        let state = RecordState {
            reviewed: true,
            flagged: false,
            outcome: crate::review::decision::OutcomeKind::Open,
            stale: false,
        };
        Some((d, state))
    }

    /// Save a batch of auto-accepts in one transaction; on success mark each record saved
    /// reviewed. A record someone decided on meanwhile is skipped by the log (the team poll
    /// brings their decision).
    fn save_accepts(&mut self, batch: Vec<(Scored, (Decision, RecordState))>) {
        if batch.is_empty() {
            return;
        }
        let rows: Vec<(Decision, RecordState)> = batch.iter().map(|(_, r)| r.clone()).collect();
        match self.log.append_auto_accepts(&rows) {
            Ok(saved) => {
                let mut saved = saved.into_iter().peekable();
                for (s, (_, state)) in batch {
                    let Some(d) = saved.next_if(|d| d.record_id == s.id) else {
                        tracing::info!(record = %s.id, "auto-accept skipped: decided meanwhile");
                        continue;
                    };
                    tracing::info!(id = d.id, record = %d.record_id, "auto-accepted (unanimous)");
                    self.set_state(s.index, &s.id, state);
                    self.auto_accepted += 1;
                    self.auto_agreements.insert(s.index, (s.id, s.agreements));
                }
            }
            Err(e) => {
                tracing::error!(records = rows.len(), error = %e, "auto-accepts NOT saved");
                self.status = Status::Error(strings::not_saved(&e));
            }
        }
    }
}

/// Auto-accepts saved per transaction.
const ACCEPT_BATCH: usize = 256;
