//! The rubric's reason codes on the review screen: with a rubric (`review --rubric`, `rubric`
//! in the config), dropping a span, saving new boundaries, relabeling or adding one, cleaning,
//! removing and flagging a record ask for a code (when the rubric has codes for it) — its
//! number or its letters — then an optional note (`2 hedged`, `V1: says 25°C`), saved as the
//! decision's reason `CODE` or `CODE: note`.

use super::{App, ModeState, PromptKind, Status};
use crate::review::decision::ActionKind;
use crate::review::rubric::Group;
use crate::tui::edit::Bounds;

impl App {
    /// `x`: the rubric's prompt for a drop, else the free-text one.
    pub(super) fn open_drop(&mut self) {
        if !self.ask_code(Group::Drop) {
            self.open_prompt(PromptKind::DropReason);
        }
    }

    /// Open the reason prompt for `group` when the rubric has codes for it; false without one.
    pub(super) fn ask_code(&mut self, group: Group) -> bool {
        self.ask(PromptKind::Reason(group))
    }

    /// With the rubric's adjust codes: the reason prompt for new boundaries `[start, end)`.
    pub(super) fn ask_adjust_code(&mut self, start: usize, end: usize) -> bool {
        self.ask(PromptKind::AdjustReason { start, end })
    }

    /// With the rubric's relabel (or, for `add`, add) codes: the reason prompt for label
    /// choice `choice`.
    pub(super) fn ask_label_code(&mut self, choice: usize, add: Option<(usize, usize)>) -> bool {
        self.ask(PromptKind::LabelReason { choice, add })
    }

    /// Open the code prompt `kind` when the rubric has codes for its group; false without.
    fn ask(&mut self, kind: PromptKind) -> bool {
        let has = kind.group().is_some_and(|g| {
            (self.config.rubric.as_ref()).is_some_and(|r| !r.codes_for(g.action()).is_empty())
        });
        if has {
            self.open_prompt(kind);
        }
        has
    }

    /// The relabel or add reason prompt confirmed with `typed`: saved with the code picked, or
    /// the prompt kept open with what is wrong.
    pub(super) fn labeled(&mut self, choice: usize, add: Option<(usize, usize)>, typed: &str) {
        let Some(rubric) = &self.config.rubric else {
            return;
        };
        let kind = PromptKind::LabelReason { choice, add };
        let action = kind.group().map_or(ActionKind::Relabel, Group::action);
        match (rubric.pick(action, typed), add) {
            (Ok(reason), Some((start, end))) => self.add_labeled(start, end, choice, reason),
            (Ok(reason), None) => self.relabel_to(choice, reason),
            (Err(why), _) => {
                self.status = Status::Error(why);
                self.mode = ModeState::Prompt {
                    kind,
                    text: typed.to_owned(),
                };
            }
        }
    }

    /// The adjust reason prompt confirmed with `typed`: the selected span's new boundaries
    /// `[start, end)` saved with the code picked, or the prompt kept open with what is wrong.
    pub(super) fn adjusted(&mut self, start: usize, end: usize, typed: &str) {
        let Some(rubric) = &self.config.rubric else {
            return;
        };
        match rubric.pick(ActionKind::Adjust, typed) {
            Ok(reason) => {
                let key = self.cur.as_ref().ok().and_then(|c| {
                    let i = c.selected_span()?;
                    Some(c.review.spans[i].key.clone())
                });
                if let Some(key) = key {
                    self.save_adjust(&key, Bounds { start, end }, reason);
                }
            }
            Err(why) => {
                self.status = Status::Error(why);
                self.mode = ModeState::Prompt {
                    kind: PromptKind::AdjustReason { start, end },
                    text: typed.to_owned(),
                };
            }
        }
    }

    /// The reason prompt confirmed with `typed`: the decision saved with the code picked, or the
    /// prompt kept open with what is wrong.
    pub(super) fn reasoned(&mut self, group: Group, typed: &str) {
        let Some(rubric) = &self.config.rubric else {
            return;
        };
        let reason = match rubric.pick(group.action(), typed) {
            Ok(r) => r,
            Err(why) => {
                self.status = Status::Error(why);
                self.mode = ModeState::Prompt {
                    kind: PromptKind::Reason(group),
                    text: typed.to_owned(),
                };
                return;
            }
        };
        match group {
            Group::Drop => self.drop_span(reason.as_deref().unwrap_or("")),
            Group::Remove => self.remove(reason.as_deref().unwrap_or("")),
            Group::Flag => {
                if let Some(mut d) = self.decision(ActionKind::Flag) {
                    d.reason = reason;
                    self.commit(d);
                }
            }
            Group::Clean => self.clean_for(reason),
            // Adjust, relabel and add have prompts of their own (they carry boundaries or a
            // label).
            Group::Adjust | Group::Relabel | Group::Add => {}
        }
    }
}
