//! The rubber-stamp alarm for the reviewer opening `review`: their second passes and pace over
//! the dataset's log at open ([`crate::review::second_pass`]), as the header shows them.

use std::collections::HashMap;

use crate::formats::Dataset;
use crate::review::decision::{replay, Decision};
use crate::review::second_pass::SecondPasses;

/// The alarm's warnings about `reviewer` from `log` (the dataset's decisions): the records
/// they decided are read from `dataset` when its ids are known (none otherwise, and none for
/// a record that cannot be read).
#[must_use]
pub fn warnings(
    dataset: &Dataset,
    log: &[Decision],
    reviewer: &str,
    min_seconds: f64,
) -> Vec<String> {
    let mut by_record: HashMap<&str, Vec<Decision>> = HashMap::new();
    for d in log {
        by_record.entry(&d.record_id).or_default().push(d.clone());
    }
    by_record.retain(|_, ds| ds.iter().any(|d| d.reviewer == reviewer));
    if by_record.is_empty() || !dataset.indexed() {
        return Vec::new();
    }
    let Ok(ids) = dataset.primary().by_id(&mut Vec::new()) else {
        return Vec::new();
    };
    let mut passes = SecondPasses::default();
    for (id, ds) in &by_record {
        let Some(&i) = ids.get(*id).and_then(|at| at.first()) else {
            continue;
        };
        if let Ok(rec) = dataset.record(i) {
            passes.add(&rec, &replay(&rec, ds).applied);
        }
    }
    passes
        .report(crate::store::unix_seconds, min_seconds)
        .iter()
        .filter(|f| f.reviewer == reviewer)
        .flat_map(|f| f.warnings(min_seconds))
        .collect()
}
