//! The terminal: raw mode, alternate screen and mouse capture on the way in; restored on every
//! way out (normal return, error, panic). Nothing is printed to stdout while the screen runs.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseButton, MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::{backend::Backend, Terminal};

use super::app::{App, ScreenLayout};
use super::keymap::Key;
use super::{views, Action};

/// True while the screen owns the terminal; restoring is done once (leaving the alternate
/// screen twice would move the cursor back to where the screen started and overwrite the panic
/// message).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Catch SIGXFSZ, whose default kills the process when a write passes the file-size limit
/// (`ulimit -f`): the review died with the terminal in the alternate screen and mouse tracking
/// on, `export`/`apply` left temporary files. Caught, the write fails with EFBIG instead, and
/// each command handles it as a full disk (nothing acknowledged is lost, the terminal is
/// restored, temporary files are removed). Called once at start.
pub fn catch_file_size_signal() {
    use std::sync::Arc;
    let seen = Arc::new(AtomicBool::new(false));
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, seen) {
        tracing::warn!(error = %e, "SIGXFSZ is not caught: a file-size limit kills the process");
    }
}

/// Restores the terminal when dropped, so every error path (`?`) leaves it usable.
#[derive(Debug)]
pub struct Guard(());

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leave mouse capture, raw mode and the alternate screen, once.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let mut out = io::stdout();
        let _ = execute!(out, DisableMouseCapture);
        ratatui::restore();
        let _ = out.flush();
    }
}

/// Set up the terminal with `ratatui::try_init`, then replace its panic hook by one that
/// restores through [`restore`] (mouse capture included, and only once) before the panic
/// message is printed by the hook that was there before.
fn init() -> io::Result<(ratatui::DefaultTerminal, Guard)> {
    let original = std::panic::take_hook();
    ACTIVE.store(true, Ordering::SeqCst);
    let guard = Guard(());
    let terminal = ratatui::try_init()?;
    let _ratatui_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        tracing::error!(panic = %info, "the review screen panicked; terminal restored");
        original(info);
    }));
    execute!(io::stdout(), EnableMouseCapture)?;
    Ok((terminal, guard))
}

/// Map a mouse event to an action.
fn mouse_action(m: event::MouseEvent) -> Option<Action> {
    let (x, y) = (m.column, m.row);
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) => Some(Action::MouseDown(x, y)),
        MouseEventKind::Drag(MouseButton::Left) => Some(Action::MouseDrag(x, y)),
        MouseEventKind::Up(MouseButton::Left) => Some(Action::MouseUp(x, y)),
        MouseEventKind::ScrollDown => Some(Action::Scroll(x, y, 1)),
        MouseEventKind::ScrollUp => Some(Action::Scroll(x, y, -1)),
        _ => None,
    }
}

/// Draw one frame of `app` and keep its geometry for the mouse (also used by tests with
/// ratatui's `TestBackend`).
///
/// # Errors
/// The backend cannot be drawn to.
pub fn frame<B: Backend>(terminal: &mut Terminal<B>, app: &mut App) -> Result<(), B::Error> {
    let mut layout = ScreenLayout::default();
    terminal.draw(|f| layout = views::draw(f, app))?;
    app.layout = layout;
    Ok(())
}

/// Where the event loop's events come from: the terminal ([`run`]), or a test's script.
pub trait Events {
    /// The next event, waiting up to `timeout` for one; `None` when the wait ran out.
    ///
    /// # Errors
    /// The terminal cannot be read.
    fn next(&mut self, timeout: Duration) -> io::Result<Option<Event>>;
}

/// The terminal's events (crossterm).
struct TerminalEvents;

impl Events for TerminalEvents {
    fn next(&mut self, timeout: Duration) -> io::Result<Option<Event>> {
        if event::poll(timeout)? {
            event::read().map(Some)
        } else {
            Ok(None)
        }
    }
}

/// How long a pane's code colouring may take in one frame on the terminal: what is left is
/// coloured by the next frames (drawn at once unless a key comes), so a key on a file not
/// drawn yet stays well under 5 ms instead of waiting for a screenful of parsing.
pub const COLOUR_BUDGET: Duration = Duration::from_micros(1500);

/// Run the review screen until the reviewer quits.
///
/// # Errors
/// The terminal cannot be set up, read or drawn to (it is restored first).
pub fn run(app: &mut App) -> io::Result<()> {
    let (mut terminal, _guard) = init()?;
    app.config.colour_budget = Some(COLOUR_BUDGET);
    drive(&mut terminal, app, &mut TerminalEvents)
}

/// The event loop: draw, wait for an event (none while the frame left code to colour, up to
/// 20 ms while background work is left, else 1 s), hand it to the app, until the app quits.
/// The app's timed work ([`App::timed`]: retries, the team poll, following the log) is
/// checked on every turn, not only when the wait runs out, so a stream of keys or mouse moves
/// never delays it past its time.
///
/// # Errors
/// The backend cannot be drawn to, or the events cannot be read.
pub fn drive<B: Backend, E: Events>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    events: &mut E,
) -> io::Result<()> {
    loop {
        frame(terminal, app).map_err(|e| io::Error::other(e.to_string()))?;
        if app.quit {
            return Ok(());
        }
        // Code left uncoloured by the last frame is coloured by the next one, unless a key
        // comes first.
        let timeout = Duration::from_millis(if app.layout.colouring {
            0
        } else if app.busy() {
            20
        } else {
            1000
        });
        let Some(ev) = events.next(timeout)? else {
            app.idle();
            continue;
        };
        let action = match ev {
            Event::Key(k) if k.kind != KeyEventKind::Release => app
                .config
                .keymap
                .resolve(app.key_mode(), Key::from_event(k)),
            Event::Mouse(m) => mouse_action(m),
            _ => None,
        };
        if let Some(a) = action {
            app.update(a);
        }
        app.timed();
    }
}
