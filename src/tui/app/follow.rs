//! Following the log of the record on screen: decisions another process (a second reviewer on
//! the same database) saves on it are shown, saying who did what and how long ago, beside (not
//! instead of) one's own "saved #N"; one's own decision that overrides another reviewer's says
//! so; and the database file is checked to still be the one written.

use std::collections::HashSet;
use std::time::{Duration, SystemTime};

use super::{App, Current, Status};
use crate::review::decision::{overridden, replay, ActionKind, Decision, SpanValue};
use crate::review::team::blind_view;
use crate::store::parse_rfc3339;
use crate::tui::{strings, text};

/// How often an idle screen re-reads the log of the record on screen.
const FOLLOW_EVERY: Duration = Duration::from_millis(900);

/// Span text quoted in a notice, in columns.
const QUOTE_WIDTH: usize = 24;

/// The following's state.
#[derive(Debug, Default)]
pub(super) struct Follow {
    /// When the log was last compared (by the log's clock; `None`: never).
    at: Option<SystemTime>,
    /// The notice last added to the status line: the next one replaces it instead of
    /// piling up behind it.
    notice: Option<String>,
    /// What a save found (decisions seen for the first time, one's own overriding another's)
    /// on the record with this dataset index, for the status line the caller sets.
    pending: Option<(usize, String)>,
    /// The database file was reported gone.
    gone_told: bool,
    /// The dataset index of the record whose read failed (its decisions could not be read: a
    /// server unreachable) and the error shown instead: read again at each follow while that
    /// error is on screen, until the record shows.
    pub(super) unread: Option<(usize, String)>,
}

impl App {
    /// Compare the record on screen with the log when [`FOLLOW_EVERY`] has passed (by the
    /// log's clock).
    pub(super) fn follow_if_due(&mut self) {
        if super::due(self.log.now(), self.follow.at, FOLLOW_EVERY) {
            self.follow_log();
        }
    }

    /// Follow the log of the record on screen (a shared database's team poll reads it with
    /// the other records' new decisions, [`App::poll_team`], so it is re-read here only for
    /// logs without one). Also tell, once, that the database file went away.
    pub(super) fn follow_log(&mut self) {
        self.follow.at = Some(self.log.now());
        if let Err(e) = self.log.check() {
            if !self.follow.gone_told {
                self.follow.gone_told = true;
                self.status = Status::Error(e);
            }
        }
        // A save whose caller set the status line itself (an arbitration resolution): said
        // now, unless the reviewer has moved to another record.
        self.add_notice();
        if let (Some((idx, shown)), Err(e)) = (&self.follow.unread, &self.cur) {
            if shown == e && self.read(*idx).is_ok() {
                self.load(*idx);
            }
        }
        if self.log.team().is_some() {
            return;
        }
        let Ok(c) = &self.cur else { return };
        if let Ok(log) = self.log.record_decisions(&self.dataset.name, &c.record.id) {
            self.follow_with(log);
        }
    }

    /// `log`, the record on screen's whole log as read now: when another process (a second
    /// reviewer on the same database) saved decisions on it since, show them, and say who did
    /// what: the screen would otherwise keep showing a span accepted that the log, and the
    /// export, have as dropped.
    pub(super) fn follow_with(&mut self, log: Vec<Decision>) {
        let Ok(c) = &self.cur else { return };
        // Decisions kept for a retry stay shown after the log's.
        let log = self.with_kept(&c.record.id, log);
        let known: HashSet<i64> = c.decisions.iter().map(|d| d.id).collect();
        if log.len() == known.len() && log.iter().all(|d| known.contains(&d.id)) {
            return;
        }
        let news: Vec<&Decision> = log.iter().filter(|d| !known.contains(&d.id)).collect();
        let notice = describe_news(c, &news, &log, &self.reviewer, self.log.now());
        let (id, index) = (c.record.id.clone(), c.index);
        if let Ok(c) = &mut self.cur {
            c.decisions = log;
        }
        self.reload_review();
        let Ok(c) = &self.cur else { return };
        // The record's state is the whole log's, whatever the screen shows of it.
        let state = crate::tui::log::state_of(&replay(&c.record, &c.decisions));
        let hidden = self.blind_here();
        self.set_state(index, &id, state);
        // Blind review: nothing is said of what the others did.
        if !hidden {
            self.announce(notice.unwrap_or_else(|| strings::UPDATED_ELSEWHERE.to_owned()));
        }
    }

    /// True while blind review hides the other reviewers' work on the record on screen
    /// ([`App::hides_others`], and this reviewer has not decided it yet).
    fn blind_here(&self) -> bool {
        let Ok(c) = &self.cur else { return false };
        self.hides_others(&c.record.id)
            && blind_view(&c.record, &c.decisions, &self.reviewer).is_some()
    }

    /// What a save of `saved` on the record on screen (`shown`: the ids of its decisions the
    /// screen showed before) found in the log it was saved into (`log`, the new rows last):
    /// other reviewers' decisions the screen had not shown yet, and another reviewer's
    /// decision in force that it overrides. Kept for [`App::add_notice`].
    pub(super) fn note_save(&mut self, shown: &[i64], log: &[Decision], saved: &[Decision]) {
        let Ok(c) = &self.cur else { return };
        if self.hides_others(&c.record.id) && blind_view(&c.record, log, &self.reviewer).is_some() {
            // Blind review: the others' decisions are not told before this reviewer decided.
            self.follow.pending = None;
            return;
        }
        let now = self.log.now();
        let prior = &log[..log.len().saturating_sub(saved.len())];
        let known: HashSet<i64> = shown.iter().copied().collect();
        let news: Vec<&Decision> = prior.iter().filter(|d| !known.contains(&d.id)).collect();
        let mut parts = Vec::new();
        let over: Vec<(&Decision, &Decision)> = saved
            .iter()
            .filter_map(|d| Some((overridden(prior, d, &self.reviewer)?, d)))
            .collect();
        for (o, d) in &over {
            // An accept-all names no span: it accepted the one now decided.
            let all = o.action == ActionKind::AcceptAll;
            let span = span_of(c, o).or_else(|| all.then(|| span_of(c, d)).flatten());
            parts.push(strings::overrides(
                &o.reviewer,
                o.action.name(),
                &span.unwrap_or_default(),
                &age(&o.time, now),
            ));
        }
        let rest: Vec<&Decision> = news
            .into_iter()
            .filter(|d| !over.iter().any(|(o, _)| o.id == d.id))
            .collect();
        if let Some(n) = describe_news(c, &rest, log, &self.reviewer, now) {
            parts.push(n);
        }
        self.follow.pending = (!parts.is_empty()).then(|| (c.index, parts.join(" · ")));
    }

    /// Add what the last save found to the status line (after "saved #N"), when its record
    /// is still on screen.
    pub(super) fn add_notice(&mut self) {
        let here = self.cur.as_ref().ok().map(|c| c.index);
        if let Some((index, n)) = self.follow.pending.take() {
            if here == Some(index) {
                self.announce(n);
            }
        }
    }

    /// Put `notice` on the status line beside one's own "saved #N" or error (replacing the
    /// previous notice there), else in place of what it said.
    fn announce(&mut self, notice: String) {
        let tail = self.follow.notice.as_ref().map(|n| format!(" · {n}"));
        let base = |m: &str| -> String {
            tail.as_deref()
                .and_then(|t| m.strip_suffix(t))
                .unwrap_or(m)
                .to_owned()
        };
        self.status = match &self.status {
            Status::Saved(m) => Status::Saved(format!("{} · {notice}", base(m))),
            Status::Error(m) => Status::Error(format!("{} · {notice}", base(m))),
            Status::Info(_) | Status::None => Status::Info(notice.clone()),
        };
        self.follow.notice = Some(notice);
    }
}

/// The notice for decisions seen for the first time: the last one by someone, and how many
/// more (`None` when there are none).
fn describe_news(
    c: &Current,
    news: &[&Decision],
    log: &[Decision],
    me: &str,
    now: SystemTime,
) -> Option<String> {
    let last = news.last()?;
    let what = describe(c, last, log);
    // It replaced one of this reviewer's own decisions: say which.
    let before: Vec<Decision> = log.iter().filter(|d| d.id < last.id).cloned().collect();
    let over = overridden(&before, last, &last.reviewer)
        .filter(|o| o.reviewer == me)
        .map(|o| o.action.name());
    let line = strings::decided_elsewhere(&last.reviewer, &what, &age(&last.time, now), over);
    Some(strings::and_more(&line, news.len() - 1))
}

/// How long ago `time` (RFC 3339) was; empty when it cannot be read.
fn age(time: &str, now: SystemTime) -> String {
    parse_rfc3339(time).map_or_else(String::new, |t| {
        strings::ago(now.duration_since(t).map_or(0, |d| d.as_secs()))
    })
}

/// A span as the notice names it: `“rainy” [29, 34)`.
fn quote(c: &Current, v: &SpanValue) -> String {
    let t = c.map.slice(&c.record.output, v.start, v.end).unwrap_or("");
    format!(
        "“{}” [{}, {})",
        text::truncate(t, QUOTE_WIDTH),
        v.start,
        v.end
    )
}

/// The span a decision is about, as it was before it (after it, for an added span).
fn span_of(c: &Current, d: &Decision) -> Option<String> {
    d.before.as_ref().or(d.after.as_ref()).map(|v| quote(c, v))
}

/// What a decision did, as a verb phrase (`dropped “rainy” [29, 34)`); an undo or redo names
/// what it acts on, found in `log`.
fn describe(c: &Current, d: &Decision, log: &[Decision]) -> String {
    let span = span_of(c, d).unwrap_or_default();
    let after = d.after.as_ref();
    let phrase = match d.action {
        ActionKind::Accept => format!("accepted {span}"),
        ActionKind::Drop => format!("dropped {span}"),
        ActionKind::Adjust => match after {
            Some(a) => format!("moved {span} to [{}, {})", a.start, a.end),
            None => format!("adjusted {span}"),
        },
        ActionKind::Relabel => match after {
            Some(a) => format!("relabeled {span} as {}", text::escape_line(&a.label)),
            None => format!("relabeled {span}"),
        },
        ActionKind::Add => format!("added {span}"),
        ActionKind::Resolve => format!("resolved {span}"),
        ActionKind::AcceptAll => "accepted every span".to_owned(),
        ActionKind::Clean => "reclassified the record clean".to_owned(),
        ActionKind::Remove => "removed the record".to_owned(),
        ActionKind::Retype => format!(
            "changed the record's type to {}",
            text::escape_line(d.record_type.as_deref().unwrap_or(""))
        ),
        ActionKind::Flag if d.flag_on == Some(false) => "unflagged the record".to_owned(),
        ActionKind::Flag => "flagged the record".to_owned(),
        ActionKind::Note => format!(
            "noted “{}”",
            text::truncate(d.note.as_deref().unwrap_or(""), QUOTE_WIDTH)
        ),
        ActionKind::Undo | ActionKind::Redo => {
            let verb = if d.action == ActionKind::Undo {
                "undid"
            } else {
                "redid"
            };
            let t = d.target.unwrap_or_default();
            match log.iter().find(|x| x.id == t) {
                Some(x) => format!(
                    "{verb} #{t} ({}{})",
                    x.action.name(),
                    span_of(c, x)
                        .map(|s| format!(" of {s}"))
                        .unwrap_or_default()
                ),
                None => format!("{verb} #{t}"),
            }
        }
    };
    phrase.trim_end().to_owned()
}
