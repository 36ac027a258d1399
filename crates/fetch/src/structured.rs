//! Structured extraction from a URL: fetch the page's HTML with the
//! adaptive fetcher, then extract ([`ferret_extract::structured`]), failing
//! closed at every step. Everything of the extraction itself is re-exported
//! here; [`ReadOutcome`] adds who read the page.

use std::ops::Deref;

use ferret_core::Provenance;
pub use ferret_extract::structured::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{BrowserMode, FetchOptions, Fetcher};

/// A [`StructuredOutcome`] and who read the page it comes from: the
/// `ferret.extract.v1` envelope of a fetched page (its JSON is the
/// outcome's fields, then `provenance`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadOutcome {
    /// The extraction.
    #[serde(flatten)]
    pub outcome: StructuredOutcome,
    /// Who read the page the data comes from; `null` only when no page was
    /// read (the fetch failed before any page came back).
    pub provenance: Option<Provenance>,
}

impl ReadOutcome {
    /// `outcome`, read by `provenance` when a page was read.
    pub fn new(outcome: StructuredOutcome, provenance: Option<Provenance>) -> Self {
        ReadOutcome {
            outcome,
            provenance,
        }
    }
}

impl Deref for ReadOutcome {
    type Target = StructuredOutcome;

    fn deref(&self) -> &StructuredOutcome {
        &self.outcome
    }
}

/// Fetch `url` (public API endpoints skipped: extraction needs the page's
/// own HTML) and extract data matching `schema`. A refused, failed or
/// unusable fetch is a `fetch_blocked` / `fetch_failed` outcome that names
/// who read the page, never data.
pub async fn extract_from_url(
    fetcher: &Fetcher,
    url: &str,
    schema: &Value,
    browser: BrowserMode,
) -> ReadOutcome {
    let options = FetchOptions {
        include_html: true,
        public_endpoints: false,
        browser: Some(browser),
        ..FetchOptions::default()
    };
    match fetcher.fetch(url, &options).await {
        Ok(page) if !page.ok => ReadOutcome::new(
            StructuredOutcome::fetch_blocked(
                Some(url),
                format!("{}: {}", page.verdict.as_str(), page.verdict_reason),
            ),
            Some(page.provenance),
        ),
        Ok(page) => {
            let parsed = url::Url::parse(&page.final_url).ok();
            let html = page.html.as_deref().unwrap_or_default();
            let outcome = extract_structured(html, parsed.as_ref(), schema);
            ReadOutcome::new(outcome, Some(page.provenance))
        }
        Err(e) => {
            let read = e.page().map(|p| p.provenance.clone());
            let outcome = if e.page().is_some_and(|p| !p.ok) {
                StructuredOutcome::fetch_blocked(Some(url), e.to_string())
            } else {
                StructuredOutcome::fetch_failed(Some(url), e.to_string())
            };
            ReadOutcome::new(outcome, read)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_is_flat_with_provenance_last() {
        let read = ReadOutcome::new(StructuredOutcome::fetch_failed(None, "timeout"), None);
        let text = serde_json::to_string(&read).unwrap();
        assert!(
            text.starts_with(r#"{"schema":"ferret.extract.v1","verdict":"fetch_failed""#),
            "{text}"
        );
        assert!(text.ends_with(r#","provenance":null}"#), "{text}");
        let back: ReadOutcome = serde_json::from_str(&text).unwrap();
        assert_eq!(back, read);
        assert_eq!(back.reason.as_deref(), Some("timeout"));
    }
}
