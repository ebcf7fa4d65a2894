//! An output file written beside its destination under a temporary name and renamed into place
//! only when everything succeeded (the set of them renamed all or nothing: [`super::set`]); or,
//! for a destination that is not a regular file (`-`, a FIFO, a device), written as a stream.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context};

use super::cleanup;
use super::dest::{self, parent, Target};

/// A file being written under a temporary name in its destination's folder, or a stream.
/// Dropped without [`AtomicFile::persist`], the temporary file is removed: a failure leaves
/// nothing behind.
#[derive(Debug)]
pub struct AtomicFile {
    /// The destination as given (for messages).
    dest: PathBuf,
    /// Where the temporary file is renamed to (`dest` with symlinks resolved).
    pub(super) target: PathBuf,
    /// The temporary file; `None` for a stream.
    pub(super) tmp: Option<PathBuf>,
    out: Option<BufWriter<File>>,
    done: bool,
    /// Bytes written since the last background sync started.
    unsynced: u64,
    /// A sync of what was written so far, running while writing goes on.
    syncing: Option<std::thread::JoinHandle<io::Result<()>>>,
}

/// Written bytes after which a background sync starts, so that the final sync before the
/// rename has only the tail left to write back.
const SYNC_EVERY: u64 = 128 << 20;

/// A new temporary name beside `dest`: `.<name>.<pid>-<n>.spanreview-tmp`.
pub(super) fn tmp_path(dest: &Path) -> anyhow::Result<PathBuf> {
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let name = dest
        .file_name()
        .with_context(|| format!("{}: not a file name", dest.display()))?
        .to_string_lossy();
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    Ok(parent(dest).join(format!(
        ".{name}.{}-{seq}{}",
        std::process::id(),
        cleanup::SUFFIX
    )))
}

impl AtomicFile {
    /// Start writing `dest`: a temporary file beside it (the folder's temporary files of killed
    /// exports removed first), or, when `dest` is not a regular file, the stream itself.
    ///
    /// # Errors
    /// The folder does not exist or is not writable; a stream cannot be opened.
    pub fn create(dest: &Path) -> anyhow::Result<Self> {
        let target = match dest::target(dest)? {
            Target::Stream => {
                let file = dest::open_stream(dest)?;
                return Ok(Self {
                    dest: dest.to_path_buf(),
                    target: dest.to_path_buf(),
                    tmp: None,
                    out: Some(BufWriter::with_capacity(1 << 20, file)),
                    done: false,
                    unsynced: 0,
                    syncing: None,
                });
            }
            Target::Replace(t) => t,
        };
        cleanup::remove_stale(parent(&target));
        let tmp = tmp_path(&target)?;
        // Tracked before it exists, so that a signal arriving in between still removes it.
        cleanup::track(&tmp);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .with_context(|| {
                format!(
                    "cannot write {} (creating {} in its folder)",
                    dest.display(),
                    tmp.display()
                )
            });
        let file = match file {
            Ok(f) => f,
            Err(e) => {
                cleanup::untrack(&tmp);
                return Err(e);
            }
        };
        Ok(Self {
            dest: dest.to_path_buf(),
            target,
            tmp: Some(tmp),
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            done: false,
            unsynced: 0,
            syncing: None,
        })
    }

    /// A file already written and synced at `tmp` (in a staging folder on the same file
    /// system), to be renamed to `dest` with the rest of its set ([`super::set`]).
    ///
    /// # Errors
    /// `dest` is not a regular file's path (a stream, a symlink that points nowhere).
    pub(super) fn staged(tmp: &Path, dest: &Path) -> anyhow::Result<Self> {
        let Target::Replace(target) = dest::target(dest)? else {
            bail!(
                "refusing to write {}: it is not a regular file (a FIFO, a device); nothing was \
                 written",
                dest.display()
            );
        };
        Ok(Self {
            dest: dest.to_path_buf(),
            target,
            tmp: Some(tmp.to_path_buf()),
            out: None,
            done: false,
            unsynced: 0,
            syncing: None,
        })
    }

    /// True when written as a stream (no temporary file, no rename).
    #[must_use]
    pub fn is_stream(&self) -> bool {
        self.tmp.is_none()
    }

    /// Note that `n` more bytes were written; every [`SYNC_EVERY`] bytes, start writing them
    /// back to disk on another thread (`sync_data` on a clone of the file, after a flush),
    /// unless the previous one is still running.
    ///
    /// # Errors
    /// Flushing fails, or the previous background sync failed.
    pub fn wrote(&mut self, n: u64) -> anyhow::Result<()> {
        self.unsynced += n;
        if self.is_stream()
            || self.unsynced < SYNC_EVERY
            || self.syncing.as_ref().is_some_and(|h| !h.is_finished())
        {
            return Ok(());
        }
        self.join_sync()?;
        let w = self.writer()?;
        w.flush()?;
        let f = w.get_ref().try_clone()?;
        self.syncing = Some(std::thread::spawn(move || f.sync_data()));
        self.unsynced = 0;
        Ok(())
    }

    /// Wait for the background sync, if any; its error is the file's.
    fn join_sync(&mut self) -> anyhow::Result<()> {
        if let Some(h) = self.syncing.take() {
            h.join()
                .map_err(|_| anyhow::anyhow!("internal: a sync thread panicked"))?
                .with_context(|| format!("syncing {}", self.written().display()))?;
        }
        Ok(())
    }

    /// The file being written: the temporary file, or the stream.
    #[must_use]
    pub fn written(&self) -> &Path {
        self.tmp.as_deref().unwrap_or(&self.dest)
    }

    /// Where the file goes.
    #[must_use]
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// The writer.
    ///
    /// # Errors
    /// After [`AtomicFile::finish`].
    pub fn writer(&mut self) -> io::Result<&mut BufWriter<File>> {
        self.out
            .as_mut()
            .ok_or_else(|| io::Error::other("the file was already finished"))
    }

    /// Flush and sync to disk (still under the temporary name); a stream is only flushed.
    ///
    /// # Errors
    /// Writing fails (disk full, say).
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.join_sync()?;
        if let Some(w) = self.out.take() {
            let file = w
                .into_inner()
                .map_err(io::IntoInnerError::into_error)
                .with_context(|| format!("writing {}", dest::shown(self.written())))?;
            if !self.is_stream() {
                file.sync_all()
                    .with_context(|| format!("syncing {}", self.written().display()))?;
            }
        }
        Ok(())
    }

    /// Rename into place (after [`AtomicFile::finish`]); a stream is only finished.
    ///
    /// # Errors
    /// The rename fails.
    pub fn persist(mut self) -> anyhow::Result<()> {
        self.finish()?;
        if let Some(tmp) = &self.tmp {
            std::fs::rename(tmp, &self.target).with_context(|| {
                format!("renaming {} to {}", tmp.display(), self.target.display())
            })?;
            cleanup::untrack(tmp);
        }
        self.done = true;
        Ok(())
    }
}

/// Refuse `dest` as the destination of `what` when it is a folder, or its folder does not
/// exist: checked for every output before anything is written or renamed.
///
/// # Errors
/// A message naming the path.
pub fn check_dest(dest: &Path, what: &str) -> anyhow::Result<()> {
    if dest.is_dir() {
        bail!(
            "refusing to write {what} {}: it is a folder (give a file path); nothing was written",
            dest.display()
        );
    }
    check_folder(dest, what)
}

/// Refuse `dest` as the destination of `what` when its folder does not exist.
///
/// # Errors
/// A message naming the path and the folder.
pub fn check_folder(dest: &Path, what: &str) -> anyhow::Result<()> {
    let dir = parent(dest);
    if !dir.is_dir() {
        bail!(
            "cannot write {what} {}: the folder {} does not exist; nothing was written",
            dest.display(),
            dir.display()
        );
    }
    Ok(())
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.done {
            self.out = None;
            if let Some(tmp) = &self.tmp {
                let _ = std::fs::remove_file(tmp);
                cleanup::untrack(tmp);
            }
        }
    }
}
