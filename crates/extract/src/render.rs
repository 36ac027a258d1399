//! Turning the chosen subtree into paragraphs: plain text and Markdown.
//!
//! The walk is iterative over the flat DOM with an explicit stack of open
//! elements. Inline text is gathered into the current paragraph with
//! whitespace collapsed; a block element ends the paragraph. While walking,
//! subtrees that are boilerplate (per the vocabulary and the statistics) are
//! skipped, and paragraphs whose own text is mostly links are dropped.

use url::Url;

use super::content::{Analysis, hidden_link_list};
use super::dom::{Dom, NodeIx, Tag};
use super::vocabulary::Hint;
use super::{Block, BlockKind, Link};

/// Fewest prose characters that keep a page header or caption-like subtree.
const KEEP_MINOR_GOOD: f32 = 150.0;

/// How to render.
#[derive(Clone, Copy)]
pub(crate) struct RenderOptions<'u> {
    /// Base URL for resolving links.
    pub base: Option<&'u Url>,
    /// Keep only blocks whose own text is prose (the fallback pass).
    pub prose_only: bool,
    /// Keep paragraphs that are mostly links (a page without prose).
    pub keep_link_paragraphs: bool,
    /// Do not skip boilerplate subtrees (a fallback prose pass), except
    /// comment sections…
    pub keep_boilerplate: bool,
    /// …unless this is set too (a page that is only a discussion).
    pub keep_comments: bool,
    /// Keep caption-, credit- and byline-like elements whatever they hold,
    /// and do not skip link-heavy containers for it (the last fallback: a
    /// slideshow's text is its captions, among the thumbnails' links).
    pub keep_minor: bool,
}

/// The rendered main content.
#[derive(Default)]
pub(crate) struct Rendered {
    /// Paragraph-level blocks in document order.
    pub blocks: Vec<Block>,
    /// Links found in the rendered text.
    pub links: Vec<Link>,
}

/// An element that is open during the walk.
struct Open {
    ix: NodeIx,
    end: NodeIx,
    tag: Tag,
    /// Markdown buffer length when an inline wrapper opened.
    md_mark: usize,
    /// Plain buffer length when a link opened.
    plain_mark: usize,
    /// Paragraph generation when the element opened.
    generation: u32,
    /// Items seen so far (lists) or cells seen so far (table rows).
    counter: u32,
    /// Resolved link target (links only).
    href: Option<String>,
}

/// Accumulates paragraphs.
struct Writer<'d, 'a, 'u> {
    dom: &'d Dom<'a>,
    analysis: &'d Analysis,
    opts: &'d RenderOptions<'u>,
    out: Rendered,
    plain: String,
    md: String,
    pending_space: bool,
    generation: u32,
    pre_depth: u32,
    quote_depth: u8,
    list_depth: u8,
    table_depth: u32,
    stack: Vec<Open>,
    /// Text length of the rendered root.
    root_len: u32,
}

/// Renders the subtree at `root`.
pub(crate) fn render(
    dom: &Dom<'_>,
    analysis: &Analysis,
    root: NodeIx,
    opts: &RenderOptions<'_>,
) -> Rendered {
    render_span(dom, analysis, root..dom.node(root).end, opts)
}

/// The nodes of `span` in document order (from `span.start`, which is never
/// left out, up to but not including `span.end`), rendered as [`render`]
/// renders a subtree.
pub(crate) fn render_span(
    dom: &Dom<'_>,
    analysis: &Analysis,
    span: std::ops::Range<NodeIx>,
    opts: &RenderOptions<'_>,
) -> Rendered {
    let root = span.start;
    let mut w = Writer {
        dom,
        analysis,
        opts,
        out: Rendered::default(),
        plain: String::new(),
        md: String::new(),
        pending_space: false,
        generation: 0,
        pre_depth: 0,
        quote_depth: 0,
        list_depth: 0,
        table_depth: 0,
        stack: Vec::with_capacity(32),
        root_len: analysis.stats[root as usize].len,
    };
    let end = span.end;
    let mut i = root;
    while i < end {
        w.close_until(i);
        let node = dom.node(i);
        if i != root && w.opens_comments(i) {
            break;
        }
        if node.tag != Tag::Text && i != root && w.skip(i) {
            i = node.end;
            continue;
        }
        w.open(i);
        i += 1;
    }
    w.close_until(NodeIx::MAX);
    w.flush();
    w.out
}

impl Writer<'_, '_, '_> {
    /// Whether `ix` is a heading named as the comment section (`<h2
    /// id="comments">`) after some text: what follows it is the thread,
    /// not the article, even where the replies are the heading's siblings
    /// rather than inside a comment container.
    fn opens_comments(&self, ix: NodeIx) -> bool {
        let node = self.dom.node(ix);
        matches!(node.tag, Tag::Heading(_))
            && node.hint.has(Hint::COMMENTS)
            && !self.opts.keep_comments
            && !self.out.blocks.is_empty()
    }

    /// Whether the subtree at `ix` (not the root) is left out.
    fn skip(&self, ix: NodeIx) -> bool {
        let node = self.dom.node(ix);
        let i = ix as usize;
        let s = &self.analysis.stats[i];
        if self.analysis.boiler[i] {
            let kept = self.opts.keep_boilerplate
                && (self.opts.keep_comments || !self.analysis.comments[i]);
            if !kept {
                return true;
            }
        }
        if self.analysis.teaser_root[i]
            && !self.opts.keep_link_paragraphs
            && s.len * 2 < self.root_len
        {
            return true;
        }
        if (node.hint.has(Hint::HEADER) || node.hint.has(Hint::MINOR))
            && !self.opts.keep_minor
            && minor_text(node, s)
        {
            return true;
        }
        match node.tag {
            Tag::Head | Tag::Title | Tag::Script | Tag::Meta | Tag::Link | Tag::Base => true,
            Tag::Form => s.good < KEEP_MINOR_GOOD,
            Tag::Figcaption => true,
            tag if self.table_depth == 0
                && !self.opts.keep_link_paragraphs
                && !self.opts.keep_minor =>
            {
                hidden_link_list(tag, s, self.analysis.announced[i])
            }
            _ => false,
        }
    }

    /// Closes every open element whose subtree ends at or before `ix`.
    fn close_until(&mut self, ix: NodeIx) {
        while let Some(top) = self.stack.last() {
            if top.end > ix {
                break;
            }
            // Close while the element is still on the stack, so the
            // paragraph it ends is attributed to it.
            self.close_top();
            self.stack.pop();
        }
    }

    fn push_open(&mut self, ix: NodeIx, tag: Tag) {
        self.stack.push(Open {
            ix,
            end: self.dom.node(ix).end,
            tag,
            md_mark: self.md.len(),
            plain_mark: self.plain.len(),
            generation: self.generation,
            counter: 0,
            href: None,
        });
    }

    /// Enters the node at `ix`: text is written, `<br>` breaks the line,
    /// and an element is pushed with what its kind starts.
    fn open(&mut self, ix: NodeIx) {
        let node = *self.dom.node(ix);
        match node.tag {
            Tag::Text => {
                self.text(node.text);
                return;
            }
            Tag::Br => {
                self.line_break();
                return;
            }
            Tag::Img => return,
            _ => {}
        }
        let in_table_cell = self.table_depth > 0;
        match node.tag {
            Tag::A => self.open_link(ix),
            Tag::Code | Tag::Strong | Tag::Em => self.open_marked(ix, node.tag),
            Tag::Table => self.open_table(ix),
            Tag::Tr if in_table_cell => {
                self.flush();
                self.push_open(ix, Tag::Tr);
            }
            Tag::Td | Tag::Th if in_table_cell => self.open_cell(ix, node.tag),
            _ if in_table_cell && node.tag.is_block() => {
                // Blocks inside a data cell are separated by a space.
                self.pending_space = true;
                self.push_open(ix, Tag::Inline);
            }
            Tag::Li => self.open_list_item(ix),
            Tag::Ul | Tag::Ol => {
                self.flush();
                self.list_depth = self.list_depth.saturating_add(1);
                self.push_open(ix, node.tag);
            }
            Tag::Pre => {
                self.flush();
                self.pre_depth += 1;
                self.push_open(ix, Tag::Pre);
            }
            Tag::Blockquote => {
                self.flush();
                self.quote_depth = self.quote_depth.saturating_add(1);
                self.push_open(ix, Tag::Blockquote);
            }
            tag if tag.is_block() => {
                self.flush();
                self.push_open(ix, tag);
            }
            tag => self.push_open(ix, tag),
        }
    }

    /// A `<br>`: a newline inside the paragraph (none at its start
    /// outside `<pre>`).
    fn line_break(&mut self) {
        if self.pre_depth > 0 || !self.plain.is_empty() {
            self.plain.push('\n');
            self.md.push('\n');
        }
        self.pending_space = false;
    }

    /// Opens a link; outside `<pre>`, one with a usable target starts its
    /// Markdown `[` and remembers where its text begins.
    fn open_link(&mut self, ix: NodeIx) {
        self.push_open(ix, Tag::A);
        if self.pre_depth > 0 {
            return;
        }
        let href = self
            .dom
            .attr(ix, "href")
            .and_then(|h| resolve(self.opts.base, h));
        if href.is_some() {
            self.space_before_inline();
            self.md.push('[');
            if let Some(top) = self.stack.last_mut() {
                top.md_mark = self.md.len();
                top.plain_mark = self.plain.len();
                top.href = href;
            }
        }
    }

    /// Opens `<code>`, `<strong>` or `<em>` with its Markdown marker
    /// (none inside `<pre>`).
    fn open_marked(&mut self, ix: NodeIx, tag: Tag) {
        self.push_open(ix, tag);
        if self.pre_depth == 0 {
            self.space_before_inline();
            self.md.push_str(inline_marker(tag));
            if let Some(top) = self.stack.last_mut() {
                top.md_mark = self.md.len();
            }
        }
    }

    /// Opens a table: a data table renders its rows as ` | `-joined
    /// lines, a layout table is an ordinary block.
    fn open_table(&mut self, ix: NodeIx) {
        self.flush();
        self.push_open(ix, Tag::Table);
        if self.is_data_table(ix) {
            self.table_depth += 1;
        } else if let Some(top) = self.stack.last_mut() {
            top.tag = Tag::Div;
        }
    }

    /// Opens a data cell, separated from the row's previous cell by ` | `.
    fn open_cell(&mut self, ix: NodeIx, tag: Tag) {
        let first = match self.stack.iter_mut().rev().find(|o| o.tag == Tag::Tr) {
            Some(row) => {
                row.counter += 1;
                row.counter == 1
            }
            None => true,
        };
        if !first {
            self.plain.push_str(" | ");
            self.md.push_str(" | ");
        }
        self.pending_space = false;
        self.push_open(ix, tag);
    }

    /// Opens a list item, counted by its list (for ordered numbering).
    fn open_list_item(&mut self, ix: NodeIx) {
        self.flush();
        if let Some(list) = self
            .stack
            .iter_mut()
            .rev()
            .find(|o| matches!(o.tag, Tag::Ul | Tag::Ol))
        {
            list.counter += 1;
        }
        self.push_open(ix, Tag::Li);
    }

    fn close_top(&mut self) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        let open = Open {
            href: top.href.take(),
            ..*top
        };
        match open.tag {
            Tag::A => {
                let Some(href) = open.href else { return };
                if self.generation != open.generation || self.pre_depth > 0 {
                    return;
                }
                let text = self.plain[open.plain_mark.min(self.plain.len())..].trim();
                if text.is_empty() {
                    // An image link or an empty anchor: no Markdown link.
                    self.md.truncate(open.md_mark.saturating_sub(1));
                    return;
                }
                let text = text.to_owned();
                trim_end_in_place(&mut self.md);
                self.md.push_str("](");
                self.md.push_str(&href);
                self.md.push(')');
                self.out.links.push(Link { url: href, text });
            }
            Tag::Code | Tag::Strong | Tag::Em => {
                if self.pre_depth > 0 || self.generation != open.generation {
                    return;
                }
                let marker = inline_marker(open.tag);
                if self.md.len() <= open.md_mark || self.md[open.md_mark..].trim().is_empty() {
                    self.md.truncate(open.md_mark.saturating_sub(marker.len()));
                    return;
                }
                let had_space = self.md.ends_with(' ');
                trim_end_in_place(&mut self.md);
                self.md.push_str(marker);
                if had_space {
                    self.pending_space = true;
                }
            }
            Tag::Table => {
                self.flush();
                self.table_depth = self.table_depth.saturating_sub(1);
            }
            Tag::Tr => self.flush(),
            Tag::Td | Tag::Th | Tag::Inline if self.table_depth > 0 => self.pending_space = true,
            Tag::Ul | Tag::Ol => {
                self.flush();
                self.list_depth = self.list_depth.saturating_sub(1);
            }
            Tag::Pre => {
                self.flush();
                self.pre_depth = self.pre_depth.saturating_sub(1);
            }
            Tag::Blockquote => {
                self.flush();
                self.quote_depth = self.quote_depth.saturating_sub(1);
            }
            tag if tag.is_block() => self.flush(),
            _ => {}
        }
    }

    /// Adds a text node's content to the current paragraph.
    fn text(&mut self, text: &str) {
        if self.pre_depth > 0 {
            self.plain.push_str(text);
            self.md.push_str(text);
            return;
        }
        if text.starts_with(|c: char| c.is_ascii_whitespace()) {
            self.pending_space = true;
        }
        for (k, word) in text.split_ascii_whitespace().enumerate() {
            if (k > 0 || self.pending_space)
                && !self.plain.is_empty()
                && !self.plain.ends_with(['\n', ' '])
            {
                self.plain.push(' ');
                if !self.md.ends_with(['\n', ' ', '[']) {
                    self.md.push(' ');
                }
            }
            let word = without_invisibles(word);
            self.plain.push_str(&word);
            self.md.push_str(&word);
            self.pending_space = false;
        }
        self.pending_space = text.ends_with(|c: char| c.is_ascii_whitespace())
            || (self.pending_space && text.trim_ascii().is_empty());
    }

    /// Emits a pending space before an inline wrapper so `a <b>c</b>` keeps
    /// its space outside the Markdown markers.
    fn space_before_inline(&mut self) {
        if self.pending_space && !self.plain.is_empty() && !self.plain.ends_with(['\n', ' ']) {
            self.plain.push(' ');
            self.md.push(' ');
            self.pending_space = false;
        }
    }

    /// The innermost open block element (the owner of the current text).
    fn owner(&self) -> Option<&Open> {
        self.stack
            .iter()
            .rev()
            .find(|o| o.tag.is_block() && o.tag != Tag::Inline)
    }

    /// Ends the current paragraph.
    fn flush(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.pending_space = false;
        if self.plain.trim().is_empty() {
            self.plain.clear();
            self.md.clear();
            return;
        }
        let owner = self.owner().map(|o| (o.ix, o.tag));
        let kind = self.kind();
        if let Some((ix, tag)) = owner
            && self.pre_depth == 0
            && !self.keep_paragraph(ix, tag, kind)
        {
            self.plain.clear();
            self.md.clear();
            return;
        }
        let mut text = std::mem::take(&mut self.plain);
        let mut md = std::mem::take(&mut self.md);
        if self.pre_depth == 0 {
            trim_in_place(&mut text);
            trim_in_place(&mut md);
        } else {
            trim_newlines(&mut text);
            trim_newlines(&mut md);
        }
        self.out.blocks.push(Block {
            kind,
            quote_depth: self.quote_depth,
            text,
            markdown: md,
        });
    }

    /// Whether a finished paragraph owned by `ix` is kept.
    fn keep_paragraph(&self, ix: NodeIx, tag: Tag, kind: BlockKind) -> bool {
        let s = &self.analysis.stats[ix as usize];
        if matches!(kind, BlockKind::TableRow) {
            return s.link_density() <= 0.8;
        }
        if self.opts.prose_only {
            return s.own_is_prose() || matches!(tag, Tag::Heading(_));
        }
        let own_density = s.own_link_density();
        if !self.opts.keep_link_paragraphs
            && own_density > 0.5
            && s.own_len.saturating_sub(s.own_link) < 40
        {
            // An item of a list the article announces is the article's.
            return self.analysis.announced[ix as usize];
        }
        true
    }

    /// The kind of the paragraph that is being closed.
    fn kind(&self) -> BlockKind {
        if self.pre_depth > 0 {
            return BlockKind::Code;
        }
        if self.table_depth > 0 && self.stack.iter().any(|o| o.tag == Tag::Tr) {
            return BlockKind::TableRow;
        }
        for o in self.stack.iter().rev() {
            match o.tag {
                Tag::Heading(level) => return BlockKind::Heading { level },
                Tag::Li => {
                    let ordered = self
                        .stack
                        .iter()
                        .rev()
                        .find(|l| matches!(l.tag, Tag::Ul | Tag::Ol))
                        .filter(|l| l.tag == Tag::Ol)
                        .map(|l| l.counter);
                    return BlockKind::ListItem {
                        depth: self.list_depth.max(1),
                        number: ordered,
                    };
                }
                _ => {}
            }
        }
        BlockKind::Paragraph
    }

    /// A table is a data table when no cell holds paragraphs, lists or
    /// nested tables, and it is not a page-sized layout grid.
    fn is_data_table(&self, ix: NodeIx) -> bool {
        let end = self.dom.node(ix).end;
        let mut cells = 0u32;
        for j in ix + 1..end {
            match self.dom.node(j).tag {
                Tag::Table
                | Tag::P
                | Tag::Div
                | Tag::Ul
                | Tag::Ol
                | Tag::Blockquote
                | Tag::Pre
                | Tag::Heading(_)
                | Tag::Article
                | Tag::Section => return false,
                Tag::Td | Tag::Th => cells += 1,
                _ => {}
            }
        }
        cells > 1
    }
}

/// Markdown marker of an inline wrapper.
fn inline_marker(tag: Tag) -> &'static str {
    match tag {
        Tag::Code => "`",
        Tag::Strong => "**",
        _ => "*",
    }
}

/// Resolves a link target to an absolute http(s) URL.
pub(crate) fn resolve(base: Option<&Url>, href: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let url = match base {
        Some(base) => base.join(href).ok()?,
        None => Url::parse(href).ok()?,
    };
    matches!(url.scheme(), "http" | "https").then(|| url.into())
}

fn trim_end_in_place(s: &mut String) {
    let len = s.trim_end().len();
    s.truncate(len);
}

fn trim_in_place(s: &mut String) {
    trim_end_in_place(s);
    let start = s.len() - s.trim_start().len();
    if start > 0 {
        s.drain(..start);
    }
}

fn trim_newlines(s: &mut String) {
    let len = s.trim_end_matches(['\n', '\r']).len();
    s.truncate(len);
    let start = s.len() - s.trim_start_matches(['\n', '\r']).len();
    if start > 0 {
        s.drain(..start);
    }
}

/// A header or minor element (byline, caption) holds too little to be
/// content. An inline one owns no prose of its own (its block does), so its
/// plain text is what counts.
fn minor_text(node: &super::dom::Node<'_>, s: &super::content::Stats) -> bool {
    let prose = if node.tag.is_block() {
        s.good
    } else {
        s.len.saturating_sub(s.link_len) as f32
    };
    prose < KEEP_MINOR_GOOD
}

/// Characters that only steer line breaking and are invisible in a reading:
/// the soft hyphen, the zero-width space, the word joiner and a stray
/// byte-order mark. (Zero-width joiners stay: scripts and emoji need them.)
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{200B}' | '\u{2060}' | '\u{FEFF}')
}

/// `word` without [`is_invisible`] characters (borrowed when it has none).
fn without_invisibles(word: &str) -> std::borrow::Cow<'_, str> {
    if word.contains(is_invisible) {
        std::borrow::Cow::Owned(word.chars().filter(|&c| !is_invisible(c)).collect())
    } else {
        std::borrow::Cow::Borrowed(word)
    }
}
