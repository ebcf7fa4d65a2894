//! The atomic output set: every finished [`AtomicFile`] renamed into place, all or nothing,
//! described first by the set's manifest ([`manifest`]) and marked complete after the last
//! rename, signals held meanwhile ([`cleanup::hold_signals`]).

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::atomic::{check_dest, tmp_path, AtomicFile};
use super::cleanup;
use super::manifest::{self, Manifest};

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
    // The manifest is one more file of the set: the old one is put back if a rename fails.
    let mut done: Vec<(PathBuf, Old)> = Vec::new();
    let set = describe(&files, manifest, &mut done)?;
    match rename_all(files, &mut done)? {
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
            put_back(done);
            Err(e.context("the outputs renamed before it were put back"))
        }
    }
}

/// With `manifest`, write the set's manifest (state renaming) listing the regular files of
/// `files`, the old manifest kept in `done`; the manifest and its path, to be completed.
fn describe<'a>(
    files: &[(AtomicFile, &str)],
    manifest: Option<&'a Path>,
    done: &mut Vec<(PathBuf, Old)>,
) -> anyhow::Result<Option<(&'a Path, Manifest)>> {
    let Some(path) = manifest else {
        return Ok(None);
    };
    let mut entries = Vec::new();
    for (f, what) in files {
        if let Some(tmp) = &f.tmp {
            entries.push(manifest::entry(what, tmp, &f.target)?);
        }
    }
    if entries.is_empty() {
        return Ok(None);
    }
    let m = Manifest::new(entries);
    let old = keep_old(path)?;
    m.write(path)?;
    done.push((path.to_path_buf(), old));
    Ok(Some((path, m)))
}

/// Rename each file into place in order, each regular file's destination and what was there
/// pushed onto `done`; the first rename that failed, after which nothing more is renamed.
///
/// # Errors
/// An old file could not be kept aside (returned as it is: the renames before stay).
fn rename_all(
    files: Vec<(AtomicFile, &str)>,
    done: &mut Vec<(PathBuf, Old)>,
) -> anyhow::Result<Option<anyhow::Error>> {
    for (f, _) in files {
        let dest = f.target.clone();
        let stream = f.is_stream();
        let old = if stream {
            Old::Nothing
        } else {
            keep_old(&dest)?
        };
        match f.persist() {
            Ok(()) if stream => {}
            Ok(()) => done.push((dest, old)),
            Err(e) => {
                if let Old::Kept(b) = &old {
                    let _ = std::fs::remove_file(b);
                }
                return Ok(Some(e));
            }
        }
    }
    Ok(None)
}

/// Undo the renames in `done`, last first: the old file back, or the new one removed.
fn put_back(done: Vec<(PathBuf, Old)>) {
    for (dest, old) in done.into_iter().rev() {
        let _ = match old {
            Old::Kept(b) => std::fs::rename(&b, &dest),
            Old::Nothing => std::fs::remove_file(&dest),
            Old::Replaced => Ok(()),
        };
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

#[cfg(test)]
mod tests {
    use std::io::Write;

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
