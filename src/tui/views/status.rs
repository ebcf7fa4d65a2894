//! The status line: the last message (saved, error), the open prompt, and key hints generated
//! from the active keymap.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::tui::app::{App, ModeState, PromptKind, Status};
use crate::tui::{strings, text, Action};

/// Draw the status line.
pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let th = &app.config.theme;
    let mut spans: Vec<Span<'_>> = Vec::new();
    if let ModeState::Prompt { kind, text: typed } = &app.mode {
        let title = match (kind, kind.group()) {
            (_, Some(g)) => strings::prompt_reason(g, app.config.rubric.as_ref()),
            (PromptKind::DropReason, None) => strings::PROMPT_DROP.to_owned(),
            (PromptKind::Note, None) => strings::PROMPT_NOTE.to_owned(),
            (PromptKind::Goto, None) => strings::PROMPT_GOTO.to_owned(),
            (PromptKind::Search, None) => strings::PROMPT_SEARCH.to_owned(),
            // The one free-text prompt left: the removal's "other" reason.
            (_, None) => strings::PROMPT_REMOVE_OTHER.to_owned(),
        };
        // A wrong code says why on the prompt's own line, before it.
        let coded = kind.group().is_some();
        if let (true, Status::Error(m)) = (coded, &app.status) {
            spans.push(Span::styled(
                format!("{} ", text::escape_line(m)),
                th.error(),
            ));
        }
        spans.push(Span::styled(
            format!("{}: ", text::escape_line(&title)),
            th.accent(),
        ));
        spans.push(Span::raw(text::escape_line(typed)));
        spans.push(Span::styled("▏", th.accent()));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
        return;
    }
    match &app.status {
        Status::None => {}
        Status::Info(m) => spans.push(Span::raw(text::escape_line(m))),
        Status::Saved(m) => spans.push(Span::styled(text::escape_line(m), th.saved())),
        Status::Error(m) => spans.push(Span::styled(text::escape_line(m), th.error())),
    }
    let mode = app.key_mode();
    let km = &app.config.keymap;
    // Each bound hint as (action, key, word). The kept ones take their room first (in
    // `HINTS_KEPT`'s order: `?` and `q` before the others on a tiny screen), then the others in
    // order while they fit: the line fits its width.
    let hints: Vec<(Action, String, String)> = strings::hint_actions(mode)
        .iter()
        .filter_map(|a| {
            let k = km.keys_for(mode, *a).first()?.to_string();
            let word = format!(" {}", strings::hint_in(mode, *a));
            Some((*a, k, word))
        })
        .collect();
    let sep = " · ";
    let cost =
        |(_, k, w): &(Action, String, String)| text::width(sep) + text::width(k) + text::width(w);
    let used: usize = spans.iter().map(|s| text::width(&s.content)).sum();
    // The first hint of an empty line has no separator before it.
    let mut room = (usize::from(area.width) + if used == 0 { text::width(sep) } else { 0 })
        .saturating_sub(used);
    let mut show = vec![false; hints.len()];
    let by_priority = strings::HINTS_KEPT
        .iter()
        .filter_map(|a| hints.iter().position(|h| h.0 == *a));
    for i in by_priority {
        if cost(&hints[i]) <= room {
            room -= cost(&hints[i]);
            show[i] = true;
        }
    }
    let optional = hints
        .iter()
        .enumerate()
        .filter(|(_, h)| !strings::HINTS_KEPT.contains(&h.0));
    for (i, h) in optional {
        if cost(h) > room {
            break;
        }
        room -= cost(h);
        show[i] = true;
    }
    for (h, _) in hints.iter().zip(show).filter(|(_, s)| *s) {
        if !spans.is_empty() {
            spans.push(Span::styled(sep, th.dim()));
        }
        spans.push(Span::styled(h.1.clone(), th.accent()));
        spans.push(Span::raw(h.2.clone()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
