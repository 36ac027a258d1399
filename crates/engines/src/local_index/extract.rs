//! Title and plain text of the files the local index reads: Markdown
//! (pulldown-cmark), HTML (scraper) and plain text.
//!
//! - **Markdown**: the title is the first level-1 heading (`# Title` or a
//!   setext `Title\n===`), else a `title:` in YAML front matter, else the
//!   first heading of any level. The text is what a reader sees: no `#`,
//!   `*`, link targets or front matter; code blocks are kept (people search
//!   for identifiers).
//! - **HTML**: the title is `<title>`, else the first `<h1>`. The text is the
//!   body's text without `script`, `style`, `nav`, `noscript`, `template`,
//!   `svg`, `iframe` or `head`, and without what is not rendered (the one
//!   hidden rule, [`ferret_extract::hidden`]: the `hidden` attribute,
//!   `display:none`, `visibility:hidden`, Bootstrap's `d-none`), one line per
//!   block element.
//! - **Text**: the title is the first non-blank line when it is short.
//!
//! Files with no title fall back to their file name (the caller's job).

use ferret_extract::hidden::is_removed;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use scraper::{ElementRef, Html, Node, Selector};

/// What kind of document a file is, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    /// `.md`, `.markdown`.
    Markdown,
    /// `.html`, `.htm`.
    Html,
    /// `.txt`.
    Text,
}

/// File extensions the index reads (lowercase) and their kinds.
pub const EXTENSIONS: &[(&str, DocKind)] = &[
    ("md", DocKind::Markdown),
    ("markdown", DocKind::Markdown),
    ("html", DocKind::Html),
    ("htm", DocKind::Html),
    ("txt", DocKind::Text),
];

impl DocKind {
    /// The kind of a file with extension `ext` (any case), if indexed.
    pub fn from_extension(ext: &str) -> Option<DocKind> {
        let ext = ext.to_ascii_lowercase();
        EXTENSIONS.iter().find(|(e, _)| *e == ext).map(|(_, k)| *k)
    }
}

/// A document's title (empty when it has none) and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The title, or empty.
    pub title: String,
    /// The plain text.
    pub body: String,
}

/// Extract `source` as a document of `kind`.
pub fn extract(kind: DocKind, source: &str) -> Extracted {
    match kind {
        DocKind::Markdown => markdown(source),
        DocKind::Html => html(source),
        DocKind::Text => text(source),
    }
}

/// Titles longer than this (in chars) are cut at a word boundary.
const MAX_TITLE_CHARS: usize = 160;

/// Collapse whitespace runs to one space and trim.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut_title(s: &str) -> String {
    let s = squash(s);
    if s.chars().count() <= MAX_TITLE_CHARS {
        return s;
    }
    let cut: String = s.chars().take(MAX_TITLE_CHARS).collect();
    match cut.rfind(' ') {
        Some(i) if i > MAX_TITLE_CHARS / 2 => format!("{}…", &cut[..i]),
        _ => format!("{cut}…"),
    }
}

/// Lines trimmed, blank runs collapsed to one blank line.
fn tidy_lines(s: &str) -> String {
    tidy(s, true)
}

/// Lines trimmed, blank lines dropped (HTML, where every block boundary
/// makes one).
fn tidy_compact(s: &str) -> String {
    tidy(s, false)
}

fn tidy(s: &str, keep_blank: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = true;
    for line in s.lines() {
        let line = squash(line);
        if line.is_empty() {
            if !blank && keep_blank {
                out.push('\n');
            }
            blank = true;
        } else {
            out.push_str(&line);
            out.push('\n');
            blank = false;
        }
    }
    out.trim_end().to_string()
}

fn markdown(source: &str) -> Extracted {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS;
    let mut reader = MarkdownText {
        body: String::with_capacity(source.len()),
        ..MarkdownText::default()
    };
    for event in Parser::new_ext(source, options) {
        reader.read(event);
    }
    reader.finish()
}

/// What a pass over Markdown events collects: the plain text and the title
/// candidates.
#[derive(Default)]
struct MarkdownText {
    body: String,
    /// The first level-1 heading.
    h1: Option<String>,
    /// The first heading of any level.
    any_heading: Option<String>,
    /// `title:` from the front matter.
    front_title: Option<String>,
    /// The heading being read, with its level.
    heading: Option<(HeadingLevel, String)>,
    in_metadata: bool,
}

impl MarkdownText {
    fn read(&mut self, event: Event<'_>) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                self.heading = Some((level, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => self.end_heading(),
            Event::Start(Tag::MetadataBlock(_)) => self.in_metadata = true,
            Event::End(TagEnd::MetadataBlock(_)) => self.in_metadata = false,
            Event::Text(t) if self.in_metadata => self.front_matter(&t),
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                if let Some((_, h)) = self.heading.as_mut() {
                    h.push_str(&t);
                }
                self.body.push_str(&t);
            }
            Event::Html(h) => {
                let text = html_fragment_text(&h);
                if !text.is_empty() {
                    self.body.push_str(&text);
                    self.body.push('\n');
                }
            }
            Event::SoftBreak => {
                if let Some((_, h)) = self.heading.as_mut() {
                    h.push(' ');
                }
                self.body.push(' ');
            }
            Event::HardBreak | Event::Rule => self.body.push('\n'),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::CodeBlock
                | TagEnd::Item
                | TagEnd::TableCell
                | TagEnd::TableRow
                | TagEnd::TableHead
                | TagEnd::BlockQuote(_)
                | TagEnd::FootnoteDefinition
                | TagEnd::DefinitionListTitle
                | TagEnd::DefinitionListDefinition,
            ) => self.body.push('\n'),
            _ => {}
        }
    }

    /// A heading ended: keep it as a title candidate and end its line.
    fn end_heading(&mut self) {
        if let Some((level, text)) = self.heading.take() {
            let text = squash(&text);
            if !text.is_empty() {
                if level == HeadingLevel::H1 && self.h1.is_none() {
                    self.h1 = Some(text.clone());
                }
                self.any_heading.get_or_insert(text);
            }
        }
        self.body.push('\n');
    }

    /// Front matter is not body text; only its first `title:` is kept.
    fn front_matter(&mut self, text: &str) {
        self.front_title = self.front_title.take().or_else(|| {
            text.lines().find_map(|l| {
                l.strip_prefix("title:")
                    .map(|v| v.trim().trim_matches(['"', '\'']).to_string())
                    .filter(|v| !v.is_empty())
            })
        });
    }

    /// The title (first H1, else front matter, else any heading) and the text.
    fn finish(self) -> Extracted {
        let title = self
            .h1
            .or(self.front_title)
            .or(self.any_heading)
            .unwrap_or_default();
        Extracted {
            title: cut_title(&title),
            body: tidy_lines(&self.body),
        }
    }
}

/// Elements whose content is never text a reader sees.
const SKIPPED_ELEMENTS: &[&str] = &[
    "script", "style", "nav", "noscript", "template", "svg", "iframe", "head", "object", "canvas",
];

/// Elements that start a new line of text.
const BLOCK_ELEMENTS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "td",
    "th",
    "tr",
    "ul",
];

fn collect_text(element: ElementRef<'_>, out: &mut String) {
    for child in element.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                let name = e.name();
                if SKIPPED_ELEMENTS.contains(&name) || is_removed(e) {
                    continue;
                }
                let block = BLOCK_ELEMENTS.contains(&name);
                if block {
                    out.push('\n');
                }
                if let Some(el) = ElementRef::wrap(child) {
                    collect_text(el, out);
                }
                if block {
                    out.push('\n');
                }
            }
            _ => {}
        }
    }
}

fn first_text(doc: &Html, selector: &str) -> Option<String> {
    let sel = Selector::parse(selector).ok()?;
    doc.select(&sel)
        .map(|e| squash(&e.text().collect::<String>()))
        .find(|t| !t.is_empty())
}

fn html(source: &str) -> Extracted {
    let doc = Html::parse_document(source);
    let title = first_text(&doc, "head > title")
        .or_else(|| first_text(&doc, "title"))
        .or_else(|| first_text(&doc, "h1"))
        .unwrap_or_default();
    let mut body = String::with_capacity(source.len() / 2);
    let root = Selector::parse("body")
        .ok()
        .and_then(|s| doc.select(&s).next())
        .unwrap_or_else(|| doc.root_element());
    collect_text(root, &mut body);
    Extracted {
        title: cut_title(&title),
        body: tidy_compact(&body),
    }
}

/// The text of an HTML fragment (a raw HTML block inside Markdown).
fn html_fragment_text(source: &str) -> String {
    let doc = Html::parse_fragment(source);
    let mut out = String::new();
    collect_text(doc.root_element(), &mut out);
    tidy_compact(&out)
}

fn text(source: &str) -> Extracted {
    let title = source
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .filter(|l| l.chars().count() <= 120)
        .map(squash)
        .unwrap_or_default();
    Extracted {
        title,
        body: tidy_lines(source),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_title_is_the_first_h1_and_markup_is_gone() {
        let md = "---\ntitle: From Front Matter\n---\n\n## Intro\n\nSome **bold** text with a \
                  [link](https://example.com/x) and `code`.\n\n# The Real Title\n\n- item one\n\
                  - item two\n\n```rust\nfn main() {}\n```\n\n<div>raw <b>html</b></div>\n";
        let e = extract(DocKind::Markdown, md);
        assert_eq!(e.title, "The Real Title");
        assert!(
            e.body.contains("Some bold text with a link and code."),
            "{}",
            e.body
        );
        assert!(!e.body.contains("https://example.com"));
        assert!(!e.body.contains("**"));
        assert!(!e.body.contains("From Front Matter"));
        assert!(e.body.contains("fn main() {}"));
        assert!(e.body.contains("raw html"));
        assert!(e.body.contains("item one\nitem two"), "{}", e.body);
    }

    #[test]
    fn markdown_title_falls_back_to_front_matter_then_any_heading() {
        let e = extract(
            DocKind::Markdown,
            "---\ntitle: \"Front\"\n---\n## Sub\ntext\n",
        );
        assert_eq!(e.title, "Front");
        let e = extract(DocKind::Markdown, "## Sub *heading*\ntext\n");
        assert_eq!(e.title, "Sub heading");
        let e = extract(DocKind::Markdown, "Setext\n======\n\nbody\n");
        assert_eq!(e.title, "Setext");
        assert_eq!(extract(DocKind::Markdown, "just text").title, "");
    }

    #[test]
    fn html_drops_scripts_styles_and_navigation() {
        let page = "<html><head><title> Page  Title </title><style>.x{color:red}</style>\
                    <script>var secret = 1;</script></head><body><nav>Home | About</nav>\
                    <h1>Heading</h1><p>First <em>para</em>.</p><script>alert(1)</script>\
                    <div hidden>invisible</div><ul><li>one</li><li>two</li></ul></body></html>";
        let e = extract(DocKind::Html, page);
        assert_eq!(e.title, "Page Title");
        assert_eq!(e.body, "Heading\nFirst para.\none\ntwo");
        let e = extract(DocKind::Html, "<h1>Only H1</h1><p>x</p>");
        assert_eq!(e.title, "Only H1");
    }

    #[test]
    fn text_title_is_a_short_first_line() {
        let e = extract(
            DocKind::Text,
            "\n  Release notes \nline two\n\n\n\nline three",
        );
        assert_eq!(e.title, "Release notes");
        assert_eq!(e.body, "Release notes\nline two\n\nline three");
        let long = "x ".repeat(100);
        assert_eq!(extract(DocKind::Text, &long).title, "");
    }

    #[test]
    fn extensions_are_case_insensitive() {
        assert_eq!(DocKind::from_extension("MD"), Some(DocKind::Markdown));
        assert_eq!(DocKind::from_extension("Htm"), Some(DocKind::Html));
        assert_eq!(DocKind::from_extension("rs"), None);
    }
}
