//! The bound on the HTML parser's work, applied before it runs: one home
//! for the size bounds of [`crate::budget`].
//!
//! html5ever's scope checks cost time proportional to the depth of the
//! open-element stack, so a page of 100 000 unclosed `<div>`s takes minutes
//! to parse; and every element costs time in every later walk, so a page of
//! a million siblings or megabytes of text is slow to read even when flat.
//! One linear pass over the tags bounds all three:
//!
//! - **depth**: start tags nested past [`MAX_NESTING`] are dropped (their
//!   text stays), and so are the start tags of elements whose end is
//!   implied (`<li>`, `<p>`, `<td>`, …) while the bound is reached (each
//!   would cost the parser a walk of the whole open-element stack) and
//!   the end tags of every dropped start tag; formatting elements left
//!   open (`<b>`, `<font>`, …) count on their own, past
//!   [`MAX_OPEN_FORMATTING`] (the parser reopens each in every later block);
//! - **elements**: past [`MarkupBounds::max_elements`] elements and
//!   comments (counting the copies of formatting elements left open that
//!   the parser makes in later blocks), every later tag and comment is
//!   replaced by a space (raw-text
//!   elements such as scripts go whole), so the rest of the page is
//!   flattened into text;
//! - **text**: past [`MarkupBounds::max_text_bytes`] bytes of text outside
//!   tags, the rest of the page is dropped.
//!
//! Real pages stay far below the bounds; pages within them are returned
//! untouched, without copying.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::budget::PageBudget;
use crate::html_lex::{comment_end, find_close_tag, tag_end, tag_name};

/// Deepest element nesting kept.
pub const MAX_NESTING: usize = 512;

/// Most formatting elements (`<b>`, `<font>`, …) left open at once. The
/// parser reopens every one of them in each later block (the HTML
/// standard's reconstruction of active formatting elements), so a page
/// that leaves thousands open costs thousands of elements per paragraph.
pub const MAX_OPEN_FORMATTING: usize = 8;

/// Elements whose content is foreign (self-closing tags close there).
const FOREIGN: &[&str] = &["svg", "math"];

/// HTML start tags that end foreign content (the parser leaves SVG or
/// MathML for them).
const BREAKS_FOREIGN: &[&str] = &[
    "b",
    "big",
    "blockquote",
    "body",
    "br",
    "center",
    "code",
    "dd",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "hr",
    "i",
    "img",
    "li",
    "listing",
    "menu",
    "meta",
    "nobr",
    "ol",
    "p",
    "pre",
    "ruby",
    "s",
    "small",
    "span",
    "strong",
    "strike",
    "sub",
    "sup",
    "table",
    "tt",
    "u",
    "ul",
    "var",
    "font",
];

/// The bounds one pass enforces (see [`crate::budget`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkupBounds {
    /// Deepest element nesting kept.
    pub max_depth: usize,
    /// Elements (and comments) kept before the rest is flattened to text.
    pub max_elements: usize,
    /// Bytes of text kept before the rest of the page is dropped.
    pub max_text_bytes: usize,
}

impl Default for MarkupBounds {
    fn default() -> Self {
        MarkupBounds::of(&PageBudget::default())
    }
}

impl MarkupBounds {
    /// The bounds of `budget` (never above the defaults).
    pub fn of(budget: &PageBudget) -> Self {
        MarkupBounds {
            max_depth: MAX_NESTING,
            max_elements: budget.elements(),
            max_text_bytes: budget.text_bytes(),
        }
    }
}

/// Which bounds a page went past.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cuts {
    /// Start tags nested past the depth bound were dropped.
    pub deep: bool,
    /// Markup past the element bound was flattened to text.
    pub elements: bool,
    /// The page past the text bound was dropped.
    pub text: bool,
}

/// One bound a page went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Nesting past the depth bound (or formatting left open past its own).
    Deep,
    /// Markup past the element bound.
    Elements,
    /// Text past the text bound.
    Text,
}

impl Bounded<'_> {
    /// Each bound the page went past, with what was done, in words for a
    /// warning.
    pub fn described(&self) -> Vec<(Cut, String)> {
        let (cuts, bounds) = (&self.cuts, &self.bounds);
        let mut out = Vec::new();
        if cuts.deep {
            out.push((
                Cut::Deep,
                format!(
                    "the page nests elements deeper than {} (or leaves more than \
                     {MAX_OPEN_FORMATTING} formatting elements open); deeper elements were \
                     flattened into their ancestor's text",
                    bounds.max_depth
                ),
            ));
        }
        if cuts.elements {
            out.push((
                Cut::Elements,
                format!(
                    "the page has more than {} elements; the markup after them was flattened into text",
                    bounds.max_elements
                ),
            ));
        }
        if cuts.text {
            out.push((
                Cut::Text,
                format!(
                    "the page has more than {} bytes of text; the rest was not read",
                    bounds.max_text_bytes
                ),
            ));
        }
        out
    }

    /// The words of [`Bounded::described`] alone, for a list of warnings.
    pub fn warnings(&self) -> impl Iterator<Item = String> + use<> {
        self.described().into_iter().map(|(_, words)| words)
    }
}

/// A page within its bounds, and which bounds it went past.
#[derive(Debug)]
pub struct Bounded<'a> {
    /// The markup the parser may see: borrowed when nothing had to go.
    pub html: Cow<'a, str>,
    /// What was cut.
    pub cuts: Cuts,
    /// The bounds it was held to.
    pub bounds: MarkupBounds,
}

/// `html` within the default bounds: start tags beyond [`MAX_NESTING`]
/// removed, markup past the element bound flattened, text past the text
/// bound dropped; borrowed when nothing had to go.
pub fn cap_nesting(html: &str) -> Cow<'_, str> {
    bound_markup(html, &MarkupBounds::default()).html
}

/// `html` within `bounds`, in one linear pass (see the module docs).
pub fn bound_markup<'a>(html: &'a str, bounds: &MarkupBounds) -> Bounded<'a> {
    let mut scan = Scan {
        html,
        bounds: *bounds,
        depth: 0,
        nodes: 0,
        text: 0,
        out: None,
        copied: 0,
        cuts: Cuts::default(),
        foreign: false,
        dropped: HashMap::new(),
        formatting: 0,
    };
    scan.run();
    let html = match scan.out {
        Some(mut out) => {
            out.push_str(&html[scan.copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(html),
    };
    Bounded {
        html,
        cuts: scan.cuts,
        bounds: *bounds,
    }
}

/// One pass over the tags: depth, node and text counts, and the output,
/// started only at the first cut.
struct Scan<'a> {
    html: &'a str,
    bounds: MarkupBounds,
    depth: usize,
    nodes: usize,
    text: usize,
    out: Option<String>,
    /// Bytes of `html` already handled for `out`.
    copied: usize,
    cuts: Cuts,
    /// Inside SVG or MathML, where `/>` closes an element.
    foreign: bool,
    /// Start tags dropped past the depth bound and not yet closed, by name.
    dropped: HashMap<String, usize>,
    /// Formatting elements opened and not closed by their own end tag.
    formatting: usize,
}

/// What a tag is, by name.
#[derive(PartialEq, Eq)]
enum Kind {
    /// Raw text follows until its end tag.
    RawText,
    /// No content: never open.
    Void,
    /// An end usually implied by the next sibling: does not nest.
    ImpliedEnd,
    /// Nests.
    Nesting,
}

impl Scan<'_> {
    fn run(&mut self) {
        let bytes = self.html.as_bytes();
        let mut i = 0usize;
        loop {
            let lt = memchr::memchr(b'<', &bytes[i..]).map_or(bytes.len(), |off| i + off);
            if !self.count_text(i, lt) || lt == bytes.len() {
                return;
            }
            i = self.step(lt);
        }
    }

    /// Counts the text in `from..to`; past the text bound, drops the rest
    /// of the page and returns false.
    fn count_text(&mut self, from: usize, to: usize) -> bool {
        self.text += to - from;
        if self.text <= self.bounds.max_text_bytes {
            return true;
        }
        let mut cut = to - (self.text - self.bounds.max_text_bytes);
        while !self.html.is_char_boundary(cut) {
            cut -= 1;
        }
        self.cuts.text = true;
        self.drop_span(cut, self.html.len(), "");
        false
    }

    /// Handles the markup at `lt` (a `<`); returns where to go on.
    fn step(&mut self, lt: usize) -> usize {
        let bytes = self.html.as_bytes();
        let rest = &bytes[lt + 1..];
        if rest.starts_with(b"!--") {
            return self.node(lt, comment_end(bytes, lt + 4));
        }
        if rest.first().is_some_and(|b| *b == b'!' || *b == b'?') {
            let end = memchr::memchr(b'>', &bytes[lt..]).map_or(bytes.len(), |e| lt + e + 1);
            return self.node(lt, end);
        }
        let closing = rest.first() == Some(&b'/');
        let name_start = lt + 1 + usize::from(closing);
        let name_len = tag_name(&bytes[name_start..]).len();
        if name_len == 0 || !bytes[name_start].is_ascii_alphabetic() {
            return lt + 1;
        }
        // Tag names are ASCII; most pages write them in lower case, and
        // those are borrowed.
        let raw_name = &self.html[name_start..name_start + name_len];
        let name: Cow<'_, str> = if raw_name.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(raw_name.to_ascii_lowercase())
        } else {
            Cow::Borrowed(raw_name)
        };
        let end = tag_end(bytes, name_start + name_len);
        if closing {
            self.end_tag(lt, end, &name)
        } else {
            self.start_tag(lt, end, &name)
        }
    }

    /// A comment, doctype or processing instruction at `lt..end`: a node,
    /// dropped past the element bound.
    fn node(&mut self, lt: usize, end: usize) -> usize {
        if self.full() {
            self.drop_span(lt, end, "");
        } else {
            self.nodes += 1;
        }
        end
    }

    fn end_tag(&mut self, lt: usize, end: usize, name: &str) -> usize {
        if self.full() {
            // A stray end tag would make the parser create an element.
            self.drop_span(lt, end, " ");
        } else if self.closes_dropped(name) {
            // The end of a dropped start tag goes too: a stray end tag
            // costs the parser a scope walk and an error of its own.
            self.drop_span(lt, end, "");
        } else {
            let kind = kind(name);
            if is_formatting(name) {
                self.formatting = self.formatting.saturating_sub(1);
            } else if kind != Kind::Void {
                self.reopens();
            }
            if kind == Kind::Nesting {
                self.depth = self.depth.saturating_sub(1);
                self.foreign &= !FOREIGN.contains(&name);
            }
        }
        end
    }

    /// An element closed (by its end tag or by the next sibling) with
    /// formatting elements left open inside it: the parser may reopen each
    /// of them in what follows, so each counts as an element.
    fn reopens(&mut self) {
        self.nodes += self.formatting;
    }

    fn start_tag(&mut self, lt: usize, end: usize, name: &str) -> usize {
        let bytes = self.html.as_bytes();
        let kind = kind(name);
        // Raw text runs to its end tag, whose own end is where we go on.
        let after = if kind == Kind::RawText {
            find_close_tag(bytes, end, name.as_bytes())
        } else {
            end
        };
        if self.full() {
            let gone = if kind == Kind::RawText && after < bytes.len() {
                tag_end(bytes, after + 2)
            } else {
                after
            };
            self.drop_span(lt, gone, " ");
            return gone;
        }
        // A self-closing start tag opens an element anyway in HTML; only
        // SVG and MathML elements are closed by the slash.
        if self.foreign {
            self.foreign = !BREAKS_FOREIGN.contains(&name);
        }
        let slash = end >= 2 && bytes[end - 2] == b'/';
        let self_closing = slash && (self.foreign || FOREIGN.contains(&name));
        let opens = match kind {
            Kind::Nesting => !self_closing,
            Kind::ImpliedEnd => true,
            Kind::RawText | Kind::Void => false,
        };
        // Formatting elements the page leaves open are reopened by the
        // parser in every later block: each one costs a copy per block.
        let formatting = opens && is_formatting(name);
        let too_deep = self.depth >= self.bounds.max_depth;
        if opens && (too_deep || formatting && self.formatting >= MAX_OPEN_FORMATTING) {
            self.cuts.deep = true;
            if let Some(open) = self.dropped.get_mut(name) {
                *open += 1;
            } else {
                self.dropped.insert(name.to_owned(), 1);
            }
            self.drop_span(lt, end, "");
            return end;
        }
        self.formatting += usize::from(formatting);
        if kind == Kind::ImpliedEnd {
            self.reopens();
        }
        if kind == Kind::Nesting && !self_closing {
            self.foreign |= FOREIGN.contains(&name);
            self.depth += 1;
        }
        self.nodes += 1;
        after
    }

    /// Whether the end tag `name` belongs to a start tag dropped past the
    /// depth bound (the innermost ones, so the first ends to come): counts
    /// it off if so.
    fn closes_dropped(&mut self, name: &str) -> bool {
        if self.dropped.is_empty() {
            return false;
        }
        match self.dropped.get_mut(name) {
            Some(open) if *open > 0 => {
                *open -= 1;
                true
            }
            _ => false,
        }
    }

    /// Whether the element bound is reached: what follows is flattened.
    fn full(&mut self) -> bool {
        let full = self.nodes >= self.bounds.max_elements;
        self.cuts.elements |= full;
        full
    }

    /// Leaves `from..to` out of the output, writing `with` instead.
    fn drop_span(&mut self, from: usize, to: usize, with: &str) {
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(self.html.len()));
        out.push_str(&self.html[self.copied..from]);
        out.push_str(with);
        self.copied = to;
    }
}

/// A formatting element the parser reopens after its block ends (`a` and
/// `nobr` are not: a new one closes the one before).
fn is_formatting(name: &str) -> bool {
    matches!(
        name,
        "b" | "big"
            | "code"
            | "em"
            | "font"
            | "i"
            | "s"
            | "small"
            | "strike"
            | "strong"
            | "tt"
            | "u"
    )
}

/// What the tag `name` (lowercase) is.
fn kind(name: &str) -> Kind {
    match name {
        // Content is raw text: no tags inside until the end tag.
        "script" | "style" | "textarea" | "title" | "xmp" | "iframe" | "noembed" | "noframes"
        | "plaintext" => Kind::RawText,
        // Never have content.
        "area" | "base" | "br" | "col" | "embed" | "hr" | "img" | "input" | "link" | "meta"
        | "source" | "track" | "wbr" | "param" | "keygen" | "frame" | "basefont" | "bgsound" => {
            Kind::Void
        }
        // The end is usually implied by the next sibling, so a run does not
        // nest (`<li>a<li>b`); the document's own html, head and body never
        // nest.
        "html" | "head" | "body" | "p" | "li" | "dt" | "dd" | "td" | "th" | "tr" | "option"
        | "optgroup" | "tbody" | "thead" | "tfoot" | "colgroup" | "caption" | "rb" | "rt"
        | "rp" | "rtc" => Kind::ImpliedEnd,
        _ => Kind::Nesting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_pages_are_borrowed() {
        let html = "<ul><li>a<li>b</ul><p>x<p>y<br><img src=a><script>if (a<b) {}</script>";
        assert!(matches!(cap_nesting(html), Cow::Borrowed(_)));
    }

    #[test]
    fn deep_nesting_is_capped_and_text_kept() {
        let html = "<div>".repeat(MAX_NESTING + 100) + "deep text";
        let capped = cap_nesting(&html);
        assert_eq!(capped.matches("<div>").count(), MAX_NESTING);
        assert!(capped.ends_with("deep text"));
    }

    #[test]
    fn at_the_depth_bound_list_items_and_paragraphs_are_dropped_too() {
        let depth = MAX_NESTING * 3;
        let closed = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
        let capped = cap_nesting(&closed);
        assert_eq!(capped.matches("<div>").count(), MAX_NESTING);
        assert_eq!(capped.matches("</div>").count(), MAX_NESTING);
        assert!(capped.contains("deep"));
        // Each `<ul>` holds an open `<li>`: past the bound neither is kept,
        // so the parser never sees a run of items under a deep stack.
        let lists = "<ul><li>".repeat(depth) + "<p>item";
        let capped = cap_nesting(&lists);
        assert_eq!(capped.matches("<ul>").count(), MAX_NESTING);
        assert_eq!(capped.matches("<li>").count(), MAX_NESTING - 1);
        assert!(!capped.contains("<p>") && capped.ends_with("item"));
        let siblings = format!("<ul>{}</ul>", "<li>item".repeat(depth));
        assert!(matches!(cap_nesting(&siblings), Cow::Borrowed(_)));
        let body = "<body><p>a".repeat(depth);
        assert!(matches!(cap_nesting(&body), Cow::Borrowed(_)));
    }

    #[test]
    fn formatting_left_open_is_bounded_but_closed_formatting_is_not() {
        // Each `</div>` leaves its `<b>` open: the parser would copy every
        // one of them into each later block.
        let open: String = (0..100)
            .map(|k| format!("<div><b id=b{k}>word</div>"))
            .collect();
        let b = bound_markup(&open, &MarkupBounds::default());
        assert!(b.cuts.deep);
        assert_eq!(b.html.matches("<b ").count(), MAX_OPEN_FORMATTING);
        assert_eq!(b.html.matches("word").count(), 100);
        let closed = "<p><b>bold</b> and <i>italic</i> <font color=red>red</font></p>".repeat(100);
        assert!(matches!(cap_nesting(&closed), Cow::Borrowed(_)));
    }

    #[test]
    fn the_copies_the_parser_makes_of_open_formatting_count_as_elements() {
        // A block per `<b>` left open, in three shapes: closed by its end
        // tag, by the next sibling, and inside a list item.
        for block in [
            "<div><b id=b{k}>word</div>",
            "<p><b id=b{k}>word",
            "<li><i id=i{k}>word",
        ] {
            let page: String = (0..5_000)
                .map(|k| block.replace("{k}", &k.to_string()))
                .collect();
            let bounded = bound_markup(&page, &bounds(2_000, usize::MAX));
            let built = scraper::Html::parse_document(&bounded.html)
                .tree
                .values()
                .filter(|n| n.is_element())
                .count();
            assert!(bounded.cuts.elements, "{block}");
            assert!(
                built <= 2_000 + 16,
                "{block}: the parser built {built} elements"
            );
        }
    }

    fn bounds(max_elements: usize, max_text_bytes: usize) -> MarkupBounds {
        MarkupBounds {
            max_depth: MAX_NESTING,
            max_elements,
            max_text_bytes,
        }
    }

    #[test]
    fn self_closing_divs_nest_like_open_ones_but_svg_shapes_do_not() {
        let html = "<div/>".repeat(MAX_NESTING + 10);
        assert!(bound_markup(&html, &MarkupBounds::default()).cuts.deep);
        let svg = format!("<svg>{}</svg>", "<path d=x/>".repeat(MAX_NESTING * 2));
        assert!(matches!(cap_nesting(&svg), Cow::Borrowed(_)));
        let escape = format!("<svg></svg><svg/>{}", "<div/>".repeat(MAX_NESTING + 10));
        assert!(bound_markup(&escape, &MarkupBounds::default()).cuts.deep);
        let breakout = format!("<svg>{}", "<div/>".repeat(MAX_NESTING + 10));
        assert!(bound_markup(&breakout, &MarkupBounds::default()).cuts.deep);
    }

    #[test]
    fn past_the_element_bound_the_markup_is_flattened_to_text() {
        let html = format!("<body>{}<script>x()</script>", "<p>w</p>".repeat(10));
        let b = bound_markup(&html, &bounds(4, usize::MAX));
        assert!(b.cuts.elements && !b.cuts.deep && !b.cuts.text);
        assert_eq!(b.html.matches("<p>").count(), 3, "{}", b.html);
        assert_eq!(b.html.matches('w').count(), 10);
        assert!(!b.html.contains("x()"));
    }

    #[test]
    fn past_the_text_bound_the_rest_is_dropped_on_a_char_boundary() {
        let html = format!("<p>{}</p><p>tail</p>", "é".repeat(100));
        let b = bound_markup(&html, &bounds(usize::MAX, 51));
        assert!(b.cuts.text);
        assert_eq!(b.html, format!("<p>{}", "é".repeat(25)));
    }

    #[test]
    fn a_page_within_every_bound_is_borrowed() {
        let html = "<p>one</p><!-- c --><p>two</p>";
        let b = bound_markup(html, &bounds(4, 6));
        assert!(matches!(b.html, Cow::Borrowed(_)));
        assert_eq!(b.cuts, Cuts::default());
    }

    #[test]
    fn quoted_brackets_and_comments_do_not_confuse_it() {
        let html = format!(
            "<a title=\"<div>\">x</a><!-- {} -->",
            "<div>".repeat(MAX_NESTING * 2)
        );
        assert!(matches!(cap_nesting(&html), Cow::Borrowed(_)));
    }
}
