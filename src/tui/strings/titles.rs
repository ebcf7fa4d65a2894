//! Titles of the panes, pickers and prompts, and what a pane shows when the record has nothing for it.

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

/// Take picker title (arbitration).
pub const PICK_SOURCE: &str = "Take which source's version?";

/// A picker's title with the digits typed so far.
#[must_use]
pub fn picker_typed(title: &str, typed: &str) -> String {
    format!("{title} · {typed}…")
}

/// Record has no tools metadata.
pub const NO_TOOLS: &str = "(this record has no meta.tools)";

/// Record has no tool call.
pub const NO_TOOL_CALL: &str = "(this record has no meta.tool_call)";

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

/// Evidence counter in the context title.
pub const EVIDENCE: &str = "evidence";

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

/// The reason prompt's title for `group`: the rubric's codes for it, numbered, each with its
/// description.
#[must_use]
pub fn prompt_reason(
    group: crate::review::rubric::Group,
    rubric: Option<&crate::review::rubric::Rubric>,
) -> String {
    use crate::review::rubric::Group;
    let what = match group {
        Group::Drop => "Drop",
        Group::Adjust => "Adjust",
        Group::Relabel => "Relabel",
        Group::Add => "Add",
        Group::Clean => "Clean",
        Group::Remove => "Remove",
        Group::Flag => "Flag",
    };
    let codes: Vec<String> = rubric
        .map(|r| r.codes_for(group.action()))
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, e)| format!("{} {} {}", i + 1, e.code, e.description))
        .collect();
    format!(
        "{what}: code (number or letters) then a note, Enter alone for none — {}",
        codes.join(" · ")
    )
}
