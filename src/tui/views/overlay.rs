//! Overlays: the help screen (generated from the active keymap), the tools panel, pickers.

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;
use serde_json::Value;

use crate::tui::app::{App, ModeState, PickerKind};
use crate::tui::keymap::Mode;
use crate::tui::{strings, text, Action};

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let [v] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [r] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(v);
    r
}

/// Rows `lines` take when wrapped at `width` columns (each line at least one).
fn wrapped_rows(lines: &[Line<'_>], width: u16) -> usize {
    let w = usize::from(width.max(1));
    lines.iter().map(|l| l.width().div_ceil(w).max(1)).sum()
}

/// The first row of the last page: the text scrolls no further, so its end stays on screen.
fn last_page(rows: usize, area: Rect) -> usize {
    rows.saturating_sub(usize::from(area.height.saturating_sub(2)))
}

/// The help screen: every bound key of every mode, from the active keymap.
pub fn help(frame: &mut Frame<'_>, area: Rect, app: &App) -> (Rect, usize) {
    let th = &app.config.theme;
    let km = &app.config.keymap;
    let mut lines: Vec<Line<'_>> = Vec::new();
    for mode in Mode::ALL {
        let b = km.bindings(mode);
        if b.is_empty() {
            continue;
        }
        if !lines.is_empty() {
            lines.push(Line::raw(""));
        }
        lines.push(Line::from(Span::styled(
            strings::mode_title(mode),
            th.accent(),
        )));
        for (action, keys) in b {
            let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
            let k = keys.join(" ");
            let pad = 16usize.saturating_sub(text::width(&k));
            lines.push(Line::from(vec![
                Span::styled(format!("  {k}"), th.accent()),
                Span::raw(" ".repeat(pad + 1)),
                Span::raw(strings::describe_in(mode, action)),
            ]));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(strings::MOUSE_HELP, th.dim())));
    lines.push(Line::from(Span::styled(strings::MOTIONS_HELP, th.dim())));
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(strings::LEGEND, th.accent())));
    lines.extend(legend(app));
    let rows = wrapped_rows(&lines, area.width.saturating_sub(2));
    let scroll = u16::try_from(app.scroll.overlay.min(last_page(rows, area))).unwrap_or(u16::MAX);
    frame.render_widget(Clear, area);
    let mut block = Block::bordered().title(strings::HELP);
    if usize::from(scroll) + usize::from(area.height.saturating_sub(2)) < rows {
        let keys: Vec<String> = km
            .keys_for(Mode::Help, Action::Down)
            .iter()
            .map(ToString::to_string)
            .collect();
        block =
            block.title_bottom(Line::from(strings::more_below(&keys.join("/"))).right_aligned());
    }
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
        .block(block);
    frame.render_widget(p, area);
    (area, rows)
}

/// The legend: the labels of the record in their colours, the lanes' glyphs and marks.
fn legend(app: &App) -> Vec<Line<'static>> {
    let th = &app.config.theme;
    let mut labels: Vec<String> = Vec::new();
    if let Ok(c) = &app.cur {
        let read = c
            .record
            .sources
            .iter()
            .flat_map(|s| &s.spans)
            .map(|s| &s.label);
        for l in c.review.spans.iter().map(|s| &s.current.label).chain(read) {
            if !labels.contains(l) {
                labels.push(l.clone());
            }
        }
    }
    let mut first = vec![Span::raw(strings::LEGEND_LABELS)];
    for l in &labels {
        first.push(Span::styled(text::escape_line(l), th.label(l)));
        first.push(Span::raw("  "));
    }
    let mut lanes = vec![Span::raw(strings::LEGEND_LANES)];
    for k in 0..8 {
        let (style, glyph) = th.lane(k);
        lanes.push(Span::styled(strings::legend_lane(glyph, k + 1), style));
    }
    vec![
        Line::from(first),
        Line::from(lanes),
        Line::from(Span::styled(strings::LEGEND_MARKS, th.dim())),
    ]
}

/// The tools available (`meta.tools`: name and description) and the call made
/// (`meta.tool_call`).
pub fn tools(frame: &mut Frame<'_>, area: Rect, app: &App) -> (Rect, usize) {
    let th = &app.config.theme;
    let mut lines: Vec<Line<'_>> = Vec::new();
    let meta = app.cur.as_ref().ok().and_then(|c| c.record.meta());
    lines.push(Line::from(Span::styled(strings::TOOLS, th.accent())));
    match meta.and_then(|m| m.get("tools")).and_then(Value::as_array) {
        Some(tools) if !tools.is_empty() => {
            for t in tools {
                let name = t.get("name").and_then(Value::as_str).unwrap_or("?");
                let desc = t.get("description").and_then(Value::as_str).unwrap_or("");
                let mut desc_lines = desc.lines();
                lines.push(Line::from(vec![
                    Span::styled(format!("• {}", text::escape_line(name)), th.accent()),
                    Span::raw(format!(
                        " — {}",
                        text::escape_line(desc_lines.next().unwrap_or(""))
                    )),
                ]));
                for more in desc_lines {
                    lines.push(Line::raw(format!("    {}", text::escape_line(more))));
                }
                if let Some(props) = t
                    .get("parameters")
                    .and_then(|p| p.get("properties"))
                    .and_then(Value::as_object)
                {
                    let names: Vec<&str> = props.keys().map(String::as_str).collect();
                    lines.push(Line::from(Span::styled(
                        format!(
                            "    {}: {}",
                            strings::PARAMS,
                            text::escape_line(&names.join(", "))
                        ),
                        th.dim(),
                    )));
                }
            }
        }
        _ => lines.push(Line::from(Span::styled(strings::NO_TOOLS, th.dim()))),
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(strings::TOOL_CALL, th.accent())));
    match meta.and_then(|m| m.get("tool_call")) {
        Some(call) if !call.is_null() => {
            let pretty = serde_json::to_string_pretty(call).unwrap_or_default();
            for l in pretty.lines() {
                lines.push(Line::raw(text::escape_line(l)));
            }
        }
        _ => lines.push(Line::from(Span::styled(strings::NO_TOOL_CALL, th.dim()))),
    }
    let rows = wrapped_rows(&lines, area.width.saturating_sub(2));
    let scroll = u16::try_from(app.scroll.overlay.min(last_page(rows, area))).unwrap_or(u16::MAX);
    frame.render_widget(Clear, area);
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
        .block(Block::bordered().title(strings::TOOLS_PANEL));
    frame.render_widget(p, area);
    (area, rows)
}

/// A picker: numbered choices, the selected one highlighted.
pub fn picker(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let ModeState::Picker {
        kind,
        items,
        sel,
        typed,
    } = &app.mode
    else {
        return;
    };
    let th = &app.config.theme;
    let title = match kind {
        PickerKind::Relabel => strings::PICK_LABEL.to_owned(),
        PickerKind::AddLabel { start, end } => {
            format!("{} [{start}, {end})", strings::PICK_ADD_LABEL)
        }
        PickerKind::RemoveReason => strings::PICK_REMOVE.to_owned(),
        PickerKind::TakeSource => strings::PICK_SOURCE.to_owned(),
        PickerKind::Retype { .. } => strings::PICK_TYPE.to_owned(),
        PickerKind::ResolutionLabel { spans, .. } => strings::pick_resolution_label(spans),
    };
    let title = if typed.is_empty() {
        title
    } else {
        strings::picker_typed(&title, typed)
    };
    let widest = items.iter().map(|s| text::width(s)).max().unwrap_or(0) + 6;
    let w = u16::try_from(widest.max(text::width(&title) + 4)).unwrap_or(u16::MAX);
    let h = u16::try_from(items.len() + 2).unwrap_or(u16::MAX);
    let r = centered(area, w, h);
    let inner_h = usize::from(r.height.saturating_sub(2)).max(1);
    let scroll = (sel + 1).saturating_sub(inner_h);
    let lines: Vec<Line<'_>> = items
        .iter()
        .enumerate()
        .skip(scroll)
        .take(inner_h)
        .map(|(i, s)| {
            // Digits build a row's number (`1`, `2` is row 12), so every row is numbered.
            let w = items.len().to_string().len();
            let num = format!("{:>w$} ", i + 1);
            let line = Line::from(vec![
                Span::styled(num, th.dim()),
                Span::raw(text::escape_line(s)),
            ]);
            if i == *sel {
                line.style(th.list_selected())
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(text::escape_line(&title))),
        r,
    );
}
