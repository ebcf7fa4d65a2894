//! Records too large to show: refused with their size before they are built.

use super::{DataFile, Dataset};
use crate::formats::FormatError;

impl DataFile {
    /// Refuse records over `bytes` bytes with their size (the review screen: a record of
    /// gigabytes would take many times its size in memory to show).
    pub fn limit_size(&mut self, bytes: u64) {
        self.max_bytes = Some(bytes);
    }

    /// The bytes of record `i`, refused with their size when over the limit: a JSONL line's
    /// length is known from the index before it is read, a parquet row's once decoded.
    pub(crate) fn bytes(&self, i: usize) -> Result<Vec<u8>, FormatError> {
        let Some(max) = self.max_bytes else {
            return self.index.bytes(i);
        };
        if self.index.parquet_rows().is_none() {
            let len = self.index.entry(i).map_or(0, |e| u64::from(e.len));
            self.within(i, len, max)?;
        }
        let bytes = self.index.bytes(i)?;
        self.within(i, bytes.len() as u64, max)?;
        Ok(bytes)
    }

    fn within(&self, i: usize, len: u64, max: u64) -> Result<(), FormatError> {
        if len <= max {
            return Ok(());
        }
        Err(self.error(
            i,
            format!(
                "record too large to show: {} bytes (the review screen opens records of up \
                 to {} MiB; validate, stats and export read it)",
                thousands(len),
                max >> 20
            ),
        ))
    }
}

impl Dataset {
    /// Refuse every file's records over `bytes` bytes with their size ([`DataFile::limit_size`]).
    pub fn limit_size(&mut self, bytes: u64) {
        self.primary.limit_size(bytes);
        for j in &mut self.joined {
            j.file.limit_size(bytes);
        }
    }
}

/// `n` with thousands separators: `2,361,393,152`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, ch) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(2_361_393_152), "2,361,393,152");
    }
}
