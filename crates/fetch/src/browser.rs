//! The browser step: render the page in a task space of the caller's
//! [`BrowserRuntime`], then read the rendered HTML with the same extraction
//! as HTTP pages.

use std::time::Duration;

use ferret_browser::{BrowserRuntime, RenderOptions, RenderedPage, WaitFor};
use ferret_core::Partition;
use url::Url;

use super::FetchOptions;
use super::document::Reading;
use super::error::FetchError;
use super::page::{Warning, WarningCode};
use crate::verdict::Source;

/// Extra time over the render budget before the call is abandoned (the
/// runtime keeps its own budget; this guards against a stuck runtime).
const OUTER_SLACK: Duration = Duration::from_secs(5);

pub(super) async fn render(
    runtime: &dyn BrowserRuntime,
    space: &str,
    url: &Url,
    timeout: Duration,
    options: &FetchOptions,
) -> Result<Reading, FetchError> {
    let mut page = rendered(runtime, space, url, timeout).await?;
    let source = if page.provenance.search_partition == Partition::Login
        || runtime.partition() == Partition::Login
    {
        Source::BrowserUser
    } else {
        Source::Browser
    };
    let final_url = Url::parse(&page.final_url).unwrap_or_else(|_| url.clone());
    let html = page.html.take();
    let mut reading = read_rendered(html, &page, &final_url, options, source);
    if reading.title.is_none() && !page.title.trim().is_empty() {
        reading.title = Some(page.title.trim().to_string());
    }
    reading.status = page.http_status;
    reading.final_url = final_url.to_string();
    reading.chrome_used = true;
    reading.content_type = Some("text/html".to_string());
    push_render_warnings(&page, &mut reading);
    Ok(reading)
}

/// Renders `url`, abandoning a runtime that overruns its own budget by
/// more than [`OUTER_SLACK`].
async fn rendered(
    runtime: &dyn BrowserRuntime,
    space: &str,
    url: &Url,
    timeout: Duration,
) -> Result<RenderedPage, FetchError> {
    let render_options = RenderOptions {
        wait: WaitFor::settled(),
        timeout: Some(timeout),
        include_html: true,
    };
    let call = runtime.render(space, url.as_str(), &render_options);
    match tokio::time::timeout(timeout + OUTER_SLACK, call).await {
        Err(_) => Err(FetchError::BrowserFailed {
            url: url.to_string(),
            detail: format!(
                "the render did not finish within {} ms",
                (timeout + OUTER_SLACK).as_millis()
            ),
        }),
        Ok(Err(e)) => Err(FetchError::BrowserFailed {
            url: url.to_string(),
            detail: e.to_string(),
        }),
        Ok(Ok(page)) => Ok(page),
    }
}

/// The rendered HTML (`html`, taken out of `page`) read like an HTTP page; without HTML, the page's main
/// text (or its whole body text) and its title.
fn read_rendered(
    html: Option<String>,
    page: &RenderedPage,
    final_url: &Url,
    options: &FetchOptions,
    source: Source,
) -> Reading {
    match html {
        Some(html) if !html.trim().is_empty() => Reading::from_html(
            html,
            Some(final_url),
            options,
            source,
            page.provenance.clone(),
        ),
        _ => {
            let text = if page.main_text.trim().is_empty() {
                page.body_text.clone()
            } else {
                page.main_text.clone()
            };
            let mut r = Reading::from_text(
                text,
                Some(final_url),
                options,
                source,
                page.provenance.clone(),
            );
            r.title = Some(page.title.clone()).filter(|t| !t.trim().is_empty());
            r
        }
    }
}

/// Warnings from the render: the page never settled, or the guard blocked
/// some of its requests (three named).
fn push_render_warnings(page: &RenderedPage, reading: &mut Reading) {
    if !page.wait_satisfied {
        reading.warnings.push(Warning::new(
            WarningCode::BrowserWaitTimedOut,
            "the page did not settle in time; it was read as it was",
        ));
    }
    if !page.blocked.is_empty() {
        let sample: Vec<String> = page
            .blocked
            .iter()
            .take(3)
            .map(|b| format!("{} ({})", b.url, b.reason))
            .collect();
        reading.warnings.push(Warning::new(
            WarningCode::BrowserBlockedRequests,
            format!(
                "the URL guard blocked {} request(s) of the page: {}",
                page.blocked.len(),
                sample.join(", ")
            ),
        ));
    }
}
