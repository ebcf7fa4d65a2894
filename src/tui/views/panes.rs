//! The text panes: query, output (spans highlighted), context (evidence highlighted), and the
//! adjust / add panels under the output.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use ratatui::Frame;
use similar::{ChangeTag, TextDiff};
use unicode_segmentation::UnicodeSegmentation;

use super::cells;
use crate::model::SourceRole;
use crate::review::decision::SpanStatus;
use crate::review::evidence::code::Kind;
use crate::tui::app::{App, Current, ModeState, ScreenLayout, CONTEXT_BOTTOM};
use crate::tui::code::Code;
use crate::tui::edit;
use crate::tui::evidence::Hit;
use crate::tui::rows::Shown;
use crate::tui::strings;
use crate::tui::text::{self, Row};
use crate::tui::Action;

/// Rows of a pane known past the last one on screen, so that scrolling down a page finds them.
pub(super) fn lookahead(h: usize) -> usize {
    h + h.max(16)
}

/// Put `rows` (the visible ones) of `src` into `area`, one screen row each; `style` gives each
/// cell's style from its byte offset.
pub(super) fn put_rows(
    frame: &mut Frame<'_>,
    area: Rect,
    src: &str,
    rows: &[Row],
    style: &dyn Fn(usize) -> Style,
) {
    let buf = frame.buffer_mut();
    for (i, r) in rows.iter().enumerate() {
        cells::put_row(buf, area, i, 0, src, r, style);
    }
}

/// The part of a pane's `inner` area its text takes beside a code gutter of `gutter`
/// columns, and the gutter's width (none when the pane is too narrow to spare it).
fn beside_gutter(inner: Rect, gutter: usize) -> (Rect, u16) {
    let g = u16::try_from(gutter).unwrap_or(0);
    if g == 0 || inner.width < g.saturating_mul(3) {
        return (inner, 0);
    }
    let mut text = inner;
    text.x += g;
    text.width -= g;
    (text, g)
}

/// The code gutter left of `text_area`: each row's line number in its block (on the line's
/// first row), after `-` on an edit's old block and `+` on its new one.
fn put_gutter(
    frame: &mut Frame<'_>,
    text_area: Rect,
    g: u16,
    code: &Code,
    rows: &[Row],
    app: &App,
) {
    if g == 0 {
        return;
    }
    let th = &app.config.theme;
    let area = Rect {
        x: text_area.x - g,
        width: g,
        ..text_area
    };
    let digits = usize::from(g) - 2;
    for (i, r) in rows.iter().enumerate() {
        let Some((kind, line)) = code.gutter_at(r.byte) else {
            continue;
        };
        let mut pen = cells::Pen::new(frame.buffer_mut(), area, i);
        let mark = match kind {
            Kind::Old => pen.put("-", th.code_mark(false)),
            Kind::New => pen.put("+", th.code_mark(true)),
            Kind::Code | Kind::Diff => pen.put(" ", Style::default()),
        };
        let n = line.map_or_else(String::new, |n| n.to_string());
        if mark {
            pen.put(&format!("{n:>digits$}"), th.dim());
        }
    }
}

/// Colour the code of `rows` of `src` (the rows on screen, and any line before them in their
/// blocks not coloured yet), for at most the app's colour budget; `out.colouring` says when
/// some is left for the next frame.
fn prepare_code(code: &Code, src: &str, rows: &[Row], app: &App, out: &mut ScreenLayout) {
    if let (Some(a), Some(b)) = (rows.first(), rows.last()) {
        let until = app
            .config
            .colour_budget
            .map(|d| std::time::Instant::now() + d);
        let to = b.end().max(a.byte + 1).min(src.len());
        out.colouring |= !code.prepare_until(src, a.byte, to, until);
    }
}

/// Style of byte `b` from hits: the current one stands out.
fn hit_style(hits: &[Hit], current: Option<usize>, b: usize, app: &App) -> Option<Style> {
    let i = hits.partition_point(|h| h.end <= b);
    let h = hits.get(i)?;
    (h.start <= b && b < h.end).then(|| {
        if Some(i) == current {
            app.config.theme.evidence_current()
        } else {
            app.config.theme.evidence()
        }
    })
}

/// Rows the query pane wants (border included).
pub fn query_height(app: &App, width: u16) -> u16 {
    let Ok(c) = &app.cur else { return 0 };
    if c.record.query.is_empty() {
        return 0;
    }
    let rows = text::wrap(&c.record.query, usize::from(width.saturating_sub(2))).len();
    u16::try_from(rows.min(3)).unwrap_or(3) + 2
}

/// The query, evidence occurrences highlighted.
pub fn query(frame: &mut Frame<'_>, area: Rect, app: &App) -> Rect {
    let Ok(c) = &app.cur else {
        return Rect::default();
    };
    let hits = &c.hits.query;
    let cur = c.hits.current_query();
    let title = match cur {
        Some(i) => format!(
            "{} · {} {}/{}",
            strings::QUERY,
            strings::EVIDENCE,
            i + 1,
            hits.len()
        ),
        None => strings::QUERY.to_owned(),
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = text::wrap(&c.record.query, usize::from(inner.width));
    let h = usize::from(inner.height);
    // Follow the current hit when it is in the query (the pane shows a few rows).
    let scroll = cur.map_or(0, |i| {
        let row = text::row_of(&rows, hits[i].start);
        (row + 1).saturating_sub(h)
    });
    let style = |b: usize| hit_style(hits, cur, b, app).unwrap_or_default();
    let shown: Vec<Row> = rows.into_iter().skip(scroll).take(h).collect();
    put_rows(frame, inner, &c.record.query, &shown, &style);
    inner
}

/// Byte ranges of the output with their styles, lowest priority first.
fn output_styles(app: &App, c: &Current) -> Vec<(usize, usize, Style)> {
    let th = &app.config.theme;
    let b = |cp: usize| c.map.byte_of(cp.min(c.chars.len())).unwrap_or(0);
    let mut out = Vec::new();
    for src in &c.record.sources {
        if src.role == SourceRole::Gold {
            continue;
        }
        for s in &src.spans {
            out.push((b(s.start), b(s.end), th.other_source()));
        }
    }
    let selected = c.selected_span();
    for (i, s) in c.review.spans.iter().enumerate() {
        if Some(i) == selected {
            continue;
        }
        let st = match s.status {
            SpanStatus::Dropped { .. } => th.dropped_span(),
            _ => th.span(&s.current.label),
        };
        out.push((b(s.current.start), b(s.current.end), st));
    }
    for h in &c.hits.output {
        out.push((h.start, h.end, th.evidence()));
    }
    match &app.mode {
        ModeState::Adjust { bounds, key, .. } => {
            let label = c
                .review
                .span(key)
                .map_or(String::new(), |s| s.current.label.clone());
            out.push((b(bounds.start), b(bounds.end), th.selected_span(&label)));
        }
        ModeState::Add { anchor, cursor } => {
            if let Some(i) = selected {
                let s = &c.review.spans[i];
                out.push((
                    b(s.current.start),
                    b(s.current.end),
                    th.span(&s.current.label),
                ));
            }
            let (lo, hi) = edit::marked(&c.chars, anchor.unwrap_or(*cursor), *cursor);
            out.push((b(lo), b(hi), th.cursor()));
        }
        _ => {
            if let Some(i) = selected {
                let s = &c.review.spans[i];
                let st = match s.status {
                    SpanStatus::Dropped { .. } => th.dropped_span().patch(th.selected_span("")),
                    _ => th.selected_span(&s.current.label),
                };
                out.push((b(s.current.start), b(s.current.end), st));
            }
        }
    }
    out
}

/// The output with every span highlighted; follows the selection unless scrolled by hand.
pub fn output(frame: &mut Frame<'_>, area: Rect, app: &App, out: &mut ScreenLayout) {
    let Ok(c) = &app.cur else { return };
    let others: Vec<&str> = c
        .record
        .sources
        .iter()
        .filter(|s| s.role != SourceRole::Gold && !s.spans.is_empty())
        .map(|s| s.name.as_str())
        .collect();
    let mut title = strings::output_title(c.chars.len());
    if !others.is_empty() && !app.arb_config.blind {
        title = format!("{title} · {}", strings::other_sources(&others));
    }
    let title = text::escape_line(&title);
    let block = Block::bordered().title(title);
    let pane = block.inner(area);
    frame.render_widget(block, area);
    let (inner, g) = beside_gutter(pane, c.output_code.gutter());
    let h = usize::from(inner.height);
    let focus = match &app.mode {
        ModeState::Add { cursor, .. } => Some(*cursor),
        // Follow the end while only the end moves (a long span's end may be rows below).
        ModeState::Adjust { bounds, before, .. }
            if bounds.start == before.start && bounds.end != before.end =>
        {
            Some(bounds.end.saturating_sub(1))
        }
        ModeState::Adjust { bounds, .. } => Some(bounds.start),
        _ => c.selected_span().map(|i| c.review.spans[i].current.start),
    };
    let src = &c.record.output;
    let (scroll, rows, total) = c.output_rows.with(src, usize::from(inner.width), |ix| {
        let scroll = match app.scroll.output {
            Some(s) => s,
            None => focus
                .and_then(|cp| c.map.byte_of(cp.min(c.chars.len())))
                .map_or(0, |byte| {
                    let row = ix.row_of(src, byte);
                    if row < h {
                        0
                    } else {
                        row - h / 3
                    }
                }),
        };
        ix.ensure_rows(src, scroll.saturating_add(lookahead(h)));
        let scroll = scroll.min(ix.known().saturating_sub(1));
        (scroll, ix.rows(src, scroll, h), ix.known())
    });
    let styles = output_styles(app, c);
    prepare_code(&c.output_code, src, &rows, app, out);
    let th = &app.config.theme;
    let style = |byte: usize| {
        styles
            .iter()
            .filter(|(a, b, _)| *a <= byte && byte < *b)
            .fold(th.code(c.output_code.class_at(byte)), |acc, (_, _, s)| {
                acc.patch(*s)
            })
    };
    put_rows(frame, inner, src, &rows, &style);
    put_gutter(frame, inner, g, &c.output_code, &rows, app);
    out.output = inner;
    out.output_rows = Shown {
        first: scroll,
        rows,
        total,
    };
}

/// The context, pretty-printed, evidence highlighted, scrolled to the current occurrence.
pub fn context(frame: &mut Frame<'_>, area: Rect, app: &App, out: &mut ScreenLayout) {
    let Ok(c) = &app.cur else { return };
    let n = c.hits.context.len();
    let title = match (&c.hits.search, c.hits.current_context()) {
        (Some(s), Some(i)) => format!("{} · {:?} {}/{n}", strings::CONTEXT, s, i + 1),
        (Some(s), None) if n > 0 => format!("{} · {:?} –/{n}", strings::CONTEXT, s),
        (Some(s), None) => format!("{} · {:?} {}", strings::CONTEXT, s, strings::NOT_FOUND),
        (None, Some(i)) => format!("{} · {} {}/{n}", strings::CONTEXT, strings::EVIDENCE, i + 1),
        // The current hit is in the query.
        (None, None) if n > 0 => format!("{} · {} –/{n}", strings::CONTEXT, strings::EVIDENCE),
        (None, None) => strings::CONTEXT.to_owned(),
    };
    let block = Block::bordered().title(text::escape_line(&title));
    let inner = block.inner(area);
    if c.context.is_empty() {
        frame.render_widget(block, area);
        let line = Line::from(Span::styled(strings::NO_CONTEXT, app.config.theme.dim()));
        cells::put_lines(frame.buffer_mut(), inner, &[line]);
        return;
    }
    let pane = inner;
    let (inner, g) = beside_gutter(pane, c.context_code.gutter());
    let h = usize::from(inner.height);
    let src = &c.context;
    let (scroll, rows, total, complete) =
        c.context_rows.with(src, usize::from(inner.width), |ix| {
            let scroll = match app.scroll.context_anchor {
                Some(b) => ix.row_of(src, b).saturating_sub(2),
                None => app.scroll.context,
            };
            ix.ensure_rows(src, scroll.saturating_add(lookahead(h)));
            let scroll = if scroll == CONTEXT_BOTTOM {
                ix.known().saturating_sub(h)
            } else if app.scroll.context_anchor.is_some() && ix.complete() {
                // Evidence near the end: its last page, not blank rows hiding the top (a
                // context that fits shows whole).
                scroll.min(ix.known().saturating_sub(h))
            } else {
                scroll.min(ix.known().saturating_sub(1))
            };
            (scroll, ix.rows(src, scroll, h), ix.known(), ix.complete())
        });
    // Where the pane is in a context too long to see whole (nothing when it fits): rows shown, and how much of the
    // text lies above the pane's last row (the row count is known only once wrapped to the end).
    let end = rows.last().map_or(src.len(), Row::end);
    let km = &app.config.keymap;
    let mode = app.key_mode();
    let keys: Vec<String> = [Action::ContextTop, Action::ContextBottom]
        .iter()
        .filter_map(|a| km.keys_for(mode, *a).first().map(ToString::to_string))
        .collect();
    let fits = scroll == 0 && complete && rows.len() >= total;
    let block = if fits {
        block
    } else {
        block.title_bottom(
            Line::from(strings::context_position(
                scroll,
                (rows.len(), total, complete),
                end * 100 / src.len().max(1),
                &keys.join("/"),
            ))
            .right_aligned(),
        )
    };
    frame.render_widget(block, area);
    let hits = &c.hits.context;
    let cur = c.hits.current_context();
    prepare_code(&c.context_code, src, &rows, app, out);
    let th = &app.config.theme;
    let style = |b: usize| {
        let base = th.code(c.context_code.class_at(b));
        hit_style(hits, cur, b, app).map_or(base, |h| base.patch(h))
    };
    put_rows(frame, inner, src, &rows, &style);
    put_gutter(frame, inner, g, &c.context_code, &rows, app);
    out.context = pane;
    out.context_rows = total;
    out.context_scroll = scroll;
}

/// `old` against `new`, diffed by character (grapheme cluster: a letter with its combining
/// marks, an emoji sequence), as runs of one tag. A diff by code point would put a combining
/// mark or a joiner in a span of its own, which the terminal draws without its letter (or not
/// at all): the old and new texts of a Devanagari span would lose every vowel sign.
fn diff_runs(old: &str, new: &str) -> Vec<(ChangeTag, String)> {
    let a: Vec<&str> = old.graphemes(true).collect();
    let b: Vec<&str> = new.graphemes(true).collect();
    let diff = TextDiff::from_slices(&a, &b);
    let mut runs: Vec<(ChangeTag, String)> = Vec::new();
    for ch in diff.iter_all_changes() {
        match runs.last_mut() {
            Some((tag, run)) if *tag == ch.tag() => run.push_str(ch.value()),
            _ => runs.push((ch.tag(), ch.value().to_owned())),
        }
    }
    runs
}

/// Characters of unchanged text the adjust panel keeps beside a change (and of changed text at
/// each end of the change).
const ELIDE_KEEP: usize = 24;

/// `s` without its middle: its first `head` and last `tail` characters (grapheme clusters),
/// or `None` when eliding would not shorten it.
fn elide(s: &str, head: usize, tail: usize) -> Option<(&str, &str)> {
    let g: Vec<(usize, &str)> = s.grapheme_indices(true).collect();
    if g.len() <= head.saturating_add(tail).saturating_add(1) {
        return None;
    }
    let a = g[head].0;
    let b = g.get(g.len() - tail).map_or(s.len(), |x| x.0);
    Some((&s[..a], &s[b..]))
}

/// The adjust panel: old and new text, diffed by character.
pub fn adjust(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let (Ok(c), ModeState::Adjust { bounds, before, .. }) = (&app.cur, &app.mode) else {
        return;
    };
    let old = c
        .map
        .slice(&c.record.output, before.start, before.end)
        .unwrap_or("");
    let new = c
        .map
        .slice(&c.record.output, bounds.start, bounds.end)
        .unwrap_or("");
    let title = format!(
        "{} [{}, {}) → [{}, {})",
        strings::ADJUST,
        before.start,
        before.end,
        bounds.start,
        bounds.end
    );
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    let runs = diff_runs(old, new);
    // A long span's old and new texts would fill the panel before its changes: when both do
    // not fit, unchanged text keeps a few characters beside each change, changed text its ends.
    let mut lines = diff_lines(&runs, usize::MAX, app);
    let fits: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(usize::from(inner.width).max(1)))
        .sum();
    if fits > usize::from(inner.height) {
        lines = diff_lines(&runs, ELIDE_KEEP, app);
    }
    if inner.height < 2 {
        // Room for one line: the text that Enter saves.
        lines.remove(0);
    }
    frame.render_widget(block, area);
    cells::put_wrapped(frame.buffer_mut(), inner, &lines);
}

/// The adjust panel's two lines from the diff's runs, each run cut to its `keep` characters
/// beside the changes (unchanged text) or at its ends (changed text).
fn diff_lines<'a>(runs: &'a [(ChangeTag, String)], keep: usize, app: &App) -> Vec<Line<'a>> {
    let th = &app.config.theme;
    let mut old_line = vec![Span::styled(strings::OLD, th.dim())];
    let mut new_line = vec![Span::styled(strings::NEW, th.dim())];
    let n = runs.len();
    for (i, (tag, v)) in runs.iter().enumerate() {
        let (head, tail) = match tag {
            ChangeTag::Equal if n == 1 => (keep, keep),
            ChangeTag::Equal if i == 0 => (0, keep),
            ChangeTag::Equal if i == n - 1 => (keep, 0),
            _ => (keep, keep),
        };
        let pieces: Vec<Span<'_>> = match elide(v, head, tail) {
            Some((a, b)) => vec![
                Span::raw(text::escape_line(a)),
                Span::styled(strings::ELIDED, th.dim()),
                Span::raw(text::escape_line(b)),
            ],
            None => vec![Span::raw(text::escape_line(v))],
        };
        for p in pieces {
            match tag {
                ChangeTag::Equal => {
                    old_line.push(p.clone());
                    new_line.push(p);
                }
                ChangeTag::Delete => old_line.push(p.patch_style(th.diff_del())),
                ChangeTag::Insert => new_line.push(p.patch_style(th.diff_add())),
            }
        }
    }
    vec![Line::from(old_line), Line::from(new_line)]
}

/// The add panel: what is marked so far.
pub fn add(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let (Ok(c), ModeState::Add { anchor, cursor }) = (&app.cur, &app.mode) else {
        return;
    };
    let th = &app.config.theme;
    let (lo, hi) = edit::marked(&c.chars, anchor.unwrap_or(*cursor), *cursor);
    let hi = hi.min(c.chars.len());
    let sel = c.map.slice(&c.record.output, lo, hi).unwrap_or("");
    let hint = if anchor.is_some() {
        strings::ADD_PICK_END
    } else {
        strings::ADD_PICK_START
    };
    let lines = vec![
        Line::from(Span::styled(hint, th.dim())),
        Line::from(vec![
            Span::styled(format!("[{lo}, {hi}) "), th.accent()),
            Span::raw(text::escape_line(sel)),
        ]),
    ];
    let block = Block::bordered().title(strings::ADD);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    cells::put_wrapped(frame.buffer_mut(), inner, &lines);
}

/// A message instead of a record (unreadable record, empty queue).
pub fn message(frame: &mut Frame<'_>, area: Rect, app: &App, msg: &str) {
    let block = Block::bordered();
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let line = Line::from(Span::styled(
        text::escape_line(msg),
        app.config.theme.error(),
    ));
    cells::put_wrapped(frame.buffer_mut(), inner, &[line]);
}
