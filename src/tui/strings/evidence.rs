//! Evidence for contradictions: why a ranked candidate may be what the span contradicts.

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

/// A value shortened for the status line.
fn short(v: &str) -> String {
    match v.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &v[..i]),
        None => v.to_owned(),
    }
}
