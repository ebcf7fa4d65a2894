//! A small SVG writer for the card's bar charts: grouped vertical bars, one group per category
//! and one bar per series in it, a value axis from the lowest value (or 0) to a round top, a
//! legend. No plotting crate: bars are rectangles, and every text is escaped for XML (and its
//! hidden characters shown as `\u{..}`, which XML 1.0 could not hold even as references).
//!
//! Each bar is `<rect class="bar" data-category=".." data-series=".." data-value="..">` with a
//! `<title>` (the tooltip a browser shows): its height is `|value| / (top − bottom)` of the plot's
//! [`PLOT_H`], drawn up from the zero line (down for a negative value).

use std::fmt::Write;

/// Height of the plot area, in SVG units: a bar of the axis' full range is this tall.
pub const PLOT_H: f64 = 240.0;
const BAR_W: f64 = 18.0;
const GAP: f64 = 14.0;
const LEFT: f64 = 64.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 120.0;
const COLOURS: [&str; 6] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1",
];

/// One series: a value per category.
#[derive(Debug, Clone)]
pub struct Series {
    /// Its name in the legend.
    pub name: String,
    /// One value per category, in order.
    pub values: Vec<f64>,
}

/// A grouped bar chart.
#[derive(Debug, Clone)]
pub struct Chart {
    /// The title, above the plot.
    pub title: String,
    /// The value axis' name.
    pub unit: String,
    /// The groups' names, under the plot.
    pub categories: Vec<String>,
    /// The bars of each group, in order.
    pub series: Vec<Series>,
    /// The axis' top at least this (1 for rates): a round number above the largest value
    /// otherwise.
    pub top: Option<f64>,
    /// Decimals of the values in tooltips and ticks (0 for counts).
    pub decimals: usize,
}

/// Text safe in XML content and attributes: hidden characters (controls, bidirectional marks)
/// as `\u{..}`, then `&`, `<`, `>`, `"` and `'` as entities.
#[must_use]
pub fn xml(s: &str) -> String {
    let shown = crate::model::escape::line(s);
    let mut out = String::with_capacity(shown.len());
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A round number at or above `x` (1, 2 or 5 times a power of ten).
fn round_up(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|v| *v >= x - 1e-9)
        .unwrap_or(10.0 * p)
}

/// The fewest decimals that write every multiple of `step` exactly (at most 3): a count axis
/// ticked by 2.5 says 7.5, not 8.
pub(super) fn tick_decimals(step: f64) -> usize {
    (0..3)
        .find(|&d| {
            let scaled = step * 10f64.powi(d);
            (scaled - scaled.round()).abs() < 1e-9
        })
        .map_or(3, |d| d as usize)
}

impl Chart {
    /// The value axis: (bottom, top).
    fn range(&self) -> (f64, f64) {
        let all = self.series.iter().flat_map(|s| s.values.iter().copied());
        let (lo, hi) = all.fold((0f64, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let top = self.top.map_or_else(|| round_up(hi), |t| t.max(hi));
        let bottom = if lo < 0.0 { -round_up(-lo) } else { 0.0 };
        (bottom, top)
    }

    /// The chart as an SVG document.
    #[must_use]
    pub fn render(&self) -> String {
        let group = self.series.len().max(1) as f64 * BAR_W + GAP;
        // Wide enough for the bars and the legend, and for the title (15 px bold: about 9 a
        // character).
        let title = 9.0 * self.title.chars().count() as f64 + LEFT + 16.0;
        let width = (LEFT + group * self.categories.len().max(1) as f64 + 180.0).max(title);
        let height = TOP + PLOT_H + BOTTOM;
        let (bottom, top) = self.range();
        let y = |v: f64| TOP + (top - v) / (top - bottom) * PLOT_H;
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n\
             <title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"{LEFT}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
            xml(&self.title),
            xml(&self.title)
        );
        self.axis(&mut s, bottom, top, &y);
        for (i, cat) in self.categories.iter().enumerate() {
            let x0 = LEFT + GAP / 2.0 + group * i as f64;
            for (j, series) in self.series.iter().enumerate() {
                let v = series.values.get(i).copied().unwrap_or(0.0);
                let (from, to) = (y(0.0), y(v));
                let _ = writeln!(
                    s,
                    "<rect class=\"bar\" data-category=\"{c}\" data-series=\"{n}\" \
                     data-value=\"{v}\" x=\"{x:.2}\" y=\"{top:.4}\" width=\"{BAR_W}\" \
                     height=\"{h:.4}\" fill=\"{fill}\"><title>{c} — {n}: {v:.d$}</title></rect>",
                    c = xml(cat),
                    n = xml(&series.name),
                    x = x0 + BAR_W * j as f64,
                    top = from.min(to),
                    h = (from - to).abs(),
                    fill = COLOURS[j % COLOURS.len()],
                    d = self.decimals
                );
            }
            let cx = x0 + BAR_W * self.series.len() as f64 / 2.0;
            let ty = TOP + PLOT_H + 14.0;
            let _ = writeln!(
                s,
                "<text class=\"category\" x=\"{cx:.2}\" y=\"{ty}\" text-anchor=\"end\" \
                 transform=\"rotate(-35 {cx:.2} {ty})\">{}</text>",
                xml(cat)
            );
        }
        self.legend(&mut s);
        s.push_str("</svg>\n");
        s
    }

    /// The value axis with five ticks, its name, and the zero line.
    fn axis(&self, s: &mut String, bottom: f64, top: f64, y: &dyn Fn(f64) -> f64) {
        let groups = self.categories.len().max(1) as f64;
        let right = LEFT + (self.series.len().max(1) as f64 * BAR_W + GAP) * groups;
        for k in 0..=4 {
            let v = bottom + (top - bottom) * f64::from(k) / 4.0;
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" x2=\"{right:.0}\" y1=\"{yv:.2}\" y2=\"{yv:.2}\" \
                 stroke=\"#ddd\"/>\n<text x=\"{tx}\" y=\"{ty:.2}\" text-anchor=\"end\">{v:.d$}</text>",
                yv = y(v),
                tx = LEFT - 6.0,
                ty = y(v) + 4.0,
                d = tick_decimals((top - bottom) / 4.0)
            );
        }
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{right:.0}\" y1=\"{z:.2}\" y2=\"{z:.2}\" stroke=\"#333\"/>\n\
             <text x=\"14\" y=\"{my:.0}\" transform=\"rotate(-90 14 {my:.0})\" \
             text-anchor=\"middle\">{}</text>",
            xml(&self.unit),
            z = y(0.0),
            my = TOP + PLOT_H / 2.0
        );
    }

    /// One swatch and name per series, right of the plot.
    fn legend(&self, s: &mut String) {
        let groups = self.categories.len().max(1) as f64;
        let x = LEFT + (self.series.len().max(1) as f64 * BAR_W + GAP) * groups + 10.0;
        for (j, series) in self.series.iter().enumerate() {
            let yy = TOP + 18.0 * j as f64;
            let _ = writeln!(
                s,
                "<rect class=\"swatch\" x=\"{x}\" y=\"{yy}\" width=\"12\" height=\"12\" \
                 fill=\"{}\"/><text x=\"{tx}\" y=\"{ty}\">{}</text>",
                COLOURS[j % COLOURS.len()],
                xml(&series.name),
                tx = x + 18.0,
                ty = yy + 10.0
            );
        }
    }
}
