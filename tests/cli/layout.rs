//! Text layout as a terminal shows it: Devanagari, Bengali, Thai, Tamil, Arabic and emoji
//! sequences in the review and arbitration screens, drawn into ratatui's `TestBackend` and
//! into `Vt`, a model of a terminal that places text code point by code point (as tmux does),
//! fed exactly what the crossterm backend would send; one run in tmux on Mu-SHROOM `val-hi-7`.

use std::path::PathBuf;

use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Rect, Size};
use ratatui::Terminal;
use spanreview::tui::app::App;
use spanreview::tui::{terminal, Action};
use unicode_width::UnicodeWidthChar;

use super::app_harness;
use super::app_harness::finish;
use super::common::fixture;
use super::terminal::{bin, env, shell_quote, Tmux};

const ZWJ: char = '\u{200D}';

/// Columns a terminal gives one code point (glibc's `wcwidth`, as tmux 3.3 uses it): spacing
/// vowel signs take a column, variation selectors none.
fn cols(c: char) -> usize {
    match c {
        '\u{FE0E}' | '\u{FE0F}' | ZWJ => 0,
        '\u{09BE}' | '\u{0BBE}' => 1,
        _ => c.width().unwrap_or(0),
    }
}

/// A terminal screen that places each code point in its own column(s) as it arrives, attaches
/// zero-width ones (and the code point after a zero width joiner) to the cell before the
/// cursor, and only knows the cursor moves the crossterm backend sends.
struct Vt {
    size: Size,
    /// One string per column; `None` for the right half of a wide character.
    grid: Vec<Vec<Option<String>>>,
    cursor: (u16, u16),
    joined: bool,
}

impl Vt {
    fn new(w: u16, h: u16) -> Self {
        Self {
            size: Size::new(w, h),
            grid: vec![vec![Some(" ".to_owned()); usize::from(w)]; usize::from(h)],
            cursor: (0, 0),
            joined: false,
        }
    }

    fn row(&self, y: usize) -> String {
        self.grid[y].iter().flatten().map(String::as_str).collect()
    }

    fn screen(&self) -> Vec<String> {
        (0..self.grid.len()).map(|y| self.row(y)).collect()
    }

    /// Columns of `│` on row `y`.
    fn bars(&self, y: usize) -> Vec<usize> {
        (0..self.grid[y].len())
            .filter(|&x| self.grid[y][x].as_deref() == Some("│"))
            .collect()
    }

    fn attach(&mut self, c: char) {
        let (x, y) = (usize::from(self.cursor.0), usize::from(self.cursor.1));
        let row = &mut self.grid[y];
        let mut at = x.checked_sub(1);
        if at.is_some_and(|a| row[a].is_none()) {
            at = at.and_then(|a| a.checked_sub(1));
        }
        if let Some(cell) = at.and_then(|a| row[a].as_mut()) {
            cell.push(c);
        }
    }

    fn print(&mut self, c: char) {
        if std::mem::take(&mut self.joined) || cols(c) == 0 {
            self.attach(c);
            self.joined = c == ZWJ;
            return;
        }
        let w = cols(c);
        let (x, y) = (usize::from(self.cursor.0), usize::from(self.cursor.1));
        let width = usize::from(self.size.width);
        if x + w > width {
            return;
        }
        let row = &mut self.grid[y];
        // Writing over half of a wide character blanks its other half.
        if row[x].is_none() && x > 0 {
            row[x - 1] = Some(" ".to_owned());
        }
        if x + w < width && row[x + w].is_none() {
            row[x + w] = Some(" ".to_owned());
        }
        row[x] = Some(c.to_string());
        for k in 1..w {
            row[x + k] = None;
        }
        self.cursor.0 += u16::try_from(w).expect("small");
    }
}

impl Backend for Vt {
    type Error = std::io::Error;

    fn draw<'a, I>(&mut self, content: I) -> std::io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        // What ratatui's crossterm backend does: a cursor move unless the cell is the one
        // right after the last cell drawn, then the symbol.
        let mut last: Option<(u16, u16)> = None;
        for (x, y, cell) in content {
            if !matches!(last, Some((lx, ly)) if x == lx + 1 && y == ly) {
                self.cursor = (x, y);
                self.joined = false;
            }
            last = Some((x, y));
            for c in cell.symbol().chars() {
                self.print(c);
            }
        }
        Ok(())
    }

    fn hide_cursor(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn show_cursor(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn get_cursor_position(&mut self) -> std::io::Result<Position> {
        Ok(Position::new(self.cursor.0, self.cursor.1))
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, p: P) -> std::io::Result<()> {
        let p = p.into();
        self.cursor = (p.x, p.y);
        Ok(())
    }

    fn clear(&mut self) -> std::io::Result<()> {
        *self = Self::new(self.size.width, self.size.height);
        Ok(())
    }

    fn clear_region(&mut self, _: ClearType) -> std::io::Result<()> {
        self.clear()
    }

    fn size(&self) -> std::io::Result<Size> {
        Ok(self.size)
    }

    fn window_size(&mut self) -> std::io::Result<WindowSize> {
        Ok(WindowSize {
            columns_rows: self.size,
            pixels: Size::default(),
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn open(file: &str) -> App {
    let files = [fixture(&format!("layout/{file}"))];
    app_harness::open_all(&files, &app_harness::mem())
}

/// The screen `app` draws on a terminal that shows nothing yet.
fn fresh(app: &mut App, w: u16, h: u16) -> Vec<String> {
    let mut t = Terminal::new(Vt::new(w, h)).expect("terminal");
    terminal::frame(&mut t, app).expect("draw");
    t.backend().screen()
}

/// The answer's source lines.
fn source_lines(app: &App) -> Vec<String> {
    let c = app.cur.as_ref().expect("a record");
    c.record.output.lines().map(str::to_owned).collect()
}

#[test]
fn redrawing_devanagari_leaves_no_stale_vowel_sign() {
    let mut app = open("val-hi-7.jsonl");
    let (w, h) = (120, 40);
    let mut t = Terminal::new(Vt::new(w, h)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    // Each step redraws only what changed; the screen must be what a full draw shows.
    // In arbitration `next_span` moves to the next cluster.
    let steps = [
        Action::Arbitrate,
        Action::NextSpan,
        Action::NextSpan,
        Action::Arbitrate,
        Action::NextSpan,
        Action::NextSpan,
    ];
    for (k, a) in steps.into_iter().enumerate() {
        app.update(a);
        finish(&mut app);
        terminal::frame(&mut t, &mut app).expect("draw");
        let drawn = t.backend().screen();
        let want = fresh(&mut app, w, h);
        for (y, (got, want)) in drawn.iter().zip(&want).enumerate() {
            assert_eq!(got, want, "step {k}, row {y}");
        }
        let all = drawn.join("\n");
        assert!(all.contains("को पहली"), "step {k}:\n{all}");
    }
}

/// Rows `area` spans, and the `│` columns a row of it should have.
fn body_rows(area: Rect) -> std::ops::Range<usize> {
    usize::from(area.y)..usize::from(area.bottom())
}

#[test]
fn every_script_lines_up_in_a_terminal() {
    let mut app = open("scripts.jsonl");
    let (w, h) = (120, 30);
    let mut t = Terminal::new(Vt::new(w, h)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let vt = t.backend();
    let out = app.layout.output;
    let ctx = app.layout.context;
    let bars = vec![
        usize::from(out.x) - 1,
        usize::from(out.right()),
        usize::from(ctx.x) - 1,
        usize::from(ctx.right()),
    ];
    for y in body_rows(out) {
        assert_eq!(vt.bars(y), bars, "row {y}: {}", vt.row(y));
    }
    // Every line of the answer is on screen whole (the terminal may leave a blank column
    // beside an emoji whose width terminals disagree on).
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let screen: Vec<String> = vt.screen().iter().map(|r| squash(r)).collect();
    for line in source_lines(&app) {
        let line = squash(&line);
        assert!(
            screen.iter().any(|r| r.contains(&line)),
            "{line:?} not on screen:\n{}",
            screen.join("\n")
        );
    }
}

#[test]
fn every_script_is_one_cell_per_cluster_in_the_test_backend() {
    let mut app = open("scripts.jsonl");
    let mut t = Terminal::new(TestBackend::new(120, 30)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let out = app.layout.output;
    let screen = format!("{}", t.backend());
    let rows: Vec<&str> = screen.lines().collect();
    // The backend prints each row between quotes, wide cells once.
    for line in source_lines(&app) {
        assert!(
            rows.iter().any(|r| r.contains(&format!("│{line} "))),
            "{line:?} not a row of:\n{screen}"
        );
    }
    let buf = t.backend().buffer();
    for y in out.y..out.bottom() {
        assert_eq!(buf[(out.right(), y)].symbol(), "│", "row {y}");
    }
    // The label ending inside `को` styles the whole cluster: it is one cell.
    let c = app.cur.as_ref().expect("record");
    let k = c.record.output.find("को").expect("in the text");
    let row = &app.layout.output_rows.rows[0];
    let cell = row.cells.iter().find(|x| x.byte == k).expect("a cell");
    assert_eq!(&c.record.output[cell.byte..cell.byte + cell.len], "को");
}

#[test]
fn val_hi_7_in_tmux_shows_its_text_and_straight_borders() {
    let dir = tempfile::tempdir().expect("tmp");
    let file: PathBuf = fixture("layout/val-hi-7.jsonl");
    let db = dir.path().join("db.sqlite");
    let cmd = format!(
        "{} review {} --db {} --reviewer e2e",
        bin(),
        shell_quote(&file),
        shell_quote(&db)
    );
    let Some(t) = Tmux::start("layout", &cmd, &env(dir.path())) else {
        return;
    };
    t.wait("val-hi-7");
    let review = t.wait_settled("the review screen", |s| {
        s.contains("को पहली") && s.contains("Spans")
    });
    t.keys(&["d"]);
    let lanes = t.wait_settled("the lanes", |s| s.contains("Cluster"));
    t.keys(&["Escape"]);
    let back = t.wait_settled("the review screen again", |s| {
        s.contains("Spans") && !s.contains("Cluster")
    });
    for (name, s) in [("review", review), ("lanes", lanes), ("back", back)] {
        assert!(s.contains("को पहली"), "{name}:\n{s}");
        assert!(!s.contains("कोी"), "{name}:\n{s}");
        // Every bordered row ends at the screen's last column, and the rows of the two
        // panes side by side have their borders at the same columns.
        let bars = |r: &str| {
            let mut col = 0;
            let mut at = Vec::new();
            for ch in r.chars() {
                if ch == '│' {
                    at.push(col);
                }
                col += cols(ch);
            }
            at
        };
        let boxed: Vec<&str> = s.lines().filter(|l| l.ends_with(['│', '┐', '┘'])).collect();
        assert!(boxed.len() > 20, "{name}:\n{s}");
        for l in &boxed {
            let w: usize = l.chars().map(cols).sum();
            assert_eq!(w, 100, "{name}: {l:?}\n{s}");
        }
        let rows: Vec<Vec<usize>> = s.lines().map(bars).collect();
        let four: Vec<&Vec<usize>> = rows.iter().filter(|b| b.len() == 4).collect();
        assert!(four.len() > 10, "{name}:\n{s}");
        for b in &four {
            assert_eq!(*b, four[0], "{name}:\n{s}");
        }
    }
}
