//! [`FetchError`]: why a fetch produced no page. A body over the size cap is
//! not an error (it is cut, with a warning).

use std::path::PathBuf;
use std::time::Duration;

use ferret_core::guard::{GuardError, GuardReason};

use super::page::FetchedPage;
use crate::verdict::Verdict;

/// Why a fetch failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL guard refused the URL.
    #[error("{error}")]
    Blocked {
        /// The guard's verdict (reason code, URL, detail, hint).
        error: GuardError,
    },
    /// The URL guard refused a redirect target.
    #[error("redirect {hop} from {from} refused: {error}")]
    RedirectBlocked {
        /// The URL that redirected.
        from: String,
        /// Which hop (1 = the first redirect).
        hop: usize,
        /// The guard's verdict on the target.
        error: GuardError,
    },
    /// More redirects than allowed.
    #[error(
        "{url} redirected more than {limit} times ({}); the site redirects in a loop or too \
         deep — fetch the last URL directly or raise FetcherBuilder::max_redirects",
        chain.join(" -> ")
    )]
    TooManyRedirects {
        /// The URL asked for.
        url: String,
        /// The redirect limit.
        limit: usize,
        /// The hops followed, then the one refused.
        chain: Vec<String>,
    },
    /// A redirect's `Location` header could not be used.
    #[error("redirect from {from} has an unusable Location {location:?}: {detail}")]
    InvalidRedirect {
        /// The URL that redirected.
        from: String,
        /// The header as received.
        location: String,
        /// What is wrong with it.
        detail: String,
    },
    /// The time budget ran out.
    #[error(
        "fetching {url} took longer than {} ms; the server is slow or not answering — retry \
         later or raise FetcherBuilder::timeout",
        after.as_millis()
    )]
    Timeout {
        /// The URL being fetched.
        url: String,
        /// The budget.
        after: Duration,
    },
    /// The server answered with an error status (≥ 400). The page read from
    /// the error response (with its verdict: `auth_required`, `paywall`,
    /// `challenge`, `blocked` …) is kept.
    #[error(
        "{url} answered HTTP {status} (verdict {}); the page is not readable as it stands",
        page.verdict
    )]
    HttpStatus {
        /// The final URL.
        url: String,
        /// The status.
        status: u16,
        /// The page read from the error response.
        page: Box<FetchedPage>,
    },
    /// The connection failed (DNS, refused, TLS, reset …).
    #[error("could not fetch {url}: {detail}; check the address and the network")]
    Transport {
        /// The URL being fetched.
        url: String,
        /// What failed.
        detail: String,
    },
    /// The page needs a browser (mode `required`) and none is available.
    #[error("{url} needs a browser but none is available: {reason}")]
    BrowserUnavailable {
        /// The URL.
        url: String,
        /// Why not (no runtime given, or built without the `browser`
        /// feature).
        reason: String,
    },
    /// The browser could not render the page (mode `required`).
    #[error("the browser could not render {url}: {detail}")]
    BrowserFailed {
        /// The URL.
        url: String,
        /// The runtime's error.
        detail: String,
    },
    /// A local file could not be read.
    #[error("cannot read {}: {detail}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        detail: String,
    },
    /// The site's robots.txt disallows the page for Ferret (see
    /// [`FetcherBuilder::respect_robots`](super::FetcherBuilder::respect_robots)).
    #[error(
        "{url} is disallowed by {robots_url} for Ferret ({rule}); the page was not fetched — \
         a fetch a person asked for may pass --ignore-robots"
    )]
    RobotsDisallowed {
        /// The page asked for.
        url: String,
        /// The robots.txt that was read.
        robots_url: String,
        /// The matched rule (`Disallow: /private/ (User-agent: *)`), or why
        /// the whole site is disallowed (a server error on robots.txt).
        rule: String,
    },
    /// The HTTP client could not be built (TLS initialisation).
    #[error("could not build the HTTP client: {detail}")]
    Client {
        /// What failed.
        detail: String,
    },
}

impl FetchError {
    /// A short snake_case code for the kind of failure.
    pub fn code(&self) -> &'static str {
        match self {
            FetchError::Blocked { .. } => "blocked_by_guard",
            FetchError::RedirectBlocked { .. } => "redirect_blocked_by_guard",
            FetchError::TooManyRedirects { .. } => "too_many_redirects",
            FetchError::InvalidRedirect { .. } => "invalid_redirect",
            FetchError::Timeout { .. } => "timeout",
            FetchError::HttpStatus { .. } => "http_status",
            FetchError::Transport { .. } => "transport",
            FetchError::BrowserUnavailable { .. } => "browser_unavailable",
            FetchError::BrowserFailed { .. } => "browser_failed",
            FetchError::File { .. } => "file",
            FetchError::Client { .. } => "client",
            FetchError::RobotsDisallowed { .. } => "robots_disallowed",
        }
    }

    /// The guard's verdict, for guard refusals.
    pub fn guard_error(&self) -> Option<&GuardError> {
        match self {
            FetchError::Blocked { error } | FetchError::RedirectBlocked { error, .. } => {
                Some(error)
            }
            _ => None,
        }
    }

    /// The page read from an error response, if there is one.
    pub fn page(&self) -> Option<&FetchedPage> {
        match self {
            FetchError::HttpStatus { page, .. } => Some(page),
            _ => None,
        }
    }

    /// Whether retrying later may help (timeouts, transport failures, 429
    /// and 5xx statuses).
    pub fn is_temporary(&self) -> bool {
        match self {
            FetchError::Timeout { .. } | FetchError::Transport { .. } => true,
            FetchError::HttpStatus { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }

    /// The verdict a failed fetch stands for: guard refusals are `blocked`
    /// (`unsupported` for a scheme that is never fetched, `error` for a URL
    /// that does not parse); an error status keeps its page's verdict; a
    /// missing or failing browser in `required` mode is `browser_required`;
    /// a page robots.txt disallows is `robots_disallowed`;
    /// everything else is `error`.
    pub fn verdict(&self) -> Verdict {
        match self {
            FetchError::Blocked { error } | FetchError::RedirectBlocked { error, .. } => {
                match error.reason {
                    GuardReason::SchemeNotAllowed => Verdict::Unsupported,
                    GuardReason::InvalidUrl | GuardReason::MissingHost => Verdict::Error,
                    _ => Verdict::Blocked,
                }
            }
            FetchError::HttpStatus { page, .. } => page.verdict,
            FetchError::BrowserUnavailable { .. } | FetchError::BrowserFailed { .. } => {
                Verdict::BrowserRequired
            }
            FetchError::RobotsDisallowed { .. } => Verdict::RobotsDisallowed,
            _ => Verdict::Error,
        }
    }
}
