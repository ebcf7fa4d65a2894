//! Opening a large JSONL file without waiting for its index: the first records are found in
//! the file's first block, the rest is indexed on background threads and handed over through a
//! channel ([`FileIndex::poll`](super::FileIndex::poll)); the finished index still goes to the
//! sidecar cache. The review screen shows its first record while this runs.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};

use super::cache::{self, Cache, Key};
use super::{
    next_line_start, open_input, scan_lines, scan_lines_each, Entry, FileIndex, FormatError,
    Layout, CHUNK,
};

/// How a file is opened lazily ([`FileIndex::open_lazy`](super::FileIndex::open_lazy)).
#[derive(Debug)]
pub struct Lazy {
    /// Files smaller than this are indexed in full at once (a few milliseconds).
    pub min_size: u64,
    /// Bytes read before the open returns: the records whose lines end in them are indexed at
    /// once (at least the first record, however long).
    pub head: u64,
    /// Bytes scanned per batch handed over (the file-order part of the background scan).
    pub batch: usize,
    /// A test hook: when set, the background indexer takes one permit before each batch it
    /// hands over, and before it says it is done ([`Gate::new`]).
    pub gate: Option<Gate>,
}

impl Default for Lazy {
    fn default() -> Self {
        Self {
            min_size: 16 << 20,
            head: 1 << 20,
            batch: CHUNK,
            gate: None,
        }
    }
}

/// Holds the background indexer before each batch until a permit is given (tests pause it
/// with this instead of sleeping). Dropping the [`Permits`] opens the gate for good.
#[derive(Debug)]
pub struct Gate(Receiver<()>);

/// The test's side of a [`Gate`].
#[derive(Debug)]
pub struct Permits(Sender<()>);

impl Gate {
    /// A closed gate and the permits that open it one batch at a time.
    #[must_use]
    pub fn new() -> (Self, Permits) {
        let (tx, rx) = mpsc::channel();
        (Self(rx), Permits(tx))
    }

    fn pass(&self) {
        // An error means the permits were dropped: the gate is open.
        let _ = self.0.recv();
    }
}

impl Permits {
    /// Let the indexer hand over `n` more batches (the last permit it takes is for "done").
    pub fn allow(&self, n: usize) {
        for _ in 0..n {
            let _ = self.0.send(());
        }
    }
}

impl FileIndex {
    /// Open `path` for the review screen: a JSONL file of `lazy.min_size` bytes or more that
    /// has no valid sidecar in `cache` returns once the records of its first `lazy.head` bytes
    /// are indexed (at least the first record); the rest is indexed on background threads and
    /// taken in by [`FileIndex::poll`], then saved to the cache as [`FileIndex::open_with`]
    /// does, and `then` runs on the complete index on the indexer's thread. Any other file is
    /// indexed in full at once (`then` does not run).
    ///
    /// # Errors
    /// I/O errors opening or reading the file's first block.
    pub fn open_lazy(
        path: &Path,
        cache: Option<&Cache>,
        lazy: Lazy,
        then: Then,
    ) -> Result<Self, FormatError> {
        let (file, streamed) = open_input(path)?;
        // Parquet: its footer is its index (read at once, the rows by row group on demand).
        let file = match Self::parquet(path, file)? {
            Ok(parquet) => return Ok(parquet),
            Err(file) => file,
        };
        let io = |e: std::io::Error| FormatError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let cache = cache.filter(|_| !streamed);
        let size = file.metadata().map_err(io)?.len();
        let mut head = vec![0u8; usize::try_from(lazy.head.clamp(8, size.max(8))).unwrap_or(8)];
        let n = file.read_at(&mut head, 0).map_err(io)?;
        let head = &head[..n];
        let bom = u64::from(head.starts_with(b"\xEF\xBB\xBF")) * 3;
        let first = head[usize::try_from(bom).unwrap_or(0)..]
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .copied();
        // An array, or a head of blanks only (an array may follow), is indexed as before.
        if size < lazy.min_size || first.is_none_or(|b| b == b'[') {
            return Self::index(path, file, cache);
        }
        let cache = cache.filter(|c| c.wants(size));
        let key = cache.and_then(|_| cache::Key::of(&file, path).ok());
        if let Some(entries) = cache
            .zip(key.as_ref())
            .and_then(|(c, k)| cache::load(c, k, &file))
        {
            return Ok(Self {
                path: path.to_path_buf(),
                file,
                layout: Layout::Lines,
                entries,
                problems: Vec::new(),
                from_cache: true,
                cached: cache.cloned().zip(key).map(Box::new),
                rest: None,
                parquet: None,
            });
        }
        // The head ends after its last whole line (or after the first line, however long).
        let end = match memchr::memrchr(b'\n', head) {
            Some(i) if (i as u64) >= bom => i as u64 + 1,
            _ => next_line_start(&file, n as u64, size).map_err(io)?,
        };
        let (entries, lines) = scan_lines(&file, bom, end).map_err(io)?;
        let cached = cache.cloned().zip(key);
        let rest = if end < size {
            let job = Job {
                path: path.to_path_buf(),
                file: file.try_clone().map_err(io)?,
                from: end,
                size,
                base_line: lines,
                head: entries.clone(),
                cached: cached.clone(),
                lazy,
                then: Some(then),
            };
            Some(std::sync::Mutex::new(start(job)))
        } else {
            if let Some((c, k)) = &cached {
                cache::store(c, k, &file, &entries);
            }
            None
        };
        Ok(Self {
            path: path.to_path_buf(),
            file,
            layout: Layout::Lines,
            entries,
            problems: Vec::new(),
            from_cache: false,
            cached: cached.map(Box::new),
            rest,
            parquet: None,
        })
    }

    /// True when every record of the file is indexed (always, but after a lazy open whose
    /// background indexing has not been taken in in full yet).
    #[must_use]
    pub fn complete(&self) -> bool {
        self.rest.is_none()
    }

    /// Take in what the background indexer of a lazy open has found, waiting up to `wait` when
    /// it has nothing new yet; the number of records added. Nothing to do once complete.
    ///
    /// # Errors
    /// The scan failed (the file changed or could not be read): the index stays as it is, with
    /// the records found so far, and counts as complete.
    pub fn poll(&mut self, wait: std::time::Duration) -> Result<usize, FormatError> {
        use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
        let Some(rest) = self.rest.as_mut() else {
            return Ok(0);
        };
        let rx = &rest
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .rx;
        let mut added = 0;
        loop {
            let msg = if added == 0 && !wait.is_zero() {
                rx.recv_timeout(wait).map_err(|e| match e {
                    RecvTimeoutError::Timeout => TryRecvError::Empty,
                    RecvTimeoutError::Disconnected => TryRecvError::Disconnected,
                })
            } else {
                rx.try_recv()
            };
            let done = match msg {
                Ok(Msg::Batch(b)) => {
                    added += b.len();
                    self.entries.extend(b);
                    continue;
                }
                Err(TryRecvError::Empty) => return Ok(added),
                Ok(Msg::Done(done)) => done,
                Err(TryRecvError::Disconnected) => {
                    Err(std::io::Error::other("the background indexer stopped"))
                }
            };
            self.rest = None;
            let tail = done.map_err(|source| FormatError::Io {
                path: self.path.clone(),
                source,
            })?;
            added += tail.len();
            self.entries.extend(tail);
            return Ok(added);
        }
    }

    /// Wait until the index is complete ([`FileIndex::poll`] until it is).
    ///
    /// # Errors
    /// As [`FileIndex::poll`].
    pub fn finish(&mut self) -> Result<(), FormatError> {
        while !self.complete() {
            self.poll(std::time::Duration::from_secs(1))?;
        }
        Ok(())
    }
}

/// What the background indexer hands over.
#[derive(Debug)]
pub(super) enum Msg {
    /// The next records in file order.
    Batch(Vec<Entry>),
    /// The records after the last batch, up to the end of the file: the index is complete (or
    /// the scan failed, the file changed under it, say).
    Done(std::io::Result<Vec<Entry>>),
}

/// Run on the complete index of a lazy open, on the indexer's thread.
pub type Then = Box<dyn FnOnce(&FileIndex) + Send>;

/// The receiving end held by a [`FileIndex`] until its index is complete.
#[derive(Debug)]
pub(super) struct Rest {
    pub(super) rx: Receiver<Msg>,
}

/// The background part of a lazy open: everything from `from` (a line start, after `base_line`
/// lines) to `size`.
pub(super) struct Job {
    pub(super) path: PathBuf,
    pub(super) file: File,
    pub(super) from: u64,
    pub(super) size: u64,
    pub(super) base_line: u32,
    pub(super) head: Vec<Entry>,
    pub(super) cached: Option<(Cache, Key)>,
    pub(super) lazy: Lazy,
    /// Run on the complete index once it is handed over (saving the ids beside it).
    pub(super) then: Option<Then>,
}

/// Start indexing `job` on a thread of its own; the index's [`Rest`].
pub(super) fn start(job: Job) -> Rest {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || run(job, &tx));
    Rest { rx }
}

fn run(job: Job, tx: &Sender<Msg>) {
    let Job {
        path,
        file,
        from,
        size,
        base_line,
        head,
        cached,
        lazy,
        then,
    } = job;
    let gate = || {
        if let Some(g) = &lazy.gate {
            g.pass();
        }
    };
    let mut all = head;
    let scanned = scan(&file, from, size, base_line, lazy.batch, |batch| {
        gate();
        all.extend_from_slice(&batch);
        tx.send(Msg::Batch(batch)).is_ok()
    });
    let tail = match scanned {
        Ok(Some(tail)) => tail,
        // The index was dropped (the review closed): nobody to hand anything to.
        Ok(None) => return,
        Err(e) => {
            gate();
            let _ = tx.send(Msg::Done(Err(e)));
            return;
        }
    };
    all.extend_from_slice(&tail);
    // Saved before the index says it is complete, so whoever sees it complete finds it saved.
    if let Some((c, k)) = &cached {
        cache::store(c, k, &file, &all);
    }
    gate();
    if tx.send(Msg::Done(Ok(tail))).is_err() {
        return;
    }
    if let (Some(then), Ok(file)) = (then, file.try_clone()) {
        let index = FileIndex {
            path,
            file,
            layout: Layout::Lines,
            entries: all,
            problems: Vec::new(),
            from_cache: false,
            cached: cached.map(Box::new),
            rest: None,
            parquet: None,
        };
        then(&index);
    }
}

/// Scan `[from, size)`: the first half in file order, handed to `emit` batch by batch (line
/// numbers counted from `base_line`), while a second thread scans the second half, returned
/// whole. `Ok(None)` when `emit` says nobody listens any more.
fn scan(
    file: &File,
    from: u64,
    size: u64,
    base_line: u32,
    batch: usize,
    mut emit: impl FnMut(Vec<Entry>) -> bool,
) -> std::io::Result<Option<Vec<Entry>>> {
    let mid = if size - from > 2 * batch as u64 {
        next_line_start(file, from + (size - from) / 2, size)?
    } else {
        size
    };
    std::thread::scope(|s| {
        let second = s.spawn(|| scan_lines_each(file, mid, size, CHUNK, |_| true));
        let mut listening = true;
        let first = scan_lines_each(file, from, mid, batch, |entries| {
            if listening && !entries.is_empty() {
                let mut b = std::mem::take(entries);
                for e in &mut b {
                    e.line += base_line;
                }
                listening = emit(b);
            }
            listening
        })?;
        let (mut tail, _) = second
            .join()
            .map_err(|_| std::io::Error::other("index thread panicked"))??;
        if !listening {
            return Ok(None);
        }
        let base = base_line + first.1;
        for e in &mut tail {
            e.line += base;
        }
        let mut rest = first.0;
        for e in &mut rest {
            e.line += base_line;
        }
        rest.extend(tail);
        Ok(Some(rest))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::super::tests::{records_file, sidecars};
    use super::super::{Cache, FileIndex};
    use super::*;

    fn gated(head: u64) -> (Lazy, Permits) {
        let (gate, permits) = Gate::new();
        let lazy = Lazy {
            min_size: 0,
            head,
            batch: 512,
            gate: Some(gate),
        };
        (lazy, permits)
    }

    #[test]
    fn the_first_records_come_at_once_the_rest_in_file_order_then_the_sidecar() {
        let dir = tempfile::tempdir().expect("dir");
        let path = records_file(dir.path(), 400);
        let full = FileIndex::open_with(&path, None).expect("scan");
        let cache = Cache::new(dir.path().join("cache"), 0);
        let (lazy, permits) = gated(600);
        let (done_tx, done_rx) = mpsc::channel();
        let then = Box::new(move |ix: &FileIndex| {
            let _ = done_tx.send((ix.len(), ix.complete(), ix.cached()));
        });
        let mut ix = FileIndex::open_lazy(&path, Some(&cache), lazy, then).expect("open");
        assert!(!ix.complete());
        let head = ix.len();
        assert!((1..20).contains(&head), "{head} records in 600 bytes");
        assert_eq!(ix.entries(), &full.entries()[..head]);
        assert_eq!(ix.bytes(0).expect("bytes"), full.bytes(0).expect("bytes"));
        // Held at the gate: nothing more.
        assert_eq!(ix.poll(Duration::ZERO).expect("poll"), 0);
        permits.allow(1);
        let added = ix.poll(Duration::from_secs(30)).expect("poll");
        assert!(added > 0 && !ix.complete());
        assert_eq!(ix.entries(), &full.entries()[..head + added]);
        assert_eq!(
            sidecars(&dir.path().join("cache")).len(),
            0,
            "not saved before done"
        );
        drop(permits);
        ix.finish().expect("finish");
        assert!(ix.complete());
        assert_eq!(ix.entries(), full.entries(), "line numbers included");
        assert_eq!(
            sidecars(&dir.path().join("cache")).len(),
            1,
            "saved once complete"
        );
        assert_eq!(
            done_rx.recv_timeout(Duration::from_secs(30)).expect("then"),
            (400, true, true)
        );
        let again = FileIndex::open_with(&path, Some(&cache)).expect("reopen");
        assert!(again.from_cache());
        assert_eq!(again.entries(), full.entries());
        // A lazy open of a file with a valid sidecar reads the sidecar: complete at once.
        let (lazy, _permits) = gated(600);
        let cached =
            FileIndex::open_lazy(&path, Some(&cache), lazy, Box::new(|_| {})).expect("open");
        assert!(cached.complete() && cached.from_cache());
        assert_eq!(cached.entries(), full.entries());
    }

    #[test]
    fn a_first_line_longer_than_the_head_is_read_whole() {
        let dir = tempfile::tempdir().expect("dir");
        let path = records_file(dir.path(), 50);
        let full = FileIndex::open_with(&path, None).expect("scan");
        let (lazy, permits) = gated(8);
        let mut ix = FileIndex::open_lazy(&path, None, lazy, Box::new(|_| {})).expect("open");
        assert_eq!(ix.entries(), &full.entries()[..1]);
        drop(permits);
        ix.finish().expect("finish");
        assert_eq!(ix.entries(), full.entries());
    }

    #[test]
    fn small_files_and_arrays_are_indexed_at_once() {
        let dir = tempfile::tempdir().expect("dir");
        let path = records_file(dir.path(), 50);
        let (gate, _permits) = Gate::new();
        let lazy = Lazy {
            gate: Some(gate),
            ..Lazy::default()
        };
        let ix = FileIndex::open_lazy(&path, None, lazy, Box::new(|_| {})).expect("open");
        assert!(ix.complete());
        assert_eq!(ix.len(), 50);
        let array = dir.path().join("a.json");
        std::fs::write(&array, "[{\"id\": \"°\"},\n{\"id\": \"b\"}]").expect("write");
        let (lazy, _permits) = gated(4);
        let ix = FileIndex::open_lazy(&array, None, lazy, Box::new(|_| {})).expect("open");
        assert!(ix.complete());
        assert_eq!(ix.len(), 2);
    }

    #[test]
    fn a_file_cut_short_while_indexing_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("dir");
        let path = records_file(dir.path(), 400);
        let (lazy, permits) = gated(600);
        let mut ix = FileIndex::open_lazy(&path, None, lazy, Box::new(|_| {})).expect("open");
        let head = ix.len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open")
            .set_len(2000)
            .expect("truncate");
        drop(permits);
        let e = ix.finish().expect_err("cut short");
        let msg = e.to_string();
        assert!(msg.contains("records.jsonl"), "{msg}");
        assert!(msg.contains("changed"), "{msg}");
        assert!(ix.complete(), "no more to wait for");
        assert!(ix.len() >= head);
    }
}
