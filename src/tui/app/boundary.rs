//! The boundary editor shared by adjust (`e`) and the arbitration edit (`t`): both move one
//! `[start, end)` with the same motions and keys; only the screen they return to and what
//! Enter saves differ (an `adjust` decision, or a `resolve` of the cluster).

use super::{App, ModeState, Status};
use crate::review::decision::SpanKey;
use crate::tui::edit::{Bounds, Moved};
use crate::tui::{strings, Action};

/// What a confirmed boundary edit was about.
pub(super) enum Edited {
    /// A span's boundaries (adjust).
    Span(SpanKey),
    /// A cluster's resolution (arbitration edit), by index.
    Cluster(usize),
}

impl App {
    /// One key of the boundary editor, in adjust or arbitration-edit mode: a motion moves the
    /// boundaries (saying so when it would leave the span empty); Esc goes back to the screen
    /// the edit came from; Enter goes back too and returns what was edited with the boundaries
    /// now and before, for the caller to save. `None` otherwise (still editing, or no edit).
    pub(super) fn boundary_key(&mut self, action: Action) -> Option<(Edited, Bounds, Bounds)> {
        let (edited, mut bounds, before, home) = match &self.mode {
            ModeState::Adjust {
                key,
                bounds,
                before,
            } => (
                Edited::Span(key.clone()),
                *bounds,
                *before,
                ModeState::Normal,
            ),
            ModeState::Settle {
                cluster,
                bounds,
                before,
                ..
            } => (
                Edited::Cluster(*cluster),
                *bounds,
                *before,
                ModeState::Arbitrate,
            ),
            _ => return None,
        };
        let Ok(c) = &self.cur else { return None };
        match bounds.apply(action, &c.chars) {
            Moved::Yes | Moved::NotAMove => {}
            Moved::WouldEmpty => self.status = Status::Info(strings::EMPTY_SPAN.to_owned()),
        }
        match action {
            Action::Cancel => {
                self.mode = home;
                None
            }
            Action::Confirm => {
                self.mode = home;
                Some((edited, bounds, before))
            }
            _ => {
                if let ModeState::Adjust { bounds: b, .. } | ModeState::Settle { bounds: b, .. } =
                    &mut self.mode
                {
                    *b = bounds;
                }
                None
            }
        }
    }
}
