//! Taking texts apart for the evidence ranking: the context's values (a lexical JSON scan that
//! also reads prose), key words, numbers with units, dates, case-insensitive word search.

/// A value of the context: a JSON string's content or a number literal (or, in prose, a number
/// or capitalised word), with the key it is under.
#[derive(Debug, Clone)]
pub(super) struct Value<'a> {
    pub start: usize,
    pub end: usize,
    pub text: &'a str,
    pub key: &'a str,
    /// Nesting depth of `{`/`[` (1: the tool envelope of a JSON line).
    pub depth: usize,
}

/// The context's values in text order: a lexical scan that works on one-line and
/// pretty-printed JSON alike (byte offsets of the text given). Text outside JSON strings gives
/// its numbers and capitalised words, so prose contexts have values too.
pub(super) fn values(context: &str) -> Vec<Value<'_>> {
    let b = context.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut depth, mut key) = (0, 0usize, "");
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'"' => {
                let s = i + 1;
                let mut j = s;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let e = j.min(b.len());
                let mut k = e + 1;
                while k < b.len() && b[k].is_ascii_whitespace() {
                    k += 1;
                }
                let text = context.get(s..e).unwrap_or("");
                if b.get(k) == Some(&b':') {
                    key = text;
                } else if !text.trim().is_empty() {
                    out.push(Value {
                        start: s,
                        end: e,
                        text,
                        key,
                        depth,
                    });
                }
                i = e + 1;
            }
            c if c.is_ascii_digit()
                || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                let mut j = i + 1;
                while j < b.len()
                    && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'e' | b'E' | b'+' | b'-'))
                {
                    j += 1;
                }
                let prev_alnum = i > 0 && b[i - 1].is_ascii_alphanumeric();
                if !prev_alnum {
                    out.push(Value {
                        start: i,
                        end: j,
                        text: &context[i..j],
                        key,
                        depth,
                    });
                }
                i = j;
            }
            c if c.is_ascii_uppercase() && depth == 0 => {
                // Prose: a capitalised word.
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_alphanumeric() {
                    j += 1;
                }
                let prev_alnum = i > 0 && b[i - 1].is_ascii_alphanumeric();
                if !prev_alnum && j - i >= 2 {
                    out.push(Value {
                        start: i,
                        end: j,
                        text: &context[i..j],
                        key: "",
                        depth,
                    });
                }
                i = j;
            }
            _ => {
                // Step a whole character so slices stay on boundaries.
                i += context[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    out
}

/// Lower-case words of a key or a text: split at non-alphanumerics and camelCase humps.
pub(super) fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A number in `s` with its digits only (`$23,840.23` → 23840.23), and the unit after it.
pub(super) fn number(s: &str) -> Option<(f64, String)> {
    let t = s.trim().trim_start_matches(['$', '€', '£', '¥', '+']);
    let end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '-')))
        .map_or(t.len(), |(i, _)| i);
    let digits: String = t[..end].chars().filter(|&c| c != ',').collect();
    let v: f64 = digits.trim_end_matches('.').parse().ok()?;
    Some((v, t[end..].trim().to_lowercase()))
}

pub(super) fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}

pub(super) const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A text's characters by their simple lower case, with their byte offsets: made once per
/// text, searched for many values.
fn lower(hay: &str) -> Vec<(usize, char)> {
    hay.char_indices()
        .map(|(i, c)| (i, c.to_lowercase().next().unwrap_or(c)))
        .collect()
}

/// Case-insensitive occurrences (byte starts) of `needle` in `hay`, whole words at letter or
/// digit edges (`25` not inside `2025`).
pub(super) fn find_ci(hay: &str, needle: &str) -> Vec<usize> {
    find_lower(&lower(hay), needle)
}

/// [`find_ci`] in a text lowered with [`lower`].
fn find_lower(h: &[(usize, char)], needle: &str) -> Vec<usize> {
    let n: Vec<char> = needle
        .chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .collect();
    if n.is_empty() || n.len() > h.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for s in 0..=h.len() - n.len() {
        if h[s..s + n.len()].iter().map(|p| p.1).eq(n.iter().copied()) {
            let before = s.checked_sub(1).map(|k| h[k].1);
            let after = h.get(s + n.len()).map(|p| p.1);
            let edge = |x: Option<char>, y: char| {
                x.is_some_and(char::is_alphanumeric) && y.is_alphanumeric()
            };
            if !edge(before, n[0]) && !edge(after, n[n.len() - 1]) {
                out.push(h[s].0);
            }
        }
    }
    out
}

/// The numbers `hay` holds, however formatted (`23,840.23` gives `23840.23`).
pub(super) fn numbers_in(hay: &str) -> Vec<f64> {
    hay.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .filter_map(|t| {
            t.trim_matches([',', '.'])
                .replace(',', "")
                .parse::<f64>()
                .ok()
        })
        .collect()
}

/// First byte where `needle` occurs in `hay` as a whole word at letter or digit edges, both
/// already lower-cased (memmem: a 100 KB context has thousands of values to look for).
pub(super) fn word_in(hay: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    let edge = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let (first, last) = (needle.chars().next(), needle.chars().next_back());
    memchr::memmem::find_iter(hay.as_bytes(), needle.as_bytes()).find(|&at| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        !((edge(before) && edge(first)) || (edge(after) && edge(last)))
    })
}
