//! `export --rubric FILE.toml`: the rubric the report describes reason codes by, copied beside
//! the export as one more file of its set (it is part of what a release ships).
//!
//! The copy goes into the folder of `--report` (else of `--out`, else of `--verdicts`, the first
//! that is a file path) under the rubric's own file name, unless the rubric is that file
//! already. It is checked as every destination is (not an input, the database or another
//! output; not a folder, in a folder that exists) before anything is written.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::dest::{self, Target};
use super::options::ExportOptions;
use super::output::{canonical, check_dest, AtomicFile, Protected};
use crate::review::rubric::Rubric;

/// The rubric read, and where its copy goes.
#[derive(Debug)]
pub struct RubricCopy {
    /// The rubric.
    pub rubric: Rubric,
    /// Its file's bytes, copied as read.
    text: String,
    /// The copy's destination; `None` when the rubric is there already.
    dest: Option<PathBuf>,
}

/// The `--rubric` of `opts`, read and its copy's destination checked against `protected` and
/// the other outputs.
///
/// # Errors
/// The rubric cannot be read or is no rubric (`FILE:LINE: why`), no output is a file to put it
/// beside, or the destination is refused.
pub fn open(opts: &ExportOptions, protected: &Protected) -> anyhow::Result<Option<RubricCopy>> {
    let Some(path) = &opts.rubric else {
        return Ok(None);
    };
    let (rubric, text) = crate::formats::rubric::read_with_text(path)?;
    let dest = destination(opts, path)?;
    let dest = if canonical(&dest) == canonical(path) {
        None
    } else {
        let what = "the --rubric copy";
        protected.check(&dest, what)?;
        for other in [
            Some(&opts.out),
            opts.verdicts.as_ref(),
            opts.report.as_ref(),
        ]
        .into_iter()
        .flatten()
        .chain(&opts.features)
        .chain(&opts.verdicts_features)
        {
            if canonical(other) == canonical(&dest) {
                bail!(
                    "{what} {} would replace the output {}: name the rubric file otherwise, or \
                     write the outputs elsewhere (nothing was written)",
                    dest.display(),
                    other.display()
                );
            }
        }
        check_dest(&dest, what)?;
        Some(dest)
    };
    Ok(Some(RubricCopy { rubric, text, dest }))
}

/// Where the copy of the rubric `path` goes.
fn destination(opts: &ExportOptions, path: &Path) -> anyhow::Result<PathBuf> {
    let Some(name) = path.file_name() else {
        bail!("--rubric {}: not a file name", path.display());
    };
    for beside in [
        opts.report.as_ref(),
        Some(&opts.out),
        opts.verdicts.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        if dest::target(beside)? != Target::Stream {
            return Ok(dest::parent(beside).join(name));
        }
    }
    bail!(
        "--rubric {}: the rubric is copied beside the export, and no output is a file (give \
         --report or --out a file path; nothing was written)",
        path.display()
    )
}

impl RubricCopy {
    /// The copy, written to its temporary file; `None` when the rubric is in place already.
    ///
    /// # Errors
    /// The temporary file cannot be written.
    pub fn file(&self) -> anyhow::Result<Option<AtomicFile>> {
        let Some(dest) = &self.dest else {
            return Ok(None);
        };
        let mut f = AtomicFile::create(dest)?;
        f.writer()?
            .write_all(self.text.as_bytes())
            .with_context(|| format!("writing {}", dest.display()))?;
        Ok(Some(f))
    }
}
