//! Changing a record's type (`retype`): a picker of the types seen, and the decision.

use super::{App, PickerKind, Status};
use crate::review::decision::{replay, ActionKind};
use crate::tui::strings;

impl App {
    /// The types a record may be given: those of the records read this session (the file's
    /// types as far as it has been read), then the label set's (for a dataset whose span labels
    /// are its types, as toolace's), without the record's own type.
    fn type_choices(&self) -> Vec<String> {
        if self.cur.is_err() {
            return Vec::new();
        }
        let own = self.type_now();
        let mut seen: Vec<String> = self
            .visited
            .iter()
            .filter_map(|&i| self.arb_config.read(&self.dataset, i).ok())
            .filter_map(|r| r.corruption_type)
            .collect();
        seen.sort();
        seen.extend(self.label_choices().into_iter().map(|l| l.label));
        let mut out: Vec<String> = Vec::new();
        for t in seen {
            if !t.is_empty() && Some(&t) != own.as_ref() && !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    /// The record's type as the whole log gives it (what apply checks a retype against),
    /// whatever view of the record the screen shows.
    fn type_now(&self) -> Option<String> {
        let c = self.cur.as_ref().ok()?;
        replay(&c.record, &c.decisions)
            .current_type(&c.record)
            .map(str::to_owned)
    }

    pub(super) fn open_retype(&mut self) {
        if self.cur.is_err() {
            return;
        }
        let types = self.type_choices();
        if types.is_empty() {
            self.status = Status::Info(strings::NO_OTHER_TYPE.to_owned());
            return;
        }
        self.open_picker(
            PickerKind::Retype {
                types: types.clone(),
            },
            types,
            0,
        );
    }

    pub(super) fn retype(&mut self, ty: &str) {
        // A picker offered before the log moved on may name the type the record has now.
        if self.type_now().as_deref() == Some(ty) {
            self.status = Status::Info(strings::NO_OTHER_TYPE.to_owned());
            return;
        }
        if let Some(mut d) = self.decision(ActionKind::Retype) {
            d.record_type = Some(ty.to_owned());
            self.commit(d);
        }
    }
}
