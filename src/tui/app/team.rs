//! The team on the review screen (see [`crate::tui::team_model`]): the `mine` queue at open,
//! the claim on the record shown, moves passing over records others are on, and polling the
//! team's new decisions into the stored states, the progress counts and the reviewer sources.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use super::{App, ModeState, PlanAtOpen, Status};
use crate::formats::judges::{is_reviewer_source, Judges, LoadedSource};
use crate::model::{Record, Span};
use crate::review::decision::{replay, Decision};
use crate::store::claims::{Claim, CLAIM_RENEW};
use crate::tui::log::state_of;
use crate::tui::queue::QueueKind;
use crate::tui::strings::team as s;
use crate::tui::team_model::{LiveSources, PlanView};

/// How often an open screen polls the team's new decisions (by the log's clock).
const POLL_EVERY: Duration = Duration::from_millis(900);

/// Records a poll reads at most.
const POLL_RECORDS: usize = 256;

impl App {
    /// At open: where polling starts, the plan (this reviewer's share and what they have
    /// reviewed of it; `read` when the caller has read it, else read here), and the `mine`
    /// queue's members.
    ///
    /// # Errors
    /// `--queue mine` without a plan, or with none of its records for this reviewer; the
    /// database cannot be read.
    pub(super) fn open_team(&mut self, plan: PlanAtOpen) -> Result<(), String> {
        let name = self.dataset.name.clone();
        let team = self.log.team();
        if let Some(tl) = team {
            self.team.seen = tl.last_decision_id()?;
        }
        let plan = match (plan, team) {
            (PlanAtOpen::Read(plan), _) => plan,
            (PlanAtOpen::Unread, Some(tl)) => tl.plan(&name)?,
            (PlanAtOpen::Unread, None) => None,
        };
        let Some(plan) = plan else {
            if self.queue.kind == QueueKind::Mine {
                return Err(s::no_plan(&name));
            }
            return Ok(());
        };
        let mut view = PlanView::new(&plan, &self.reviewer);
        if self.queue.kind == QueueKind::Mine && view.mine.is_empty() {
            return Err(s::not_in_plan(&self.reviewer, &name, &view.reviewers));
        }
        let mut own: HashMap<String, Vec<Decision>> = HashMap::new();
        for d in self.log.reviewer_log(&name, &self.reviewer)? {
            if view.mine.contains(&d.record_id) {
                own.entry(d.record_id.clone()).or_default().push(d);
            }
        }
        for i in 0..self.dataset.len() {
            let Ok(id) = self.dataset.primary().id(i) else {
                continue;
            };
            if !view.mine.contains(&id) {
                continue;
            }
            let done = own.get(&id).is_some_and(|ds| {
                self.dataset
                    .record(i)
                    .is_ok_and(|r| reviewed_by(&r, ds, &self.reviewer))
            });
            if done {
                view.done.insert(id);
            } else if self.queue.kind == QueueKind::Mine {
                self.queue.force(i);
            }
        }
        view.team_done = count_reviewed(&view.records, &self.states);
        self.team.plan = Some(view);
        Ok(())
    }

    /// Refresh the `reviewer:NAME` sources live with `f` (the `review` command's computation).
    pub fn set_live_sources(&mut self, f: LiveSources) {
        self.team.live = Some(f);
    }

    /// The header's team progress: `mine 12/250 · team 140/1000` (with a plan), or `none
    /// assigned to you · team 140/1000` for a reviewer the plan leaves out.
    #[must_use]
    pub fn team_line(&self) -> Option<String> {
        let p = self.team.plan.as_ref()?;
        if self.blind_everywhere() {
            return Some(format!(
                "mine {}/{} · {}",
                p.done.len(),
                p.mine.len(),
                s::TEAM_HIDDEN
            ));
        }
        let team_done = p.team_done.saturating_sub(self.reviewed_unseen());
        if p.mine.is_empty() {
            return Some(s::progress_unassigned(team_done, p.records.len()));
        }
        Some(s::progress(
            p.done.len(),
            p.mine.len(),
            team_done,
            p.records.len(),
        ))
    }

    /// Set the rubber-stamp alarm's warnings about this reviewer
    /// ([`crate::review::second_pass`]), shown in the header.
    pub fn set_alarm(&mut self, warnings: Vec<String>) {
        self.team.alarm = warnings;
    }

    /// The rubber-stamp alarm's warnings about this reviewer (empty: silent).
    #[must_use]
    pub fn alarm(&self) -> &[String] {
        &self.team.alarm
    }

    /// `--blind` outside arbitration: every record's others' work is hidden until this
    /// reviewer decides it, so no count of what anyone reviewed may be shown (a record another
    /// reviewer decided would not move it when this one decides it).
    #[must_use]
    pub fn blind_everywhere(&self) -> bool {
        self.arb_config.blind && !self.arbitrating && self.queue.kind != QueueKind::Disputed
    }

    /// Whether the counts of reviewed records are this screen's to hide: with `--blind`, or a
    /// plan with overlap records and no `--see-others` (decided by the options, never by the
    /// data: a count that vanished would tell as much).
    #[must_use]
    pub fn counts_hidden(&self) -> bool {
        if self.arbitrating || self.queue.kind == QueueKind::Disputed {
            return false;
        }
        let overlap = self
            .team
            .plan
            .as_ref()
            .is_some_and(|p| !p.shared.is_empty());
        self.arb_config.blind || (overlap && !self.arb_config.see_others)
    }

    /// The overlap records this screen shows blind ([`App::hides_others`]: not yet decided by
    /// this reviewer) that another reviewer's decisions left reviewed: the counts leave them
    /// out, so they move as if nobody else had decided them.
    #[must_use]
    pub fn reviewed_unseen(&self) -> usize {
        let Some(p) = self.team.plan.as_ref() else {
            return 0;
        };
        if !self.counts_hidden() {
            return 0;
        }
        p.shared
            .iter()
            .filter(|id| !p.done.contains(*id))
            .filter(|id| self.states.get(*id).is_some_and(|st| st.reviewed))
            .count()
    }

    /// Who else is on the record on screen (holds its claim), if anyone. Not said in the
    /// `mine` queue of a record the plan gives this reviewer: an overlap record is reviewed by
    /// each of its reviewers, independently.
    #[must_use]
    pub fn held_by(&self) -> Option<&str> {
        let (id, who) = self.team.held.as_ref()?;
        let c = self.cur.as_ref().ok()?;
        let planned = self.queue.kind == QueueKind::Mine
            && self.team.plan.as_ref().is_some_and(|p| p.mine.contains(id));
        (c.record.id == *id && !planned).then_some(who.as_str())
    }

    /// Whether opening passes over dataset index `idx` to resume: reviewed (in the `mine`
    /// queue: by this reviewer), or, in the `unreviewed` queue, claimed by another reviewer
    /// (`others`).
    pub(super) fn resume_passes(&self, idx: usize, others: &HashMap<String, String>) -> bool {
        let Ok(id) = self.dataset.primary().id(idx) else {
            return false;
        };
        if self.queue.kind == QueueKind::Mine {
            return self
                .team
                .plan
                .as_ref()
                .is_some_and(|p| p.done.contains(&id));
        }
        self.states.get(&id).is_some_and(|s| s.reviewed)
            || (self.queue.kind == QueueKind::Unreviewed && others.contains_key(&id))
    }

    /// The other reviewers' live claims, for the `unreviewed` queue's moves (empty for other
    /// queues, or when they cannot be read: a move then goes where it would alone).
    pub(super) fn claims_of_others(&self) -> HashMap<String, String> {
        let Some(tl) = self.log.team() else {
            return HashMap::new();
        };
        if self.queue.kind != QueueKind::Unreviewed {
            return HashMap::new();
        }
        tl.claims_of_others(&self.dataset.name, &self.reviewer)
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "claims not read");
                HashMap::new()
            })
    }

    /// The first queue position from `to` whose record no other reviewer is on and no other
    /// reviewer reviewed this session (the `unreviewed` queue); `to` itself when there is none.
    /// Says how many were passed over.
    pub(super) fn pass_over_claimed(&mut self, to: usize) -> usize {
        if self.queue.kind != QueueKind::Unreviewed {
            return to;
        }
        let others = self.claims_of_others();
        let mut p = to;
        while let Some(idx) = self.queue.get(p, &self.dataset, &self.states) {
            let claimed = self
                .dataset
                .primary()
                .id(idx)
                .is_ok_and(|id| others.contains_key(&id));
            if !claimed && !self.team.done_elsewhere.contains(&idx) {
                // Said once the record is shown (showing another record clears the status).
                self.team.passed = p - to;
                return p;
            }
            p += 1;
        }
        to
    }

    /// Claim the record on screen (releasing the one left); when another reviewer holds it,
    /// say who ("ana is on it") — the record stays viewable. Also says what the move passed
    /// over.
    pub(super) fn claim_current(&mut self) {
        let passed = std::mem::take(&mut self.team.passed);
        if passed > 0 {
            self.status = Status::Info(s::passed_over(passed));
        }
        let Ok(c) = &self.cur else { return };
        let id = c.record.id.clone();
        if self.team.claimed.as_ref().is_some_and(|(r, _)| *r == id) {
            return;
        }
        self.claim(&id);
        if let Some(who) = self.held_by() {
            self.status = Status::Info(s::on_it(who));
        }
    }

    /// Claim (or renew the claim on) record `id`, releasing the one held before.
    fn claim(&mut self, id: &str) {
        let Some(tl) = self.log.team() else { return };
        let leaving = self.team.claimed.as_ref().map(|(r, _)| r.clone());
        match tl.claim(&self.dataset.name, id, &self.reviewer, leaving.as_deref()) {
            Ok(Claim::Won { .. }) => {
                self.team.claimed = Some((id.to_owned(), self.log.now()));
                // The holder left: "… is on it" is no longer true.
                if let Some((_, who)) = self.team.held.take() {
                    if self.status == Status::Info(s::on_it(&who)) {
                        self.status = Status::None;
                    }
                }
            }
            Ok(Claim::Held { by }) => {
                self.team.claimed = None;
                self.team.held = Some((id.to_owned(), by));
            }
            Err(e) => tracing::warn!(record = %id, error = %e, "claim not saved"),
        }
    }

    /// Release this reviewer's claims (the screen closes).
    pub fn release_claims(&mut self) {
        let Some(tl) = self.log.team() else { return };
        if let Err(e) = tl.release_claims(&self.dataset.name, &self.reviewer) {
            tracing::warn!(error = %e, "claims not released; they expire by themselves");
        }
        self.team.claimed = None;
    }

    /// Poll the team when [`POLL_EVERY`] has passed: renew the claim on the record on screen
    /// when due (or take it once its holder left), and take in the team's new decisions.
    pub(super) fn team_if_due(&mut self) {
        let now = self.log.now();
        if !super::due(now, self.team.polled, POLL_EVERY) {
            return;
        }
        self.team.polled = Some(now);
        let here = self.cur.as_ref().ok().map(|c| c.record.id.clone());
        if let Some(id) = here {
            let held = self
                .team
                .held
                .as_ref()
                .filter(|(r, _)| *r == id)
                .map(|(_, who)| who.clone());
            let renew = match (&self.team.claimed, held) {
                (Some((r, at)), _) if *r == id => super::due(now, Some(*at), CLAIM_RENEW),
                // Someone else's: take it once they have let go (or it expired).
                (_, Some(who)) => {
                    let others = self.log.team().and_then(|tl| {
                        tl.claims_of_others(&self.dataset.name, &self.reviewer).ok()
                    });
                    others.is_some_and(|o| o.get(&id) != Some(&who))
                }
                _ => true,
            };
            if renew {
                self.claim(&id);
            }
        }
        self.poll_team();
    }

    /// Renew the claim on the record on screen when [`CLAIM_RENEW`] has passed: called on
    /// every key too, so a reviewer working without a pause keeps their record.
    pub(super) fn renew_claim_if_due(&mut self) {
        let Some((id, at)) = &self.team.claimed else {
            return;
        };
        let here = self.cur.as_ref().is_ok_and(|c| c.record.id == *id);
        if here && super::due(self.log.now(), Some(*at), CLAIM_RENEW) {
            let id = id.clone();
            self.claim(&id);
        }
    }

    /// Take in the decisions saved on the dataset since the last poll (every reviewer's, this
    /// one's too): the records' stored states, this reviewer's and the team's progress, the
    /// record on screen (followed with the log read here), and, when followed live, the
    /// reviewer sources of arbitration and the disputed queue.
    pub fn poll_team(&mut self) {
        let Some(tl) = self.log.team() else { return };
        let new = match tl.decisions_after(&self.dataset.name, self.team.seen) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "the team's decisions not read");
                return;
            }
        };
        // This screen's own auto-accepts are known already (saved with their states): a large
        // file's thousands of them are not read again. At most POLL_RECORDS records are read
        // per poll (a bulk `apply` elsewhere does not freeze the screen); the rest next time.
        let here = self.cur.as_ref().ok().map(|c| c.record.id.clone());
        let mut ids: Vec<&str> = Vec::new();
        let mut listed: HashSet<&str> = HashSet::new();
        let mut auto: HashSet<&str> = HashSet::new();
        for d in &new {
            let id = d.record_id.as_str();
            if d.auto && d.reviewer == self.reviewer && here.as_deref() != Some(id) {
                auto.insert(id);
            } else if !listed.contains(id) {
                if listed.len() == POLL_RECORDS {
                    break;
                }
                listed.insert(id);
                ids.push(id);
            }
            self.team.seen = d.id;
        }
        if let Some(p) = &mut self.team.plan {
            for id in auto
                .iter()
                .filter(|id| !listed.contains(*id) && p.mine.contains(**id))
            {
                p.done.insert((*id).to_owned());
            }
        }
        let ids: Vec<String> = ids.into_iter().map(str::to_owned).collect();
        let mut logs: Vec<Decision> = Vec::new();
        let mut touched: Vec<(usize, String)> = Vec::new();
        for id in ids {
            if let Some(idx) = self.take_in(&id, &mut logs) {
                touched.push((idx, id));
            }
        }
        if let Some(p) = &mut self.team.plan {
            p.team_done = count_reviewed(&p.records, &self.states);
        }
        // The record on screen's log, just read, is also what the follow compares.
        if let Some(here) = here.filter(|h| touched.iter().any(|(_, id)| id == h)) {
            let log = logs.iter().filter(|d| d.record_id == here).cloned();
            self.follow_with(log.collect());
        }
        self.refresh_reviewer_sources(&logs, &touched);
    }

    /// Take in record `id`'s log as it is now: its stored state and this reviewer's progress;
    /// its decisions are added to `logs`. Returns its dataset index.
    fn take_in(&mut self, id: &str, logs: &mut Vec<Decision>) -> Option<usize> {
        let idx = match self.ids.get(id) {
            Some(i) => i,
            None => self.find_id_indexed(id)?,
        };
        let record = self.dataset.record(idx).ok()?;
        let all = self.log.record_decisions(&self.dataset.name, id).ok()?;
        let on_screen = self.cur.as_ref().is_ok_and(|c| c.index == idx);
        // Before its state: the `mine` queue counts it by this.
        self.mark_own(&record, &all);
        // The record on screen is followed by `follow_with`, which says what changed.
        if !on_screen {
            let state = state_of(&replay(&record, &all));
            let by_other = all.last().is_some_and(|d| d.reviewer != self.reviewer);
            if state.reviewed && by_other {
                self.team.done_elsewhere.insert(idx);
            } else if !state.reviewed {
                self.team.done_elsewhere.remove(&idx);
            }
            self.set_state(idx, id, state);
        }
        logs.extend(all);
        Some(idx)
    }

    /// Recompute the reviewer sources of the `touched` records from their whole `logs`;
    /// records newly disputed join the disputed queue, and the record on screen shows its new
    /// lanes.
    fn refresh_reviewer_sources(&mut self, logs: &[Decision], touched: &[(usize, String)]) {
        let Some(live) = &self.team.live else { return };
        let (sources, agreed) = live(logs, &self.dataset);
        let ids: HashSet<&str> = touched.iter().map(|(_, id)| id.as_str()).collect();
        let old = self.arb_config.judges.as_deref();
        let had = old.is_some_and(|j| {
            j.sources.iter().any(|s| {
                is_reviewer_source(&s.name) && ids.iter().any(|id| s.spans.contains_key(*id))
            })
        });
        if sources.is_empty() && !had {
            return;
        }
        let here = self.cur.as_ref().ok().map(|c| c.record.id.clone());
        let lanes_before = here.as_deref().map(|id| reviewer_spans(old, id));
        let mut j: Judges = old.cloned().unwrap_or_default();
        for src in j.sources.iter_mut().filter(|s| is_reviewer_source(&s.name)) {
            src.spans.retain(|id, _| !ids.contains(id.as_str()));
        }
        j.agreed.retain(|id| !ids.contains(id.as_str()));
        // As at start (`Judges::for_arbitration`): nothing to arbitrate where reviewers agree.
        for ns in sources {
            for (id, spans) in ns.spans {
                if agreed.contains(&id) {
                    continue;
                }
                match j.sources.iter_mut().find(|s| s.name == ns.name) {
                    Some(s) => {
                        s.spans.insert(id, spans);
                    }
                    None => {
                        let mut s = LoadedSource::new(ns.name.clone(), ns.role);
                        s.spans.insert(id, spans);
                        j.sources.push(s);
                    }
                }
            }
        }
        j.agreed.extend(agreed);
        j.sources
            .retain(|s| !is_reviewer_source(&s.name) || !s.spans.is_empty());
        self.arb_config.judges = (!j.is_empty()).then(|| Arc::new(j));
        let lanes_after = here
            .as_deref()
            .map(|id| reviewer_spans(self.arb_config.judges.as_deref(), id));
        self.rescore(touched, lanes_before != lanes_after);
    }

    /// Score the `touched` records again under the new sources; `lanes_changed`: the record
    /// on screen's reviewer sources changed, and the arbitration screen shows them.
    fn rescore(&mut self, touched: &[(usize, String)], lanes_changed: bool) {
        let mut newly = Vec::new();
        for (idx, id) in touched {
            let Ok(rec) = self.arb_config.read(&self.dataset, *idx) else {
                continue;
            };
            let sc = self.arb_config.cluster(&rec).score();
            if !sc.is_disputed() {
                self.scores.remove(idx);
                continue;
            }
            if self.scores.insert(*idx, sc).is_none() {
                newly.push(*idx);
            }
            if self.queue.kind == QueueKind::Disputed {
                let reviewed = self.states.get(id).is_some_and(|s| s.reviewed);
                self.queue.push(*idx, reviewed);
            }
        }
        let here = self.cur.as_ref().ok().map(|c| c.index);
        let status = self.status.clone();
        match here {
            // The arbitration screen shows the new lanes (not in the middle of an edit there).
            Some(i) if lanes_changed && self.arbitrating => {
                if matches!(self.mode, ModeState::Normal | ModeState::Arbitrate) {
                    self.load(i);
                    self.status = status;
                }
            }
            None if self.queue.kind == QueueKind::Disputed => {
                if let Some(&i) = newly.first() {
                    self.go_index(i);
                }
            }
            _ => {}
        }
        if !newly.is_empty()
            && self.queue.kind == QueueKind::Disputed
            && matches!(self.status, Status::None | Status::Info(_))
        {
            self.status = Status::Info(s::new_disputes(newly.len()));
        }
    }
}

impl App {
    /// Record `record` (dataset index `idx`, `log` its whole log) is done on this reviewer's
    /// share of the plan when their own decisions leave it reviewed: the header's `mine` count
    /// and the `mine` queue's progress both read it.
    pub(super) fn mark_own(&mut self, record: &Record, log: &[Decision]) {
        let Some(p) = self
            .team
            .plan
            .as_mut()
            .filter(|p| p.mine.contains(&record.id))
        else {
            return;
        };
        let done = reviewed_by(record, log, &self.reviewer);
        if done {
            p.done.insert(record.id.clone());
        } else {
            p.done.remove(&record.id);
        }
    }

    /// Whether dataset index `idx` (record `id`) counts as reviewed in the queue's progress:
    /// in the `mine` queue, done by this reviewer (the plan's), else its stored state's.
    pub(super) fn queue_reviewed(&self, id: &str, reviewed: bool) -> bool {
        match self.team.plan.as_ref() {
            Some(p) if self.queue.kind == QueueKind::Mine => p.done.contains(id),
            _ => reviewed,
        }
    }
}

/// The reviewer sources' spans on record `id`, by source name.
fn reviewer_spans(judges: Option<&Judges>, id: &str) -> Vec<(String, Vec<Span>)> {
    judges.map_or_else(Vec::new, |j| {
        j.sources
            .iter()
            .filter(|s| is_reviewer_source(&s.name))
            .filter_map(|s| Some((s.name.clone(), s.spans.get(id)?.clone())))
            .collect()
    })
}

/// Whether `reviewer`'s own decisions among `log` leave `record` reviewed: done on their share
/// of the plan (on an overlap record, another reviewer's verdict does not count).
fn reviewed_by(record: &Record, log: &[Decision], reviewer: &str) -> bool {
    let own: Vec<Decision> = log
        .iter()
        .filter(|d| d.reviewer == reviewer)
        .cloned()
        .collect();
    replay(record, &own).is_reviewed()
}

/// How many of `records` the stored states call reviewed.
fn count_reviewed(
    records: &HashSet<String>,
    states: &HashMap<String, crate::store::RecordState>,
) -> usize {
    records
        .iter()
        .filter(|id| states.get(*id).is_some_and(|s| s.reviewed))
        .count()
}
