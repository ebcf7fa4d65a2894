//! A validating JSON skimmer for record lines that are already known to be UTF-8: checks that
//! the text is one JSON value without building anything, and hands out the raw members of the
//! top-level object (and of one nested object, `meta`), so that only the few members a check
//! needs are parsed, from their own small slices.
//!
//! Strings are skimmed 64 bytes at a time: quotes, backslashes and control bytes become bit
//! masks (SIMD compares and move-masks), escaped characters are found without a branch per
//! escape (the odd-backslash-run method of simdjson), and only escapes other than `\"` and
//! `\\` are looked at one by one. A record's `context` is JSON inside a JSON string, with an
//! escape every few bytes, where this runs about twice as fast as a byte-by-byte scan.

/// Why the text is not JSON (the caller asks serde_json for its wording when reporting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid {
    /// Byte position.
    pub at: usize,
    /// What is wrong.
    pub what: &'static str,
}

use wide::u8x16;

/// `serde_json` (the record readers) refuses a value whose lists and objects, the record
/// itself included, nest this deep: at most `MAX_DEPTH - 1` levels are accepted. The skimmer's
/// `depth` is that level (1 for the record's own braces).
pub const MAX_DEPTH: usize = 128;

/// The problem of a line nested deeper than [`MAX_DEPTH`], worded as `serde_json` words it.
pub const TOO_DEEP: &str = "recursion limit exceeded";

/// The problem of a number beyond f64 (`1e400`), which `serde_json` refuses in a record.
const OUT_OF_RANGE: &str = "number out of range";

/// Masks of the quotes, backslashes and control bytes of a 64-byte block, 16 bytes at a time
/// with SIMD compares and move-masks (`wide`: SSE2 on x86-64, NEON on aarch64, scalar
/// elsewhere; no `unsafe` here).
#[inline]
fn masks(block: &[u8; 64]) -> (u64, u64, u64) {
    let quote = u8x16::splat(b'"');
    let backslash = u8x16::splat(b'\\');
    let high = u8x16::splat(0xE0);
    let (mut q, mut b, mut c) = (0u64, 0u64, 0u64);
    for (k, part) in block.chunks_exact(16).enumerate() {
        let mut a = [0u8; 16];
        a.copy_from_slice(part);
        let v = u8x16::new(a);
        q |= u64::from(v.simd_eq(quote).to_bitmask()) << (16 * k);
        b |= u64::from(v.simd_eq(backslash).to_bitmask()) << (16 * k);
        c |= u64::from((v & high).simd_eq(u8x16::ZERO).to_bitmask()) << (16 * k);
    }
    (q, b, c)
}

/// The characters escaped by a backslash, from a block's backslash mask; `prev` carries "the
/// next block starts escaped" across blocks.
#[inline]
fn find_escaped(bs: u64, prev: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let bs = bs & !*prev;
    let follows = (bs << 1) | *prev;
    let odd_starts = bs & !EVEN & !follows;
    let (even_runs, overflow) = odd_starts.overflowing_add(bs);
    *prev = u64::from(overflow);
    (EVEN ^ (even_runs << 1)) & follows
}

/// The value of four hex digits (of a `\\u` escape).
fn hex4(h: Option<&[u8]>) -> Option<u16> {
    let h = std::str::from_utf8(h?).ok()?;
    if h.len() != 4 || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(h, 16).ok()
}

struct Skim<'a> {
    b: &'a [u8],
    i: usize,
}

impl Skim<'_> {
    fn err<T>(&self, what: &'static str) -> Result<T, Invalid> {
        Err(Invalid { at: self.i, what })
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// A string; `self.i` is at its opening quote.
    fn string(&mut self) -> Result<(), Invalid> {
        let b = self.b;
        let mut p = self.i + 1;
        // Short strings (keys, names, numbers as text) end within 16 bytes, before any escape
        // or control byte: one SIMD compare.
        if let Some(head) = b.get(p..p + 16) {
            let mut a = [0u8; 16];
            a.copy_from_slice(head);
            let v = u8x16::new(a);
            let q = v.simd_eq(u8x16::splat(b'"')).to_bitmask();
            let stop = v.simd_eq(u8x16::splat(b'\\')).to_bitmask()
                | (v & u8x16::splat(0xE0)).simd_eq(u8x16::ZERO).to_bitmask();
            if q != 0 && q.trailing_zeros() < stop.trailing_zeros() {
                self.i = p + q.trailing_zeros() as usize + 1;
                return Ok(());
            }
        }
        let mut prev = 0u64;
        // Where the low half of the last surrogate pair checked is (its `u`).
        let mut low_at = usize::MAX;
        let mut tail = [b' '; 64];
        loop {
            let n = b.len().saturating_sub(p).min(64);
            let block: &[u8; 64] = match b.get(p..p + 64).and_then(|s| s.try_into().ok()) {
                Some(full) => full,
                None => {
                    tail.fill(b' ');
                    tail[..n].copy_from_slice(&b[p..p + n]);
                    &tail
                }
            };
            let (q, bs, c) = masks(block);
            let avail = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            let esc = find_escaped(bs, &mut prev);
            let end = q & !esc & avail;
            let inside = if end == 0 {
                avail
            } else {
                (end & end.wrapping_neg()) - 1
            };
            if c & inside != 0 {
                self.i = p + (c & inside).trailing_zeros() as usize;
                return self.err("control character in a string");
            }
            let mut other = esc & inside & !q & !bs;
            while other != 0 {
                let k = p + other.trailing_zeros() as usize;
                other &= other - 1;
                match b[k] {
                    b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => {
                        let Some(n) = hex4(b.get(k + 1..k + 5)) else {
                            self.i = k - 1;
                            return self.err("invalid \\u escape");
                        };
                        // serde_json refuses a surrogate that is not a high one followed at
                        // once by a low one (`"\ud800"`) in a string it reads.
                        if k == low_at {
                            continue;
                        }
                        let low = |m: u16| (0xDC00..=0xDFFF).contains(&m);
                        let paired = (0xD800..=0xDBFF).contains(&n)
                            && b.get(k + 5..k + 7) == Some(b"\\u")
                            && hex4(b.get(k + 7..k + 11)).is_some_and(low);
                        if paired {
                            low_at = k + 6;
                        } else if (0xD800..=0xDFFF).contains(&n) {
                            self.i = k - 1;
                            return self.err("lone surrogate in a \\u escape");
                        }
                    }
                    _ => {
                        self.i = k - 1;
                        return self.err("invalid escape");
                    }
                }
            }
            if end != 0 {
                self.i = p + end.trailing_zeros() as usize + 1;
                return Ok(());
            }
            if n < 64 {
                self.i = b.len();
                return self.err("EOF while parsing a string");
            }
            p += 64;
        }
    }

    fn literal(&mut self, lit: &[u8]) -> Result<(), Invalid> {
        if self.b[self.i..].starts_with(lit) {
            self.i += lit.len();
            Ok(())
        } else {
            self.err("expected a value")
        }
    }

    fn digits(&mut self) -> usize {
        let s = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - s
    }

    fn number(&mut self) -> Result<(), Invalid> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.err("invalid number"),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return self.err("invalid number");
            }
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = self.peek() {
            exponent = true;
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return self.err("invalid number");
            }
        }
        // serde_json refuses a number beyond f64 (`1e400`): only an exponent or some 300
        // digits can reach that far, so only those are parsed.
        if exponent || self.i - start > 300 {
            let text = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("0");
            if !text.parse::<f64>().is_ok_and(f64::is_finite) {
                self.i = start;
                return self.err(OUT_OF_RANGE);
            }
        }
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<(), Invalid> {
        match self.peek() {
            Some(b'"') => self.string(),
            Some(b'{') => self.object(depth + 1, |_, _, _| Ok(())),
            Some(b'[') => self.array(depth + 1),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.err("expected a value"),
            None => self.err("EOF while parsing a value"),
        }
    }

    /// Step into an array or object at nesting `depth` (refused past [`MAX_DEPTH`]); false when
    /// it is empty (its `close` consumed).
    fn open(&mut self, depth: usize, close: u8) -> Result<bool, Invalid> {
        if depth >= MAX_DEPTH {
            return self.err(TOO_DEEP);
        }
        self.i += 1;
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// After an element or member: true at `,` (another follows), false at `close` (consumed).
    fn more(&mut self, close: u8) -> Result<bool, Invalid> {
        self.ws();
        match self.peek() {
            Some(b',') => {
                self.i += 1;
                self.ws();
                Ok(true)
            }
            Some(c) if c == close => {
                self.i += 1;
                Ok(false)
            }
            _ if close == b']' => self.err("expected `,` or `]`"),
            _ => self.err("expected `,` or `}`"),
        }
    }

    fn array(&mut self, depth: usize) -> Result<(), Invalid> {
        if !self.open(depth, b']')? {
            return Ok(());
        }
        loop {
            self.value(depth)?;
            if !self.more(b']')? {
                return Ok(());
            }
        }
    }

    /// An object; `f(self, key range, depth)` is called at each member's value and may consume
    /// it; a value `f` leaves unread is skipped.
    fn object(
        &mut self,
        depth: usize,
        mut f: impl FnMut(&mut Self, (usize, usize), usize) -> Result<(), Invalid>,
    ) -> Result<(), Invalid> {
        if !self.open(depth, b'}')? {
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return self.err("expected a key");
            }
            let k0 = self.i + 1;
            self.string()?;
            let key = (k0, self.i - 1);
            self.ws();
            if self.peek() != Some(b':') {
                return self.err("expected `:`");
            }
            self.i += 1;
            self.ws();
            let v0 = self.i;
            f(self, key, depth)?;
            if self.i == v0 {
                self.value(depth)?;
            }
            if !self.more(b'}')? {
                return Ok(());
            }
        }
    }
}

/// Raw members of an object, as (key without quotes, value), in order.
pub type Members<'a> = Vec<(&'a str, &'a str)>;

/// What the text holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Top<'a> {
    /// A JSON object: its members, and those of the member named `nested` when that is an
    /// object too (read in the same pass).
    Object(Members<'a>, Option<Members<'a>>),
    /// Valid JSON, but not an object.
    NotObject,
}

/// Check that `text` is exactly one JSON value; return the top-level object's members and
/// those of its member `nested`.
///
/// # Errors
/// Where and why the text is not JSON.
pub fn top<'a>(text: &'a str, nested: &str) -> Result<Top<'a>, Invalid> {
    let b = text.as_bytes();
    let mut s = Skim { b, i: 0 };
    s.ws();
    let top = if s.peek() == Some(b'{') {
        let mut members: Members<'a> = Vec::with_capacity(8);
        let mut inner: Option<Members<'a>> = None;
        s.object(1, |s, (k0, k1), depth| {
            let key = &text[k0..k1];
            let v0 = s.i;
            if key == nested && s.peek() == Some(b'{') {
                let mut m: Members<'a> = Vec::with_capacity(8);
                s.object(depth + 1, |s, (a, z), depth| {
                    let v = s.i;
                    s.value(depth)?;
                    m.push((&text[a..z], &text[v..s.i]));
                    Ok(())
                })?;
                inner = Some(m);
            } else {
                s.value(depth)?;
            }
            members.push((key, &text[v0..s.i]));
            Ok(())
        })?;
        Top::Object(members, inner)
    } else {
        s.value(0)?;
        Top::NotObject
    };
    s.ws();
    if s.i < b.len() {
        return s.err("trailing characters");
    }
    Ok(top)
}

/// The string value of the top-level member `key` of a record line, read without building the
/// record, when the fast path is sure: the line is UTF-8 and exactly one JSON object (checked
/// whole, as [`top`] does), no key holds an escape (`"i\u0064"` is `"id"` to a parser), and
/// exactly one member is named `key`, its value a string. `None` otherwise: the caller asks
/// `serde_json`, which decides and words the problem.
#[must_use]
pub fn string_member<'a>(line: &'a [u8], key: &str) -> Option<std::borrow::Cow<'a, str>> {
    let text = simdutf8::basic::from_utf8(line).ok()?;
    let Ok(Top::Object(members, _)) = top(text, "") else {
        return None;
    };
    let mut found = None;
    for (k, v) in members {
        if k.contains('\\') {
            return None;
        }
        if k == key {
            if found.is_some() {
                return None;
            }
            found = Some(v);
        }
    }
    let v = found?;
    let inner = v.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(v)
            .ok()
            .map(std::borrow::Cow::Owned)
    } else {
        Some(std::borrow::Cow::Borrowed(inner))
    }
}

#[cfg(test)]
mod tests;
