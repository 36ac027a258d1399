//! [`fetch_refs`]: the references of a live GitHub thread — its REST API
//! first (issue, comments, timeline), the page's HTML when the API cannot
//! be read — through the [`Fetcher`]'s guard, limits and GitHub token.

use url::Url;

use super::{ApiThread, RefsError, ThreadRefs, parse_thread_url, refs_from_api, refs_from_html};
use crate::endpoints::Api;
use crate::{FetchOptions, Fetcher};

/// Why the references of a URL could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FetchRefsError {
    /// The URL is not a thread, or its content has no thread shape.
    #[error(transparent)]
    Refs(#[from] RefsError),
    /// Neither the API nor the page could be fetched.
    #[error("could not fetch {url}: {detail}")]
    Fetch {
        /// The thread's URL.
        url: String,
        /// What failed (the API's error, then the page's).
        detail: String,
    },
}

/// The references of the GitHub issue or pull request at `url`: the REST
/// API's issue, comments (first 100) and timeline (first 100; a timeline
/// that cannot be read is a warning), else the issue page's HTML.
pub async fn fetch_refs(fetcher: &Fetcher, url: &str) -> Result<ThreadRefs, FetchRefsError> {
    let thread = parse_thread_url(url).ok_or_else(|| RefsError::NotAThread(url.to_string()))?;
    let api = Api::new(fetcher);
    let base = format!(
        "{}/repos/{}/{}/issues/{}",
        api.endpoints().github_api.trim_end_matches('/'),
        thread.owner,
        thread.repo,
        thread.number
    );
    let parse = |s: &str| {
        Url::parse(s).map_err(|e| FetchRefsError::Fetch {
            url: url.to_string(),
            detail: format!("bad API address {s}: {e}"),
        })
    };
    let issue_url = parse(&base)?;
    let api_error = match api.json(&issue_url).await {
        Ok(issue) => {
            let mut warnings = Vec::new();
            let comments = match api
                .json(&parse(&format!("{base}/comments?per_page=100"))?)
                .await
            {
                Ok(serde_json::Value::Array(c)) => c,
                Ok(_) => {
                    warnings.push("the comments answer was not a list; comments skipped".into());
                    Vec::new()
                }
                Err(e) => {
                    warnings.push(format!("comments not read: {e}"));
                    Vec::new()
                }
            };
            let timeline = match api
                .json(&parse(&format!("{base}/timeline?per_page=100"))?)
                .await
            {
                Ok(serde_json::Value::Array(t)) => t,
                Ok(_) => Vec::new(),
                Err(e) => {
                    warnings.push(format!("timeline not read: {e}"));
                    Vec::new()
                }
            };
            let api_thread = ApiThread {
                issue: Some(issue),
                comments,
                timeline,
            };
            let mut refs = refs_from_api(&api_thread, Some(url))?;
            refs.warnings.extend(warnings);
            return Ok(refs);
        }
        Err(e) => e.to_string(),
    };
    let options = FetchOptions {
        include_html: true,
        public_endpoints: false,
        ..FetchOptions::default()
    };
    let page = fetcher
        .fetch(url, &options)
        .await
        .map_err(|e| FetchRefsError::Fetch {
            url: url.to_string(),
            detail: format!("API: {api_error}; page: {e}"),
        })?;
    let parsed = Url::parse(&page.final_url).ok();
    let mut refs = refs_from_html(page.html.as_deref().unwrap_or(""), parsed.as_ref())?;
    refs.warnings.push(format!(
        "read from the page: the API was not available ({api_error})"
    ));
    Ok(refs)
}
