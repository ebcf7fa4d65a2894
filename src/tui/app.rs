//! The review screen's state machine: `App::update(Action)` changes state; views only read it.
//!
//! Every decision is built as a [`Decision`], appended to the log (one committed transaction),
//! and only once the log has acknowledged it does the screen's state change and the status line
//! say "saved #id". A failed write leaves the state as it was and shows the error.

mod decide;
mod mouse;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use ratatui::layout::Rect;

use super::config::Config;
use super::edit::Bounds;
use super::evidence::{self, Hit};
use super::keymap::Mode;
use super::labels::LabelChoice;
use super::log::DecisionLog;
use super::queue::{Queue, QueueKind};
use super::strings;
use super::text::Row;
use super::Action;
use crate::formats::Dataset;
use crate::model::offsets::CharMap;
use crate::model::Record;
use crate::review::decision::{replay, Decision, RecordReview, SpanKey};
use crate::store::RecordState;

/// What the status line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Nothing to report: key hints only.
    None,
    /// Information.
    Info(String),
    /// A decision was saved.
    Saved(String),
    /// Something failed.
    Error(String),
}

/// A list to choose from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerKind {
    /// New label for the selected span.
    Relabel,
    /// Label of a span being added over `[start, end)`.
    AddLabel {
        /// First code point.
        start: usize,
        /// One past the last.
        end: usize,
    },
    /// Why the record is removed.
    RemoveReason,
}

/// Text being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// Optional reason for dropping the selected span.
    DropReason,
    /// A note on the record.
    Note,
    /// Position or id to go to.
    Goto,
    /// Text to search for.
    Search,
    /// Free-text reason for removing the record.
    RemoveOther,
}

/// The input mode and its working data.
#[derive(Debug, Clone, PartialEq)]
pub enum ModeState {
    /// Browsing and deciding.
    Normal,
    /// Moving the boundaries of span `key`.
    Adjust {
        /// The span.
        key: SpanKey,
        /// Boundaries being edited.
        bounds: Bounds,
        /// Boundaries before.
        before: Bounds,
    },
    /// Marking a new span: `anchor` is set once the start is marked.
    Add {
        /// The marked start (a code point), once marked.
        anchor: Option<usize>,
        /// The cursor (a code point).
        cursor: usize,
    },
    /// A picker.
    Picker {
        /// What for.
        kind: PickerKind,
        /// Choices shown.
        items: Vec<String>,
        /// Selected row.
        sel: usize,
    },
    /// A prompt.
    Prompt {
        /// What for.
        kind: PromptKind,
        /// Typed so far.
        text: String,
    },
    /// Help screen.
    Help,
    /// Tools panel.
    Tools,
}

impl ModeState {
    /// The keymap table in force.
    #[must_use]
    pub fn key_mode(&self) -> Mode {
        match self {
            Self::Normal => Mode::Normal,
            Self::Adjust { .. } => Mode::Adjust,
            Self::Add { .. } => Mode::Add,
            Self::Picker { .. } => Mode::Picker,
            Self::Prompt { .. } => Mode::Prompt,
            Self::Help => Mode::Help,
            Self::Tools => Mode::Tools,
        }
    }
}

/// Occurrences highlighted in the query, output and context.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hits {
    /// In the pretty-printed context (byte ranges).
    pub context: Vec<Hit>,
    /// In the query.
    pub query: Vec<Hit>,
    /// In the output (search only).
    pub output: Vec<Hit>,
    /// The context hit shown now.
    pub current: Option<usize>,
    /// The search text, when the hits come from a search rather than the selected span.
    pub search: Option<String>,
}

/// The record on screen.
#[derive(Debug, Clone)]
pub struct Current {
    /// Dataset index.
    pub index: usize,
    /// The record.
    pub record: Record,
    /// Its output's code points.
    pub chars: Vec<char>,
    /// Code point → byte table of the output.
    pub map: CharMap,
    /// Its decisions (all reviewers), log order.
    pub decisions: Vec<Decision>,
    /// The replayed review.
    pub review: RecordReview,
    /// The context, pretty-printed.
    pub context: String,
    /// Indices into `review.spans`, in text order.
    pub order: Vec<usize>,
    /// Position in `order` of the selected span.
    pub selected: usize,
    /// Evidence or search occurrences.
    pub hits: Hits,
    context_lower: String,
    query_lower: String,
    output_lower: String,
    /// The context wrapped at the last drawn width (a cache: wrapping 100 KB on every key
    /// would cost more than the rest of the frame).
    context_rows: RefCell<Option<(usize, Rc<Vec<Row>>)>>,
}

impl Current {
    /// The context wrapped at `width` columns (cached per width).
    #[must_use]
    pub fn context_rows(&self, width: usize) -> Rc<Vec<Row>> {
        let mut cache = self.context_rows.borrow_mut();
        if let Some((w, rows)) = cache.as_ref() {
            if *w == width {
                return Rc::clone(rows);
            }
        }
        let rows = Rc::new(super::text::wrap(&self.context, width));
        *cache = Some((width, Rc::clone(&rows)));
        rows
    }

    /// The selected span's index in `review.spans`.
    #[must_use]
    pub fn selected_span(&self) -> Option<usize> {
        self.order.get(self.selected).copied()
    }

    fn reorder(&mut self, keep: Option<&SpanKey>) {
        let spans = &self.review.spans;
        let mut order: Vec<usize> = (0..spans.len()).collect();
        order.sort_by_key(|&i| (spans[i].current.start, spans[i].current.end, i));
        self.order = order;
        if let Some(k) = keep {
            if let Some(p) = self
                .order
                .iter()
                .position(|&i| &self.review.spans[i].key == k)
            {
                self.selected = p;
            }
        }
        self.selected = self.selected.min(self.order.len().saturating_sub(1));
    }
}

/// Screen geometry of the last frame, for mouse hits and scrolling.
#[derive(Debug, Clone, Default)]
pub struct ScreenLayout {
    /// Output text area (inside its border).
    pub output: Rect,
    /// Output rows as drawn.
    pub output_rows: Vec<Row>,
    /// First output row drawn.
    pub output_scroll: usize,
    /// Context text area.
    pub context: Rect,
    /// Context rows in total.
    pub context_rows: usize,
    /// First context row drawn.
    pub context_scroll: usize,
    /// Query area.
    pub query: Rect,
    /// Span list area.
    pub list: Rect,
    /// First span-list row drawn.
    pub list_scroll: usize,
    /// Overlay (help, tools) area.
    pub overlay: Rect,
}

/// Scroll positions the reviewer controls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scrolls {
    /// Output: first row, or `None` to follow the selection.
    pub output: Option<usize>,
    /// Context first row.
    pub context: usize,
    /// Context: scroll to the row of this byte on the next frame.
    pub context_anchor: Option<usize>,
    /// Help and tools panels.
    pub overlay: usize,
}

/// The review screen's state.
pub struct App {
    /// The records.
    pub dataset: Dataset,
    log: Box<dyn DecisionLog>,
    /// Who decides.
    pub reviewer: String,
    /// Keymap and theme.
    pub config: Config,
    labels: Option<Vec<LabelChoice>>,
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
    ids: HashMap<String, usize>,
    ids_scanned: usize,
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
        labels: Option<Vec<LabelChoice>>,
    ) -> Result<Self, String> {
        let states = log.record_states(&dataset.name)?;
        let queue = Queue::new(queue, &dataset, &states);
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
            ids: HashMap::new(),
            ids_scanned: 0,
        };
        let start = app.resume_position();
        app.go(start);
        Ok(app)
    }

    /// First queue position whose record is not reviewed (0 when all are).
    fn resume_position(&mut self) -> usize {
        let mut pos = 0;
        while let Some(idx) = self.queue.get(pos, &self.dataset, &self.states) {
            let reviewed = self
                .dataset
                .primary()
                .id(idx)
                .ok()
                .and_then(|id| self.states.get(&id))
                .is_some_and(|s| s.reviewed);
            if !reviewed {
                return pos;
            }
            pos += 1;
        }
        0
    }

    /// The keymap mode in force.
    #[must_use]
    pub fn key_mode(&self) -> Mode {
        self.mode.key_mode()
    }

    /// Number of records reviewed in the queue, and the queue's size (`exact` false while a
    /// filtered queue is still being scanned).
    #[must_use]
    pub fn progress(&self) -> (usize, usize, bool) {
        let (n, exact) = self.queue.size(&self.dataset);
        (self.queue.reviewed().min(n), n, exact)
    }

    /// The stored state of the record on screen.
    #[must_use]
    pub fn current_state(&self) -> Option<&RecordState> {
        self.cur
            .as_ref()
            .ok()
            .and_then(|c| self.states.get(&c.record.id))
    }

    /// Scan the queue a little further when idle (exact sizes for filtered queues).
    pub fn idle(&mut self) -> bool {
        self.queue.scan(200, &self.dataset, &self.states)
    }

    /// Handle one action.
    pub fn update(&mut self, action: Action) {
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
            ModeState::Adjust { .. } => self.adjust(action),
            ModeState::Add { .. } => self.add_mode(action),
            ModeState::Picker { .. } => self.picker(action),
            ModeState::Prompt { .. } => self.prompt(action),
            ModeState::Help | ModeState::Tools => match action {
                Action::Cancel | Action::Help | Action::Tools | Action::Quit => {
                    self.mode = ModeState::Normal;
                }
                Action::Down => self.scroll.overlay += 1,
                Action::Up => self.scroll.overlay = self.scroll.overlay.saturating_sub(1),
                _ => {}
            },
        }
    }

    fn normal(&mut self, action: Action) {
        match action {
            Action::NextSpan => self.select_step(1),
            Action::PrevSpan => self.select_step(-1),
            Action::NextRecord => self.step_record(1),
            Action::PrevRecord => self.step_record(-1),
            Action::FirstRecord => self.go(0),
            Action::LastRecord => self.go_last(),
            Action::Goto => self.open_prompt(PromptKind::Goto),
            Action::Search => self.open_prompt(PromptKind::Search),
            Action::Note => self.open_prompt(PromptKind::Note),
            Action::Drop if self.require_span() => self.open_prompt(PromptKind::DropReason),
            Action::Accept => self.accept(),
            Action::AcceptAll => self.accept_all(),
            Action::Relabel => self.open_relabel(),
            Action::Adjust => self.open_adjust(),
            Action::Add => self.open_add(),
            Action::Clean => self.clean(),
            Action::Remove => self.open_remove(),
            Action::Flag => self.flag(),
            Action::Undo => self.undo(),
            Action::Redo => self.redo(),
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
            Action::Cancel => {
                if let Ok(c) = &mut self.cur {
                    if c.hits.search.is_some() {
                        self.refresh_hits();
                    }
                }
                self.status = Status::None;
            }
            Action::Quit => self.quit = true,
            _ => {}
        }
    }

    fn require_span(&mut self) -> bool {
        let ok = self.cur.as_ref().is_ok_and(|c| c.selected_span().is_some());
        if !ok {
            self.status = Status::Info(strings::NO_SPAN_SELECTED.to_owned());
        }
        ok
    }

    fn open_prompt(&mut self, kind: PromptKind) {
        self.mode = ModeState::Prompt {
            kind,
            text: String::new(),
        };
    }

    fn scroll_context(&mut self, delta: isize) {
        self.scroll.context_anchor = None;
        self.scroll.context = self
            .scroll
            .context
            .saturating_add_signed(delta)
            .min(self.layout.context_rows.saturating_sub(1));
    }

    // ----- navigation -----

    fn select_step(&mut self, delta: isize) {
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

    fn step_record(&mut self, delta: isize) {
        if delta < 0 && self.pos == 0 {
            self.status = Status::Info(strings::QUEUE_START.to_owned());
            return;
        }
        let to = self.pos.saturating_add_signed(delta);
        if self.queue.get(to, &self.dataset, &self.states).is_none() {
            self.status = Status::Info(strings::QUEUE_END.to_owned());
            return;
        }
        self.go(to);
    }

    fn go_last(&mut self) {
        while self.queue.scan(10_000, &self.dataset, &self.states) {}
        let n = self.queue.known(&self.dataset);
        self.go(n.saturating_sub(1));
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

    fn load(&mut self, idx: usize) {
        self.scroll = Scrolls::default();
        self.mode = ModeState::Normal;
        self.cur = self.read(idx);
        if let Ok(c) = &self.cur {
            self.ids.insert(c.record.id.clone(), idx);
            let reviewed = self.states.get(&c.record.id).is_some_and(|s| s.reviewed);
            self.queue.mark(idx, reviewed, reviewed);
        }
        self.refresh_hits();
    }

    fn read(&self, idx: usize) -> Result<Current, String> {
        let record = self.dataset.record(idx).map_err(|e| e.to_string())?;
        let decisions = self.log.record_decisions(&self.dataset.name, &record.id)?;
        let review = replay(&record, &decisions);
        let context = evidence::pretty_context(&record.context);
        let mut c = Current {
            index: idx,
            chars: record.output.chars().collect(),
            map: CharMap::new(&record.output),
            context_lower: context.to_ascii_lowercase(),
            query_lower: record.query.to_ascii_lowercase(),
            output_lower: record.output.to_ascii_lowercase(),
            context,
            record,
            decisions,
            review,
            order: Vec::new(),
            selected: 0,
            hits: Hits::default(),
            context_rows: RefCell::new(None),
        };
        c.reorder(None);
        Ok(c)
    }

    /// Reload the record on screen from the log (after a decision), keeping the selection.
    fn reload_review(&mut self) {
        if let Ok(c) = &mut self.cur {
            let keep = c.selected_span().map(|i| c.review.spans[i].key.clone());
            c.review = replay(&c.record, &c.decisions);
            c.reorder(keep.as_ref());
        }
    }

    /// Dataset index of record `id`, reading ids forward as needed.
    fn find_id(&mut self, id: &str) -> Option<usize> {
        if let Some(&i) = self.ids.get(id) {
            return Some(i);
        }
        while self.ids_scanned < self.dataset.len() {
            let i = self.ids_scanned;
            self.ids_scanned += 1;
            if let Ok(rid) = self.dataset.primary().id(i) {
                let hit = rid == id;
                self.ids.insert(rid, i);
                if hit {
                    return Some(i);
                }
            }
        }
        None
    }

    // ----- evidence -----

    /// Recompute the evidence occurrences of the selected span and scroll the context to the
    /// first (strongest) one.
    fn refresh_hits(&mut self) {
        let Ok(c) = &mut self.cur else { return };
        let text = c
            .selected_span()
            .and_then(|i| {
                let v = &c.review.spans[i].current;
                c.map.slice(&c.record.output, v.start, v.end)
            })
            .unwrap_or("")
            .to_owned();
        let terms = evidence::terms(&text);
        c.hits = Hits {
            context: evidence::find(&c.context_lower, &terms),
            query: evidence::find(&c.query_lower, &terms),
            output: Vec::new(),
            current: None,
            search: None,
        };
        c.hits.current = evidence::first_best(&c.hits.context);
        self.scroll.context_anchor = c.hits.current.map(|i| c.hits.context[i].start);
    }

    fn search(&mut self, text: &str) {
        let Ok(c) = &mut self.cur else { return };
        if text.trim().is_empty() {
            self.refresh_hits();
            return;
        }
        let term = vec![evidence::Term {
            text: text.to_ascii_lowercase(),
            weight: evidence::Weight::Whole,
        }];
        c.hits = Hits {
            context: evidence::find(&c.context_lower, &term),
            query: evidence::find(&c.query_lower, &term),
            output: evidence::find(&c.output_lower, &term),
            current: None,
            search: Some(text.to_owned()),
        };
        c.hits.current = (!c.hits.context.is_empty()).then_some(0);
        self.scroll.context_anchor = c.hits.current.map(|i| c.hits.context[i].start);
        let n = c.hits.context.len() + c.hits.query.len() + c.hits.output.len();
        self.status = Status::Info(format!("{n} matches of {text:?}"));
    }

    fn next_evidence(&mut self) {
        let Ok(c) = &mut self.cur else { return };
        if c.hits.context.is_empty() {
            self.status = Status::Info(strings::NO_EVIDENCE.to_owned());
            return;
        }
        let next = c.hits.current.map_or(0, |i| (i + 1) % c.hits.context.len());
        c.hits.current = Some(next);
        self.scroll.context_anchor = Some(c.hits.context[next].start);
        self.status = Status::Info(format!(
            "occurrence {} / {}",
            next + 1,
            c.hits.context.len()
        ));
    }

    // ----- prompts and pickers -----

    fn prompt(&mut self, action: Action) {
        let ModeState::Prompt { kind, mut text } = self.mode.clone() else {
            return;
        };
        match action {
            Action::Input(ch) => {
                text.push(ch);
                self.mode = ModeState::Prompt { kind, text };
            }
            Action::DeleteChar => {
                text.pop();
                self.mode = ModeState::Prompt { kind, text };
            }
            Action::Cancel => self.mode = ModeState::Normal,
            Action::Confirm => {
                self.mode = ModeState::Normal;
                match kind {
                    PromptKind::DropReason => self.drop_span(&text),
                    PromptKind::Note => self.note(&text),
                    PromptKind::Goto => self.goto(&text),
                    PromptKind::Search => self.search(&text),
                    PromptKind::RemoveOther => self.remove(&text),
                }
            }
            _ => {}
        }
    }

    fn goto(&mut self, text: &str) {
        let t = text.trim();
        if t.is_empty() {
            return;
        }
        if let Ok(n) = t.parse::<usize>() {
            if n >= 1 && self.queue.get(n - 1, &self.dataset, &self.states).is_some() {
                self.go(n - 1);
                return;
            }
        }
        match self.find_id(t) {
            Some(idx) => self.go_index(idx),
            None => self.status = Status::Error(format!("no record at position or with id {t:?}")),
        }
    }

    fn picker(&mut self, action: Action) {
        let ModeState::Picker {
            kind,
            items,
            mut sel,
        } = self.mode.clone()
        else {
            return;
        };
        let n = items.len();
        let choose = match action {
            Action::Down => {
                sel = (sel + 1).min(n.saturating_sub(1));
                None
            }
            Action::Up => {
                sel = sel.saturating_sub(1);
                None
            }
            Action::Input(ch) => ch
                .to_digit(10)
                .and_then(|d| usize::try_from(d).ok())
                .filter(|&d| d >= 1 && d <= n)
                .map(|d| d - 1),
            Action::Confirm => Some(sel),
            Action::Cancel => {
                self.mode = ModeState::Normal;
                return;
            }
            _ => None,
        };
        match choose {
            None => self.mode = ModeState::Picker { kind, items, sel },
            Some(i) => {
                self.mode = ModeState::Normal;
                self.picked(&kind, i);
            }
        }
    }

    /// The label choices for the record on screen.
    #[must_use]
    pub fn label_choices(&self) -> Vec<LabelChoice> {
        match &self.cur {
            Ok(c) => super::labels::choices(self.labels.as_deref(), &c.record),
            Err(_) => Vec::new(),
        }
    }

    fn open_picker(&mut self, kind: PickerKind, items: Vec<String>, sel: usize) {
        self.mode = ModeState::Picker { kind, items, sel };
    }
}
