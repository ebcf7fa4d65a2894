//! The README's picture of the review screen, `docs/review-screen.svg`: the real screen drawn on
//! the bundled sample into ratatui's `TestBackend`, each run of cells with one style written as
//! SVG `<rect>` (its background) and `<text>` (its characters, colour, bold, underline). The test
//! draws it again and fails when the committed file differs, so the picture cannot drift from
//! the screen; `bench/screenshot.sh` writes it anew (`SPANREVIEW_SCREENSHOT=write`).

use std::fmt::Write as _;
use std::rc::Rc;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;
use spanreview::formats::Dataset;
use spanreview::tui::app::{App, Opening};
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::{terminal, Action};
use unicode_width::UnicodeWidthStr;

use super::super::app_harness::mem;
use super::super::common::{data, root};

/// The size of the picture, in cells.
const COLS: u16 = 132;
const ROWS: u16 = 36;
/// One cell, in SVG units (a 14px monospace font).
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 18.0;
/// The terminal's default colours (a dark theme).
const DEFAULT_FG: &str = "#d0d0d0";
const DEFAULT_BG: &str = "#1c1c1c";

/// The review screen as `spanreview review` opens it on the bundled sample (its three files,
/// the default theme in 24-bit colour, the `unreviewed` queue), the second span selected.
fn sample_screen() -> Buffer {
    let files = [
        data("toolace/test_records_reconstructed.jsonl"),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let store = mem();
    let ds = Dataset::open(&files, None).expect("the sample opens");
    let opening = Opening::new(QueueKind::Unreviewed, Config::defaults(false));
    let mut app = App::open(ds, Box::new(Rc::clone(&store)), "ana", opening).expect("app");
    app.update(Action::NextSpan);
    let mut t = Terminal::new(TestBackend::new(COLS, ROWS)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    t.backend().buffer().clone()
}

/// xterm's colours for the 16 named ones and the 256-colour cube; `None` for the default.
fn css(c: Color) -> Option<String> {
    const NAMED: [&str; 16] = [
        "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
        "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
    ];
    let named = |i: usize| Some(NAMED[i].to_owned());
    match c {
        Color::Reset => None,
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => named(8),
        Color::LightRed => named(9),
        Color::LightGreen => named(10),
        Color::LightYellow => named(11),
        Color::LightBlue => named(12),
        Color::LightMagenta => named(13),
        Color::LightCyan => named(14),
        Color::White => named(15),
        Color::Rgb(r, g, b) => Some(format!("#{r:02x}{g:02x}{b:02x}")),
        Color::Indexed(i) if i < 16 => named(usize::from(i)),
        Color::Indexed(i) if i >= 232 => {
            let v = 8 + 10 * (i - 232);
            Some(format!("#{v:02x}{v:02x}{v:02x}"))
        }
        Color::Indexed(i) => {
            let level = |n: u8| if n == 0 { 0 } else { 55 + 40 * n };
            let n = i - 16;
            let (r, g, b) = (level(n / 36), level(n / 6 % 6), level(n % 6));
            Some(format!("#{r:02x}{g:02x}{b:02x}"))
        }
    }
}

/// `s` with the characters XML gives a meaning escaped.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// One run of cells of a row sharing a style: where it starts, how many cells, its text.
struct Run {
    x: u16,
    cells: u16,
    text: String,
    fg: Option<String>,
    bg: Option<String>,
    modifier: Modifier,
}

/// The runs of row `y`: the cells a wide character covers after its own (ratatui leaves them
/// blank) join that character's run without text, so the columns after it stay in place.
fn runs(buf: &Buffer, y: u16) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    let mut covered = 0;
    for x in 0..buf.area.width {
        let cell = buf.cell((x, y)).expect("in the buffer");
        if covered > 0 {
            covered -= 1;
            if let Some(r) = out.last_mut() {
                r.cells += 1;
                continue;
            }
        }
        let (mut fg, mut bg) = (css(cell.fg), css(cell.bg));
        if cell.modifier.contains(Modifier::REVERSED) {
            (fg, bg) = (
                bg.or_else(|| Some(DEFAULT_BG.into())),
                fg.or_else(|| Some(DEFAULT_FG.into())),
            );
        }
        let modifier = cell.modifier & (Modifier::BOLD | Modifier::UNDERLINED | Modifier::ITALIC);
        let symbol = cell.symbol();
        covered = symbol.width().saturating_sub(1);
        match out.last_mut() {
            Some(r) if r.fg == fg && r.bg == bg && r.modifier == modifier => {
                r.cells += 1;
                r.text.push_str(symbol);
            }
            _ => out.push(Run {
                x,
                cells: 1,
                text: symbol.to_owned(),
                fg,
                bg,
                modifier,
            }),
        }
    }
    out
}

/// The buffer as an SVG picture: a background, then per row each run's background rectangle
/// and its text, stretched to the run's cells so columns line up whatever the font.
fn svg(buf: &Buffer) -> String {
    let (w, h) = (
        f64::from(buf.area.width) * CELL_W,
        f64::from(buf.area.height) * CELL_H,
    );
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.1} {h:.1}" font-family="'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="14">"#
    );
    let _ = writeln!(s, "<!-- drawn by bench/screenshot.sh from the review screen on the bundled sample; do not edit -->");
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="{DEFAULT_BG}"/>"#
    );
    for y in 0..buf.area.height {
        let top = f64::from(y) * CELL_H;
        let row = runs(buf, y);
        for r in &row {
            if let Some(bg) = &r.bg {
                let _ = writeln!(
                    s,
                    r#"<rect x="{:.1}" y="{top:.1}" width="{:.1}" height="{CELL_H:.1}" fill="{bg}"/>"#,
                    f64::from(r.x) * CELL_W,
                    f64::from(r.cells) * CELL_W,
                );
            }
        }
        for r in &row {
            if r.text.trim().is_empty() {
                continue;
            }
            let mut attrs = format!(
                r#"x="{:.1}" y="{:.1}" textLength="{:.1}" lengthAdjust="spacingAndGlyphs" fill="{}""#,
                f64::from(r.x) * CELL_W,
                top + CELL_H * 0.75,
                f64::from(r.cells) * CELL_W,
                r.fg.as_deref().unwrap_or(DEFAULT_FG),
            );
            if r.modifier.contains(Modifier::BOLD) {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if r.modifier.contains(Modifier::ITALIC) {
                attrs.push_str(r#" font-style="italic""#);
            }
            if r.modifier.contains(Modifier::UNDERLINED) {
                attrs.push_str(r#" text-decoration="underline""#);
            }
            let _ = writeln!(
                s,
                r#"<text {attrs} xml:space="preserve">{}</text>"#,
                xml(&r.text)
            );
        }
    }
    s.push_str("</svg>\n");
    s
}

#[test]
fn the_readme_picture_is_the_review_screen_as_drawn_now() {
    let path = root().join("docs/review-screen.svg");
    let drawn = svg(&sample_screen());
    if std::env::var_os("SPANREVIEW_SCREENSHOT").is_some_and(|v| v == "write") {
        std::fs::write(&path, &drawn).expect("write the picture");
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path).expect("docs/review-screen.svg");
    assert!(
        committed == drawn,
        "docs/review-screen.svg is not the review screen as drawn now: run bench/screenshot.sh \
         and commit the picture"
    );
    // The README shows it.
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(readme.contains("](docs/review-screen.svg)"), "not linked");
}

#[test]
fn the_picture_holds_the_screen_text_and_its_colours() {
    let buf = sample_screen();
    let drawn = svg(&buf);
    // The header's dataset and the first record's id, as the screen shows them.
    for want in ["test_records_reconstructed", "toolace_train_00021"] {
        assert!(drawn.contains(want), "{want} not in the picture");
    }
    // Every colour a cell of the screen has is in the picture.
    let mut colours = std::collections::BTreeSet::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let c = buf.cell((x, y)).expect("cell");
            colours.extend(css(c.fg).into_iter().chain(css(c.bg)));
        }
    }
    assert!(colours.len() > 3, "the screen has colours: {colours:?}");
    for c in &colours {
        assert!(
            drawn.contains(c.as_str()),
            "{c} is missing from the picture"
        );
    }
}

#[test]
fn a_picture_of_another_screen_is_told_apart() {
    // The drift check compares whole pictures: one cell changed is a different picture.
    let mut buf = sample_screen();
    let before = svg(&buf);
    buf[(0, 0)].set_symbol("Ω");
    assert_ne!(svg(&buf), before);
    // A wide character's second cell joins its run, so columns after it stay in place.
    let mut one = Buffer::empty(ratatui::layout::Rect::new(0, 0, 6, 1));
    one.set_string(0, 0, "東京ab", ratatui::style::Style::default());
    let r = runs(&one, 0);
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].cells, r[0].text.as_str()), (6, "東京ab"));
    assert_eq!(xml("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
}
