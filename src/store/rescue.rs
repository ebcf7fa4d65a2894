//! The rescue copy of a database whose file went away during a review (see `guard.rs`): what the
//! connection still sees, copied with `VACUUM INTO` and checked, completed from memory with every
//! decision this store committed.
//!
//! The copy alone is not enough: a `-wal` emptied under the connection (`: > db.sqlite-wal`) is
//! read back as nothing (the copy fails, or misses the commits it held), and content copied over
//! the file mixes with the log. So a file store keeps, in memory, each decision it committed
//! (with its origin, and the record state written with it): a few hundred bytes a decision of a
//! review. `apply`'s batches are not kept (a file of a million lines would be held twice); their
//! rows are in the copy as far as the connection can read them.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;

use super::{row, RecordState, Store};
use crate::review::decision::Decision;

/// A record state written in a transaction: dataset, record, the decision that set it.
type StateRow = (String, String, Option<i64>, RecordState);

/// What a store committed (and what the open transaction has written so far).
#[derive(Debug, Default)]
pub(super) struct Journal {
    /// Off for stores that are not a file (nothing to rescue).
    on: bool,
    committed: Vec<(Decision, String)>,
    states: Vec<StateRow>,
    pending: Vec<(Decision, String)>,
    pending_states: Vec<StateRow>,
}

impl Journal {
    /// A journal that keeps what is committed.
    pub(super) fn on() -> Self {
        Self {
            on: true,
            ..Self::default()
        }
    }

    /// A transaction starts: what an earlier one left uncommitted is dropped.
    pub(super) fn begin(&mut self) {
        self.pending.clear();
        self.pending_states.clear();
    }

    /// A row written in the open transaction.
    pub(super) fn wrote(&mut self, d: &Decision, origin: &str) {
        if self.on {
            self.pending.push((d.clone(), origin.to_owned()));
        }
    }

    /// A record state written in the open transaction.
    pub(super) fn wrote_state(&mut self, ds: &str, rec: &str, id: Option<i64>, s: &RecordState) {
        if self.on {
            self.pending_states
                .push((ds.to_owned(), rec.to_owned(), id, s.clone()));
        }
    }

    /// The open transaction committed: its rows are kept; `keep` false forgets them (a batch).
    pub(super) fn committed(&mut self, keep: bool) {
        if keep {
            self.committed.append(&mut self.pending);
            self.states.append(&mut self.pending_states);
        }
        self.begin();
    }

    /// The origin of the last decision kept.
    pub(super) fn last_origin(&self) -> Option<&str> {
        self.committed.last().map(|(_, o)| o.as_str())
    }

    /// The decisions kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.committed.len()
    }
}

/// Make the rescue file `target`: `VACUUM INTO` from `conn`, kept when `PRAGMA quick_check`
/// passes on it (else a new database), then every decision of `journal` it lacks (by origin)
/// added, undo targets mapped to the ids they got, with the record states written with them.
pub(super) fn copy_and_fill(
    conn: &Connection,
    target: &Path,
    journal: &Journal,
) -> Result<(), String> {
    let copied = conn
        .execute("VACUUM INTO ?1", [target.to_string_lossy()])
        .map_err(|e| e.to_string())
        .and_then(|_| quick_check(target));
    if let Err(e) = &copied {
        tracing::error!(target = %target.display(), error = %e, "the copy is not whole; making a new database for the rescue");
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let _ = std::fs::remove_file(super::sibling(target, suffix));
        }
        if journal.committed.is_empty() {
            return copied;
        }
    }
    fill(target, journal).map_err(|e| match copied {
        Ok(()) => e,
        Err(c) => format!("{c}; then {e}"),
    })
}

/// `PRAGMA quick_check` on the file at `path`: `ok`, or what it found.
fn quick_check(path: &Path) -> Result<(), String> {
    let c = Connection::open(path).map_err(|e| e.to_string())?;
    let found: Vec<String> = c
        .prepare("PRAGMA quick_check")
        .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
        .map_err(|e| e.to_string())?;
    if found == ["ok"] {
        Ok(())
    } else {
        Err(format!("the copy is damaged: {}", found.join("; ")))
    }
}

/// Add what the copy at `target` lacks of `journal`.
fn fill(target: &Path, journal: &Journal) -> Result<(), String> {
    let store = Store::open(target).map_err(|e| e.to_string())?;
    store.guard.journal.borrow_mut().on = false;
    let tx = store.begin().map_err(|e| e.to_string())?;
    let mut ids: HashMap<i64, i64> = HashMap::new();
    let mut added = std::collections::HashSet::new();
    for (d, origin) in &journal.committed {
        if let Some(id) = store.id_with_origin(origin).map_err(|e| e.to_string())? {
            ids.insert(d.id, id);
            continue;
        }
        let mut d2 = d.clone();
        if let Some(t) = d.target {
            let t2 = ids.get(&t).copied().unwrap_or(t);
            if store.decision(t2).map_err(|e| e.to_string())?.is_none() {
                tracing::error!(
                    id = d.id,
                    target = t,
                    "an undo or redo whose target is in no copy: not rescued"
                );
                continue;
            }
            d2.target = Some(t2);
        }
        let id = row::insert(&store.conn, &d2, origin).map_err(|e| e.to_string())?;
        ids.insert(d.id, id);
        added.insert(d.id);
    }
    for (ds, rec, id, st) in &journal.states {
        let Some(id) = id.filter(|i| added.contains(i)).and_then(|i| ids.get(&i)) else {
            continue;
        };
        store
            .write_state(&tx, ds, rec, Some(*id), st)
            .map_err(|e| e.to_string())?;
    }
    tx.commit().map_err(|e| e.to_string())?;
    if !added.is_empty() {
        tracing::warn!(added = added.len(), target = %target.display(), "decisions the copy lacked were added from memory");
    }
    Ok(())
}
