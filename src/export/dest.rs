//! What an output path is: a regular file (written beside it and renamed over it), or a
//! stream (standard output, a FIFO, a device) written in place, never replaced.

use std::fs::File;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::ExportOptions;

/// Where an output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A regular file, or none yet, at this path (symlinks resolved: the link is kept and its
    /// target replaced).
    Replace(PathBuf),
    /// Not a regular file (`-`, `/dev/stdout`, a FIFO, a character device): written as a
    /// stream as the export goes, never renamed over.
    Stream,
}

/// What `path` is as an output. `-` is standard output.
///
/// # Errors
/// A symlink that points nowhere (refused rather than replaced by a file).
pub fn target(path: &Path) -> anyhow::Result<Target> {
    if path.as_os_str() == "-" || std_fd(path).is_some() {
        return Ok(Target::Stream);
    }
    let Ok(lmeta) = std::fs::symlink_metadata(path) else {
        return Ok(Target::Replace(path.to_path_buf()));
    };
    if lmeta.file_type().is_symlink() {
        if through_fd_links(path) {
            return Ok(Target::Stream);
        }
        let Ok(meta) = std::fs::metadata(path) else {
            bail!(
                "refusing to write {}: it is a symbolic link to {} which does not exist (write \
                 to the target's path, or remove the link); nothing was written",
                path.display(),
                std::fs::read_link(path).map_or_else(|_| "?".into(), |t| t.display().to_string())
            );
        };
        if meta.is_file() {
            let real = path
                .canonicalize()
                .with_context(|| format!("resolving {}", path.display()))?;
            return Ok(Target::Replace(real));
        }
        return Ok(if meta.is_dir() {
            Target::Replace(path.to_path_buf())
        } else {
            Target::Stream
        });
    }
    Ok(if lmeta.is_file() || lmeta.is_dir() {
        Target::Replace(path.to_path_buf())
    } else {
        Target::Stream
    })
}

/// `path` as an error names it: `-` is standard output (a full disk names no file).
#[must_use]
pub fn shown(path: &Path) -> std::borrow::Cow<'_, str> {
    if path.as_os_str() == "-" {
        "standard output (-)".into()
    } else {
        path.to_string_lossy()
    }
}

/// Standard output (1) or error (2) for `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1` and the
/// like: written through a duplicate of the descriptor, so its offset (`>>`) is shared.
fn std_fd(path: &Path) -> Option<u8> {
    match path.to_str()? {
        "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => Some(1),
        "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => Some(2),
        _ => None,
    }
}

/// True when a link on the way from `path` goes through `/proc` or `/dev/fd`: a process's open
/// descriptor, which must be written, not replaced, whatever it is.
fn through_fd_links(path: &Path) -> bool {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        let Ok(next) = std::fs::read_link(&p) else {
            return false;
        };
        let next = match p.parent() {
            Some(dir) if next.is_relative() => dir.join(next),
            _ => next,
        };
        if next.starts_with("/proc") || next.starts_with("/dev/fd") {
            return true;
        }
        p = next;
    }
    false
}

/// Open the stream `path` for writing (standard output for `-`), nothing created or truncated.
///
/// # Errors
/// It cannot be opened (a socket, no permission).
pub fn open_stream(path: &Path) -> anyhow::Result<File> {
    let fd = if path.as_os_str() == "-" {
        Some(1)
    } else {
        std_fd(path)
    };
    let file = match fd {
        Some(1) => std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map(File::from),
        Some(_) => std::io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map(File::from),
        None => File::options().write(true).open(path),
    };
    file.with_context(|| format!("cannot write {} (opening it as a stream)", path.display()))
}

/// `" (except ...)"` naming the outputs written as streams, which got the records written so far
/// (a reader sees the export fail by its exit status); empty when there are none.
pub fn streamed_note(args: &ExportOptions) -> String {
    let mut outs: Vec<(&Path, &str)> = Vec::new();
    if args.split_by.is_none() {
        outs.push((&args.out, "--out"));
    }
    if let Some(v) = &args.verdicts {
        outs.push((v, "--verdicts"));
    }
    let streams: Vec<String> = outs
        .into_iter()
        .filter(|(p, _)| target(p).is_ok_and(|t| t == Target::Stream))
        .map(|(p, what)| format!("{what} {}", p.display()))
        .collect();
    if streams.is_empty() {
        String::new()
    } else {
        format!(
            " (except to the stream(s) {}, which got the records written so far: discard them)",
            streams.join(", ")
        )
    }
}

/// The folder of `p` (`.` for a bare name).
pub fn parent(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// `path` made absolute with symlinks resolved, also when the file does not exist yet (its
/// folder is resolved instead).
#[must_use]
pub fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (parent(path).canonicalize(), path.file_name()) {
        (Ok(d), Some(n)) => d.join(n),
        _ => path.to_path_buf(),
    }
}

/// Standard output was a pipe whose reader stopped reading (`| head`). A report (a table, a
/// log) ends quietly with its own exit code; data asked for on standard output (`--out -`)
/// ends quietly too, but with exit 2 and without a "written", since the reader did not get it
/// all. The binary prints no message for it, as Unix tools die of SIGPIPE without one.
#[derive(Debug, thiserror::Error)]
#[error("standard output was closed by its reader")]
pub struct ClosedPipe;

/// True when `e` is (or was caused by) [`ClosedPipe`]: the binary exits 2 without a message.
#[must_use]
pub fn is_closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<ClosedPipe>())
}

/// `e`, an error of writing a stream output (`--out -`, a FIFO), as [`ClosedPipe`] when its
/// reader went away; database errors (a server's dropped socket) are left as they are.
pub fn closed_pipe_of(e: anyhow::Error) -> anyhow::Error {
    let broken = e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken && !e.chain().any(|c| c.is::<crate::store::StoreError>()) {
        anyhow::Error::new(ClosedPipe)
    } else {
        e
    }
}

/// A failed write to standard output as an error: [`ClosedPipe`] for a closed pipe, else the
/// error saying it was standard output (a full disk names no file).
pub(crate) fn stdout_failed(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        anyhow::Error::new(ClosedPipe)
    } else {
        anyhow::Error::new(e).context("writing to standard output")
    }
}

/// Write all of `bytes` to standard output and flush it.
///
/// # Errors
/// Standard output cannot be written.
pub(crate) fn write_all_stdout(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush())
}

/// Write data asked for on standard output (`convert --out -`): all of it, or an error, a
/// closed pipe included ([`ClosedPipe`]).
///
/// # Errors
/// Standard output cannot be written, or its reader stopped reading.
pub(crate) fn write_stdout_whole(bytes: &[u8]) -> anyhow::Result<()> {
    write_all_stdout(bytes).map_err(stdout_failed)
}

#[cfg(test)]
mod tests;
