//! An output file written beside its destination under a temporary name and renamed into place
//! only when everything succeeded, the set of them renamed all or nothing with a manifest; or,
//! for a destination that is not a regular file (`-`, a FIFO, a device), written as a stream.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context};

use super::cleanup;
use super::dest::{self, Target};
use super::manifest::{self, Manifest};

/// A file being written under a temporary name in its destination's folder, or a stream.
/// Dropped without [`AtomicFile::persist`], the temporary file is removed: a failure leaves
/// nothing behind.
#[derive(Debug)]
pub struct AtomicFile {
    /// The destination as given (for messages).
    dest: PathBuf,
    /// Where the temporary file is renamed to (`dest` with symlinks resolved).
    target: PathBuf,
    /// The temporary file; `None` for a stream.
    tmp: Option<PathBuf>,
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
fn tmp_path(dest: &Path) -> anyhow::Result<PathBuf> {
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

/// Rename every finished file into place, all or nothing: each destination is checked first
/// ([`check_dest`]), and an existing file is kept under a hard link beside it until every
/// rename succeeded. When one fails, the files already renamed are put back (the old file
/// restored, a new one removed) and the error is returned. Streams are only flushed.
///
/// With `manifest`, the set is described there ([`Manifest`]) before the first rename and
/// marked complete after the last; signals wait until then.
///
/// # Errors
/// A destination is a folder or has no folder, or a rename fails.
pub fn persist_all(files: Vec<(AtomicFile, &str)>, manifest: Option<&Path>) -> anyhow::Result<()> {
    for (f, what) in &files {
        if !f.is_stream() {
            check_dest(f.dest(), what)?;
        }
    }
    let mut files = files;
    for (f, _) in &mut files {
        f.finish()?;
    }
    let _signals_wait = cleanup::hold_signals();
    let mut entries = Vec::new();
    if manifest.is_some() {
        for (f, what) in &files {
            if let Some(tmp) = &f.tmp {
                entries.push(manifest::entry(what, tmp, &f.target)?);
            }
        }
    }
    // The manifest is one more file of the set: the old one is put back if a rename fails.
    let mut set = None;
    let mut done: Vec<(PathBuf, Old)> = Vec::new();
    if let (Some(path), false) = (manifest, entries.is_empty()) {
        let m = Manifest::new(entries);
        let old = keep_old(path)?;
        m.write(path)?;
        done.push((path.to_path_buf(), old));
        set = Some((path, m));
    }
    let mut failed = None;
    for (f, _) in files {
        let dest = f.target.clone();
        let old = if f.is_stream() {
            Old::Nothing
        } else {
            keep_old(&dest)?
        };
        let stream = f.is_stream();
        match f.persist() {
            Ok(()) if stream => {}
            Ok(()) => done.push((dest, old)),
            Err(e) => {
                if let Old::Kept(b) = &old {
                    let _ = std::fs::remove_file(b);
                }
                failed = Some(e);
                break;
            }
        }
    }
    match failed {
        None => {
            for (dest, old) in done {
                manifest::sync_dir(&dest);
                if let Old::Kept(b) = old {
                    let _ = std::fs::remove_file(b);
                }
            }
            if let Some((path, mut m)) = set {
                m.state = manifest::COMPLETE.to_owned();
                m.write(path)
                    .context("the outputs are in place, but their manifest was not completed")?;
            }
            Ok(())
        }
        Some(e) => {
            for (dest, old) in done.into_iter().rev() {
                let _ = match old {
                    Old::Kept(b) => std::fs::rename(&b, &dest),
                    Old::Nothing => std::fs::remove_file(&dest),
                    Old::Replaced => Ok(()),
                };
            }
            Err(e.context("the outputs renamed before it were put back"))
        }
    }
}

/// Keep the file at `dest`, if any, under a hard link beside it (a temporary name, so that a
/// kill leaves nothing the next export does not remove).
fn keep_old(dest: &Path) -> anyhow::Result<Old> {
    if !dest.exists() {
        return Ok(Old::Nothing);
    }
    let mut name = tmp_path(dest)?.into_os_string();
    name.push("-old");
    let backup = PathBuf::from(name);
    // A file system without hard links: the old file cannot be kept, only replaced.
    Ok(match std::fs::hard_link(dest, &backup) {
        Ok(()) => Old::Kept(backup),
        Err(_) => Old::Replaced,
    })
}

/// What was at an output's destination before it was renamed there.
enum Old {
    /// No file.
    Nothing,
    /// A file, kept under this name (a hard link) until every output is in place.
    Kept(PathBuf),
    /// A file that could not be kept (no hard links there).
    Replaced,
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

/// The folder of `p` (`.` for a bare name).
pub fn parent(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_rename_puts_back_the_outputs_renamed_before_it() {
        let dir = std::env::temp_dir().join(format!("spanreview-persist-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let old = dir.join("vieux°.jsonl");
        std::fs::write(&old, "ancien ’contenu’\n").expect("old");
        let new = dir.join("新.jsonl");
        let mut a = AtomicFile::create(&old).expect("a");
        a.writer().expect("w").write_all(b"neu\n").expect("write");
        let mut b = AtomicFile::create(&new).expect("b");
        b.writer().expect("w").write_all(b"neu\n").expect("write");
        let mut c = AtomicFile::create(&dir.join("c.jsonl")).expect("c");
        c.writer().expect("w").write_all(b"neu\n").expect("write");
        // the third one's temporary file disappears: its rename fails after two succeeded
        std::fs::remove_file(c.tmp.as_ref().expect("tmp")).expect("rm");
        let err = persist_all(vec![(a, "--out"), (b, "--verdicts"), (c, "--report")], None)
            .expect_err("the rename fails");
        assert!(format!("{err:#}").contains("put back"), "{err:#}");
        assert_eq!(
            std::fs::read_to_string(&old).expect("old"),
            "ancien ’contenu’\n"
        );
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .expect("ls")
            .map(|e| e.expect("e").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["vieux°.jsonl"]);
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn a_set_is_described_by_its_manifest_and_marked_complete() {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().join("été.jsonl");
        std::fs::write(&out, "ancien\n").expect("old");
        let mut a = AtomicFile::create(&out).expect("a");
        a.writer().expect("w").write_all(b"neu\n").expect("write");
        let mut b = AtomicFile::create(&dir.path().join("v.jsonl")).expect("b");
        b.writer()
            .expect("w")
            .write_all(b"\xe6\x96\xb0\n")
            .expect("write");
        let path = manifest::path_for(&out);
        persist_all(vec![(a, "--out"), (b, "--verdicts")], Some(&path)).expect("persist");
        let m = Manifest::read(&path).expect("manifest");
        assert_eq!(m.state, manifest::COMPLETE);
        assert_eq!(m.files.len(), 2);
        assert_eq!(m.files[0].what, "--out");
        assert_eq!(m.files[0].bytes, 4);
        assert!(m.problems().is_empty(), "{:?}", m.problems());
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("e").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".été.jsonl.manifest.json", "v.jsonl", "été.jsonl"]);
    }
}
