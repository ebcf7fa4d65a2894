//! The help screen's fixed text (mouse and motion help, the legend) and the hints the status line keeps first.

use crate::tui::action::Action;

/// Mouse help line in the help screen.
pub const MOUSE_HELP: &str =
    "Mouse: click a span to select it · drag across the output to add a span · wheel scrolls · \
     arbitration: click a cluster's text or lanes to select it, wheel over the lanes moves between \
     clusters (decisions stay on keys)";

/// Help lines on counts and where moves start (adjust, add and the arbitration edit).
pub const MOTIONS_HELP: &str =
    "Counts: in adjust, add and the arbitration edit a number before a move repeats it \
     (3l: start three characters right, 2w: two words) · in add, f/F and a character move the \
     cursor to it (f, is the next comma), t/T next to it · ^ and $: to the line's first and \
     last character · v starts at the character last clicked on the output (not on a span; a \
     search since wins), else at the search's first hit in the output (after /), else at the \
     selected span · in add, a click on the output moves the \
     cursor there · arbitration t starts from lane 1's version of the cluster (Tab: the next \
     lane's) · word moves stop at each Chinese or Japanese character and at a change of script";

/// Help's legend heading.
pub const LEGEND: &str = "Legend";

/// Before the labels of the record in their colours (help's legend).
pub const LEGEND_LABELS: &str = "Labels of this record: ";

/// Before the source lanes' glyphs (help's legend).
pub const LEGEND_LANES: &str = "Arbitration lanes: ";

/// One source lane in the legend.
#[must_use]
pub fn legend_lane(glyph: &str, lane: usize) -> String {
    format!("{glyph} lane {lane}  ")
}

/// The reviewed-result lane and the judges' marks (help and the arbitration screen).
pub const LEGEND_MARKS: &str = "▒ ✓ reviewed result · judge lanes J1…: x label wrong, \
                                 = label right, ^ claim, ? unknown · underlined: disputed";

/// Help's bottom border while more of it is below.
#[must_use]
pub fn more_below(keys: &str) -> String {
    format!(" ↓ more below ({keys}) ")
}

/// Hints kept in the status line before the others, first ones first on a narrow screen (the
/// others fill the room left).
pub const HINTS_KEPT: &[Action] = &[
    Action::Help,
    Action::Quit,
    Action::Confirm,
    Action::Cancel,
    Action::Flag,
    Action::Note,
    Action::Search,
    Action::Goto,
];
