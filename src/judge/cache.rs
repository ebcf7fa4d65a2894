//! The reply cache: a JSONL file, one `{"key", "id", "body"}` line per reply that gave a
//! verdict, keyed by the SHA-256 of (endpoint, model, the prompt's messages, the schema and
//! the sampling settings): the record's content is in the prompt, the API key in none of it.
//! Each line is appended and flushed as its reply comes, so a killed run loses only the
//! requests in flight, and a rerun or a resumed run sends nothing it has a reply for.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::model::hex;

/// The key of a request: every part length-prefixed, hashed.
#[must_use]
pub fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    hex(&h.finalize())
}

/// The replies read, and the file that new ones are appended to.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    replies: HashMap<String, String>,
    file: Option<File>,
    /// Lines that could not be read (a line cut by a kill mid-write): not used, counted.
    pub torn: usize,
}

impl Cache {
    /// Read `path` (absent: empty) and open it for appending.
    ///
    /// # Errors
    /// The file cannot be read or opened for appending (the message names it).
    pub fn open(path: &Path) -> Result<Self, String> {
        let mut replies = HashMap::new();
        let mut torn = 0;
        match File::open(path) {
            Ok(f) => {
                for line in BufReader::new(f).split(b'\n') {
                    let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
                    let v: Option<serde_json::Value> = serde_json::from_slice(&line).ok();
                    let entry = v
                        .as_ref()
                        .and_then(|v| Some((v.get("key")?.as_str()?, v.get("body")?.as_str()?)));
                    match entry {
                        Some((k, b)) => {
                            replies.insert(k.to_owned(), b.to_owned());
                        }
                        None if line.iter().all(u8::is_ascii_whitespace) => {}
                        None => torn += 1,
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
        Ok(Self {
            path: path.to_owned(),
            replies,
            file: None,
            torn,
        })
    }

    /// The reply cached under `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&str> {
        self.replies.get(key).map(String::as_str)
    }

    /// How many replies it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.replies.len()
    }

    /// True when it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.replies.is_empty()
    }

    /// Append a reply (one write of one whole line, flushed).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn put(&mut self, key: &str, id: &str, body: &str) -> Result<(), String> {
        if self.file.is_none() {
            let f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .map_err(|e| format!("{}: {e}", self.path.display()))?;
            // A line cut by a kill is ended, so the next one starts on a line of its own.
            if self.torn > 0 {
                (&f).write_all(b"\n")
                    .map_err(|e| format!("{}: {e}", self.path.display()))?;
            }
            self.file = Some(f);
        }
        let mut line = serde_json::to_vec(&serde_json::json!({"key": key, "id": id, "body": body}))
            .map_err(|e| e.to_string())?;
        line.push(b'\n');
        if let Some(f) = self.file.as_mut() {
            f.write_all(&line)
                .and_then(|()| f.flush())
                .map_err(|e| format!("{}: {e}", self.path.display()))?;
        }
        self.replies.insert(key.to_owned(), body.to_owned());
        Ok(())
    }
}

#[cfg(test)]
mod tests;
