//! The bundled sample (the toolace records with two detectors' predictions), embedded in the
//! binary so that an installed `spanreview review` with no FILE has something to review. The
//! readers work on files (an index of lines, reads at offsets), so it is written out once into
//! the user data folder and read from there.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The sample's files, relative to its folder, and their bytes (1 MB in all).
pub const FILES: [(&str, &[u8]); 3] = [
    (
        "toolace/test_records_reconstructed.jsonl",
        include_bytes!("../../data/toolace/test_records_reconstructed.jsonl"),
    ),
    (
        "toolace/ensemble/predictions_combined.jsonl",
        include_bytes!("../../data/toolace/ensemble/predictions_combined.jsonl"),
    ),
    (
        "toolace/modernbert_ft/predictions_combined.jsonl",
        include_bytes!("../../data/toolace/modernbert_ft/predictions_combined.jsonl"),
    ),
];

/// Where the sample is written: `sample/` in the user data folder
/// (`~/.local/share/spanreview/sample` on Linux, beside the default database).
#[must_use]
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "spanreview").map(|d| d.data_dir().join("sample"))
}

/// The sample's files in the user data folder, written there first when missing or different.
///
/// # Errors
/// No user data folder (no home), or it cannot be written.
pub fn files() -> anyhow::Result<Vec<PathBuf>> {
    let dir = default_dir().context(
        "no user data folder to write the bundled sample into (is HOME set?); name the files \
         to read",
    )?;
    write_to(&dir)
}

/// The sample's files in `dir`, each written (through a temporary file renamed into place, so
/// that two processes starting at once never read half a file) unless it holds the embedded
/// bytes already.
///
/// # Errors
/// A folder or file cannot be made or written; the message names it.
pub fn write_to(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut paths = Vec::with_capacity(FILES.len());
    for (rel, bytes) in FILES {
        let path = dir.join(rel);
        if std::fs::read(&path).ok().as_deref() != Some(bytes) {
            write_file(&path, bytes)
                .with_context(|| format!("writing the bundled sample to {}", path.display()))?;
        }
        paths.push(path);
    }
    Ok(paths)
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let tmp = tmp_name(path);
    let mut f = std::fs::File::create(&tmp)?;
    // Whatever fails after the temporary file exists (a full disk, the rename) removes it.
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .and_then(|()| {
            drop(f);
            std::fs::rename(&tmp, path)
        })
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// The temporary name [`write_file`] writes `path` under in this process.
fn tmp_name(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(
        ".{}.{}.tmp",
        name.unwrap_or_default(),
        std::process::id()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_written_once_and_repaired_when_changed() {
        let dir = tempfile::tempdir().expect("tmp");
        let paths = write_to(dir.path()).expect("written");
        assert_eq!(paths.len(), FILES.len());
        for (p, (_, bytes)) in paths.iter().zip(FILES) {
            assert_eq!(std::fs::read(p).expect("read"), bytes, "{}", p.display());
        }
        // A file edited or cut short is put back; the records file opens as the sample.
        std::fs::write(&paths[0], b"{}\n").expect("write");
        let again = write_to(dir.path()).expect("written");
        assert_eq!(std::fs::read(&again[0]).expect("read"), FILES[0].1);
        let ds = crate::formats::Dataset::open(&again, None).expect("opens");
        assert_eq!(ds.len(), 175);
        assert_eq!(ds.name, "test_records_reconstructed");
    }

    /// A write that fails (the disk full: the temporary name is a link to `/dev/full`) names
    /// the file and leaves no temporary file behind.
    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join(FILES[0].0);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let tmp = tmp_name(&path);
        std::os::unix::fs::symlink("/dev/full", &tmp).expect("link");
        let err = write_to(dir.path()).expect_err("the disk is full");
        assert!(
            format!("{err:#}").contains(&path.display().to_string()),
            "{err:#}"
        );
        assert!(
            std::fs::symlink_metadata(&tmp).is_err(),
            "left {}",
            tmp.display()
        );
        assert!(!path.exists());
    }
}
