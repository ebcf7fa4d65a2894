//! The reviewer's pace: records this reviewer brought to reviewed on this screen, over the
//! time the screen has been open (by the log's clock, which tests set), and the time the
//! records still unreviewed would take at that rate. Session time rather than today's decision
//! stamps: stamps miss the reading before a record's first decision and count breaks between
//! sessions, and the screen's own count needs no query.

use std::collections::HashSet;
use std::time::SystemTime;

use super::App;

/// Fewer reviewed records than this give no rate (one quick record would promise hours).
pub const MIN_FOR_RATE: usize = 3;

/// When the screen opened and which records were reviewed on it.
#[derive(Debug, Clone)]
pub struct Pace {
    opened: SystemTime,
    reviewed: HashSet<usize>,
}

impl Pace {
    /// Starting now (`opened`, by the log's clock).
    #[must_use]
    pub fn new(opened: SystemTime) -> Self {
        Self {
            opened,
            reviewed: HashSet::new(),
        }
    }

    /// Record `idx` went from `was` to `now` reviewed by a decision on this screen.
    pub fn mark(&mut self, idx: usize, was: bool, now: bool) {
        if !was && now {
            self.reviewed.insert(idx);
        } else if was && !now {
            self.reviewed.remove(&idx);
        }
    }
}

impl App {
    /// Records per hour this session and the seconds the unreviewed rest would take; `None`
    /// before [`MIN_FOR_RATE`] records are reviewed (or no time has passed).
    #[must_use]
    pub fn pace(&self) -> Option<(f64, u64)> {
        let n = self.pace.reviewed.len();
        if n < MIN_FOR_RATE {
            return None;
        }
        let secs = self
            .log
            .now()
            .duration_since(self.pace.opened)
            .ok()?
            .as_secs_f64();
        if secs <= 0.0 {
            return None;
        }
        #[allow(clippy::cast_precision_loss)]
        let per_hour = n as f64 * 3600.0 / secs;
        // Blind without a plan: no count to go by, and the rest is not known.
        let (done, total) = self.dataset_progress()?;
        #[allow(clippy::cast_precision_loss)]
        let left = total.saturating_sub(done) as f64 * 3600.0 / per_hour;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some((per_hour, left.round() as u64))
    }

    /// The pace as the header and stats screen say it (`—` until there is a rate).
    #[must_use]
    pub fn pace_line(&self) -> String {
        match self.pace() {
            Some((rate, left)) => super::strings::pace(rate, left),
            None => super::strings::NO_PACE.to_owned(),
        }
    }
}
