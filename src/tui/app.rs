//! The review screen's state machine: `App::update(Action)` changes state; views only read it.
//!
//! Every decision is built as a [`Decision`](crate::review::decision::Decision), appended to
//! the log (one committed transaction), and only once the log has acknowledged it does the
//! screen's state change and the status line say "saved #id". A failed write leaves the state as
//! it was and shows the error.

mod arb_labels;
mod arbitrate;
mod background;
mod boundary;
mod decide;
mod edit_start;
mod follow;
mod ids;
mod indexing;
mod input;
mod keep;
mod labeling;
mod mouse;
mod navigate;
mod opening;
mod pace;
mod pending;
mod reasons;
mod retype;
mod siblings;
mod speed;
mod state;
mod stats_screen;
mod team;
mod undo;
mod unplaced;

pub use indexing::INDEX_WAIT;
pub use opening::{Opening, PlanAtOpen};
pub use state::{
    Current, Hits, ModeState, PickerKind, PromptKind, ScreenLayout, Scrolls, Status, CONTEXT_BOTTOM,
};

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::clustering::{Arb, ArbConfig, Clustering};
use super::config::Config;
use super::keymap::Mode;
use super::log::DecisionLog;
use super::queue::{Queue, QueueKind};
use super::stats_model::StatsView;
use super::{strings, Action};
use crate::formats::Dataset;
use crate::review::decision::{replay, OutcomeKind};
use crate::review::disagreement::RecordScore;
use crate::review::labeled::LabelName;
use crate::store::RecordState;

/// The review screen's state.
pub struct App {
    /// The records (shared, read-only, with the background clustering).
    pub dataset: Arc<Dataset>,
    log: Box<dyn DecisionLog>,
    /// Who decides.
    pub reviewer: String,
    /// Keymap and theme.
    pub config: Config,
    labels: Option<Vec<LabelName>>,
    /// The queue.
    pub queue: Queue,
    /// Stored record states by id.
    pub states: HashMap<String, RecordState>,
    /// Position in the queue.
    pub pos: usize,
    /// The record on screen, or why it could not be shown.
    pub cur: Result<Current, String>,
    /// Input mode.
    pub mode: ModeState,
    /// Status line.
    pub status: Status,
    /// Scroll positions.
    pub scroll: Scrolls,
    /// Geometry of the last frame.
    pub layout: ScreenLayout,
    /// Quit requested.
    pub quit: bool,
    drag: Option<usize>,
    /// A count typed before a move in the adjust, add and arbitration-edit modes (`3l`).
    count: Option<usize>,
    /// A find-character move (`f`) waiting for its character (add mode).
    finding: Option<Action>,
    ids: ids::Ids,
    verified: usize,
    /// Arbitration settings (`review` flags).
    pub arb_config: ArbConfig,
    /// The arbitration state of the record on screen, while the arbitration screen is open.
    pub arb: Option<Arb>,
    /// The arbitration screen is open (it follows the reviewer from record to record).
    pub arbitrating: bool,
    /// Background clustering (disputed queue, auto-accept).
    pub clustering: Option<Clustering>,
    /// Scores of the disputed records found so far, by dataset index.
    pub scores: HashMap<usize, RecordScore>,
    /// Records accepted unseen this session because every source agreed.
    pub auto_accepted: usize,
    /// Unanimous records waiting to be auto-accepted (saved a few per idle tick: each is a
    /// committed transaction).
    pending_accepts: std::collections::VecDeque<super::clustering::Scored>,
    /// Auto-accepted records this session: id and each source's agreement with the result
    /// (the gold spans), so the stats screen covers them without reading them again.
    auto_agreements: HashMap<usize, stats_screen::AutoAgreements>,
    /// The stats screen's numbers (computed when it opens).
    pub stats: Option<StatsView>,
    /// Unplaced claim being placed by hand (add mode).
    placing: Option<usize>,
    /// Dataset indices read this session, in order (the stats screen's scope).
    visited: Vec<usize>,
    visited_set: HashSet<usize>,
    /// When the record on screen was last compared with the log (another process, a second
    /// reviewer on the same database, may have saved decisions on it), and what was said.
    follow: follow::Follow,
    /// How long a move past the records indexed so far waits for the background indexer
    /// ([`INDEX_WAIT`]; tests that pause the indexer set zero).
    pub index_wait: Duration,
    /// A move waiting for the background indexer.
    pending: Option<indexing::Pending>,
    /// Clustering asked for, waiting for the dataset to be indexed.
    clustering_deferred: bool,
    /// Records reviewed on this screen since it opened (the header's rate).
    pace: pace::Pace,
    /// The search across records (`N`) and the last click, for `v`.
    speed: speed::Speed,
    /// The team on a shared database: plan, claims, polling.
    team: super::team_model::Team,
    /// Decisions not saved: kept for a retry while the database is unreachable, or refused on
    /// one, for the rescue file at quit.
    unsaved: pending::Pending,
    /// The last span decision, while its sibling variants can take it (`=`).
    siblings: Option<siblings::Offer>,
}

/// How long opening waits for the background clustering before the first frame: a small
/// file is clustered within it and its disputed queue starts sorted.
const OPEN_BUDGET: Duration = Duration::from_millis(100);

/// Whether `every` has passed since `at` by the log's clock `now` (never done, or a clock that
/// went back, counts as due): the idle tick's timed work (following the log, polling the team,
/// renewing a claim) asks this.
fn due(now: SystemTime, at: Option<SystemTime>, every: Duration) -> bool {
    at.is_none_or(|at| now.duration_since(at).map_or(true, |d| d >= every))
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("dataset", &self.dataset.name)
            .field("pos", &self.pos)
            .field("mode", &self.mode)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl App {
    /// Open the review of `dataset`, resuming at the first record of the queue not yet
    /// reviewed. Only that record is read.
    ///
    /// # Errors
    /// The record states cannot be read from the log.
    pub fn new(
        dataset: Dataset,
        log: Box<dyn DecisionLog>,
        reviewer: &str,
        queue: QueueKind,
        config: Config,
        labels: Option<Vec<LabelName>>,
    ) -> Result<Self, String> {
        let opening = Opening {
            labels,
            ..Opening::new(queue, config)
        };
        Self::open(dataset, log, reviewer, opening)
    }

    /// [`App::new`] with every choice of the `review` command: arbitration settings, the plan
    /// already read. The `disputed` queue opens on the arbitration screen; it (and
    /// `auto_accept`) start the background clustering, and opening waits for it at most
    /// [`OPEN_BUDGET`]: the first disputed record found is shown at once.
    ///
    /// # Errors
    /// The record states cannot be read from the log; the `mine` queue without a share of a
    /// plan.
    pub fn open(
        dataset: Dataset,
        log: Box<dyn DecisionLog>,
        reviewer: &str,
        opening: Opening,
    ) -> Result<Self, String> {
        let Opening {
            queue,
            config,
            labels,
            arb: arb_config,
            plan,
        } = opening;
        let dataset = Arc::new(dataset);
        let states = log.record_states(&dataset.name)?;
        let queue = queue.loaded(&*log, &dataset.name)?;
        let queue = Queue::new(queue, &dataset, &states);
        let pace = pace::Pace::new(log.now());
        let mut app = Self {
            dataset,
            log,
            reviewer: reviewer.to_owned(),
            config,
            labels,
            queue,
            states,
            pos: 0,
            cur: Err(strings::QUEUE_EMPTY.to_owned()),
            mode: ModeState::Normal,
            status: Status::None,
            scroll: Scrolls::default(),
            layout: ScreenLayout::default(),
            quit: false,
            drag: None,
            count: None,
            finding: None,
            ids: ids::Ids::default(),
            verified: 0,
            arbitrating: false,
            arb: None,
            clustering: None,
            scores: HashMap::new(),
            auto_accepted: 0,
            pending_accepts: std::collections::VecDeque::new(),
            auto_agreements: HashMap::new(),
            stats: None,
            placing: None,
            visited: Vec::new(),
            visited_set: HashSet::new(),
            follow: follow::Follow::default(),
            arb_config,
            index_wait: INDEX_WAIT,
            pending: None,
            clustering_deferred: false,
            pace,
            speed: speed::Speed::default(),
            team: super::team_model::Team::default(),
            unsaved: pending::Pending::default(),
            siblings: None,
        };
        app.open_team(plan)?;
        let disputed = app.queue.kind == QueueKind::Disputed;
        app.arbitrating = disputed;
        if disputed || app.arb_config.auto_accept || app.arb_config.background {
            app.start_clustering();
        }
        if disputed {
            let t0 = Instant::now();
            while let Some(left) = OPEN_BUDGET.checked_sub(t0.elapsed()) {
                if !app.wait_clustering(left) {
                    break;
                }
            }
            app.finish_clustering_if_done();
        }
        let start = app.resume_position(0, app.index_wait);
        if app.pending.is_some() {
            app.cur = Err(strings::not_indexed_yet(app.dataset.len()));
        } else {
            app.go(start);
        }
        if disputed && app.cur.is_err() && !app.queue.complete(&app.dataset) {
            app.cur = Err(if app.clustering_deferred {
                strings::DISPUTED_WAITS_FOR_INDEX
            } else {
                strings::NO_DISPUTED_YET
            }
            .to_owned());
        }
        Ok(app)
    }

    /// First queue position from `from` whose record is not reviewed (0 when all are). Past
    /// the records indexed so far (after waiting up to `wait`), the move is left pending, to go
    /// on from there.
    fn resume_position(&mut self, from: usize, wait: Duration) -> usize {
        let mut pos = from;
        self.pending = None;
        let others = self.claims_of_others();
        while let Some(idx) = self.queue_get(pos, wait) {
            if !self.resume_passes(idx, &others) {
                return pos;
            }
            pos += 1;
        }
        if !self.dataset.indexed() && self.queue.kind != QueueKind::Disputed {
            self.pending = Some(indexing::Pending::Resume(pos));
        }
        0
    }

    /// The keymap mode in force.
    #[must_use]
    pub fn key_mode(&self) -> Mode {
        // The character a find move waits for is text, whatever it is bound to.
        if self.finding.is_some() {
            return Mode::Prompt;
        }
        self.mode.key_mode()
    }

    /// Number of records reviewed in the queue, and the queue's size (`exact` false while a
    /// filtered queue is still being scanned).
    #[must_use]
    pub fn progress(&self) -> (usize, usize, bool) {
        let (n, exact) = self.queue.size(&self.dataset);
        (self.queue.reviewed().min(n), n, exact)
    }

    /// Records of the dataset reviewed (this session or before) and the dataset's size: the
    /// header's progress, which a queue of what is left after a restart would understate.
    /// Overlap records shown blind count as another reviewer left them unreviewed
    /// ([`App::reviewed_unseen`]); with `--blind` only the plan's own progress shows, and
    /// nothing (`None`) without a plan.
    #[must_use]
    pub fn dataset_progress(&self) -> Option<(usize, usize)> {
        if self.blind_everywhere() {
            // Only this reviewer's own progress (the plan's), or none without a plan.
            return self
                .team
                .plan
                .as_ref()
                .map(|p| (p.done.len(), p.mine.len()));
        }
        let n = self.dataset.len();
        let reviewed = self
            .queue
            .dataset_reviewed()
            .saturating_sub(self.reviewed_unseen());
        Some((reviewed.min(n), n))
    }

    /// The stored state of the record on screen.
    #[must_use]
    pub fn current_state(&self) -> Option<&RecordState> {
        self.cur
            .as_ref()
            .ok()
            .and_then(|c| self.states.get(&c.record.id))
    }

    /// Background work between key presses, a little at a time: first finish scanning the
    /// queue (exact sizes for filtered queues), then check the records stored as reviewed
    /// against their current content. Returns true while there is work left.
    pub fn idle(&mut self) -> bool {
        self.index_tick();
        self.timed();
        if self.clustering.as_ref().is_some_and(|c| !c.finished) {
            self.drain_clustering(2_000);
        }
        if self.save_pending_accepts(Duration::from_millis(15)) {
            return true;
        }
        if self.queue.scan(200, &self.dataset, &self.states) {
            return true;
        }
        let clustering = self.clustering.as_ref().is_some_and(|c| !c.finished);
        self.verify(50) || clustering
    }

    /// The timed background work, each on its own clock (the log's): a retry of decisions
    /// kept unsaved, following the log (and noticing the database gone), the team poll and
    /// claim renewal. Each does nothing before its time, so the event loop calls this on
    /// every turn, a key or not: keys coming faster than the loop's wait never hold it back.
    pub fn timed(&mut self) {
        self.retry_unsaved();
        self.follow_if_due();
        self.team_if_due();
    }

    /// True while [`App::idle`] has work left.
    #[must_use]
    pub fn busy(&self) -> bool {
        !self.dataset.indexed()
            || (self.queue.kind != QueueKind::Disputed && !self.queue.complete(&self.dataset))
            || self.verified < self.dataset.len()
            || self.clustering.as_ref().is_some_and(|c| !c.finished)
            || !self.pending_accepts.is_empty()
    }

    /// Re-check up to `n` records the stored states call reviewed: a record whose content
    /// changed since (stale decisions) is not reviewed any more, so it goes back into the
    /// queue instead of being skipped silently.
    fn verify(&mut self, n: usize) -> bool {
        let end = (self.verified + n).min(self.dataset.len());
        while self.verified < end {
            let i = self.verified;
            self.verified += 1;
            let Ok(id) = self.dataset.primary().id(i) else {
                continue;
            };
            if !self.states.get(&id).is_some_and(|s| s.reviewed) {
                continue;
            }
            let Ok(record) = self.dataset.record(i) else {
                continue;
            };
            let Ok(decisions) = self.log.record_decisions(&self.dataset.name, &id) else {
                continue;
            };
            let review = replay(&record, &decisions);
            if review.is_reviewed() {
                continue;
            }
            // The whole state as replayed: stale decisions are not applied, so neither is
            // their flag or reclassification.
            self.set_state(i, &id, super::log::state_of(&review));
            let current = self.cur.as_ref().ok().map(|c| c.index);
            if self.queue.kind == QueueKind::Unreviewed && current != Some(i) {
                let p = self.queue.force(i);
                if current.is_some_and(|c| i < c) && p <= self.pos {
                    self.pos += 1;
                }
            }
            tracing::warn!(record = %id, "stored as reviewed, but its decisions are stale");
            self.status = Status::Info(strings::stale_requeued(&id));
        }
        self.verified < self.dataset.len()
    }

    /// Handle one action.
    pub fn update(&mut self, action: Action) {
        self.renew_claim_if_due();
        match action {
            Action::MouseDown(x, y) => return self.mouse_down(x, y),
            Action::MouseDrag(x, y) => return self.mouse_drag(x, y),
            Action::MouseUp(x, y) => return self.mouse_up(x, y),
            Action::Scroll(x, y, d) => return self.wheel(x, y, d),
            Action::Crash => panic!("crash requested (the `crash` action, for terminal tests)"),
            _ => {}
        }
        match self.mode.clone() {
            ModeState::Normal => self.normal(action),
            ModeState::Adjust { .. } | ModeState::Add { .. } | ModeState::Settle { .. } => {
                self.motion_keys(action);
            }
            ModeState::Picker { .. } => self.picker(action),
            ModeState::Prompt { .. } => self.prompt(action),
            ModeState::Arbitrate => self.arbitrate_action(action),
            ModeState::Stats => {
                if matches!(action, Action::Cancel | Action::Stats | Action::Quit) {
                    self.mode = ModeState::Normal;
                }
            }
            ModeState::Help | ModeState::Tools => match action {
                Action::Cancel | Action::Help | Action::Tools | Action::Quit => {
                    self.mode = ModeState::Normal;
                }
                Action::Down => {
                    // The last page stays full (a shorter one would hide help's legend).
                    let page = usize::from(self.layout.overlay.height.saturating_sub(2));
                    let max = self.layout.overlay_rows.saturating_sub(page).max(1);
                    self.scroll.overlay = (self.scroll.overlay + 1).min(max);
                }
                Action::Up => self.scroll.overlay = self.scroll.overlay.saturating_sub(1),
                _ => {}
            },
        }
        if self.mode == ModeState::Normal && self.arbitrating && self.arb.is_some() {
            self.mode = ModeState::Arbitrate;
        }
    }

    fn normal(&mut self, action: Action) {
        match action {
            Action::Accept
            | Action::Relabel
            | Action::Adjust
            | Action::Add
            | Action::AddAfterSpan
                if !self.require_open() => {}
            Action::NextSpan => self.select_step(1),
            Action::PrevSpan => self.select_step(-1),
            Action::NextRecord => self.step_record(1),
            Action::PrevRecord => self.step_record(-1),
            Action::FirstRecord => self.go(0),
            Action::LastRecord => self.go_last(),
            Action::Goto => self.open_prompt(PromptKind::Goto),
            Action::NextFlagged => self.next_flagged(),
            Action::Search => self.open_prompt(PromptKind::Search),
            Action::Note => self.open_prompt(PromptKind::Note),
            Action::Drop if self.require_span() => self.open_drop(),
            Action::Accept => self.accept(),
            Action::AcceptAll => self.accept_all(),
            Action::Relabel => self.open_relabel(),
            Action::Adjust => self.open_adjust(),
            Action::Add => self.open_add_here(),
            Action::AddAfterSpan => self.open_add_after_span(),
            Action::NextSearchRecord => self.next_search_record(),
            Action::Clean => self.clean(),
            Action::Retype => self.open_retype(),
            Action::Remove => self.open_remove(),
            Action::Flag => self.flag(),
            Action::ToSiblings => self.carry_to_siblings(),
            Action::Undo => self.undo(),
            Action::Redo => self.redo(),
            Action::Arbitrate => self.enter_arbitration(),
            Action::Stats => self.open_stats(),
            Action::NextEvidence => self.next_evidence(),
            Action::Tools => {
                self.scroll.overlay = 0;
                self.mode = ModeState::Tools;
            }
            Action::Help => {
                self.scroll.overlay = 0;
                self.mode = ModeState::Help;
            }
            Action::ContextDown => self.scroll_context(10),
            Action::ContextUp => self.scroll_context(-10),
            Action::ContextTop => {
                self.scroll.context_anchor = None;
                self.scroll.context = 0;
            }
            // The view puts the last rows on screen (only it knows the pane's height).
            Action::ContextBottom => {
                self.scroll.context_anchor = None;
                self.scroll.context = CONTEXT_BOTTOM;
            }
            Action::Cancel => {
                if let Ok(c) = &mut self.cur {
                    if c.hits.search.is_some() {
                        self.refresh_hits();
                    }
                }
                self.status = Status::None;
            }
            Action::Quit => self.quit_or_ask(),
            _ => {}
        }
    }

    /// True when the record on screen can keep spans; a record reclassified clean or removed
    /// keeps none whatever its spans' decisions say (they would be saved and change nothing),
    /// so the status line says so instead.
    pub(super) fn require_open(&mut self) -> bool {
        let Ok(c) = &self.cur else { return true };
        // The rule `apply` checks too (another reviewer's reclassification stands in no way).
        let msg = match crate::review::check::closed_to(&c.review, &self.reviewer) {
            Some(OutcomeKind::Clean) => strings::SPANS_OF_CLEAN,
            Some(OutcomeKind::Removed) => strings::SPANS_OF_REMOVED,
            Some(OutcomeKind::Open) | None => return true,
        };
        self.status = Status::Info(msg.to_owned());
        false
    }

    pub(super) fn require_span(&mut self) -> bool {
        let ok = self.cur.as_ref().is_ok_and(|c| c.selected_span().is_some());
        if !ok {
            self.status = Status::Info(strings::NO_SPAN_SELECTED.to_owned());
        }
        ok
    }

    pub(super) fn open_prompt(&mut self, kind: PromptKind) {
        self.mode = ModeState::Prompt {
            kind,
            text: String::new(),
        };
    }

    pub(super) fn scroll_context(&mut self, delta: isize) {
        // Scroll from what is on screen (an evidence jump or End may have moved it).
        if self.scroll.context_anchor.take().is_some() || self.scroll.context == CONTEXT_BOTTOM {
            self.scroll.context = self.layout.context_scroll;
        }
        self.scroll.context = self
            .scroll
            .context
            .saturating_add_signed(delta)
            .min(self.layout.context_rows.saturating_sub(1));
    }

    // ----- navigation -----

    pub(super) fn select_step(&mut self, delta: isize) {
        if let Ok(c) = &mut self.cur {
            if c.order.is_empty() {
                self.status = Status::Info(strings::NO_SPANS.to_owned());
                return;
            }
            let n = c.order.len();
            c.selected = c.selected.saturating_add_signed(delta).min(n - 1);
            self.scroll.output = None;
            self.refresh_hits();
        }
    }
}
