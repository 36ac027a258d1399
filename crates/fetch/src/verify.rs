//! Verdicts: is a fetched page readable evidence, or a wall?
//!
//! The rules — the score, the markers, the verdict order — are
//! [`crate::verdict`]'s, re-exported here. This module is the report:
//! [`Fetcher::verify`] runs the fetch ladder on one URL and always returns a
//! [`VerifyReport`] (`ferret.verify.v1`): failures are verdicts, never
//! errors.

use ferret_core::Provenance;
use serde::{Deserialize, Serialize};

use crate::safety::SafetyFlag;
pub use crate::verdict::*;
use crate::{Escalation, FetchError, FetchOptions, FetchedPage, Fetcher, Warning, WarningCode};

/// The schema name of [`VerifyReport`].
pub const VERIFY_SCHEMA: &str = "ferret.verify.v1";

/// Characters of normalised text in [`VerifyReport::text_excerpt`].
pub const EXCERPT_CHARS: usize = 1200;

/// The `ferret.verify.v1` envelope: one URL's readability verdict
/// (snake_case names, with the score part by part).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    /// `ferret.verify.v1`.
    pub schema: String,
    /// The URL asked for.
    pub url: String,
    /// Where the page ended up (the URL asked for when nothing was fetched).
    pub final_url: String,
    /// The verdict.
    pub verdict: Verdict,
    /// `strong_ok` or `weak_ok`.
    pub ok: bool,
    /// Which ladder step produced the page; `None` (JSON `"unknown"`) when
    /// none did.
    #[serde(with = "or_unknown")]
    pub source: Option<Source>,
    /// The page title, or `null`.
    pub title: Option<String>,
    /// The first 1200 characters of the whitespace-normalised text.
    pub text_excerpt: String,
    /// What went wrong or was noticed on the way.
    pub warnings: Vec<Warning>,
    /// Whether a browser was used.
    pub chrome_used: bool,
    /// The score, part by part.
    pub score: ScoreBreakdown,
    /// The markers found.
    pub markers: Vec<Marker>,
    /// Why this verdict, in a few words.
    pub reason: String,
    /// The final HTTP status, when there was a response.
    pub status: Option<u16>,
    /// How the ladder escalated, if it did.
    pub escalation: Option<Escalation>,
    /// Content-safety flags (prompt injection, hidden text, link farms).
    pub safety: Vec<SafetyFlag>,
    /// Wall time of the whole verification.
    pub elapsed_ms: u64,
    /// Who read the page (for a fetch that read nothing, the step that
    /// tried).
    pub provenance: Provenance,
}

/// The first `max` characters of `text`, whitespace-normalised.
pub fn excerpt(text: &str, max: usize) -> String {
    normalize_whitespace(text).chars().take(max).collect()
}

/// [`excerpt`] of a page's text without an opening line that repeats its
/// title (a document's first line, a page that is only its headline): the
/// title is already shown beside the excerpt.
pub fn page_excerpt(page: &FetchedPage, max: usize) -> String {
    let text = page.text.as_str();
    let body = match (page.title.as_deref(), text.split_once("\n\n")) {
        (Some(title), Some((first, rest))) if first.trim().eq_ignore_ascii_case(title.trim()) => {
            rest
        }
        _ => text,
    };
    excerpt(body, max)
}

impl VerifyReport {
    /// The report for a fetched page.
    pub fn from_page(page: &FetchedPage) -> Self {
        VerifyReport {
            schema: VERIFY_SCHEMA.to_string(),
            url: page.url.clone(),
            final_url: if page.final_url.is_empty() {
                page.url.clone()
            } else {
                page.final_url.clone()
            },
            verdict: page.verdict,
            ok: page.ok,
            source: Some(page.source),
            title: page.title.clone(),
            text_excerpt: page_excerpt(page, EXCERPT_CHARS),
            warnings: page.warnings.clone(),
            chrome_used: page.chrome_used,
            score: page.score.clone(),
            markers: page.markers.clone(),
            reason: page.verdict_reason.clone(),
            status: page.status,
            escalation: page.escalation.clone(),
            safety: page.safety.clone(),
            elapsed_ms: page.elapsed_ms,
            provenance: page.provenance.clone(),
        }
    }

    /// The report for a fetch that failed. A failure that still carries a
    /// page (an HTTP error status) is reported from that page; otherwise
    /// `tried` is the provenance of the step that failed.
    pub fn from_error(url: &str, error: &FetchError, elapsed_ms: u64, tried: Provenance) -> Self {
        if let FetchError::HttpStatus { page, .. } = error {
            let mut report = Self::from_page(page);
            report.elapsed_ms = elapsed_ms;
            return report;
        }
        let verdict = error.verdict();
        VerifyReport {
            schema: VERIFY_SCHEMA.to_string(),
            url: url.to_string(),
            final_url: url.to_string(),
            verdict,
            ok: false,
            source: None,
            title: None,
            text_excerpt: String::new(),
            warnings: vec![Warning::new(WarningCode::FetchFailed, error.to_string())],
            chrome_used: matches!(error, FetchError::BrowserFailed { .. }),
            score: ScoreBreakdown::empty(),
            markers: Vec::new(),
            reason: error.code().to_string(),
            status: None,
            escalation: None,
            safety: Vec::new(),
            elapsed_ms,
            provenance: tried,
        }
    }
}

impl Fetcher {
    /// Fetches `url` through the ladder (browser mode as configured) and
    /// judges it. Never fails: a failed fetch is a verdict (`error`,
    /// `blocked`, `browser_required`, `unsupported`).
    pub async fn verify(&self, url: &str) -> VerifyReport {
        self.verify_with(url, &FetchOptions::default()).await
    }

    /// [`Fetcher::verify`] with options (e.g. a per-call
    /// [`BrowserMode`](crate::BrowserMode)).
    pub async fn verify_with(&self, url: &str, options: &FetchOptions) -> VerifyReport {
        let start = std::time::Instant::now();
        match self.fetch(url, options).await {
            Ok(page) => VerifyReport::from_page(&page),
            Err(e) => VerifyReport::from_error(
                url.trim(),
                &e,
                start.elapsed().as_millis().min(u128::from(u64::MAX)) as u64,
                self.first_step_provenance(options),
            ),
        }
    }
}
