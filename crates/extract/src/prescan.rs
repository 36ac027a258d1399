//! A byte-level pass over the raw HTML that runs before the real parser.
//!
//! Scripts, style sheets, inline SVG, `<noscript>` fallbacks and comments make
//! up more than half of a typical news page, and none of them is article text.
//! This pass copies the page with their *contents* removed (the tags stay, so
//! the parser still sees a `<script>` element and script counts stay right),
//! which roughly halves the work of the HTML5 parser. JSON-LD scripts are kept
//! whole because the metadata step reads them.
//!
//! The scanner follows the tokenizer rules that matter for finding those
//! elements: quoted attribute values (a `>` inside quotes does not end a tag),
//! comments, and the raw-text elements (`<title>`, `<textarea>`) whose content
//! is never markup. Anything it does not recognise is copied unchanged, so the
//! parser always has the final word on the document's structure.

use memchr::memchr;

use crate::html_lex::{comment_end, find_close_tag, tag_end, tag_name};

/// What the pre-scan learned while copying the page.
#[derive(Debug, Default, Clone)]
pub(crate) struct Prescan {
    /// Number of `<script>` elements (of any type, JSON-LD included).
    pub script_count: usize,
    /// Bytes of script content removed (inline JavaScript).
    pub script_bytes: usize,
    /// A `<noscript>` block mentioned JavaScript ("please enable JavaScript").
    pub noscript_mentions_javascript: bool,
    /// The page keeps markup out of sight: `<noscript>` content, a
    /// `<template>` or an HTML template in a `<script type="text/template">`.
    pub hidden_markup: bool,
}

/// What the copy does with markup kept out of sight ([`Prescan::hidden_markup`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hidden {
    /// Drop it, as a browser with scripting shows nothing of it.
    Drop,
    /// Unwrap it into the page: for pages whose only text is there.
    Unwrap,
}

/// What happens to the content of an element the scanner recognises.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Content {
    /// Drop the content (scripts, styles, SVG, noscript, iframes).
    Drop,
    /// Keep the content but do not look for tags inside it (RCDATA).
    KeepOpaque,
}

/// Elements whose content the scanner handles itself.
const RAW_ELEMENTS: &[(&str, Content)] = &[
    ("script", Content::Drop),
    ("style", Content::Drop),
    ("svg", Content::Drop),
    ("noscript", Content::Drop),
    ("iframe", Content::Drop),
    ("noembed", Content::Drop),
    ("noframes", Content::Drop),
    ("title", Content::KeepOpaque),
    ("textarea", Content::KeepOpaque),
    ("xmp", Content::KeepOpaque),
];

/// Copies `html` without the contents of scripts, styles, SVG, noscript blocks
/// and comments. JSON-LD script bodies are kept.
/// With [`Hidden::Unwrap`], noscript, template and template-script markup
/// is kept as part of the page instead.
pub(crate) fn strip_inert(html: &str, hidden: Hidden) -> (String, Prescan) {
    let bytes = html.as_bytes();
    let mut s = Stripper {
        html,
        hidden,
        out: String::with_capacity(html.len() / 2 + 64),
        info: Prescan::default(),
        copied: 0,
    };
    let mut pos = 0usize;
    while let Some(off) = memchr(b'<', &bytes[pos..]) {
        let lt = pos + off;
        let rest = &bytes[lt + 1..];
        if rest.starts_with(b"!--") {
            let end = comment_end(bytes, lt + 4);
            s.cut(lt, end);
            pos = end;
            continue;
        }
        let Some(&first) = rest.first() else { break };
        pos = if first == b'/' && rest.get(1).is_some_and(u8::is_ascii_alphabetic) {
            s.end_tag(lt)
        } else if !first.is_ascii_alphabetic() {
            lt + 1
        } else {
            s.start_tag(lt)
        };
    }
    s.out.push_str(&html[s.copied..]);
    (s.out, s.info)
}

/// The copy under way.
struct Stripper<'h> {
    html: &'h str,
    out: String,
    info: Prescan,
    /// The start of the not-yet-copied input.
    copied: usize,
    hidden: Hidden,
}

impl Stripper<'_> {
    /// Copies the input up to `from` and skips it up to `to`.
    fn cut(&mut self, from: usize, to: usize) {
        self.out.push_str(&self.html[self.copied..from]);
        self.copied = to;
    }

    /// The end tag at `lt`, copied as it is. Returns where scanning goes on
    /// (past its attributes, which may quote a `<`).
    fn end_tag(&self, lt: usize) -> usize {
        let bytes = self.html.as_bytes();
        let name = tag_name(&bytes[lt + 2..]);
        tag_end(bytes, lt + 2 + name.len())
    }

    /// The start tag at `lt`: a raw element has its content handled, any
    /// other tag is copied as it is. Returns where scanning goes on.
    fn start_tag(&mut self, lt: usize) -> usize {
        let bytes = self.html.as_bytes();
        let name = tag_name(&bytes[lt + 1..]);
        let tag_end = tag_end(bytes, lt + 1 + name.len());
        if let Some(next) = self.hidden_markup(lt, name, tag_end) {
            return next;
        }
        let raw = RAW_ELEMENTS
            .iter()
            .find(|(n, _)| n.as_bytes().eq_ignore_ascii_case(name));
        let Some(&(raw_name, handling)) = raw else {
            return tag_end;
        };
        let self_closing = tag_end >= 2 && bytes[tag_end - 2] == b'/' && raw_name == "svg";
        if self_closing {
            return tag_end;
        }
        let close = find_close_tag(bytes, tag_end, raw_name.as_bytes());
        if !self.keeps_content(raw_name, handling, lt, tag_end, close) {
            self.cut(tag_end, close);
        }
        close
    }

    /// A start tag of hidden markup (`<noscript>`, `<template>`, a template
    /// script) is noted; when unwrapping, the tag is dropped and scanning
    /// goes on inside it (`Some(where)`). `None`: handle the tag as usual.
    fn hidden_markup(&mut self, lt: usize, name: &[u8], tag_end: usize) -> Option<usize> {
        let open_tag = &self.html.as_bytes()[lt..tag_end];
        let hidden = name.eq_ignore_ascii_case(b"noscript")
            || name.eq_ignore_ascii_case(b"template")
            || (name.eq_ignore_ascii_case(b"script") && is_template_script(open_tag));
        if !hidden {
            return None;
        }
        self.info.hidden_markup = true;
        match self.hidden {
            Hidden::Drop => None,
            Hidden::Unwrap => {
                self.cut(lt, tag_end);
                Some(tag_end)
            }
        }
    }

    /// Whether the content (`tag_end..close`) of the raw element opened at
    /// `lt` stays, counting scripts and noting what noscript says.
    fn keeps_content(
        &mut self,
        raw_name: &str,
        handling: Content,
        lt: usize,
        tag_end: usize,
        close: usize,
    ) -> bool {
        let content = &self.html[tag_end..close];
        match handling {
            Content::KeepOpaque => true,
            Content::Drop if raw_name == "script" => {
                self.info.script_count += 1;
                let open_tag = &self.html[lt..tag_end];
                let json_ld = contains_ignore_ascii_case(open_tag.as_bytes(), b"ld+json");
                if !json_ld {
                    self.info.script_bytes += content.len();
                }
                json_ld
            }
            Content::Drop => {
                if raw_name == "noscript"
                    && contains_ignore_ascii_case(content.as_bytes(), b"javascript")
                {
                    self.info.noscript_mentions_javascript = true;
                }
                false
            }
        }
    }
}

/// A `<script>` whose `type` names an HTML template (`text/template`,
/// `text/x-handlebars-template`, `text/html`, …) rather than code or data.
fn is_template_script(open_tag: &[u8]) -> bool {
    let Some(kind) = attr_value(open_tag, b"type") else {
        return false;
    };
    let kind = kind.to_ascii_lowercase();
    [&b"template"[..], b"tmpl", b"text/html"]
        .iter()
        .any(|k| memchr::memmem::find(&kind, k).is_some())
}

/// The value of attribute `name` (lower-case ASCII) in a start tag, quoted
/// or not.
fn attr_value<'t>(open_tag: &'t [u8], name: &[u8]) -> Option<&'t [u8]> {
    let lower = open_tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(off) = memchr::memmem::find(&lower[from..], name) {
        let at = from + off;
        from = at + name.len();
        let preceded = at > 0 && open_tag[at - 1].is_ascii_whitespace();
        let rest = open_tag[from..].trim_ascii_start();
        let Some(rest) = rest.strip_prefix(b"=").filter(|_| preceded) else {
            continue;
        };
        let rest = rest.trim_ascii_start();
        return Some(match rest.first() {
            Some(&q @ (b'"' | b'\'')) => {
                let body = &rest[1..];
                &body[..memchr(q, body).unwrap_or(body.len())]
            }
            _ => {
                let end = rest
                    .iter()
                    .position(|b| b.is_ascii_whitespace() || *b == b'>')
                    .unwrap_or(rest.len());
                &rest[..end]
            }
        });
    }
    None
}

/// `needle` (ASCII) occurs in `hay`, ignoring ASCII case: memchr finds
/// each place its first byte occurs, in either case.
fn contains_ignore_ascii_case(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    memchr::memchr2_iter(lower, upper, hay).any(|at| {
        hay[at + 1..]
            .get(..rest.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(rest))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip_inert_drop(html: &str) -> (String, Prescan) {
        strip_inert(html, Hidden::Drop)
    }

    #[test]
    fn hidden_markup_is_noted_and_unwrapped_on_request() {
        let html = r#"<noscript><p>No script text</p></noscript><script type="text/x-template"><p>Tpl</p></script><script type="text/javascript" src="html5.js">var a = "<p>x</p>";</script>"#;
        let (dropped, info) = strip_inert(html, Hidden::Drop);
        assert!(info.hidden_markup);
        assert!(!dropped.contains("No script text") && !dropped.contains("Tpl"));
        let (kept, _) = strip_inert(html, Hidden::Unwrap);
        assert!(kept.contains("<p>No script text</p>") && kept.contains("<p>Tpl</p>"));
        assert!(!kept.contains("var a"), "{kept}");
        let (_, plain) = strip_inert("<p>a</p><script>x()</script>", Hidden::Drop);
        assert!(!plain.hidden_markup);
    }

    #[test]
    fn removes_script_and_style_contents_but_keeps_tags() {
        let (out, info) = strip_inert_drop(
            "<p>a</p><script>var x = '<p>no</p>';</script><style>p{}</style><p>b</p>",
        );
        assert_eq!(out, "<p>a</p><script></script><style></style><p>b</p>");
        assert_eq!(info.script_count, 1);
    }

    #[test]
    fn keeps_json_ld_bodies() {
        let html = r#"<script type="application/ld+json">{"a":1}</script>"#;
        assert_eq!(strip_inert_drop(html).0, html);
    }

    #[test]
    fn quoted_gt_does_not_end_a_tag() {
        let (out, _) = strip_inert_drop(r#"<script data-x="a>b">x</script>"#);
        assert_eq!(out, r#"<script data-x="a>b"></script>"#);
    }

    #[test]
    fn comments_are_dropped_and_title_is_opaque() {
        let (out, _) = strip_inert_drop("<title><script>t</script></title><!-- c --><p>x");
        assert_eq!(out, "<title><script>t</script></title><p>x");
    }

    #[test]
    fn case_is_ignored_when_looking_for_words() {
        assert!(contains_ignore_ascii_case(
            b"Please enable JavaScript.",
            b"javascript"
        ));
        assert!(contains_ignore_ascii_case(b"jjavascript", b"javascript"));
        assert!(!contains_ignore_ascii_case(b"java script", b"javascript"));
        assert!(!contains_ignore_ascii_case(b"javascrip", b"javascript"));
        assert!(contains_ignore_ascii_case(b"", b""));
    }

    #[test]
    fn unterminated_constructs_do_not_panic() {
        for html in [
            "<script>",
            "<!--",
            "<a href=\"",
            "<",
            "<svg/>",
            "<!-->x",
            "<scr",
        ] {
            let _ = strip_inert_drop(html);
        }
    }
}
