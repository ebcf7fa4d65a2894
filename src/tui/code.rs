//! Code shown as code: the code regions of a text (`review::evidence::code`) coloured by
//! syntax (syntect's bundled Sublime grammars, pure-Rust regex engine), diffs by their `+`,
//! `-` and `@@` lines, and the gutter beside them (line numbers; `-` and `+` on an edit's old
//! and new blocks).
//!
//! Lazy: a block's lines are coloured when first drawn, each once per record, the parser
//! reading on from where it stands or, for a line far below, from a line a little above it
//! ([`RESTART`]); a frame then looks its cells' colours up. A 100 KB file costs a key what its
//! rows on screen cost, not what the file does.

use std::cell::RefCell;
use std::sync::OnceLock;
use std::time::Instant;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use crate::review::evidence::code::{self, DiffLine, Kind, Region};

/// Tab stops in code, in columns.
pub const TAB: usize = 4;

/// What a piece of code is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Nothing the theme colours.
    Plain,
    /// `def`, `if`, `return`, operators' words.
    Keyword,
    /// A string literal.
    Str,
    /// A comment.
    Comment,
    /// A number or a language constant (`None`, `true`).
    Number,
    /// A function's or a type's name.
    Name,
    /// A diff's added line.
    Added,
    /// A diff's removed line.
    Removed,
    /// A diff's `@@` hunk header.
    Hunk,
    /// A diff's file header (`---`, `+++`, `diff --git`).
    Header,
}

/// The bundled syntaxes, loaded on first use.
fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// Scope prefixes and their class, tried on the innermost scope first.
fn selectors() -> &'static [(Scope, Class)] {
    static SEL: OnceLock<Vec<(Scope, Class)>> = OnceLock::new();
    SEL.get_or_init(|| {
        [
            ("comment", Class::Comment),
            ("punctuation.definition.comment", Class::Comment),
            ("string", Class::Str),
            ("constant.numeric", Class::Number),
            ("constant.language", Class::Number),
            ("constant.character", Class::Str),
            ("keyword", Class::Keyword),
            ("storage", Class::Keyword),
            ("entity.name", Class::Name),
            ("support.function", Class::Name),
            ("support.type", Class::Name),
            ("support.class", Class::Name),
            ("variable.function", Class::Name),
        ]
        .iter()
        .filter_map(|&(s, c)| Scope::new(s).ok().map(|s| (s, c)))
        .collect()
    })
}

/// The class of the innermost scope the theme colours.
fn classify(stack: &[Scope]) -> Class {
    let sel = selectors();
    for s in stack.iter().rev() {
        if let Some(&(_, c)) = sel.iter().find(|(p, _)| p.is_prefix_of(*s)) {
            return c;
        }
    }
    Class::Plain
}

/// The syntax for a region: its language's, else one guessed from its code.
fn syntax_for(r: &Region, body: &str) -> Option<&'static SyntaxReference> {
    let ss = syntaxes();
    let by = |t: &str| ss.find_syntax_by_token(t);
    r.lang
        .as_deref()
        .and_then(by)
        .or_else(|| code::guess(body).and_then(by))
        .or_else(|| ss.find_syntax_by_first_line(body.lines().next().unwrap_or("")))
}

/// One region and what is known of its lines so far.
#[derive(Clone)]
struct Block {
    region: Region,
    /// Byte offset (in the text) where each of its lines starts.
    lines: Vec<usize>,
    /// Its grammar, once looked for (none: not coloured, or a diff); looked for on the first
    /// line coloured, so a record whose code is never drawn loads no grammar.
    syntax: Option<Option<&'static SyntaxReference>>,
    /// Runs of each line coloured so far: (first byte, class), a run lasting to the next.
    done: Vec<Option<Vec<(usize, Class)>>>,
    /// The parser, ready for line `.0`.
    state: Option<(usize, ParseState, ScopeStack)>,
    /// Where a fresh parser starts (when `state` is none).
    restart_at: usize,
}

/// Lines the parser reads at most before a line it jumps to: further down than this from
/// where it stands, it starts afresh at a line that begins flush left (a top-level `def`,
/// `class`, `import`) at most this far above. Colours are then exact unless a string or
/// comment opened above that line runs through it, and a jump to the end of a 100 KB file
/// costs a screenful of lines, not the file.
const RESTART: usize = 32;

impl Block {
    fn new(text: &str, region: Region) -> Self {
        let body = &text[region.start..region.end];
        let mut lines = vec![region.start];
        lines.extend(
            memchr::memchr_iter(b'\n', body.as_bytes())
                .map(|i| region.start + i + 1)
                .filter(|&b| b < region.end),
        );
        let syntax = (region.kind == Kind::Diff).then_some(None);
        Self {
            region,
            done: vec![None; lines.len()],
            lines,
            syntax,
            state: None,
            restart_at: 0,
        }
    }

    /// Line `i`'s text, its `\n` included.
    fn line<'t>(&self, text: &'t str, i: usize) -> &'t str {
        let end = self.lines.get(i + 1).copied().unwrap_or(self.region.end);
        &text[self.lines[i]..end]
    }

    /// The line holding byte `b` (in the region).
    fn line_of(&self, b: usize) -> usize {
        self.lines.partition_point(|&s| s <= b).saturating_sub(1)
    }

    /// Where the parser starts for line `k`: where it stands when that is at most
    /// [`RESTART`] lines above, else afresh at the block's start when that is, else at the
    /// nearest line flush left at most that far above (else that far above).
    fn start_for(&self, text: &str, k: usize) -> Option<usize> {
        if let Some((next, ..)) = &self.state {
            if *next <= k && k - next <= RESTART {
                return None;
            }
        }
        if k <= RESTART {
            return Some(0);
        }
        let flush = |i: &usize| {
            let l = self.line(text, *i);
            l.starts_with(|c: char| !c.is_whitespace())
        };
        Some((k - RESTART..=k).rev().find(flush).unwrap_or(k - RESTART))
    }

    /// Colour lines `first..=last` (those not coloured yet), stopping after a line once
    /// `until` has passed; true when every one of them is coloured.
    fn colour(&mut self, text: &str, first: usize, last: usize, until: Option<Instant>) -> bool {
        let last = last.min(self.lines.len().saturating_sub(1));
        let Some(k) = (first..=last).find(|&i| self.done[i].is_none()) else {
            return true;
        };
        if self.region.kind == Kind::Diff {
            for i in k..=last {
                let at = self.lines[i];
                let class = match code::diff_line(self.line(text, i).trim_end_matches(['\n', '\r']))
                {
                    DiffLine::Added => Class::Added,
                    DiffLine::Removed => Class::Removed,
                    DiffLine::Hunk => Class::Hunk,
                    DiffLine::Header => Class::Header,
                    DiffLine::Context => Class::Plain,
                };
                self.done[i] = Some(vec![(at, class)]);
            }
            return true;
        }
        if let Some(from) = self.start_for(text, k) {
            self.state = None;
            self.restart_at = from;
        }
        let from = self.state.as_ref().map_or(self.restart_at, |s| s.0);
        for i in from..=last {
            let runs = self.parse(text, i);
            if self.done[i].is_none() {
                self.done[i] = Some(runs);
            }
            // The parser stands at line `i + 1`: the next call reads on from there.
            if i < last && until.is_some_and(|t| Instant::now() >= t) {
                return false;
            }
        }
        true
    }

    /// Runs of line `i` through the grammar, the parser then ready for line `i + 1` (plain
    /// once the grammar fails).
    fn parse(&mut self, text: &str, i: usize) -> Vec<(usize, Class)> {
        let at = self.lines[i];
        let region = &self.region;
        let found = *self
            .syntax
            .get_or_insert_with(|| syntax_for(region, &text[region.start..region.end]));
        let Some(syntax) = found else {
            return vec![(at, Class::Plain)];
        };
        let line = self.line(text, i);
        let (next, state, stack) = self
            .state
            .get_or_insert_with(|| (i, ParseState::new(syntax), ScopeStack::new()));
        *next = i + 1;
        let Ok(ops) = state.parse_line(line, syntaxes()) else {
            self.syntax = Some(None);
            return vec![(at, Class::Plain)];
        };
        let mut runs = vec![(at, classify(stack.as_slice()))];
        for (off, op) in ops {
            if stack.apply(&op).is_err() {
                self.syntax = Some(None);
                return vec![(at, Class::Plain)];
            }
            let class = classify(stack.as_slice());
            let b = at + off;
            match runs.last_mut() {
                Some(last) if last.0 == b => last.1 = class,
                Some(last) if last.1 == class => {}
                _ => runs.push((b, class)),
            }
        }
        runs
    }
}

/// A text's code regions, coloured as far as drawn.
pub struct Code {
    blocks: RefCell<Vec<Block>>,
    /// Columns of the gutter (0: the text has no code).
    gutter: usize,
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code")
            .field("regions", &self.blocks.borrow().len())
            .field("gutter", &self.gutter)
            .finish()
    }
}

impl Clone for Code {
    fn clone(&self) -> Self {
        Self {
            blocks: RefCell::new(self.blocks.borrow().clone()),
            gutter: self.gutter,
        }
    }
}

impl Code {
    /// The code regions of `text` (nothing is coloured yet).
    #[must_use]
    pub fn new(text: &str) -> Self {
        Self::of_regions(text, code::regions(text))
    }

    /// The code of an answer to a sample whose context is `context`: a bare function is code
    /// when the context holds code (in the language of the context's first block).
    #[must_use]
    pub fn for_answer(answer: &str, context: &Self) -> Self {
        let blocks = context.blocks.borrow();
        let Some(first) = blocks.first() else {
            return Self::new(answer);
        };
        let regions = code::answer_regions(answer, first.region.lang.as_deref());
        Self::of_regions(answer, regions)
    }

    fn of_regions(text: &str, regions: Vec<Region>) -> Self {
        let blocks: Vec<Block> = regions.into_iter().map(|r| Block::new(text, r)).collect();
        // A mark column, the widest line number, a space.
        let widest = blocks
            .iter()
            .filter(|b| b.region.kind != Kind::Diff)
            .map(|b| b.lines.len())
            .max()
            .unwrap_or(0);
        let gutter = if blocks.is_empty() {
            0
        } else {
            1 + widest.max(1).to_string().len() + 1
        };
        Self {
            blocks: RefCell::new(blocks),
            gutter,
        }
    }

    /// Columns left of the text for line numbers and marks (0 when the text has no code).
    #[must_use]
    pub fn gutter(&self) -> usize {
        self.gutter
    }

    /// Tab stops of the text: code's (`TAB`), or `0` (tabs escaped) when it has no code.
    #[must_use]
    pub fn tab(&self) -> usize {
        if self.gutter == 0 {
            0
        } else {
            TAB
        }
    }

    /// Colour the code lines holding bytes `[from, to)` of `text` (the rows on screen) not
    /// coloured yet.
    pub fn prepare(&self, text: &str, from: usize, to: usize) {
        self.prepare_until(text, from, to, None);
    }

    /// [`Code::prepare`], stopping once `until` has passed (after a line at least, so every
    /// call gets on): true when every line is coloured, false when a later call has more to
    /// do. A frame colours what fits its time, and the next frames the rest, so a key on a
    /// file not yet drawn never waits for a screenful of parsing.
    pub fn prepare_until(
        &self,
        text: &str,
        from: usize,
        to: usize,
        until: Option<Instant>,
    ) -> bool {
        let mut blocks = self.blocks.borrow_mut();
        let mut complete = true;
        for b in blocks
            .iter_mut()
            .filter(|b| b.region.start < to.max(from + 1) && from < b.region.end)
        {
            if !complete {
                return false;
            }
            let end = b.region.end - 1;
            let first = b.line_of(from.clamp(b.region.start, end));
            let last = b.line_of(to.saturating_sub(1).clamp(b.region.start, end));
            complete = b.colour(text, first, last, until);
        }
        complete
    }

    /// The index of the block holding byte `b`.
    fn block_at(blocks: &[Block], b: usize) -> Option<usize> {
        let i = blocks.partition_point(|x| x.region.end <= b);
        blocks.get(i).filter(|x| x.region.start <= b).map(|_| i)
    }

    /// The class of byte `b` (`Plain` outside code and on lines not coloured yet).
    #[must_use]
    pub fn class_at(&self, b: usize) -> Class {
        let blocks = self.blocks.borrow();
        let Some(k) = Self::block_at(&blocks, b) else {
            return Class::Plain;
        };
        let block = &blocks[k];
        let Some(Some(runs)) = block.done.get(block.line_of(b)) else {
            return Class::Plain;
        };
        let i = runs.partition_point(|r| r.0 <= b).saturating_sub(1);
        runs.get(i).map_or(Class::Plain, |r| r.1)
    }

    /// What the gutter shows beside a row starting at byte `b`: the kind of code it is in, and
    /// the line's number in its block when the row is the line's first (none in a diff).
    #[must_use]
    pub fn gutter_at(&self, b: usize) -> Option<(Kind, Option<usize>)> {
        let blocks = self.blocks.borrow();
        let block = &blocks[Self::block_at(&blocks, b)?];
        let i = block.line_of(b);
        let first = block.lines[i] == b && block.region.kind != Kind::Diff;
        Some((block.region.kind, first.then_some(i + 1)))
    }

    /// Lines coloured so far, over every block (what laziness saves is what this does not
    /// count).
    #[must_use]
    pub fn coloured_lines(&self) -> usize {
        self.blocks
            .borrow()
            .iter()
            .map(|b| b.done.iter().filter(|d| d.is_some()).count())
            .sum()
    }
}

#[cfg(test)]
mod tests;
