//! Where the exported records go, in file order: the record files, the verdicts, the tallies
//! and warnings on the way, and at the end the report, the renames and the exit status.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use super::output::{AtomicFile, Protected, Records};
use super::record::{Bytes, Item, Line};
use super::{card, dest, features, output, report, ExportOptions};
use crate::formats::judges::reviewers::Conflict;
use crate::formats::DataFile;
use crate::model::escape::to_stderr;
use crate::model::{Record, Span};
use crate::review::decision::{Decision, RecordReview};
use crate::review::outcome::{type_after, Tally, Verdict};

/// Where exported records go, and what is counted on the way.
pub(super) struct Sink<'a> {
    pub(super) args: &'a ExportOptions,
    /// The leading input file: unchanged lines are copied from it (from the descriptor it
    /// was indexed through), and line numbers are its.
    pub(super) primary: &'a DataFile,
    /// The index of the next record taken.
    pub(super) next: usize,
    /// The lines of each id with decisions (an id on several lines gets a warning).
    pub(super) lines_of: HashMap<String, Vec<u32>>,
    pub(super) log: &'a HashMap<String, Vec<Decision>>,
    /// `--clean-in-all`: the values clean records are copied into.
    pub(super) routes: BTreeSet<String>,
    pub(super) records: Records,
    pub(super) verdicts: Option<AtomicFile>,
    pub(super) tally: Tally,
    pub(super) stale: Vec<Decision>,
    /// Ids of the input's records that have decisions.
    pub(super) seen: HashSet<String>,
    /// Reviewed records left with a type and no label (open items): id and type.
    pub(super) unlabeled: Vec<(String, String)>,
    /// Reviewed records of type `clean` left with labels.
    pub(super) clean_labeled: Vec<String>,
    /// Ids of unreadable lines with decisions in force, and those decisions (not applied).
    pub(super) unreadable: Vec<(String, Vec<i64>)>,
    /// Records where reviewers' results differ and no arbitration settled them.
    pub(super) conflicts: Vec<Conflict>,
    /// Records written to the `none` file because they have no `--split-by` value.
    pub(super) no_value: usize,
    /// Labels of reviewed records left out because they could not be read.
    pub(super) unreadable_labels: usize,
    /// Kept spans that do not slice their output (`FILE:LINE: ...`): the export is refused.
    pub(super) bad_spans: Vec<String>,
    /// `--rubric`: the report's descriptions of reason codes, and the copy beside the export.
    pub(super) rubric: Option<super::rubric_copy::RubricCopy>,
    /// `--contested`: the contested cases, written as records go by.
    pub(super) contested: Option<super::contested::Contested>,
    /// `--card`: the team's figures it reports beside the tally.
    pub(super) team: card::TeamFigures,
}

impl Sink<'_> {
    /// Write one record's line and verdict, and count it.
    pub(super) fn take(&mut self, item: Item) -> anyhow::Result<()> {
        let i = self.next;
        self.next += 1;
        // A line with a span that does not slice its answer is never written, not even into
        // a stream: the export is refused at the end.
        let written = item.line.is_some() && item.bad_spans.is_empty();
        if let (Some(line), true) = (&item.line, written) {
            self.write_line(line)?;
        }
        self.unreadable_labels += item.unreadable_labels;
        self.bad_spans.extend(item.bad_spans);
        let tally = &mut self.tally;
        tally.unlabeled_spans += item.unlabeled_spans;
        if let Some(u) = item.unreadable {
            to_stderr!(
                "{}; {}",
                u.problem,
                if written {
                    "the line is passed through unchanged"
                } else {
                    "the line cannot be routed and is left out of the split files"
                }
            );
            tally.add_unreadable(written, u.decisions.len());
            if let Some(id) = u.id {
                self.line_of(&id, i);
                self.seen.insert(id.clone());
                if !u.decisions.is_empty() {
                    self.unreadable.push((id, u.decisions));
                }
            }
            return Ok(());
        }
        tally.add_strict(&item.strict_dropped);
        let Some((rec, review, exported)) = item.review else {
            if written {
                tally.add_unchanged();
            } else {
                tally.add_skipped();
            }
            return Ok(());
        };
        self.seen.insert(rec.id.clone());
        self.line_of(&rec.id, i);
        let tally = &mut self.tally;
        tally.add(&rec, &review, written);
        if written && tally.add_written(&rec, &review, &exported) {
            let ty = type_after(&rec, &review).unwrap_or_default();
            self.unlabeled.push((rec.id.clone(), ty));
        }
        if written && tally.add_clean_labeled(&rec, &review, &exported) {
            self.clean_labeled.push(rec.id.clone());
        }
        let verdict_made = review.has_verdict();
        if !written && !verdict_made {
            tally.unreviewed_skipped += 1;
        }
        self.write_verdict(&rec, &review, &exported, &item.strict_dropped)?;
        if let Some(c) = &mut self.contested {
            c.write(&rec, &review)?;
        }
        self.stale.extend(review.stale);
        Ok(())
    }

    /// Write a record's line into its file (every value's file, for a clean record under
    /// `--clean-in-all`).
    fn write_line(&mut self, line: &Line) -> anyhow::Result<()> {
        match line.bytes {
            Bytes::Input { offset, len } => {
                self.records.push_input(&self.primary.index, offset, len)?;
            }
            Bytes::Built(ref bytes) if line.row.is_some() && self.records.is_parquet() => {
                // An unchanged row of a parquet input: its Arrow values, copied.
                let (Some(rows), Some(e)) = (
                    self.primary.index.parquet_rows(),
                    line.row.and_then(|i| self.primary.index.entry(i)),
                ) else {
                    anyhow::bail!("internal: a parquet row without its parquet input");
                };
                self.records.push_row(rows, &e, bytes)?;
            }
            Bytes::Built(ref bytes) => {
                // C1 and bidirectional controls as `\u...`, as every JSON output writes them.
                let bytes = &*crate::model::escape::json_bytes(bytes);
                if self.args.clean_in_all && line.clean && !self.routes.is_empty() {
                    for r in &self.routes {
                        self.records.push(r, bytes)?;
                    }
                } else {
                    self.records.push(&line.route, bytes)?;
                }
                self.no_value += usize::from(line.no_value);
            }
        }
        Ok(())
    }

    /// With `--verdicts`, write the reviewed record's verdict line.
    fn write_verdict(
        &mut self,
        rec: &Record,
        review: &RecordReview,
        exported: &[Span],
        strict_dropped: &[Span],
    ) -> anyhow::Result<()> {
        if let Some(v) = &mut self.verdicts {
            let log = self.log.get(&rec.id).map_or(&[][..], Vec::as_slice);
            let verdict = Verdict::new(rec, review, exported, strict_dropped).with_log(log);
            let w = v.writer()?;
            let text = serde_json::to_string(&verdict)?;
            w.write_all(crate::model::escape::json(&text).as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Note that record `i` has the id `id`, which has decisions.
    fn line_of(&mut self, id: &str, i: usize) {
        if self.log.contains_key(id) {
            let line = self.primary.line(i);
            match self.lines_of.get_mut(id) {
                Some(lines) => lines.push(line),
                None => {
                    self.lines_of.insert(id.to_owned(), vec![line]);
                }
            }
        }
    }

    /// Ids with decisions that are on several lines of the input, with those lines (sorted by
    /// first line), and how many lines repeat an earlier one's id.
    fn repeated_ids(&self) -> (Vec<(&str, &[u32])>, usize) {
        let mut ids: Vec<(&str, &[u32])> = self
            .lines_of
            .iter()
            .filter(|(_, l)| l.len() > 1)
            .map(|(id, l)| (id.as_str(), l.as_slice()))
            .collect();
        ids.sort_by_key(|(_, l)| l[0]);
        let n = ids.iter().map(|(_, l)| l.len() - 1).sum();
        (ids, n)
    }

    /// Report what was found; unless stale decisions or spans that do not slice their answer
    /// stop it (exit 1), write the report and rename every file into place.
    pub(super) fn finish(
        mut self,
        name: &str,
        protected: &Protected,
        manifest: Option<&Path>,
    ) -> anyhow::Result<ExitCode> {
        self.warn_open_items();
        let repeated_lines = self.warn_repeated_and_unrouted();
        self.warn_conflicts_and_orphans();
        if self.refused() {
            return Ok(ExitCode::from(1));
        }
        let names = self.persist(name, protected, manifest, repeated_lines)?;
        Ok(self.summary(&names))
    }

    /// Warn about the records left unlabeled or with labels they should not keep, the spans
    /// without label, and the unreadable records whose decisions are not applied.
    fn warn_open_items(&self) {
        warn_ids(
            &format!(
                "{} reviewed record(s) keep a hallucination type but no label (the published \
                 schema allows that only for clean records; label, reclassify or remove them: \
                 open items, listed in the report; --require-settled refuses them)",
                self.unlabeled.len()
            ),
            self.unlabeled.iter().map(|(id, _)| id.as_str()),
        );
        warn_ids(
            &format!(
                "clean records left with labels: {} — reclassify them in review (the published \
                 schema gives clean records no labels)",
                self.clean_labeled.len()
            ),
            self.clean_labeled.iter().map(String::as_str),
        );
        if self.tally.unlabeled_spans > 0 {
            to_stderr!(
                "warning: {} exported span(s) have no label (written without one; label them in \
                 review)",
                self.tally.unlabeled_spans
            );
        }
        for (id, decisions) in &self.unreadable {
            to_stderr!(
                "warning: record {id:?} could not be read ({}); its {} decision(s) in force are \
                 not applied: {}",
                if self.args.split_by.is_some() {
                    "its line is left out of the split files"
                } else {
                    "its line is passed through as it is"
                },
                decisions.len(),
                decisions
                    .iter()
                    .map(|d| format!("#{d}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }

    /// Warn about ids on several lines, records without a `--split-by` value and unreadable
    /// lines; how many lines repeat an earlier line's id (for the report).
    fn warn_repeated_and_unrouted(&self) -> usize {
        let (repeated, repeated_lines) = self.repeated_ids();
        for (id, lines) in &repeated {
            to_stderr!(
                "warning: {}: the id {id:?} is on {} lines ({}); its decisions were applied to \
                 each of them, and the report counts each line",
                self.primary.path().display(),
                lines.len(),
                lines
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let (Some(field), true) = (&self.args.split_by, self.no_value > 0) {
            to_stderr!(
                "warning: {} of {} records have no {field} (missing or null): they were written \
                 to {}{}{}",
                self.no_value,
                self.tally.records_in,
                output::split_path(&self.args.out, output::NO_VALUE).display(),
                if self.args.clean_in_all {
                    " (clean ones, with --clean-in-all, to every file)"
                } else {
                    ""
                },
                if self.no_value == self.tally.records_in {
                    " (no record has the field: check the --split-by path)"
                } else {
                    ""
                }
            );
        }
        if self.tally.unreadable_lines > 0 {
            to_stderr!(
                "warning: unreadable input lines {}: {}",
                if self.args.split_by.is_some() {
                    "left out of the split files"
                } else {
                    "passed through unchanged"
                },
                self.tally.unreadable_lines,
            );
        }
        repeated_lines
    }

    /// Warn about reviewers' unresolved conflicts and about decisions on records the input
    /// does not have (counted in the tally).
    fn warn_conflicts_and_orphans(&mut self) {
        warn_ids(
            &format!(
                "{} record(s) where reviewers' final decisions differ and no arbitration \
                 resolved them (exported with the later decision in the log; resolve them with \
                 `review --queue disputed`)",
                self.conflicts.len()
            ),
            self.conflicts.iter().map(|c| c.record_id.as_str()),
        );
        let mut orphans: Vec<&str> = Vec::new();
        let mut n = 0;
        for (id, d) in self.log {
            if !self.seen.contains(id) {
                orphans.push(id);
                n += d.len();
            }
        }
        orphans.sort_unstable();
        self.tally.add_orphans(n);
        warn_ids(
            &format!(
                "{n} decision(s) name {} record(s) the input does not have (not applied)",
                orphans.len()
            ),
            orphans.into_iter(),
        );
    }

    /// Whether the export is refused (nothing written, exit 1): spans `validate` would reject,
    /// stale decisions without `--skip-stale`, open items under `--require-settled`; each
    /// is told.
    fn refused(&self) -> bool {
        let mut refused = false;
        for b in &self.bad_spans {
            to_stderr!("spanreview: {b}");
        }
        if !self.bad_spans.is_empty() {
            to_stderr!(
                "spanreview: {} span(s) `validate` would reject (offsets that do not slice \
                 their record's output, or a label that is a record's type, missing or not in \
                 the label set); nothing was written{}. Drop, relabel or correct them in review \
                 (or fix the input), then export again.",
                self.bad_spans.len(),
                dest::streamed_note(self.args)
            );
            refused = true;
        }
        if !self.stale.is_empty() {
            for d in &self.stale {
                to_stderr!(
                    "stale: record {:?}: decision #{} ({} by {} at {}) was made on other \
                     content of the record; not applied",
                    d.record_id,
                    d.id,
                    d.action.name(),
                    d.reviewer,
                    d.time
                );
            }
            if !self.args.skip_stale {
                to_stderr!(
                    "spanreview: {} stale decision(s) on {} record(s); nothing was written{}. \
                     Review those records again, or pass --skip-stale to export without these \
                     decisions.",
                    self.stale.len(),
                    self.tally.stale_records,
                    dest::streamed_note(self.args)
                );
                refused = true;
            }
        }
        if self.args.require_settled && !self.unlabeled.is_empty() {
            for (id, ty) in &self.unlabeled {
                to_stderr!(
                    "spanreview: record {id:?} is typed {ty:?} and keeps no span (open item)"
                );
            }
            to_stderr!(
                "spanreview: --require-settled: {} open item(s); nothing was written{}. Label, \
                 reclassify clean (c) or remove (R) them in review, then export again.",
                self.unlabeled.len(),
                dest::streamed_note(self.args)
            );
            refused = true;
        }
        refused
    }

    /// Finish the record files, write the report and features asked for, and rename the whole
    /// set into place ([`super::set::persist_all`]); the record files' names and counts.
    fn persist(
        &mut self,
        name: &str,
        protected: &Protected,
        manifest: Option<&Path>,
        repeated_lines: usize,
    ) -> anyhow::Result<Vec<String>> {
        let layout = super::written_layout(self.primary, &self.args.out);
        let files = std::mem::replace(&mut self.records, Records::none(layout)).finish()?;
        let what = if self.args.split_by.is_some() {
            "--split-by file"
        } else {
            "--out"
        };
        for f in &files {
            protected.check(f.dest(), what)?;
        }
        let report_file = self.report_file(name, repeated_lines)?;
        let card_files = match &self.args.card {
            Some(p) => card::files(
                p,
                &self.header(name, repeated_lines),
                &self.tally,
                &self.team,
                protected,
            )?,
            None => Vec::new(),
        };
        let features_file = match &self.args.features {
            Some(p) => Some(features::write(
                p,
                &files,
                super::written_layout(self.primary, &self.args.out),
            )?),
            None => None,
        };
        let verdicts_features = match &self.args.verdicts_features {
            Some(p) => Some(features::write_verdicts(p)?),
            None => None,
        };
        let rubric_file = match &self.rubric {
            Some(r) => r.file()?,
            None => None,
        };
        let names: Vec<String> = files
            .iter()
            .map(|f| {
                let shown = match &self.args.out_named {
                    Some(n) if f.dest() == self.args.out => n.as_path(),
                    _ => f.dest(),
                };
                format!("{} ({} records)", shown.display(), f.count())
            })
            .collect();
        let mut all: Vec<(AtomicFile, &str)> =
            files.into_iter().map(|f| (f.into_file(), what)).collect();
        all.extend(self.verdicts.take().map(|f| (f, "--verdicts")));
        all.extend(report_file.map(|f| (f, "--report")));
        all.extend(
            self.contested
                .take()
                .map(|c| (c.into_file(), "--contested")),
        );
        all.extend(features_file.map(|f| (f, "--features")));
        all.extend(verdicts_features.map(|f| (f, "--verdicts-features")));
        all.extend(rubric_file.map(|f| (f, "--rubric")));
        all.extend(card_files.into_iter().map(|f| (f, "--card")));
        super::set::persist_all(all, manifest)?;
        Ok(names)
    }

    /// What the report and the card say about the export itself.
    fn header<'s>(&'s self, name: &'s str, repeated_lines: usize) -> report::Header<'s> {
        report::Header {
            dataset: name,
            inputs: self
                .args
                .files
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            strict: self.args.strict,
            split: self.args.split_by.is_some(),
            repeated_lines,
            unreadable_labels: self.unreadable_labels,
            cut_short: self.primary.index.problems.len(),
            rubric: self.rubric.as_ref().map(|r| &r.rubric),
            min_seconds: self.args.min_seconds,
        }
    }

    /// The Markdown report, written to its temporary file, with `--report`.
    fn report_file(&self, name: &str, repeated_lines: usize) -> anyhow::Result<Option<AtomicFile>> {
        Ok(match &self.args.report {
            Some(p) => {
                let mut text = report::markdown(&self.header(name, repeated_lines), &self.tally);
                text.push_str(&report::conflict_section(&self.conflicts));
                text.push_str(&report::open_items_section(&self.unlabeled));
                let mut f = AtomicFile::create(p)?;
                f.writer()?
                    .write_all(text.as_bytes())
                    .with_context(|| format!("writing {}", p.display()))?;
                Some(f)
            }
            None => None,
        })
    }

    /// Say what was exported where, and what is not in it; the exit status (1 when decisions
    /// on unreadable lines were not applied, lines could not be routed, or the input is cut
    /// short).
    fn summary(&self, names: &[String]) -> ExitCode {
        let t = &self.tally;
        to_stderr!(
            "exported {} of {} records ({} reviewed, {} removed, {} reclassified clean) to {}",
            t.records_out,
            t.records_in,
            t.reviewed,
            t.removed_total(),
            t.reclassified_clean,
            if names.is_empty() {
                "no file (no record to write)".to_owned()
            } else {
                names.join(", ")
            }
        );
        // Written, but not everything is in it: decisions on unreadable lines were not
        // applied, or unreadable lines could not be routed into the split files.
        let cut_short = &self.primary.index.problems;
        for (line, _) in cut_short {
            to_stderr!(
                "spanreview: {}:{line}: the input is cut short; the record there is not in the \
                 export (exit 1)",
                self.primary.path().display()
            );
        }
        let incomplete = !self.unreadable.is_empty()
            || (self.args.split_by.is_some() && t.unreadable_lines > 0)
            || !cut_short.is_empty();
        if incomplete {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// A warning followed by the first ten ids (nothing when there are none).
fn warn_ids<'a>(what: &str, ids: impl ExactSizeIterator<Item = &'a str>) {
    let n = ids.len();
    if n == 0 {
        return;
    }
    let shown: Vec<&str> = ids.take(10).collect();
    let more = if n > shown.len() { ", ..." } else { "" };
    to_stderr!("warning: {what}: {}{more}", shown.join(", "));
}
