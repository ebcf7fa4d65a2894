//! Judges' verdicts and claims, and the marks they leave in the answer for clustering.

use serde::Serialize;

use super::{Disagreement, JudgeMark, JudgeSays, Range, Unplaced};
use crate::review::locate::{self, Located};
use crate::review::ranges::clamp;

/// Judge marks of `verdicts` (not yet knowing whether they dispute); judge names, dispute
/// counts and unplaced claims recorded in `out`.
pub(super) fn judge_marks(verdicts: &[JudgeVerdict], out: &mut Disagreement) -> Vec<JudgeMark> {
    let n = out.output_chars;
    let mut marks = Vec::new();
    for (k, v) in verdicts.iter().enumerate() {
        if !out.judges.contains(&v.source) {
            out.judges.push(v.source.clone());
        }
        let mark = |range, says| JudgeMark {
            verdict: k,
            judge: v.source.clone(),
            range,
            says,
            disputes: says == JudgeSays::LabelWrong,
        };
        let says = match v.label_correct {
            Some(true) => JudgeSays::LabelCorrect,
            Some(false) => JudgeSays::LabelWrong,
            None => JudgeSays::Unknown,
        };
        if says == JudgeSays::LabelWrong {
            out.judge_disputes += 1;
        }
        if let Some(g) = v.gold_range(n) {
            marks.push(mark(g, says));
        }
        if let Some(claim) = &v.extra {
            match claim.range(n) {
                Some(r) => marks.push(mark(r, JudgeSays::Claim)),
                None => out.unplaced.push(Unplaced {
                    verdict: k,
                    judge: v.source.clone(),
                    text: claim.text.clone(),
                }),
            }
        }
    }
    marks
}

/// One judge's verdict on a record, ready for scoring: the decisions reader turns
/// `label_correct`, `extra_hallucination` and `extra_text` into this, locating the text with
/// [`Claim::locate`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeVerdict {
    /// Name of the judge.
    pub source: String,
    /// The gold span it judged, in code points (`None`: the record had no label).
    pub gold_span: Option<Range>,
    /// `label_correct`: `Some(false)` disputes the gold span; `None` is "unknown".
    pub label_correct: Option<bool>,
    /// A hallucination the judge says the labels missed.
    pub extra: Option<Claim>,
    /// The judge's reasoning, shown to the reviewer.
    pub reasoning: String,
}

/// A judge's claim of a missed hallucination.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    /// The text the judge quoted.
    pub text: String,
    /// Where it is in the answer; `None`: an unplaced claim, to place by hand or dismiss.
    pub located: Option<Located>,
}

impl Claim {
    /// Locate `text` in `output` at the default similarity threshold.
    #[must_use]
    pub fn locate(output: &str, text: &str) -> Self {
        Self {
            text: text.to_owned(),
            located: locate::locate(output, text, locate::DEFAULT_THRESHOLD),
        }
    }

    /// The located range, clamped to `output_chars` (`None` when unplaced or empty).
    fn range(&self, output_chars: usize) -> Option<Range> {
        let l = self.located?;
        clamp((l.start, l.end), output_chars)
    }
}

impl JudgeVerdict {
    /// The judged gold span, clamped to the answer.
    fn gold_range(&self, output_chars: usize) -> Option<Range> {
        clamp(self.gold_span?, output_chars)
    }
}
