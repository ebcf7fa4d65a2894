//! Where a positional edit starts, so that few keys reach the wanted boundaries: `v` at the
//! search's hit in the output, the arbitration edit (`t`) at a source's version of the cluster
//! rather than the whole cluster (Tab walks the lanes' versions).

use super::{App, ModeState, Status};
use crate::tui::edit::Bounds;
use crate::tui::strings;

impl App {
    /// `v`: add mode, the cursor at the first output hit of the search in force (the phrase
    /// found with `/`), else where [`App::open_add`] puts it (the selected span's start).
    pub(super) fn open_add_at_search(&mut self) {
        self.open_add();
        let Ok(c) = &self.cur else { return };
        if c.hits.search.is_none() {
            return;
        }
        let Some(hit) = c.hits.output.first() else {
            return;
        };
        let Some(at) = c.map.char_of(hit.start) else {
            return;
        };
        let at = at.min(c.chars.len().saturating_sub(1));
        self.start_add_at(at);
    }

    /// Put add mode's cursor at code point `at`, while no span is being marked yet (a mode
    /// other than add, or an add already anchored, is left as it is).
    pub(super) fn start_add_at(&mut self, at: usize) {
        if let ModeState::Add {
            anchor: None,
            cursor,
        } = &mut self.mode
        {
            *cursor = at;
        }
    }

    /// The sources' versions of the selected cluster, by lane (1 first): each the hull of what
    /// the source covers there, with its lane number; a lane that covers nothing is left out.
    pub(super) fn versions(&self) -> Vec<(usize, Bounds)> {
        let Some(arb) = &self.arb else {
            return Vec::new();
        };
        let Some(cl) = arb.d.clusters.get(arb.cluster) else {
            return Vec::new();
        };
        arb.lanes
            .iter()
            .enumerate()
            .filter_map(|(lane, &source)| {
                let cov = &cl.source(source)?.coverage;
                let (first, last) = (cov.first()?, cov.last()?);
                (first.0 < last.1).then_some((
                    lane + 1,
                    Bounds {
                        start: first.0,
                        end: last.1,
                    },
                ))
            })
            .collect()
    }

    /// `t` on the arbitration screen: edit the cluster's span starting from lane 1's version
    /// (the first lane that covers something), not from the whole cluster.
    pub(super) fn open_settle_from_version(&mut self) {
        self.open_settle();
        if matches!(self.mode, ModeState::Settle { .. }) {
            self.start_settle_at(0);
        }
    }

    /// Tab / Shift-Tab in the arbitration edit: start again from the next (`step` 1) or
    /// previous (-1) lane's version, wrapping. The moves made so far are given up.
    pub(super) fn settle_version(&mut self, step: isize) {
        let ModeState::Settle { version, .. } = &self.mode else {
            return;
        };
        let n = self.versions().len().max(1);
        let next = (*version % n)
            .checked_add_signed(step)
            .map_or(n - 1, |k| k % n);
        self.start_settle_at(next);
    }

    /// Set the arbitration edit's boundaries (and where it started) to version `k`.
    fn start_settle_at(&mut self, k: usize) {
        let versions = self.versions();
        let Some(&(lane, b)) = versions.get(k) else {
            self.status = Status::Info(strings::NO_VERSIONS.to_owned());
            return;
        };
        let who = self
            .arb
            .as_ref()
            .and_then(|arb| arb.lanes.get(lane - 1))
            .map(|&source| self.source_label(source))
            .unwrap_or_default();
        let label = self.lane_label(lane - 1);
        if let ModeState::Settle {
            bounds,
            before,
            version,
            ..
        } = &mut self.mode
        {
            *bounds = b;
            *before = b;
            *version = k;
        }
        self.status = Status::Info(strings::edit_from(&label, &who, b.start, b.end));
    }
}
