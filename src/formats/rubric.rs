//! Reading a rubric file (`--rubric FILE.toml`, `rubric = "..."` in the config): its text is
//! [`crate::review::rubric::Rubric::parse`]d, errors naming the file and line.

use std::path::Path;

use anyhow::Context;

use crate::review::rubric::Rubric;

/// The rubric in `path`.
///
/// # Errors
/// The file cannot be read (naming it), or is no rubric (`FILE:LINE: why`).
pub fn read(path: &Path) -> anyhow::Result<Rubric> {
    read_with_text(path).map(|(rubric, _)| rubric)
}

/// The rubric in `path` and the file's text (export copies it as read).
///
/// # Errors
/// As [`read`].
pub fn read_with_text(path: &Path) -> anyhow::Result<(Rubric, String)> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{shown}: cannot read the rubric"))?;
    let rubric = Rubric::parse(&shown, &text)?;
    Ok((rubric, text))
}
