//! Code shown as code: the code regions of a text (`review::evidence::code`) coloured by
//! syntax (syntect's bundled Sublime grammars, pure-Rust regex engine), diffs by their `+`,
//! `-` and `@@` lines, and the gutter beside them (line numbers; `-` and `+` on an edit's old
//! and new blocks).
//!
//! Lazy: a block's lines are parsed in order, each once per record, and only as far down as
//! the screen has drawn; a frame then looks its cells' colours up. A 100 KB file costs a key
//! what its rows on screen cost, not what the file does.

use std::cell::RefCell;
use std::sync::OnceLock;

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
    /// Runs of the lines coloured so far, in order: (first byte, class), a run lasting to
    /// the next.
    done: Vec<Vec<(usize, Class)>>,
    /// The parser after the last line done.
    state: Option<(ParseState, ScopeStack)>,
}

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
            lines,
            syntax,
            done: Vec::new(),
            state: None,
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

    /// Colour lines up to `last` (those not done yet, in order).
    fn colour_to(&mut self, text: &str, last: usize) {
        let last = last.min(self.lines.len().saturating_sub(1));
        while self.done.len() <= last {
            let i = self.done.len();
            let line = self.line(text, i);
            let at = self.lines[i];
            let runs = if self.region.kind == Kind::Diff {
                let class = match code::diff_line(line.trim_end_matches(['\n', '\r'])) {
                    DiffLine::Added => Class::Added,
                    DiffLine::Removed => Class::Removed,
                    DiffLine::Hunk => Class::Hunk,
                    DiffLine::Header => Class::Header,
                    DiffLine::Context => Class::Plain,
                };
                vec![(at, class)]
            } else {
                self.parse(text, line, at)
            };
            self.done.push(runs);
        }
    }

    /// Runs of one line through the grammar (plain once the grammar fails).
    fn parse(&mut self, text: &str, line: &str, at: usize) -> Vec<(usize, Class)> {
        let region = &self.region;
        let found = *self
            .syntax
            .get_or_insert_with(|| syntax_for(region, &text[region.start..region.end]));
        let Some(syntax) = found else {
            return vec![(at, Class::Plain)];
        };
        let (state, stack) = self
            .state
            .get_or_insert_with(|| (ParseState::new(syntax), ScopeStack::new()));
        let Ok(ops) = state.parse_line(line, syntaxes()) else {
            self.syntax = Some(None);
            return vec![(at, Class::Plain)];
        };
        let mut runs = vec![(at, classify(stack.as_slice()))];
        for (i, op) in ops {
            if stack.apply(&op).is_err() {
                self.syntax = Some(None);
                return vec![(at, Class::Plain)];
            }
            let class = classify(stack.as_slice());
            let b = at + i;
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

    /// Colour the code lines holding bytes `[from, to)` of `text` (the rows on screen), and
    /// those before them in their blocks not coloured yet.
    pub fn prepare(&self, text: &str, from: usize, to: usize) {
        let mut blocks = self.blocks.borrow_mut();
        for b in blocks
            .iter_mut()
            .filter(|b| b.region.start < to.max(from + 1) && from < b.region.end)
        {
            let last = b.line_of(to.saturating_sub(1).clamp(b.region.start, b.region.end - 1));
            b.colour_to(text, last);
        }
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
        let Some(runs) = block.done.get(block.line_of(b)) else {
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
        self.blocks.borrow().iter().map(|b| b.done.len()).sum()
    }
}

#[cfg(test)]
mod tests;
