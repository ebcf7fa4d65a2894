//! Evidence for a contradiction: the context values a span may contradict, ranked. A
//! contradicted span's own text is not in the context, so the values are found by what is around
//! the span instead: the key naming its neighbours, numbers with its unit, dates, names of the
//! kind the answer quotes, values near the other context values the answer repeats.
//!
//! Offsets: the span is a code-point range of the answer (as in the files); candidates are BYTE
//! ranges of the context text given (the TUI passes its pretty-printed context and highlights
//! bytes of it).

pub mod code;
mod scan;
use scan::{find_ci, is_iso_date, number, numbers_in, values, word_in, words, MONTHS};

/// Why a range of the context is a candidate (its strongest reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// Its key holds a word next to the span in the answer.
    Key(String),
    /// A number with the span's unit.
    Unit(String),
    /// A number of the span's magnitude (within ten times).
    Magnitude,
    /// A date, the span being (part of) a date.
    Date,
    /// A name, under a key whose other values the answer quotes.
    SameKind(String),
    /// Next to a context value that the answer repeats near the span.
    Near(String),
    /// Between the words that surround the span in the answer.
    Between(String, String),
}

/// A ranked candidate: bytes `[start, end)` of the context, its score and reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// Higher first.
    pub score: f32,
    /// The strongest reason.
    pub reason: Reason,
}

/// Candidates kept at most.
pub const MAX_CANDIDATES: usize = 10;

/// Bytes of the answer on each side of the span searched for anchors (values it repeats).
const WINDOW: usize = 240;

/// Bytes of the answer on each side of the span where quoted names are looked for (a 10 M
/// character answer is not searched whole for every context value).
const QUOTED: usize = 4096;

/// Bytes of context within which a candidate counts as near an anchor.
const NEAR: usize = 400;

/// What the span looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    Date,
    Name,
    Word,
}

/// The answer around the span, taken apart.
struct Around<'a> {
    kind: Kind,
    /// The span's number and unit, when it is one.
    number: Option<(f64, String)>,
    /// The value token holding the span with the span cut out (`-06-30` of `1994-06-30`).
    rest: String,
    /// Words of the span's line outside the span.
    neighbours: Vec<String>,
    /// The span's line outside the span (candidates repeated there are not contradicted).
    line: String,
    /// The answer near the span, the span blanked, and where the span was in it.
    window: String,
    span_at: usize,
    /// The words just before and after the span.
    left: &'a str,
    right: &'a str,
}

/// `[s - n, e + n)` widened to character boundaries.
fn widen(text: &str, s: usize, e: usize, n: usize) -> (usize, usize) {
    let mut ws = s.saturating_sub(n);
    while !text.is_char_boundary(ws) {
        ws -= 1;
    }
    let mut we = e.saturating_add(n).min(text.len());
    while !text.is_char_boundary(we) {
        we += 1;
    }
    (ws, we)
}

fn around<'a>(answer: &'a str, s: usize, e: usize) -> Around<'a> {
    let span = &answer[s..e];
    let (ws, we) = widen(answer, s, e, WINDOW);
    let line_start = answer[ws..s].rfind('\n').map_or(ws, |i| ws + i + 1);
    let line_end = answer[e..we].find('\n').map_or(we, |i| e + i);
    let (before, after) = (&answer[line_start..s], &answer[e..line_end]);
    let mut neighbours = words(before);
    neighbours.extend(words(after));
    // The value token holding the span: digits and date/time joiners around it.
    let tok = |c: char| c.is_ascii_digit() || matches!(c, '-' | ':' | 'T');
    let pre: String = before
        .chars()
        .rev()
        .take_while(|&c| tok(c))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let post: String = after.chars().take_while(|&c| tok(c)).collect();
    let rest = if span.chars().all(|c| c.is_ascii_digit()) {
        format!("{pre}{post}")
    } else {
        String::new()
    };
    let window = format!(
        "{}{}{}",
        &answer[ws..s],
        " ".repeat(span.len()),
        &answer[e..we]
    );
    let tail: String = before
        .chars()
        .rev()
        .take(24)
        .collect::<String>()
        .to_lowercase();
    let tail: String = tail.chars().rev().collect();
    let month_before = MONTHS.iter().any(|m| tail.contains(m));
    let num = number(span).filter(|_| {
        span.trim()
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || "$€£¥+-".contains(c))
    });
    let kind =
        if is_iso_date(span.trim()) || rest.len() >= 3 && rest.starts_with('-') || month_before {
            Kind::Date
        } else if num.is_some() {
            Kind::Number
        } else if span.chars().next().is_some_and(char::is_uppercase) {
            Kind::Name
        } else {
            Kind::Word
        };
    let unit_after: String = after
        .trim_start()
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '.' | ')' | ';'))
        .collect();
    let number = num.map(|(v, u)| {
        (
            v,
            if u.is_empty() {
                unit_after.to_lowercase()
            } else {
                u
            },
        )
    });
    let left = before
        .split(|c: char| c.is_whitespace())
        .rfind(|w| !w.is_empty())
        .unwrap_or("");
    let right = after
        .split(|c: char| c.is_whitespace())
        .find(|w| !w.is_empty())
        .unwrap_or("");
    Around {
        kind,
        number,
        rest,
        neighbours,
        line: format!("{before}\u{0}{after}"),
        span_at: s - ws,
        window,
        left,
        right,
    }
}

/// Rank the context values that the answer's span `[start, end)` (code points) may contradict.
/// Returns at most [`MAX_CANDIDATES`], best first, as byte ranges of `context`. Empty when the
/// span is out of range or empty.
#[must_use]
pub fn rank(answer: &str, start: usize, end: usize, context: &str) -> Vec<Candidate> {
    let byte = |cp| crate::model::offsets::byte_of(answer, cp);
    match (byte(start), byte(end)) {
        (Some(s), Some(e)) if s <= e => rank_bytes(answer, s, e, context),
        _ => Vec::new(),
    }
}

/// [`rank`] for a span given in BYTES of the answer (on character boundaries), for a caller
/// that has a code point table (a 10 M-character answer is not scanned to find the span).
#[must_use]
pub fn rank_bytes(answer: &str, s: usize, e: usize, context: &str) -> Vec<Candidate> {
    if s > e || e > answer.len() || !answer.is_char_boundary(s) || !answer.is_char_boundary(e) {
        return Vec::new();
    }
    let span = answer[s..e].trim();
    if span.is_empty() {
        return Vec::new();
    }
    let a = around(answer, s, e);
    let vals = values(context);
    let span_low = span.to_lowercase();
    let (qs, qe) = widen(answer, s, e, QUOTED);
    let quoted = answer[qs..qe].to_lowercase();
    let line = a.line.to_lowercase();
    let window = a.window.to_lowercase();
    let window_numbers = numbers_in(&a.window);
    // Anchors: context values the answer repeats near the span, weighted by how near.
    let anchors: Vec<(usize, f32, &str)> = vals
        .iter()
        .filter(|v| v.text.chars().count() >= 2 && v.text.to_lowercase() != span_low)
        .filter_map(|v| {
            let at = match number(v.text).filter(|_| {
                v.text
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
            }) {
                Some((x, _)) if window_numbers.iter().any(|y| (x - y).abs() < 1e-9) => {
                    a.window.find(&format_short(x)).or(Some(a.span_at))
                }
                Some(_) => None,
                None => word_in(&window, &v.text.to_lowercase()),
            }?;
            let dist = at.abs_diff(a.span_at) as f32;
            Some((v.start, 1.0 - (dist / (2 * WINDOW) as f32).min(0.9), v.text))
        })
        .collect();
    // Keys whose values the answer quotes near the span: names of the same kind live there
    // (only looked for when the span is a name: it is the costly search).
    let quoted_keys: Vec<&str> = vals
        .iter()
        .filter(|v| a.kind == Kind::Name && v.text.chars().count() >= 3)
        .filter(|v| word_in(&quoted, &v.text.to_lowercase()).is_some())
        .map(|v| v.key)
        .collect();
    let mut out: Vec<Candidate> = Vec::new();
    for v in &vals {
        let low = v.text.to_lowercase();
        if low == span_low || (v.depth == 1 && matches!(v.key, "name" | "role")) {
            continue;
        }
        // Repeated on the span's own line: the answer states it, the span is something else.
        if v.text.chars().count() >= 2 && word_in(&line, &low).is_some() {
            continue;
        }
        let mut parts: Vec<(f32, Reason)> = Vec::new();
        let key_hits = words(v.key)
            .into_iter()
            .filter(|w| w.chars().count() >= 3 && a.neighbours.contains(w))
            .count();
        if key_hits > 0 {
            parts.push((1.5 * key_hits as f32, Reason::Key(v.key.to_owned())));
        }
        let vnum = number(v.text).filter(|_| {
            v.text
                .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '$')
        });
        match (a.kind, &a.number, &vnum) {
            (Kind::Number, Some((x, u)), Some((y, vu))) => {
                if !u.is_empty() && u == vu {
                    parts.push((2.0, Reason::Unit(u.clone())));
                } else if *x != 0.0 && *y != 0.0 && (x / y).abs().log10().abs() <= 1.0 {
                    parts.push((1.0, Reason::Magnitude));
                } else {
                    parts.push((0.3, Reason::Magnitude));
                }
            }
            (Kind::Date, _, _) if is_iso_date(v.text) => {
                let shares = !a.rest.is_empty() && v.text.contains(&a.rest);
                parts.push((if shares { 3.0 } else { 2.0 }, Reason::Date));
            }
            (Kind::Name, _, None) => {
                let name_like = v.text.chars().next().is_some_and(char::is_uppercase)
                    && v.text.split_whitespace().count() <= 5;
                if name_like {
                    parts.push((0.5, Reason::SameKind(v.key.to_owned())));
                    if quoted_keys.contains(&v.key) && word_in(&quoted, &low).is_none() {
                        parts.push((1.5, Reason::SameKind(v.key.to_owned())));
                    }
                }
            }
            (Kind::Word, _, None)
                if v.text.split_whitespace().count() <= 3
                    && v.text.chars().any(char::is_alphabetic) =>
            {
                parts.push((0.5, Reason::SameKind(v.key.to_owned())));
            }
            _ => {}
        }
        if let Some((w, txt)) = anchors
            .iter()
            .filter_map(|&(at, w, t)| {
                let d = at.abs_diff(v.start);
                (d < NEAR).then(|| (w * 2.0 * (1.0 - d as f32 / NEAR as f32), t))
            })
            .max_by(|x, y| x.0.total_cmp(&y.0))
        {
            parts.push((w, Reason::Near(txt.to_owned())));
        }
        let score: f32 = parts.iter().map(|p| p.0).sum();
        if score <= 0.0 {
            continue;
        }
        let best = parts
            .iter()
            .max_by(|x, y| x.0.total_cmp(&y.0))
            .map(|p| p.1.clone());
        if let Some(reason) = best {
            out.push(Candidate {
                start: v.start,
                end: v.end,
                score,
                reason,
            });
        }
    }
    out.extend(between(&a, context));
    out.sort_by(|x, y| y.score.total_cmp(&x.score).then(x.start.cmp(&y.start)));
    out.dedup_by(|x, y| x.start < y.end && y.start < x.end);
    out.truncate(MAX_CANDIDATES);
    out
}

/// Short decimal text of a number as an answer may write it (`100.0` → `100`).
fn format_short(x: f64) -> String {
    let s = format!("{x}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_owned)
}

/// Text of the context between the span's left and right words, as the answer has them
/// (`a ___ bag`), at most a few words long.
fn between(a: &Around<'_>, context: &str) -> Vec<Candidate> {
    let clean = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_owned();
    let (l, r) = (clean(a.left), clean(a.right));
    if l.is_empty() || r.is_empty() {
        return Vec::new();
    }
    let rights = find_ci(context, &r);
    let mut out = Vec::new();
    for ls in find_ci(context, &l) {
        let gap_start = ls + l.len();
        let Some(&rs) = rights.iter().find(|&&rs| rs > gap_start) else {
            continue;
        };
        let gap = &context[gap_start..rs];
        let (trim_s, trim_e) = (gap.len() - gap.trim_start().len(), gap.trim_end().len());
        if gap.trim().is_empty() || gap.len() > 40 || gap.contains(['"', '\n']) {
            continue;
        }
        out.push(Candidate {
            start: gap_start + trim_s,
            end: gap_start + trim_e,
            score: 3.0,
            reason: Reason::Between(l.clone(), r.clone()),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of the top candidates for the span `needle` (its first occurrence).
    fn top(answer: &str, needle: &str, context: &str) -> Vec<String> {
        let s = answer.find(needle).expect("needle");
        let cs = answer[..s].chars().count();
        let ce = cs + needle.chars().count();
        rank(answer, cs, ce, context)
            .iter()
            .map(|c| context[c.start..c.end].to_owned())
            .collect()
    }

    #[test]
    fn the_key_naming_the_neighbours_comes_first() {
        let ctx = r#"{"content": {"temperature": "15°C", "humidity": "80%", "city": "Zürich"}, "name": "weather", "role": "tool"}"#;
        let t = top(
            "In Zürich it’s warm: the temperature is 25°C today.",
            "25",
            ctx,
        );
        assert_eq!(t[0], "15°C", "{t:?}");
        let s = "In Zürich it’s warm: the temperature is 25°C today."
            .find("25")
            .expect("25");
        let c = rank(
            "In Zürich it’s warm: the temperature is 25°C today.",
            s - 2,
            s - 2 + 2,
            ctx,
        );
        // `’` and `ü` are two and three bytes: code points put the span on "25".
        assert!(!c.is_empty());
    }

    #[test]
    fn numbers_with_the_same_unit_and_dates() {
        let ctx = "{\"a\": \"1425°C\", \"b\": \"43 W/mK\", \"when\": \"2023-11-10\"}";
        let t = top("東京 👋: it melts at 900°C.", "900", ctx);
        assert_eq!(t[0], "1425°C", "{t:?}");
        let t = top("Draw 🎲 on 2023-12-10 at noon", "2023-12-10", ctx);
        assert_eq!(t[0], "2023-11-10", "{t:?}");
        let ctx = r#"{"eps": [{"string": "2023-09-30"}, {"string": "2023-06-30"}]}"#;
        let t = top("Café\u{301}: on 1994-06-30 it fell", "1994", ctx);
        assert_eq!(t[0], "2023-06-30", "{t:?}");
    }

    #[test]
    fn names_of_the_kind_the_answer_quotes_and_words_between() {
        let ctx = r#"{"content": {"brands": [{"name": "Rolex"}, {"name": "Omega"}, {"name": "Patek Philippe"}], "owner": "Ana Núñez"}, "name": "brands", "role": "tool"}"#;
        let t = top(
            "1. **Rolex** 2. **Omega** 3. **LineString** — by Ana Núñez",
            "LineString",
            ctx,
        );
        assert_eq!(t[0], "Patek Philippe", "{t:?}");
        let ctx = r#"{"limit": "Containers up to 100ml, in a clear bag"}"#;
        let t = top("Pack 2 T-shirts, a stormy bag of toiletries", "stormy", ctx);
        assert_eq!(t[0], "clear", "{t:?}");
    }

    #[test]
    fn offsets_are_bytes_of_the_context_with_non_ascii_before() {
        let ctx = "{\"名前\": \"東京 👋\", \"e\u{301}tat\": \"x\", \"temp’s\": \"15°C\"}";
        let answer = "The temp’s 25°C";
        let c = rank(answer, 11, 13, ctx);
        let first = c.first().expect("a candidate");
        assert_eq!(&ctx[first.start..first.end], "15°C");
        assert!(ctx.is_char_boundary(first.start) && ctx.is_char_boundary(first.end));
        assert!(rank(answer, 40, 41, ctx).is_empty(), "out of range");
        assert!(rank(answer, 3, 3, ctx).is_empty(), "empty span");
    }

    #[test]
    fn key_words_split_camel_case_and_snake_case() {
        assert_eq!(
            words("registrarWHOIS Server"),
            ["registrar", "whois", "server"]
        );
        assert_eq!(words("current_price"), ["current", "price"]);
        assert_eq!(number("$23,840.23"), Some((23840.23, String::new())));
        assert_eq!(number("1425°C"), Some((1425.0, "°c".to_owned())));
    }
}
