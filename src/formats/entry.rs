//! Where one record's bytes are in a file: shared by the line index and the parquet reader,
//! which the index holds (so neither imports the other for it).

/// Where one record's bytes are in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Byte offset of the first byte.
    pub offset: u64,
    /// Length in bytes (line end excluded).
    pub len: u32,
    /// 1-based line number where the record starts.
    pub line: u32,
}
