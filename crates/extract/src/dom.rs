//! A flat, pre-order view of the parsed document.
//!
//! The parser's tree (`scraper::Html`) is walked once, iteratively, and every
//! element and text node that can carry visible text is copied into one
//! vector in document order. Each entry knows its parent and where its subtree
//! ends, so "all descendants" is a slice, "children" is a jump from one
//! subtree end to the next, and bottom-up sums are a single reverse loop. No
//! walk in the extractor recurses, so nesting depth never threatens the stack.
//!
//! Elements that never hold readable text (scripts, styles, forms controls,
//! embedded media, hidden elements) are left out together with their
//! subtrees.

use ego_tree::iter::Edge;
use scraper::node::Element;
use scraper::{Html, Node as ParsedNode};

use super::vocabulary::{self, Hint};

/// Index of a node in [`Dom::nodes`].
pub(crate) type NodeIx = u32;

/// The element kinds the extractor distinguishes. Everything else is
/// [`Tag::Inline`] (unknown inline markup) or [`Tag::Custom`] (custom elements,
/// treated as block containers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tag {
    /// A text node.
    Text,
    Html,
    Head,
    Body,
    Title,
    Meta,
    Link,
    Base,
    Script,
    Div,
    Section,
    Article,
    Main,
    Header,
    Footer,
    Nav,
    Aside,
    Form,
    Figure,
    Figcaption,
    Address,
    Details,
    Summary,
    P,
    Heading(u8),
    Pre,
    Blockquote,
    Ul,
    Ol,
    Li,
    Dl,
    Dt,
    Dd,
    Table,
    Caption,
    Tr,
    Td,
    Th,
    TableSection,
    Hr,
    Br,
    A,
    Code,
    Strong,
    Em,
    Time,
    Img,
    /// Other block-level containers (center, hgroup, fieldset, dialog, …).
    OtherBlock,
    /// A custom element (`<x-foo>`): a block container.
    Custom,
    /// Any other inline element (span, small, sup, …).
    Inline,
}

impl Tag {
    fn from_name(name: &str) -> Option<Tag> {
        let tag = match name {
            "html" => Tag::Html,
            "head" => Tag::Head,
            "body" => Tag::Body,
            "title" => Tag::Title,
            "meta" => Tag::Meta,
            "link" => Tag::Link,
            "base" => Tag::Base,
            "script" => Tag::Script,
            "div" => Tag::Div,
            "section" => Tag::Section,
            "article" => Tag::Article,
            "main" => Tag::Main,
            "header" => Tag::Header,
            "footer" => Tag::Footer,
            "nav" => Tag::Nav,
            "aside" => Tag::Aside,
            "form" => Tag::Form,
            "figure" => Tag::Figure,
            "figcaption" => Tag::Figcaption,
            "address" => Tag::Address,
            "details" => Tag::Details,
            "summary" => Tag::Summary,
            "p" => Tag::P,
            "h1" => Tag::Heading(1),
            "h2" => Tag::Heading(2),
            "h3" => Tag::Heading(3),
            "h4" => Tag::Heading(4),
            "h5" => Tag::Heading(5),
            "h6" => Tag::Heading(6),
            "pre" | "listing" | "plaintext" | "xmp" => Tag::Pre,
            "blockquote" => Tag::Blockquote,
            "ul" | "menu" | "dir" => Tag::Ul,
            "ol" => Tag::Ol,
            "li" => Tag::Li,
            "dl" => Tag::Dl,
            "dt" => Tag::Dt,
            "dd" => Tag::Dd,
            "table" => Tag::Table,
            "caption" => Tag::Caption,
            "tr" => Tag::Tr,
            "td" => Tag::Td,
            "th" => Tag::Th,
            "thead" | "tbody" | "tfoot" => Tag::TableSection,
            "hr" => Tag::Hr,
            "br" => Tag::Br,
            "a" => Tag::A,
            "code" | "kbd" | "samp" | "tt" => Tag::Code,
            "strong" | "b" => Tag::Strong,
            "em" | "i" => Tag::Em,
            "time" => Tag::Time,
            "img" => Tag::Img,
            "center" | "hgroup" | "fieldset" | "dialog" | "search" | "legend" | "frameset"
            | "frame" | "optgroup" | "output" => Tag::OtherBlock,
            // Never readable text, or text that is not part of the page's prose.
            "style" | "noscript" | "template" | "svg" | "math" | "iframe" | "object" | "embed"
            | "canvas" | "button" | "input" | "select" | "option" | "textarea" | "audio"
            | "video" | "map" | "noembed" | "noframes" | "applet" | "datalist" | "meter"
            | "progress" | "param" | "track" | "source" => return None,
            other if other.contains('-') => Tag::Custom,
            _ => Tag::Inline,
        };
        Some(tag)
    }

    /// Starts a new line of text (a paragraph boundary) in the rendered output.
    pub(crate) fn is_block(self) -> bool {
        !matches!(
            self,
            Tag::Text
                | Tag::A
                | Tag::Code
                | Tag::Strong
                | Tag::Em
                | Tag::Time
                | Tag::Img
                | Tag::Inline
                | Tag::Br
                | Tag::Title
                | Tag::Meta
                | Tag::Link
                | Tag::Base
                | Tag::Script
        )
    }

    /// Elements that are structural wrappers of other blocks.
    pub(crate) fn is_container(self) -> bool {
        matches!(
            self,
            Tag::Div
                | Tag::Section
                | Tag::Article
                | Tag::Main
                | Tag::Header
                | Tag::Footer
                | Tag::Nav
                | Tag::Aside
                | Tag::Form
                | Tag::Figure
                | Tag::Details
                | Tag::OtherBlock
                | Tag::Custom
                | Tag::Body
                | Tag::Html
                | Tag::Ul
                | Tag::Ol
                | Tag::Dl
                | Tag::Table
                | Tag::TableSection
                | Tag::Tr
                | Tag::Blockquote
        )
    }
}

/// One node of the flat document.
#[derive(Clone, Copy)]
pub(crate) struct Node<'a> {
    /// Element kind, or [`Tag::Text`].
    pub tag: Tag,
    /// The parsed element (attributes), `None` for text.
    pub el: Option<&'a Element>,
    /// Text content of a text node (raw, whitespace not collapsed).
    pub text: &'a str,
    /// Parent index (the root points to itself).
    pub parent: NodeIx,
    /// One past the last descendant: the subtree is `self..end`.
    pub end: NodeIx,
    /// What the element's class, id, role and itemprop say about it.
    pub hint: Hint,
}

/// The flat document plus facts gathered while building it.
pub(crate) struct Dom<'a> {
    /// Nodes in document order; index 0 is the root element.
    pub nodes: Vec<Node<'a>>,
    /// Bodies of the `application/ld+json` scripts, in document order.
    pub json_ld: Vec<&'a str>,
}

/// The state of the walk that builds a [`Dom`].
struct Builder<'a> {
    nodes: Vec<Node<'a>>,
    /// Open nodes (indices into `nodes`).
    stack: Vec<NodeIx>,
    /// When a skipped element is open, how many of its opens are still
    /// pending.
    skip_depth: usize,
    json_ld: Vec<&'a str>,
}

impl<'a> Builder<'a> {
    /// Enters a parsed node: a readable element or text is copied, anything
    /// else is skipped with its subtree.
    fn open(&mut self, node: ego_tree::NodeRef<'a, ParsedNode>) {
        if self.skip_depth > 0 {
            if node.value().is_element() {
                self.skip_depth += 1;
            }
            return;
        }
        match node.value() {
            ParsedNode::Element(el) => self.open_element(node, el),
            ParsedNode::Text(text) => {
                let Some(&parent) = self.stack.last() else {
                    return;
                };
                let ix = self.nodes.len() as NodeIx;
                self.nodes.push(Node {
                    tag: Tag::Text,
                    el: None,
                    text,
                    parent,
                    end: ix + 1,
                    hint: Hint::NEUTRAL,
                });
            }
            _ => {}
        }
    }

    /// Enters an element: scripts (keeping JSON-LD bodies), unreadable and
    /// hidden elements start a skip; others are copied and opened.
    fn open_element(&mut self, node: ego_tree::NodeRef<'a, ParsedNode>, el: &'a Element) {
        let Some(mut tag) = Tag::from_name(el.name()) else {
            self.skip_depth = 1;
            return;
        };
        // An anchor without `href` (`<a name=…>`) is a target, not a link:
        // its text is the page's own text.
        if tag == Tag::A && el.attr("href").is_none() {
            tag = Tag::Inline;
        }
        if tag == Tag::Script {
            if el.attr("type").is_some_and(|t| t.contains("ld+json")) {
                let body = node
                    .first_child()
                    .and_then(|c| c.value().as_text())
                    .map(|t| &**t);
                self.json_ld.push(body.unwrap_or(""));
            }
            self.skip_depth = 1;
            return;
        }
        if vocabulary::is_hidden(el) && !matches!(tag, Tag::Html | Tag::Body) {
            self.skip_depth = 1;
            return;
        }
        let ix = self.nodes.len() as NodeIx;
        let parent = self.stack.last().copied().unwrap_or(ix);
        self.nodes.push(Node {
            tag,
            el: Some(el),
            text: "",
            parent,
            end: ix + 1,
            hint: vocabulary::hint_for(tag, el),
        });
        self.stack.push(ix);
    }

    /// Leaves a parsed node: a skip counts down, an open element records
    /// where its subtree ends.
    fn close(&mut self, node: ego_tree::NodeRef<'a, ParsedNode>) {
        if self.skip_depth > 0 {
            if node.value().is_element() {
                self.skip_depth -= 1;
            }
            return;
        }
        if node.value().is_element()
            && let Some(ix) = self.stack.pop()
        {
            self.nodes[ix as usize].end = self.nodes.len() as NodeIx;
        }
    }
}

impl<'a> Dom<'a> {
    /// Copies the readable part of `html` into a flat vector, iteratively.
    pub(crate) fn build(html: &'a Html) -> Dom<'a> {
        let mut b = Builder {
            nodes: Vec::with_capacity(1024),
            stack: Vec::with_capacity(64),
            skip_depth: 0,
            json_ld: Vec::new(),
        };
        for edge in html.tree.root().traverse() {
            match edge {
                Edge::Open(node) => b.open(node),
                Edge::Close(node) => b.close(node),
            }
        }
        Dom {
            nodes: b.nodes,
            json_ld: b.json_ld,
        }
    }
    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The node at `ix`.
    pub(crate) fn node(&self, ix: NodeIx) -> &Node<'a> {
        &self.nodes[ix as usize]
    }

    /// Whether `inner` is `outer` or lies in its subtree.
    pub(crate) fn holds(&self, outer: NodeIx, inner: NodeIx) -> bool {
        outer <= inner && inner < self.node(outer).end
    }

    /// `ix` and its ancestors, up to the root.
    pub(crate) fn ancestors(&self, ix: NodeIx) -> impl Iterator<Item = NodeIx> + '_ {
        std::iter::successors(Some(ix), move |&a| {
            let parent = self.node(a).parent;
            (parent != a).then_some(parent)
        })
    }

    /// The ancestors of `ix` (not `ix` itself) below `<body>`, innermost
    /// first: the containers a block can widen to.
    pub(crate) fn parents_below_body(&self, ix: NodeIx) -> impl Iterator<Item = NodeIx> + '_ {
        self.ancestors(ix)
            .skip(1)
            .take_while(|&a| !matches!(self.node(a).tag, Tag::Body | Tag::Html))
    }

    /// Attribute of the element at `ix`.
    pub(crate) fn attr(&self, ix: NodeIx, name: &str) -> Option<&'a str> {
        self.nodes[ix as usize].el.and_then(|el| el.attr(name))
    }

    /// Indices of the direct children of `ix`, in order.
    pub(crate) fn children(&self, ix: NodeIx) -> Children<'_, 'a> {
        Children {
            dom: self,
            next: ix + 1,
            end: self.nodes[ix as usize].end,
        }
    }

    /// Which nodes sit at or below a node that `mark` holds for (a flag
    /// inherited down the tree, in one top-down pass).
    pub(crate) fn marked(&self, mark: impl Fn(NodeIx) -> bool) -> Vec<bool> {
        let mut inside = vec![false; self.nodes.len()];
        for i in 0..self.nodes.len() {
            let p = self.nodes[i].parent as usize;
            inside[i] = (p != i && inside[p]) || mark(i as NodeIx);
        }
        inside
    }

    /// The element just before `ix` under the same parent, when only
    /// whitespace lies between them.
    pub(crate) fn previous_element(&self, ix: NodeIx) -> Option<NodeIx> {
        let parent = self.nodes[ix as usize].parent;
        if parent == ix {
            return None;
        }
        let mut at = ix;
        // Each step climbs from the node just before `at` (pre-order) to
        // the child of `parent` that holds it: the previous sibling, found
        // in the depth of the tree rather than the number of siblings.
        while at > parent + 1 {
            let mut sibling = at - 1;
            while self.nodes[sibling as usize].parent != parent {
                sibling = self.nodes[sibling as usize].parent;
            }
            let node = &self.nodes[sibling as usize];
            if node.tag != Tag::Text {
                return Some(sibling);
            }
            if !node.text.trim().is_empty() {
                return None;
            }
            at = sibling;
        }
        None
    }

    /// The last visible text in the subtree at `ix`, trimmed.
    pub(crate) fn last_text(&self, ix: NodeIx) -> Option<&'a str> {
        let end = self.nodes[ix as usize].end as usize;
        self.nodes[ix as usize..end]
            .iter()
            .rev()
            .filter(|n| n.tag == Tag::Text)
            .map(|n| n.text.trim())
            .find(|t| !t.is_empty())
    }

    /// The text of the subtree at `ix`, whitespace collapsed, at most about
    /// `max_chars` characters.
    pub(crate) fn text_of(&self, ix: NodeIx, max_chars: usize) -> String {
        let mut out = String::new();
        let end = self.nodes[ix as usize].end as usize;
        for node in &self.nodes[ix as usize..end] {
            if node.tag.is_block() && !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            if node.tag != Tag::Text {
                continue;
            }
            if node.text.starts_with(|c: char| c.is_ascii_whitespace()) && !out.ends_with(' ') {
                out.push(' ');
            }
            for (k, word) in node.text.split_ascii_whitespace().enumerate() {
                if k > 0 {
                    out.push(' ');
                }
                out.push_str(word);
            }
            if node.text.ends_with(|c: char| c.is_ascii_whitespace()) {
                out.push(' ');
            }
            if out.len() > max_chars * 4 || out.chars().count() > max_chars {
                break;
            }
        }
        out.trim().to_owned()
    }

    /// The first element with this tag, in document order.
    pub(crate) fn first(&self, tag: Tag) -> Option<NodeIx> {
        self.nodes
            .iter()
            .position(|n| n.tag == tag)
            .map(|i| i as NodeIx)
    }
}

/// Iterator over the children of a node.
pub(crate) struct Children<'d, 'a> {
    dom: &'d Dom<'a>,
    next: NodeIx,
    end: NodeIx,
}

impl Iterator for Children<'_, '_> {
    type Item = NodeIx;

    fn next(&mut self) -> Option<NodeIx> {
        if self.next >= self.end {
            return None;
        }
        let ix = self.next;
        self.next = self.dom.nodes[ix as usize].end;
        Some(ix)
    }
}

/// How much a character of the CJK scripts (an ideograph, a kana, a Hangul
/// syllable) weighs against a letter: each stands for a syllable or a word,
/// and a Chinese or Japanese sentence rendered in English takes three to
/// four times as many characters.
pub(crate) const WIDE_CHAR_WEIGHT: u32 = 3;

/// The weight of `text`, the unit every length threshold of the extractor
/// is written in: characters, with each whitespace run counted as one and
/// each CJK character (ideograph, kana, Hangul syllable) as
/// [`WIDE_CHAR_WEIGHT`], so that every threshold means the same amount of
/// text in any language. Works on bytes (UTF-8 continuation bytes are not
/// counted).
pub(crate) fn text_weight(text: &str) -> u32 {
    let mut chars = 0u32;
    let mut in_space = true;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_whitespace() {
            if !in_space {
                chars += 1;
                in_space = true;
            }
        } else if b & 0xC0 != 0x80 {
            in_space = false;
            chars += 1;
            if b & 0xF0 == 0xE0 && is_wide(three_byte_point(b, bytes.get(i + 1..i + 3))) {
                chars += WIDE_CHAR_WEIGHT - 1;
            }
        }
    }
    chars
}

/// Whether `text` has a CJK character (see [`is_wide`]).
pub(crate) fn has_wide(text: &str) -> bool {
    text.chars().any(|c| is_wide(c as u32))
}

/// The code point of a three-byte UTF-8 sequence led by `lead` (0 if the
/// text ends before its continuation bytes, which valid UTF-8 never does).
fn three_byte_point(lead: u8, rest: Option<&[u8]>) -> u32 {
    match rest {
        Some(&[b1, b2]) => {
            (u32::from(lead & 0x0F) << 12) | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F)
        }
        _ => 0,
    }
}

/// Kana, CJK ideographs and Hangul syllables (each a syllable or a word).
/// CJK punctuation and full-width forms are not among them.
fn is_wide(point: u32) -> bool {
    matches!(
        point,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF
    )
}

#[cfg(test)]
mod tests {
    use super::{WIDE_CHAR_WEIGHT, text_weight};

    #[test]
    fn cjk_characters_weigh_more_than_letters_and_punctuation_does_not() {
        assert_eq!(text_weight("  a  b "), 4);
        assert_eq!(text_weight("今年"), 2 * WIDE_CHAR_WEIGHT);
        assert_eq!(text_weight("ひらカタ한글"), 6 * WIDE_CHAR_WEIGHT);
        // Ideographic punctuation and full-width forms count once.
        assert_eq!(text_weight("雪，雪、雪。（１）"), 3 * WIDE_CHAR_WEIGHT + 6);
        // Other multi-byte letters count once.
        assert_eq!(text_weight("éßж"), 3);
    }
}
