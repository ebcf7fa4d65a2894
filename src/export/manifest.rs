//! The export's manifest, `.<out>.manifest.json` beside `--out`: which files one export wrote,
//! as a set (a hidden file, so that globs of the outputs do not take it for one).
//!
//! The outputs are renamed into place one by one; a SIGKILL or power loss between two renames
//! would leave the new `--out` beside the old `--verdicts`. So before the first rename the
//! manifest is written (`"state": "renaming"`) listing every file with its size and inode (a
//! rename keeps the inode), and after the last one it is rewritten as `"complete"`. A reader
//! (or the next export, which checks and reports it) can then tell which files belong to the
//! run: a file whose inode and size are those listed is that run's.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use super::ExportOptions;
use crate::model::escape::to_stderr;

/// The manifest file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Its format (1).
    pub spanreview_export: u32,
    /// `<time>/<pid>`: names the run.
    pub run: String,
    /// `renaming` while the files are put in place, `complete` once they all are.
    pub state: String,
    /// The files of the set.
    pub files: Vec<Entry>,
}

/// One file of the set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// `--out`, `--split-by file`, `--verdicts`, `--report`, `--features`,
    /// `--verdicts-features`.
    pub what: String,
    /// Its absolute path.
    pub path: PathBuf,
    /// Size in bytes.
    pub bytes: u64,
    /// Inode (kept by the rename into place).
    pub inode: u64,
    /// Modification time, nanoseconds since 1970 (kept by the rename too).
    pub mtime_ns: i128,
}

/// State while the files are being renamed.
pub const RENAMING: &str = "renaming";
/// State once every file is in place.
pub const COMPLETE: &str = "complete";

/// The manifest path for an export whose first regular output is `anchor`.
#[must_use]
pub fn path_for(anchor: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(anchor.file_name().unwrap_or_else(|| "export".as_ref()));
    name.push(".manifest.json");
    anchor.with_file_name(name)
}

impl Manifest {
    /// A new run's manifest, state [`RENAMING`].
    #[must_use]
    pub fn new(files: Vec<Entry>) -> Self {
        Self {
            spanreview_export: 1,
            run: format!("{}/{}", crate::store::now(), std::process::id()),
            state: RENAMING.to_owned(),
            files,
        }
    }

    /// Write it at `path` atomically (a temporary file synced, renamed, the folder synced).
    ///
    /// # Errors
    /// Writing fails.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let mut f = super::atomic::AtomicFile::create(path)?;
        let w = f.writer()?;
        serde_json::to_writer_pretty(&mut *w, self)?;
        w.write_all(b"\n")?;
        f.persist()?;
        sync_dir(path);
        Ok(())
    }

    /// Read the manifest at `path` (`None` when there is none or it cannot be read).
    #[must_use]
    pub fn read(path: &Path) -> Option<Self> {
        let text = std::fs::read(path).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// What a reader should know: the files not as listed (none for a complete set in place).
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let (mut new, mut old) = (Vec::new(), Vec::new());
        for e in &self.files {
            let here = std::fs::metadata(&e.path).ok();
            if here.is_some_and(|m| {
                m.ino() == e.inode && m.len() == e.bytes && mtime_ns(&m) == e.mtime_ns
            }) {
                new.push(format!("{} {}", e.what, e.path.display()));
            } else {
                old.push(format!("{} {}", e.what, e.path.display()));
            }
        }
        let are = |v: &[String]| if v.len() == 1 { "is" } else { "are" };
        if self.state != COMPLETE && old.is_empty() {
            out.push(format!(
                "the export of run {} was stopped after its files were renamed into place \
                 (all of them are from that run)",
                self.run
            ));
        } else if self.state != COMPLETE {
            out.push(format!(
                "the export of run {} was stopped while its files were renamed into place: {} \
                 {} from that run; {} {} not",
                self.run,
                if new.is_empty() {
                    "none".to_owned()
                } else {
                    new.join(", ")
                },
                are(&new),
                old.join(", "),
                are(&old),
            ));
        } else if !old.is_empty() {
            out.push(format!(
                "since the export of run {}, these of its files were changed, replaced or \
                 removed: {}",
                self.run,
                old.join(", ")
            ));
        }
        out
    }
}

/// The entry for a finished temporary file `tmp` that will be renamed to `dest`.
///
/// # Errors
/// `tmp` cannot be read.
pub fn entry(what: &str, tmp: &Path, dest: &Path) -> anyhow::Result<Entry> {
    let m = std::fs::metadata(tmp).with_context(|| format!("reading {}", tmp.display()))?;
    Ok(Entry {
        what: what.to_owned(),
        path: super::dest::canonical(dest),
        bytes: m.len(),
        inode: m.ino(),
        mtime_ns: mtime_ns(&m),
    })
}

fn mtime_ns(m: &std::fs::Metadata) -> i128 {
    i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec())
}

/// Sync the folder of `path` so that its renames are on disk (best effort: not every file
/// system can).
pub fn sync_dir(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Where the manifest of this export's set goes: beside the first output that is a file
/// (`--out`, else `--verdicts`, `--report`, `--features`, `--verdicts-features`); none when
/// every output is a stream.
///
/// # Errors
/// An output is that path, or a symlink output points nowhere.
pub fn path_of(args: &ExportOptions) -> anyhow::Result<Option<PathBuf>> {
    let outs = [
        Some(&args.out),
        args.verdicts.as_ref(),
        args.report.as_ref(),
        args.features.as_ref(),
        args.verdicts_features.as_ref(),
    ];
    for (i, p) in outs.into_iter().enumerate() {
        let Some(p) = p else { continue };
        if (i == 0 && args.split_by.is_some())
            || super::dest::target(p)? != super::dest::Target::Stream
        {
            let m = path_for(p);
            for q in outs.into_iter().flatten() {
                if super::dest::canonical(q) == super::dest::canonical(&m) {
                    bail!(
                        "refusing to write {}: it is where this export's manifest goes (choose \
                         another path); nothing was written",
                        q.display()
                    );
                }
            }
            return Ok(Some(m));
        }
    }
    Ok(None)
}

/// Tell what the manifest left by the previous export at `path` says is not in place (a set
/// cut in two by a kill, a file replaced since).
pub fn check(path: &Path) {
    if let Some(m) = Manifest::read(path) {
        for p in m.problems() {
            to_stderr!(
                "warning: {}: {p} (this export writes the whole set again)",
                path.display()
            );
        }
    }
}

#[cfg(test)]
mod tests;
