//! Reading a GitHub issue or pull request page: the thread's address, the
//! text of its body and comments (`.markdown-body`, with their links and
//! code), and the links in timeline items (cross-references, commits).

use std::ops::Range;

use ego_tree::iter::Edge;
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
    /// The page nested too deep and deeper tags were ignored.
    pub nesting_capped: bool,
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
}

/// Reads the page. `base` resolves relative links (default
/// `https://github.com/`).
pub(crate) fn read_page(html: &str, base: Option<&Url>) -> Page {
    let capped = crate::structured::nesting::cap_nesting(html);
    let nesting_capped = matches!(capped, std::borrow::Cow::Owned(_));
    let doc = Html::parse_document(&capped);
    let default_base = Url::parse("https://github.com/").expect("valid URL");
    let base = base.unwrap_or(&default_base);
    let mut canonical = None;
    let mut og_url = None;
    let mut sections = Vec::new();
    let mut timeline_links = Vec::new();

    let mut depth = 0usize;
    let mut skip_depth: Option<usize> = None;
    let mut capture: Option<Capture> = None;
    let mut timeline_depth: Option<usize> = None;
    let mut timeline_link: Option<(usize, String, String)> = None; // (depth, href, text)

    for edge in doc.tree.root().traverse() {
        match edge {
            Edge::Open(node) => {
                depth += 1;
                if skip_depth.is_some() {
                    continue;
                }
                match node.value() {
                    Node::Element(e) => {
                        let name = e.name();
                        if SKIPPED.contains(&name) {
                            skip_depth = Some(depth);
                            continue;
                        }
                        if name == "link"
                            && e.attr("rel").is_some_and(|r| {
                                r.split_whitespace()
                                    .any(|t| t.eq_ignore_ascii_case("canonical"))
                            })
                        {
                            canonical = canonical.or(e.attr("href").map(str::to_owned));
                        }
                        if name == "meta" && e.attr("property") == Some("og:url") {
                            og_url = og_url.or(e.attr("content").map(str::to_owned));
                        }
                        let classes: Vec<&str> = e.classes().collect();
                        match capture.as_mut() {
                            None if classes.contains(&"markdown-body") => {
                                capture = Some(Capture::new(depth));
                            }
                            None => {
                                let timeline = classes
                                    .iter()
                                    .any(|c| c.to_ascii_lowercase().contains("timeline"))
                                    || e.attr("data-testid").is_some_and(|t| {
                                        let t = t.to_ascii_lowercase();
                                        t.contains("timeline") || t.contains("reference")
                                    });
                                if timeline && timeline_depth.is_none() {
                                    timeline_depth = Some(depth);
                                }
                                if name == "a"
                                    && timeline_depth.is_some()
                                    && let Some(href) =
                                        e.attr("href").and_then(|h| absolute(base, h))
                                {
                                    timeline_link = Some((depth, href, String::new()));
                                }
                            }
                            Some(cap) => {
                                if BLOCKS.contains(&name) {
                                    cap.newline();
                                }
                                if name == "pre" && cap.pre_depth.is_none() {
                                    cap.pre_depth = Some(depth);
                                }
                                if matches!(name, "code" | "pre") && cap.code_start.is_none() {
                                    cap.code_start = Some((depth, cap.text.len()));
                                }
                                if name == "a" && cap.link.is_none() {
                                    let mention = classes
                                        .iter()
                                        .any(|c| *c == "user-mention" || *c == "team-mention");
                                    let href = if mention {
                                        None
                                    } else {
                                        e.attr("href").and_then(|h| absolute(base, h))
                                    };
                                    cap.link = Some((depth, cap.text.len(), href));
                                }
                            }
                        }
                    }
                    Node::Text(t) => {
                        if let Some(cap) = capture.as_mut() {
                            cap.push_text(t);
                        } else if let Some((_, _, text)) = timeline_link.as_mut() {
                            text.push_str(t);
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(_) => {
                if skip_depth == Some(depth) {
                    skip_depth = None;
                } else if skip_depth.is_none() {
                    if let Some(cap) = capture.as_mut() {
                        if cap.link.as_ref().is_some_and(|l| l.0 == depth)
                            && let Some((_, start, href)) = cap.link.take()
                            && let Some(href) = href
                        {
                            let text = cap.text[start..].trim().to_owned();
                            let end = cap.text.len();
                            cap.links.push(Link {
                                range: start..end,
                                href,
                                text,
                            });
                        }
                        if cap.code_start.is_some_and(|c| c.0 == depth)
                            && let Some((_, start)) = cap.code_start.take()
                        {
                            cap.code.push(start..cap.text.len());
                        }
                        if cap.pre_depth == Some(depth) {
                            cap.pre_depth = None;
                            cap.newline();
                        }
                        if cap.depth == depth
                            && let Some(done) = capture.take()
                        {
                            sections.push(Section {
                                text: done.text,
                                code: done.code,
                                links: done.links,
                            });
                        }
                    } else {
                        if timeline_link.as_ref().is_some_and(|l| l.0 == depth)
                            && let Some((_, href, text)) = timeline_link.take()
                        {
                            timeline_links.push(Link {
                                range: 0..0,
                                href,
                                text: text.split_whitespace().collect::<Vec<_>>().join(" "),
                            });
                        }
                        if timeline_depth == Some(depth) {
                            timeline_depth = None;
                        }
                    }
                }
                depth -= 1;
            }
        }
    }
    Page {
        canonical: canonical.or(og_url),
        sections,
        timeline_links,
        nesting_capped,
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
