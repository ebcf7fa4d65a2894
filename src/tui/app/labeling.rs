//! A span relabeled or added once its label is picked (and, with a rubric that has codes for
//! it, the reason code asked after the picker: [`App::ask_label_code`]).

use super::decide::token;
use super::{App, Status};
use crate::review::decision::{ActionKind, SpanKey, SpanValue};
use crate::tui::strings;

impl App {
    /// Relabel the selected span with label choice `i`, for `reason`.
    pub(super) fn relabel_to(&mut self, i: usize, reason: Option<String>) {
        let Some(choice) = self.label_choices().get(i).cloned() else {
            return;
        };
        let Some(mut d) = self.span_decision(ActionKind::Relabel) else {
            return;
        };
        let Some(before) = d.before.clone() else {
            return;
        };
        let after = SpanValue {
            label: choice.label,
            category: choice.category.or_else(|| before.category.clone()),
            subcategory: choice.subcategory,
            ..before.clone()
        };
        if after == before {
            self.status = Status::Info(strings::UNCHANGED.to_owned());
            return;
        }
        d.after = Some(after);
        d.reason = reason;
        self.commit(d);
    }

    /// Add a span over `[start, end)` with label choice `i`, for `reason`.
    pub(super) fn add_labeled(
        &mut self,
        start: usize,
        end: usize,
        i: usize,
        reason: Option<String>,
    ) {
        let Some(choice) = self.label_choices().get(i).cloned() else {
            return;
        };
        let after = SpanValue::labeled(start, end, choice);
        // The same span twice would be two identical labels in the export.
        let twin = self.cur.as_ref().ok().and_then(|c| {
            let k = crate::review::check::twin(&c.review, &after)?;
            c.order.iter().position(|&o| o == k)
        });
        if let Some(p) = twin {
            if let Ok(c) = &mut self.cur {
                c.selected = p;
            }
            self.refresh_hits();
            self.status = Status::Info(strings::ALREADY_THERE.to_owned());
            return;
        }
        let Some(mut d) = self.decision(ActionKind::Add) else {
            return;
        };
        d.span_key = Some(SpanKey::Added(token()).to_string());
        d.after = Some(after);
        d.reason = reason;
        let key = d.key();
        if self.commit(d).is_some() {
            if let (Ok(c), Some(k)) = (&mut self.cur, key) {
                c.reorder(Some(&k));
            }
            self.refresh_hits();
            self.say_if_typed_clean();
        }
    }
}
