//! A sidecar copy of a large JSONL file's index, so that reopening the file reads 16 bytes a
//! record instead of the whole file.
//!
//! Sidecars live in the user cache folder (`directories`; `SPANREVIEW_CACHE_DIR` overrides it,
//! `SPANREVIEW_INDEX_CACHE=off` turns the cache off), one per file, named after a hash of the
//! file's canonical path. A sidecar is keyed by that path, the device and inode, the size, the
//! modification time and a hash of the first and last 64 KiB of the file, and checksummed as a
//! whole. It is used only when all of these match, its entries are in order inside the file,
//! and a sample of them still sits on line boundaries of the file. Anything else (a changed,
//! appended or truncated file, a corrupted or foreign sidecar) and the file is indexed again and
//! the sidecar rewritten atomically: a temporary file renamed into place (not synced: a sidecar
//! torn by a crash fails its checksum). Failing to write a sidecar is not an error (the next
//! open indexes again). Writing one removes the sidecars not rewritten for 30 days.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::Entry;

/// Files smaller than this are not cached: indexing them takes a few milliseconds.
const MIN_SIZE: u64 = 16 << 20;

/// Bytes at each end of the file that the key hashes.
const ENDS: u64 = 64 << 10;

const MAGIC: &[u8; 8] = b"SRINDEX1";

const MAGIC_IDS: &[u8; 8] = b"SRIDS001";

/// Sidecars older than this are removed when another one is written.
const KEEP: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Entries checked against the file's bytes before a sidecar is trusted.
const SAMPLES: usize = 16;

/// Where sidecars go, and from what size a file gets one.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    min_size: u64,
}

impl Cache {
    /// A cache in `dir` for files of at least `min_size` bytes.
    #[must_use]
    pub fn new(dir: PathBuf, min_size: u64) -> Self {
        Self { dir, min_size }
    }

    /// The user's cache (`SPANREVIEW_CACHE_DIR`, else the `directories` cache folder), or
    /// `None` when `SPANREVIEW_INDEX_CACHE=off` or there is no home folder.
    #[must_use]
    pub fn from_env() -> Option<Self> {
        if std::env::var_os("SPANREVIEW_INDEX_CACHE").is_some_and(|v| v == "off") {
            return None;
        }
        let dir = match std::env::var_os("SPANREVIEW_CACHE_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => directories::ProjectDirs::from("", "", "spanreview")?
                .cache_dir()
                .to_path_buf(),
        };
        Some(Self::new(dir.join("index"), MIN_SIZE))
    }

    /// Whether a file of `size` bytes gets a sidecar.
    #[must_use]
    pub fn wants(&self, size: u64) -> bool {
        size >= self.min_size
    }

    fn sidecar(&self, key: &Key) -> PathBuf {
        let name = crate::model::hex(&Sha256::digest(&key.path)[..12]);
        self.dir.join(format!("{name}.idx"))
    }

    fn ids_sidecar(&self, key: &Key) -> PathBuf {
        self.sidecar(key).with_extension("ids")
    }
}

/// What a sidecar must match: the file as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    path: Vec<u8>,
    dev: u64,
    ino: u64,
    size: u64,
    mtime: i64,
    mtime_ns: i64,
    /// Inode change time: unlike mtime it cannot be set back (`touch -d`, `cp -p`, an archive's
    /// fixed dates), so a file rewritten with the same size and mtime still gets a new key.
    ctime: i64,
    ctime_ns: i64,
    ends: [u8; 32],
}

impl Key {
    /// The key of `file`, opened from `path`.
    ///
    /// # Errors
    /// I/O errors.
    pub fn of(file: &File, path: &Path) -> std::io::Result<Self> {
        use std::os::unix::ffi::OsStrExt;
        let canonical = path.canonicalize()?;
        let m = file.metadata()?;
        let size = m.len();
        let mut h = Sha256::new();
        let mut buf = vec![0u8; usize::try_from(ENDS).unwrap_or(1 << 16)];
        for start in [0, size.saturating_sub(ENDS)] {
            let want = usize::try_from((size - start).min(ENDS)).unwrap_or(0);
            file.read_exact_at(&mut buf[..want], start)?;
            h.update(&buf[..want]);
        }
        Ok(Self {
            path: canonical.as_os_str().as_bytes().to_vec(),
            dev: m.dev(),
            ino: m.ino(),
            size,
            mtime: m.mtime(),
            mtime_ns: m.mtime_nsec(),
            ctime: m.ctime(),
            ctime_ns: m.ctime_nsec(),
            ends: h.finalize().into(),
        })
    }

    /// Size and modification time unchanged since the key was taken.
    fn still(&self, file: &File) -> bool {
        file.metadata().is_ok_and(|m| {
            m.len() == self.size
                && m.mtime() == self.mtime
                && m.mtime_nsec() == self.mtime_ns
                && m.ctime() == self.ctime
                && m.ctime_nsec() == self.ctime_ns
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        for v in [self.dev, self.ino, self.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [self.mtime, self.mtime_ns, self.ctime, self.ctime_ns] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.ends);
        out.extend_from_slice(&u64::try_from(self.path.len()).unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&self.path);
    }
}

/// A 64-bit checksum of `bytes` (multiply-rotate over 8-byte words): catches a torn or
/// corrupted sidecar, not an adversary.
fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = 0x9e37_79b9_7f4a_7c15_u64 ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(a)).wrapping_mul(K);
    }
    for &b in words.remainder() {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
    }
    h
}

#[cfg(test)]
pub(super) fn checksum_for_tests(bytes: &[u8]) -> u64 {
    checksum(bytes)
}

/// The sidecar's bytes for `entries`.
fn encode(key: &Key, entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + key.path.len() + entries.len() * 16);
    out.extend_from_slice(MAGIC);
    key.write(&mut out);
    out.extend_from_slice(&u64::try_from(entries.len()).unwrap_or(0).to_le_bytes());
    for e in entries {
        out.extend_from_slice(&e.offset.to_le_bytes());
        out.extend_from_slice(&e.len.to_le_bytes());
        out.extend_from_slice(&e.line.to_le_bytes());
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// What follows the header of a sidecar's `bytes`, when its checksum holds and its header is
/// `magic` and `key` (a sidecar of that kind made for the file as it is now).
fn after_header<'b>(bytes: &'b [u8], magic: &[u8], key: &Key) -> Option<&'b [u8]> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if checksum(body) != u64::from_le_bytes(sum.try_into().ok()?) {
        return None;
    }
    let mut want = Vec::with_capacity(128 + key.path.len());
    want.extend_from_slice(magic);
    key.write(&mut want);
    body.strip_prefix(want.as_slice())
}

/// The entries of a sidecar's bytes when they are whole and made for `key`.
fn decode(bytes: &[u8], key: &Key) -> Option<Vec<Entry>> {
    let rest = after_header(bytes, MAGIC, key)?;
    let (n, rest) = rest.split_at_checked(8)?;
    let n = usize::try_from(u64::from_le_bytes(n.try_into().ok()?)).ok()?;
    if rest.len() != n.checked_mul(16)? {
        return None;
    }
    let word = |b: &[u8], at: usize| -> Option<u32> {
        b.get(at..at + 4)
            .and_then(|s| s.try_into().ok())
            .map(u32::from_le_bytes)
    };
    rest.chunks_exact(16)
        .map(|c| {
            Some(Entry {
                offset: u64::from_le_bytes(c.get(..8)?.try_into().ok()?),
                len: word(c, 8)?,
                line: word(c, 12)?,
            })
        })
        .collect()
}

/// Entries in order, each inside the file, on increasing lines.
fn ordered(entries: &[Entry], size: u64) -> bool {
    let mut end = 0u64;
    let mut line = 0u32;
    for e in entries {
        if e.offset < end || e.len == 0 || e.line <= line {
            return false;
        }
        end = e.offset + u64::from(e.len);
        line = e.line;
    }
    end <= size
}

/// A sample of entries still starts and ends where the file's lines have content.
fn on_boundaries(entries: &[Entry], file: &File, size: u64) -> bool {
    let n = entries.len();
    let picks = (0..SAMPLES.min(n)).map(|k| {
        if SAMPLES >= n {
            k
        } else {
            k * (n - 1) / (SAMPLES - 1)
        }
    });
    let byte = |at: u64| -> Option<u8> {
        let mut b = [0u8; 1];
        file.read_exact_at(&mut b, at).ok().map(|()| b[0])
    };
    let blank = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_whitespace());
    for k in picks {
        let e = entries[k];
        let end = e.offset + u64::from(e.len);
        let first = byte(e.offset);
        let last = byte(end - 1);
        if first.is_none() || blank(first) || last.is_none() || blank(last) {
            return false;
        }
        let before_ok =
            e.offset == 0 || blank(byte(e.offset - 1)) || (e.offset == 3 && byte(0) == Some(0xEF));
        let after_ok = end == size || blank(byte(end));
        if !before_ok || !after_ok {
            return false;
        }
    }
    true
}

/// The entries saved for `file` when its sidecar is there, whole, made for the file as it is
/// now, and agrees with a sample of the file's lines.
#[must_use]
pub fn load(cache: &Cache, key: &Key, file: &File) -> Option<Vec<Entry>> {
    let bytes = std::fs::read(cache.sidecar(key)).ok()?;
    let entries = decode(&bytes, key)?;
    (ordered(&entries, key.size) && on_boundaries(&entries, file, key.size)).then_some(entries)
}

/// The `n` record ids saved for the file of `key`, when their sidecar is whole and made for
/// the file as it is now.
#[must_use]
pub fn load_ids(cache: &Cache, key: &Key, n: usize) -> Option<Vec<String>> {
    let bytes = std::fs::read(cache.ids_sidecar(key)).ok()?;
    let count = u64::try_from(n).ok()?.to_le_bytes();
    let mut rest = after_header(&bytes, MAGIC_IDS, key)?.strip_prefix(count.as_slice())?;
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let (len, r) = rest.split_at_checked(4)?;
        let len = usize::try_from(u32::from_le_bytes(len.try_into().ok()?)).ok()?;
        let (id, r) = r.split_at_checked(len)?;
        ids.push(std::str::from_utf8(id).ok()?.to_owned());
        rest = r;
    }
    rest.is_empty().then_some(ids)
}

/// Remove the ids saved for the file of `key` (and the index beside them: the file changed in
/// a way its key did not show, so neither is trusted).
pub fn remove_ids(cache: &Cache, key: &Key) {
    let _ = std::fs::remove_file(cache.ids_sidecar(key));
    let _ = std::fs::remove_file(cache.sidecar(key));
}

/// Save one id per record for the file of `key`, as [`store`] saves its entries.
pub fn store_ids(cache: &Cache, key: &Key, file: &File, ids: &[String]) {
    let mut out = Vec::with_capacity(256 + ids.iter().map(|i| i.len() + 4).sum::<usize>());
    out.extend_from_slice(MAGIC_IDS);
    key.write(&mut out);
    out.extend_from_slice(&u64::try_from(ids.len()).unwrap_or(0).to_le_bytes());
    for id in ids {
        let Ok(len) = u32::try_from(id.len()) else {
            return;
        };
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(id.as_bytes());
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    write_atomically(cache, key, file, &cache.ids_sidecar(key), &out);
}

/// Save `entries` as `file`'s sidecar (nothing when the file changed while it was indexed).
/// Errors are logged and otherwise ignored.
pub fn store(cache: &Cache, key: &Key, file: &File, entries: &[Entry]) {
    write_atomically(cache, key, file, &cache.sidecar(key), &encode(key, entries));
    prune(&cache.dir);
}

/// Write `bytes` to `dest` through a temporary file and a rename, when the file of `key` has
/// not changed. Errors are logged and otherwise ignored.
fn write_atomically(cache: &Cache, key: &Key, file: &File, dest: &Path, bytes: &[u8]) {
    if !key.still(file) {
        return;
    }
    let name = dest
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    let tmp = dest.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&cache.dir)?;
        let mut f = File::create(&tmp)?;
        // No fsync: a sidecar torn by a crash fails its checksum and is rebuilt.
        f.write_all(bytes)?;
        std::fs::rename(&tmp, dest)
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        tracing::debug!("index sidecar {} not written: {e}", dest.display());
    }
}

/// Remove sidecars not rewritten for [`KEEP`] (their files are gone, or unchanged for long:
/// those are indexed again on their next open).
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for e in entries.flatten() {
        let path = e.path();
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > KEEP);
        if old && path.extension().is_some_and(|x| x == "idx" || x == "ids") {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(offset: u64, len: u32, line: u32) -> Entry {
        Entry { offset, len, line }
    }

    #[test]
    fn ordered_rejects_overlaps_and_out_of_file() {
        let ok = [entry(0, 3, 1), entry(4, 2, 2), entry(9, 1, 5)];
        assert!(ordered(&ok, 10));
        assert!(!ordered(&ok, 9));
        assert!(!ordered(&[entry(0, 3, 1), entry(2, 2, 2)], 10));
        assert!(!ordered(&[entry(0, 3, 2), entry(4, 2, 2)], 10));
        assert!(!ordered(&[entry(0, 0, 1)], 10));
    }
}
