//! The status line: the last message (saved, error), the open prompt, and key hints generated
//! from the active keymap.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::tui::app::{App, ModeState, PromptKind, Status};
use crate::tui::{strings, text};

/// Draw the status line.
pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let th = &app.config.theme;
    let mut spans: Vec<Span<'_>> = Vec::new();
    if let ModeState::Prompt { kind, text: typed } = &app.mode {
        let title = match kind {
            PromptKind::DropReason => strings::PROMPT_DROP,
            PromptKind::Note => strings::PROMPT_NOTE,
            PromptKind::Goto => strings::PROMPT_GOTO,
            PromptKind::Search => strings::PROMPT_SEARCH,
            PromptKind::RemoveOther => strings::PROMPT_REMOVE_OTHER,
        };
        spans.push(Span::styled(format!("{title}: "), th.accent()));
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
    for a in strings::hint_actions(mode) {
        let keys = km.keys_for(mode, *a);
        let Some(k) = keys.first() else { continue };
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", th.dim()));
        }
        spans.push(Span::styled(k.to_string(), th.accent()));
        spans.push(Span::raw(format!(" {}", strings::hint_in(mode, *a))));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
