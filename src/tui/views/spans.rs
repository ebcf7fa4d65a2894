//! The span list: label, `[start, end)` in code points (after the span as read, when changed),
//! text, review state; stale decisions, the record's notes, labels that could not be read and
//! notes about the joined files under it.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use ratatui::Frame;

use super::cells;
use crate::formats::judges;
use crate::review::decision::{RecordOutcome, ReviewSpan, SpanStatus};
use crate::review::rubric::{described_by, Rubric};
use crate::review::triage::{self, OldBlock};
use crate::tui::app::{App, Current, ScreenLayout};
use crate::tui::{strings, text};

fn state(s: &ReviewSpan, rubric: Option<&Rubric>) -> String {
    let mut parts: Vec<String> = Vec::new();
    match &s.status {
        SpanStatus::Pending => parts.push(strings::PENDING.into()),
        SpanStatus::Accepted => parts.push(strings::ACCEPTED.into()),
        SpanStatus::Dropped { reason: Some(r) } => {
            let r = described_by(rubric, r);
            parts.push(format!("{}: {r}", strings::DROPPED));
        }
        SpanStatus::Dropped { reason: None } => parts.push(strings::DROPPED.into()),
    }
    if s.added() {
        parts.push(strings::ADDED.into());
    }
    if s.adjusted() {
        parts.push(strings::ADJUSTED.into());
    }
    if s.relabeled() {
        parts.push(strings::RELABELED.into());
    }
    parts.join(", ")
}

/// The record's warnings split in two: the record's own (spans the reader could not read) and
/// notes about the joined files, which start with the path of one of the dataset's files other
/// than the first, or of a `--judge` file, and `:` ([`judges::from_elsewhere`], as `compare`
/// tells them apart).
pub(super) fn split_warnings<'a>(
    app: &App,
    warnings: &'a [String],
) -> (Vec<&'a str>, Vec<&'a str>) {
    let judges = app.arb_config.judges.as_deref();
    warnings
        .iter()
        .map(String::as_str)
        .partition(|w| !judges::from_elsewhere(&app.dataset, judges, w))
}

/// Rows the span list draws under the spans: stale decisions, unreadable spans, joined files.
pub(super) fn note_rows(app: &App, c: &Current) -> usize {
    let (own, joined) = split_warnings(app, &c.record.warnings);
    usize::from(!c.review.stale.is_empty())
        + usize::from(!c.review.notes.is_empty())
        + usize::from(!c.review.flag_reasons().is_empty())
        + usize::from(selected_evidence(c).is_some())
        + usize::from(!own.is_empty())
        + usize::from(!joined.is_empty())
}

/// Draw the span list into `area`.
pub fn list(frame: &mut Frame<'_>, area: Rect, app: &App, out: &mut ScreenLayout) {
    let Ok(c) = &app.cur else { return };
    let th = &app.config.theme;
    let block = Block::bordered().title(format!("{} ({})", strings::SPANS, c.order.len()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let stale = c.review.stale.len();
    let (unreadable, joined) = split_warnings(app, &c.record.warnings);
    let h = usize::from(inner.height).saturating_sub(note_rows(app, c));
    let w = usize::from(inner.width);
    let scroll = (c.selected + 1).saturating_sub(h.max(1));
    let mut lines: Vec<Line<'_>> = Vec::new();
    if c.order.is_empty() {
        lines.push(Line::from(Span::styled(strings::NO_SPANS, th.dim())));
    }
    for (p, &i) in c.order.iter().enumerate().skip(scroll).take(h) {
        let s = &c.review.spans[i];
        let v = &s.current;
        let sel = p == c.selected;
        let mark = if sel { "▶ " } else { "  " };
        let label = listed_label(&v.label, v.category.as_deref(), v.subcategory.as_deref());
        let range = format!(" [{}, {}) ", v.start, v.end);
        // Original → reviewed: the span as read beside its new range or label.
        let was = match &s.original {
            Some(o) if s.adjusted() || s.relabeled() => strings::span_was(
                &text::escape_line(&listed_label(
                    &o.label,
                    o.category.as_deref(),
                    o.subcategory.as_deref(),
                )),
                o.start,
                o.end,
            ),
            _ => String::new(),
        };
        // A record reclassified clean or removed exports none of its spans, whatever their
        // own state.
        let st = match &c.review.outcome {
            RecordOutcome::Clean => format!("  {}", strings::CLEARED_CLEAN),
            RecordOutcome::Removed { .. } => format!("  {}", strings::CLEARED_REMOVED),
            RecordOutcome::Open => format!("  {}", state(s, app.config.rubric.as_ref())),
        };
        let span_text = c.map.slice(&c.record.output, v.start, v.end).unwrap_or("");
        let fixed = text::width(mark)
            + text::width(&was)
            + text::width(&label)
            + text::width(&range)
            + text::width(&st);
        let room = w.saturating_sub(fixed).max(4);
        let mut spans = vec![
            Span::raw(mark),
            Span::styled(was, th.dim()),
            Span::styled(text::escape_line(&label), th.label(&v.label)),
            Span::styled(range, th.dim()),
            Span::raw(format!(
                "“{}”",
                text::truncate(span_text, room.saturating_sub(2))
            )),
            Span::styled(st, th.dim()),
        ];
        if sel {
            for sp in &mut spans {
                sp.style = sp.style.patch(th.list_selected());
            }
        }
        lines.push(Line::from(spans));
    }
    if stale > 0 {
        let what: Vec<String> = c
            .review
            .stale
            .iter()
            .map(|d| format!("#{} {}", d.id, d.action.name()))
            .collect();
        lines.push(Line::from(Span::styled(
            strings::stale_list(stale, &what.join(", ")),
            th.stale(),
        )));
    }
    if !c.review.notes.is_empty() {
        lines.push(Line::from(Span::styled(
            text::escape_line(&strings::record_notes(&c.review.notes)),
            th.dim(),
        )));
    }
    if let Some(ev) = selected_evidence(c) {
        lines.push(Line::from(Span::styled(text::escape_line(&ev), th.dim())));
    }
    let described: Vec<(Option<&str>, String)> = c
        .review
        .flag_reasons()
        .into_iter()
        .map(|(k, r)| (k, described_by(app.config.rubric.as_ref(), r)))
        .collect();
    let flags: Vec<(Option<&str>, &str)> =
        described.iter().map(|(k, r)| (*k, r.as_str())).collect();
    if !flags.is_empty() {
        lines.push(Line::from(Span::styled(
            text::escape_line(&strings::flag_reasons(&flags)),
            th.stale(),
        )));
    }
    if !unreadable.is_empty() {
        lines.push(Line::from(Span::styled(
            strings::unreadable_spans(&unreadable),
            th.stale(),
        )));
    }
    if !joined.is_empty() {
        lines.push(Line::from(Span::styled(
            strings::joined_notes(&joined),
            th.stale(),
        )));
    }
    cells::put_lines(frame.buffer_mut(), inner, &lines);
    out.list = inner;
    out.list_scroll = scroll;
}

/// What the evidence says of the selected span of a code sample, on one line: where its text occurs in the
/// context as a whole token (a fabricated reference found there marks original code), where
/// an edit answer's old block stands, and the span's own explanation, flags and confidence.
fn selected_evidence(c: &Current) -> Option<String> {
    // Code evidence: a sample marked so, or a context with fenced code (`File: path` blocks).
    let code = c
        .record
        .raw
        .get("context_modality")
        .and_then(|m| m.as_str())
        == Some("code")
        || c.record.context.contains("```");
    if !code {
        return None;
    }
    let mut parts = Vec::new();
    if let Some(s) = c.order.get(c.selected).and_then(|&i| c.review.spans.get(i)) {
        let v = &s.current;
        let span_text = c.map.slice(&c.record.output, v.start, v.end).unwrap_or("");
        let needle = span_text.trim();
        if needle.chars().count() >= 2 {
            let ctx = &c.record.context;
            let at: Vec<usize> = triage::token_matches(ctx, needle).collect();
            let lines: Vec<String> = at
                .iter()
                .take(3)
                .map(|&b| (1 + ctx[..b].matches('\n').count()).to_string())
                .collect();
            parts.push(strings::in_context(at.len(), &lines));
        }
        if let Some(raw) = s.original.as_ref().map(|o| &o.raw) {
            for key in ["explanation", "flags"] {
                match raw.get(key) {
                    None | Some(serde_json::Value::Null) => {}
                    Some(serde_json::Value::String(t)) => parts.push(format!("{key}: {t}")),
                    Some(other) => parts.push(format!("{key}: {other}")),
                }
            }
        }
        if let Some(conf) = s.original.as_ref().and_then(|o| o.confidence) {
            parts.push(format!("confidence {conf}"));
        }
    }
    match triage::old_block(&c.record) {
        Some(OldBlock::Verbatim { line }) => parts.push(strings::old_block_verbatim(line)),
        Some(OldBlock::Misquoted { line, nearest, .. }) => {
            parts.push(strings::old_block_misquoted(
                line,
                nearest.map(|(k, _, at)| (k, at)),
            ));
        }
        None => {}
    }
    (!parts.is_empty()).then(|| format!("⌕ {}", parts.join(" · ")))
}

/// A span's label as the list shows it, now and as read: `category/subcategory (label)` when
/// the span carries a category apart from its label (a source's native label, such as
/// `fabricated_api`), else `label/subcategory` (a picked category is the label itself).
fn listed_label(label: &str, category: Option<&str>, subcategory: Option<&str>) -> String {
    let head = match category {
        Some(c) if c != label => c,
        _ => label,
    };
    let mut out = match subcategory {
        Some(sub) => format!("{head}/{sub}"),
        None => head.to_owned(),
    };
    if head != label && !label.is_empty() {
        out.push_str(" (");
        out.push_str(label);
        out.push(')');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::listed_label;

    #[test]
    fn a_native_label_is_shown_after_its_category() {
        // The code-agent samples: the category is authoritative, the native label kept.
        assert_eq!(
            listed_label(
                "fabricated_api",
                Some("fabricated_reference"),
                Some("attribute")
            ),
            "fabricated_reference/attribute (fabricated_api)"
        );
        assert_eq!(
            listed_label("Evident Conflict", Some("contradiction"), None),
            "contradiction (Evident Conflict)"
        );
        // A picked category is the label itself; no category: the label.
        assert_eq!(
            listed_label("contradiction", Some("contradiction"), Some("numerical")),
            "contradiction/numerical"
        );
        assert_eq!(listed_label("missing_tool", None, None), "missing_tool");
        assert_eq!(listed_label("", Some("omission"), None), "omission");
    }
}
