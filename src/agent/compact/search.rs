//! The compact `search` answer: ranked results with title, URL, snippet
//! and a one-line why, within a token budget.

use ferret_core::{EngineStatus, SearchResponse, SearchResult};
use serde::Serialize;

use super::{Page, clip_chars, estimate_tokens};

/// One result as the compact answer shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactResult {
    /// 1-based rank.
    pub rank: usize,
    /// The title.
    pub title: String,
    /// The URL as the engine gave it (the canonical form only serves to
    /// merge duplicates).
    pub url: String,
    /// The snippet, cut to fit.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub snippet: String,
    /// Why it ranks here, in one line.
    pub why: String,
}

/// The compact `search` answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactSearch {
    /// The query.
    pub query: String,
    /// The results shown.
    pub results: Vec<CompactResult>,
    /// Results left out for the budget.
    pub omitted: usize,
    /// Engines that failed, with their reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_engines: Vec<String>,
    /// The rendering.
    pub text: String,
}

/// The longest snippet a compact result shows, in characters.
const SNIPPET_CHARS: usize = 300;
/// Tokens kept free for the closing lines (failed engines, omissions).
const FOOTER_TOKENS: usize = 60;

/// Render `response` within `budget` estimated tokens.
pub fn render(response: &SearchResponse, budget: usize) -> CompactSearch {
    let failed = failed_engines(response);
    let mut page = Page::new(budget.saturating_sub(FOOTER_TOKENS.min(budget / 4)));
    page.push(&header(response));
    let mut shown = Vec::new();
    for (i, result) in response.results.iter().enumerate() {
        let entry = entry(i + 1, result);
        let fitted = if i == 0 {
            fit_first(&mut page, &entry)
        } else {
            fit(&mut page, &entry)
        };
        match fitted {
            Some(e) => shown.push(e),
            None => break,
        }
    }
    let omitted = response.results.len() - shown.len();
    let mut page = reopen(page, budget);
    if !failed.is_empty() {
        page.push(&clip_chars(
            &format!("engines failed: {}", failed.join("; ")),
            200,
        ));
    }
    if omitted > 0 {
        page.push(&format!(
            "{omitted} more result(s) left out for the budget (detail: \"full\" has them all)"
        ));
    }
    CompactSearch {
        query: response.query.clone(),
        results: shown,
        omitted,
        failed_engines: failed,
        text: page.into_text(),
    }
}

/// The same page with the footer's reserve given back.
fn reopen(page: Page, budget: usize) -> Page {
    let mut whole = Page::new(budget);
    let text = page.into_text();
    if !text.is_empty() {
        whole.push_always(&text);
    }
    whole
}

fn header(r: &SearchResponse) -> String {
    let answered = r
        .engines
        .iter()
        .filter(|e| e.status == EngineStatus::Ok)
        .count();
    format!(
        "search: {} — {} result(s); {answered}/{} engine(s) answered{}",
        clip_chars(&r.query, 160),
        r.results.len(),
        r.engines.len(),
        if r.deadline_hit { "; deadline hit" } else { "" }
    )
}

fn entry(rank: usize, r: &SearchResult) -> CompactResult {
    CompactResult {
        rank,
        title: clip_chars(r.title.as_str(), 160),
        url: if r.original_url.is_empty() {
            r.url.clone()
        } else {
            r.original_url.to_string()
        },
        snippet: clip_chars(r.snippet.as_str(), SNIPPET_CHARS),
        why: why(r),
    }
}

/// Which engines found it and at what rank, when it was published, its
/// flags and its score.
pub fn why(r: &SearchResult) -> String {
    // Best rank per engine, in the order the engines first appear.
    let mut best: Vec<(&str, u32)> = Vec::new();
    for s in &r.sources {
        match best.iter_mut().find(|(e, _)| *e == &*s.engine) {
            Some((_, rank)) => *rank = (*rank).min(s.rank),
            None => best.push((&s.engine, s.rank)),
        }
    }
    let mut found: Vec<String> = best
        .iter()
        .take(3)
        .map(|(e, rank)| format!("{e} #{rank}"))
        .collect();
    if best.len() > 3 {
        found.push(format!("+{} more", best.len() - 3));
    }
    let mut parts = vec![format!("found by {}", found.join(", "))];
    if let Some(date) = &r.published_at {
        parts.push(format!("published {}", date.get(..10).unwrap_or(date)));
    }
    if !r.flags.is_empty() {
        parts.push(r.flags.join(" "));
    }
    parts.push(format!("score {:.2}", r.scores.final_score));
    parts.join("; ")
}

fn block(e: &CompactResult) -> String {
    let mut out = format!("{}. {}\n   {}", e.rank, e.title, e.url);
    if !e.snippet.is_empty() {
        out.push_str(&format!("\n   {}", e.snippet));
    }
    out.push_str(&format!("\n   why: {}", e.why));
    out
}

/// The entry whole, else without its snippet; `None` when neither fits.
fn fit(page: &mut Page, e: &CompactResult) -> Option<CompactResult> {
    if page.push(&block(e)) {
        return Some(e.clone());
    }
    let bare = CompactResult {
        snippet: String::new(),
        ..e.clone()
    };
    page.push(&block(&bare)).then_some(bare)
}

/// The top result is always shown: whole, without its snippet, with its
/// title cut, or as its URL alone.
fn fit_first(page: &mut Page, e: &CompactResult) -> Option<CompactResult> {
    if let Some(fitted) = fit(page, e) {
        return Some(fitted);
    }
    let url_line = format!("1. {}", e.url);
    let room = page
        .remaining()
        .saturating_sub(estimate_tokens(&url_line) + 2);
    let title = super::clip_to_tokens(&e.title, room);
    let shown = CompactResult {
        title,
        snippet: String::new(),
        why: String::new(),
        ..e.clone()
    };
    if shown.title.is_empty() || !page.push(&format!("1. {}\n   {}", shown.title, e.url)) {
        page.push_always(&url_line);
    }
    Some(shown)
}

fn failed_engines(r: &SearchResponse) -> Vec<String> {
    r.engines
        .iter()
        .filter(|e| !matches!(e.status, EngineStatus::Ok | EngineStatus::Skipped))
        .map(|e| {
            let status = match e.status {
                EngineStatus::Timeout => "timeout",
                EngineStatus::CircuitOpen => "circuit open",
                _ => "failed",
            };
            let why = e.message.as_deref().unwrap_or(status);
            format!("{} ({})", e.name, clip_chars(why, 80))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::inputs::{MAX_MAX_TOKENS, MIN_MAX_TOKENS};
    use proptest::prelude::*;
    use std::sync::OnceLock;

    /// A real response from a real search, whose results the cases replace.
    fn template() -> &'static SearchResponse {
        static TEMPLATE: OnceLock<SearchResponse> = OnceLock::new();
        TEMPLATE.get_or_init(|| {
            let ferret = crate::Ferret::builder()
                .engine(ferret_core::testing::StaticEngine::new("static", 3))
                .build()
                .unwrap();
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime
                .block_on(ferret.search("budget", &ferret_core::search::SearchOptions::new()))
                .unwrap()
        })
    }

    fn response(rows: &[(String, String, String)]) -> SearchResponse {
        let mut r = template().clone();
        let model = r.results[0].clone();
        r.results = rows
            .iter()
            .map(|(url, title, snippet)| {
                let mut one = model.clone();
                one.url = url.clone();
                one.original_url = url.as_str().into();
                one.title = title.as_str().into();
                one.snippet = snippet.as_str().into();
                one
            })
            .collect();
        r
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn the_answer_fits_its_budget_and_keeps_the_top_url(
            rows in proptest::collection::vec(
                ("https://[a-z]{1,20}\\.example/[a-z0-9/]{0,300}", "\\PC{0,300}", "\\PC{0,1200}"),
                1..40,
            ),
            budget in MIN_MAX_TOKENS..6_000usize,
        ) {
            let r = response(&rows);
            let out = render(&r, budget.min(MAX_MAX_TOKENS));
            prop_assert!(estimate_tokens(&out.text) <= budget, "{} > {budget}", estimate_tokens(&out.text));
            prop_assert!(out.text.contains(&rows[0].0));
            prop_assert_eq!(out.results[0].url.as_str(), rows[0].0.as_str());
            prop_assert_eq!(out.results.len() + out.omitted, rows.len());
        }
    }

    #[test]
    fn a_small_budget_leaves_results_out_and_says_so() {
        let rows: Vec<_> = (0..30)
            .map(|i| {
                (
                    format!("https://r{i}.example/a"),
                    format!("Title {i}"),
                    "word ".repeat(60),
                )
            })
            .collect();
        let out = render(&response(&rows), MIN_MAX_TOKENS);
        assert!(out.omitted > 0);
        assert!(out.text.contains("left out for the budget"), "{}", out.text);
    }
}
