//! The focus filter (seed 000's `--focus`): keep the paragraphs that
//! mention a keyword; when none do, or they add up to fewer than
//! [`FOCUS_MIN_CHARS`] characters, keep the first [`FOCUS_FALLBACK_CHARS`]
//! characters instead.

use super::page::FocusReport;

/// Kept paragraphs shorter than this in total fall back to the start.
pub const FOCUS_MIN_CHARS: usize = 200;
/// Characters kept by the fallback.
pub const FOCUS_FALLBACK_CHARS: usize = 8000;

fn paragraphs(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

fn head(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// Applies the focus keyword to the text and its Markdown.
pub(crate) fn apply(text: &str, markdown: &str, keyword: &str) -> (String, String, FocusReport) {
    let needle = keyword.trim().to_lowercase();
    let all = paragraphs(text);
    let kept: Vec<&str> = if needle.is_empty() {
        Vec::new()
    } else {
        all.iter()
            .copied()
            .filter(|p| p.to_lowercase().contains(&needle))
            .collect()
    };
    let kept_chars: usize = kept.iter().map(|p| p.chars().count()).sum();
    let matched = !kept.is_empty() && kept_chars >= FOCUS_MIN_CHARS;
    let report = |kept: usize| FocusReport {
        keyword: keyword.to_string(),
        matched,
        paragraphs_kept: kept,
        paragraphs_total: all.len(),
    };
    if !matched {
        let text = head(text, FOCUS_FALLBACK_CHARS);
        let kept = paragraphs(&text).len();
        return (text, head(markdown, FOCUS_FALLBACK_CHARS), report(kept));
    }
    let md: Vec<&str> = paragraphs(markdown)
        .into_iter()
        .filter(|p| p.to_lowercase().contains(&needle))
        .collect();
    (kept.join("\n\n"), md.join("\n\n"), report(kept.len()))
}
