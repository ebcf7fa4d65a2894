//! Export's temporary files are never left behind: the live ones are removed when SIGINT,
//! SIGTERM or SIGHUP arrives (then the process exits 128 + the signal's number), and those of
//! exports that died (SIGKILL, a crash, power loss) are removed by the next export writing into
//! the same folder, when no process has their PID any more. A folder export's staging folder
//! ([`super::staging`]) is removed with its contents the same way.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

use crate::model::escape::to_stderr;

/// The suffix of every temporary file an export writes (a backup kept during the renames adds
/// `-old`).
pub const SUFFIX: &str = ".spanreview-tmp";

/// Temporary files of this process that may exist.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Staging folders of this process that may exist (removed whole if a signal arrives).
static LIVE_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Held while outputs are renamed into place: a signal waits for the renames (and the set's
/// manifest) to finish rather than cutting the set in two.
static RENAMING: Mutex<()> = Mutex::new(());

/// Folders already cleared of stale temporary files by this process.
static CLEARED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Note that `path` is a temporary file of this process (removed if a signal arrives).
pub fn track(path: &Path) {
    lock(&LIVE).push(path.to_path_buf());
}

/// Note that `path` is gone or renamed.
pub fn untrack(path: &Path) {
    lock(&LIVE).retain(|p| p != path);
}

/// Note that the folder `path` is this process's staging folder (removed with everything in it
/// if a signal arrives).
pub fn track_dir(path: &Path) {
    lock(&LIVE_DIRS).push(path.to_path_buf());
}

/// Note that the staging folder `path` is gone or renamed into place.
pub fn untrack_dir(path: &Path) {
    lock(&LIVE_DIRS).retain(|p| p != path);
}

/// Hold off signals until the guard is dropped (for the renames).
pub fn hold_signals() -> MutexGuard<'static, ()> {
    lock(&RENAMING)
}

/// Handle SIGINT, SIGTERM and SIGHUP on a thread of their own: remove this process's
/// temporary files, then exit with 128 + the signal's number. Installed once.
///
/// # Errors
/// The handlers cannot be installed.
pub fn install() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(
        || match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(mut signals) => {
                std::thread::spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        let _renames_done = hold_signals();
                        for p in lock(&LIVE).drain(..) {
                            let _ = std::fs::remove_file(p);
                        }
                        for d in lock(&LIVE_DIRS).drain(..) {
                            let _ = std::fs::remove_dir_all(d);
                        }
                        // Nothing is printed: stderr may be a full pipe, or locked by the
                        // thread the signal interrupted. The exit status tells.
                        std::process::exit(128 + sig);
                    }
                });
            }
            Err(e) => result = Err(e),
        },
    );
    result.map_err(|e| anyhow::anyhow!("cannot handle signals: {e}"))
}

/// The PID in a temporary file's name (`.NAME.PID-N.spanreview-tmp`, or `-old` after it).
#[must_use]
pub fn pid_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let rest = rest
        .strip_suffix(&format!("{SUFFIX}-old"))
        .or_else(|| rest.strip_suffix(SUFFIX))?;
    let (_, tail) = rest.rsplit_once('.')?;
    let (pid, seq) = tail.split_once('-')?;
    if seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether a process with this PID exists (`None` when this system has no `/proc` to tell).
pub(super) fn alive(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return None;
    }
    Some(proc.join(pid.to_string()).exists())
}

/// Remove the temporary files in `dir` of exports whose process is gone, once per folder and
/// process, and say so on stderr. Files of running processes are left alone.
pub fn remove_stale(dir: &Path) {
    {
        let mut cleared = lock(&CLEARED);
        if !cleared
            .get_or_insert_with(HashSet::new)
            .insert(dir.to_path_buf())
        {
            return;
        }
    }
    let (n, bytes) = remove_stale_in(dir, std::process::id(), alive);
    if n > 0 {
        #[allow(clippy::cast_precision_loss)]
        let mb = bytes as f64 / 1e6;
        to_stderr!(
            "note: removed {n} temporary file(s) ({mb:.1} MB) left in {} by exports that were \
             killed",
            dir.display()
        );
    }
}

/// [`remove_stale`] with the process check given: returns how many files were removed and
/// their size.
fn remove_stale_in(dir: &Path, me: u32, alive: impl Fn(u32) -> Option<bool>) -> (usize, u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0);
    };
    let (mut n, mut bytes) = (0, 0);
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(pid_of) else {
            continue;
        };
        if pid == me || alive(pid) != Some(false) {
            continue;
        }
        let size = e.metadata().map(|m| m.len()).unwrap_or(0);
        if std::fs::remove_file(e.path()).is_ok() {
            n += 1;
            bytes += size;
        }
    }
    (n, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pids_are_read_from_temporary_names_only() {
        assert_eq!(pid_of(".out.jsonl.4242-0.spanreview-tmp"), Some(4242));
        assert_eq!(pid_of(".v°.中.jsonl.7-12.spanreview-tmp-old"), Some(7));
        for other in [
            "out.jsonl",
            ".out.jsonl.4242-0.spanreview-tmpx",
            ".out.jsonl.4242-.spanreview-tmp",
            ".out.jsonl.x-1.spanreview-tmp",
            "out.jsonl.4242-0.spanreview-tmp",
        ] {
            assert_eq!(pid_of(other), None, "{other}");
        }
    }

    #[test]
    fn only_files_of_dead_processes_are_removed() {
        let dir = tempfile::tempdir().expect("dir");
        let names = [
            ".a’.jsonl.10-0.spanreview-tmp",     // dead
            ".a’.jsonl.10-1.spanreview-tmp-old", // dead
            ".b.jsonl.11-0.spanreview-tmp",      // alive
            ".c.jsonl.12-0.spanreview-tmp",      // this process
            "keep.jsonl",
        ];
        for n in names {
            std::fs::write(dir.path().join(n), "12345").expect("write");
        }
        let (n, bytes) = remove_stale_in(dir.path(), 12, |pid| Some(pid == 11));
        assert_eq!((n, bytes), (2, 10));
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("e").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [names[2], names[3], names[4]]);
        // no /proc to tell: nothing is removed
        assert_eq!(remove_stale_in(dir.path(), 1, |_| None), (0, 0));
    }
}
