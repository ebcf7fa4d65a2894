//! Code samples shown as code (issue 24 item 2): the context's and the answer's code coloured
//! by syntax over which spans and evidence stay highlighted, tabs expanded to the next stop
//! (offsets untouched), line numbers in a gutter, an edit's old and new blocks marked `-` and
//! `+`, unified diffs coloured by line; 256 colours and `--color never` as the rest of the
//! screen. The samples: `tests/fixtures/triage/code_agent.jsonl` (LettuceDetect's code-agent
//! shape) and records written here with tabs, `°`, `’`, CJK, emoji and combining marks.

use std::rc::Rc;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;
use spanreview::formats::Dataset;
use spanreview::store::Store;
use spanreview::tui::app::{App, Opening};
use spanreview::tui::config::Config;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::terminal;
use spanreview::tui::theme::{nearest_256, Depth};

use super::app_harness::{cell_of, goto, mem};
use super::common::fixture;

/// The default theme's colours (assets/theme.toml).
const KEYWORD: (u8, u8, u8) = (0xE6, 0x9F, 0x00);
const STRING: (u8, u8, u8) = (0x00, 0x9E, 0x73);
const ADD: (u8, u8, u8) = (0x00, 0x9E, 0x73);
const DEL: (u8, u8, u8) = (0xD5, 0x5E, 0x00);
/// The fixture's spans are labeled `wrong_implementation`: the theme's default label colour.
const SPAN: (u8, u8, u8) = (0xCC, 0x79, 0xA7);

fn rgb((r, g, b): (u8, u8, u8)) -> Color {
    Color::Rgb(r, g, b)
}

/// The review screen over `files` in colour (`mono`: `--color never`) at `depth`.
fn app_over(files: &[std::path::PathBuf], store: &Rc<Store>, mono: bool, depth: Depth) -> App {
    let mut config = Config::defaults(mono);
    config.theme.depth = depth;
    let ds = Dataset::open(files, None).expect("files open");
    App::open(
        ds,
        Box::new(Rc::clone(store)),
        "tester",
        Opening::new(QueueKind::All, config),
    )
    .expect("app")
}

fn draw(app: &mut App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal::frame(&mut t, app).expect("draw");
    t.backend().buffer().clone()
}

/// Screen row `y` as text (a wide character's second column is blank).
fn row_text(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_owned())
        .collect()
}

/// The first cell (x, y) where `needle` is drawn within the columns `[x0, x1)`.
fn find(buf: &Buffer, needle: &str, x0: u16, x1: u16) -> (u16, u16) {
    for y in 0..buf.area.height {
        let cells: Vec<(u16, String)> = (x0..x1.min(buf.area.width))
            .map(|x| (x, buf[(x, y)].symbol().to_owned()))
            .collect();
        let text: String = cells.iter().map(|c| c.1.as_str()).collect();
        if let Some(at) = text.find(needle) {
            // The cell holding byte `at` of the row's text.
            let mut b = 0;
            for (x, s) in &cells {
                if b == at {
                    return (*x, y);
                }
                b += s.len();
            }
        }
    }
    panic!("{needle:?} not on screen:\n{}", dump(buf));
}

fn dump(buf: &Buffer) -> String {
    (0..buf.area.height)
        .map(|y| row_text(buf, y))
        .collect::<Vec<_>>()
        .join("\n")
}

fn code_agent(store: &Rc<Store>, mono: bool, depth: Depth) -> App {
    app_over(&[fixture("triage/code_agent.jsonl")], store, mono, depth)
}

#[test]
fn the_context_of_a_code_sample_is_numbered_coloured_with_its_tabs_expanded() {
    let store = mem();
    let mut app = code_agent(&store, false, Depth::TrueColor);
    goto(&mut app, "clean-edit-number");
    let buf = draw(&mut app, 120, 40);
    let ctx = app.layout.context;
    let (x0, x1) = (ctx.x, ctx.x + ctx.width);
    // Line numbers in the gutter, the file's tab as four columns (no `\t`).
    let (x, y) = find(&buf, "def to_celsius(f):", x0, x1);
    let row = row_text(&buf, y);
    assert!(row.contains(" 1 def to_celsius(f):"), "{row}");
    let (_, y2) = find(&buf, "\"\"\"Fahrenheit → °C (", x0, x1);
    assert_eq!(y2, y + 1);
    let row2 = row_text(&buf, y2);
    assert!(row2.contains(" 2     \"\"\"Fahrenheit"), "{row2}");
    assert!(!dump(&buf).contains("\\t"), "{}", dump(&buf));
    // The text starts in the same column on both lines: the tab went to the stop.
    let (xd, _) = find(&buf, "\"\"\"Fahr", x0, x1);
    assert_eq!(xd, x + 4);
    // Syntax colour: `def` a keyword; prose outside the blocks keeps the terminal's colour.
    assert_eq!(buf[(x, y)].fg, rgb(KEYWORD));
    let (xr, yr) = find(&buf, "Referenced", x0, x1);
    assert_eq!(buf[(xr, yr)].fg, Color::Reset);
}

#[test]
fn an_edit_answers_old_and_new_blocks_are_marked_and_its_span_stays_on_top() {
    let store = mem();
    let mut app = code_agent(&store, false, Depth::TrueColor);
    goto(&mut app, "clean-edit-number");
    let buf = draw(&mut app, 120, 40);
    let out = app.layout.output;
    // The gutter left of the text: `-` on the old block's line, `+` on the new one's.
    let old_y = find(&buf, "return (f - 32)", out.x, out.x + out.width).1;
    let new_y = find(&buf, "return (f - 33)", out.x, out.x + out.width).1;
    let gutter = |y: u16| -> String {
        (out.x - 3..out.x)
            .map(|x| buf[(x, y)].symbol().to_owned())
            .collect()
    };
    assert_eq!(gutter(old_y), "-1 ");
    assert_eq!(gutter(new_y), "+1 ");
    assert_eq!(buf[(out.x - 3, old_y)].fg, rgb(DEL));
    assert_eq!(buf[(out.x - 3, new_y)].fg, rgb(ADD));
    // The span over `33` [103, 105): its label's colour over the number's syntax colour.
    let (x, y) = cell_of(&app, 103);
    assert_eq!(buf[(x, y)].symbol(), "3");
    assert_eq!(buf[(x, y)].bg, rgb(SPAN), "{}", dump(&buf));
    // `return` beside it is a keyword; the `32` of the old block a number, not a span.
    let (xk, yk) = find(&buf, "return (f - 33)", out.x, out.x + out.width);
    assert_eq!(buf[(xk, yk)].fg, rgb(KEYWORD));
    assert_eq!(buf[(xk, yk)].bg, Color::Reset);
}

/// One record of the code-agent shape with `answer`, one span `[start, end)` of it.
fn record(dir: &std::path::Path, answer: &str, start: usize, end: usize) -> std::path::PathBuf {
    let context = "File: src/geo.py\n```\ndef north(lat):\n\t\"\"\"Latitude in ° (東京’s 🗼, e\u{301}).\"\"\"\n\treturn lat > 0\n```\n";
    let rec = serde_json::json!({
        "id": "code-1", "prompt": context, "context": context, "question": "Fix it.",
        "answer": answer,
        "labels": [{"start": start, "end": end, "label": "wrong_implementation",
                    "category": "contradiction", "subcategory": "value"}],
        "split": "test", "task_type": "code_generation", "dataset": "lettucedetect-code-agent",
        "language": "en", "context_modality": "code"
    });
    let path = dir.join("code.jsonl");
    std::fs::write(&path, format!("{rec}\n")).expect("write");
    path
}

#[test]
fn a_span_across_a_tab_covers_the_columns_the_tab_takes() {
    let dir = tempfile::tempdir().expect("tmp");
    // A bare function (no fence): code in the context file's language. The span is the tab
    // and `return` of the second line, after a line of `°`, `’`, CJK, emoji and a combining
    // mark; offsets are code points.
    let answer = "def north(lat):\n\tx = \"° ’ 東京 🗼 e\u{301}\"\n\treturn lat >= 0\n";
    let chars: Vec<char> = answer.chars().collect();
    let start = chars
        .windows(7)
        .position(|w| w.iter().collect::<String>() == "\treturn")
        .expect("tab");
    let path = record(dir.path(), answer, start, start + 7);
    let store = mem();
    let mut app = app_over(&[path], &store, false, Depth::TrueColor);
    let buf = draw(&mut app, 120, 40);
    // The tab is the span's first cell: four blank columns in the span's colour, then
    // `return` in it too; the cell after the span is not.
    let (x, y) = cell_of(&app, start);
    for dx in 0..4 {
        let c = &buf[(x + dx, y)];
        assert_eq!(c.symbol(), " ", "{}", dump(&buf));
        assert_eq!(c.bg, rgb(SPAN), "column {dx} of the tab");
    }
    assert_eq!(buf[(x + 4, y)].symbol(), "r");
    assert_eq!(buf[(x + 9, y)].bg, rgb(SPAN));
    assert_ne!(buf[(x + 10, y)].bg, rgb(SPAN));
    // The line above lines up: its tab also went to column 4, its wide and combined
    // characters where the terminal puts them; its string is coloured as one.
    let tokyo = chars.iter().position(|&c| c == '東').expect("東");
    let (xs, ys) = cell_of(&app, tokyo);
    assert_eq!(ys + 1, y);
    assert_eq!(buf[(x + 4, ys)].symbol(), "x");
    assert_eq!(buf[(xs, ys)].symbol(), "東");
    assert_eq!(buf[(xs, ys)].fg, rgb(STRING));
    // A click on the tab's last column finds the tab's code point.
    app.update(spanreview::tui::Action::MouseDown(x + 3, y));
    app.update(spanreview::tui::Action::MouseUp(x + 3, y));
    let c = app.cur.as_ref().expect("record");
    let sel = c.selected_span().map(|i| c.review.spans[i].current.start);
    assert_eq!(sel, Some(start));
}

#[test]
fn a_unified_diff_is_coloured_by_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let answer = "```diff\n--- a/src/geo.py\n+++ b/src/geo.py\n@@ -3 +3 @@\n-\treturn lat > 0\n+\treturn lat >= 0  # ° ’ 東京\n```\n";
    let at = answer.find(">=").expect("span");
    let cp = answer[..at].chars().count();
    let path = record(dir.path(), answer, cp, cp + 2);
    let store = mem();
    let mut app = app_over(&[path], &store, false, Depth::TrueColor);
    let buf = draw(&mut app, 120, 40);
    let out = app.layout.output;
    let (x1, x2) = (out.x, out.x + out.width);
    let (xm, ym) = find(&buf, "-   return lat > 0", x1, x2);
    assert_eq!(buf[(xm, ym)].fg, rgb(DEL));
    assert_eq!(buf[(xm + 4, ym)].fg, rgb(DEL));
    let (xp, yp) = find(&buf, "+   return lat >= 0", x1, x2);
    assert_eq!(buf[(xp + 4, yp)].fg, rgb(ADD));
    let (xh, yh) = find(&buf, "@@ -3 +3 @@", x1, x2);
    assert_ne!(buf[(xh, yh)].fg, Color::Reset);
    assert!(buf[(
        find(&buf, "--- a/src", x1, x2).0,
        find(&buf, "--- a/src", x1, x2).1
    )]
        .modifier
        .contains(Modifier::BOLD));
    // The span over `>=` stays on top of the added line's colour.
    let (xs, ys) = cell_of(&app, cp);
    assert_eq!(buf[(xs, ys)].bg, rgb(SPAN));
}

#[test]
fn code_colours_fall_back_to_256_and_vanish_under_color_never() {
    let store = mem();
    let mut app = code_agent(&store, false, Depth::Ansi256);
    goto(&mut app, "clean-edit-number");
    let buf = draw(&mut app, 120, 40);
    let ctx = app.layout.context;
    let (x, y) = find(&buf, "def to_celsius", ctx.x, ctx.x + ctx.width);
    let (r, g, b) = KEYWORD;
    assert_eq!(buf[(x, y)].fg, Color::Indexed(nearest_256(r, g, b)));
    let rgb_cells = (0..buf.area.height)
        .flat_map(|y| (0..buf.area.width).map(move |x| (x, y)))
        .filter(|&p| matches!(buf[p].fg, Color::Rgb(..)) || matches!(buf[p].bg, Color::Rgb(..)))
        .count();
    assert_eq!(rgb_cells, 0, "no 24-bit colour on a 256-colour terminal");

    let store = mem();
    let mut app = code_agent(&store, true, Depth::TrueColor);
    goto(&mut app, "clean-edit-number");
    let buf = draw(&mut app, 120, 40);
    let coloured = (0..buf.area.height)
        .flat_map(|y| (0..buf.area.width).map(move |x| (x, y)))
        .filter(|&p| buf[p].fg != Color::Reset || buf[p].bg != Color::Reset)
        .count();
    assert_eq!(coloured, 0, "{}", dump(&buf));
    // The old and new blocks are still told apart, by their marks.
    let out = app.layout.output;
    let (_, old_y) = find(&buf, "return (f - 32)", out.x, out.x + out.width);
    assert_eq!(buf[(out.x - 3, old_y)].symbol(), "-");
}

#[test]
fn prose_keeps_its_tabs_escaped_and_has_no_gutter() {
    let store = mem();
    let mut app = super::app_harness::review_app(&store);
    let buf = draw(&mut app, 100, 30);
    assert!(dump(&buf).contains("naïve\\tnote"), "{}", dump(&buf));
    let (x, _) = cell_of(&app, 0);
    assert_eq!(x, app.layout.output.x);
}

/// The terminal as a reviewer who presses End once and waits: every wait the loop asks for
/// is noted; the screen quits on the first wait that is not "none" (nothing left to colour).
struct EndThenWait {
    waits: Vec<std::time::Duration>,
    pressed: bool,
}

impl terminal::Events for EndThenWait {
    fn next(
        &mut self,
        timeout: std::time::Duration,
    ) -> std::io::Result<Option<ratatui::crossterm::event::Event>> {
        use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
        let key = |c| Ok(Some(Event::Key(KeyEvent::new(c, KeyModifiers::NONE))));
        if !self.pressed {
            self.pressed = true;
            return key(KeyCode::End);
        }
        self.waits.push(timeout);
        assert!(self.waits.len() < 10_000, "the loop never stops colouring");
        if timeout.is_zero() {
            Ok(None)
        } else {
            key(KeyCode::Char('q'))
        }
    }
}

/// Issue 24 item 2: a key on a long file not drawn yet colours what fits the frame's budget;
/// the event loop draws again at once (no wait) until the rows on screen are coloured, and
/// then they are coloured as a screen drawn without a budget.
#[test]
fn a_jump_far_into_a_file_is_coloured_over_the_next_frames_without_waiting() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut body = String::new();
    for i in 0..1500 {
        body.push_str(&format!(
            "def f{i}(x):\n\t\"\"\"Return x at {i}°C in 東京 (e\u{301}, 🙂).\"\"\"\n\treturn x * {i}  # ’\n\n"
        ));
    }
    let context = format!("File: pkg/big.py\n```python\n{body}```\n");
    let rec = serde_json::json!({
        "id": "big", "prompt": context, "context": context, "question": "Fix it.",
        "answer": "def g(y):\n\treturn y\n",
        "labels": [{"start": 4, "end": 8, "label": "wrong_implementation",
                    "category": "contradiction", "subcategory": "value"}],
        "split": "test", "task_type": "code_generation", "dataset": "lettucedetect-code-agent",
        "language": "en", "context_modality": "code"
    });
    let path = dir.path().join("big.jsonl");
    std::fs::write(&path, format!("{rec}\n")).expect("write");
    let store = mem();
    let mut budgeted = app_over(std::slice::from_ref(&path), &store, false, Depth::TrueColor);
    // A budget no line fits in: each frame colours one line.
    budgeted.config.colour_budget = Some(std::time::Duration::ZERO);
    let mut t = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    let mut events = EndThenWait {
        waits: Vec::new(),
        pressed: false,
    };
    terminal::drive(&mut t, &mut budgeted, &mut events).expect("loop");
    let zero = events.waits.iter().filter(|w| w.is_zero()).count();
    assert!(zero >= 10, "coloured in {zero} frames: {:?}", events.waits);
    assert!(
        events.waits[..zero].iter().all(|w| w.is_zero()),
        "the loop waited while code was left to colour: {:?}",
        events.waits
    );
    let looped = t.backend().buffer().clone();
    let mut whole = app_over(&[path], &store, false, Depth::TrueColor);
    let mut t2 = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    terminal::frame(&mut t2, &mut whole).expect("draw");
    whole.update(spanreview::tui::Action::ContextBottom);
    let at_once = draw(&mut whole, 120, 40);
    assert!(!whole.layout.colouring);
    assert_eq!(dump(&looped), dump(&at_once));
    let ctx = whole.layout.context;
    let (x, y) = find(&at_once, "def f1499", ctx.x, ctx.x + ctx.width);
    assert_eq!(at_once[(x, y)].fg, rgb(KEYWORD));
    for yy in 0..at_once.area.height {
        for xx in 0..at_once.area.width {
            assert_eq!(looped[(xx, yy)], at_once[(xx, yy)], "cell ({xx}, {yy})");
        }
    }
}
