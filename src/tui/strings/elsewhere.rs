//! Decisions made elsewhere on the record on screen (a second reviewer on the database).

/// How long ago something happened, from its age in seconds.
#[must_use]
pub fn ago(secs: u64) -> String {
    match secs {
        0..60 => "a moment ago".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..172_800 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86_400),
    }
}

/// Another reviewer's decision, seen on the record on screen: `bo dropped “rainy” [29, 34) a
/// moment ago`, and `, over your accept` when it replaced one's own.
#[must_use]
pub fn decided_elsewhere(who: &str, what: &str, when: &str, over_yours: Option<&str>) -> String {
    let line = format!("{who} {what} {when}").trim_end().to_owned();
    match over_yours {
        Some(action) => format!("{line}, over your {action}"),
        None => line,
    }
}

/// Several decisions seen at once: the last one, and how many more.
#[must_use]
pub fn and_more(last: &str, more: usize) -> String {
    if more == 0 {
        last.to_owned()
    } else {
        format!("{last} (and {more} more)")
    }
}

/// One's own decision replaced another reviewer's: `overrides ana's accept of “rainy” [29,
/// 34) (a moment ago)`.
#[must_use]
pub fn overrides(who: &str, action: &str, what: &str, when: &str) -> String {
    let of = if what.is_empty() {
        String::new()
    } else {
        format!(" of {what}")
    };
    let when = if when.is_empty() {
        String::new()
    } else {
        format!(" ({when})")
    };
    format!("overrides {who}'s {action}{of}{when}")
}
