//! `--contested PATH.jsonl`: one line per disputed cluster (or judge claim) arbitration settled
//! ([`crate::review::contested`]), written as the records go by.
//!
//! A record's sides are its own sources (the labels under review), the `--judge` files' (a
//! detector's predictions, an annotator's records, a judge's decisions, whose verdicts and
//! reasoning the line carries) and the database's reviewers as `reviewer:NAME` on the records
//! two or more of them decided on; a `--judge` database is not read for it.

use std::io::Write;

use super::output::AtomicFile;
use super::ExportOptions;
use crate::formats::judges::{self, JudgeKind, JudgeSpec, Judges, LoadedSource};
use crate::model::escape::to_stderr;
use crate::model::Record;
use crate::review::contested::cases;
use crate::review::decision::{ActionKind, RecordReview};

/// The open `--contested` file and the sources attached to each record.
pub(super) struct Contested {
    file: AtomicFile,
    judges: Judges,
    /// Lines written.
    pub(super) lines: usize,
}

impl Contested {
    /// The file `opts.contested` names, with the `--judge` files read and the reviewers'
    /// sources `reviewers`; `None` without `--contested`.
    ///
    /// # Errors
    /// The file cannot be created, or a `--judge` file cannot be read.
    pub(super) fn open(
        opts: &ExportOptions,
        reviewers: Vec<LoadedSource>,
    ) -> anyhow::Result<Option<Self>> {
        let Some(path) = &opts.contested else {
            return Ok(None);
        };
        let mut sources = Vec::new();
        for (name, path) in &opts.judges {
            let spec = JudgeSpec {
                name: name.clone(),
                path: path.clone(),
            };
            match judges::kind_of(path, None)? {
                JudgeKind::File(format) => {
                    let (read, problems) = judges::read_file(&spec, format)?;
                    for p in problems {
                        to_stderr!("warning: {p}");
                    }
                    sources.extend(read);
                }
                JudgeKind::Database => to_stderr!(
                    "note: --contested shows no side for --judge {name}: it is a database \
                     (its reviewer's spans are not read by export)"
                ),
            }
        }
        sources.extend(reviewers);
        Ok(Some(Self {
            file: AtomicFile::create(path)?,
            judges: Judges {
                sources,
                agreed: std::collections::HashSet::new(),
            },
            lines: 0,
        }))
    }

    /// Write `rec`'s contested cases (none when no resolution applies to it).
    ///
    /// # Errors
    /// Writing fails.
    pub(super) fn write(&mut self, rec: &Record, review: &RecordReview) -> anyhow::Result<()> {
        if !review
            .applied
            .iter()
            .any(|d| d.action == ActionKind::Resolve)
        {
            return Ok(());
        }
        let mut rec = rec.clone();
        self.judges.attach(&mut rec);
        let verdicts = judges::verdicts(&rec);
        let w = self.file.writer()?;
        for case in cases(&rec, &review.applied, &verdicts) {
            let text = serde_json::to_string(&case)?;
            w.write_all(crate::model::escape::json(&text).as_bytes())?;
            w.write_all(b"\n")?;
            self.lines += 1;
        }
        Ok(())
    }

    /// The file, to persist with the others.
    pub(super) fn into_file(self) -> AtomicFile {
        self.file
    }
}
