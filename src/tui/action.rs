//! What the reviewer can ask for. Actions are data: their snake-case names are the keymap
//! file's vocabulary (`ctrl-r = "redo"`) and their descriptions (in [`super::strings`]) are the
//! help screen's source.

use serde::{Deserialize, Serialize};

/// One thing the reviewer asked for. Variants without data can be bound to keys; the others
/// come from text input and the mouse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Select the next span of the record.
    NextSpan,
    /// Select the previous span.
    PrevSpan,
    /// Next record in the queue.
    NextRecord,
    /// Previous record in the queue.
    PrevRecord,
    /// First record of the queue.
    FirstRecord,
    /// Last record of the queue.
    LastRecord,
    /// Go to a record by position or id (prompt).
    Goto,
    /// Next flagged record in the queue order, wrapping to the queue's start.
    NextFlagged,
    /// Accept the selected span.
    Accept,
    /// Accept every pending span of the record and go to the next record.
    AcceptAll,
    /// Drop the selected span (optional reason).
    Drop,
    /// Relabel the selected span (picker).
    Relabel,
    /// Adjust the selected span's boundaries.
    Adjust,
    /// Add a span the labels missed.
    Add,
    /// Add a span starting just after the selected span.
    AddAfterSpan,
    /// Reclassify the record as clean.
    Clean,
    /// Change the record's type (a picker of the types seen in the file).
    Retype,
    /// Remove the record from the dataset (reason picker).
    Remove,
    /// Flag the record for a second look (again to clear).
    Flag,
    /// Attach a note to the record.
    Note,
    /// Make the last span decision on the sibling variants too (the same text there).
    ToSiblings,
    /// Undo the last decision (across restarts).
    Undo,
    /// Redo the last undone decision.
    Redo,
    /// Search the record's text.
    Search,
    /// The next record in the queue (wrapping) holding the text searched with `/`.
    NextSearchRecord,
    /// Jump to the next evidence or search occurrence in the context.
    NextEvidence,
    /// Show the tools available to the assistant and the call it made.
    Tools,
    /// Scroll the context down.
    ContextDown,
    /// Scroll the context up.
    ContextUp,
    /// Scroll the context to its first row.
    ContextTop,
    /// Scroll the context to its last rows.
    ContextBottom,
    /// Open the help screen.
    Help,
    /// Quit (every decision is already saved).
    Quit,
    /// Adjust: move the start one character left.
    StartLeft,
    /// Adjust: move the start one character right.
    StartRight,
    /// Adjust: move the end one character left.
    EndLeft,
    /// Adjust: move the end one character right.
    EndRight,
    /// Adjust: move the start one word left.
    StartWordLeft,
    /// Adjust: move the start one word right.
    StartWordRight,
    /// Adjust: move the end one word left.
    EndWordLeft,
    /// Adjust: move the end one word right.
    EndWordRight,
    /// Adjust: trim whitespace and punctuation from both ends.
    Trim,
    /// Add: move the cursor one character left.
    CursorLeft,
    /// Add: move the cursor one character right.
    CursorRight,
    /// Add: move the cursor one word left.
    CursorWordLeft,
    /// Add: move the cursor one word right.
    CursorWordRight,
    /// Add: set the start, then the end, of the new span.
    Mark,
    /// Arbitration edit: start again from the next source's version of the cluster.
    NextVersion,
    /// Arbitration edit: start again from the previous source's version.
    PrevVersion,
    /// Add: the cursor to the next character typed next (`f,`: the next comma).
    FindForward,
    /// Add: the cursor to the previous character typed next.
    FindBackward,
    /// Add: the cursor to just before the next character typed next.
    TillForward,
    /// Add: the cursor to just after the previous character typed next.
    TillBackward,
    /// Adjust: the start to its line's first character; add: the cursor there.
    LineStart,
    /// Adjust: the end to its line's last character; add: the cursor there.
    LineEnd,
    /// Lists: move down.
    Down,
    /// Lists: move up.
    Up,
    /// Save / choose / submit.
    Confirm,
    /// Cancel and go back.
    Cancel,
    /// Prompt: delete the character before the cursor.
    DeleteChar,
    /// Open the arbitration screen for the record (one lane per source), or leave it.
    Arbitrate,
    /// Open the stats screen: progress and per-source agreement.
    Stats,
    /// Arbitration: take source 1's version of the cluster.
    Take1,
    /// Arbitration: take source 2's version.
    Take2,
    /// Arbitration: take source 3's version.
    Take3,
    /// Arbitration: take source 4's version.
    Take4,
    /// Arbitration: take source 5's version.
    Take5,
    /// Arbitration: take source 6's version.
    Take6,
    /// Arbitration: take source 7's version.
    Take7,
    /// Arbitration: take source 8's version.
    Take8,
    /// Arbitration: take source 9's version.
    Take9,
    /// Arbitration: take the version of a source picked from a list (sources past 9).
    TakeOther,
    /// Arbitration: one span over everything any source covers.
    Union,
    /// Arbitration: what every covering source covers.
    Intersection,
    /// Arbitration: place the selected unplaced judge claim by hand.
    PlaceClaim,
    /// Arbitration: dismiss the selected unplaced judge claim.
    DismissClaim,
    /// Arbitration: select the next unplaced judge claim.
    NextClaim,
    /// Panic on purpose (tests that the terminal is restored); unbound by default.
    Crash,
    /// Text typed into a prompt (not bindable).
    #[serde(skip)]
    Input(char),
    /// Mouse button pressed at a screen cell (column, row) (not bindable).
    #[serde(skip)]
    MouseDown(u16, u16),
    /// Mouse dragged to a cell (not bindable).
    #[serde(skip)]
    MouseDrag(u16, u16),
    /// Mouse button released at a cell (not bindable).
    #[serde(skip)]
    MouseUp(u16, u16),
    /// Wheel scrolled at a cell: positive is down (not bindable).
    #[serde(skip)]
    Scroll(u16, u16, i8),
}

impl Action {
    /// Every bindable action, in help order.
    pub const BINDABLE: &'static [Action] = &[
        Self::NextSpan,
        Self::PrevSpan,
        Self::NextRecord,
        Self::PrevRecord,
        Self::FirstRecord,
        Self::LastRecord,
        Self::Goto,
        Self::NextFlagged,
        Self::Accept,
        Self::AcceptAll,
        Self::Drop,
        Self::Relabel,
        Self::Adjust,
        Self::Add,
        Self::AddAfterSpan,
        Self::Clean,
        Self::Retype,
        Self::Remove,
        Self::Flag,
        Self::Note,
        Self::ToSiblings,
        Self::Undo,
        Self::Redo,
        Self::Search,
        Self::NextSearchRecord,
        Self::NextEvidence,
        Self::Tools,
        Self::ContextDown,
        Self::ContextUp,
        Self::ContextTop,
        Self::ContextBottom,
        Self::Help,
        Self::Quit,
        Self::StartLeft,
        Self::StartRight,
        Self::EndLeft,
        Self::EndRight,
        Self::StartWordLeft,
        Self::StartWordRight,
        Self::EndWordLeft,
        Self::EndWordRight,
        Self::Trim,
        Self::CursorLeft,
        Self::CursorRight,
        Self::CursorWordLeft,
        Self::CursorWordRight,
        Self::Mark,
        Self::NextVersion,
        Self::PrevVersion,
        Self::FindForward,
        Self::FindBackward,
        Self::TillForward,
        Self::TillBackward,
        Self::LineStart,
        Self::LineEnd,
        Self::Down,
        Self::Up,
        Self::Confirm,
        Self::Cancel,
        Self::DeleteChar,
        Self::Arbitrate,
        Self::Stats,
        Self::Take1,
        Self::Take2,
        Self::Take3,
        Self::Take4,
        Self::Take5,
        Self::Take6,
        Self::Take7,
        Self::Take8,
        Self::Take9,
        Self::TakeOther,
        Self::Union,
        Self::Intersection,
        Self::PlaceClaim,
        Self::DismissClaim,
        Self::NextClaim,
        Self::Crash,
    ];

    /// The source lane (1-based) a take action names.
    #[must_use]
    pub fn take_lane(self) -> Option<usize> {
        Some(match self {
            Self::Take1 => 1,
            Self::Take2 => 2,
            Self::Take3 => 3,
            Self::Take4 => 4,
            Self::Take5 => 5,
            Self::Take6 => 6,
            Self::Take7 => 7,
            Self::Take8 => 8,
            Self::Take9 => 9,
            _ => return None,
        })
    }

    /// The keymap name (`next_span`), or `None` for input and mouse actions.
    #[must_use]
    pub fn name(self) -> Option<String> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// Parse a keymap name.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(s.to_owned())).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Action::BINDABLE {
            let n = a.name().expect("bindable has a name");
            assert_eq!(Action::from_name(&n), Some(*a), "{n}");
        }
        assert_eq!(Action::Input('x').name(), None);
        assert_eq!(Action::from_name("accept_all"), Some(Action::AcceptAll));
        assert_eq!(Action::from_name("nope"), None);
    }
}
