//! Small HTML fragments in API answers (Hacker News comment text) as plain
//! text: paragraphs become blank lines, `<br>` a newline, entities decoded,
//! tags dropped.

use scraper::{Html, Node};

/// The text of an HTML fragment.
pub(super) fn fragment_to_text(html: &str) -> String {
    if !html.contains('<') && !html.contains('&') {
        return html.trim().to_string();
    }
    let doc = Html::parse_fragment(html);
    let mut out = String::new();
    for edge in doc.root_element().traverse() {
        match edge {
            ego_tree::iter::Edge::Open(node) => match node.value() {
                Node::Text(t) => out.push_str(t),
                Node::Element(el) => match el.name() {
                    "p" | "pre" | "blockquote" | "li" | "div"
                        if !out.is_empty() && !out.ends_with("\n\n") =>
                    {
                        out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
                    }
                    "br" => out.push('\n'),
                    _ => {}
                },
                _ => {}
            },
            ego_tree::iter::Edge::Close(_) => {}
        }
    }
    let mut cleaned = String::with_capacity(out.len());
    let mut blank_run = 0;
    for line in out.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run == 1 && !cleaned.is_empty() {
                cleaned.push('\n');
            }
            continue;
        }
        blank_run = 0;
        cleaned.push_str(line);
        cleaned.push('\n');
    }
    cleaned.trim().to_string()
}
