//! Decisions a review could not save (the database was unreachable until the reviewer quit):
//! written to a rescue file in the shape `decisions --json` prints, with their origins, so
//! `spanreview apply` brings them in later, once (an origin already in the log is skipped).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::review::decision::Decision;

/// Write `rows` to a new `spanreview-unsaved-STAMP.jsonl` in the current folder, else in the
/// temp folder; returns its path.
///
/// # Errors
/// Neither folder could take the file (each place and why).
pub fn write(rows: &[(Decision, String)], now: std::time::SystemTime) -> Result<PathBuf, String> {
    let name = format!("spanreview-unsaved-{}.jsonl", crate::store::file_stamp(now));
    let mut errors = Vec::new();
    let here = std::env::current_dir().ok();
    for dir in [here, Some(std::env::temp_dir())].into_iter().flatten() {
        match write_new(&dir, &name, rows) {
            Ok(p) => return Ok(p),
            Err(e) => errors.push(format!("{}: {e}", dir.join(&name).display())),
        }
    }
    Err(errors.join("; "))
}

/// Write `rows` to `dir/name`, or `dir/name` with `-2`, `-3`, … when it exists (never over a
/// file), synced before returning.
fn write_new(dir: &Path, name: &str, rows: &[(Decision, String)]) -> std::io::Result<PathBuf> {
    let stem = name.trim_end_matches(".jsonl");
    let mut n = 1;
    loop {
        let path = if n == 1 {
            dir.join(name)
        } else {
            dir.join(format!("{stem}-{n}.jsonl"))
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                super::decisions::write_json(&mut f, rows)?;
                f.flush()?;
                f.sync_all()?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(e) => return Err(e),
        }
    }
}
