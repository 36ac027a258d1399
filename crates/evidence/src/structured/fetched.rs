//! Structured extraction from a URL: fetch the page's HTML with the
//! adaptive fetcher, then extract, failing closed at every step.

use serde_json::Value;

use super::{StructuredOutcome, extract_structured};
use crate::fetch::{BrowserMode, FetchOptions, Fetcher};

/// Fetch `url` (public API endpoints skipped: extraction needs the page's
/// own HTML) and extract data matching `schema`. A refused, failed or
/// unusable fetch is a `fetch_blocked` / `fetch_failed` outcome that names
/// who read the page, never data.
pub async fn extract_from_url(
    fetcher: &Fetcher,
    url: &str,
    schema: &Value,
    browser: BrowserMode,
) -> StructuredOutcome {
    let options = FetchOptions {
        include_html: true,
        public_endpoints: false,
        browser: Some(browser),
        ..FetchOptions::default()
    };
    match fetcher.fetch(url, &options).await {
        Ok(page) if !page.ok => StructuredOutcome::fetch_blocked(
            Some(url),
            format!("{}: {}", page.verdict.as_str(), page.verdict_reason),
        )
        .read_by(page.provenance),
        Ok(page) => {
            let parsed = url::Url::parse(&page.final_url).ok();
            let html = page.html.as_deref().unwrap_or_default();
            extract_structured(html, parsed.as_ref(), schema).read_by(page.provenance)
        }
        Err(e) => {
            let read = e.page().map(|p| p.provenance.clone());
            let outcome = if e.page().is_some_and(|p| !p.ok) {
                StructuredOutcome::fetch_blocked(Some(url), e.to_string())
            } else {
                StructuredOutcome::fetch_failed(Some(url), e.to_string())
            };
            match read {
                Some(p) => outcome.read_by(p),
                None => outcome,
            }
        }
    }
}
