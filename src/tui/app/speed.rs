//! Reviewer-speed keys of the review screen: `N`, the next record (in queue order, wrapping)
//! holding the text last searched with `/`; and where add mode starts: `V` just after the
//! selected span, `v` at a character clicked on this record (else the search's hit, else the
//! selected span's start).

use super::{App, Status};
use crate::tui::{evidence, strings};

/// Records `N` reads per key press before it stops and says where it got to (a 15 GB file
/// is not read whole behind one key); the next `N` goes on from there.
pub(super) const RECORD_SEARCH_BATCH: usize = 20_000;

/// What the speed keys remember between presses.
#[derive(Debug, Default)]
pub(super) struct Speed {
    /// The text `N` looks for: the search in force when it was last pressed.
    text: Option<String>,
    /// Where a search stopped by [`RECORD_SEARCH_BATCH`] goes on: the queue position it
    /// started from, the next position to read, and whether it has wrapped.
    resume: Option<(usize, usize, bool)>,
    /// A click on the output in the review screen: dataset index, code point, and the search
    /// in force then (a later search takes `v` back to its hit).
    click: Option<(usize, usize, Option<String>)>,
}

/// True when `record` shows `folded` (a text folded with [`evidence::fold`]) in its query,
/// context or output, case-insensitively. The context is also searched as the pane shows it
/// when the file escapes its characters (`\u6771`).
fn holds(record: &crate::model::Record, folded: &str) -> bool {
    let has = |s: &str| evidence::fold(s).contains(folded);
    has(&record.output)
        || has(&record.query)
        || has(&record.context)
        || (record.context.contains("\\u") && has(&evidence::pretty_context(&record.context)))
}

impl App {
    /// `N`: go to the next record of the queue, after the one on screen and wrapping to the
    /// queue's start, that holds the text searched with `/` (the search in force, else the
    /// last one `N` looked for), and search it there so its hits show and `v` starts on it.
    pub(super) fn next_search_record(&mut self) {
        let now = self.cur.as_ref().ok().and_then(|c| c.hits.search.clone());
        if now.is_some() && now != self.speed.text {
            self.speed.text = now;
            self.speed.resume = None;
        }
        let Some(text) = self.speed.text.clone() else {
            self.status = Status::Info(strings::NO_RECORD_SEARCH.to_owned());
            return;
        };
        let folded = evidence::fold(&text);
        let (mut pos, mut wrapped) = match self.speed.resume.take() {
            Some((from, next, w)) if from == self.pos => (next, w),
            _ => (self.pos + 1, false),
        };
        for _ in 0..RECORD_SEARCH_BATCH {
            if wrapped && pos >= self.pos {
                self.status = Status::Info(strings::record_search_none(&text));
                return;
            }
            let Some(idx) = self.queue_get(pos, self.index_wait) else {
                if wrapped {
                    self.status = Status::Info(strings::record_search_none(&text));
                    return;
                }
                wrapped = true;
                pos = 0;
                continue;
            };
            // An unreadable record holds nothing to find; the reviewer meets its error on `n`.
            let found = self
                .dataset
                .primary()
                .record(idx)
                .is_ok_and(|r| holds(&r, &folded));
            if found {
                self.go(pos);
                self.search(&text);
                self.status = Status::Info(strings::record_search_found(&text, pos, wrapped));
                return;
            }
            pos += 1;
        }
        if wrapped && pos >= self.pos {
            self.status = Status::Info(strings::record_search_none(&text));
            return;
        }
        self.speed.resume = Some((self.pos, pos, wrapped));
        self.status = Status::Info(strings::record_search_batch(
            &text,
            RECORD_SEARCH_BATCH,
            pos.saturating_sub(1),
        ));
    }

    /// A click (not a drag) on the output of the review screen at code point `cp`: `v` then
    /// starts there. A click on a span selects it (`v` keeps starting at its start).
    pub(super) fn remember_click(&mut self, cp: usize) {
        let Ok(c) = &self.cur else { return };
        let on_span = c.order.iter().any(|&i| {
            let v = &c.review.spans[i].current;
            v.start <= cp && cp < v.end
        });
        self.speed.click = (!on_span).then(|| (c.index, cp, c.hits.search.clone()));
    }

    /// `v`: add mode at the character last clicked on this record, unless a search was made
    /// since (then at its hit, as [`App::open_add_at_search`]).
    pub(super) fn open_add_here(&mut self) {
        self.open_add_at_search();
        let Ok(c) = &self.cur else { return };
        let Some((idx, cp, search)) = &self.speed.click else {
            return;
        };
        if *idx != c.index || *search != c.hits.search || *cp >= c.chars.len() {
            return;
        }
        self.start_add_at(*cp);
    }

    /// `V`: add mode with the cursor just after the selected span (its first non-blank
    /// character after the end), where a span the labels stopped short of goes on.
    pub(super) fn open_add_after_span(&mut self) {
        if !self.require_span() {
            return;
        }
        let Ok(c) = &self.cur else { return };
        let Some(i) = c.selected_span() else { return };
        let end = c.review.spans[i].current.end;
        let Some(at) = (end..c.chars.len()).find(|&k| !c.chars[k].is_whitespace()) else {
            self.status = Status::Info(strings::NOTHING_AFTER_SPAN.to_owned());
            return;
        };
        self.open_add();
        self.start_add_at(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Record;

    fn record(query: &str, context: &str, output: &str) -> Record {
        Record {
            id: "r".into(),
            query: query.into(),
            context: context.into(),
            output: output.into(),
            corruption_type: None,
            sources: Vec::new(),
            raw: serde_json::Value::Null,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_record_holds_text_in_any_case_and_behind_json_escapes() {
        let r = record(
            "Wetter in Zürich?",
            r#"{"content": {"city": "\u6771\u4eac", "sky": "☀️"}}"#,
            "Es ist SONNIG 👋 in cafe\u{301}",
        );
        for (text, yes) in [
            ("sonnig 👋", true),
            ("ZÜRICH", true),
            ("東京", true),
            ("☀️", true),
            ("CAFE\u{301}", true),
            ("regen", false),
        ] {
            assert_eq!(holds(&r, &evidence::fold(text)), yes, "{text}");
        }
    }
}
