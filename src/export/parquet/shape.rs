//! What a written parquet file takes from its input: the Arrow schema (with its metadata), the
//! file's key-value metadata, each column's codec and the row group size.

use std::sync::Arc;

use arrow_schema::SchemaRef;
use parquet::basic::Compression;
use parquet::file::metadata::{KeyValue, ParquetMetaData};
use parquet::file::properties::WriterProperties;

use crate::formats::parquet::Rows;

/// The key under which the parquet writer stores the Arrow schema itself (it writes it anew).
const ARROW_SCHEMA: &str = "ARROW:schema";

/// The schema and writer settings of a parquet input, to write files like it.
#[derive(Debug, Clone)]
pub struct Shape {
    /// The input's Arrow schema, metadata included.
    pub schema: SchemaRef,
    /// Codecs, row group size and key-value metadata as the input has them.
    pub props: WriterProperties,
}

impl Shape {
    /// The shape of the parquet file `rows` reads.
    #[must_use]
    pub fn of(rows: &Rows) -> Self {
        Self {
            schema: Arc::clone(rows.schema()),
            props: props(rows.metadata()),
        }
    }
}

/// Writer settings like the file of `meta`: each column's codec (of its first row group), the
/// largest row group's row count, the key-value metadata (the `huggingface` features).
fn props(meta: &ParquetMetaData) -> WriterProperties {
    let groups = meta.row_groups();
    let size = groups
        .iter()
        .map(|g| usize::try_from(g.num_rows()).unwrap_or(0))
        .max()
        .unwrap_or(0);
    let mut b = WriterProperties::builder();
    if size > 0 {
        b = b.set_max_row_group_size(size);
    }
    let first = groups.first();
    let default = first
        .and_then(|g| g.columns().first())
        .map_or(Compression::SNAPPY, |c| c.compression());
    b = b.set_compression(default);
    for c in first.map(|g| g.columns()).unwrap_or_default() {
        b = b.set_column_compression(c.column_path().clone(), c.compression());
    }
    let kv: Vec<KeyValue> = meta
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .filter(|kv| kv.key != ARROW_SCHEMA)
        .cloned()
        .collect();
    if !kv.is_empty() {
        b = b.set_key_value_metadata(Some(kv));
    }
    b.build()
}
