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
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{shown}: cannot read the rubric"))?;
    Ok(Rubric::parse(&shown, &text)?)
}
