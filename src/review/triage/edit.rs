//! Edit answers of the code-agent samples: `In file X, replace:` + a fenced old block +
//! `with:` + a fenced new block. Ranges are code points of the answer.

use crate::model::offsets;

/// A fenced block's code, `[start, end)` in code points of the text it was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// First code point of the code (after the opening fence's line).
    pub start: usize,
    /// One past its last code point (the closing fence's line start).
    pub end: usize,
}

/// The two blocks of an edit answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edit {
    /// The code the answer says the file has.
    pub old: Block,
    /// The code the answer puts in its place.
    pub new: Block,
}

/// The first fenced block at or after byte `from` of `text`: its code's byte range.
fn fenced(text: &str, from: usize) -> Option<(usize, usize)> {
    let open = from + text.get(from..)?.find("```")?;
    let code = open + text[open..].find('\n')? + 1;
    let close = code + text[code..].find("```")?;
    Some((code, close))
}

/// The edit of an answer shaped `… replace: ```old``` with: ```new``` …`, or `None`.
#[must_use]
pub fn parse(answer: &str) -> Option<Edit> {
    let replace = answer.find("replace:")?;
    let (o0, o1) = fenced(answer, replace)?;
    let with = o1 + answer[o1..].find("with:")?;
    let (n0, n1) = fenced(answer, with)?;
    let cp = |b: usize| offsets::char_of(answer, b);
    Some(Edit {
        old: Block {
            start: cp(o0)?,
            end: cp(o1)?,
        },
        new: Block {
            start: cp(n0)?,
            end: cp(n1)?,
        },
    })
}

/// How many characters `a` and `b` share at their start, and then at their end (the two never
/// overlap).
#[must_use]
pub fn shared_ends(a: &[char], b: &[char]) -> (usize, usize) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    (prefix, suffix)
}

/// The part of `new` that differs from `old`, widened to whole words at both ends, as
/// code-point offsets into `new`: what a minimal span over the change covers. `None` when the
/// two are equal.
#[must_use]
pub fn changed(old: &str, new: &str) -> Option<(usize, usize)> {
    let o: Vec<char> = old.chars().collect();
    let n: Vec<char> = new.chars().collect();
    let (prefix, suffix) = shared_ends(&o, &n);
    let (mut s, mut e) = (prefix, n.len() - suffix);
    if s >= e {
        // Equal, or a pure deletion: no character of `new` differs.
        return None;
    }
    // A change inside a word or number is the whole word's (`33` → `32` marks `32`).
    while s > 0 && super::is_word(n[s - 1]) && super::is_word(n[s]) {
        s -= 1;
    }
    while e < n.len() && super::is_word(n[e]) && super::is_word(n[e - 1]) {
        e += 1;
    }
    Some((s, e))
}
