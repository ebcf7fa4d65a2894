//! Evidence and search occurrences, prompts and pickers, and the keys of the adjust, add and
//! arbitration-edit modes that are more than one action: a count before a move (`3l`), a
//! find-character move waiting for its character (`f,`), the line moves of add.

use super::{App, Hits, ModeState, PickerKind, PromptKind, Status};
use crate::review::labeled::LabelName;
use crate::tui::{contradiction, edit, evidence};
use crate::tui::{strings, Action};

impl App {
    // ----- evidence -----

    /// Recompute the evidence occurrences of the selected span and scroll the context to the
    /// first (strongest) one.
    pub(super) fn refresh_hits(&mut self) {
        let Ok(c) = &mut self.cur else { return };
        let (start, end, contra) = c.selected_span().map_or((0, 0, false), |i| {
            let v = &c.review.spans[i].current;
            (v.start, v.end, contradiction::is_contradiction(&v.label))
        });
        let text = c.map.slice(&c.record.output, start, end).unwrap_or("");
        let terms = evidence::terms(text);
        // The span's own text, else the context values it may contradict, ranked.
        let ev = contradiction::for_span(
            (&c.record.output, &c.map),
            (start, end),
            contra,
            &c.context,
            &c.context_folded,
        );
        c.hits = Hits {
            context: ev.hits,
            query: c.query_folded.find(&terms),
            output: Vec::new(),
            current: None,
            search: None,
            ranked: ev.ranked,
        };
        // The context is where evidence usually is: show its strongest hit (or best-ranked
        // candidate) first (`e` then walks the ranking, then on in reading order, the query's
        // hits included).
        c.hits.set_context(ev.first);
        self.scroll.context_anchor = c.hits.current_context().map(|i| c.hits.context[i].start);
    }

    pub(super) fn search(&mut self, text: &str) {
        let Ok(c) = &mut self.cur else { return };
        if text.trim().is_empty() {
            self.refresh_hits();
            return;
        }
        let term = vec![evidence::Term {
            text: evidence::fold(text),
            weight: evidence::Weight::Whole,
        }];
        c.hits = Hits {
            context: c.context_folded.find(&term),
            query: c.query_folded.find(&term),
            output: c
                .output_folded
                .get_or_init(|| evidence::Folded::new(&c.record.output))
                .find(&term),
            current: None,
            search: Some(text.to_owned()),
            ranked: contradiction::Ranked::default(),
        };
        c.hits
            .set_context((!c.hits.context.is_empty()).then_some(0));
        self.scroll.context_anchor = c.hits.current_context().map(|i| c.hits.context[i].start);
        let n = c.hits.context.len() + c.hits.query.len() + c.hits.output.len();
        self.status = Status::Info(strings::matches(n, text));
    }

    /// Go to the next evidence or search hit in reading order: the query's hits, then the
    /// context's (wrapping). A context hit scrolls the context to it; the query pane follows
    /// its current hit when drawn.
    pub(super) fn next_evidence(&mut self) {
        let Ok(c) = &mut self.cur else { return };
        let n = c.hits.visited();
        if n == 0 {
            self.status = Status::Info(strings::NO_EVIDENCE.to_owned());
            return;
        }
        let ranked = c.hits.ranked.pos.is_some() || c.hits.current.is_none();
        if ranked && self.show_ranked() {
            return;
        }
        let Ok(c) = &mut self.cur else { return };
        let next = c.hits.current.map_or(0, |i| (i + 1) % n);
        if next == 0 && !c.hits.ranked.order.is_empty() {
            // A full walk done: the next `e` starts the ranking again.
            c.hits.ranked.pos = None;
            if self.show_ranked() {
                return;
            }
        }
        let Ok(c) = &mut self.cur else { return };
        c.hits.current = Some(next);
        let pane = match c.hits.current_context() {
            Some(i) => {
                self.scroll.context_anchor = Some(c.hits.context[i].start);
                strings::CONTEXT
            }
            None => strings::QUERY,
        };
        self.status = Status::Info(strings::occurrence(next + 1, n, pane));
    }

    /// Show the next candidate of the ranked walk in the context, saying why it ranks; false
    /// when the walk is over.
    fn show_ranked(&mut self) -> bool {
        let Ok(c) = &mut self.cur else { return false };
        let Some((i, why)) = c.hits.ranked.step() else {
            return false;
        };
        let msg = strings::candidate(why);
        c.hits.set_context(Some(i));
        self.scroll.context_anchor = c.hits.context.get(i).map(|h| h.start);
        self.status = Status::Info(msg);
        true
    }

    // ----- counts before moves -----

    /// One action in the adjust, add or arbitration-edit mode. Digits build a count (a first
    /// digit of 1-9; the digits are free there) that repeats the next move: `3l` moves the
    /// start three characters right. Esc with a count typed clears only the count.
    pub(super) fn motion_keys(&mut self, action: Action) {
        if let Some(find) = self.finding.take() {
            let times = self.count.take().unwrap_or(1);
            self.status = Status::None;
            if let Action::Input(ch) = action {
                self.find_char(find, ch, times);
            }
            return;
        }
        if is_find(action) {
            // The count typed before it, if any, waits with it.
            self.finding = Some(action);
            self.status = Status::Info(strings::FIND_CHAR.to_owned());
            return;
        }
        if let Action::Input(d) = action {
            if let Some(v) = d.to_digit(10) {
                if v > 0 || self.count.is_some() {
                    let n = self
                        .count
                        .unwrap_or(0)
                        .saturating_mul(10)
                        .saturating_add(v as usize)
                        .min(MAX_COUNT);
                    self.count = Some(n);
                    self.status = Status::Info(strings::count_typed(n));
                    return;
                }
            }
        }
        let count = self.count.take();
        if count.is_some() {
            self.status = Status::None;
            if action == Action::Cancel {
                return;
            }
        }
        if matches!(self.mode, ModeState::Add { .. })
            && matches!(action, Action::LineStart | Action::LineEnd)
        {
            self.line_cursor(action == Action::LineEnd);
            return;
        }
        // More moves than the text has characters change nothing further.
        let len = self.cur.as_ref().map_or(0, |c| c.chars.len());
        let times = if is_move(action) {
            count.unwrap_or(1).min(len + 1)
        } else {
            1
        };
        for _ in 0..times {
            match self.mode {
                ModeState::Adjust { .. } => self.adjust(action),
                ModeState::Add { .. } => self.add_mode(action),
                ModeState::Settle { .. } => match action {
                    Action::NextVersion => self.settle_version(1),
                    Action::PrevVersion => self.settle_version(-1),
                    _ => self.settle_mode(action),
                },
                _ => return,
            }
        }
    }

    /// Add mode: the cursor to its line's first character, or (`end`) its last.
    fn line_cursor(&mut self, end: bool) {
        let ModeState::Add { cursor, .. } = &mut self.mode else {
            return;
        };
        let Ok(c) = &self.cur else { return };
        let last = c.chars.len().saturating_sub(1);
        *cursor = if end {
            edit::line_last(&c.chars, *cursor).saturating_sub(1).max(
                // A blank line: stay on it.
                edit::line_first(&c.chars, *cursor),
            )
        } else {
            edit::line_first(&c.chars, *cursor)
        }
        .min(last);
    }

    /// Add mode: move the cursor to the `times`-th `ch` that way (`find` says which way,
    /// and whether onto it or next to it); it stays, with a message, when there is none.
    fn find_char(&mut self, find: Action, ch: char, times: usize) {
        let ModeState::Add { cursor, .. } = &mut self.mode else {
            return;
        };
        let Ok(c) = &self.cur else { return };
        let forward = matches!(find, Action::FindForward | Action::TillForward);
        let till = matches!(find, Action::TillForward | Action::TillBackward);
        let times = times.min(c.chars.len() + 1);
        let Some(at) = edit::find_char(&c.chars, *cursor, ch, forward, till, times) else {
            self.status = Status::Info(strings::no_char(ch));
            return;
        };
        *cursor = at;
    }

    // ----- prompts and pickers -----

    pub(super) fn prompt(&mut self, action: Action) {
        let ModeState::Prompt { kind, mut text } = self.mode.clone() else {
            return;
        };
        match action {
            Action::Input(ch) => {
                text.push(ch);
                self.mode = ModeState::Prompt { kind, text };
            }
            Action::DeleteChar => {
                text.pop();
                self.mode = ModeState::Prompt { kind, text };
            }
            Action::Cancel => self.mode = ModeState::Normal,
            Action::Confirm => {
                self.mode = ModeState::Normal;
                match kind {
                    PromptKind::DropReason => self.drop_span(&text),
                    PromptKind::Note => self.note(&text),
                    PromptKind::Goto => self.goto(&text),
                    PromptKind::Search => self.search(&text),
                    PromptKind::RemoveOther => self.remove(&text),
                    PromptKind::Reason(group) => self.reasoned(group, &text),
                    PromptKind::AdjustReason { start, end } => self.adjusted(start, end, &text),
                    PromptKind::LabelReason { choice, add } => self.labeled(choice, add, &text),
                }
            }
            _ => {}
        }
    }

    pub(super) fn goto(&mut self, text: &str) {
        let t = text.trim();
        if t.is_empty() {
            return;
        }
        if let Ok(n) = t.parse::<usize>() {
            if n >= 1 && self.queue_get(n - 1, self.index_wait).is_some() {
                self.go(n - 1);
                return;
            }
        }
        match self.find_id(t) {
            Some(idx) => self.go_index(idx),
            None if !self.dataset.indexed() => {
                self.status = Status::Error(strings::not_found_so_far(t, self.dataset.len()));
            }
            None => self.status = Status::Error(strings::no_record(t)),
        }
    }

    pub(super) fn picker(&mut self, action: Action) {
        let ModeState::Picker {
            kind,
            items,
            mut sel,
            mut typed,
        } = self.mode.clone()
        else {
            return;
        };
        let n = items.len();
        let choose = match action {
            Action::Down => {
                sel = (sel + 1).min(n.saturating_sub(1));
                typed.clear();
                None
            }
            Action::Up => {
                sel = sel.saturating_sub(1);
                typed.clear();
                None
            }
            Action::Input(ch) if ch.is_ascii_digit() => {
                match typed_choice(&typed, ch, n) {
                    Typed::Choose(i) => Some(i),
                    Typed::Wait(t, i) => {
                        typed = t;
                        sel = i;
                        None
                    }
                    // Nothing is chosen by a number no row has: the digits start again.
                    Typed::NoSuchRow => {
                        self.status = Status::Info(strings::no_row(&format!("{typed}{ch}"), n));
                        typed.clear();
                        None
                    }
                }
            }
            Action::DeleteChar => {
                typed.pop();
                None
            }
            Action::Confirm => Some(sel),
            Action::Cancel => {
                self.mode = ModeState::Normal;
                return;
            }
            _ => None,
        };
        match choose {
            None => {
                self.mode = ModeState::Picker {
                    kind,
                    items,
                    sel,
                    typed,
                };
            }
            Some(i) => {
                self.mode = ModeState::Normal;
                self.picked(&kind, i);
            }
        }
    }

    /// The label choices for the record on screen.
    #[must_use]
    pub fn label_choices(&self) -> Vec<LabelName> {
        match &self.cur {
            Ok(c) => crate::tui::labels::choices(self.labels.as_deref(), &c.record),
            Err(_) => Vec::new(),
        }
    }

    pub(super) fn open_picker(&mut self, kind: PickerKind, items: Vec<String>, sel: usize) {
        self.mode = ModeState::Picker {
            kind,
            items,
            sel,
            typed: String::new(),
        };
    }
}

/// The largest count: longer than any answer's text.
const MAX_COUNT: usize = 99_999;

/// The actions a count repeats: the character and word moves of adjust and add.
fn is_move(a: Action) -> bool {
    matches!(
        a,
        Action::StartLeft
            | Action::StartRight
            | Action::EndLeft
            | Action::EndRight
            | Action::StartWordLeft
            | Action::StartWordRight
            | Action::EndWordLeft
            | Action::EndWordRight
            | Action::CursorLeft
            | Action::CursorRight
            | Action::CursorWordLeft
            | Action::CursorWordRight
    )
}

/// The find-character moves (add mode), which wait for a character.
fn is_find(a: Action) -> bool {
    matches!(
        a,
        Action::FindForward | Action::FindBackward | Action::TillForward | Action::TillBackward
    )
}

/// What a digit typed in a picker of `n` rows does after the digits `typed`.
#[derive(Debug, PartialEq, Eq)]
enum Typed {
    /// Row `i` (0-based) is chosen: no longer number names a row.
    Choose(usize),
    /// The digits so far (the first argument) name row `i`, and a longer number could name
    /// another: wait for the next digit or Enter.
    Wait(String, usize),
    /// The digits name no row.
    NoSuchRow,
}

fn typed_choice(typed: &str, digit: char, n: usize) -> Typed {
    let t = format!("{typed}{digit}");
    match t.parse::<usize>() {
        Ok(k) if k >= 1 && k <= n && !t.starts_with('0') => {
            if k.saturating_mul(10) > n {
                Typed::Choose(k - 1)
            } else {
                Typed::Wait(t, k - 1)
            }
        }
        _ => Typed::NoSuchRow,
    }
}

#[cfg(test)]
mod tests {
    use super::{typed_choice, Typed};

    #[test]
    fn digits_build_a_row_number() {
        // Nine rows or fewer: the digit chooses at once, as before.
        assert_eq!(typed_choice("", '3', 3), Typed::Choose(2));
        assert_eq!(typed_choice("", '4', 3), Typed::NoSuchRow);
        assert_eq!(typed_choice("", '0', 12), Typed::NoSuchRow);
        // Twelve rows: `1` may start 10, 11 or 12, so it waits; `2` after it is row 12.
        assert_eq!(typed_choice("", '1', 12), Typed::Wait("1".into(), 0));
        assert_eq!(typed_choice("1", '2', 12), Typed::Choose(11));
        assert_eq!(typed_choice("1", '0', 12), Typed::Choose(9));
        assert_eq!(typed_choice("1", '3', 12), Typed::NoSuchRow);
        assert_eq!(typed_choice("", '2', 12), Typed::Choose(1));
        // A hundred rows: `1`, `0` may still start 100.
        assert_eq!(typed_choice("1", '0', 100), Typed::Wait("10".into(), 9));
        assert_eq!(typed_choice("10", '0', 100), Typed::Choose(99));
    }
}
