//! Spans that cannot be kept (reversed, empty, past the answer's end): what is wrong and how to fix it.

use crate::model::span::RangeProblem;

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
