//! End-to-end runs of `spanreview review` in a real pseudo-terminal (tmux): every row of the
//! key table pressed for real, quit, reopen at the resume point; a `kill -9` that loses nothing
//! shown as saved; the terminal restored after a panic. Skipped (with a message) without tmux.
//!
//! Waits sleep on nothing: tmux pipes the pane's output into a FIFO read on a thread, and a wait
//! re-reads the screen each time output arrives (tmux parses what it reads from the pane before
//! it writes it to the pipe, so a capture after a notice sees it). Only a pane's death is still
//! polled ([`Tmux::wait_dead`] says why).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use spanreview::review::decision::ActionKind;
use spanreview::store::Store;

use super::common::fixture;

/// How long to wait for something to appear on screen: a bound for a screen that never comes,
/// not a timing. Generous, because a save that fsyncs (the rescue copy of a deleted database)
/// can stall for many seconds behind a machine busy writing gigabytes.
const DEADLINE: Duration = Duration::from_secs(60);

/// How long the pane stays quiet before a frame counts as settled ([`Tmux::wait_settled`]).
const QUIET: Duration = Duration::from_millis(50);

/// The pane's height.
const ROWS: usize = 30;

/// A tmux server of our own (its own socket), killed on drop.
pub(super) struct Tmux {
    socket: String,
    /// A notice each time the pane writes output (see the module's comment).
    output: Receiver<()>,
    /// Holds the FIFO the pane's output is piped into.
    _pipe: tempfile::TempDir,
}

impl Tmux {
    /// Start `cmd` in a detached session of a fixed size; `None` when tmux is missing.
    pub(super) fn start(name: &str, cmd: &str, env: &[(&str, String)]) -> Option<Self> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("SKIP: tmux is not installed; the end-to-end terminal tests need it");
            return None;
        }
        let pipe = tempfile::tempdir().expect("tmp");
        let fifo = pipe.path().join("output");
        let made = Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {}", fifo.display());
        let (tx, output) = mpsc::channel();
        let reader = fifo.clone();
        // Blocks until tmux opens the pipe; ends when it closes (the pane or the server ends).
        std::thread::spawn(move || {
            let Ok(mut f) = std::fs::File::open(&reader) else {
                return;
            };
            let mut buf = [0u8; 8192];
            while matches!(f.read(&mut buf), Ok(n) if n > 0) {
                if tx.send(()).is_err() {
                    return;
                }
            }
        });
        let t = Self {
            socket: format!("spanreview-{}-{name}", std::process::id()),
            output,
            _pipe: pipe,
        };
        let mut args: Vec<String> = [
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "100",
            "-y",
            &ROWS.to_string(),
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        for (k, v) in env {
            args.push("-e".into());
            args.push(format!("{k}={v}"));
        }
        args.push(cmd.to_owned());
        t.tmux(&args.iter().map(String::as_str).collect::<Vec<_>>());
        t.tmux(&["set-option", "-g", "remain-on-exit", "on"]);
        t.tmux(&["set-option", "-s", "escape-time", "0"]);
        let cat = format!("cat > {}", shell_quote(&fifo));
        t.tmux(&["pipe-pane", "-O", "-t", "t", &cat]);
        Some(t)
    }

    pub(super) fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(super) fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    /// Press keys: tmux key names (`Enter`, `Escape`, `C-r`, `Down`) or single characters.
    pub(super) fn keys(&self, keys: &[&str]) {
        for k in keys {
            if k.chars().count() == 1 {
                self.tmux(&["send-keys", "-t", "t", "-l", k]);
            } else {
                self.tmux(&["send-keys", "-t", "t", k]);
            }
        }
    }

    /// Type text literally.
    pub(super) fn text(&self, s: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", s]);
    }

    /// Wait until `check` gives a value, checking again each time the pane writes output;
    /// bounded by [`DEADLINE`] (the message names `what` and shows the screen).
    pub(super) fn until<T>(&self, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
        let start = Instant::now();
        loop {
            if let Some(v) = check() {
                return v;
            }
            let left = DEADLINE.saturating_sub(start.elapsed());
            match self.output.recv_timeout(left) {
                Ok(()) => {}
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "timed out waiting for {what}; the screen:\n{}",
                        self.screen()
                    )
                }
                // No more output will come: what is not on screen now never will be.
                Err(RecvTimeoutError::Disconnected) => {
                    return check().unwrap_or_else(|| {
                        panic!(
                            "the pane closed before {what}; the screen:\n{}",
                            self.screen()
                        )
                    })
                }
            }
        }
    }

    /// Wait until the screen contains `want`, captured after all the output tmux had read
    /// from the pane; the screen is returned.
    pub(super) fn wait(&self, want: &str) -> String {
        self.until(&format!("{want:?}"), || loop {
            let s = self.screen();
            if !s.contains(want) {
                return None;
            }
            if self.output.try_recv().is_err() {
                return Some(s);
            }
        })
    }

    /// Wait until `done` holds of the screen and the pane has then been quiet for [`QUIET`]
    /// (the frame has reached tmux whole); the screen is returned. Output meanwhile starts the
    /// check again at once: the quiet period is what "settled" means, not a poll.
    pub(super) fn wait_settled(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        self.until(what, || loop {
            let s = self.screen();
            if !done(&s) {
                return None;
            }
            match self.output.recv_timeout(QUIET) {
                Ok(()) => {}
                Err(_) => return Some(s),
            }
        })
    }

    /// Wait until `want` is on screen and the whole first frame has reached tmux: it is drawn
    /// top to bottom, so until its bottom row (the key hints) is there too.
    pub(super) fn wait_frame(&self, want: &str) -> String {
        self.until(&format!("{want:?} and the bottom row"), || {
            let s = self.screen();
            let bottom = s.trim_end_matches('\n').lines().count() >= ROWS;
            (s.contains(want) && bottom).then_some(s)
        })
    }

    /// Wait until the pane's program has exited and its terminal closed, bounded by
    /// [`DEADLINE`]. The one wait that polls (every 20 ms): tmux gives no event for it that
    /// holds everywhere. The pipe of the pane's output stays open, and the `pane-died` hook
    /// waits for the exit status, which a server started with SIGCHLD blocked never reaps (seen
    /// in the full suite: `pane_dead` 1, `pane_dead_status` empty, the hook never run).
    pub(super) fn wait_dead(&self) {
        let start = Instant::now();
        while self.pane("#{pane_dead}") != "1" {
            assert!(start.elapsed() < DEADLINE, "the process did not die");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Press keys, then wait for `want`.
    pub(super) fn press(&self, keys: &[&str], want: &str) -> String {
        self.keys(keys);
        self.wait(want)
    }

    pub(super) fn pane(&self, format: &str) -> String {
        self.tmux(&["display-message", "-p", "-t", "t", format])
            .trim()
            .to_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}

pub(super) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_spanreview")
}

fn files() -> String {
    [
        fixture("review/records.jsonl"),
        fixture("review/predictions_detector.jsonl"),
    ]
    .iter()
    .map(|p| shell_quote(p))
    .collect::<Vec<_>>()
    .join(" ")
}

pub(super) fn shell_quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "'\\''"))
}

/// Environment isolating the run from the user's config and database.
pub(super) fn env(dir: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("XDG_CONFIG_HOME", dir.join("config").display().to_string()),
        ("XDG_DATA_HOME", dir.join("data").display().to_string()),
        (
            "SPANREVIEW_DB",
            dir.join("unused.sqlite").display().to_string(),
        ),
        ("SPANREVIEW_CONFIG", String::new()),
        ("TERM", "xterm-256color".to_owned()),
        // The screen draws 24-bit colour only where the terminal says it shows it.
        ("COLORTERM", "truecolor".to_owned()),
        ("RUST_BACKTRACE", "0".to_owned()),
        (
            "SPANREVIEW_LOG",
            dir.join("review.log").display().to_string(),
        ),
    ]
}

/// `review` on the fixture, the shell reporting the exit status and the tty mode afterwards.
fn review_cmd(db: &Path, extra: &str) -> String {
    format!(
        "sh -c \"{} review {} --db {} --reviewer e2e {extra}; echo exit=\\$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; echo tty-checked; sleep 600\"",
        bin(),
        files(),
        shell_quote(db),
    )
}

fn actions(db: &Path) -> Vec<ActionKind> {
    let store = Store::open(db).expect("db opens");
    store
        .decisions(Some("records"))
        .expect("log")
        .iter()
        .map(|d| d.action)
        .collect()
}

#[test]
fn every_key_of_the_table_in_a_real_terminal_then_resume() {
    let dir = tempfile::tempdir().expect("tmp");
    let db: PathBuf = dir.path().join("e2e.sqlite");
    let Some(t) = Tmux::start("keys", &review_cmd(&db, "--queue all"), &env(dir.path())) else {
        return;
    };
    t.wait("uni_1__contradiction");
    t.wait("1 / 4");
    // ? help and back; i tools and back.
    t.press(&["?"], "accept every remaining span, next record");
    t.keys(&["Escape"]);
    t.wait("Spans (1)");
    t.press(&["i"], "Tool call made");
    t.keys(&["q"]);
    t.wait("Spans (1)");
    // t: adjust; every adjust key; Esc cancels, Enter saves.
    t.press(&["t"], "Adjust [29, 34)");
    t.press(
        &["l", "l", "h", "H", "L", "w", "b", "W", "B", "T"],
        "Adjust [29, 34) → [",
    );
    t.keys(&["Escape"]);
    t.wait("Spans (1)");
    t.press(&["t", "H", "Enter"], "saved #1 (adjust)");
    t.wait("[29, 33)");
    // r: relabel picker.
    t.press(&["r"], "Relabel");
    t.press(&["j", "Enter"], "saved #2 (relabel)");
    t.wait("missing_tool [29, 33)");
    // v: add a span by keys: start, end (by a word), label.
    t.press(&["v"], "move to the start");
    t.press(&["l", "l", "v"], "move to the end");
    t.press(&["w", "Enter"], "Label of the new span [31, 34)");
    t.press(&["Enter"], "saved #3 (add)");
    t.wait("Spans (2)");
    // j selects the added span; x drops it with a reason.
    t.press(&["j"], "▶ contradiction [31, 34)");
    t.press(&["x"], "Drop: reason");
    t.text("dup");
    t.press(&["Enter"], "saved #4 (drop)");
    t.wait("dropped: dup");
    // f flag, m note, u undo, Ctrl-r redo.
    t.press(&["f"], "saved #5 (flag)");
    t.wait("flagged");
    t.press(&["m"], "Note:");
    t.text("see °C");
    t.press(&["Enter"], "saved #6 (note)");
    t.press(&["u"], "saved #7 (undo #6)");
    t.press(&["C-r"], "saved #8 (redo #6)");
    // / search, e next occurrence.
    t.press(&["/"], "Search:");
    t.text("sunny");
    t.press(&["Enter"], "1 match of");
    t.press(&["e"], "occurrence 1 / 1");
    // n next record; j/k and the arrows move between spans; a accepts.
    t.press(&["n"], "plain_2__overgeneration");
    t.press(&["j"], "▶ overgeneration [92, 107)");
    t.press(&["k"], "▶ overgeneration [36, 91)");
    t.press(&["Down"], "▶ overgeneration [92, 107)");
    t.press(&["Up"], "▶ overgeneration [36, 91)");
    t.press(&["a"], "saved #9 (accept)");
    // A accepts the rest of a record and goes to the next.
    t.press(&["n"], "clean_3__clean");
    t.press(&["A"], "saved #10 (accept_all)");
    t.wait("tool_4__missing_tool");
    // c clean; R remove with a reason from the picker.
    t.press(&["c"], "saved #11 (clean)");
    t.press(&["R"], "Remove the record: why?");
    t.press(&["2"], "saved #12 (remove)");
    t.wait("removed (no-op edit)");
    // g / G first and last, p previous, : go to.
    t.press(&["g"], "1 / 4");
    t.press(&["G"], "4 / 4");
    t.press(&["p"], "3 / 4");
    t.press(&[":"], "Go to position or id:");
    t.text("2");
    t.press(&["Enter"], "2 / 4");
    // q quits; the terminal is back to normal.
    t.keys(&["q"]);
    let s = t.wait("tty-checked");
    assert!(s.contains("exit=0"), "{s}");
    assert!(s.contains("decisions are in"), "{s}");
    assert!(s.contains("icanon") && !s.contains("-icanon"), "{s}");
    assert_eq!(t.pane("#{alternate_on} #{mouse_any_flag}"), "0 0");
    let logged = std::fs::read_to_string(dir.path().join("review.log")).expect("log file");
    assert!(logged.contains("review opened"), "{logged}");
    assert!(
        logged.contains("decision saved id=12 action=\"remove\""),
        "{logged}"
    );
    use ActionKind::*;
    assert_eq!(
        actions(&db),
        [Adjust, Relabel, Add, Drop, Flag, Note, Undo, Redo, Accept, AcceptAll, Clean, Remove]
    );
    drop(t);
    // Reopen with the default queue: resume at the first record not yet reviewed.
    let t = Tmux::start("resume", &review_cmd(&db, ""), &env(dir.path())).expect("tmux");
    let s = t.wait("plain_2__overgeneration");
    assert!(s.contains("1 / 1"), "{s}");
    assert!(
        s.contains("3/4 reviewed") || s.contains("0/1 reviewed"),
        "{s}"
    );
    t.press(&["u"], "saved #13 (undo #12)");
    t.wait("tool_4__missing_tool");
    // Ctrl-C quits too (raw mode turns it into a key, not a signal).
    t.keys(&["C-c"]);
    let s = t.wait("tty-checked");
    assert!(s.contains("exit=0"), "{s}");
    assert_eq!(actions(&db).last(), Some(&Undo));
}

#[test]
fn kill_9_loses_nothing_shown_as_saved() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("crash.sqlite");
    let mut acknowledged = 0;
    for round in 0..3 {
        let cmd = format!(
            "{} review {} --db {} --reviewer crash --queue all",
            bin(),
            files(),
            shell_quote(&db)
        );
        let Some(t) = Tmux::start(&format!("crash{round}"), &cmd, &env(dir.path())) else {
            return;
        };
        t.wait("records");
        // Decide as fast as the screen acknowledges, then kill without warning.
        for key in ["f", "a", "n"] {
            t.keys(&[key]);
            if key != "n" {
                acknowledged += 1;
                t.wait(&format!("saved #{acknowledged} "));
            }
        }
        t.keys(&["f"]);
        acknowledged += 1;
        t.wait(&format!("saved #{acknowledged} "));
        let pid = t.pane("#{pane_pid}");
        let status = Command::new("kill")
            .args(["-9", &pid])
            .status()
            .expect("kill runs");
        assert!(status.success());
        t.wait_dead();
        let n = actions(&db).len();
        assert!(
            n >= acknowledged,
            "round {round}: {acknowledged} shown as saved, {n} in the database"
        );
        assert_eq!(n, acknowledged, "nothing unacknowledged either");
    }
}

#[test]
fn the_terminal_is_restored_after_a_panic() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("panic.sqlite");
    let cfg = dir.path().join("crash.toml");
    std::fs::write(&cfg, "[keymap.normal]\nf12 = \"crash\"\n").expect("config");
    let mut e = env(dir.path());
    e.retain(|(k, _)| *k != "SPANREVIEW_CONFIG");
    e.push(("SPANREVIEW_CONFIG", cfg.display().to_string()));
    let Some(t) = Tmux::start("panic", &review_cmd(&db, "--queue all"), &e) else {
        return;
    };
    t.wait("uni_1__contradiction");
    assert_eq!(
        t.pane("#{alternate_on}"),
        "1",
        "the screen runs in the alternate screen"
    );
    t.keys(&["F12"]);
    let s = t.wait("tty-checked");
    assert!(s.contains("exit=101"), "{s}");
    assert!(
        s.contains("crash requested"),
        "the panic message is readable: {s}"
    );
    assert!(
        s.contains("icanon") && !s.contains("-icanon"),
        "raw mode is off: {s}"
    );
    assert!(
        s.contains("echo") && !s.contains("-echo"),
        "echo is back: {s}"
    );
    assert_eq!(
        t.pane("#{alternate_on} #{mouse_any_flag}"),
        "0 0",
        "alternate screen left, mouse capture off"
    );
    let logged = std::fs::read_to_string(dir.path().join("review.log")).expect("log file");
    assert!(logged.contains("the review screen panicked"), "{logged}");
}

/// An SGR mouse report (what xterm-compatible terminals send with mouse capture on):
/// `button` 0 = left press, 32 = left drag, 64/65 = wheel up/down; 1-based cell.
fn mouse(button: u8, x: u16, y: u16, release: bool) -> String {
    format!(
        "\u{1b}[<{button};{x};{y}{}",
        if release { 'm' } else { 'M' }
    )
}

#[test]
fn mouse_click_selects_drag_adds_wheel_scrolls() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("mouse.sqlite");
    let Some(t) = Tmux::start("mouse", &review_cmd(&db, "--queue all"), &env(dir.path())) else {
        return;
    };
    t.wait("uni_1__contradiction");
    t.press(&["n"], "plain_2__overgeneration");
    let s = t.wait("▶ overgeneration [36, 91)");
    // Find "Enjoy" and "09:30" on screen (1-based cells for the terminal).
    let find = |needle: &str| -> (u16, u16) {
        for (y, line) in s.lines().enumerate() {
            if let Some(b) = line.find(needle) {
                let x = line[..b].chars().count();
                return (
                    u16::try_from(x + 1).expect("small"),
                    u16::try_from(y + 1).expect("small"),
                );
            }
        }
        panic!("{needle:?} not on screen:\n{s}");
    };
    let (ex, ey) = find("Enjoy");
    t.text(&mouse(0, ex + 1, ey, false));
    t.text(&mouse(0, ex + 1, ey, true));
    t.wait("▶ overgeneration [92, 107)");
    let (tx, ty) = find("09:30.");
    t.text(&mouse(0, tx, ty, false));
    t.text(&mouse(32, tx + 2, ty, false));
    t.text(&mouse(32, tx + 4, ty, false));
    t.text(&mouse(0, tx + 4, ty, true));
    t.wait("Label of the new span [29, 34)");
    t.press(&["3"], "saved #1 (add)");
    // The wheel over the context scrolls it (the first lines leave the pane).
    let (cx, cy) = find("\"content\"");
    for _ in 0..3 {
        t.text(&mouse(65, cx, cy, false));
    }
    t.until("the context to scroll", || {
        (!t.screen().contains("\"content\": {")).then_some(())
    });
    t.keys(&["q"]);
    t.wait("tty-checked");
    let store = Store::open(&db).expect("db");
    let log = store.decisions(Some("records")).expect("log");
    assert_eq!(log.len(), 1);
    let after = log[0].after.clone().expect("after");
    assert_eq!(
        (after.start, after.end, after.label.as_str()),
        (29, 34, "overgeneration")
    );
}

#[test]
fn colours_by_default_none_with_no_color() {
    let dir = tempfile::tempdir().expect("tmp");
    for (no_color, name) in [(false, "colour"), (true, "nocolour")] {
        let db = dir.path().join(format!("{name}.sqlite"));
        let mut e = env(dir.path());
        if no_color {
            e.push(("NO_COLOR", "1".to_owned()));
        }
        let Some(t) = Tmux::start(name, &review_cmd(&db, "--queue all"), &e) else {
            return;
        };
        t.wait("uni_1__contradiction");
        // The header can be on screen before the rest of the frame has reached tmux: capture
        // until the spans are drawn (their colour, or reverse video without colours), bounded.
        let drawn = |s: &str| {
            if no_color {
                s.contains("\u{1b}[7m") || s.contains(";7m")
            } else {
                s.contains("48;2;213;94;0")
            }
        };
        let styled = t.until("the spans drawn", || {
            let s = t.tmux(&["capture-pane", "-p", "-e", "-t", "t"]);
            drawn(&s).then_some(s)
        });
        // The contradiction span's vermillion background (Okabe-Ito #D55E00).
        let vermillion = styled.contains("48;2;213;94;0");
        let any_rgb = styled.contains("38;2;") || styled.contains("48;2;");
        if no_color {
            assert!(!any_rgb, "NO_COLOR draws without colours:\n{styled}");
            assert!(
                styled.contains("\u{1b}[7m") || styled.contains(";7m"),
                "reverse video marks spans"
            );
        } else {
            assert!(
                vermillion,
                "the span is drawn in its label's colour:\n{styled}"
            );
        }
        t.keys(&["q"]);
        t.wait("tty-checked");
    }
}

#[test]
fn dataset_flag_names_the_decisions_dataset() {
    // Two files with one stem (train/records.jsonl, test/records.jsonl) would share their
    // decisions: --dataset keeps them apart, as it does for export and stats.
    let dir = tempfile::tempdir().expect("tmp");
    let db: PathBuf = dir.path().join("named.sqlite");
    let Some(t) = Tmux::start(
        "dataset",
        &review_cmd(&db, "--queue all --dataset split_a"),
        &env(dir.path()),
    ) else {
        return;
    };
    t.wait("split_a · 1 / 4");
    t.press(&["a"], "saved #1 (accept)");
    t.keys(&["q"]);
    let s = t.wait("tty-checked");
    assert!(s.contains("exit=0"), "{s}");
    let store = Store::open(&db).expect("db opens");
    assert_eq!(store.decisions(Some("split_a")).expect("log").len(), 1);
    assert!(actions(&db).is_empty(), "nothing under the stem's name");
}
