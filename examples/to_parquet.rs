//! Benchmark helper: a parquet records file made from a JSONL one, as `datasets`' `to_parquet`
//! writes the bundled sample (the schema of [`fixture::toolace_schema`], snappy, row groups of
//! 1,000 rows, as `datasets` writes its batches). Records are repeated until `--records N`,
//! each copy's id suffixed `#k` so ids stay unique.
//!
//! ```sh
//! cargo run --release --example to_parquet -- data/toolace/test_records_reconstructed.jsonl \
//!     /tmp/big.parquet --records 150000
//! ```

use std::path::PathBuf;

use anyhow::Context;
use serde_json::Value;
use spanreview::formats::parquet::fixture;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: to_parquet IN.jsonl OUT.parquet [--records N] [--rows-per-group R]";
    let input = PathBuf::from(args.first().context(usage)?);
    let out = PathBuf::from(args.get(1).context(usage)?);
    let flag = |name: &str| -> anyhow::Result<Option<usize>> {
        match args.iter().position(|a| a == name) {
            Some(i) => Ok(Some(args.get(i + 1).context(usage)?.parse()?)),
            None => Ok(None),
        }
    };
    let text = std::fs::read_to_string(&input).with_context(|| input.display().to_string())?;
    let base: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .context("a line is not JSON")?;
    anyhow::ensure!(!base.is_empty(), "{}: no record", input.display());
    let n = flag("--records")?.unwrap_or(base.len());
    let per_group = flag("--rows-per-group")?.unwrap_or(1_000);
    // Written a row group at a time: memory holds one, whatever N.
    let schema = fixture::toolace_schema();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .set_max_row_group_size(per_group)
        .build();
    let file = std::fs::File::create(&out).with_context(|| out.display().to_string())?;
    let mut w = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), Some(props))?;
    let mut start = 0;
    while start < n {
        let end = (start + per_group).min(n);
        let records: Vec<Value> = (start..end)
            .map(|i| {
                let mut r = base[i % base.len()].clone();
                let k = i / base.len();
                if k > 0 {
                    if let Some(id) = r.get("id").and_then(Value::as_str) {
                        r["id"] = Value::String(format!("{id}#{k}"));
                    }
                }
                r
            })
            .collect();
        w.write(&fixture::batch(&schema, &records).map_err(anyhow::Error::msg)?)?;
        w.flush()?;
        start = end;
    }
    w.close()?;
    eprintln!("{n} records written to {}", out.display());
    Ok(())
}
