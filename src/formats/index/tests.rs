use super::*;
use rstest::rstest;
use std::io::Write;

fn index_of(content: &[u8]) -> (FileIndex, tempfile::NamedTempFile) {
    let mut f = tempfile::NamedTempFile::new().expect("tempfile");
    f.write_all(content).expect("write");
    (FileIndex::open(f.path()).expect("open"), f)
}

fn texts(ix: &FileIndex) -> Vec<(String, u32)> {
    (0..ix.len())
        .map(|i| {
            (
                String::from_utf8(ix.bytes(i).expect("bytes")).expect("utf8"),
                ix.entry(i).expect("entry").line,
            )
        })
        .collect()
}

#[test]
fn a_file_cut_short_after_indexing_says_it_changed() {
    let line = "{\"id\": \"東京 °C\"}\n".repeat(4);
    let (ix, f) = index_of(line.as_bytes());
    f.as_file().set_len(10).expect("truncate");
    for e in [
        ix.bytes(3).expect_err("cut short"),
        ix.for_each_in(0..4, |_, _| {}).expect_err("cut short"),
    ] {
        let msg = e.to_string();
        assert!(
            msg.contains("the file changed since it was opened"),
            "{msg}"
        );
        assert!(msg.contains(&f.path().display().to_string()), "{msg}");
        assert!(!msg.contains("failed to fill whole buffer"), "{msg}");
    }
}

/// Each record's text and line number (1-based, blank lines counted), in both layouts.
#[rstest]
#[case::lines_with_bom_crlf_and_blank_lines(
    b"\xEF\xBB\xBF{\"a\":1}\r\n\r\n  \n{\"b\":\"\xC2\xB0\"}\r\n{\"c\":3}",
    Layout::Lines,
    &[("{\"a\":1}", 1), ("{\"b\":\"°\"}", 4), ("{\"c\":3}", 5)]
)]
#[case::array_elements_with_lines(
    b"[\n {\"a\": \"x,]}\\\"\"},\n {\"b\": [1, 2]}\n]\n",
    Layout::Array,
    &[("{\"a\": \"x,]}\\\"\"}", 2), ("{\"b\": [1, 2]}", 3)]
)]
fn records_and_their_lines(
    #[case] content: &[u8],
    #[case] layout: Layout,
    #[case] want: &[(&str, u32)],
) {
    let (ix, _f) = index_of(content);
    assert_eq!(ix.layout(), layout);
    let want: Vec<(String, u32)> = want.iter().map(|&(t, l)| (t.to_owned(), l)).collect();
    assert_eq!(texts(&ix), want);
    assert!(ix.problems.is_empty());
}

#[test]
fn truncated_array_keeps_complete_elements() {
    let (ix, _f) = index_of(b"[{\"a\":1},\n{\"b\":2},\n{\"c\": \"trunc");
    assert_eq!(ix.len(), 2);
    assert_eq!(ix.problems.len(), 1);
    assert_eq!(ix.problems[0].0, 3);
}

/// A JSONL file of `n` records (BOM, CRLF, blank lines, non-ASCII) in `dir`: `records.jsonl`,
/// record `i` with id `r{i}`.
pub(super) fn records_file(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from("\u{feff}");
    for i in 0..n {
        text.push_str(&format!(
            "{{\"id\": \"r{i}\", \"output\": \"{}° ’中🙂e\u{301}\"}}\r\n",
            "é".repeat(i % 17)
        ));
        if i % 7 == 3 {
            text.push_str(" \n\n");
        }
    }
    let path = dir.join("records.jsonl");
    std::fs::write(&path, text).expect("write");
    path
}

/// [`records_file`] and a cache in `dir/cache` for files of any size.
fn cached_file(dir: &Path, n: usize) -> (PathBuf, Cache) {
    (records_file(dir, n), Cache::new(dir.join("cache"), 0))
}

/// Add `line` at the end of the file at `path` (a file that grew after it was indexed).
fn append(path: &Path, line: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("append");
    f.write_all(line).expect("write");
}

/// The index sidecars in `cache_dir`.
pub(super) fn sidecars(cache_dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache_dir)
        .map(|d| {
            d.map(|e| e.expect("entry").path())
                .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sidecar_is_written_then_used() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, cache) = cached_file(dir.path(), 200);
    let plain = FileIndex::open_with(&path, None).expect("open");
    let first = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(!first.from_cache());
    assert_eq!(sidecars(&dir.path().join("cache")).len(), 1);
    let second = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(second.from_cache());
    assert_eq!(second.entries(), plain.entries());
    assert_eq!(first.entries(), plain.entries());
    assert_eq!(
        second.bytes(199).expect("bytes"),
        plain.bytes(199).expect("bytes")
    );
    // Small files are not cached by the default size threshold.
    let strict = Cache::new(dir.path().join("cache2"), 1 << 30);
    assert!(!FileIndex::open_with(&path, Some(&strict))
        .expect("open")
        .from_cache());
    assert!(sidecars(&dir.path().join("cache2")).is_empty());
}

#[test]
fn saved_ids_are_checked_before_use() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, cache) = cached_file(dir.path(), 100);
    let id = |_: usize, b: &[u8]| {
        let v: serde_json::Value = serde_json::from_slice(b).ok()?;
        v["id"].as_str().map(str::to_owned)
    };
    let ix = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(ix.saved_ids(id).is_none());
    let ids: Vec<String> = (0..100).map(|i| format!("r{i}")).collect();
    ix.save_ids(&ids);
    let again = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert_eq!(again.saved_ids(id), Some(ids.clone()));
    // Ids that do not match the file at a sampled record are not used.
    let mut wrong = ids.clone();
    wrong[99] = "other".to_owned();
    again.save_ids(&wrong);
    assert!(again.saved_ids(id).is_none());
    // Nor are they once the file changed.
    again.save_ids(&ids);
    append(&path, b"{\"id\": \"r100\"}\n");
    let grown = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(grown.saved_ids(id).is_none());
    // Without a cache there is nothing to save or read.
    let plain = FileIndex::open_with(&path, None).expect("open");
    plain.save_ids(&ids);
    assert!(plain.saved_ids(id).is_none());
}

#[test]
fn stale_sidecar_is_rebuilt() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, cache) = cached_file(dir.path(), 100);
    FileIndex::open_with(&path, Some(&cache)).expect("open");
    // Same size, other content (a record edited in place), mtime moved on.
    let mut bytes = std::fs::read(&path).expect("read");
    let at = bytes.len() / 2;
    let nl = at
        + bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .expect("newline");
    bytes[nl] = b' ';
    bytes[nl - 1] = b'\n';
    let mtime = std::fs::metadata(&path)
        .expect("meta")
        .modified()
        .expect("mtime");
    std::fs::write(&path, &bytes).expect("rewrite");
    // Moved on by hand: a sleep would be at the mercy of the file system's timestamp grain.
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_modified(mtime + std::time::Duration::from_secs(1))
        .expect("set mtime");
    let again = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(!again.from_cache());
    assert_eq!(
        again.entries(),
        FileIndex::open_with(&path, None).expect("open").entries()
    );
    // ... and the rebuilt sidecar is used next time.
    assert!(FileIndex::open_with(&path, Some(&cache))
        .expect("open")
        .from_cache());
}

#[test]
fn a_rewrite_with_the_old_size_and_mtime_set_back_is_detected() {
    // As `cp -p`, `touch -d` or an archive's fixed dates leave it: same size, same mtime,
    // other lines in the middle (two lines swapped). Only the inode change time tells.
    let dir = tempfile::tempdir().expect("dir");
    let (path, cache) = cached_file(dir.path(), 6000);
    let first = FileIndex::open_with(&path, Some(&cache)).expect("open");
    let ids = |ix: &FileIndex| {
        (0..ix.len())
            .map(|i| ix.bytes(i).expect("bytes"))
            .collect::<Vec<_>>()
    };
    first.save_ids(&(0..6000).map(|i| format!("r{i}")).collect::<Vec<_>>());
    let mtime = std::fs::metadata(&path)
        .expect("meta")
        .modified()
        .expect("mtime");
    let text = std::fs::read_to_string(&path).expect("read");
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    // In the middle: the key's hashes of the first and last 64 KiB do not see it.
    let (a, b) = (3000, 3010);
    assert!(std::fs::metadata(&path).expect("size").len() > 256 << 10);
    assert_ne!(lines[a], lines[b]);
    lines.swap(a, b);
    let swapped: String = lines.concat();
    assert_eq!(swapped.len(), text.len());
    // The one sleep: the change time cannot be set by hand, and the kernel's is as coarse as a
    // clock tick (up to 10 ms), so a write within the same tick would leave it unchanged.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&path, &swapped).expect("rewrite");
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_modified(mtime)
        .expect("set mtime back");
    let again = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(!again.from_cache(), "the old sidecar is not trusted");
    let id = |_: usize, b: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(b).ok()?["id"]
            .as_str()
            .map(str::to_owned)
    };
    assert!(again.saved_ids(id).is_none(), "nor the old ids");
    assert_eq!(
        ids(&again),
        ids(&FileIndex::open_with(&path, None).expect("scan"))
    );
}

#[test]
fn appended_file_is_detected() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, cache) = cached_file(dir.path(), 100);
    assert_eq!(
        FileIndex::open_with(&path, Some(&cache))
            .expect("open")
            .len(),
        100
    );
    append(&path, b"{\"id\": \"new\"}\n");
    let again = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(!again.from_cache());
    assert_eq!(again.len(), 101);
    assert_eq!(again.bytes(100).expect("bytes"), b"{\"id\": \"new\"}");
}

#[test]
fn corrupted_or_foreign_sidecar_is_ignored() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, cache) = cached_file(dir.path(), 100);
    let want = FileIndex::open_with(&path, None).expect("open");
    FileIndex::open_with(&path, Some(&cache)).expect("open");
    let side = sidecars(&dir.path().join("cache")).pop().expect("sidecar");
    let good = std::fs::read(&side).expect("read");
    // A flipped byte in an entry, a truncated file, garbage: all ignored, then rebuilt.
    let mut flipped = good.clone();
    let k = flipped.len() - 20;
    flipped[k] ^= 0x40;
    for bad in [
        flipped,
        good[..good.len() / 2].to_vec(),
        b"not an index".to_vec(),
        Vec::new(),
    ] {
        std::fs::write(&side, &bad).expect("corrupt");
        let ix = FileIndex::open_with(&path, Some(&cache)).expect("open");
        assert!(!ix.from_cache());
        assert_eq!(ix.entries(), want.entries());
        assert_eq!(std::fs::read(&side).expect("rewritten"), good);
    }
    // Entries that pass the checksum but do not sit on the file's lines: a sidecar
    // re-checksummed after an edit (or written by a buggy version) is still not trusted.
    let mut shifted = good[..good.len() - 8].to_vec();
    let n = want.len();
    let first = shifted.len() - n * 16;
    for e in 0..n {
        let at = first + e * 16;
        let off = u64::from_le_bytes(shifted[at..at + 8].try_into().expect("8")) + 1;
        shifted[at..at + 8].copy_from_slice(&off.to_le_bytes());
    }
    let sum = cache::checksum_for_tests(&shifted);
    shifted.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(&side, &shifted).expect("shift");
    let ix = FileIndex::open_with(&path, Some(&cache)).expect("open");
    assert!(!ix.from_cache());
    assert_eq!(ix.entries(), want.entries());
}

#[test]
fn for_each_in_reads_blocks_in_order() {
    // Records of 1 byte to 3 MiB, so some blocks hold many records and some records are
    // larger than a block.
    let mut content = Vec::new();
    let mut want = Vec::new();
    for k in 0..40usize {
        let n = if k % 13 == 5 { 3 << 20 } else { k * 1000 };
        let rec = format!("{{\"k\":\"{}\"}}", "é".repeat(n / 2));
        content.extend_from_slice(rec.as_bytes());
        content.extend_from_slice(if k % 3 == 0 { b"\r\n\n" } else { b"\n" });
        want.push(rec);
    }
    let (ix, _f) = index_of(&content);
    let mut got = Vec::new();
    ix.for_each_in(3..37, |i, b| {
        got.push((i, String::from_utf8(b.to_vec()).expect("utf8")));
    })
    .expect("read");
    let expected: Vec<(usize, String)> = (3..37).map(|i| (i, want[i].clone())).collect();
    assert_eq!(got, expected);
    let mut none = 0;
    ix.for_each_in(40..40, |_, _| none += 1).expect("empty");
    assert_eq!(none, 0);
}

#[test]
fn large_file_split_across_threads_keeps_line_numbers() {
    let mut content = Vec::new();
    let line = format!("{{\"x\":\"{}\"}}\n", "é".repeat(500));
    let n = (3 * CHUNK) / line.len() + 10;
    for i in 0..n {
        if i % 7 == 0 {
            content.extend_from_slice(b"\n");
        }
        content.extend_from_slice(line.as_bytes());
    }
    let (ix, _f) = index_of(&content);
    assert_eq!(ix.len(), n);
    // line k (0-based record) is preceded by floor(k/7)+1 blank lines
    for k in [0usize, 1, 6, 7, n / 2, n - 1] {
        let want = u32::try_from(k + k / 7 + 1 + 1).expect("fits");
        assert_eq!(ix.entry(k).expect("entry").line, want, "record {k}");
        assert_eq!(ix.bytes(k).expect("bytes"), line.trim_end().as_bytes());
    }
}
