//! The arbitration screen: the output with one lane per source under each text row (a mark
//! under every character the source covers, one colour and one glyph per lane, so boundary
//! differences show at a glance), the selected cluster highlighted, and beside it each source's
//! version of the cluster, the judges' verdicts with their reasoning, and unplaced claims.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use ratatui::Frame;
use unicode_segmentation::UnicodeSegmentation;

use super::{cells, panes};
use crate::review::decision::{replay_seen, SpanStatus};
use crate::review::disagreement::JudgeSays;
use crate::tui::app::{App, Current, ModeState, ScreenLayout};
use crate::tui::clustering::Arb;
use crate::tui::rows::Shown;
use crate::tui::strings;
use crate::tui::text;

/// Width of the lane labels at the left of every row.
const GUTTER: usize = 4;

/// Draw the arbitration body.
pub fn body(frame: &mut Frame<'_>, area: Rect, app: &App, out: &mut ScreenLayout) {
    let (Ok(c), Some(arb)) = (&app.cur, &app.arb) else {
        return;
    };
    let (left, right) = super::split_two(area, 58, 60);
    lanes(frame, left, app, c, arb, out);
    if right.height >= 12 {
        let [panel, ctx] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(right);
        cluster_panel(frame, panel, app, c, arb);
        panes::context(frame, ctx, app, out);
    } else {
        cluster_panel(frame, right, app, c, arb);
    }
}

/// One lane under the text: its label, style, and the byte ranges it marks with their glyph.
struct Lane {
    label: String,
    style: Style,
    marks: Vec<(usize, usize, &'static str)>,
}

/// The lanes: one per source (in the arbitration order), one per judge (`x` a gold span it
/// calls wrong, `=` one it calls right, `^` a claim, `?` unknown), and the reviewed result
/// (or, while editing, the span being edited).
fn lane_list(app: &App, c: &Current, arb: &Arb, shown: &[usize]) -> Vec<Lane> {
    let th = &app.config.theme;
    let b = |cp: usize| c.map.byte_of(cp.min(c.chars.len())).unwrap_or(0);
    let mut v: Vec<Lane> = shown
        .iter()
        .map(|&k| (k, arb.lanes[k]))
        .map(|(k, s)| {
            let (style, glyph) = th.lane(k);
            Lane {
                label: app.lane_label(k),
                style,
                marks: c.record.sources[s]
                    .spans
                    .iter()
                    .filter(|sp| sp.start < sp.end)
                    .map(|sp| (b(sp.start), b(sp.end), glyph))
                    .collect(),
            }
        })
        .collect();
    for (j, name) in arb.d.judges.iter().enumerate() {
        let marks = arb
            .d
            .clusters
            .iter()
            .flat_map(|cl| &cl.judges)
            .filter(|m| &m.judge == name)
            .map(|m| {
                let g = match m.says {
                    JudgeSays::LabelWrong => "x",
                    JudgeSays::LabelCorrect => "=",
                    JudgeSays::Claim => "^",
                    JudgeSays::Unknown => "?",
                };
                (b(m.range.0), b(m.range.1), g)
            })
            .collect();
        v.push(Lane {
            label: format!("J{}", j + 1),
            style: th.accent(),
            marks,
        });
    }
    let (style, glyph) = th.lane_result();
    let result = match &app.mode {
        ModeState::Settle { bounds, .. } => vec![(b(bounds.start), b(bounds.end), glyph)],
        _ => app
            .result_spans()
            .iter()
            .map(|&(s, e)| (b(s), b(e), glyph))
            .collect(),
    };
    v.push(Lane {
        label: "✓".to_owned(),
        style,
        marks: result,
    });
    v
}

/// Source lanes past which only the disputing ones are drawn.
const MANY_LANES: usize = 6;

/// Source lanes drawn at most.
const MAX_LANES: usize = 8;

/// The source lanes to draw (indices into `arb.lanes`) and how many are left out. With many
/// sources (Mu-SHROOM has twelve) only those whose version of the selected cluster differs
/// from the most common one are drawn, with the first lane holding the most common one; the
/// cluster panel still lists every source.
fn shown_lanes(c: &Current, arb: &Arb) -> (Vec<usize>, usize) {
    let all: Vec<usize> = (0..arb.lanes.len()).collect();
    let Some(cl) = arb.d.clusters.get(arb.cluster) else {
        return (all, 0);
    };
    if all.len() <= MANY_LANES {
        return (all, 0);
    }
    let version = |k: usize| -> Vec<(usize, usize)> {
        let s = arb.lanes[k];
        cl.source(s).map_or_else(Vec::new, |p| {
            p.spans
                .iter()
                .filter_map(|&i| c.record.sources[s].spans.get(i))
                .map(|sp| (sp.start, sp.end))
                .collect()
        })
    };
    let versions: Vec<Vec<(usize, usize)>> = all.iter().map(|&k| version(k)).collect();
    let common = versions
        .iter()
        .max_by_key(|v| versions.iter().filter(|w| w == v).count())
        .cloned()
        .unwrap_or_default();
    let mut first_common = true;
    let mut shown: Vec<usize> = all
        .iter()
        .filter(|&&k| {
            let keep = versions[k] != common || first_common;
            first_common &= versions[k] != common;
            keep
        })
        .copied()
        .collect();
    shown.truncate(MAX_LANES);
    let more = all.len() - shown.len();
    (shown, more)
}

fn covered(ranges: &[(usize, usize)], byte: usize) -> bool {
    ranges.iter().any(|&(a, b)| a <= byte && byte < b)
}

fn lanes(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    c: &Current,
    arb: &Arb,
    out: &mut ScreenLayout,
) {
    let (shown, more) = shown_lanes(c, arb);
    let n = arb.d.clusters.len();
    let mut title = strings::LANES.to_owned();
    if let Some(cl) = arb.d.clusters.get(arb.cluster) {
        title = format!(
            "{title} · {}",
            strings::cluster_title(arb.cluster, n, cl.start, cl.end, cl.is_disputed())
        );
    }
    if more > 0 {
        title = format!("{title} · {}", strings::more_lanes(more));
    }
    let block = Block::bordered().title(text::escape_line(&title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width as usize <= GUTTER + 1 || inner.height == 0 {
        return;
    }
    let lanes = lane_list(app, c, arb, &shown);
    let per = lanes.len() + 1;
    let h = usize::from(inner.height);
    let visible = (h / per).max(1);
    let b = |cp: usize| c.map.byte_of(cp.min(c.chars.len())).unwrap_or(0);
    let sel = arb
        .d
        .clusters
        .get(arb.cluster)
        .map(|cl| (b(cl.start), b(cl.end)));
    let src = &c.record.output;
    let width = usize::from(inner.width) - GUTTER;
    let (scroll, rows, total) = c.output_rows.with(src, width, |ix| {
        let focus = sel.map_or(0, |(a, _)| ix.row_of(src, a));
        let scroll = if focus < visible {
            0
        } else {
            focus - visible / 3
        };
        // A blank row takes one screen row: fetch as many as could fit.
        ix.ensure_rows(src, scroll.saturating_add(panes::lookahead(h)));
        (scroll, ix.rows(src, scroll, h), ix.known())
    });
    let disputed: Vec<(usize, usize)> = arb
        .d
        .clusters
        .iter()
        .filter(|cl| cl.is_disputed())
        .map(|cl| (b(cl.start), b(cl.end)))
        .collect();
    let th = &app.config.theme;
    let text_style = |byte: usize| {
        if sel.is_some_and(|(a, b)| a <= byte && byte < b) {
            th.list_selected()
        } else if covered(&disputed, byte) {
            Style::default().add_modifier(Modifier::UNDERLINED)
        } else {
            Style::default()
        }
    };
    let buf = frame.buffer_mut();
    // Screen row of each text row drawn: a blank output row has no lanes under it.
    let mut starts: Vec<usize> = Vec::new();
    let mut at = 0;
    for r in &rows {
        let under = if r.cells.is_empty() { 0 } else { lanes.len() };
        if at >= h {
            break;
        }
        starts.push(at);
        at += 1 + under;
    }
    let mut rows = rows;
    rows.truncate(starts.len());
    for (r, &at) in rows.iter().zip(&starts) {
        cells::put_row(buf, inner, at, GUTTER, src, r, &text_style);
        if r.cells.is_empty() {
            continue;
        }
        for (j, lane) in lanes.iter().enumerate() {
            let label = format!(
                "{:>w$} ",
                text::truncate(&lane.label, GUTTER - 1),
                w = GUTTER - 1
            );
            let mut s = " ".repeat(r.indent);
            for cell in &r.cells {
                let mark = lane
                    .marks
                    .iter()
                    .find(|&&(a, b, _)| a <= cell.byte && cell.byte < b)
                    .map_or(" ", |m| m.2);
                s.push_str(&mark.repeat(cell.width));
            }
            let line = Line::from(vec![
                Span::styled(label, lane.style),
                Span::styled(s, lane.style),
            ]);
            let row = Rect {
                y: inner
                    .y
                    .saturating_add(u16::try_from(at + 1 + j).unwrap_or(u16::MAX)),
                height: 1,
                ..inner
            };
            cells::put_lines(buf, row.intersection(inner), &[line]);
        }
    }
    out.lanes = inner;
    out.lanes_rows = Shown {
        first: scroll,
        rows,
        total,
    };
    out.lanes_per = per;
    out.lanes_starts = starts;
    out.lanes_gutter = GUTTER;
}

/// Why a reviewer's lane has no span in the cluster `range`: the reason (its code described
/// by the rubric) of that reviewer's drop of a span overlapping it, as their own decisions
/// leave the record. `None` for another source, or a span dropped without a reason.
fn dropped_why(app: &App, c: &Current, source: usize, range: (usize, usize)) -> Option<String> {
    let name = &c.record.sources.get(source)?.name;
    let reviewer = name.strip_prefix(crate::formats::judges::REVIEWER_PREFIX)?;
    let review = replay_seen(&c.record, reviewer, &c.decisions);
    let reason = review.spans.iter().find_map(|s| match &s.status {
        SpanStatus::Dropped { reason: Some(r) }
            if s.current.start < range.1 && range.0 < s.current.end.max(s.current.start + 1) =>
        {
            Some(r.clone())
        }
        _ => None,
    })?;
    let described = crate::review::rubric::described_by(app.config.rubric.as_ref(), &reason);
    Some(text::escape_line(&described))
}

/// Each source's version of the selected cluster, the judges on it, unplaced claims.
fn cluster_panel(frame: &mut Frame<'_>, area: Rect, app: &App, c: &Current, arb: &Arb) {
    let th = &app.config.theme;
    let mut lines: Vec<Line<'_>> = Vec::new();
    let quote = |a: usize, b: usize| {
        let t = c.map.slice(&c.record.output, a, b).unwrap_or("");
        format!("«{}»", text::truncate(&text::escape_line(t), 60))
    };
    match arb.d.clusters.get(arb.cluster) {
        None => lines.push(Line::from(Span::styled(strings::NO_CLUSTERS, th.dim()))),
        Some(cl) => {
            let mut head = vec![Span::styled(
                strings::cluster_title(
                    arb.cluster,
                    arb.d.clusters.len(),
                    cl.start,
                    cl.end,
                    cl.is_disputed(),
                ),
                th.accent(),
            )];
            if let Some(how) = app.resolution_of(arb.cluster) {
                // Blind: "take NAME" would tell who is who before the record is done.
                let how = if app.names_visible() {
                    format!(" · resolved: {how}")
                } else {
                    " · resolved".to_owned()
                };
                head.push(Span::styled(how, th.saved()));
            }
            lines.push(Line::from(head));
            for (k, &s) in arb.lanes.iter().enumerate() {
                let (style, glyph) = th.lane(k);
                let (lane, name) = (app.lane_label(k), app.source_label(s));
                let head = if name == lane {
                    format!("{glyph}{lane}")
                } else {
                    format!("{glyph}{lane} {name}")
                };
                let mut row = vec![Span::styled(head, style), Span::raw(": ")];
                match cl.source(s).filter(|p| !p.spans.is_empty()) {
                    None => row.push(Span::styled(
                        dropped_why(app, c, s, (cl.start, cl.end)).map_or_else(
                            || "— (no span)".to_owned(),
                            |r| format!("— dropped: {r}"),
                        ),
                        th.dim(),
                    )),
                    Some(p) => {
                        let parts: Vec<String> = p
                            .spans
                            .iter()
                            .map(|&i| {
                                let sp = &c.record.sources[s].spans[i];
                                let mut t = format!(
                                    "[{}, {}) {}",
                                    sp.start,
                                    sp.end,
                                    quote(sp.start, sp.end)
                                );
                                // Blind: tags that would tell the sources apart are hidden.
                                let (label, conf) = app.span_tags(s, i);
                                if !label.is_empty() {
                                    t = format!("{t} {label}");
                                }
                                if let Some(conf) = conf {
                                    t = format!("{t} conf {conf:.2}");
                                }
                                t
                            })
                            .collect();
                        row.push(Span::raw(parts.join("; ")));
                    }
                }
                lines.push(Line::from(row));
            }
            for m in &cl.judges {
                let v = arb.verdicts.get(m.verdict);
                let says = match m.says {
                    JudgeSays::LabelCorrect => "label correct",
                    JudgeSays::LabelWrong => "label WRONG",
                    JudgeSays::Unknown => "unknown",
                    JudgeSays::Claim => "claims a missed hallucination",
                };
                let who = app.judge_label(&m.judge);
                lines.push(Line::from(vec![
                    Span::styled(format!("⚖ {who}: "), th.accent()),
                    Span::raw(format!("{says} {}", quote(m.range.0, m.range.1))),
                ]));
                if let Some(v) = v.filter(|v| !v.reasoning.is_empty()) {
                    lines.push(Line::from(Span::styled(
                        format!("  {}", text::escape_line(&v.reasoning)),
                        th.dim(),
                    )));
                }
            }
        }
    }
    if !arb.d.unplaced.is_empty() {
        lines.push(Line::from(Span::styled(
            format!("unplaced claims ({})", arb.d.unplaced.len()),
            th.accent(),
        )));
        for (k, u) in arb.d.unplaced.iter().enumerate() {
            let mark = if k == arb.claim { "›" } else { " " };
            let done = if app.claim_settled(k) {
                " (settled)"
            } else {
                ""
            };
            let who = app.judge_label(&u.judge);
            lines.push(Line::from(format!(
                "{mark} {who}: «{}»{done}",
                text::truncate(&text::escape_line(&u.text), 60)
            )));
        }
    }
    if let ModeState::Settle { bounds, .. } = &app.mode {
        // The label saved: the side the edit started from (none yet: the picker will ask).
        let label = app
            .edit_label()
            .map_or_else(|| strings::EDIT_NO_LABEL.to_owned(), |l| format!(" {l}"));
        lines.push(Line::from(vec![
            Span::styled(
                format!("edit: [{}, {}) ", bounds.start, bounds.end),
                th.accent(),
            ),
            // Both ends: the end being moved of a long span would be cut off.
            Span::raw(quote_ends(
                c.map
                    .slice(&c.record.output, bounds.start, bounds.end)
                    .unwrap_or(""),
            )),
            Span::styled(label, th.dim()),
        ]));
    }
    if let Some(ty) = app.typed_without_span() {
        lines.push(Line::from(Span::styled(
            strings::typed_no_span(&ty),
            th.stale(),
        )));
    }
    if !arb.d.problems.is_empty() {
        lines.push(Line::from(Span::styled(
            format!(
                "{} defective spans (skipped or clamped)",
                arb.d.problems.len()
            ),
            th.stale(),
        )));
    }
    if app.arb_config.blind && !app.names_visible() {
        lines.push(Line::from(Span::styled(strings::BLIND, th.dim())));
    }
    lines.push(Line::from(Span::styled(strings::LEGEND_MARKS, th.dim())));
    let block = Block::bordered().title(strings::CLUSTER);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    cells::put_wrapped(frame.buffer_mut(), inner, &lines);
}

/// `«text»` of at most about 45 columns, keeping both ends of a longer text (`«head…tail»`).
fn quote_ends(t: &str) -> String {
    let t = text::escape_line(t);
    if text::width(&t) <= 45 {
        return format!("«{t}»");
    }
    let g: Vec<&str> = t.graphemes(true).collect();
    let mut head = String::new();
    let mut w = 0;
    for x in &g {
        w += text::width(x);
        if w > 22 {
            break;
        }
        head.push_str(x);
    }
    let mut tail: Vec<&str> = Vec::new();
    let mut w = 0;
    for x in g.iter().rev() {
        w += text::width(x);
        if w > 22 {
            break;
        }
        tail.push(x);
    }
    tail.reverse();
    format!("«{head}…{}»", tail.concat())
}
