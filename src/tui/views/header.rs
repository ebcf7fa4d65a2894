//! The header: dataset, position in the queue, the reviewer's pace, id, type, review state,
//! progress. While the file is still being indexed in the background the queue's size is a
//! lower bound (`12 / 4096+`) and "indexing… N records so far" stands in for the dataset's
//! progress.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::review::decision::RecordOutcome;
use crate::tui::app::App;
use crate::tui::{strings, text};

/// Draw the header into `area` (one or two rows).
pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let th = &app.config.theme;
    let (_, n, exact) = app.progress();
    // An empty queue has no position ("1 / 0" said there was a first record).
    let at = if n == 0 {
        "–".to_owned()
    } else {
        (app.pos + 1).to_string()
    };
    let pos = format!("{at} / {}{}", n, if exact { "" } else { "+" });
    let mut first = vec![
        Span::styled(text::escape_line(&app.dataset.name), th.accent()),
        Span::raw(" · "),
        Span::styled(pos, th.accent()),
        Span::raw(format!(" · queue {}", app.queue.kind)),
    ];
    if let Some(t) = app.team_line() {
        first.push(Span::styled(format!(" · {t}"), th.accent()));
    }
    for w in app.alarm() {
        first.push(Span::styled(
            format!(" · ⚠ {}", text::escape_line(w)),
            th.stale(),
        ));
    }
    if let Some(cl) = &app.clustering {
        let msg = if cl.finished {
            strings::disputed(cl.disputed)
        } else {
            format!(
                "{} · {}",
                strings::clustering(cl.done, cl.total),
                strings::disputed(cl.disputed)
            )
        };
        first.push(Span::styled(format!(" · {msg}"), th.dim()));
        if app.arb_config.auto_accept {
            first.push(Span::styled(
                format!(" · {}", strings::auto_accepted(app.auto_accepted)),
                th.dim(),
            ));
        }
    }
    let mut second: Vec<Span<'_>> = Vec::new();
    if let Ok(c) = &app.cur {
        second.push(Span::raw(text::escape_line(&c.record.id)));
        // The type after review: a retype shows at once.
        if let Some(t) = c.review.current_type(&c.record) {
            second.push(Span::raw(" · "));
            second.push(Span::styled(text::escape_line(t), th.label(t)));
        }
        let r = &c.review;
        let state = match &r.outcome {
            RecordOutcome::Clean => strings::CLEAN.to_owned(),
            RecordOutcome::Removed { reason } => strings::removed(
                &crate::review::rubric::described_by(app.config.rubric.as_ref(), reason),
            ),
            RecordOutcome::Open if r.is_reviewed() => strings::REVIEWED.to_owned(),
            RecordOutcome::Open => strings::OPEN.to_owned(),
        };
        second.push(Span::raw(" · "));
        second.push(Span::styled(state, th.accent()));
        if let Some(who) = app.held_by() {
            second.push(Span::styled(
                format!(" · {}", strings::team::on_it(who)),
                th.stale(),
            ));
        }
        if r.flagged {
            second.push(Span::styled(format!(" · {}", strings::FLAGGED), th.stale()));
        }
        let typed_clean = app.kept_on_typed_clean();
        if typed_clean > 0 {
            second.push(Span::styled(
                format!(" · {}", strings::typed_clean_with_spans(typed_clean)),
                th.stale(),
            ));
        }
        if !r.stale.is_empty() {
            second.push(Span::styled(
                format!(" · {}", strings::stale_count(r.stale.len())),
                th.stale(),
            ));
        }
        if !r.notes.is_empty() {
            second.push(Span::styled(
                format!(" · {}", strings::notes(r.notes.len())),
                th.dim(),
            ));
        }
    }
    // Progress is the dataset's, not the queue's (after a restart the unreviewed queue holds
    // only what is left, and "0/156" hid the 19 done).
    let shown = app.dataset_progress();
    let (done, total) = shown.unwrap_or((0, app.dataset.len()));
    // Last on its row: the least needed at a glance, the first cut on a narrow screen.
    let pace = app.pace_line();
    // The dataset's size is not known before it is indexed: no bar, no "done/N".
    let indexing = !app.dataset.indexed();
    let count = if indexing {
        strings::indexing(total)
    } else if shown.is_none() {
        strings::PROGRESS_HIDDEN.to_owned()
    } else {
        strings::progress(done, total)
    };
    if area.height >= 2 {
        // The progress goes at the end of the first row, the bar as wide as the room left.
        let used: usize = first.iter().map(|s| text::width(&s.content)).sum();
        let room = usize::from(area.width).saturating_sub(used + 2 + text::width(&count) + 1);
        let mut tail = count;
        if room >= 7 && !indexing && shown.is_some() {
            tail = format!("{} {tail}", progress_bar(done, total, (room - 2).min(30)));
        }
        first.push(Span::raw("  "));
        first.push(Span::styled(tail, th.dim()));
        second.push(Span::styled(format!(" · {pace}"), th.dim()));
        let rows = [Line::from(first), Line::from(second)];
        frame.render_widget(Paragraph::new(rows.to_vec()), area);
    } else {
        let mut line = first;
        line.push(Span::raw(" · "));
        line.extend(second);
        line.push(Span::styled(format!(" · {count} · {pace}"), th.dim()));
        frame.render_widget(Paragraph::new(Line::from(line)), area);
    }
}

/// `[#####.....]` of `width` inner cells.
fn progress_bar(done: usize, total: usize, width: usize) -> String {
    let filled = (done * width).checked_div(total).unwrap_or(0).min(width);
    format!("[{}{}]", "█".repeat(filled), "·".repeat(width - filled))
}
