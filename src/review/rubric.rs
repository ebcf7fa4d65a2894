//! The review rubric: reason codes with a one-line description each, grouped by the actions
//! they apply to, read from a TOML file.
//!
//! ```toml
//! [drop]
//! V1 = "span text is supported by the context"
//! [adjust]
//! B1 = "boundary not minimal"
//! [remove]
//! Q1 = "answer does not address the request"
//! ```
//!
//! The groups are `drop`, `adjust`, `relabel`, `add`, `clean`, `remove` and `flag`; a code at
//! the top level (outside every group, or a file with no group at all) applies to every one of
//! them. A code is defined once in a file.
//!
//! A decision carries its code at the start of its `reason`: `V1`, or `V1: free text` (the
//! shape `spanreview triage`'s flags have always had, `CODE: explanation`); a reason without
//! one (a free-text reason of a log older than the rubric) reads as no code
//! ([`reason_code`]). Triage's codes are a built-in rubric ([`Rubric::triage`]) that every
//! rubric includes for flags.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::review::decision::{ActionKind, Decision};
use crate::review::triage;

/// What a group of codes applies to: the actions that take a reason code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    /// Dropping a span.
    Drop,
    /// New boundaries.
    Adjust,
    /// A new label.
    Relabel,
    /// A span the labels missed.
    Add,
    /// A record reclassified clean.
    Clean,
    /// A record removed from the dataset.
    Remove,
    /// A flag for a second look.
    Flag,
}

impl Group {
    /// Every group, in file order.
    pub const ALL: [Self; 7] = [
        Self::Drop,
        Self::Adjust,
        Self::Relabel,
        Self::Add,
        Self::Clean,
        Self::Remove,
        Self::Flag,
    ];

    /// The group's table name in the file (the action's name in the log).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.action().name()
    }

    /// The action the group's codes apply to.
    #[must_use]
    pub fn action(self) -> ActionKind {
        match self {
            Self::Drop => ActionKind::Drop,
            Self::Adjust => ActionKind::Adjust,
            Self::Relabel => ActionKind::Relabel,
            Self::Add => ActionKind::Add,
            Self::Clean => ActionKind::Clean,
            Self::Remove => ActionKind::Remove,
            Self::Flag => ActionKind::Flag,
        }
    }

    /// The group of `action`; `None` for an action that takes no reason code.
    #[must_use]
    pub fn of(action: ActionKind) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.action() == action)
    }

    /// The group named `name` in a file.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.name() == name)
    }
}

/// One reason code of a rubric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The code (`V1`): no whitespace, no `:`.
    pub code: String,
    /// Its one-line description.
    pub description: String,
    /// The group it applies to; `None`: every group.
    pub group: Option<Group>,
    /// The file's line defining it (1-based); 0 for a built-in code.
    pub line: usize,
}

impl Entry {
    /// Whether the code applies to `group`.
    #[must_use]
    pub fn applies_to(&self, group: Group) -> bool {
        self.group.is_none_or(|g| g == group)
    }
}

/// A rubric: its codes in file order (the file's, then the built-in triage codes it does not
/// define itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rubric {
    /// Where it was read from, as shown in messages (`built-in` for [`Rubric::triage`]).
    pub file: String,
    entries: Vec<Entry>,
}

/// Why a rubric file cannot be used: `FILE:LINE: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct RubricError {
    /// The file, as given.
    pub file: String,
    /// The line (1-based).
    pub line: usize,
    /// What is wrong, quoting the value.
    pub message: String,
}

/// `reason` with its code described by `rubric` ([`Rubric::described`]); as it is without one.
#[must_use]
pub fn described_by(rubric: Option<&Rubric>, reason: &str) -> String {
    rubric.map_or_else(|| reason.to_owned(), |r| r.described(reason))
}

/// The reason code `reason` starts with: the text before its first `:` (the whole reason
/// without one), when it is a single word (no whitespace). A free-text reason
/// (`not a hallucination`) has none.
#[must_use]
pub fn reason_code(reason: &str) -> Option<&str> {
    let head = reason.split_once(':').map_or(reason, |(h, _)| h).trim();
    (!head.is_empty() && !head.chars().any(char::is_whitespace)).then_some(head)
}

/// The reason a decision with `code` and an optional `note` carries: `CODE` or `CODE: note`.
#[must_use]
pub fn coded_reason(code: &str, note: &str) -> String {
    let note = note.trim();
    if note.is_empty() {
        code.to_owned()
    } else {
        format!("{code}: {note}")
    }
}

impl Rubric {
    /// `spanreview triage`'s codes, for flags.
    #[must_use]
    pub fn triage() -> Self {
        Self {
            file: "built-in".to_owned(),
            entries: builtin(),
        }
    }

    /// Read the rubric `text` of `file` (the name shown in messages).
    ///
    /// # Errors
    /// The text is not TOML, a group name is unknown, a code is defined twice or has spaces,
    /// a description is empty, not a string or more than one line.
    pub fn parse(file: &str, text: &str) -> Result<Self, RubricError> {
        let fail = |at: usize, message: String| RubricError {
            file: file.to_owned(),
            line: line_of(text, at),
            message,
        };
        let doc = toml::de::DeTable::parse(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            fail(at, format!("not a rubric (TOML): {}", e.message()))
        })?;
        // The map may be sorted by key: the codes are taken in file order.
        let mut found = Vec::new();
        for (key, value) in doc.get_ref() {
            let toml::de::DeValue::Table(table) = value.get_ref() else {
                found.push((key, value, None));
                continue;
            };
            let name = key.get_ref().as_ref();
            let Some(group) = Group::from_name(name) else {
                let known: Vec<&str> = Group::ALL.iter().map(|g| g.name()).collect();
                return Err(fail(
                    key.span().start,
                    format!(
                        "unknown group [{name}]: the groups are {}",
                        known.join(", ")
                    ),
                ));
            };
            found.extend(table.iter().map(|(k, v)| (k, v, Some(group))));
        }
        found.sort_by_key(|(k, _, _)| k.span().start);
        let mut entries: Vec<Entry> = Vec::new();
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (key, value, group) in found {
            let at = key.span().start;
            let code = key.get_ref().as_ref();
            check_code(code).map_err(|m| fail(at, m))?;
            let description = description(code, value.get_ref()).map_err(|m| fail(at, m))?;
            let line = line_of(text, at);
            if let Some(first) = seen.insert(code, line) {
                return Err(fail(
                    at,
                    format!("duplicate code {code:?}: already defined on line {first}"),
                ));
            }
            entries.push(Entry {
                code: code.to_owned(),
                description,
                group,
                line,
            });
        }
        let file_codes: Vec<String> = entries.iter().map(|e| e.code.clone()).collect();
        entries.extend(
            builtin()
                .into_iter()
                .filter(|b| !file_codes.contains(&b.code)),
        );
        Ok(Self {
            file: file.to_owned(),
            entries,
        })
    }

    /// Every code, in order.
    #[must_use]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The codes that apply to `action`, in order (none for an action without a group).
    #[must_use]
    pub fn codes_for(&self, action: ActionKind) -> Vec<&Entry> {
        Group::of(action).map_or_else(Vec::new, |g| {
            self.entries.iter().filter(|e| e.applies_to(g)).collect()
        })
    }

    /// The entry of `code`, whatever it applies to.
    #[must_use]
    pub fn get(&self, code: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.code == code)
    }

    /// The description of the code `reason` starts with, when the rubric has it.
    #[must_use]
    pub fn describe(&self, reason: &str) -> Option<&str> {
        Some(self.get(reason_code(reason)?)?.description.as_str())
    }

    /// Whether a decision of `action` may carry `reason`: when the rubric has codes for the
    /// action, a reason must start with one of them; no reason, or an action the rubric gives
    /// no code (a flag taken off, an accept), passes.
    ///
    /// # Errors
    /// Why not, quoting the reason and naming the codes that apply.
    pub fn check(
        &self,
        action: ActionKind,
        flag_on: Option<bool>,
        reason: Option<&str>,
    ) -> Result<(), String> {
        let Some(reason) = reason.filter(|r| !r.trim().is_empty()) else {
            return Ok(());
        };
        let codes = self.codes_for(action);
        if codes.is_empty() || flag_on == Some(false) {
            return Ok(());
        }
        let code = reason_code(reason);
        if code.is_some_and(|c| codes.iter().any(|e| e.code == c)) {
            return Ok(());
        }
        let listed: Vec<&str> = codes.iter().map(|e| e.code.as_str()).collect();
        let why = match code.and_then(|c| self.get(c)) {
            Some(e) => format!(
                "code {:?} of {} is for {}, not {}",
                e.code,
                self.file,
                e.group.map_or("every action", Group::name),
                action.name()
            ),
            None => format!("reason {reason:?} has no code of {}", self.file),
        };
        Err(format!(
            "{why}: a {} reason starts with one of {} (`CODE` or `CODE: note`)",
            action.name(),
            listed.join(", ")
        ))
    }
}

/// Decisions counted by action name and the code their reason starts with (`""`: none).
pub type ReasonCounts = BTreeMap<String, BTreeMap<String, usize>>;

/// Count the decisions of `applied` that take a reason code (drop, adjust, relabel, add,
/// clean, remove, a flag put on) into `counts`, by action and code ([`reason_code`]).
pub fn count_reasons(counts: &mut ReasonCounts, applied: &[Decision]) {
    for d in applied {
        if Group::of(d.action).is_none() || d.flag_on == Some(false) {
            continue;
        }
        let code = d.reason.as_deref().and_then(reason_code).unwrap_or("");
        *counts
            .entry(d.action.name().to_owned())
            .or_default()
            .entry(code.to_owned())
            .or_default() += 1;
    }
}

/// One line of a per-reason table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasonRow {
    /// The action (`drop`).
    pub action: &'static str,
    /// The code; `None` for the decisions whose reason has none.
    pub code: Option<String>,
    /// The code's description in the rubric; `None` when it has no such code.
    pub description: Option<String>,
    /// How many decisions.
    pub decisions: usize,
}

/// `counts` as table rows: by group in file order; in a group the rubric's codes in its
/// order, then codes it lacks, then the decisions without a code.
#[must_use]
pub fn reason_rows(rubric: &Rubric, counts: &ReasonCounts) -> Vec<ReasonRow> {
    let mut rows = Vec::new();
    for g in Group::ALL {
        let Some(codes) = counts.get(g.name()) else {
            continue;
        };
        let mut order: Vec<&str> = rubric
            .codes_for(g.action())
            .iter()
            .map(|e| e.code.as_str())
            .filter(|c| codes.contains_key(*c))
            .collect();
        for c in codes.keys() {
            if !c.is_empty() && !order.contains(&c.as_str()) {
                order.push(c);
            }
        }
        for c in order {
            rows.push(ReasonRow {
                action: g.name(),
                code: Some(c.to_owned()),
                description: rubric.get(c).map(|e| e.description.clone()),
                decisions: codes[c],
            });
        }
        if let Some(&n) = codes.get("") {
            rows.push(ReasonRow {
                action: g.name(),
                code: None,
                description: None,
                decisions: n,
            });
        }
    }
    rows
}

impl Rubric {
    /// The reason a reviewer typed for `action`: a code's number in [`Rubric::codes_for`]'s
    /// order (from 1) or the code itself (case aside), then an optional note; `None` when
    /// nothing was typed.
    ///
    /// # Errors
    /// The first word is no number or code of the action's, quoted with the codes that apply.
    pub fn pick(&self, action: ActionKind, typed: &str) -> Result<Option<String>, String> {
        let typed = typed.trim();
        if typed.is_empty() {
            return Ok(None);
        }
        let (word, note) = typed
            .split_once(|c: char| c.is_whitespace() || c == ':')
            .unwrap_or((typed, ""));
        let note = note.trim_start_matches([':', ' ']);
        let codes = self.codes_for(action);
        let by_number = word
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| codes.get(i));
        let found = by_number
            .or_else(|| codes.iter().find(|e| e.code == word))
            .or_else(|| codes.iter().find(|e| e.code.eq_ignore_ascii_case(word)));
        match found {
            Some(e) => Ok(Some(coded_reason(&e.code, note))),
            None => {
                let listed: Vec<String> = codes
                    .iter()
                    .enumerate()
                    .map(|(i, e)| format!("{} {}", i + 1, e.code))
                    .collect();
                Err(format!(
                    "no code {word:?} for {}: type a number or a code ({}), then a note",
                    action.name(),
                    listed.join(", ")
                ))
            }
        }
    }

    /// `reason` with its code's description: `V1 (what it means): note`; as it is when the
    /// rubric has no such code.
    #[must_use]
    pub fn described(&self, reason: &str) -> String {
        let Some(e) = reason_code(reason).and_then(|c| self.get(c)) else {
            return reason.to_owned();
        };
        let note = reason.split_once(':').map_or("", |(_, n)| n).trim();
        if note.is_empty() {
            format!("{} ({})", e.code, e.description)
        } else {
            format!("{} ({}): {note}", e.code, e.description)
        }
    }
}

/// The triage codes as entries for flags.
fn builtin() -> Vec<Entry> {
    triage::Code::ALL
        .iter()
        .map(|c| Entry {
            code: c.name().to_owned(),
            description: c.describe().to_owned(),
            group: Some(Group::Flag),
            line: 0,
        })
        .collect()
}

/// Why `code` cannot be a code, if it cannot.
fn check_code(code: &str) -> Result<(), String> {
    if code.is_empty() {
        Err("empty code: a code is one word (`V1`)".to_owned())
    } else if code.chars().any(char::is_whitespace) {
        Err(format!(
            "code {code:?} has spaces: a code is one word (`V1`)"
        ))
    } else if code.contains(':') {
        Err(format!(
            "code {code:?} has a `:`, which ends a code in a reason"
        ))
    } else if code.chars().any(char::is_control) {
        Err(format!("code {code:?} has a control character"))
    } else {
        Ok(())
    }
}

/// The one-line description `value` of `code`.
fn description(code: &str, value: &toml::de::DeValue<'_>) -> Result<String, String> {
    let Some(text) = value.as_str() else {
        return Err(format!(
            "code {code:?}: the description must be a string (`{code} = \"what it means\"`), \
             not {}",
            Shown(value)
        ));
    };
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("code {code:?} has an empty description"));
    }
    if text.contains(['\n', '\r']) {
        return Err(format!(
            "code {code:?}: the description {text:?} is more than one line"
        ));
    }
    Ok(text.to_owned())
}

/// A TOML value's kind, for messages.
struct Shown<'a, 'i>(&'a toml::de::DeValue<'i>);

impl fmt::Display for Shown<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use toml::de::DeValue;
        match self.0 {
            DeValue::Integer(i) => write!(f, "the number {}", i.as_str()),
            DeValue::Float(x) => write!(f, "the number {}", x.as_str()),
            DeValue::Boolean(b) => write!(f, "{b}"),
            DeValue::Datetime(d) => write!(f, "the date {d}"),
            DeValue::Array(_) => f.write_str("a list"),
            DeValue::Table(_) => f.write_str("a table"),
            DeValue::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// The 1-based line of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    1 + text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

#[cfg(test)]
mod tests;
