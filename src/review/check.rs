//! Whether a decision may join a record's log: the rules the review screen enforces key by key,
//! for decisions that come from elsewhere (`spanreview apply`: a scripted triage, another
//! tool's review, a `decisions --json` log replayed into another database).
//!
//! The screen builds each decision from what it shows, so its checks are implicit in what a key
//! can do: it names a span that is there, fills `before` with the span's value now, keeps only
//! spans that slice the answer ([`range_problem`]), refuses span edits on a record its reviewer
//! reclassified clean or removed ([`closed_to`]), retypes only to another type, and undoes only
//! the reviewer's latest decision in force ([`undo_target`]). [`check`] applies the same rules to a decision given
//! whole, and fills in what the screen would have (`before`, an undo's span key, a removal's
//! reason, notes and reasons trimmed: [`kept_text`]).

use thiserror::Error;

use super::decision::{
    kept_text, redo_target_of, replay, undo_target_of, ActionKind, Decision, OutcomeKind,
    RecordReview, SpanKey, SpanStatus, SpanValue, OTHER_REASON,
};
use crate::model::span::{range_problem, RangeProblem};
use crate::model::{Record, CLEAN};

/// Why a decision may not join a record's log.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Refusal {
    /// The decision was made on other content than the record's now.
    #[error(
        "record {record:?} has changed since the decision was made (record_hash {given}, the \
         record's is {now}): review it again"
    )]
    Stale {
        /// The record.
        record: String,
        /// The decision's hash.
        given: String,
        /// The record's hash now.
        now: String,
    },
    /// A field the action needs is missing or empty.
    #[error("action {action} needs {field}")]
    Missing {
        /// The action's name.
        action: &'static str,
        /// What is missing.
        field: &'static str,
    },
    /// A field the action does not take.
    #[error("action {action} takes no {field}")]
    Extra {
        /// The action's name.
        action: &'static str,
        /// The field given.
        field: &'static str,
    },
    /// The span key does not parse.
    #[error("bad span_key {0:?}: expected gold:N or added:ID")]
    BadKey(String),
    /// No span with that key on the record (now).
    #[error("record {record:?} has no span {key} (it has {have})")]
    NoSpan {
        /// The record.
        record: String,
        /// The key given.
        key: String,
        /// The keys it has, or "none".
        have: String,
    },
    /// An added span's key is taken.
    #[error("record {record:?} already has a span {key}: an added span needs a new key")]
    KeyTaken {
        /// The record.
        record: String,
        /// The key.
        key: String,
    },
    /// `before` is not the span's value now.
    #[error(
        "span {key} is {now} now, not {given} (before): the decision was made on another state"
    )]
    BeforeDiffers {
        /// The key.
        key: String,
        /// The value now.
        now: String,
        /// The value given.
        given: String,
    },
    /// The span would be kept but does not slice the answer.
    #[error("cannot keep span {}: {}", show(.span), range_why(.problem))]
    CannotKeep {
        /// The span.
        span: SpanValue,
        /// What is wrong, in code points.
        problem: RangeProblem,
    },
    /// An edit that changes nothing (the screen saves none).
    #[error("the {action} of span {key} changes nothing, or what it may not (only {what})")]
    Unchanged {
        /// The action.
        action: &'static str,
        /// The key.
        key: String,
        /// What such an action changes.
        what: &'static str,
    },
    /// A retype to the type the record has now (the screen's picker leaves it out).
    #[error("record {record:?} is of type {ty:?} already: the retype changes nothing")]
    SameType {
        /// The record.
        record: String,
        /// Its type now.
        ty: String,
    },
    /// A span labeled `clean`: that is a record's type, and a span marks a hallucination (the
    /// screen's pickers leave it out).
    #[error("a span cannot be labeled \"clean\": clean is a record's type (reclassify the record instead)")]
    CleanLabel,
    /// The same span with the same label is already kept.
    #[error("record {record:?} already keeps {} with that label: nothing to add", show(.span))]
    AlreadyThere {
        /// The record.
        record: String,
        /// The span.
        span: SpanValue,
    },
    /// A span edit on a record its reviewer reclassified clean or removed.
    #[error(
        "record {record:?} is {} by {reviewer}, so it keeps no span: undo that first",
        if *.outcome == OutcomeKind::Clean { "reclassified clean" } else { "removed" }
    )]
    Closed {
        /// The record.
        record: String,
        /// Clean or removed.
        outcome: OutcomeKind,
        /// Who closed it (the decision's reviewer).
        reviewer: String,
    },
    /// An undo or redo whose target is not the one the screen's key would take.
    #[error("cannot {action} decision #{target}: {why}")]
    Target {
        /// Undo or redo.
        action: &'static str,
        /// The target given.
        target: i64,
        /// Why not.
        why: String,
    },
}

fn show(s: &SpanValue) -> String {
    format!("[{}, {}) {:?}", s.start, s.end, s.label)
}

fn range_why(p: &RangeProblem) -> String {
    match p {
        RangeProblem::Reversed => "it is reversed (start after end)".to_owned(),
        RangeProblem::Empty => "it is empty".to_owned(),
        RangeProblem::PastEnd { len } => {
            format!("it ends past the answer, which has {len} code points")
        }
    }
}

/// The outcome that stops `reviewer`'s span edits on a record (`a`, `r`, `e`, adding): its
/// clean or removal, when `reviewer` made it. Another reviewer's reclassification (a merged
/// database) is reopened by this reviewer's span decision on replay, so it stops nothing.
#[must_use]
pub fn closed_to(review: &RecordReview, reviewer: &str) -> Option<OutcomeKind> {
    if review
        .outcome_by
        .as_deref()
        .is_some_and(|by| by != reviewer)
    {
        return None;
    }
    Some(review.outcome.kind()).filter(|k| *k != OutcomeKind::Open)
}

/// Check `d`, a decision on `record`, against the record's log (`log`: every decision on it,
/// any order) and, for an undo or redo, its reviewer's log on the dataset (`mine`, id order;
/// `d`'s target must be in one of them). Returns `d` as the screen would have saved it
/// (`before` filled in from the span's value now, an undo's span key from its target, a
/// removal's reason `other` when none), or why it may not be saved.
///
/// # Errors
/// The [`Refusal`].
pub fn check(
    record: &Record,
    log: &[Decision],
    mine: &[Decision],
    d: &Decision,
) -> Result<Decision, Refusal> {
    check_with(
        &record.content_hash(),
        record,
        || replay(record, log),
        mine,
        d,
    )
}

/// [`check`] with the record's content hash (`now`) known, and its state (the replay of its
/// log) from `review`, asked only by the actions that look at the record's spans or type (an
/// `apply` keeps each record's replay as its lines join: [`super::decision::LiveReplay`]).
///
/// # Errors
/// The [`Refusal`].
pub fn check_with(
    now: &str,
    record: &Record,
    review: impl FnOnce() -> RecordReview,
    mine: &(impl ReviewerLog + ?Sized),
    d: &Decision,
) -> Result<Decision, Refusal> {
    if d.record_hash != now {
        return Err(Refusal::Stale {
            record: record.id.clone(),
            given: d.record_hash.clone(),
            now: now.to_owned(),
        });
    }
    let action = d.action.name();
    if !d.action.is_meta() && d.target.is_some() {
        return Err(Refusal::Extra {
            action,
            field: "target (only undo and redo name one)",
        });
    }
    let mut out = d.clone();
    match d.action {
        ActionKind::Accept
        | ActionKind::Drop
        | ActionKind::Adjust
        | ActionKind::Relabel
        | ActionKind::Add => {
            check_span(record, &review(), &mut out)?;
            if d.action == ActionKind::Drop {
                out.reason = d.reason.as_deref().and_then(kept_text);
            }
        }
        ActionKind::AcceptAll => check_accept_all(&review(), record)?,
        ActionKind::Note => {
            out.note = Some(
                d.note
                    .as_deref()
                    .and_then(kept_text)
                    .ok_or(Refusal::Missing {
                        action,
                        field: "a note",
                    })?,
            );
        }
        ActionKind::Retype if d.record_type.as_deref().is_none_or(str::is_empty) => {
            return Err(Refusal::Missing {
                action,
                field: "a record_type",
            });
        }
        ActionKind::Retype => {
            let now = review();
            if now.current_type(record) == d.record_type.as_deref() {
                return Err(Refusal::SameType {
                    record: record.id.clone(),
                    ty: d.record_type.clone().unwrap_or_default(),
                });
            }
        }
        ActionKind::Remove => {
            let reason = d.reason.as_deref().and_then(kept_text);
            out.reason = Some(reason.unwrap_or_else(|| OTHER_REASON.to_owned()));
        }
        ActionKind::Resolve => {
            if let Some(a) = &d.after {
                if let Some(p) = range_problem(a.start, a.end, &record.output) {
                    return Err(Refusal::CannotKeep {
                        span: a.clone(),
                        problem: p,
                    });
                }
            }
        }
        ActionKind::Undo | ActionKind::Redo => check_meta(mine, &mut out)?,
        _ => {}
    }
    Ok(out)
}

/// A decision about one span: the key names a span there (or, for an add, none yet); `before`
/// is its value now; what it keeps slices the answer; its reviewer has not closed the record.
fn check_span(record: &Record, review: &RecordReview, d: &mut Decision) -> Result<(), Refusal> {
    let action = d.action.name();
    let raw = d.span_key.clone().ok_or(Refusal::Missing {
        action,
        field: "a span_key",
    })?;
    let key = raw.parse().map_err(|_| Refusal::BadKey(raw.clone()))?;
    if d.action != ActionKind::Drop {
        if let Some(outcome) = closed_to(review, &d.reviewer) {
            return Err(Refusal::Closed {
                record: record.id.clone(),
                outcome,
                reviewer: d.reviewer.clone(),
            });
        }
    }
    let needs_after = matches!(
        d.action,
        ActionKind::Adjust | ActionKind::Relabel | ActionKind::Add
    );
    if needs_after && d.after.is_none() {
        return Err(Refusal::Missing {
            action,
            field: "after (the span it leaves)",
        });
    }
    if d.after.as_ref().is_some_and(|a| a.label == CLEAN) {
        return Err(Refusal::CleanLabel);
    }
    if d.action == ActionKind::Add {
        return check_add(record, review, d, &key);
    }
    let Some(span) = review.span(&key) else {
        let have: Vec<String> = review.spans.iter().map(|s| s.key.to_string()).collect();
        return Err(Refusal::NoSpan {
            record: record.id.clone(),
            key: raw,
            have: if have.is_empty() {
                "none".to_owned()
            } else {
                have.join(", ")
            },
        });
    };
    let current = span.current.clone();
    // The screen saves a reversed span read from the file without `before` (the log refuses
    // one); any other `before` must be the value the span has now.
    let shown = Some(current.clone()).filter(|v| v.start <= v.end);
    match &d.before {
        Some(b) if Some(b) != shown.as_ref() => {
            return Err(Refusal::BeforeDiffers {
                key: raw,
                now: show(&current),
                given: show(b),
            });
        }
        _ => d.before = shown,
    }
    let keep = |v: &SpanValue| match range_problem(v.start, v.end, &record.output) {
        Some(problem) => Err(Refusal::CannotKeep {
            span: v.clone(),
            problem,
        }),
        None => Ok(()),
    };
    match (d.action, &d.after) {
        (ActionKind::Accept, _) => keep(&current),
        (ActionKind::Relabel, Some(a)) => {
            keep(&current)?;
            if *a == current || (a.start, a.end) != (current.start, current.end) {
                return Err(Refusal::Unchanged {
                    action,
                    key: raw,
                    what: "its label, category or subcategory, not its boundaries",
                });
            }
            Ok(())
        }
        (ActionKind::Adjust, Some(a)) => {
            if (a.start, a.end) == (current.start, current.end)
                || a.label_name() != current.label_name()
            {
                return Err(Refusal::Unchanged {
                    action,
                    key: raw,
                    what: "its boundaries, not its label",
                });
            }
            keep(a)
        }
        _ => Ok(()),
    }
}

/// An added span: a new `added:` key, a span that slices the answer, not one already kept with
/// the same label.
fn check_add(
    record: &Record,
    review: &RecordReview,
    d: &Decision,
    key: &SpanKey,
) -> Result<(), Refusal> {
    let raw = key.to_string();
    if !matches!(key, SpanKey::Added(_)) {
        return Err(Refusal::BadKey(raw));
    }
    if review.span(key).is_some() {
        return Err(Refusal::KeyTaken {
            record: record.id.clone(),
            key: raw,
        });
    }
    if d.before.is_some() {
        return Err(Refusal::Extra {
            action: "add",
            field: "before",
        });
    }
    let Some(a) = &d.after else { return Ok(()) };
    if let Some(problem) = range_problem(a.start, a.end, &record.output) {
        return Err(Refusal::CannotKeep {
            span: a.clone(),
            problem,
        });
    }
    if twin(review, a).is_some() {
        return Err(Refusal::AlreadyThere {
            record: record.id.clone(),
            span: a.clone(),
        });
    }
    Ok(())
}

/// Accept-all keeps every pending span: each must slice the answer (the screen accepts the
/// others one by one instead, and leaves those for `t` or `x`).
fn check_accept_all(review: &RecordReview, record: &Record) -> Result<(), Refusal> {
    for (i, s) in review.spans.iter().enumerate() {
        if let Some(problem) = blocks_accept_all(review, i, &record.output) {
            return Err(Refusal::CannotKeep {
                span: s.current.clone(),
                problem,
            });
        }
    }
    Ok(())
}

/// Why span `i` of `review` cannot be kept by an accept-all over `output` (it is pending and
/// does not slice the answer), or `None`. A record reclassified clean or removed keeps no span
/// whatever their state, so nothing blocks it there.
#[must_use]
pub fn blocks_accept_all(review: &RecordReview, i: usize, output: &str) -> Option<RangeProblem> {
    if review.outcome.kind() != OutcomeKind::Open {
        return None;
    }
    let s = review.spans.get(i)?;
    if s.status != SpanStatus::Pending {
        return None;
    }
    range_problem(s.current.start, s.current.end, output)
}

/// The span of `review` already kept with `v`'s boundaries and label (an add of `v` would be a
/// second identical label in the export), by index.
#[must_use]
pub fn twin(review: &RecordReview, v: &SpanValue) -> Option<usize> {
    review.spans.iter().position(|s| {
        s.kept()
            && (s.current.start, s.current.end) == (v.start, v.end)
            && s.current.label == v.label
            && s.current.subcategory == v.subcategory
    })
}

/// An undo reverts, and a redo restores, what the screen's key would: the reviewer's latest
/// decision in force (redo: most recently undone), auto-accepts of other records skipped, on
/// the same record and dataset.
fn check_meta(mine: &(impl ReviewerLog + ?Sized), d: &mut Decision) -> Result<(), Refusal> {
    let action = d.action.name();
    let Some(target) = d.target else {
        return Err(Refusal::Missing {
            action,
            field: "a target (the decision it acts on)",
        });
    };
    let err = |why: String| Refusal::Target {
        action,
        target,
        why,
    };
    let counts = |x: &Decision| {
        x.reviewer == d.reviewer
            && x.dataset == d.dataset
            && (!x.auto || x.record_id == d.record_id)
    };
    // Only as far back as the target and the undo or redo walk: an undo at the end of a
    // reviewer's long log (an `apply` of many lines) costs the rows near its end.
    let Some(td) = by_id(mine, target).filter(|x| counts(x)) else {
        return Err(err(format!(
            "it is not a decision of {} on dataset {:?} (in the database or earlier in the file)",
            d.reviewer, d.dataset
        )));
    };
    if td.record_id != d.record_id {
        return Err(err(format!(
            "it is on record {:?}, not {:?}",
            td.record_id, d.record_id
        )));
    }
    let newest_first = (0..mine.len())
        .rev()
        .map(|i| mine.at(i))
        .filter(|x| counts(x));
    let want = if d.action == ActionKind::Undo {
        undo_target_of(newest_first)
    } else {
        redo_target_of(newest_first)
    };
    if want != Some(target) {
        return Err(err(match want {
            Some(w) => format!("the {action} of {} would act on #{w}", d.reviewer),
            None => format!("{} has nothing to {action}", d.reviewer),
        }));
    }
    if d.span_key.is_none() {
        d.span_key.clone_from(&td.span_key);
    }
    Ok(())
}

/// A reviewer's log on a dataset, in id order, as undo and redo walk it (a slice, or an
/// `apply`'s rows from the database followed by those of its file).
pub trait ReviewerLog {
    /// How many decisions.
    fn len(&self) -> usize;
    /// No decision.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Decision `i` (`i < len`).
    fn at(&self, i: usize) -> &Decision;
}

impl ReviewerLog for [Decision] {
    fn len(&self) -> usize {
        <[Decision]>::len(self)
    }
    fn at(&self, i: usize) -> &Decision {
        &self[i]
    }
}

/// The decision with id `id` in `log` (id order: found by bisection; a log out of order is
/// searched through).
fn by_id(log: &(impl ReviewerLog + ?Sized), id: i64) -> Option<&Decision> {
    let (mut lo, mut hi) = (0, log.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if log.at(mid).id < id {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo < log.len() && log.at(lo).id == id {
        return Some(log.at(lo));
    }
    (0..log.len()).map(|i| log.at(i)).find(|x| x.id == id)
}

#[cfg(test)]
mod tests;
