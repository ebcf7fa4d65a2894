//! The stats screen: review progress (a gauge per outcome), each source's character F1 against
//! the reviewed result as a bar chart, and a table of the numbers with upheld rates (per
//! disputed cluster, as the column says).

use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Clear, Gauge, Paragraph, Wrap};
use ratatui::Frame;

use crate::review::outcome::{bucket_counts, BUCKETS};
use crate::tui::app::App;
use crate::tui::stats_model::StatsView;
use crate::tui::{strings, text};

fn ratio(a: usize, b: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    if b == 0 {
        0.0
    } else {
        (a as f64 / b as f64).clamp(0.0, 1.0)
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_owned(), |x| format!("{x:.2}"))
}

/// Draw the stats screen over `area`.
pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let Some(s) = &app.stats else { return };
    let th = &app.config.theme;
    frame.render_widget(Clear, area);
    let block = Block::bordered().title(strings::STATS);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let table_h = u16::try_from(s.sources.len() + 2).unwrap_or(u16::MAX);
    let [g1, g2, pace, scope, chart, table] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Length(2),
            Constraint::Min(3),
            Constraint::Length(table_h),
        ])
        .areas(inner);
    if app.counts_hidden() {
        // Blind review: the counts of reviewed and flagged records move with the others'
        // decisions too, so they would tell what the screen hides.
        let rest = Rect {
            height: inner.height.saturating_sub(1),
            y: inner.y + 1,
            ..inner
        };
        frame.render_widget(
            Paragraph::new(Span::styled(
                strings::stats_pace(&app.pace_line()),
                th.accent(),
            )),
            g1,
        );
        frame.render_widget(
            Paragraph::new(Span::styled(strings::STATS_BLIND, th.dim())).wrap(Wrap { trim: true }),
            rest,
        );
        return;
    }
    frame.render_widget(
        Gauge::default()
            .gauge_style(th.saved())
            .ratio(ratio(s.reviewed, s.total))
            .label(format!(
                "reviewed {} / {} (clean {}, removed {})",
                s.reviewed, s.total, s.clean, s.removed
            )),
        g1,
    );
    frame.render_widget(
        Gauge::default()
            .gauge_style(th.stale())
            .ratio(ratio(s.flagged, s.total))
            .label(format!("flagged {}", s.flagged)),
        g2,
    );
    frame.render_widget(
        Paragraph::new(Span::styled(
            strings::stats_pace(&app.pace_line()),
            th.accent(),
        )),
        pace,
    );
    frame.render_widget(
        Paragraph::new(Span::styled(strings::stats_scope(s.read), th.dim()))
            .wrap(Wrap { trim: true }),
        scope,
    );
    if app.arb_config.blind {
        // Per-source numbers would tell who said what: hidden for the whole blind session.
        let rest = Rect {
            height: chart.height.saturating_add(table.height),
            ..chart
        };
        frame.render_widget(
            Paragraph::new(Span::styled(strings::STATS_BLIND, th.dim())).wrap(Wrap { trim: true }),
            rest,
        );
        return;
    }
    // The boundary and reviewer-pair charts when there is something to show; else more room
    // for the others.
    let widths: [u16; 5] = match (s.moved.0.is_empty(), s.pairs.is_empty()) {
        (true, true) => [40, 35, 25, 0, 0],
        (false, true) => [28, 28, 18, 26, 0],
        (true, false) => [28, 28, 18, 0, 26],
        (false, false) => [22, 22, 14, 21, 21],
    };
    let [f1, labels, upheld, moved, pairs] = Layout::default()
        .direction(Direction::Horizontal)
        .constraints(widths.map(Constraint::Percentage))
        .areas(chart);
    bars(frame, f1, app, s);
    label_bars(frame, labels, app, s);
    upheld_bars(frame, upheld, app, s);
    if !s.moved.0.is_empty() {
        moved_bars(frame, moved, app, s);
    }
    if !s.pairs.is_empty() {
        pair_bars(frame, pairs, app, s);
    }
    let (header, rows) = table_lines(s);
    let mut lines = vec![Line::from(Span::styled(header, th.accent()))];
    lines.extend(rows.into_iter().map(Line::from));
    frame.render_widget(Paragraph::new(lines), table);
}

/// The numbers table: its header and a row per source.
fn table_lines(s: &StatsView) -> (String, Vec<String>) {
    let header = format!(
        "{:<18} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>16}",
        "source",
        "records",
        "char F1",
        "ex F1",
        "IoU",
        "kappa",
        "lbl F1",
        "kappa",
        "upheld clusters"
    );
    let rows = s
        .sources
        .iter()
        .map(|src| {
            let sc = &src.overall;
            let upheld = if src.upheld + src.dismissed == 0 {
                "—".to_owned()
            } else {
                format!("{} of {}", src.upheld, src.upheld + src.dismissed)
            };
            format!(
                "{} {:>7} {:>7.2} {:>7.2} {:>6} {:>6} {:>6.2} {:>6} {:>16}",
                text::pad(&text::truncate(&src.name, 18), 18),
                sc.records,
                sc.char_level.f1,
                sc.example_level.f1,
                opt(sc.mean_iou),
                opt(sc.kappa),
                sc.char_level_labeled.f1,
                opt(sc.kappa_labeled),
                upheld
            )
        })
        .collect();
    (header, rows)
}

/// The width of each of `n` bars that fill `area` (inside its border) with gaps of `gap`.
fn bar_width(area: Rect, n: usize, gap: u16) -> u16 {
    let n = u16::try_from(n.max(1)).unwrap_or(u16::MAX);
    (area.width.saturating_sub(2) / n)
        .saturating_sub(gap)
        .clamp(1, 12)
}

fn bars(frame: &mut Frame<'_>, area: Rect, app: &App, s: &StatsView) {
    let th = &app.config.theme;
    let bars: Vec<Bar<'_>> = s
        .sources
        .iter()
        .enumerate()
        .map(|(k, src)| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let v = (src.overall.char_level.f1 * 100.0).round() as u64;
            let (style, _) = th.lane(k);
            Bar::default()
                .value(v)
                .label(Line::from(text::truncate(&src.name, 12)))
                .text_value(format!("{v}%"))
                .style(style)
                .value_style(Style::default().patch(th.accent()))
        })
        .collect();
    let chart = BarChart::default()
        .block(Block::bordered().title(format!(
            "char F1 vs the reviewed result ({} reviewed)",
            strings::records(s.compared)
        )))
        .data(BarGroup::default().bars(&bars))
        .bar_width(bar_width(area, s.sources.len(), 2))
        .bar_gap(2)
        .max(100);
    frame.render_widget(chart, area);
}

/// Labels by type over the reviewed records read: before, after, dropped and added, one group
/// per label (the export report's and the card's outcomes by label).
fn label_bars(frame: &mut Frame<'_>, area: Rect, app: &App, s: &StatsView) {
    let width = bar_width(area, s.labels.len() * 4, 0).min(4);
    let groups: Vec<BarGroup<'_>> = s
        .labels
        .iter()
        .map(|(label, c)| {
            let bars = count_bars(app, [c.before, c.after, c.dropped, c.added]);
            let name = if label.is_empty() { "(none)" } else { label };
            let shown = text::truncate(&crate::model::escape::line(name), usize::from(width) * 4);
            BarGroup::default().label(Line::from(shown)).bars(&bars)
        })
        .collect();
    let mut chart = BarChart::default()
        .block(Block::bordered().title(strings::STATS_LABELS))
        .bar_width(width)
        .bar_gap(0)
        .group_gap(1);
    for g in groups {
        chart = chart.data(g);
    }
    frame.render_widget(chart, area);
}

/// Each source's upheld rate over the disputed clusters that named it.
fn upheld_bars(frame: &mut Frame<'_>, area: Rect, app: &App, s: &StatsView) {
    let shares: Vec<(String, f64)> = s
        .sources
        .iter()
        .filter(|x| x.upheld + x.dismissed > 0)
        .map(|x| (x.name.clone(), ratio(x.upheld, x.upheld + x.dismissed)))
        .collect();
    share_chart(frame, area, app, strings::STATS_UPHELD, &shares);
}

/// Each reviewer pair's label-aware char F1 over the whole log (the card's agreement chart).
fn pair_bars(frame: &mut Frame<'_>, area: Rect, app: &App, s: &StatsView) {
    let shares: Vec<(String, f64)> = s
        .pairs
        .iter()
        .map(|(pair, f1)| (text::escape_line(pair), *f1))
        .collect();
    share_chart(frame, area, app, strings::STATS_PAIRS, &shares);
}

/// A chart titled `title` of one bar per (name, share in [0, 1]) as a percentage, each in its
/// lane's colour, the names cut to the bar's width.
fn share_chart(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    title: &str,
    shares: &[(String, f64)],
) {
    let th = &app.config.theme;
    let width = bar_width(area, shares.len(), 1);
    let bars: Vec<Bar<'_>> = shares
        .iter()
        .enumerate()
        .map(|(k, (name, share))| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let v = (share * 100.0).round() as u64;
            Bar::default()
                .value(v)
                .label(Line::from(text::truncate(name, usize::from(width))))
                .text_value(format!("{v}%"))
                .style(th.lane(k).0)
                .value_style(Style::default().patch(th.accent()))
        })
        .collect();
    let chart = BarChart::default()
        .block(Block::bordered().title(title.to_owned()))
        .data(BarGroup::default().bars(&bars))
        .bar_width(width)
        .bar_gap(1)
        .max(100);
    frame.render_widget(chart, area);
}

/// One bar per count, each in its lane's colour, its count written on it.
fn count_bars<'a, const N: usize>(app: &App, counts: [usize; N]) -> Vec<Bar<'a>> {
    let th = &app.config.theme;
    counts
        .into_iter()
        .enumerate()
        .map(|(k, n)| {
            Bar::default()
                .value(n as u64)
                .text_value(n.to_string())
                .style(th.lane(k).0)
                .value_style(Style::default().patch(th.accent()))
        })
        .collect()
}

/// Corrected boundaries by code points moved, start and end side by side per bucket (the
/// card's boundary chart).
fn moved_bars(frame: &mut Frame<'_>, area: Rect, app: &App, s: &StatsView) {
    let (starts, ends) = (bucket_counts(&s.moved.0), bucket_counts(&s.moved.1));
    let width = bar_width(area, BUCKETS.len() * 2, 0).min(3);
    let mut chart = BarChart::default()
        .block(Block::bordered().title(strings::STATS_MOVED))
        .bar_width(width)
        .bar_gap(0)
        .group_gap(1);
    for ((_, _, name), (a, b)) in BUCKETS.iter().zip(starts.into_iter().zip(ends)) {
        let bars = count_bars(app, [a, b]);
        let shown = text::truncate(name, usize::from(width) * 2);
        chart = chart.data(BarGroup::default().label(Line::from(shown)).bars(&bars));
    }
    frame.render_widget(chart, area);
}

#[cfg(test)]
mod tests {
    use super::{table_lines, text};
    use crate::review::metrics::Agreement;
    use crate::tui::stats_model::{SourceStats, StatsView};

    fn source(name: &str) -> SourceStats {
        SourceStats {
            name: name.to_owned(),
            overall: Agreement::default().scores(),
            upheld: 1,
            dismissed: 1,
        }
    }

    /// A source named in CJK (two columns a character), with accents or past the name column
    /// lines its numbers up under the header's, as an ASCII name does.
    #[test]
    fn the_table_columns_line_up_whatever_the_names_script() {
        let s = StatsView {
            sources: [
                "gold",
                "審査員",
                "審査員審査員審査員審査員審査員",
                "e\u{301}°’",
            ]
            .map(source)
            .to_vec(),
            ..StatsView::default()
        };
        let (header, rows) = table_lines(&s);
        for r in &rows {
            assert_eq!(text::width(r), text::width(&header), "{r:?}\n{header:?}");
        }
    }
}
