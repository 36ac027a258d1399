//! Reading a GitHub issue or pull request page: the thread's address, the
//! text of its body and comments (`.markdown-body`, with their links and
//! code), and the links in timeline items (cross-references, commits).

use std::ops::Range;

use ego_tree::iter::Edge;
use scraper::node::Element;
use scraper::{Html, Node};
use url::Url;

use super::scan::Link;

/// The body or one comment.
pub(crate) struct Section {
    pub text: String,
    pub code: Vec<Range<usize>>,
    pub links: Vec<Link>,
}

/// What the page holds.
pub(crate) struct Page {
    /// `<link rel=canonical>` or `og:url`.
    pub canonical: Option<String>,
    /// Body first, then comments in page order.
    pub sections: Vec<Section>,
    /// Links inside timeline items, outside comment bodies, with the text of
    /// the link.
    pub timeline_links: Vec<Link>,
    /// The parser's bounds the page went past, each in words (see
    /// [`crate::nesting`]); what lay past them was flattened or dropped.
    pub cuts: Vec<String>,
}

/// Elements whose content is not text of the discussion.
const SKIPPED: &[&str] = &[
    "script",
    "style",
    "template",
    "noscript",
    "button",
    "clipboard-copy",
    "svg",
    "tool-tip",
];
/// Elements that start a new line in the collected text.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "li",
    "br",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "blockquote",
    "pre",
    "ul",
    "ol",
    "table",
    "hr",
    "details",
    "summary",
];

struct Capture {
    depth: usize,
    text: String,
    code: Vec<Range<usize>>,
    code_start: Option<(usize, usize)>, // (depth, offset)
    pre_depth: Option<usize>,
    link: Option<(usize, usize, Option<String>)>, // (depth, offset, href)
    links: Vec<Link>,
}

impl Capture {
    fn new(depth: usize) -> Self {
        Capture {
            depth,
            text: String::new(),
            code: Vec::new(),
            code_start: None,
            pre_depth: None,
            link: None,
            links: Vec::new(),
        }
    }

    fn newline(&mut self) {
        // Offsets into the text are recorded as it grows, so it is never
        // shortened (a trailing space stays before the newline).
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
    }

    fn push_text(&mut self, t: &str) {
        if self.pre_depth.is_some() {
            self.text.push_str(t);
            return;
        }
        for c in t.chars() {
            if c.is_whitespace() {
                if !self.text.is_empty() && !self.text.ends_with([' ', '\n']) {
                    self.text.push(' ');
                }
            } else {
                self.text.push(c);
            }
        }
    }
    /// An element opens inside the body: blocks break lines, `pre`/`code`
    /// start code, and a link (not a user or team mention) starts a link.
    fn open(&mut self, e: &Element, classes: &[&str], depth: usize, base: &Url) {
        let name = e.name();
        if BLOCKS.contains(&name) {
            self.newline();
        }
        if name == "pre" && self.pre_depth.is_none() {
            self.pre_depth = Some(depth);
        }
        if matches!(name, "code" | "pre") && self.code_start.is_none() {
            self.code_start = Some((depth, self.text.len()));
        }
        if name == "a" && self.link.is_none() {
            let mention = classes
                .iter()
                .any(|c| *c == "user-mention" || *c == "team-mention");
            let href = if mention {
                None
            } else {
                e.attr("href").and_then(|h| absolute(base, h))
            };
            self.link = Some((depth, self.text.len(), href));
        }
    }

    /// The element at `depth` closes: ends the link, code or `pre` it
    /// opened. True when it is the body itself.
    fn close(&mut self, depth: usize) -> bool {
        if self.link.as_ref().is_some_and(|l| l.0 == depth)
            && let Some((_, start, href)) = self.link.take()
            && let Some(href) = href
        {
            let text = self.text[start..].trim().to_owned();
            let end = self.text.len();
            self.links.push(Link {
                range: start..end,
                href,
                text,
            });
        }
        if self.code_start.is_some_and(|c| c.0 == depth)
            && let Some((_, start)) = self.code_start.take()
        {
            self.code.push(start..self.text.len());
        }
        if self.pre_depth == Some(depth) {
            self.pre_depth = None;
            self.newline();
        }
        self.depth == depth
    }

    fn into_section(self) -> Section {
        Section {
            text: self.text,
            code: self.code,
            links: self.links,
        }
    }
}

/// Reads the page. `base` resolves relative links (default
/// `https://github.com/`).
pub(crate) fn read_page(html: &str, base: Option<&Url>) -> Page {
    let bounded = crate::nesting::bound_markup(html, &Default::default());
    let cuts = bounded.warnings().collect();
    let doc = Html::parse_document(&bounded.html);
    let default_base = Url::parse("https://github.com/").expect("valid URL");
    let mut walk = Walk::new(base.unwrap_or(&default_base));
    for edge in doc.tree.root().traverse() {
        match edge {
            Edge::Open(node) => walk.open(node.value()),
            Edge::Close(_) => walk.close(),
        }
    }
    Page {
        canonical: walk.canonical.or(walk.og_url),
        sections: walk.sections,
        timeline_links: walk.timeline_links,
        cuts,
    }
}

/// The walk over the page's tree: where it is and what it has collected.
struct Walk<'b> {
    base: &'b Url,
    depth: usize,
    /// Depth of the skipped element being walked through.
    skip_depth: Option<usize>,
    /// The comment body being read.
    capture: Option<Capture>,
    /// Depth of the timeline item being walked through.
    timeline_depth: Option<usize>,
    /// The timeline link being read: (depth, href, text).
    timeline_link: Option<(usize, String, String)>,
    canonical: Option<String>,
    og_url: Option<String>,
    sections: Vec<Section>,
    timeline_links: Vec<Link>,
}

impl<'b> Walk<'b> {
    fn new(base: &'b Url) -> Self {
        Walk {
            base,
            depth: 0,
            skip_depth: None,
            capture: None,
            timeline_depth: None,
            timeline_link: None,
            canonical: None,
            og_url: None,
            sections: Vec::new(),
            timeline_links: Vec::new(),
        }
    }

    fn open(&mut self, node: &Node) {
        self.depth += 1;
        if self.skip_depth.is_some() {
            return;
        }
        match node {
            Node::Element(e) => self.open_element(e),
            Node::Text(t) => self.text(t),
            _ => {}
        }
    }

    fn open_element(&mut self, e: &Element) {
        let name = e.name();
        if SKIPPED.contains(&name) {
            self.skip_depth = Some(self.depth);
            return;
        }
        self.note_address(e);
        let classes: Vec<&str> = e.classes().collect();
        match self.capture.as_mut() {
            None if classes.contains(&"markdown-body") => {
                self.capture = Some(Capture::new(self.depth));
            }
            None => self.open_outside_body(e, &classes),
            Some(cap) => cap.open(e, &classes, self.depth, self.base),
        }
    }

    /// `<link rel=canonical>` and `<meta property=og:url>`; the first of
    /// each counts.
    fn note_address(&mut self, e: &Element) {
        let name = e.name();
        if name == "link"
            && e.attr("rel").is_some_and(|r| {
                r.split_whitespace()
                    .any(|t| t.eq_ignore_ascii_case("canonical"))
            })
        {
            self.canonical = self.canonical.take().or(e.attr("href").map(str::to_owned));
        }
        if name == "meta" && e.attr("property") == Some("og:url") {
            self.og_url = self.og_url.take().or(e.attr("content").map(str::to_owned));
        }
    }

    /// Outside comment bodies: a timeline item starts, or a link inside one.
    fn open_outside_body(&mut self, e: &Element, classes: &[&str]) {
        let timeline = classes
            .iter()
            .any(|c| c.to_ascii_lowercase().contains("timeline"))
            || e.attr("data-testid").is_some_and(|t| {
                let t = t.to_ascii_lowercase();
                t.contains("timeline") || t.contains("reference")
            });
        if timeline && self.timeline_depth.is_none() {
            self.timeline_depth = Some(self.depth);
        }
        if e.name() == "a"
            && self.timeline_depth.is_some()
            && let Some(href) = e.attr("href").and_then(|h| absolute(self.base, h))
        {
            self.timeline_link = Some((self.depth, href, String::new()));
        }
    }

    fn text(&mut self, t: &str) {
        if let Some(cap) = self.capture.as_mut() {
            cap.push_text(t);
        } else if let Some((_, _, text)) = self.timeline_link.as_mut() {
            text.push_str(t);
        }
    }

    fn close(&mut self) {
        let depth = self.depth;
        if self.skip_depth == Some(depth) {
            self.skip_depth = None;
        } else if self.skip_depth.is_none() {
            match self.capture.as_mut() {
                Some(cap) => {
                    if cap.close(depth)
                        && let Some(done) = self.capture.take()
                    {
                        self.sections.push(done.into_section());
                    }
                }
                None => self.close_outside_body(depth),
            }
        }
        self.depth -= 1;
    }

    /// Outside comment bodies: a timeline link or item ends.
    fn close_outside_body(&mut self, depth: usize) {
        if self.timeline_link.as_ref().is_some_and(|l| l.0 == depth)
            && let Some((_, href, text)) = self.timeline_link.take()
        {
            self.timeline_links.push(Link {
                range: 0..0,
                href,
                text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            });
        }
        if self.timeline_depth == Some(depth) {
            self.timeline_depth = None;
        }
    }
}

/// An absolute http(s) URL for `href`, or `None` for in-page anchors,
/// `mailto:` and the like.
fn absolute(base: &Url, href: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let u = base.join(href).ok()?;
    matches!(u.scheme(), "http" | "https").then(|| u.to_string())
}
