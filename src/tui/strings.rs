//! Every user-facing string of the review screen, in one place, so help, hints and messages
//! stay consistent.

mod help;
pub mod team;

pub use help::{describe, describe_in, hint, hint_actions, hint_in, mode_title};

mod speed;

pub use speed::{
    record_search_batch, record_search_found, record_search_none, NOTHING_AFTER_SPAN,
    NO_RECORD_SEARCH,
};

use super::action::Action;
use crate::model::span::RangeProblem;

/// Reasons offered when removing a record; the last one asks for free text.
pub const REMOVE_REASONS: &[&str] = &[
    "question/answer mismatch",
    "no-op edit",
    "incoherent",
    "other",
];

/// The free-text reason choice.
pub const OTHER: &str = "other";

/// Default label set (the toolace hallucination types).
pub const TOOLACE_LABELS: &[&str] = &["contradiction", "missing_tool", "overgeneration"];

/// The LettuceDetect taxonomy: categories and their subcategories.
pub const LETTUCE_TAXONOMY: &[(&str, &[&str])] = &[
    (
        "contradiction",
        &["numerical", "temporal", "entity", "relational"],
    ),
    (
        "unsupported_addition",
        &["value", "claim", "elaboration", "subjective", "behavior"],
    ),
    (
        "fabricated_reference",
        &["section", "identifier", "attribute"],
    ),
];

/// Mouse help line in the help screen.
pub const MOUSE_HELP: &str =
    "Mouse: click a span to select it · drag across the output to add a span · wheel scrolls · \
     arbitration: click a cluster's text or lanes to select it, wheel over the lanes moves between \
     clusters (decisions stay on keys)";

/// Pane titles.
pub const QUERY: &str = "Query";
/// Output pane title.
pub const OUTPUT: &str = "Output";
/// Context pane title.
pub const CONTEXT: &str = "Context";
/// Span list title.
pub const SPANS: &str = "Spans";
/// Tools panel title.
pub const TOOLS: &str = "Tools available";
/// Tool call title.
pub const TOOL_CALL: &str = "Tool call made";
/// Help title.
pub const HELP: &str = "Help";
/// Relabel picker title.
pub const PICK_LABEL: &str = "Relabel";
/// Add-label picker title.
pub const PICK_ADD_LABEL: &str = "Label of the new span";
/// Remove picker title.
pub const PICK_REMOVE: &str = "Remove the record: why?";
/// Title of the retype picker.
pub const PICK_TYPE: &str = "The record's type";
/// Prompt titles.
pub const PROMPT_DROP: &str = "Drop: reason (optional, Enter to skip)";
/// Note prompt.
pub const PROMPT_NOTE: &str = "Note";
/// Goto prompt.
pub const PROMPT_GOTO: &str = "Go to position or id";
/// Search prompt.
pub const PROMPT_SEARCH: &str = "Search";
/// Free-text removal reason prompt.
pub const PROMPT_REMOVE_OTHER: &str = "Remove: reason";
/// Adjust pane title.
pub const ADJUST: &str = "Adjust";
/// Add pane title.
pub const ADD: &str = "Add a span";
/// Add mode, before the start is set.
pub const ADD_PICK_START: &str = "move to the start of the new span, then mark";
/// Add mode, start set.
pub const ADD_PICK_END: &str = "move to the end, then mark";
/// Shown when the record has no span.
pub const NO_SPANS: &str = "no spans under review";
/// Shown when nothing is selected for a span action.
pub const NO_SPAN_SELECTED: &str = "no span selected";
/// A decision that keeps or changes spans, on a record reclassified clean.
pub const SPANS_OF_CLEAN: &str =
    "the record is reclassified clean, so it keeps no span: undo the reclassification first";
/// A decision that keeps or changes spans, on a removed record.
pub const SPANS_OF_REMOVED: &str =
    "the record is removed, so it keeps no span: undo the removal first";
/// The queue is empty.
pub const QUEUE_EMPTY: &str = "the queue is empty: nothing to review";
/// End of queue.
pub const QUEUE_END: &str = "end of the queue";
/// Start of queue.
pub const QUEUE_START: &str = "start of the queue";
/// The flag taken off (`f` on a flagged record), in the saved message.
pub const UNFLAG: &str = "flag off";
/// Take picker title (arbitration).
pub const PICK_SOURCE: &str = "Take which source's version?";
/// A picker's title with the digits typed so far.
#[must_use]
pub fn picker_typed(title: &str, typed: &str) -> String {
    format!("{title} · {typed}…")
}

/// Digits typed in a picker that number no row.
#[must_use]
pub fn no_row(typed: &str, rows: usize) -> String {
    format!("no row {typed}: the rows are numbered 1 to {rows}")
}
/// An added span that is already there, with the same label.
pub const ALREADY_THERE: &str =
    "that span is already there with that label (selected): nothing added";
/// The record on screen was changed by another process (a second reviewer on the database).
pub const UPDATED_ELSEWHERE: &str =
    "updated: decisions on this record were saved elsewhere (another review on this database)";
/// Nothing to undo.
pub const NOTHING_TO_UNDO: &str = "nothing to undo";
/// Nothing to redo.
pub const NOTHING_TO_REDO: &str = "nothing to redo";
/// No evidence found.
pub const NO_EVIDENCE: &str = "no occurrence in the context or query";
/// Empty span refused.
pub const EMPTY_SPAN: &str = "a span needs at least one character";
/// Unchanged adjust.
pub const UNCHANGED: &str = "unchanged: nothing saved";
/// Record has no tools metadata.
pub const NO_TOOLS: &str = "(this record has no meta.tools)";
/// Record has no tool call.
pub const NO_TOOL_CALL: &str = "(this record has no meta.tool_call)";
/// Stale decisions banner.
pub const STALE: &str = "stale";
/// Tools panel border title.
pub const TOOLS_PANEL: &str = "Tools · meta.tools and meta.tool_call";
/// No context in the record.
pub const NO_CONTEXT: &str = "(no context)";
/// Adjust panel: the old text.
pub const OLD: &str = "old ";
/// Adjust panel: the new text.
pub const NEW: &str = "new ";
/// Unchanged text left out of the adjust panel.
pub const ELIDED: &str = "…";
/// Tool parameters prefix.
pub const PARAMS: &str = "params";
/// Span states in the span list.
pub const PENDING: &str = "pending";
/// Span accepted.
pub const ACCEPTED: &str = "accepted";
/// Span dropped.
pub const DROPPED: &str = "dropped";
/// Span state: not exported, the record is reclassified clean.
pub const CLEARED_CLEAN: &str = "cleared: record clean";
/// Span state: not exported, the record is removed.
pub const CLEARED_REMOVED: &str = "cleared: record removed";
/// Header: a record typed `clean` that keeps spans (the export warns about it).
#[must_use]
pub fn typed_clean_with_spans(n: usize) -> String {
    format!(
        "typed clean but keeps {n} span{}: the export will warn",
        if n == 1 { "" } else { "s" }
    )
}

/// Said after a span is added (or kept) on a record typed `clean`: what follows and what the
/// reviewer can do about it.
pub const TYPED_CLEAN_NOW_LABELED: &str = "the record is typed clean, which has no labels: \
its export with this span will be warned about. T changes its type, u undoes the add, \
c reclassifies it clean (drops its spans)";
/// Retype with nothing to choose: no other type is known.
pub const NO_OTHER_TYPE: &str = "no other type seen in the file to change to";
/// Span added in review.
pub const ADDED: &str = "added";
/// Span boundaries changed.
pub const ADJUSTED: &str = "adjusted";
/// Span label changed.
pub const RELABELED: &str = "relabeled";
/// Record states in the header.
pub const REVIEWED: &str = "reviewed";
/// Record open.
pub const OPEN: &str = "open";
/// Record reclassified clean.
pub const CLEAN: &str = "clean";
/// Record flagged.
pub const FLAGGED: &str = "flagged";
/// Evidence counter in the context title.
pub const EVIDENCE: &str = "evidence";
/// Search text not found.
pub const NOT_FOUND: &str = "not found";

/// A decision was committed: "saved #12 (accept)", "saved #13 (undo #12)".
#[must_use]
pub fn saved(id: i64, action: &str, target: Option<i64>) -> String {
    match target {
        Some(t) => format!("saved #{id} ({action} #{t})"),
        None => format!("saved #{id} ({action})"),
    }
}

/// A decision could not be saved.
#[must_use]
pub fn not_saved(error: &str) -> String {
    format!("NOT saved: {error}")
}

/// Search result count.
#[must_use]
pub fn matches(n: usize, text: &str) -> String {
    format!(
        "{n} {} of {text:?}",
        if n == 1 { "match" } else { "matches" }
    )
}

/// `n records`, `1 record`.
#[must_use]
pub fn records(n: usize) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}

/// Evidence occurrence position, counted over the query's and the context's hits, and the
/// pane that holds it.
#[must_use]
pub fn occurrence(i: usize, n: usize, pane: &str) -> String {
    format!("occurrence {i} / {n} · in the {}", pane.to_lowercase())
}

/// Go-to found nothing.
#[must_use]
pub fn no_record(what: &str) -> String {
    format!("no record at position or with id {what:?}")
}

/// Undo/redo target on a record that is not in the file.
#[must_use]
pub fn target_elsewhere(target: i64, record: &str) -> String {
    format!("decision #{target} is about record {record:?}, which is not in this file")
}

/// A removed record in the header.
#[must_use]
pub fn removed(reason: &str) -> String {
    format!("removed ({reason})")
}

/// Stale decisions in the header.
#[must_use]
pub fn stale_count(n: usize) -> String {
    format!("{n} {STALE}")
}

/// Notes in the header.
#[must_use]
pub fn notes(n: usize) -> String {
    format!("{n} note{}", if n == 1 { "" } else { "s" })
}

/// The record's notes (`m`), oldest first, under the span list.
#[must_use]
pub fn record_notes(notes: &[String]) -> String {
    format!("✎ {}: {}", notes_word(notes.len()), notes.join(" · "))
}

fn notes_word(n: usize) -> &'static str {
    if n == 1 {
        "note"
    } else {
        "notes"
    }
}

/// Stale decisions under the span list.
#[must_use]
pub fn stale_list(n: usize, what: &str) -> String {
    format!("⚠ {n} {STALE} (record changed since): {what}")
}

/// What the reader skipped in the record itself (a span with unusable offsets), under the span
/// list.
#[must_use]
pub fn unreadable_spans(warnings: &[&str]) -> String {
    format!(
        "⚠ not read: {} (not shown; an export of the reviewed record leaves it out)",
        warnings.join("; ")
    )
}

/// Notes about the files joined onto the record (a line whose answer text differs, so its
/// spans were not attached; an id on several lines; an unreadable line), under the span list.
/// Each note names its file and says what was done.
#[must_use]
pub fn joined_notes(notes: &[&str]) -> String {
    format!("⚠ joined files: {}", notes.join("; "))
}

/// What is wrong with span `[start, end)`: "[40, 10) is reversed".
#[must_use]
pub fn range_problem(start: usize, end: usize, p: RangeProblem) -> String {
    match p {
        RangeProblem::Reversed => format!("[{start}, {end}) is reversed"),
        RangeProblem::Empty => format!("[{start}, {end}) is empty"),
        RangeProblem::PastEnd { len } => {
            format!("[{start}, {end}) ends past the answer ({len} characters)")
        }
    }
}

/// How to fix a span that cannot be kept.
const FIX_SPAN: &str = "fix it with t (adjust) or drop it with x";

/// `a` or `r` on a span that cannot be kept.
#[must_use]
pub fn cannot_keep(start: usize, end: usize, p: RangeProblem) -> String {
    format!(
        "cannot keep span {}: {FIX_SPAN}",
        range_problem(start, end, p)
    )
}

fn skipped_list(skipped: &[(usize, usize, RangeProblem)]) -> String {
    let what: Vec<String> = skipped
        .iter()
        .map(|&(s, e, p)| range_problem(s, e, p))
        .collect();
    let n = skipped.len();
    format!(
        "skipped {n} span{} that cannot be kept ({}; selected): {}",
        if n == 1 { "" } else { "s" },
        what.join(", "),
        if n == 1 {
            FIX_SPAN.to_owned()
        } else {
            FIX_SPAN.replace(" it ", " each ")
        }
    )
}

/// `A` accepted the spans it could (rows `first`–`last`) and skipped the others.
#[must_use]
pub fn accepted_but_skipped(
    first: i64,
    last: i64,
    skipped: &[(usize, usize, RangeProblem)],
) -> String {
    let ids = if first == last {
        format!("#{first}")
    } else {
        format!("#{first}–#{last}")
    };
    format!("saved {ids} (accept) · {}", skipped_list(skipped))
}

/// `A` found no span it could accept, only spans that cannot be kept.
#[must_use]
pub fn none_accepted_skipped(skipped: &[(usize, usize, RangeProblem)]) -> String {
    format!("nothing saved · {}", skipped_list(skipped))
}

/// Progress in the header.
#[must_use]
pub fn progress(done: usize, total: usize) -> String {
    format!("{done}/{total} {REVIEWED}")
}

/// Output pane title.
#[must_use]
pub fn output_title(chars: usize) -> String {
    format!("{OUTPUT} ({chars} chars)")
}

/// Output pane title suffix naming the other sources drawn underlined.
#[must_use]
pub fn other_sources(names: &[&str]) -> String {
    format!("underlined: {}", names.join(", "))
}

/// A record stored as reviewed turned out to have only stale decisions.
#[must_use]
pub fn stale_requeued(id: &str) -> String {
    format!("{id}: reviewed on other content (stale decisions), so it is back in the queue")
}

/// Header: background clustering under way.
#[must_use]
pub fn clustering(done: usize, total: usize) -> String {
    format!("clustering {} / {}", thousands(done), thousands(total))
}

/// Header: disputed records found.
#[must_use]
pub fn disputed(n: usize) -> String {
    format!("{} disputed", thousands(n))
}

/// Header: records accepted unseen because every source agreed.
#[must_use]
pub fn auto_accepted(n: usize) -> String {
    format!("auto-accepted {}", thousands(n))
}

/// `12345` → `12,345`.
#[must_use]
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The reason of an auto-accept decision (visible in the log; undoable).
pub const AUTO_UNANIMOUS: &str = "auto: unanimous";

/// No disputed record found yet while clustering runs.
pub const NO_DISPUTED_YET: &str = "clustering: no disputed record found yet…";

/// The queue has no more disputed record, for now.
pub const DISPUTED_END_FOR_NOW: &str =
    "end of the disputed records found so far (clustering continues)";

/// Title of the arbitration output pane.
pub const LANES: &str = "Output · one lane per source";

/// Title of the cluster panel.
pub const CLUSTER: &str = "Cluster";

/// Lane label of the reviewed result.
pub const RESULT_LANE: &str = "result";

/// No cluster in the record.
pub const NO_CLUSTERS: &str = "no spans from any source: nothing to arbitrate";

/// No such source lane.
pub const NO_SUCH_LANE: &str = "no source with that number";

/// No unplaced claim.
pub const NO_CLAIMS: &str = "no unplaced judge claim";

/// Placing a claim: what to do.
pub const PLACE_CLAIM: &str = "place the claim: mark its start and end as in add";

/// Every disputed cluster of the record is resolved.
pub const ALL_RESOLVED: &str = "all clusters resolved: A accepts the rest and goes on";

/// Names are hidden in blind mode.
pub const BLIND: &str =
    "blind: names hidden until the record's clusters are resolved; keys 1, 2, 3… take A, B, C…";

/// Stats screen title.
pub const STATS: &str = "Stats";

/// The stats screen's place for per-source numbers under `--blind`.
pub const STATS_BLIND: &str = "blind review: per-source agreement and upheld counts are hidden \
until the session ends (run `spanreview stats` afterwards)";

/// What the stats are computed over.
#[must_use]
pub fn stats_scope(n: usize) -> String {
    format!(
        "agreement over the {} read this session (not the whole file); progress over every record",
        records(n)
    )
}

/// A cluster header line.
#[must_use]
pub fn cluster_title(i: usize, n: usize, start: usize, end: usize, disputed: bool) -> String {
    format!(
        "cluster {} / {n} · [{start}, {end}) · {}",
        i + 1,
        if disputed { "disputed" } else { "agreed" }
    )
}

/// A resolution saved (possibly several rows).
#[must_use]
pub fn resolved(first: i64, last: i64, upheld: &str, dismissed: &str) -> String {
    let ids = if first == last {
        format!("#{first}")
    } else {
        format!("#{first}–#{last}")
    };
    format!("saved {ids} resolve · upheld {upheld} · dismissed {dismissed}")
}

// ----- decisions made elsewhere on the record on screen (a second reviewer) -----

/// How long ago something happened, from its age in seconds.
#[must_use]
pub fn ago(secs: u64) -> String {
    match secs {
        0..60 => "a moment ago".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..172_800 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86_400),
    }
}

/// Another reviewer's decision, seen on the record on screen: `bo dropped “rainy” [29, 34) a
/// moment ago`, and `, over your accept` when it replaced one's own.
#[must_use]
pub fn decided_elsewhere(who: &str, what: &str, when: &str, over_yours: Option<&str>) -> String {
    let line = format!("{who} {what} {when}").trim_end().to_owned();
    match over_yours {
        Some(action) => format!("{line}, over your {action}"),
        None => line,
    }
}

/// Several decisions seen at once: the last one, and how many more.
#[must_use]
pub fn and_more(last: &str, more: usize) -> String {
    if more == 0 {
        last.to_owned()
    } else {
        format!("{last} (and {more} more)")
    }
}

/// One's own decision replaced another reviewer's: `overrides ana's accept of “rainy” [29,
/// 34) (a moment ago)`.
#[must_use]
pub fn overrides(who: &str, action: &str, what: &str, when: &str) -> String {
    let of = if what.is_empty() {
        String::new()
    } else {
        format!(" of {what}")
    };
    let when = if when.is_empty() {
        String::new()
    } else {
        format!(" ({when})")
    };
    format!("overrides {who}'s {action}{of}{when}")
}

/// Help lines on counts and where moves start (adjust, add and the arbitration edit).
pub const MOTIONS_HELP: &str =
    "Counts: in adjust, add and the arbitration edit a number before a move repeats it \
     (3l: start three characters right, 2w: two words) · in add, f/F and a character move the \
     cursor to it (f, is the next comma), t/T next to it · ^ and $: to the line's first and \
     last character · v starts at the search's first hit in \
     the output (after /), else at the selected span · in add, a click on the output moves the \
     cursor there · arbitration t starts from lane 1's version of the cluster (Tab: the next \
     lane's) · word moves stop at each Chinese or Japanese character and at a change of script";

/// Status line while a count is typed.
#[must_use]
pub fn count_typed(n: usize) -> String {
    format!("{n}: the next move is repeated {n} times")
}

/// Status line when the arbitration edit starts from a source's version.
#[must_use]
pub fn edit_from(lane: &str, who: &str, start: usize, end: usize) -> String {
    if lane == who {
        format!("edit from lane {lane}'s version [{start}, {end})")
    } else {
        format!("edit from lane {lane}'s version ({who}) [{start}, {end})")
    }
}

/// The arbitration edit has no source's version to start from.
pub const NO_VERSIONS: &str = "no source covers anything here: the edit starts from the cluster";

/// Status line after `f`, `F`, `t` or `T` in add mode, until the character is typed.
pub const FIND_CHAR: &str = "type the character to move to (Esc: none)";

/// No such character to move to.
#[must_use]
pub fn no_char(c: char) -> String {
    format!("no “{c}” that way")
}

/// Header: the file is still being indexed in the background (the queue's size is a lower
/// bound meanwhile).
#[must_use]
pub fn indexing(n: usize) -> String {
    format!("indexing… {} records so far", thousands(n))
}

/// The disputed queue (and auto-accept) cluster every record: they start once it is indexed.
pub const DISPUTED_WAITS_FOR_INDEX: &str =
    "the disputed queue waits for the index: clustering starts once every record is indexed…";

/// A move to a record past the part of the file indexed so far.
#[must_use]
pub fn not_indexed_yet(n: usize) -> String {
    format!("not indexed yet ({}): shown as soon as it is", indexing(n))
}

/// A record id or position not among the records indexed so far.
#[must_use]
pub fn not_found_so_far(what: &str, n: usize) -> String {
    format!(
        "no record at position or with id {what:?} in the {} indexed so far (indexing continues)",
        thousands(n)
    )
}

/// The background indexing stopped (the file changed or could not be read).
#[must_use]
pub fn index_failed(e: &dyn std::fmt::Display) -> String {
    format!("indexing stopped: {e}; only the records indexed before are shown")
}

// ----- review polish (uipolish): context position, legend, original → reviewed -----

/// The context pane's position: rows shown of the rows (`+` while not all are wrapped yet),
/// the share of the text above the pane's bottom, and the keys to its top and bottom.
#[must_use]
pub fn context_position(
    first: usize,
    rows: (usize, usize, bool),
    pct: usize,
    keys: &str,
) -> String {
    let (shown, total, complete) = rows;
    let more = if complete { "" } else { "+" };
    let last = first + shown;
    let keys = if keys.is_empty() {
        String::new()
    } else {
        format!(" · {keys}")
    };
    format!(" rows {}–{last}/{total}{more} · {pct}%{keys} ", first + 1)
}

/// The span as read, before its reviewed label and range in the span list.
#[must_use]
pub fn span_was(label: &str, start: usize, end: usize) -> String {
    format!("{label} [{start}, {end}) → ")
}

/// The lanes screen's title when source lanes are left out (the cluster panel lists them).
#[must_use]
pub fn more_lanes(k: usize) -> String {
    format!("+{k} more")
}

/// Help's legend heading.
pub const LEGEND: &str = "Legend";

/// Before the labels of the record in their colours (help's legend).
pub const LEGEND_LABELS: &str = "Labels of this record: ";

/// Before the source lanes' glyphs (help's legend).
pub const LEGEND_LANES: &str = "Arbitration lanes: ";

/// One source lane in the legend.
#[must_use]
pub fn legend_lane(glyph: &str, lane: usize) -> String {
    format!("{glyph} lane {lane}  ")
}

/// The reviewed-result lane and the judges' marks (help and the arbitration screen).
pub const LEGEND_MARKS: &str = "▒ ✓ reviewed result · judge lanes J1…: x label wrong, \
                                 = label right, ^ claim, ? unknown · underlined: disputed";

/// Help's bottom border while more of it is below.
#[must_use]
pub fn more_below(keys: &str) -> String {
    format!(" ↓ more below ({keys}) ")
}

/// Hints kept in the status line before the others, first ones first on a narrow screen (the
/// others fill the room left).
pub const HINTS_KEPT: &[Action] = &[
    Action::Help,
    Action::Quit,
    Action::Confirm,
    Action::Cancel,
    Action::Flag,
    Action::Note,
    Action::Search,
    Action::Goto,
];

// ----- evidence for contradictions -----

/// Status line on a ranked candidate: why it may be what the span contradicts.
#[must_use]
pub fn candidate(why: &crate::review::evidence::Reason) -> String {
    use crate::review::evidence::Reason;
    let why = match why {
        Reason::Key(k) => format!("key `{k}` near the span"),
        Reason::Unit(u) => format!("number with the same unit {u}"),
        Reason::Magnitude => "number of the same magnitude".to_owned(),
        Reason::Date => "date".to_owned(),
        Reason::SameKind(k) if k.is_empty() => "name of the same kind".to_owned(),
        Reason::SameKind(k) => format!("name of the same kind (`{k}`)"),
        Reason::Near(v) => format!(
            "next to “{}”, which the answer repeats near the span",
            short(v)
        ),
        Reason::Between(l, r) => format!("between “{l}” and “{r}”, as in the answer"),
    };
    format!("candidate: {why}")
}

/// A value shortened for the status line.
fn short(v: &str) -> String {
    match v.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &v[..i]),
        None => v.to_owned(),
    }
}

// ----- pace, next flagged, sample queue -----

/// The pace before there is a rate (fewer than three records reviewed this session).
pub const NO_PACE: &str = "— /h · — left";

/// Records per hour and the time the unreviewed rest would take (`12.5/h · 3h 05m left`).
#[must_use]
pub fn pace(per_hour: f64, left_secs: u64) -> String {
    let mins = left_secs.div_ceil(60);
    let left = if mins >= 60 {
        format!("{}h {:02}m", mins / 60, mins % 60)
    } else {
        format!("{mins}m")
    };
    format!("{per_hour:.1}/h · {left} left")
}

/// The stats screen's pace row.
#[must_use]
pub fn stats_pace(pace: &str) -> String {
    format!("pace this session: {pace}")
}

/// No flagged record in the queue besides the one on screen.
pub const NO_OTHER_FLAGGED: &str = "no other flagged record in the queue";

/// Moved to the next flagged record (`wrapped`: from the queue's start).
#[must_use]
pub fn next_flagged(wrapped: bool) -> String {
    if wrapped {
        "next flagged record (from the queue's start)".to_owned()
    } else {
        "next flagged record".to_owned()
    }
}
