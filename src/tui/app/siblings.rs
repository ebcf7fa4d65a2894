//! Carrying a span decision to the record's sibling variants (`=`): after a decision on a
//! span whose text the other variants of its base share, the status line offers it there;
//! the key saves one decision per sibling span, each on its own record with that record's
//! hash ([`carried`]).

use super::decide::token;
use super::{App, Status};
use crate::model::Record;
use crate::review::check::closed_to;
use crate::review::decision::{Decision, OutcomeKind, BLIND_GROUP};
use crate::review::siblings::{base_of, carried};
use crate::review::team::blind_view;
use crate::store::new_origin;
use crate::tui::keymap::Mode;
use crate::tui::strings;

/// The decision last saved on the record on screen, while the sibling variants can take it.
#[derive(Debug, Clone)]
pub struct Offer {
    /// Dataset index of the record it was made on.
    from: usize,
    decision: Decision,
    /// The span's text it is about (before an adjust, as added for an add).
    text: String,
}

/// A sibling's decisions: its dataset index, the record, the rows to save.
type Carried = (usize, Record, Vec<Decision>);

impl App {
    /// After `saved` (a decision on the record on screen): offer it to the siblings that can
    /// take it, on the status line, or forget the last offer.
    pub(super) fn offer_siblings(&mut self, saved: &Decision) {
        self.siblings = None;
        if self.arbitrating {
            return;
        }
        let Ok(c) = &self.cur else { return };
        let value = if saved.action == crate::review::decision::ActionKind::Add {
            saved.after.as_ref()
        } else {
            saved.before.as_ref()
        };
        let Some(text) = value.and_then(|v| c.map.slice(&c.record.output, v.start, v.end)) else {
            return;
        };
        let offer = Offer {
            from: c.index,
            decision: saved.clone(),
            text: text.to_owned(),
        };
        let carried = self.carried_to_siblings(&offer);
        if carried.is_empty() {
            return;
        }
        let spans = carried.iter().map(|(_, _, rows)| rows.len()).sum();
        let key = (self.config.keymap).key_label(Mode::Normal, crate::tui::Action::ToSiblings);
        if let Status::Saved(m) = &self.status {
            self.status = Status::Saved(strings::sibling_offer(m, spans, carried.len(), &key));
        }
        self.siblings = Some(offer);
    }

    /// `=`: save the last decision's carried decisions on the sibling variants, record by
    /// record (a record whose save fails stops the rest, and says so).
    pub(super) fn carry_to_siblings(&mut self) {
        let here = self.cur.as_ref().ok().map(|c| c.index);
        let Some(offer) = self.siblings.take().filter(|o| Some(o.from) == here) else {
            self.status = Status::Info(strings::NO_SIBLING_OFFER.to_owned());
            return;
        };
        let (mut rows, mut records) = (0, 0);
        for (index, record, carried) in self.carried_to_siblings(&offer) {
            let with_origin: Vec<_> = carried.into_iter().map(|d| (d, new_origin())).collect();
            if self.must_wait() {
                let m = self.keep_unsaved(index, record, with_origin, crate::tui::log::BUSY);
                self.status = Status::Error(m);
                return;
            }
            match self.save_rows(index, &record, &with_origin) {
                Ok(saved) => {
                    saved.iter().for_each(crate::tui::log::trace_saved);
                    rows += saved.len();
                    records += 1;
                }
                Err((e, unreachable)) => {
                    let m = if unreachable {
                        self.keep_unsaved(index, record, with_origin, &e)
                    } else {
                        strings::siblings_not_saved(&record.id, rows, records, &e)
                    };
                    self.status = Status::Error(m);
                    return;
                }
            }
        }
        self.status = Status::Saved(strings::siblings_saved(rows, records));
    }

    /// The decisions `offer` gives each sibling variant of its record, as the log has them now:
    /// siblings this reviewer closed (clean or removed) and siblings with nothing to take are
    /// left out.
    fn carried_to_siblings(&mut self, offer: &Offer) -> Vec<Carried> {
        let Ok(c) = &self.cur else { return Vec::new() };
        let base = base_of(&c.record).to_owned();
        let mut out = Vec::new();
        for index in self.sibling_indices(&base, offer.from) {
            let Ok(record) = self.arb_config.read(&self.dataset, index) else {
                continue;
            };
            if base_of(&record) != base {
                continue;
            }
            let Ok(log) = self.log.record_decisions(&self.dataset.name, &record.id) else {
                continue;
            };
            let log = self.with_kept(&record.id, log);
            let review = self.shown_review(&record, &log);
            if matches!(
                closed_to(&review, &self.reviewer),
                Some(OutcomeKind::Clean | OutcomeKind::Removed)
            ) {
                continue;
            }
            let blind = self.hides_others(&record.id)
                && blind_view(&record, &log, &self.reviewer).is_some();
            let mut rows = carried(&offer.decision, &offer.text, &record, &review, &token());
            for d in &mut rows {
                d.group = blind.then(|| format!("{BLIND_GROUP}{}", token()));
            }
            if !rows.is_empty() {
                out.push((index, record, rows));
            }
        }
        out
    }

    /// Dataset indices of the records whose id names `base` (`base`, `base__…`), `own` left
    /// out; the ids of the records indexed so far are read once, the first time.
    fn sibling_indices(&mut self, base: &str, own: usize) -> Vec<usize> {
        self.ids.scan(&self.dataset, |_| false);
        let mut found = self.ids.of_base(base);
        found.retain(|&i| i != own);
        found
    }
}
