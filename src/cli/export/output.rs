//! Export's output files: written beside their destination under a temporary name and renamed
//! into place only when everything succeeded; one file per value with `--split-by`.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context};
use serde_json::Value;

use crate::formats::index::Layout;

/// A file being written under a temporary name in its destination's folder. Dropped without
/// [`AtomicFile::persist`], the temporary file is removed: a failure leaves nothing behind.
#[derive(Debug)]
pub struct AtomicFile {
    dest: PathBuf,
    tmp: PathBuf,
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

impl AtomicFile {
    /// Create the temporary file for `dest` (`.<name>.<pid>-<n>.spanreview-tmp` beside it).
    ///
    /// # Errors
    /// The folder does not exist or is not writable.
    pub fn create(dest: &Path) -> anyhow::Result<Self> {
        let dir = parent(dest);
        let name = dest
            .file_name()
            .with_context(|| format!("{}: not a file name", dest.display()))?
            .to_string_lossy();
        static SEQ: AtomicUsize = AtomicUsize::new(0);
        let seq = SEQ.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(
            ".{name}.{}-{seq}.spanreview-tmp",
            std::process::id()
        ));
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
            })?;
        Ok(Self {
            dest: dest.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            done: false,
            unsynced: 0,
            syncing: None,
        })
    }

    /// Note that `n` more bytes were written; every [`SYNC_EVERY`] bytes, start writing them
    /// back to disk on another thread (`sync_data` on a clone of the file, after a flush),
    /// unless the previous one is still running.
    ///
    /// # Errors
    /// Flushing fails, or the previous background sync failed.
    pub fn wrote(&mut self, n: u64) -> anyhow::Result<()> {
        self.unsynced += n;
        if self.unsynced < SYNC_EVERY || self.syncing.as_ref().is_some_and(|h| !h.is_finished()) {
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
                .with_context(|| format!("syncing {}", self.tmp.display()))?;
        }
        Ok(())
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

    /// Flush and sync to disk (still under the temporary name).
    ///
    /// # Errors
    /// Writing fails (disk full, say).
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.join_sync()?;
        if let Some(w) = self.out.take() {
            let file = w
                .into_inner()
                .map_err(io::IntoInnerError::into_error)
                .with_context(|| format!("writing {}", self.tmp.display()))?;
            file.sync_all()
                .with_context(|| format!("syncing {}", self.tmp.display()))?;
        }
        Ok(())
    }

    /// Rename into place (after [`AtomicFile::finish`]).
    ///
    /// # Errors
    /// The rename fails.
    pub fn persist(mut self) -> anyhow::Result<()> {
        self.finish()?;
        std::fs::rename(&self.tmp, &self.dest).with_context(|| {
            format!("renaming {} to {}", self.tmp.display(), self.dest.display())
        })?;
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
/// restored, a new one removed) and the error is returned.
///
/// # Errors
/// A destination is a folder or has no folder, or a rename fails.
pub fn persist_all(files: Vec<(AtomicFile, &str)>) -> anyhow::Result<()> {
    for (f, what) in &files {
        check_dest(f.dest(), what)?;
    }
    let mut files: Vec<AtomicFile> = files.into_iter().map(|(f, _)| f).collect();
    for f in &mut files {
        f.finish()?;
    }
    // (destination, what was there before) of the files renamed so far
    let mut done: Vec<(PathBuf, Old)> = Vec::new();
    let mut failed = None;
    for f in files {
        let dest = f.dest.clone();
        let old = if dest.exists() {
            let mut name = f.tmp.clone().into_os_string();
            name.push("-old");
            let backup = PathBuf::from(name);
            // A file system without hard links: the old file cannot be kept, only replaced.
            match std::fs::hard_link(&dest, &backup) {
                Ok(()) => Old::Kept(backup),
                Err(_) => Old::Replaced,
            }
        } else {
            Old::Nothing
        };
        match f.persist() {
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
            for (_, old) in done {
                if let Old::Kept(b) = old {
                    let _ = std::fs::remove_file(b);
                }
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
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

fn parent(p: &Path) -> &Path {
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

/// Files that must not be written to: the inputs, the database, and (under `--split-by`) the
/// other outputs.
#[derive(Debug, Default)]
pub struct Protected {
    paths: Vec<Guarded>,
}

/// A protected file: canonical path, file id (device, inode), and what it is ("the input
/// file", "the --verdicts file").
type Guarded = (PathBuf, Option<(u64, u64)>, String);

fn file_id(p: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

impl Protected {
    /// Protect `path`, which is `what` ("the input file", say).
    pub fn add(&mut self, path: &Path, what: &str) {
        self.paths
            .push((canonical(path), file_id(path), what.to_owned()));
    }

    /// Refuse `dest` when it is a protected file (same canonical path, or the same file under
    /// another name: a hard link).
    ///
    /// # Errors
    /// A message naming both paths.
    pub fn check(&self, dest: &Path, what: &str) -> anyhow::Result<()> {
        let c = canonical(dest);
        let id = file_id(dest);
        for (p, pid, is) in &self.paths {
            if *p == c || (id.is_some() && id == *pid) {
                bail!(
                    "refusing to write {what} {}: it is {is} {} (choose another path)",
                    dest.display(),
                    p.display()
                );
            }
        }
        Ok(())
    }
}

/// A file of records in the input's layout (JSONL, or one JSON array).
#[derive(Debug)]
pub struct RecordFile {
    file: AtomicFile,
    layout: Layout,
    count: usize,
    /// Input lines waiting to be copied: `start..end` of `source`, consecutive lines.
    run: Option<(u64, u64)>,
    /// The input file lines are copied from.
    source: Option<(PathBuf, File)>,
}

impl RecordFile {
    /// Start writing `dest`.
    ///
    /// # Errors
    /// As [`AtomicFile::create`].
    pub fn create(dest: &Path, layout: Layout) -> anyhow::Result<Self> {
        Ok(Self {
            file: AtomicFile::create(dest)?,
            layout,
            count: 0,
            run: None,
            source: None,
        })
    }

    /// Append the JSONL line at `offset..offset + len` of `source` as it is. Consecutive lines
    /// (one line end apart) are gathered and copied at once, by the kernel where it can
    /// (`std::io::copy` between files uses `copy_file_range`): no read into memory.
    ///
    /// # Errors
    /// Reading or writing fails.
    pub fn push_input(
        &mut self,
        source: &Path,
        file: &File,
        offset: u64,
        len: u32,
    ) -> anyhow::Result<()> {
        if self.layout != Layout::Lines {
            bail!("internal: input lines copied into a JSON array");
        }
        let end = offset + u64::from(len);
        let same = self.source.as_ref().is_some_and(|(p, _)| p == source);
        match &mut self.run {
            Some((_, run_end)) if same && *run_end + 1 == offset => *run_end = end,
            _ => {
                self.copy_run()?;
                if !same {
                    // The file that was indexed (its descriptor), not whatever is at its
                    // path now: a file replaced under the export must not be mixed in.
                    let f = file
                        .try_clone()
                        .with_context(|| format!("reading {}", source.display()))?;
                    self.source = Some((source.to_path_buf(), f));
                }
                self.run = Some((offset, end));
            }
        }
        self.count += 1;
        Ok(())
    }

    /// Copy the gathered input lines, and a line end.
    fn copy_run(&mut self) -> anyhow::Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let (Some((start, end)), Some((path, src))) = (self.run.take(), self.source.as_mut())
        else {
            return Ok(());
        };
        let dest = self.file.dest().to_path_buf();
        src.seek(SeekFrom::Start(start))
            .with_context(|| format!("reading {}", path.display()))?;
        let w = self.file.writer()?;
        let copied = io::copy(&mut src.take(end - start), w)
            .and_then(|n| w.write_all(b"\n").map(|()| n))
            .with_context(|| format!("copying {} into {}", path.display(), dest.display()))?;
        self.file.wrote(copied + 1)?;
        if copied != end - start {
            bail!(
                "{} changed while it was exported (it is shorter than when it was read)",
                path.display()
            );
        }
        Ok(())
    }

    /// Append one record's bytes.
    ///
    /// # Errors
    /// Writing fails.
    pub fn push(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.copy_run()?;
        let layout = self.layout;
        let first = self.count == 0;
        let dest = self.file.dest().to_path_buf();
        let w = self.file.writer()?;
        let r = match layout {
            Layout::Lines => w.write_all(bytes).and_then(|()| w.write_all(b"\n")),
            Layout::Array => w
                .write_all(if first { b"[\n  " } else { b",\n  " })
                .and_then(|()| w.write_all(bytes)),
        };
        r.with_context(|| format!("writing {}", dest.display()))?;
        self.file.wrote(bytes.len() as u64 + 4)?;
        self.count += 1;
        Ok(())
    }

    /// Close the layout, flush and sync.
    ///
    /// # Errors
    /// Writing fails.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.copy_run()?;
        if self.layout == Layout::Array {
            let tail: &[u8] = if self.count == 0 { b"[]\n" } else { b"\n]\n" };
            let dest = self.file.dest().to_path_buf();
            self.file
                .writer()?
                .write_all(tail)
                .with_context(|| format!("writing {}", dest.display()))?;
        }
        self.file.finish()
    }

    /// Where it goes.
    #[must_use]
    pub fn dest(&self) -> &Path {
        self.file.dest()
    }

    /// Records written.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The file, finished, to be renamed into place ([`persist_all`]).
    #[must_use]
    pub fn into_file(self) -> AtomicFile {
        self.file
    }
}

/// The record output: one file, or one file per value of the `--split-by` field.
#[derive(Debug)]
pub enum Records {
    /// Everything into `--out`.
    One(RecordFile),
    /// One file per value, created when the value is first met.
    Split {
        /// `--out`, whose stem and extension name the files.
        out: PathBuf,
        /// The `--split-by` field (for messages).
        field: String,
        /// Layout of the files.
        layout: Layout,
        /// Open files by value.
        files: BTreeMap<String, RecordFile>,
        /// The value each file was opened for: two values whose file names are the same
        /// (`a/b` and `a_b`) are refused, not written into one file.
        names: HashMap<PathBuf, String>,
    },
}

/// The file name part of a split value: characters other than letters, digits, `-`, `_` and
/// `.` become `_`; an empty value is `none`.
#[must_use]
pub fn file_part(value: &str) -> String {
    let s: String = value
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches('.').to_owned();
    if s.is_empty() {
        "none".to_owned()
    } else {
        s
    }
}

/// `<out-stem>.<value>.<out-extension>` beside `out`.
#[must_use]
pub fn split_path(out: &Path, value: &str) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "export".into(), |s| s.to_string_lossy());
    let name = match out.extension() {
        Some(ext) => format!("{stem}.{}.{}", file_part(value), ext.to_string_lossy()),
        None => format!("{stem}.{}", file_part(value)),
    };
    parent(out).join(name)
}

impl Records {
    /// Write one record to the file of `route` (ignored when not splitting).
    ///
    /// # Errors
    /// A file cannot be created or written.
    pub fn push(&mut self, route: &str, bytes: &[u8]) -> anyhow::Result<()> {
        match self {
            Self::One(f) => f.push(bytes),
            Self::Split {
                out,
                field,
                layout,
                files,
                names,
            } => {
                if !files.contains_key(route) {
                    let path = split_path(out, route);
                    if let Some(other) = names.get(&path) {
                        bail!(
                            "--split-by {field}: the values {other:?} and {route:?} would both be \
                             written to {} (a file name keeps only letters, digits, `-`, `_` and \
                             `.` of a value; an empty one is `none`); nothing was written. Split \
                             by another field, or make the values distinct in the input",
                            path.display()
                        );
                    }
                    let f = RecordFile::create(&path, *layout)?;
                    names.insert(path, route.to_owned());
                    files.insert(route.to_owned(), f);
                }
                match files.get_mut(route) {
                    Some(f) => f.push(bytes),
                    None => bail!("internal: no file for {route:?}"),
                }
            }
        }
    }

    /// Write the JSONL line at `offset..offset + len` of `source` as it is (not splitting).
    ///
    /// # Errors
    /// Reading or writing fails, or the output is split.
    pub fn push_input(
        &mut self,
        source: &Path,
        file: &File,
        offset: u64,
        len: u32,
    ) -> anyhow::Result<()> {
        match self {
            Self::One(f) => f.push_input(source, file, offset, len),
            Self::Split { .. } => bail!("internal: input lines copied into split files"),
        }
    }

    /// Finish every file, and return them for renaming.
    ///
    /// # Errors
    /// Writing fails.
    pub fn finish(self) -> anyhow::Result<Vec<RecordFile>> {
        let mut all = match self {
            Self::One(f) => vec![f],
            Self::Split { files, .. } => files.into_values().collect(),
        };
        for f in &mut all {
            f.finish()?;
        }
        Ok(all)
    }
}

/// The value at a dotted path (`meta.corruption_type`) as a file-name-ready string: strings as
/// they are, other values as JSON; `None` when it is missing or null (routed to `none`).
#[must_use]
pub fn route_of(value: &Value, path: &str) -> Option<String> {
    let mut v = value;
    for part in path.split('.') {
        v = v.get(part)?;
    }
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The route of a record without a value in the `--split-by` field.
pub const NO_VALUE: &str = "none";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_lines_come_from_the_file_indexed_even_when_its_path_is_replaced() {
        let dir = tempfile::tempdir().expect("dir");
        let input = dir.path().join("in.jsonl");
        let first = "{\"id\": \"a°\"}\n{\"id\": \"b中\"}\n";
        std::fs::write(&input, first).expect("write");
        let indexed = File::open(&input).expect("open");
        // `mv`, `sed -i` or a checkout replaces the path with another file of the same shape.
        let other = dir.path().join("other.jsonl");
        std::fs::write(&other, "{\"id\": \"X°\"}\n{\"id\": \"Y中\"}\n").expect("write");
        std::fs::rename(&other, &input).expect("replace");
        let out = dir.path().join("out.jsonl");
        let mut f = RecordFile::create(&out, Layout::Lines).expect("create");
        let n = u32::try_from(first.find('\n').expect("line")).expect("len");
        f.push_input(&input, &indexed, 0, n).expect("line 1");
        f.push_input(&input, &indexed, u64::from(n) + 1, n + 1)
            .expect("line 2");
        f.finish().expect("finish");
        f.file.persist().expect("persist");
        assert_eq!(std::fs::read_to_string(&out).expect("read"), first);
    }

    #[test]
    fn routes_and_split_names() {
        let v = json!({"meta": {"corruption_type": "missing_tool", "n": 3}});
        assert_eq!(
            route_of(&v, "meta.corruption_type").as_deref(),
            Some("missing_tool")
        );
        assert_eq!(route_of(&v, "meta.n").as_deref(), Some("3"));
        assert_eq!(route_of(&v, "meta.nope"), None);
        assert_eq!(
            split_path(Path::new("out/reviewed.jsonl"), "missing_tool"),
            Path::new("out/reviewed.missing_tool.jsonl")
        );
        assert_eq!(file_part("a/b c"), "a_b_c");
        assert_eq!(file_part(".."), "none");
    }

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
        std::fs::remove_file(&c.tmp).expect("rm");
        let err = persist_all(vec![(a, "--out"), (b, "--verdicts"), (c, "--report")])
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
    fn dropped_file_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("spanreview-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let dest = dir.join("x.jsonl");
        {
            let mut f = RecordFile::create(&dest, Layout::Lines).expect("create");
            f.push(b"{}").expect("push");
        }
        assert_eq!(std::fs::read_dir(&dir).expect("ls").count(), 0);
        let mut f = RecordFile::create(&dest, Layout::Array).expect("create");
        f.push(b"{}").expect("push");
        f.push(b"[1]").expect("push");
        f.finish().expect("finish");
        persist_all(vec![(f.into_file(), "--out")]).expect("persist");
        assert_eq!(
            std::fs::read_to_string(&dest).expect("read"),
            "[\n  {},\n  [1]\n]\n"
        );
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
