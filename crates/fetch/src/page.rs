//! [`FetchedPage`], the `ferret.fetch.v1` envelope, and its parts.

use std::fmt;

use ferret_core::Provenance;
use serde::{Deserialize, Serialize};

use super::pdf::PdfInfo;
use crate::extract::DecodeInfo;
use crate::highlights::Highlight;
use crate::safety::SafetyFlag;
use crate::verdict::{Marker, ScoreBreakdown, Source, Verdict};

/// The schema name of [`FetchedPage`].
pub const FETCH_SCHEMA: &str = "ferret.fetch.v1";

pub use ferret_core::quality::{Quality, THIN_CHARS};

/// A fetched page: the `ferret.fetch.v1` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FetchedPage {
    /// `ferret.fetch.v1`.
    pub schema: String,
    /// The URL asked for.
    pub url: String,
    /// Where the page ended up (after redirects; the page URL, not the API
    /// URL, for public endpoints).
    pub final_url: String,
    /// HTTP status of the final response (the API's for public endpoints,
    /// the main document's for the browser), when one was seen.
    pub status: Option<u16>,
    /// The response's `Content-Type`.
    pub content_type: Option<String>,
    /// Which ladder step produced this page.
    pub source: Source,
    /// How the ladder got to that step, if not directly.
    pub escalation: Option<Escalation>,
    /// Every step tried, in order.
    pub attempts: Vec<Attempt>,
    /// The redirect hops followed (absolute URLs).
    pub redirects: Vec<String>,
    /// The title.
    pub title: Option<String>,
    /// Author(s).
    pub byline: Option<String>,
    /// Publication date (ISO 8601).
    pub published_at: Option<String>,
    /// Last modification (ISO 8601), when the source says (Wikipedia's last
    /// revision, a repository's last push, a package's last release).
    pub modified_at: Option<String>,
    /// Language tag.
    pub language: Option<String>,
    /// Site name.
    pub site_name: Option<String>,
    /// The main text (focus applied when asked for).
    pub text: String,
    /// The main text as Markdown (empty unless asked for).
    pub markdown: String,
    /// What the focus keyword kept, when one was given.
    pub focus: Option<FocusReport>,
    /// Passages of [`FetchedPage::text`] relevant to
    /// [`FetchOptions::query`](super::FetchOptions::query), best first in
    /// document order (empty without a query).
    pub highlights: Vec<Highlight>,
    /// Thin / login wall / challenge / paywall signals (Chinese and
    /// English words, [`ferret_core::quality`]).
    pub quality: Quality,
    /// Everything noticed on the way (cuts, fallbacks, safety findings).
    pub warnings: Vec<Warning>,
    /// Content-safety findings ([`crate::safety`]).
    pub safety: Vec<SafetyFlag>,
    /// The verdict ([`crate::verify`]).
    pub verdict: Verdict,
    /// `strong_ok` or `weak_ok`.
    pub ok: bool,
    /// The verdict score, part by part.
    pub score: ScoreBreakdown,
    /// Access-boundary markers found (challenge, auth, paywall).
    pub markers: Vec<Marker>,
    /// Why this verdict, in a few words.
    pub verdict_reason: String,
    /// Who read the text: `http` for plain HTTP, `public-endpoint` for a
    /// site's API, `local` for a file, and for the browser the runtime
    /// that actually served the render (`chromium-managed`, or
    /// `chromium-attached`: the user's browser, login data unless it was
    /// declared a public pool).
    pub provenance: Provenance,
    /// Whether a browser produced this page.
    pub chrome_used: bool,
    /// Wall time of the whole fetch.
    pub elapsed_ms: u64,
    /// The body was cut at the byte cap or the text at `max_text_chars`.
    pub truncated: bool,
    /// How the bytes were decoded (HTTP pages).
    pub charset: Option<DecodeInfo>,
    /// The decoded or rendered HTML, when asked for.
    pub html: Option<String>,
    /// How the page cache served the HTTP reading (absent without a page
    /// cache, or when another step's reading won).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<super::cache::CacheStatus>,
    /// For a PDF: its page count, where each page lies in
    /// [`FetchedPage::text`], and why it could not be read, if it could
    /// not (see [`PdfInfo`]). Absent for other pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdf: Option<PdfInfo>,
}

impl FetchedPage {
    /// For a PDF, the page (1-based) holding byte `offset` of
    /// [`FetchedPage::text`] (a highlight's or a quote's `start`), so a
    /// quote can cite `p. N`; `None` for other pages.
    pub fn page_of(&self, offset: usize) -> Option<u32> {
        self.pdf.as_ref().and_then(|pdf| pdf.page_of(offset))
    }

    /// Whether a warning with `code` was recorded.
    pub fn has_warning(&self, code: WarningCode) -> bool {
        self.warnings.iter().any(|w| w.code == code)
    }
}

/// What the focus keyword kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FocusReport {
    /// The keyword.
    pub keyword: String,
    /// Paragraphs with the keyword were kept (false: too few or none, so the
    /// start of the text was kept instead).
    pub matched: bool,
    /// Paragraphs kept.
    pub paragraphs_kept: usize,
    /// Paragraphs in the full text.
    pub paragraphs_total: usize,
}

/// Why the ladder moved on to another step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EscalationReason {
    /// The public endpoint failed (status, parse error, network).
    EndpointFailed,
    /// The public endpoint answered but its text did not read as evidence.
    EndpointNotOk,
    /// The HTTP page is an empty JavaScript shell.
    JsShell,
    /// The HTTP page is a challenge page (or the server said 403).
    Challenge,
    /// The HTTP page reads below `weak_ok`.
    LowQuality,
    /// The HTTP page is a login wall and the browser has the user's session.
    AuthWall,
    /// The HTTP fetch failed (transport error or timeout).
    HttpFailed,
}

impl EscalationReason {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EscalationReason::EndpointFailed => "endpoint_failed",
            EscalationReason::EndpointNotOk => "endpoint_not_ok",
            EscalationReason::JsShell => "js_shell",
            EscalationReason::Challenge => "challenge",
            EscalationReason::LowQuality => "low_quality",
            EscalationReason::AuthWall => "auth_wall",
            EscalationReason::HttpFailed => "http_failed",
        }
    }
}

impl fmt::Display for EscalationReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One move up the ladder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Escalation {
    /// The step that did not suffice.
    pub from: Source,
    /// The step tried next.
    pub to: Source,
    /// Why.
    pub reason: EscalationReason,
    /// The specifics (the verdict, the status, the error).
    pub detail: String,
}

/// How a ladder step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptOutcome {
    /// It produced readable evidence.
    Ok,
    /// It produced a page that does not read as evidence.
    NotOk,
    /// It failed.
    Failed,
}

/// One ladder step tried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// The step.
    pub source: Source,
    /// What it asked for (the API URL for public endpoints).
    pub url: String,
    /// How it went.
    pub outcome: AttemptOutcome,
    /// Its verdict, when it produced a page.
    pub verdict: Option<Verdict>,
    /// The specifics.
    pub detail: String,
    /// How long it took.
    pub elapsed_ms: u64,
    /// Who read (or tried to read) the page at this step.
    pub provenance: Provenance,
}

/// What a warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// The body was longer than the byte cap and was cut.
    BodyTruncated,
    /// The text was cut at `max_text_chars`.
    TextTruncated,
    /// The page nested elements past the parser's depth bound; the deeper
    /// elements were flattened into their ancestor's text.
    DomFlattened,
    /// Some bytes were not valid in the page's encoding and were replaced.
    CharsetErrors,
    /// The public endpoint failed; the ladder went on.
    PublicEndpointFailed,
    /// The public endpoint's text did not read as evidence; the ladder went
    /// on.
    PublicEndpointNotOk,
    /// The HTTP fetch failed; the ladder went on.
    HttpFailed,
    /// The browser step failed; an earlier reading is returned.
    BrowserFailed,
    /// The page needed a browser and none could run.
    BrowserUnavailable,
    /// The browser's wait condition timed out; the page was read as it was.
    BrowserWaitTimedOut,
    /// The browser's URL guard blocked some of the page's requests.
    BrowserBlockedRequests,
    /// The content type cannot be read as text.
    UnsupportedContentType,
    /// The focus keyword matched too little; the start of the text was kept.
    FocusFallback,
    /// A content-safety finding (details in [`FetchedPage::safety`]).
    ContentSafety,
    /// The fetch failed (verify reports only).
    FetchFailed,
    /// Part of a public-endpoint answer could not be read (e.g. a README).
    EndpointPartial,
    /// The page cache could not be read or written; the page was fetched
    /// anyway.
    CacheFailed,
    /// robots.txt disallows the page, so plain HTTP and the browser were
    /// not tried; an earlier reading (a public endpoint's) is returned.
    RobotsDisallowed,
    /// The host answered 429 or 503 with `Retry-After`: the next request
    /// to it waits that long (capped; the detail says how long).
    RetryAfter,
}

/// Something noticed while fetching.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// What it is about.
    pub code: WarningCode,
    /// The specifics.
    pub detail: String,
}

impl Warning {
    /// A warning.
    pub fn new(code: WarningCode, detail: impl Into<String>) -> Self {
        Warning {
            code,
            detail: detail.into(),
        }
    }
}
