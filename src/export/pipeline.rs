//! The export's reading pipeline: the leading file's records, read in chunks on two threads,
//! exported ([`Exporter`]) and handed over in file order.

use std::collections::HashMap;
use std::ops::Range;

use super::record::{Exporter, Item};
use super::ExportOptions;
use crate::formats::index::Layout;
use crate::formats::Dataset;
use crate::review::decision::Decision;

/// Records exported per work unit.
const CHUNK: usize = 256;

/// What a worker hands over for one chunk of records.
struct Chunk {
    items: Vec<Item>,
    /// The id of each line as its format reads it (`None` where it cannot:
    /// [`DataFile::id_of`](crate::formats::DataFile::id_of)), when the lines were read; empty
    /// when the saved ids were used.
    ids: Vec<Option<String>>,
    warnings: Vec<String>,
    /// The error that stopped the worker.
    err: Option<anyhow::Error>,
}

/// Export every record of the leading file on two threads, each taking every other chunk of
/// records, and hand the items to `take` on this thread in file order. Returns the warnings,
/// in file order.
///
/// Lines are read in blocks and their ids skimmed, unless the file's ids were saved beside its
/// index (by an earlier export or open that read every line's id, the file unchanged since):
/// then only the records with decisions are read, and the other lines are copied unread. After
/// a full read where every line had an id, the ids are saved for next time.
///
/// # Errors
/// The first error of a record (in file order), a read error, or an error of `take`.
pub fn each_item(
    args: &ExportOptions,
    dataset: &Dataset,
    log: &HashMap<String, Vec<Decision>>,
    mut take: impl FnMut(Item) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<String>> {
    let primary = dataset.primary();
    let n = primary.len();
    let chunks = n.div_ceil(CHUNK);
    let index = &primary.index;
    // Lines without decisions are copied as they are only in the plain case (no --strict or
    // --split-by, which read every record).
    let copies_unread = index.layout() == Layout::Lines && !args.strict && args.split_by.is_none();
    let known = if copies_unread {
        index.saved_ids(|_, bytes| primary.id_of(bytes))
    } else {
        None
    };
    let known = known.as_deref();
    std::thread::scope(|sc| {
        let mut rxs = Vec::new();
        for w in 0..2 {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Chunk>(2);
            rxs.push(rx);
            sc.spawn(move || {
                let mut ex = Exporter {
                    args,
                    dataset,
                    log,
                    warnings: Vec::new(),
                };
                for c in (w..chunks).step_by(2) {
                    let chunk = read_chunk(&mut ex, known, c * CHUNK..((c + 1) * CHUNK).min(n));
                    let stop = chunk.err.is_some();
                    if tx.send(chunk).is_err() || stop {
                        break;
                    }
                }
            });
        }
        let mut warnings = Vec::new();
        // Every line's id, while each one could be read (to save them for next time).
        let mut all_ids: Option<Vec<String>> =
            (copies_unread && known.is_none()).then(|| Vec::with_capacity(n));
        for c in 0..chunks {
            let chunk = rxs[c % 2]
                .recv()
                .map_err(|_| anyhow::anyhow!("internal: an export thread stopped"))?;
            for item in chunk.items {
                take(item)?;
            }
            warnings.extend(chunk.warnings);
            if let Some(e) = chunk.err {
                return Err(e);
            }
            if let Some(all) = &mut all_ids {
                if chunk.ids.iter().all(Option::is_some) {
                    all.extend(chunk.ids.into_iter().flatten());
                } else {
                    all_ids = None;
                }
            }
        }
        if let Some(all) = all_ids {
            index.save_ids(&all);
        }
        Ok(warnings)
    })
}

/// One chunk of lines, `range`, exported by `ex`: only the lines with decisions read when
/// `known` holds the file's saved ids (the others copied unread), else every line read and its
/// id skimmed; the first error stops the chunk.
fn read_chunk(ex: &mut Exporter<'_>, known: Option<&[String]>, range: Range<usize>) -> Chunk {
    let mut items = Vec::with_capacity(range.len());
    let mut ids = Vec::new();
    let err = match known {
        Some(known) => read_known(ex, known, range, &mut items),
        None => read_skimmed(ex, range, &mut items, &mut ids),
    };
    Chunk {
        items,
        ids,
        warnings: std::mem::take(&mut ex.warnings),
        err,
    }
}

/// The lines of `range` by their saved ids `known`: a line with decisions is read (and must
/// still carry its saved id), the others are copied unread. The first error, if any.
fn read_known(
    ex: &mut Exporter<'_>,
    known: &[String],
    range: Range<usize>,
    items: &mut Vec<Item>,
) -> Option<anyhow::Error> {
    let dataset = ex.dataset;
    let primary = dataset.primary();
    let index = &primary.index;
    for i in range {
        let item = if ex.log.contains_key(&known[i]) {
            index.bytes(i).map_err(anyhow::Error::from).and_then(|b| {
                // The line read must carry the saved id: else the file changed in a way its
                // key did not show, and no line is trusted (nothing is written; the next run
                // reads all).
                let id = primary.id_of(&b);
                if id.as_deref() != Some(known[i].as_str()) {
                    index.forget_ids();
                    anyhow::bail!(
                        "{}:{}: the record ids saved for this file do not match it (it changed \
                         since it was indexed): they were removed; nothing was written, run the \
                         export again",
                        index.path().display(),
                        primary.line(i)
                    );
                }
                ex.item_with_id(i, &b, id)
            })
        } else {
            ex.copied(i)
        };
        match item {
            Ok(item) => items.push(item),
            Err(e) => return Some(e),
        }
    }
    None
}

/// Every line of `range` read, its id skimmed into `ids` and its item exported. The first
/// error, if any.
fn read_skimmed(
    ex: &mut Exporter<'_>,
    range: Range<usize>,
    items: &mut Vec<Item>,
    ids: &mut Vec<Option<String>>,
) -> Option<anyhow::Error> {
    let dataset = ex.dataset;
    let primary = dataset.primary();
    let mut err = None;
    ids.reserve(range.len());
    let read = primary.index.for_each_in(range, |i, bytes| {
        if err.is_none() {
            let id = primary.id_of(bytes);
            ids.push(id.clone());
            match ex.item_with_id(i, bytes, id) {
                Ok(item) => items.push(item),
                Err(e) => err = Some(e),
            }
        }
    });
    if let Err(e) = read {
        err.get_or_insert(e.into());
    }
    err
}
