//! How the review screen opens: the `review` command's choices, in one value for [`App::open`].

use crate::review::labeled::LabelName;
use crate::store::Assignment;
use crate::tui::clustering::ArbConfig;
use crate::tui::config::Config;
use crate::tui::queue::QueueKind;

#[cfg(doc)]
use super::App;

/// What the review screen opens with, besides its dataset, its log and the reviewer.
#[derive(Debug)]
pub struct Opening {
    /// The queue reviewed.
    pub queue: QueueKind,
    /// Keymap and theme.
    pub config: Config,
    /// The `--labels` choices (`None`: the labels of the dataset).
    pub labels: Option<Vec<LabelName>>,
    /// Arbitration settings.
    pub arb: ArbConfig,
    /// Where the dataset's assignment plan comes from.
    pub plan: PlanAtOpen,
}

/// The assignment plan the screen opens with: `review` reads it to choose the default queue,
/// and the screen then uses that rather than reading it again.
#[derive(Debug, Default)]
pub enum PlanAtOpen {
    /// Read from the log at open.
    #[default]
    Unread,
    /// Read by the caller already: the plan, or `None` when the dataset has none.
    Read(Option<Vec<Assignment>>),
}

impl Opening {
    /// `queue` with `config`: the dataset's labels, the default arbitration settings, the plan
    /// read at open.
    #[must_use]
    pub fn new(queue: QueueKind, config: Config) -> Self {
        Self {
            queue,
            config,
            labels: None,
            arb: ArbConfig::default(),
            plan: PlanAtOpen::Unread,
        }
    }
}
