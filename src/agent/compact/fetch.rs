//! The compact `fetch` answer: the verdict, the highlights first, then the
//! main text cut at the budget.

use ferret_evidence::fetch::FetchedPage;
use serde::Serialize;

use super::{Page, clip_chars};

/// The compact `fetch` answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactFetch {
    /// The URL after redirects.
    pub final_url: String,
    /// The verdict (`ok`, `weak_ok`, `blocked`, …).
    pub verdict: String,
    /// Whether the page is usable evidence.
    pub ok: bool,
    /// The page's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The highlights shown (most relevant passages first).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub highlights: Vec<String>,
    /// Characters of the main text shown, and in all.
    pub text_chars_shown: usize,
    /// Characters of the main text in all.
    pub text_chars: usize,
    /// The rendering.
    pub text: String,
}

/// Render `page` within `budget` estimated tokens.
pub fn render(page: &FetchedPage, budget: usize) -> CompactFetch {
    let mut out = Page::new(budget);
    out.push_always(&page.final_url);
    out.push(&status_line(page));
    let highlights = push_highlights(&mut out, page);
    let total = page.text.chars().count();
    let shown = if page.text.trim().is_empty() {
        out.push("text: (no main text extracted)");
        0
    } else {
        out.push_clipped("text: ", &page.text, 1)
    };
    if shown < total {
        out.push(&format!(
            "[main text cut at the budget: {shown} of {total} characters; detail: \"full\" has it all]"
        ));
    }
    CompactFetch {
        final_url: page.final_url.clone(),
        verdict: page.verdict.as_str().to_string(),
        ok: page.ok,
        title: page.title.clone(),
        highlights,
        text_chars_shown: shown,
        text_chars: total,
        text: out.into_text(),
    }
}

fn status_line(page: &FetchedPage) -> String {
    let mut line = format!(
        "{} (ok: {}, read by {})",
        page.verdict.as_str(),
        page.ok,
        page.source.as_str()
    );
    if !page.ok || page.verdict.as_str() != "ok" {
        line.push_str(&format!(" — {}", clip_chars(&page.verdict_reason, 160)));
    }
    if let Some(t) = &page.title {
        line.push_str(&format!("\ntitle: {}", clip_chars(t, 160)));
    }
    if let Some(d) = &page.published_at {
        line.push_str(&format!("\npublished: {d}"));
    }
    line
}

/// Highlights while they fit, at most half the budget.
fn push_highlights(out: &mut Page, page: &FetchedPage) -> Vec<String> {
    let mut shown = Vec::new();
    if page.highlights.is_empty() {
        return shown;
    }
    let floor = out.remaining() / 2;
    out.push("highlights:");
    for h in &page.highlights {
        let text = clip_chars(&h.text, 600);
        if out.remaining() <= floor || !out.push(&format!("- \"{text}\"")) {
            break;
        }
        shown.push(text);
    }
    shown
}
