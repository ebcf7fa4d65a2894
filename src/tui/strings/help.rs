//! The help screen's and the status line's words for each action and mode: one line of help,
//! a short hint, and which actions each mode's hints show.

use crate::tui::action::Action;
use crate::tui::keymap::Mode;

/// One line of help for an action.
#[must_use]
pub fn describe(a: Action) -> &'static str {
    match a {
        Action::NextSpan => "next span",
        Action::PrevSpan => "previous span",
        Action::NextRecord => "next record in the queue",
        Action::PrevRecord => "previous record in the queue",
        Action::FirstRecord => "first record of the queue",
        Action::LastRecord => "last record of the queue",
        Action::Goto => "go to a record by position or id",
        Action::NextFlagged => "next flagged record in the queue (wraps around)",
        Action::Accept => "accept the selected span",
        Action::AcceptAll => {
            "accept every remaining span, next record (spans with bad offsets are skipped)"
        }
        Action::Drop => "drop the selected span (reason optional; with a rubric, a code)",
        Action::Relabel => "relabel the selected span (with a rubric, a code)",
        Action::Adjust => "adjust the selected span's boundaries (with a rubric, a code)",
        Action::Add => "add a span (at the click, else the search hit, else the span's start)",
        Action::AddAfterSpan => "add a span starting just after the selected span",
        Action::Clean => "reclassify the record as clean (with a rubric, a code)",
        Action::Retype => "change the record's type (the types seen in the file)",
        Action::Remove => "remove the record (with a reason; with a rubric, a code)",
        Action::Flag => "flag / unflag for a second look (with a rubric, a code)",
        Action::Note => "attach a note to the record",
        Action::ToSiblings => "make the last span decision on the sibling variants (same text)",
        Action::Undo => "undo the last decision (across restarts)",
        Action::Redo => "redo the last undone decision",
        Action::Search => "search the record's text",
        Action::NextSearchRecord => "next record in the queue with the text searched (wraps)",
        Action::NextEvidence => "next evidence / search hit (ranked candidates, query, context)",
        Action::Tools => "tools available and the call made",
        Action::ContextDown => "scroll the context down",
        Action::ContextUp => "scroll the context up",
        Action::ContextTop => "context: to the top",
        Action::ContextBottom => "context: to the bottom",
        Action::Help => "help",
        Action::Quit => "quit (everything is already saved)",
        Action::StartLeft => "start one character left",
        Action::StartRight => "start one character right",
        Action::EndLeft => "end one character left",
        Action::EndRight => "end one character right",
        Action::StartWordLeft => "start one word left",
        Action::StartWordRight => "start one word right",
        Action::EndWordLeft => "end one word left",
        Action::EndWordRight => "end one word right",
        Action::Trim => "trim whitespace and punctuation",
        Action::CursorLeft => "cursor one character left",
        Action::CursorRight => "cursor one character right",
        Action::CursorWordLeft => "cursor one word left",
        Action::CursorWordRight => "cursor one word right",
        Action::Mark => "set the start, then the end",
        Action::NextVersion => "arbitration edit: start from the next source's version",
        Action::PrevVersion => "arbitration edit: start from the previous source's version",
        Action::FindForward => {
            "then a character: the cursor onto its next one (f, is the next comma)"
        }
        Action::FindBackward => "then a character: the cursor onto its previous one",
        Action::TillForward => "then a character: the cursor just before its next one",
        Action::TillBackward => "then a character: the cursor just after its previous one",
        Action::LineStart => "to the line's first character (adjust: the start; add: the cursor)",
        Action::LineEnd => "to the line's last character (adjust: the end; add: the cursor)",
        Action::Down => "down",
        Action::Up => "up",
        Action::Confirm => "save / choose",
        Action::Cancel => "cancel / close",
        Action::DeleteChar => "delete a character",
        Action::Crash => "crash on purpose (tests)",
        Action::Arbitrate => "arbitration screen: one lane per source (again to leave)",
        Action::Stats => "stats: progress and per-source agreement",
        Action::Take1 => "take source 1's version of the cluster",
        Action::Take2 => "take source 2's version",
        Action::Take3 => "take source 3's version",
        Action::Take4 => "take source 4's version",
        Action::Take5 => "take source 5's version",
        Action::Take6 => "take source 6's version",
        Action::Take7 => "take source 7's version",
        Action::Take8 => "take source 8's version",
        Action::Take9 => "take source 9's version",
        Action::TakeOther => "take a source's version, picked from a list (sources past 9)",
        Action::Union => "union: one span over everything any source covers",
        Action::Intersection => "intersection: what every covering source covers",
        Action::PlaceClaim => "place the selected unplaced judge claim (mark it as in add)",
        Action::DismissClaim => "dismiss the selected unplaced judge claim",
        Action::NextClaim => "select the next unplaced judge claim",
        Action::Input(_)
        | Action::MouseDown(..)
        | Action::MouseDrag(..)
        | Action::MouseUp(..)
        | Action::Scroll(..) => "",
    }
}

/// One line of help for an action in a mode (where the mode gives it another meaning).
#[must_use]
pub fn describe_in(mode: Mode, a: Action) -> &'static str {
    match (mode, a) {
        (Mode::Normal, Action::Cancel) => "clear the search and the message",
        (Mode::Prompt, Action::Confirm) => "submit",
        (Mode::Picker, Action::Confirm) => {
            "choose (or type the row's number: 1, 2 is row 12 when there are 12 or more)"
        }
        (Mode::Picker, Action::DeleteChar) => "delete the last digit typed",
        (Mode::Adjust, Action::Confirm) => "save the new boundaries",
        (Mode::Arbitrate, Action::NextSpan) => "next cluster",
        (Mode::Arbitrate, Action::PrevSpan) => "previous cluster",
        (Mode::Arbitrate, Action::Drop) => "drop all: nothing in the cluster is a hallucination",
        (Mode::Arbitrate, Action::Adjust) => "edit: set the cluster's span yourself (adjust keys)",
        (Mode::Arbitrate, Action::AcceptAll) => "accept the record's other spans, next record",
        (Mode::Arbitrate, Action::Arbitrate) => "back to the review screen",
        (Mode::Arbitrate, Action::Relabel) => {
            "relabel the span(s) the cluster's resolution keeps (a new resolution)"
        }
        (Mode::Stats, Action::Cancel) => "close",
        _ => describe(a),
    }
}

/// A short word for an action in the status-line hints.
#[must_use]
pub fn hint(a: Action) -> &'static str {
    match a {
        Action::NextSpan => "span",
        Action::NextRecord => "record",
        Action::Accept => "accept",
        Action::AcceptAll => "all+next",
        Action::Drop => "drop",
        Action::Relabel => "relabel",
        Action::Adjust => "adjust",
        Action::Add => "add",
        Action::Clean => "clean",
        Action::Remove => "remove",
        Action::Undo => "undo",
        Action::NextEvidence => "evidence",
        Action::Tools => "tools",
        Action::Help => "help",
        Action::Quit => "quit",
        Action::Flag => "flag",
        Action::Note => "note",
        Action::Search => "search",
        Action::Goto => "go to",
        Action::StartLeft => "start←",
        Action::StartRight => "start→",
        Action::EndLeft => "end←",
        Action::EndRight => "end→",
        Action::StartWordRight => "start word→",
        Action::EndWordRight => "end word→",
        Action::Trim => "trim",
        Action::CursorRight => "right",
        Action::CursorLeft => "left",
        Action::CursorWordRight => "word",
        Action::Mark => "mark",
        Action::Down => "move",
        Action::Confirm => "ok",
        Action::Cancel => "cancel",
        Action::Arbitrate => "arbitrate",
        Action::Stats => "stats",
        Action::Take1 => "take 1",
        Action::Take2 => "take 2",
        Action::Union => "union",
        Action::Intersection => "intersect",
        Action::PlaceClaim => "place claim",
        Action::DismissClaim => "dismiss claim",
        _ => describe(a),
    }
}

/// A short word for an action in a mode's hints, where the mode gives it another meaning.
#[must_use]
pub fn hint_in(mode: Mode, a: Action) -> &'static str {
    match (mode, a) {
        (Mode::Arbitrate, Action::NextSpan) => "cluster",
        (Mode::Arbitrate, Action::Drop) => "drop all",
        (Mode::Arbitrate, Action::Adjust) => "edit",
        (Mode::Arbitrate, Action::Arbitrate) => "review",
        (Mode::Stats, Action::Cancel) => "close",
        _ => hint(a),
    }
}

/// Actions shown in the status-line hints of each mode, most useful first (keys come from the
/// active keymap; an unbound action is left out).
#[must_use]
pub fn hint_actions(mode: Mode) -> &'static [Action] {
    match mode {
        Mode::Normal => &[
            Action::Help,
            Action::Flag,
            Action::Note,
            Action::Search,
            Action::Goto,
            Action::Accept,
            Action::Drop,
            Action::AcceptAll,
            Action::Adjust,
            Action::Relabel,
            Action::Add,
            Action::NextSpan,
            Action::NextRecord,
            Action::Undo,
            Action::Arbitrate,
            Action::Stats,
            Action::NextEvidence,
            Action::Tools,
            Action::Clean,
            Action::Remove,
            Action::Quit,
        ],
        Mode::Adjust => &[
            Action::Confirm,
            Action::Cancel,
            Action::StartLeft,
            Action::StartRight,
            Action::EndLeft,
            Action::EndRight,
            Action::StartWordRight,
            Action::EndWordRight,
            Action::Trim,
        ],
        Mode::Add => &[
            Action::Mark,
            Action::Cancel,
            Action::CursorRight,
            Action::CursorLeft,
            Action::CursorWordRight,
        ],
        Mode::Picker => &[Action::Confirm, Action::Cancel, Action::Down],
        Mode::Prompt => &[Action::Confirm, Action::Cancel],
        Mode::Arbitrate => &[
            Action::Help,
            Action::Goto,
            Action::Take1,
            Action::Take2,
            Action::Union,
            Action::Intersection,
            Action::Drop,
            Action::Adjust,
            Action::NextSpan,
            Action::NextRecord,
            Action::Undo,
            Action::PlaceClaim,
            Action::DismissClaim,
            Action::Relabel,
            Action::Clean,
            Action::Remove,
            Action::Stats,
            Action::Arbitrate,
            Action::Quit,
        ],
        Mode::Help | Mode::Tools => &[Action::Cancel, Action::Down],
        Mode::Stats => &[Action::Cancel],
    }
}

/// Title of a mode's section in help.
#[must_use]
pub fn mode_title(mode: Mode) -> &'static str {
    match mode {
        Mode::Normal => "Review",
        Mode::Adjust => "Adjust boundaries (t)",
        Mode::Add => "Add a span (v)",
        Mode::Picker => "Pickers",
        Mode::Prompt => "Prompts",
        Mode::Help => "Help",
        Mode::Tools => "Tools panel",
        Mode::Arbitrate => "Arbitration (d)",
        Mode::Stats => "Stats (S)",
    }
}
