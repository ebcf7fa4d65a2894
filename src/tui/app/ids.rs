//! The records' ids as the screen has read them: by id (go-to, the team poll) and by base
//! (the sibling variants), filled record by record as far as the dataset is indexed.

use std::collections::HashMap;

use crate::formats::Dataset;
use crate::review::siblings::base_of_id;

/// Ids read so far.
#[derive(Debug, Default)]
pub struct Ids {
    by_id: HashMap<String, usize>,
    /// Dataset indices by the base their id names (`BASE__variant`), ascending.
    by_base: HashMap<String, Vec<usize>>,
    /// Records whose id was read by [`Ids::scan`] (the first ones).
    scanned: usize,
}

impl Ids {
    /// The dataset index of record `id`, when read.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// Record `id` is at `idx` (read some other way than a scan).
    pub fn insert(&mut self, id: String, idx: usize) {
        self.by_id.insert(id, idx);
    }

    /// Read the ids of the records not scanned yet, in order, up to the first that `stop`
    /// says yes to; its index, or `None` once every record indexed so far is read.
    pub fn scan(&mut self, ds: &Dataset, stop: impl Fn(&str) -> bool) -> Option<usize> {
        while self.scanned < ds.len() {
            let i = self.scanned;
            self.scanned += 1;
            let Ok(id) = ds.primary().id(i) else { continue };
            let hit = stop(&id);
            self.by_base
                .entry(base_of_id(&id).to_owned())
                .or_default()
                .push(i);
            self.by_id.insert(id, i);
            if hit {
                return Some(i);
            }
        }
        None
    }

    /// The indices of the scanned records whose id names `base` (`base` itself, `base__…`),
    /// ascending.
    #[must_use]
    pub fn of_base(&self, base: &str) -> Vec<usize> {
        let mut out = self.by_base.get(base).cloned().unwrap_or_default();
        // An id that is a base of its own while holding `__` (its `meta.base_id` says so).
        if let Some(i) = self.get(base).filter(|i| !out.contains(i)) {
            out.push(i);
            out.sort_unstable();
        }
        out
    }
}
