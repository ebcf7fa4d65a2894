//! Drawing the review screen from the app's state. Views read the app and return the frame's
//! geometry (for mouse hits and scrolling); they never change domain state.

mod cells;
mod header;
mod lanes;
mod overlay;
mod panes;
mod spans;
mod stats;
mod status;

use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::Frame;

use super::app::{App, ModeState, ScreenLayout};

/// Draw the whole screen; returns where things were drawn.
pub fn draw(frame: &mut Frame<'_>, app: &App) -> ScreenLayout {
    let area = frame.area();
    let mut out = ScreenLayout::default();
    if area.width < 4 || area.height < 3 {
        return out;
    }
    let tall = area.height >= 16;
    let header_h = if tall { 2 } else { 1 };
    let [head, body, stat] = Layout::vertical([
        Constraint::Length(header_h),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    header::draw(frame, head, app);
    status::draw(frame, stat, app);
    match &app.cur {
        Ok(_) if shows_lanes(app) => lanes::body(frame, body, app, &mut out),
        Ok(_) => body_view(frame, body, app, &mut out),
        Err(e) => panes::message(frame, body, app, e),
    }
    match &app.mode {
        ModeState::Help => (out.overlay, out.overlay_rows) = overlay::help(frame, area, app),
        ModeState::Tools => (out.overlay, out.overlay_rows) = overlay::tools(frame, area, app),
        ModeState::Picker { .. } => overlay::picker(frame, area, app),
        ModeState::Stats => stats::draw(frame, body, app),
        _ => {}
    }
    out
}

/// The arbitration screen is open and not handing over to add mode (placing a claim).
fn shows_lanes(app: &App) -> bool {
    app.arbitrating && app.arb.is_some() && !matches!(app.mode, ModeState::Add { .. })
}

fn body_view(frame: &mut Frame<'_>, body: Rect, app: &App, out: &mut ScreenLayout) {
    let show_query = body.height >= 14;
    let query_h = if show_query {
        panes::query_height(app, body.width)
    } else {
        0
    };
    let [query, main] =
        Layout::vertical([Constraint::Length(query_h), Constraint::Min(1)]).areas(body);
    if show_query {
        out.query = panes::query(frame, query, app);
    }
    let (left, right) = split_two(main, 55, 55);
    let panel_h = bottom_panel_height(app, left.height);
    let [output, panel] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Min(3), Constraint::Length(panel_h)])
        .areas(left);
    panes::output(frame, output, app, out);
    if panel_h > 0 {
        match &app.mode {
            ModeState::Adjust { .. } => panes::adjust(frame, panel, app),
            ModeState::Add { .. } => panes::add(frame, panel, app),
            _ => spans::list(frame, panel, app, out),
        }
    }
    panes::context(frame, right, app, out);
}

/// `area` in two: side by side when it is 80 columns wide or more (the first part `wide`
/// percent of the width), else stacked (the first part `narrow` percent of the height).
fn split_two(area: Rect, wide: u16, narrow: u16) -> (Rect, Rect) {
    let [l, r] = if area.width >= 80 {
        Layout::horizontal([
            Constraint::Percentage(wide),
            Constraint::Percentage(100 - wide),
        ])
        .areas(area)
    } else {
        Layout::vertical([
            Constraint::Percentage(narrow),
            Constraint::Percentage(100 - narrow),
        ])
        .areas(area)
    };
    (l, r)
}

fn bottom_panel_height(app: &App, avail: u16) -> u16 {
    if avail < 7 {
        return 0;
    }
    // Half the room; in a small terminal the output keeps two rows of text and the panel (the
    // selected span, the adjust or add panel) takes the rest.
    let cap = if avail < 9 { avail - 4 } else { avail / 2 };
    let want: u16 = match (&app.mode, &app.cur) {
        (ModeState::Adjust { .. }, _) => 8,
        (ModeState::Add { .. }, _) => 4,
        (_, Ok(c)) => u16::try_from(c.order.len().max(1) + spans::note_rows(app, c))
            .unwrap_or(u16::MAX)
            .saturating_add(2),
        (_, Err(_)) => 0,
    };
    want.min(cap).min(12)
}
