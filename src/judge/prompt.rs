//! Prompt files and the two messages of one record's request.
//!
//! A prompt file is the system message, a line `=== user ===`, and the user message. Both may
//! hold the placeholders `{query}`, `{context}`, `{answer}`, `{spans}` (the numbered labeled
//! spans), `{tools}` (the names in `meta.tools`), `{labels}` (the label set's definitions) and
//! `{rubric}` (the rubric's codes, empty without one); any other `{name}` is refused. The
//! user message must hold `{answer}`.

use std::fmt::Write as _;

use crate::model::Record;

/// The default prompt for the toolace types.
pub const TOOLACE: &str = include_str!("../../assets/prompts/toolace.txt");
/// The default prompt for the LettuceDetect taxonomy.
pub const LETTUCEDETECT: &str = include_str!("../../assets/prompts/lettucedetect.txt");

/// The line between the system and the user message.
const USER_MARK: &str = "=== user ===";

/// The placeholders a prompt may hold.
const PLACEHOLDERS: [&str; 7] = [
    "query", "context", "answer", "spans", "tools", "labels", "rubric",
];

/// A prompt: the system message and the user message, placeholders unfilled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    system: String,
    user: String,
}

/// A rubric: codes and what each means, in the file's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rubric {
    /// `(code, description)`.
    pub codes: Vec<(String, String)>,
}

impl Rubric {
    /// Read a rubric file as review, apply and export read it
    /// ([`crate::review::rubric::Rubric`]: codes grouped by action, or one flat table); the
    /// model is offered the file's own codes, whatever action each is for. `origin` names the
    /// file in errors (`FILE:LINE`).
    ///
    /// # Errors
    /// The file is no rubric (each error names its line), or defines no code.
    pub fn parse(text: &str, origin: &str) -> Result<Self, String> {
        let rubric =
            crate::review::rubric::Rubric::parse(origin, text).map_err(|e| e.to_string())?;
        // Its built-in triage codes are for flags, not a model's verdicts.
        let codes: Vec<(String, String)> = (rubric.entries().iter())
            .filter(|e| e.line > 0)
            .map(|e| (e.code.clone(), e.description.clone()))
            .collect();
        if codes.is_empty() {
            return Err(format!(
                "{origin}: the rubric has no code (write CODE = \"what it means\")"
            ));
        }
        Ok(Self { codes })
    }

    /// The codes alone.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.codes.iter().map(|(c, _)| c.clone()).collect()
    }

    /// The text `{rubric}` stands for.
    fn text(&self) -> String {
        let mut s = String::from(
            "\nRUBRIC: set each \"code\" to the code of the rubric entry that applies (one of the \
             codes below):\n",
        );
        for (c, d) in &self.codes {
            let _ = writeln!(s, "  {c} - {d}");
        }
        s
    }
}

impl Prompt {
    /// Read a prompt file's text; `origin` names it in errors (`FILE:LINE`).
    ///
    /// # Errors
    /// No `=== user ===` line, an unknown placeholder, or a user message without `{answer}`.
    pub fn parse(text: &str, origin: &str) -> Result<Self, String> {
        let mut system = String::new();
        let mut user: Option<String> = None;
        for (n, line) in text.lines().enumerate() {
            if let Some(name) = unknown_placeholder(line) {
                return Err(format!(
                    "{origin}:{}: unknown placeholder {{{name}}} (known: {})",
                    n + 1,
                    PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
                ));
            }
            if line.trim() == USER_MARK && user.is_none() {
                user = Some(String::new());
                continue;
            }
            let part = user.as_mut().unwrap_or(&mut system);
            part.push_str(line);
            part.push('\n');
        }
        let Some(user) = user else {
            return Err(format!(
                "{origin}: no line {USER_MARK:?} between the system and the user message"
            ));
        };
        if !user.contains("{answer}") {
            return Err(format!("{origin}: the user message has no {{answer}}"));
        }
        Ok(Self {
            system: system.trim_end().to_owned(),
            user: user.trim().to_owned(),
        })
    }

    /// The system and user messages for `record`: `labels` is the label set's text,
    /// `rubric` the rubric when one is given.
    #[must_use]
    pub fn render(
        &self,
        record: &Record,
        labels: &str,
        rubric: Option<&Rubric>,
    ) -> (String, String) {
        let rubric = rubric.map(Rubric::text).unwrap_or_default();
        let spans = spans_text(record);
        let tools = tool_names(record);
        let fill = |t: &str| {
            fill(t, |name| match name {
                "query" => Some(record.query.as_str()),
                "context" => Some(record.context.as_str()),
                "answer" => Some(record.output.as_str()),
                "spans" => Some(spans.as_str()),
                "tools" => Some(tools.as_str()),
                "labels" => Some(labels),
                "rubric" => Some(rubric.as_str()),
                _ => None,
            })
        };
        (fill(&self.system), fill(&self.user))
    }
}

/// `text` with each known `{name}` replaced by `value(name)`, in one pass (a value holding
/// `{answer}` is not filled again).
fn fill<'a>(text: &str, value: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        match (after[name_len..].starts_with('}'), value(name)) {
            (true, Some(v)) => {
                out.push_str(v);
                rest = &after[name_len + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first `{name}` on `line` (lowercase letters and `_`) that is not a placeholder.
fn unknown_placeholder(line: &str) -> Option<&str> {
    let mut rest = line;
    while let Some(at) = rest.find('{') {
        let after = &rest[at + 1..];
        let len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(after.len());
        if len > 0 && after[len..].starts_with('}') && !PLACEHOLDERS.contains(&&after[..len]) {
            return Some(&after[..len]);
        }
        rest = after;
    }
    None
}

/// The labeled spans as the prompt numbers them: `[0] "text" - label (characters 3-9)`.
#[must_use]
pub fn spans_text(record: &Record) -> String {
    let spans = record.gold_spans();
    if spans.is_empty() {
        return "(none: the record has no labeled span; give an empty \"labeled\" list)".to_owned();
    }
    let mut s = String::new();
    for (i, span) in spans.iter().enumerate() {
        let text = span.slice(&record.output).unwrap_or(&span.text);
        let label = match (&span.category, &span.subcategory) {
            (Some(c), Some(sub)) => format!("{c}/{sub}"),
            (Some(c), None) => c.clone(),
            _ => span.label.clone(),
        };
        let _ = writeln!(
            s,
            "[{i}] {} - {label} (characters {}-{})",
            serde_json::Value::String(text.to_owned()),
            span.start,
            span.end
        );
    }
    s.trim_end().to_owned()
}

/// The tool names of `meta.tools` (`name`, or `function.name`), or `(unspecified)`.
fn tool_names(record: &Record) -> String {
    let names: Vec<&str> = record
        .meta()
        .and_then(|m| m.get("tools"))
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t.get("function")
                .and_then(|f| f.get("name"))
                .or_else(|| t.get("name"))
                .and_then(serde_json::Value::as_str)
        })
        .collect();
    if names.is_empty() {
        "(unspecified)".to_owned()
    } else {
        names.join(", ")
    }
}

/// The LettuceDetect taxonomy's span categories with their definitions and subcategories, as
/// `{labels}` gives them, read from the bundled taxonomy file.
#[must_use]
pub fn lettucedetect_labels() -> String {
    let Ok(table) = toml::from_str::<toml::Table>(crate::formats::validate::labels::LETTUCEDETECT)
    else {
        return String::new();
    };
    let mut s = String::new();
    for (name, cat) in table
        .get("categories")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
    {
        if cat.get("span_class").and_then(toml::Value::as_bool) == Some(false) {
            continue;
        }
        let desc = cat
            .get("description")
            .and_then(toml::Value::as_str)
            .unwrap_or("");
        let subs: Vec<&str> = cat
            .get("subcategories")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(toml::Value::as_str)
            .collect();
        let _ = writeln!(s, "  {name} - {desc}; subcategories: {}", subs.join(", "));
    }
    s.trim_end().to_owned()
}

#[cfg(test)]
mod tests;
