//! Opening an input to read it at offsets: a stream (FIFO, pipe, device) is copied first into
//! an unnamed temporary file, as it can be read only once; a file found shorter than when it was
//! opened is told as such.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::formats::FormatError;

/// What a file cut short since it was opened is told as (rather than "failed to fill whole
/// buffer"): the index no longer fits it.
pub(crate) const CHANGED: &str =
    "the file changed since it was opened (it is shorter now); run the command again";

/// The error for a file found shorter than when it was opened or indexed.
pub(crate) fn changed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, CHANGED)
}

/// `read_exact_at`, a file cut short since it was indexed told as such.
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    file.read_exact_at(buf, offset).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            changed()
        } else {
            e
        }
    })
}

/// What the start of a file says about it, before it is indexed or its format told.
pub(crate) struct Head {
    /// The file's size in bytes.
    pub size: u64,
    /// The length of its UTF-8 byte-order mark: 3, or 0 without one.
    pub bom: u64,
    /// Its first non-blank byte (in its first 4 KiB) opens a JSON array: one array of
    /// records, not JSONL.
    pub array: bool,
}

/// Read the start of `file` ([`Head`]).
pub(crate) fn head(file: &File) -> std::io::Result<Head> {
    let size = file.metadata()?.len();
    let mut buf = [0u8; 4096];
    let n = file.read_at(&mut buf, 0)?;
    let start = &buf[..n];
    let bom: u64 = if start.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let first = start[usize::from(bom == 3) * 3..]
        .iter()
        .find(|b| !b.is_ascii_whitespace());
    Ok(Head {
        size,
        bom,
        array: first == Some(&b'['),
    })
}

/// The path that names standard input (`validate -`): read as a stream, whatever it is.
pub const STDIN: &str = "-";

/// Open `path` for reading at offsets. `-` is standard input. A regular file is used as it is; a stream (a FIFO, a
/// pipe such as `/dev/stdin` or `<(cmd)`, a character device) can be read only once and not at
/// offsets, so it is copied first into an unnamed temporary file, which is returned with
/// `true`. A NUL byte ends the copy with an error: JSON text never holds one, and a device
/// such as `/dev/zero` would otherwise be copied forever.
///
/// # Errors
/// The file cannot be opened or read, or the stream holds a NUL byte.
pub(crate) fn open_input(path: &Path) -> Result<(File, bool), FormatError> {
    let io = |e: std::io::Error| FormatError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if path == Path::new(STDIN) {
        // Always copied, even when it is a file redirected with `<`: the copy starts where
        // standard input stands, and no index sidecar is keyed on a name that is not a file's.
        use std::os::fd::AsFd;
        let fd = std::io::stdin().as_fd().try_clone_to_owned().map_err(io)?;
        return spool(File::from(fd)).map(|f| (f, true)).map_err(io);
    }
    let file = File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.is_file() {
        return Ok((file, false));
    }
    spool(file).map(|f| (f, true)).map_err(io)
}

/// Copy a stream into an unnamed temporary file (created in the temporary folder and unlinked
/// at once, so nothing is left behind whatever happens).
fn spool(mut stream: File) -> std::io::Result<File> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        ".spanreview-stream-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let tmp_path = std::env::temp_dir().join(name);
    let no_copy = |e: std::io::Error| {
        std::io::Error::new(
            e.kind(),
            format!(
                "a stream is read through a temporary copy, which cannot be made in {} ({e}; \
                 set TMPDIR)",
                std::env::temp_dir().display()
            ),
        )
    };
    let mut tmp = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&tmp_path)
        .map_err(no_copy)?;
    std::fs::remove_file(&tmp_path).map_err(no_copy)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut at: u64 = 0;
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if let Some(i) = memchr::memchr(0, &buf[..n]) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "byte {} is NUL: not JSON text (a device such as /dev/zero?)",
                    at + i as u64
                ),
            ));
        }
        tmp.write_all(&buf[..n])?;
        at += n as u64;
    }
    tmp.flush()?;
    // Readers that read on from the position (the array indexer) start at the beginning, as
    // with a file just opened.
    std::io::Seek::rewind(&mut tmp)?;
    Ok(tmp)
}

/// Why an input a command reads more than once (a `--judge` file is identified, hashed, then
/// read) cannot be a stream.
pub const NEEDS_REGULAR: &str = "needs a regular file (it is read twice), not a folder, a pipe \
     or a device; save it to a file first";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_cut_short_after_opening_is_told_as_changed() {
        let mut f = tempfile::NamedTempFile::new().expect("tempfile");
        std::io::Write::write_all(&mut f, b"0123456789").expect("write");
        let (file, streamed) = open_input(f.path()).expect("open");
        assert!(!streamed);
        f.as_file().set_len(4).expect("truncate");
        let mut buf = [0u8; 6];
        let e = read_exact_at(&file, &mut buf, 2).expect_err("cut short");
        assert_eq!(e.to_string(), CHANGED);
    }

    #[test]
    fn a_stream_copy_reads_from_the_start_and_a_nul_ends_it() {
        let mut src = tempfile::tempfile().expect("tempfile");
        std::io::Write::write_all(&mut src, b"{\"a\": 1}\n").expect("write");
        std::io::Seek::rewind(&mut src).expect("rewind");
        let mut copy = spool(src).expect("spooled");
        let mut text = String::new();
        copy.read_to_string(&mut text).expect("read");
        assert_eq!(text, "{\"a\": 1}\n");
        let mut nul = tempfile::tempfile().expect("tempfile");
        std::io::Write::write_all(&mut nul, b"{}\n\0\0").expect("write");
        std::io::Seek::rewind(&mut nul).expect("rewind");
        let e = spool(nul).expect_err("NUL");
        assert!(e.to_string().starts_with("byte 3 is NUL"), "{e}");
    }
}
