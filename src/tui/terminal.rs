//! The terminal: raw mode, alternate screen and mouse capture on the way in; restored on every
//! way out (normal return, error, panic). Nothing is printed to stdout while the screen runs.

use std::io::{self, Write};
use std::time::Duration;

use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseButton, MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::{backend::Backend, Terminal};

use super::app::{App, ScreenLayout};
use super::keymap::Key;
use super::{views, Action};

/// Restores the terminal when dropped, so every error path (`?`) leaves it usable.
#[derive(Debug)]
pub struct Guard(());

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leave mouse capture, raw mode and the alternate screen. Safe to call more than once.
pub fn restore() {
    let mut out = io::stdout();
    let _ = execute!(out, DisableMouseCapture);
    ratatui::restore();
    let _ = out.flush();
}

/// Install a panic hook that restores the terminal (mouse capture included) before the panic
/// message is printed. `ratatui::init` adds its own on top; both only restore.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
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

/// Run the review screen until the reviewer quits.
///
/// # Errors
/// The terminal cannot be set up, read or drawn to (it is restored first).
pub fn run(app: &mut App) -> io::Result<()> {
    install_panic_hook();
    let mut terminal = ratatui::try_init()?;
    let _guard = Guard(());
    execute!(io::stdout(), EnableMouseCapture)?;
    loop {
        frame(&mut terminal, app)?;
        if app.quit {
            return Ok(());
        }
        let timeout = Duration::from_millis(if app.queue.complete(&app.dataset) {
            1000
        } else {
            50
        });
        if !event::poll(timeout)? {
            app.idle();
            continue;
        }
        let action = match event::read()? {
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
    }
}
