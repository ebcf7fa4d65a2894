//! Evidence for contradictions: why a ranked candidate may be what the span contradicts.

use crate::tui::text;

/// Status line on a ranked candidate: why it may be what the span contradicts.
#[must_use]
pub fn candidate(why: &crate::review::evidence::Reason) -> String {
    use crate::review::evidence::Reason;
    let why = match why {
        Reason::Key(k) => format!("key `{k}` near the span"),
        Reason::Unit(u) => format!("number with the same unit {u}"),
        Reason::Magnitude => "number of the same magnitude".to_owned(),
        Reason::Date => "date".to_owned(),
        Reason::SameKind(k) if k.is_empty() => "name of the same kind".to_owned(),
        Reason::SameKind(k) => format!("name of the same kind (`{k}`)"),
        Reason::Near(v) => format!(
            "next to “{}”, which the answer repeats near the span",
            short(v)
        ),
        Reason::Between(l, r) => format!("between “{l}” and “{r}”, as in the answer"),
    };
    format!("candidate: {why}")
}

/// A value shortened for the status line: 40 columns and `…` at most, cut between whole
/// characters ([`text::truncate`]).
fn short(v: &str) -> String {
    text::truncate(v, 41)
}

#[cfg(test)]
mod tests {
    use super::{candidate, text};
    use crate::review::evidence::Reason;

    /// A long value is cut between characters as the screen shows them: never between a letter
    /// and its combining mark, and to the status line's columns, not code points.
    #[test]
    fn a_long_near_value_is_cut_whole_characters_to_columns() {
        let accent = format!("{}e\u{301}tait là", "x".repeat(39));
        let msg = candidate(&Reason::Near(accent));
        assert!(msg.contains("e\u{301}…"), "{msg}");
        let cjk = candidate(&Reason::Near("東".repeat(50)));
        let quoted = cjk.split('“').nth(1).and_then(|q| q.split('”').next());
        assert!(quoted.is_some_and(|q| text::width(q) <= 41), "{cjk}");
        let ascii = candidate(&Reason::Near("a".repeat(60)));
        assert!(ascii.contains(&format!("“{}…”", "a".repeat(40))), "{ascii}");
    }
}
