//! The focus filter (the CLI's `--focus`), applied to a page's text and
//! Markdown with [`crate::highlights::focus`]: the paragraphs that mention
//! the keyword, or the start of the text when too little does.

use super::page::FocusReport;
use crate::highlights;

/// Applies the focus keyword to the text and its Markdown.
pub(crate) fn apply(text: &str, markdown: &str, keyword: &str) -> (String, String, FocusReport) {
    let on_text = highlights::focus(text, keyword);
    let on_markdown = highlights::focus(markdown, keyword);
    let report = FocusReport {
        keyword: keyword.to_string(),
        matched: on_text.matched,
        paragraphs_kept: if on_text.matched {
            on_text.ranges.len()
        } else {
            highlights::paragraphs(&on_text.text).len()
        },
        paragraphs_total: highlights::paragraphs(text).len(),
    };
    (on_text.text, on_markdown.text, report)
}
