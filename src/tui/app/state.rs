//! The app's state types: modes, the record on screen, scrolls, the last frame's geometry.

use ratatui::layout::Rect;

use crate::model::offsets::CharMap;
use crate::model::Record;
use crate::review::decision::{Decision, RecordReview, SpanKey};
use crate::review::rubric::Group;
use crate::tui::edit::Bounds;
use crate::tui::evidence::{Folded, Hit};
use crate::tui::keymap::Mode;
use crate::tui::rows::{Layouts, Shown};

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
    /// Which source's version of the cluster to take (arbitration, sources past 9).
    TakeSource,
    /// The label of a resolution's spans `[start, end)` in cluster `cluster` (arbitration):
    /// no source gives one, or `r` relabels them; `how` is the resolution's reason.
    ResolutionLabel {
        /// The cluster (index into the record's clusters).
        cluster: usize,
        /// The spans, each taking the label chosen.
        spans: Vec<(usize, usize)>,
        /// How the cluster is resolved (`edit`, `take gold`, `relabel`).
        how: String,
    },
    /// The record's new type, one of `types` (the rows).
    Retype {
        /// The types offered, in row order.
        types: Vec<String>,
    },
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
    /// A reason code of the rubric (its number or letters) and an optional note, for a drop,
    /// a removal or a flag.
    Reason(Group),
    /// A reason code and note for a relabel of the selected span (`add` `None`) or an add over
    /// `add`'s `[start, end)`, to label choice `choice`.
    LabelReason {
        /// The label picked, by its place among the choices.
        choice: usize,
        /// The added span's range; `None` for a relabel.
        add: Option<(usize, usize)>,
    },
    /// A reason code and note for the selected span's new boundaries `[start, end)`.
    AdjustReason {
        /// First code point.
        start: usize,
        /// One past the last.
        end: usize,
    },
}

impl PromptKind {
    /// The rubric group whose code the prompt asks for; `None` for a free-text prompt.
    #[must_use]
    pub fn group(self) -> Option<Group> {
        match self {
            Self::Reason(g) => Some(g),
            Self::AdjustReason { .. } => Some(Group::Adjust),
            Self::LabelReason { add: Some(_), .. } => Some(Group::Add),
            Self::LabelReason { add: None, .. } => Some(Group::Relabel),
            Self::DropReason | Self::Note | Self::Goto | Self::Search | Self::RemoveOther => None,
        }
    }
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
        /// Digits typed so far: they build the number of a row (`1`, `2` is row 12), which is
        /// chosen once no longer number could follow (or on Enter).
        typed: String,
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
    /// The arbitration screen (its state is [`super::App::arb`]).
    Arbitrate,
    /// Editing a cluster's resolution by hand (the adjust keys): the result is settled as a
    /// `resolve` decision.
    Settle {
        /// The cluster (index into the record's clusters).
        cluster: usize,
        /// Boundaries being edited.
        bounds: Bounds,
        /// Boundaries before.
        before: Bounds,
        /// The source version the edit started from (index into the cluster's versions): Tab
        /// steps from it, since two lanes can hold equal versions.
        version: usize,
    },
    /// The stats screen.
    Stats,
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
            Self::Arbitrate => Mode::Arbitrate,
            Self::Settle { .. } => Mode::Adjust,
            Self::Stats => Mode::Stats,
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
    /// The hit shown now, in reading order: an index into the query's hits followed by the
    /// context's (`query.len() + i` is context hit `i`).
    pub current: Option<usize>,
    /// The search text, when the hits come from a search rather than the selected span.
    pub search: Option<String>,
    /// Context hits ranked as what a contradiction contradicts (`e` visits them first).
    pub ranked: crate::tui::contradiction::Ranked,
}

impl Hits {
    /// Hits the `e` key visits: the query's and the context's.
    #[must_use]
    pub fn visited(&self) -> usize {
        self.query.len() + self.context.len()
    }

    /// The current hit's index in `query`, when it is in the query.
    #[must_use]
    pub fn current_query(&self) -> Option<usize> {
        self.current.filter(|&i| i < self.query.len())
    }

    /// The current hit's index in `context`, when it is in the context.
    #[must_use]
    pub fn current_context(&self) -> Option<usize> {
        self.current
            .and_then(|i| i.checked_sub(self.query.len()))
            .filter(|&i| i < self.context.len())
    }

    /// Make context hit `i` the current one.
    pub(super) fn set_context(&mut self, i: Option<usize>) {
        self.current = i.map(|i| self.query.len() + i);
    }
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
    /// The context, query and output folded for case-insensitive search.
    pub(super) context_folded: Folded,
    pub(super) query_folded: Folded,
    /// The output folded, made on the first search (a 10 M-character answer's is ~250 MB).
    pub(super) output_folded: std::cell::OnceCell<Folded>,
    /// Where the context's rows start at the widths it was drawn at (found once, as far as the
    /// screen needed: wrapping 100 KB on every key would cost more than the rest of the frame).
    pub context_rows: Layouts,
    /// The same for the output (the review and arbitration screens wrap it at two widths).
    pub output_rows: Layouts,
    /// The context's code regions, coloured as far as drawn.
    pub context_code: crate::tui::code::Code,
    /// The output's.
    pub output_code: crate::tui::code::Code,
}

impl Current {
    /// The selected span's index in `review.spans`.
    #[must_use]
    pub fn selected_span(&self) -> Option<usize> {
        self.order.get(self.selected).copied()
    }

    /// Sort the spans in text order, keeping `keep` selected when given.
    pub(super) fn reorder(&mut self, keep: Option<&SpanKey>) {
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
    pub output_rows: Shown,
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
    /// Arbitration lanes area (inside its border); empty when the lanes are not drawn.
    pub lanes: Rect,
    /// The output's rows as the lanes screen wrapped them.
    pub lanes_rows: Shown,
    /// Screen rows per output row on the lanes screen (the text, then one per lane).
    pub lanes_per: usize,
    /// Screen row (from the lanes area's top) of each output row drawn on the lanes screen:
    /// a blank output row has no lanes under it.
    pub lanes_starts: Vec<usize>,
    /// Columns left of the text on the lanes screen (the lane labels).
    pub lanes_gutter: usize,
    /// Overlay (help, tools) area.
    pub overlay: Rect,
    /// Rows the overlay's text takes once wrapped (estimate for scrolling).
    pub overlay_rows: usize,
    /// Code on screen not coloured yet (the frame's time ran out): the next frame colours on.
    pub colouring: bool,
}

/// `Scrolls::context` meaning "the last rows", set by End and resolved by the context pane.
pub const CONTEXT_BOTTOM: usize = usize::MAX;

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
