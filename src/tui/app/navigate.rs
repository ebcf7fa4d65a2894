//! Moving through the queue: the next or previous record, going to a position or an id, and
//! reading a record with its decisions replayed.

use std::time::Instant;

use super::{indexing, App, Current, Hits, ModeState, Scrolls, Status};
use crate::formats::judges::is_reviewer_source;
use crate::model::offsets::CharMap;
use crate::model::Record;
use crate::review::decision::{replay, Decision, RecordReview};
use crate::review::team::blind_view;
use crate::tui::code::Code;
use crate::tui::queue::QueueKind;
use crate::tui::rows::Layouts;
use crate::tui::{evidence, strings};

impl App {
    pub(super) fn step_record(&mut self, delta: isize) {
        if delta < 0 && self.pos == 0 {
            self.status = Status::Info(strings::QUEUE_START.to_owned());
            return;
        }
        let mut to = self.pos.saturating_add_signed(delta);
        if delta > 0 {
            to = self.pass_over_claimed(to);
        }
        if self.queue_get(to, self.index_wait).is_none() {
            if !self.dataset.indexed() && self.queue.kind != QueueKind::Disputed {
                return self.wait_to_go(indexing::Pending::Pos(to));
            }
            let more = self.clustering.as_ref().is_some_and(|c| !c.finished)
                && self.queue.kind == QueueKind::Disputed;
            self.status = Status::Info(
                if self.clustering_deferred && self.queue.kind == QueueKind::Disputed {
                    strings::DISPUTED_WAITS_FOR_INDEX
                } else if more {
                    strings::DISPUTED_END_FOR_NOW
                } else {
                    strings::QUEUE_END
                }
                .to_owned(),
            );
            return;
        }
        self.go(to);
    }

    /// Go to the next flagged record after the one on screen, in queue order, wrapping to the
    /// queue's start; says so when there is none. Walks the whole queue (scanning it).
    pub(super) fn next_flagged(&mut self) {
        let flagged = |app: &Self, idx: usize| {
            app.dataset
                .primary()
                .id(idx)
                .ok()
                .and_then(|id| app.states.get(&id))
                .is_some_and(|s| s.flagged)
        };
        let mut pos = self.pos + 1;
        let mut wrapped = false;
        loop {
            if wrapped && pos > self.pos {
                break;
            }
            match self.queue_get(pos, self.index_wait) {
                Some(idx) if flagged(self, idx) => {
                    if pos == self.pos {
                        break;
                    }
                    self.go(pos);
                    self.status = Status::Info(strings::next_flagged(wrapped));
                    return;
                }
                Some(_) => pos += 1,
                None if !wrapped => {
                    wrapped = true;
                    pos = 0;
                }
                None => break,
            }
        }
        self.status = Status::Info(strings::NO_OTHER_FLAGGED.to_owned());
    }

    pub(super) fn go_last(&mut self) {
        let indexed = self.wait_for_index();
        while self.queue.scan(10_000, &self.dataset, &self.states) {}
        let n = self.queue.known(&self.dataset);
        self.go(n.saturating_sub(1));
        if !indexed {
            self.status = Status::Info(strings::not_indexed_yet(self.dataset.len()));
        }
    }

    /// Show queue position `pos` (clamped to the queue).
    pub fn go(&mut self, pos: usize) {
        let Some(idx) = self
            .queue
            .get(pos, &self.dataset, &self.states)
            .or_else(|| {
                let n = self.queue.known(&self.dataset);
                (n > 0)
                    .then(|| self.queue.get(n - 1, &self.dataset, &self.states))
                    .flatten()
            })
        else {
            self.cur = Err(strings::QUEUE_EMPTY.to_owned());
            return;
        };
        self.pos = self.queue.force(idx);
        self.load(idx);
    }

    /// Show dataset index `idx`, adding it to the queue when it is not a member.
    pub fn go_index(&mut self, idx: usize) {
        self.pos = self.queue.force(idx);
        self.load(idx);
    }

    pub(super) fn load(&mut self, idx: usize) {
        // The last message was about the record left ("all clusters resolved", a search's
        // matches): it does not follow to another record (a decision that moves on, `A`,
        // says it saved after the move).
        if self.cur.as_ref().map_or(true, |c| c.index != idx) {
            self.status = Status::None;
        }
        self.scroll = Scrolls::default();
        self.mode = ModeState::Normal;
        self.pending = None;
        self.cur = self.read(idx);
        self.follow.unread = self.cur.as_ref().err().map(|e| (idx, e.clone()));
        if let Ok(c) = &self.cur {
            let id = c.record.id.clone();
            self.ids.insert(id.clone(), idx);
            // The log just read is the record's state: another reviewer's decisions on it that
            // no poll has brought yet count now (the poll leaves the record on screen to the
            // follow, which finds nothing new in what was read here).
            // (The whole log's state, also while blind review shows less of it.)
            let state = crate::tui::log::state_of(&replay(&c.record, &c.decisions));
            if !c.decisions.is_empty() && self.states.get(&id) != Some(&state) {
                self.set_state(idx, &id, state);
            }
            let reviewed = self.states.get(&id).is_some_and(|s| s.reviewed);
            let counted = self.queue_reviewed(&id, reviewed);
            self.queue.mark_member(idx, counted);
            if self.visited_set.insert(idx) {
                self.visited.push(idx);
            }
        }
        self.refresh_hits();
        self.placing = None;
        self.load_arb();
        self.claim_current();
    }

    pub(super) fn read(&self, idx: usize) -> Result<Current, String> {
        let record = self
            .arb_config
            .read(&self.dataset, idx)
            .map_err(|e| e.to_string())?;
        let decisions = self.log.record_decisions(&self.dataset.name, &record.id)?;
        // Decisions kept for a retry (the database busy) are shown as made.
        let decisions = self.with_kept(&record.id, decisions);
        let mut record = record;
        if self.hides_others(&record.id) {
            // The others' results as lanes (`reviewer:NAME`) are hidden too.
            record.sources.retain(|s| !is_reviewer_source(&s.name));
        }
        let review = self.shown_review(&record, &decisions);
        let context = evidence::pretty_context(&record.context);
        let context_code = Code::new(&context);
        let output_code = Code::for_answer(&record.output, &context_code);
        let mut c = Current {
            index: idx,
            chars: record.output.chars().collect(),
            map: CharMap::new(&record.output),
            context_folded: evidence::Folded::new(&context),
            query_folded: evidence::Folded::new(&record.query),
            output_folded: std::cell::OnceCell::new(),
            context,
            record,
            decisions,
            review,
            order: Vec::new(),
            selected: 0,
            hits: Hits::default(),
            context_rows: Layouts::with_tab(context_code.tab()),
            output_rows: Layouts::with_tab(output_code.tab()),
            context_code,
            output_code,
        };
        c.reorder(None);
        Ok(c)
    }

    /// Reload the record on screen from the log (after a decision), keeping the selection.
    pub(super) fn reload_review(&mut self) {
        let Ok(c) = &self.cur else { return };
        let review = self.shown_review(&c.record, &c.decisions);
        if let Ok(c) = &mut self.cur {
            let keep = c.selected_span().map(|i| c.review.spans[i].key.clone());
            c.review = review;
            c.reorder(keep.as_ref());
        }
    }

    /// Open or leave the arbitration screen; the record on screen is read again when blind
    /// review hides the others' work on one screen and not on the other.
    pub(super) fn set_arbitrating(&mut self, on: bool) {
        let Ok(id) = self.cur.as_ref().map(|c| c.record.id.clone()) else {
            self.arbitrating = on;
            return;
        };
        let was = self.hides_others(&id);
        self.arbitrating = on;
        if was != self.hides_others(&id) {
            if let Some(Ok(c)) = self.cur.as_ref().ok().map(|c| self.read(c.index)) {
                self.cur = Ok(c);
            }
        }
    }

    /// Blind review hides the other reviewers' work on record `id` from this screen until
    /// this reviewer has decided it ([`blind_view`]): with `--blind` (outside the arbitration
    /// screen and its `disputed` queue, where `--blind` keeps its own meaning), and by default
    /// on an overlap record the plan gives this reviewer and another (`--see-others` shows
    /// them).
    #[must_use]
    pub fn hides_others(&self, id: &str) -> bool {
        if self.arbitrating || self.queue.kind == QueueKind::Disputed {
            return false;
        }
        let overlap = self
            .team
            .plan
            .as_ref()
            .is_some_and(|p| p.shared.contains(id));
        self.arb_config.blind || (overlap && !self.arb_config.see_others)
    }

    /// `record`'s review as this screen shows it: `decisions` replayed, or only this
    /// reviewer's own while blind review hides the others' ([`App::hides_others`]).
    pub(super) fn shown_review(&self, record: &Record, decisions: &[Decision]) -> RecordReview {
        match self
            .hides_others(&record.id)
            .then(|| blind_view(record, decisions, &self.reviewer))
            .flatten()
        {
            Some(own) => replay(record, &own),
            None => replay(record, decisions),
        }
    }

    /// Dataset index of record `id`, reading ids forward as needed.
    pub(super) fn find_id(&mut self, id: &str) -> Option<usize> {
        if let Some(i) = self.ids.get(id) {
            return Some(i);
        }
        let t0 = Instant::now();
        loop {
            if let Some(i) = self.find_id_indexed(id) {
                return Some(i);
            }
            let left = self.index_wait.saturating_sub(t0.elapsed());
            if self.dataset.indexed() || !self.poll_index(left) {
                return None;
            }
        }
    }

    /// [`App::find_id`] among the records indexed so far.
    pub(super) fn find_id_indexed(&mut self, id: &str) -> Option<usize> {
        self.ids.scan(&self.dataset, |rid| rid == id)
    }
}
