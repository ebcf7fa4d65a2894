//! A folder export's staging folder, so that it writes every shard or none: the shards (and
//! the card) are exported into `.OUT.partial-PID/` beside `OUT` (the same file system), and
//! only once all of them were is the set put in place, in one step: the staging folder renamed
//! to `OUT` when there is none, else each of its files renamed over `OUT`'s, all or nothing
//! ([`persist_all`]: a failed rename puts back the ones before it, and the folders made for
//! them are removed). A failure, or SIGINT, SIGTERM, SIGHUP, removes the staging folder; one
//! left by a killed export is removed by the next folder export into the same `OUT`. Nothing
//! hidden is put inside `OUT`: the shards' manifests are removed from the staging folder first.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::atomic::AtomicFile;
use super::dest::{canonical, parent};
use super::{cleanup, persist_all};
use crate::model::escape::to_stderr;

/// The staging folder of one folder export; dropped without [`Staging::commit`], it is
/// removed with everything in it.
#[derive(Debug)]
pub struct Staging {
    /// The export's folder, absolute (symlinks resolved).
    out: PathBuf,
    /// The staging folder beside it.
    dir: PathBuf,
    /// Whether it was renamed into place.
    placed: bool,
}

/// The staging folders' names for an export into `name` start so, the PID after it.
fn staging_prefix(name: &str) -> String {
    format!(".{name}.partial-")
}

/// The staging folder's name for an export into `name` by process `pid`.
fn staging_name(name: &str, pid: u32) -> String {
    format!("{}{pid}", staging_prefix(name))
}

impl Staging {
    /// Make the staging folder beside `out` (those of killed exports into it removed first).
    ///
    /// # Errors
    /// `out` is a file or its folder does not exist, or the staging folder cannot be made.
    pub fn new(out: &Path) -> anyhow::Result<Self> {
        let abs = canonical(out);
        let Some(name) = abs.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            bail!(
                "--out {}: not a folder name (nothing was written)",
                out.display()
            );
        };
        if abs.exists() && !abs.is_dir() {
            bail!(
                "--out {} is a file: a dataset folder is exported into a folder (nothing was \
                 written)",
                out.display()
            );
        }
        let beside = parent(&abs);
        if !beside.is_dir() {
            bail!(
                "cannot write --out {}: the folder {} does not exist; nothing was written",
                out.display(),
                beside.display()
            );
        }
        remove_stale(beside, &name);
        let dir = beside.join(staging_name(&name, std::process::id()));
        cleanup::install()?;
        cleanup::track_dir(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::create_dir(&dir) {
            cleanup::untrack_dir(&dir);
            return Err(e).with_context(|| {
                format!(
                    "cannot write --out {}: creating {} beside it (nothing was written)",
                    out.display(),
                    dir.display()
                )
            });
        }
        Ok(Self {
            out: abs,
            dir,
            placed: false,
        })
    }

    /// The staging folder, where the shards are exported.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Put the staged files in place, all or nothing, after removing the files `hidden` from
    /// the staging folder (the shards' manifests): the folder renamed to `OUT` when there is
    /// none, else its files renamed over `OUT`'s.
    ///
    /// # Errors
    /// A destination is a folder, or a rename fails (`OUT` is then as it was).
    pub fn commit(mut self, hidden: &[PathBuf]) -> anyhow::Result<()> {
        for h in hidden {
            let _ = std::fs::remove_file(h);
        }
        if std::fs::symlink_metadata(&self.out).is_err() {
            let _signals_wait = cleanup::hold_signals();
            std::fs::rename(&self.dir, &self.out).with_context(|| {
                format!("renaming {} to {}", self.dir.display(), self.out.display())
            })?;
            self.placed = true;
            cleanup::untrack_dir(&self.dir);
            super::manifest::sync_dir(&self.out);
            return Ok(());
        }
        merge(&self.dir, &self.out)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.placed {
            let _ = std::fs::remove_dir_all(&self.dir);
            cleanup::untrack_dir(&self.dir);
        }
    }
}

/// Rename every file under `staged` to the same path under `out`, all or nothing; the folders
/// made in `out` for them are removed again when a rename fails.
fn merge(staged: &Path, out: &Path) -> anyhow::Result<()> {
    let mut rels = Vec::new();
    walk(staged, Path::new(""), &mut rels)?;
    rels.sort();
    let mut made = Vec::new();
    let result = place(staged, out, &rels, &mut made);
    if result.is_err() {
        for d in made.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
    result
}

/// The folders each file of `rels` needs in `out` made (each one made pushed onto `made`),
/// then every file renamed from `staged` ([`persist_all`]).
fn place(
    staged: &Path,
    out: &Path,
    rels: &[PathBuf],
    made: &mut Vec<PathBuf>,
) -> anyhow::Result<()> {
    let mut files = Vec::new();
    for rel in rels {
        let dest = out.join(rel);
        let mut folder = out.to_path_buf();
        for part in rel.parent().into_iter().flat_map(Path::components) {
            folder.push(part);
            if std::fs::symlink_metadata(&folder).is_err() {
                std::fs::create_dir(&folder)
                    .with_context(|| format!("creating {}", folder.display()))?;
                made.push(folder.clone());
            }
        }
        cleanup::remove_stale(parent(&dest));
        files.push(AtomicFile::staged(&staged.join(rel), &dest)?);
    }
    persist_all(files.into_iter().map(|f| (f, "file")).collect(), None)
}

/// The regular files under `dir` (`rel` from the staging folder), pushed onto `out`.
fn walk(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let here = dir.join(rel);
    let entries =
        std::fs::read_dir(&here).with_context(|| format!("reading {}", here.display()))?;
    for e in entries {
        let e = e.with_context(|| format!("reading {}", here.display()))?;
        let path = rel.join(e.file_name());
        if e.file_type()?.is_dir() {
            walk(dir, &path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Remove the staging folders beside `OUT` (named `name`) of folder exports whose process is
/// gone, and say so.
fn remove_stale(beside: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(beside) else {
        return;
    };
    let prefix = staging_prefix(name);
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(prefix.as_str()))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id()
            && cleanup::alive(pid) == Some(false)
            && std::fs::remove_dir_all(e.path()).is_ok()
        {
            to_stderr!(
                "note: removed {}, left by a folder export that was killed",
                e.path().display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files under `dir`, relative, sorted.
    fn tree(dir: &Path) -> Vec<String> {
        let mut rels = Vec::new();
        walk(dir, Path::new(""), &mut rels).expect("walk");
        let mut names: Vec<String> = rels.iter().map(|p| p.display().to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_new_out_is_the_staging_folder_renamed() {
        let top = tempfile::tempdir().expect("dir");
        let out = top.path().join("révisé");
        let s = Staging::new(&out).expect("staging");
        std::fs::create_dir(s.path().join("東京")).expect("sub");
        std::fs::write(s.path().join("東京/train.jsonl"), "° ’ 🙂\n").expect("write");
        std::fs::write(s.path().join("東京/.train.jsonl.manifest.json"), "{}").expect("m");
        let hidden = [s.path().join("東京/.train.jsonl.manifest.json")];
        s.commit(&hidden).expect("commit");
        assert_eq!(tree(&out), ["東京/train.jsonl"]);
        let beside: Vec<_> = std::fs::read_dir(top.path()).expect("ls").collect();
        assert_eq!(beside.len(), 1, "only OUT beside it");
    }

    #[test]
    fn a_failed_merge_leaves_an_existing_out_as_it_was() {
        let top = tempfile::tempdir().expect("dir");
        let out = top.path().join("out");
        std::fs::create_dir_all(out.join("c")).expect("out");
        std::fs::write(out.join("c/a.jsonl"), "ancien °\n").expect("old");
        // the destination of the last file is a folder: nothing is renamed
        std::fs::create_dir_all(out.join("c/z.jsonl")).expect("folder");
        let s = Staging::new(&out).expect("staging");
        std::fs::create_dir_all(s.path().join("c")).expect("sub");
        std::fs::create_dir_all(s.path().join("new")).expect("sub");
        std::fs::write(s.path().join("c/a.jsonl"), "neu ’\n").expect("a");
        std::fs::write(s.path().join("new/b.jsonl"), "新\n").expect("b");
        std::fs::write(s.path().join("c/z.jsonl"), "z\n").expect("z");
        let err = s.commit(&[]).expect_err("a folder in the way");
        assert!(format!("{err:#}").contains("z.jsonl"), "{err:#}");
        assert_eq!(
            std::fs::read_to_string(out.join("c/a.jsonl")).expect("old"),
            "ancien °\n"
        );
        assert!(!out.join("new").exists());
        assert!(out.join("c/z.jsonl").is_dir());
        let beside: Vec<_> = std::fs::read_dir(top.path()).expect("ls").collect();
        assert_eq!(beside.len(), 1, "the staging folder is gone");
    }

    #[test]
    fn stale_staging_folders_of_dead_exports_are_removed() {
        let top = tempfile::tempdir().expect("dir");
        // a PID no process has
        let dead = top.path().join(staging_name("out", u32::MAX - 1));
        std::fs::create_dir_all(dead.join("c")).expect("dead");
        let other = top.path().join(".outer.partial-1");
        std::fs::create_dir(&other).expect("other");
        remove_stale(top.path(), "out");
        assert!(!dead.exists());
        assert!(other.exists(), "another OUT's folder is left alone");
    }
}
