//! Mouse input, mapped through the last frame's geometry: click a span to select it, drag
//! across the output to add a span (in add mode a click moves the cursor), wheel scrolls the
//! pane under the pointer. On the
//! arbitration screen a click on a cluster's text or lanes selects the cluster and the wheel
//! over the lanes moves the selection; decisions stay on keys.

use ratatui::layout::{Position, Rect};

use super::{App, ModeState};
use crate::tui::edit;

fn inside(r: Rect, x: u16, y: u16) -> bool {
    r.contains(Position { x, y })
}

impl App {
    /// Code point of the output under screen cell `(x, y)`.
    fn output_char_at(&self, x: u16, y: u16) -> Option<usize> {
        let l = &self.layout;
        if !inside(l.output, x, y) {
            return None;
        }
        let row = l.output_rows.first + usize::from(y - l.output.y);
        let cell = l
            .output_rows
            .get(row)?
            .cell_at(usize::from(x - l.output.x))?;
        let c = self.cur.as_ref().ok()?;
        Some(c.map.char_at_or_before(cell.byte))
    }

    /// Code point of the output under screen cell `(x, y)` of the arbitration lanes (the text
    /// row or any of its lanes), when a character is drawn in that column.
    fn lanes_char_at(&self, x: u16, y: u16) -> Option<usize> {
        let l = &self.layout;
        if !inside(l.lanes, x, y) || l.lanes_per == 0 {
            return None;
        }
        let dy = usize::from(y - l.lanes.y);
        let k = l
            .lanes_starts
            .partition_point(|&s| s <= dy)
            .checked_sub(1)?;
        let row = l.lanes_rows.first + k;
        let col = usize::from(x - l.lanes.x).checked_sub(l.lanes_gutter)?;
        let r = l.lanes_rows.get(row)?;
        // Only a column a character is drawn in: not the indent, not past the row's end.
        let mut at = r.indent;
        let cell = r.cells.iter().find(|c| {
            let hit = at <= col && col < at + c.width.max(1);
            at += c.width;
            hit
        })?;
        let c = self.cur.as_ref().ok()?;
        Some(c.map.char_at_or_before(cell.byte))
    }

    pub(super) fn mouse_down(&mut self, x: u16, y: u16) {
        // A count or a find typed before a move is not for the mouse.
        self.count = None;
        self.finding = None;
        if matches!(self.mode, ModeState::Arbitrate) {
            if let Some(cp) = self.lanes_char_at(x, y) {
                self.select_cluster_at(cp);
            }
            return;
        }
        if !matches!(self.mode, ModeState::Normal | ModeState::Add { .. }) {
            return;
        }
        if let Some(cp) = self.output_char_at(x, y) {
            self.drag = Some(cp);
            if let ModeState::Add { cursor, .. } = &mut self.mode {
                *cursor = cp;
            }
            if let Ok(c) = &mut self.cur {
                let hit = c.order.iter().position(|&i| {
                    let v = &c.review.spans[i].current;
                    v.start <= cp && cp < v.end
                });
                if let Some(p) = hit {
                    c.selected = p;
                    self.refresh_hits();
                }
            }
            return;
        }
        if inside(self.layout.list, x, y) {
            let row = self.layout.list_scroll + usize::from(y - self.layout.list.y);
            if let Ok(c) = &mut self.cur {
                if row < c.order.len() {
                    c.selected = row;
                    self.scroll.output = None;
                    self.refresh_hits();
                }
            }
        }
    }

    pub(super) fn mouse_drag(&mut self, x: u16, y: u16) {
        let Some(start) = self.drag else { return };
        if !matches!(self.mode, ModeState::Normal | ModeState::Add { .. }) {
            return;
        }
        if let Some(cp) = self.output_char_at(x, y) {
            if cp != start || matches!(self.mode, ModeState::Add { .. }) {
                self.mode = ModeState::Add {
                    anchor: Some(start),
                    cursor: cp,
                };
            }
        }
    }

    pub(super) fn mouse_up(&mut self, x: u16, y: u16) {
        let Some(start) = self.drag.take() else {
            return;
        };
        // A key pressed during the drag opened something else (a prompt, a picker): the
        // release does not replace it.
        if !matches!(self.mode, ModeState::Normal | ModeState::Add { .. }) {
            return;
        }
        let end = self.output_char_at(x, y).or(match self.mode {
            ModeState::Add { cursor, .. } => Some(cursor),
            _ => None,
        });
        match end {
            Some(cp) if cp != start => {
                if !self.require_open() {
                    self.mode = ModeState::Normal;
                    return;
                }
                let Ok(c) = &self.cur else { return };
                let (a, b) = edit::marked(&c.chars, start, cp);
                self.open_add_label(a, b);
            }
            _ => {
                if matches!(self.mode, ModeState::Normal) {
                    self.remember_click(start);
                }
                // A drag begun on the review screen and ended where it began adds nothing;
                // a click in add mode (its start marked elsewhere) only moved the cursor.
                if matches!(
                    self.mode,
                    ModeState::Add {
                        anchor: Some(a),
                        ..
                    } if a == start
                ) {
                    self.mode = ModeState::Normal;
                }
            }
        }
    }

    pub(super) fn wheel(&mut self, x: u16, y: u16, delta: i8) {
        let d = isize::from(delta) * 3;
        if matches!(self.mode, ModeState::Help | ModeState::Tools) {
            let max = self.layout.overlay_rows.saturating_sub(1).max(1);
            self.scroll.overlay = self.scroll.overlay.saturating_add_signed(d).min(max);
            return;
        }
        if matches!(self.mode, ModeState::Arbitrate) && inside(self.layout.lanes, x, y) {
            self.step_cluster(delta.signum().into());
        } else if inside(self.layout.context, x, y) {
            self.scroll_context(d);
        } else if inside(self.layout.output, x, y) {
            let max = self.layout.output_rows.len().saturating_sub(1);
            let now = self.scroll.output.unwrap_or(self.layout.output_rows.first);
            self.scroll.output = Some(now.saturating_add_signed(d).min(max));
        } else if inside(self.layout.list, x, y) || inside(self.layout.query, x, y) {
            self.select_step(delta.signum().into());
        }
    }
}
