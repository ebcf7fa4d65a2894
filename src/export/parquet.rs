//! Records written back as parquet with the input's own schema (`export` of a parquet input to
//! `--out x.parquet`): the same Arrow schema with its metadata (the `huggingface` features),
//! column order and types, `arrow.json` columns as JSON text again, nulls kept, the input's
//! codec per column and row groups of the input's size ([`shape`]).
//!
//! A record without a decision in force is its input row copied as Arrow values
//! ([`ParquetOut::push_row`], runs of consecutive rows at once; an `arrow.json` text stays byte
//! for byte). A reviewed record comes as the JSON the export built for it; a batch of them is
//! decoded into Arrow by the schema ([`arrow_json`], strict: a field the schema lacks is an
//! error, not dropped; its `arrow.json` values written back as compact JSON text) and handed to
//! the writer, which writes a row group out once it is full. What it wrote is taken from its
//! buffer after every record, so memory holds about one row group of output and one of input.

pub mod shape;
mod text;

use std::sync::Arc;

use anyhow::Context;
use arrow_array::RecordBatch;
use arrow_json::reader::{Decoder, ReaderBuilder};
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use serde_json::Value;

pub use shape::Shape;

use crate::formats::parquet::Rows;

/// Records decoded into Arrow at once.
const BATCH: usize = 1024;

/// A parquet file being written, record by record.
pub struct ParquetOut {
    writer: ArrowWriter<Vec<u8>>,
    schema: SchemaRef,
    /// Whether the schema has `arrow.json` columns (values to turn back into text).
    json: bool,
    /// Records not yet decoded.
    pending: Vec<Value>,
    /// Records decoded and handed to the writer.
    rows: usize,
    /// Unchanged input rows waiting to be copied: row group, first row, count.
    run: Option<(usize, usize, usize)>,
    /// The input's row group read last, as Arrow.
    group: Option<(usize, RecordBatch)>,
}

impl std::fmt::Debug for ParquetOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetOut")
            .field("rows", &self.rows)
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl ParquetOut {
    /// Start a file of `shape`.
    ///
    /// # Errors
    /// The schema cannot be written as parquet.
    pub fn new(shape: &Shape) -> anyhow::Result<Self> {
        let writer = ArrowWriter::try_new(
            Vec::new(),
            Arc::clone(&shape.schema),
            Some(shape.props.clone()),
        )
        .context("the input's parquet schema cannot be written back")?;
        Ok(Self {
            writer,
            json: text::has_json(shape.schema.fields()),
            schema: Arc::clone(&shape.schema),
            pending: Vec::with_capacity(BATCH),
            rows: 0,
            run: None,
            group: None,
        })
    }

    /// Add one record, the JSON object `bytes`.
    ///
    /// # Errors
    /// It is not JSON, or a batch of records does not fit the schema (the message names the
    /// first record that does not, by its place in the output and its id).
    pub fn push(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.copy_run()?;
        let mut v: Value = serde_json::from_slice(bytes).with_context(|| {
            format!(
                "record {} of the export is not JSON",
                self.rows + self.pending.len() + 1
            )
        })?;
        if self.json {
            text::json_to_text(self.schema.fields(), &mut v);
        }
        self.pending.push(v);
        if self.pending.len() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Add row `row` of row group `g` of the parquet input `input` (of this file's schema) as
    /// it is: its Arrow values, not the JSON made of them (an `arrow.json` column's text stays
    /// byte for byte). Consecutive rows are copied at once.
    ///
    /// # Errors
    /// The row group cannot be read, or writing fails.
    pub fn push_row(&mut self, input: &Rows, g: usize, row: usize) -> anyhow::Result<()> {
        self.flush()?;
        match &mut self.run {
            Some((rg, first, n)) if *rg == g && *first + *n == row => *n += 1,
            _ => {
                self.copy_run()?;
                self.run = Some((g, row, 1));
                if self.group.as_ref().is_none_or(|(k, _)| *k != g) {
                    self.group = Some((g, input.arrow_group(g)?));
                }
            }
        }
        Ok(())
    }

    /// Copy the waiting input rows (of the row group read last).
    fn copy_run(&mut self) -> anyhow::Result<()> {
        let Some((g, first, n)) = self.run.take() else {
            return Ok(());
        };
        let Some((k, batch)) = &self.group else {
            anyhow::bail!("internal: row group {g} was not read");
        };
        if *k != g || first + n > batch.num_rows() {
            anyhow::bail!("internal: rows {first}+{n} are not in row group {g} as read");
        }
        self.writer
            .write(&batch.slice(first, n))
            .context("writing a parquet row group")?;
        self.rows += n;
        Ok(())
    }

    /// The bytes written since last asked (whole row groups, as they are finished).
    pub fn ready(&mut self) -> Vec<u8> {
        std::mem::take(self.writer.inner_mut())
    }

    /// Write the last records and the footer; the bytes not yet taken with [`Self::ready`].
    ///
    /// # Errors
    /// The last records do not fit the schema, or the footer cannot be written.
    pub fn finish(mut self) -> anyhow::Result<Vec<u8>> {
        self.flush()?;
        self.copy_run()?;
        self.writer
            .into_inner()
            .context("writing the parquet footer")
    }

    /// Records written so far (decoded and handed to the writer).
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Decode the pending records and hand them to the writer.
    fn flush(&mut self) -> anyhow::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let batch = match decode(&self.schema, &self.pending) {
            Ok(b) => b,
            Err(e) => return Err(self.misfit(e)),
        };
        self.writer
            .write(&batch)
            .context("writing a parquet row group")?;
        self.rows += self.pending.len();
        self.pending.clear();
        Ok(())
    }

    /// The error of a batch that does not decode, naming its first record that does not.
    fn misfit(&self, batch_error: arrow_schema::ArrowError) -> anyhow::Error {
        for (k, v) in self.pending.iter().enumerate() {
            if let Err(e) = decode(&self.schema, std::slice::from_ref(v)) {
                let id = v
                    .get("id")
                    .map_or_else(String::new, |id| format!(" (id {id})"));
                return anyhow::anyhow!(
                    "record {}{id} of the export does not fit the input's parquet schema: {e} \
                     (a field it lacks, such as meta.review from --provenance, or a value of \
                     another type); nothing was written",
                    self.rows + k + 1
                );
            }
        }
        anyhow::anyhow!("records do not fit the input's parquet schema: {batch_error}")
    }
}

/// `rows` as one Arrow batch of `schema`.
fn decode(schema: &SchemaRef, rows: &[Value]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let mut d: Decoder = ReaderBuilder::new(Arc::clone(schema))
        .with_batch_size(rows.len().max(1))
        .with_strict_mode(true)
        .build_decoder()?;
    d.serialize(rows)?;
    match d.flush()? {
        Some(b) => Ok(b),
        None => Ok(RecordBatch::new_empty(Arc::clone(schema))),
    }
}

#[cfg(test)]
mod tests;
