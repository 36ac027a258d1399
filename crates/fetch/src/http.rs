//! The plain-HTTP step: one GET with redirects followed by hand (each hop
//! checked by the URL guard), the body read as a stream up to a byte cap,
//! the whole exchange under one time budget.

use std::collections::HashMap;
use std::error::Error as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use ferret_core::guard::{GuardError, UrlGuard};
use ferret_core::politeness::{HostLimiter, HostPermit, ProxyConfig, parse_retry_after};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue, LOCATION, USER_AGENT};
use tokio::time::Instant;
use url::Url;

use super::Config;
use super::error::FetchError;
use super::resolver::GuardedResolver;

/// `Accept` for pages.
pub(crate) const ACCEPT_HTML: &str =
    "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5";
/// `Accept` for JSON APIs.
pub(crate) const ACCEPT_JSON: &str = "application/json";
/// `Accept` for Atom / XML APIs.
pub(crate) const ACCEPT_XML: &str = "application/atom+xml,application/xml;q=0.9,*/*;q=0.5";
/// `Accept` for raw files.
pub(crate) const ACCEPT_ANY: &str = "*/*";

/// The client every step shares, with what a request is checked against
/// before it is sent.
#[derive(Debug, Clone)]
pub(crate) struct Client {
    inner: reqwest::Client,
    /// The configured proxy: a proxied request's target is not resolved
    /// by the client's resolver, so Ferret resolves and judges it first.
    proxy: Option<ProxyConfig>,
    /// The host pins ([`super::FetcherBuilder::resolve`]).
    resolve: HashMap<String, Vec<SocketAddr>>,
    /// Per-host concurrency and rate ([`super::FetcherBuilder::host_limiter`]).
    limiter: Option<HostLimiter>,
}

/// The client every step shares: no automatic redirects, only the
/// configured proxy (its own `NO_PROXY` matching decides per target), the
/// guarded resolver, the fetch timeout per request.
pub(crate) fn build_client(config: &Config) -> Result<Client, FetchError> {
    let direct = config
        .proxy
        .as_ref()
        .map(ProxyConfig::proxy_hosts)
        .unwrap_or_default();
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(config.timeout)
        .connect_timeout(config.timeout.min(Duration::from_secs(10)))
        .user_agent(config.user_agent.clone())
        .dns_resolver(Arc::new(
            GuardedResolver::new(config.guard.clone(), config.resolve.clone()).direct(direct),
        ));
    if let Some(proxy) = config.proxy.clone() {
        builder = builder.proxy(reqwest::Proxy::custom(move |target| {
            proxy.proxy_for(target).cloned()
        }));
    }
    let inner = builder.build().map_err(|e| FetchError::Client {
        detail: error_chain(&e),
    })?;
    Ok(Client {
        inner,
        proxy: config.proxy.clone(),
        resolve: config.resolve.clone(),
        limiter: config.host_limiter.clone(),
    })
}

impl Client {
    /// The check a proxied request needs before it is sent: in strict mode
    /// the target's name is resolved (or its pin taken) and every address
    /// judged, because the proxy — not Ferret's resolver — connects to it.
    /// Direct requests are judged by the resolver at connection time.
    async fn check_proxied(&self, guard: &UrlGuard, url: &Url) -> Result<(), GuardError> {
        let proxied = self
            .proxy
            .as_ref()
            .is_some_and(|p| p.proxy_for(url).is_some());
        if !proxied || !guard.is_strict() {
            return Ok(());
        }
        let host = url
            .host_str()
            .unwrap_or_default()
            .trim_end_matches('.')
            .to_ascii_lowercase();
        let pinned = self
            .resolve
            .get(&host)
            .or_else(|| self.resolve.get("*"))
            .cloned();
        let port = url.port_or_known_default().unwrap_or(443);
        guard.addresses_for(url, port, pinned).await.map(|_| ())
    }

    /// Waits for `url`'s host to take the request (the per-host limiter);
    /// a turn that would come after `deadline` is a timeout at once.
    async fn turn(
        &self,
        url: &Url,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Option<HostPermit>, FetchError> {
        let Some(limiter) = &self.limiter else {
            return Ok(None);
        };
        match limiter.acquire_until(url, deadline).await {
            Ok(permit) => Ok(Some(permit)),
            Err(busy) => {
                tracing::debug!(%busy, "host limiter: no turn before the deadline");
                Err(FetchError::Timeout {
                    url: url.to_string(),
                    after: timeout,
                })
            }
        }
    }

    /// A 429 or 503 with `Retry-After` pauses the host in the limiter (at
    /// most the limiter's cap); the pause applied, to report.
    fn honour_retry_after(&self, url: &Url, response: &reqwest::Response) -> Option<Duration> {
        let limiter = self.limiter.as_ref()?;
        if !matches!(response.status().as_u16(), 429 | 503) {
            return None;
        }
        let value = response.headers().get(reqwest::header::RETRY_AFTER)?;
        let wait = parse_retry_after(value.to_str().ok()?, SystemTime::now())?;
        Some(limiter.pause(url, wait, None))
    }
}

/// A `Cache-Control` directive: `None` when absent, `Some(None)` when
/// present without a value, `Some(Some(v))` with one.
pub(crate) fn cache_directive<'a>(cache_control: &'a str, name: &str) -> Option<Option<&'a str>> {
    cache_control.split(',').find_map(|part| {
        let mut kv = part.splitn(2, '=');
        let key = kv.next()?.trim();
        key.eq_ignore_ascii_case(name)
            .then(|| kv.next().map(str::trim))
    })
}

/// A directive's delta-seconds value (`max-age=120`, quoted or not).
pub(crate) fn delta_seconds(value: &str) -> Option<Duration> {
    value
        .trim_matches('"')
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// How a response body can be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContentClass {
    /// HTML or XHTML (also used when the type is missing).
    Html,
    /// XML (feeds, sitemaps): read like HTML.
    Xml,
    /// Plain text, Markdown, CSV and the like.
    Text,
    /// JSON.
    Json,
    /// Images, audio, video, PDFs, archives, binaries.
    Unsupported,
}

impl ContentClass {
    pub(crate) fn of(content_type: Option<&str>) -> Self {
        let Some(ct) = content_type else {
            return ContentClass::Html;
        };
        let mime = ct
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        match mime.as_str() {
            "" | "text/html" | "application/xhtml+xml" => ContentClass::Html,
            "application/json" | "application/ld+json" => ContentClass::Json,
            m if m.ends_with("+json") => ContentClass::Json,
            "application/xml" | "text/xml" => ContentClass::Xml,
            m if m.ends_with("+xml") => ContentClass::Xml,
            "application/javascript"
            | "application/x-javascript"
            | "application/x-sh"
            | "application/toml"
            | "application/yaml"
            | "application/x-yaml" => ContentClass::Text,
            m if m.starts_with("text/") => ContentClass::Text,
            _ => ContentClass::Unsupported,
        }
    }
}

/// One GET.
#[derive(Debug, Clone)]
pub(crate) struct Request<'a> {
    pub(crate) url: Url,
    pub(crate) accept: &'a str,
    pub(crate) user_agent: &'a str,
    pub(crate) bearer: Option<&'a str>,
    pub(crate) body_limit: usize,
    /// Extra headers sent on every hop (the page cache's conditional
    /// `If-None-Match` / `If-Modified-Since`).
    pub(crate) extra_headers: &'a [(&'static str, String)],
}

/// What came back.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub(crate) final_url: Url,
    pub(crate) status: u16,
    pub(crate) content_type: Option<String>,
    pub(crate) body: Vec<u8>,
    /// The body was longer than the cap.
    pub(crate) truncated: bool,
    /// The cap that applied (the PDF cap for a PDF body).
    pub(crate) limit: usize,
    pub(crate) redirects: Vec<String>,
    /// The final response's headers (caching, `Retry-After`).
    pub(crate) headers: reqwest::header::HeaderMap,
    /// The pause a 429/503 `Retry-After` put on the host (capped).
    pub(crate) retry_after: Option<Duration>,
}

/// Fetches `request.url`, following up to `max_redirects` redirects, under
/// `timeout`. The body of an unsupported content type is not read.
pub(crate) async fn get(
    client: &Client,
    guard: &UrlGuard,
    max_redirects: usize,
    timeout: Duration,
    request: Request<'_>,
) -> Result<Response, FetchError> {
    get_document(client, guard, max_redirects, timeout, request, None).await
}

/// [`get`] that also reads a PDF body (by its type, or by its first bytes
/// when the type says nothing), up to `pdf_limit` bytes.
pub(crate) async fn get_document(
    client: &Client,
    guard: &UrlGuard,
    max_redirects: usize,
    timeout: Duration,
    request: Request<'_>,
    pdf_limit: Option<usize>,
) -> Result<Response, FetchError> {
    let start_url = request.url.to_string();
    let deadline = Instant::now() + timeout;
    match tokio::time::timeout(
        timeout,
        get_inner(
            client,
            guard,
            max_redirects,
            (deadline, timeout),
            request,
            pdf_limit,
        ),
    )
    .await
    {
        Ok(result) => result,
        Err(_) => Err(FetchError::Timeout {
            url: start_url,
            after: timeout,
        }),
    }
}

async fn get_inner(
    client: &Client,
    guard: &UrlGuard,
    max_redirects: usize,
    (deadline, timeout): (Instant, Duration),
    request: Request<'_>,
    pdf_limit: Option<usize>,
) -> Result<Response, FetchError> {
    let origin_host = request.url.host_str().map(str::to_owned);
    let mut url = request.url.clone();
    let mut redirects: Vec<String> = Vec::new();
    let mut from: Option<Url> = None;
    loop {
        client
            .check_proxied(guard, &url)
            .await
            .map_err(|error| match &from {
                None => FetchError::Blocked { error },
                Some(from) => FetchError::RedirectBlocked {
                    from: from.to_string(),
                    hop: redirects.len(),
                    error,
                },
            })?;
        let permit = client.turn(&url, deadline, timeout).await?;
        let response = send(
            &client.inner,
            &request,
            &url,
            origin_host.as_deref(),
            timeout,
        )
        .await?;
        let retry_after = client.honour_retry_after(&url, &response);
        if response.status().is_redirection()
            && let Some(location) = response.headers().get(LOCATION)
        {
            let next = redirect_target(
                guard,
                &request.url,
                &url,
                location,
                &redirects,
                max_redirects,
            )?;
            redirects.push(next.to_string());
            from = Some(std::mem::replace(&mut url, next));
            continue;
        }
        let limits = (request.body_limit, pdf_limit);
        let mut read = read_response(response, &url, timeout, limits, redirects).await?;
        read.retry_after = retry_after;
        drop(permit);
        return Ok(read);
    }
}

/// One GET of `url` (a hop of `request`), without following redirects.
async fn send(
    client: &reqwest::Client,
    request: &Request<'_>,
    url: &Url,
    origin_host: Option<&str>,
    timeout: Duration,
) -> Result<reqwest::Response, FetchError> {
    let mut builder = client
        .get(url.clone())
        .header(ACCEPT, request.accept)
        .header(USER_AGENT, request.user_agent);
    for (name, value) in request.extra_headers {
        builder = builder.header(*name, value.as_str());
    }
    // Credentials go only to the host they were meant for.
    if let Some(token) = request.bearer
        && url.host_str() == origin_host
    {
        builder = builder.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    builder
        .send()
        .await
        .map_err(|e| map_reqwest_error(&e, url, timeout))
}

/// Where a redirect from `url` goes, once the guard allows the hop and the
/// chain from `start` is within `max_redirects`.
fn redirect_target(
    guard: &UrlGuard,
    start: &Url,
    url: &Url,
    location: &HeaderValue,
    redirects: &[String],
    max_redirects: usize,
) -> Result<Url, FetchError> {
    let location = location.to_str().map_err(|e| FetchError::InvalidRedirect {
        from: url.to_string(),
        location: String::from_utf8_lossy(location.as_bytes()).into_owned(),
        detail: format!("not visible ASCII: {e}"),
    })?;
    if redirects.len() >= max_redirects {
        let mut chain = redirects.to_vec();
        chain.push(
            url.join(location)
                .map_or_else(|_| location.to_string(), String::from),
        );
        return Err(FetchError::TooManyRedirects {
            url: start.to_string(),
            limit: max_redirects,
            chain,
        });
    }
    guard
        .check_redirect(url, location)
        .map_err(|error| FetchError::RedirectBlocked {
            from: url.to_string(),
            hop: redirects.len() + 1,
            error,
        })
}

/// The final response: its body streamed up to `body_limit` bytes (not
/// read at all for an unsupported content type), a PDF's up to
/// `pdf_limit` when one is given (`limits` is both).
async fn read_response(
    mut response: reqwest::Response,
    url: &Url,
    timeout: Duration,
    (body_limit, pdf_limit): (usize, Option<usize>),
    redirects: Vec<String>,
) -> Result<Response, FetchError> {
    let status = response.status();
    let headers = response.headers().clone();
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let class = ContentClass::of(content_type.as_deref());
    let mut body = Vec::new();
    let mut truncated = false;
    let mut limit = body_limit;
    let pdf = pdf_limit.and_then(|l| PdfBody::of(content_type.as_deref(), l));
    if class != ContentClass::Unsupported || pdf.is_some() {
        if let Some(len) = response.content_length() {
            body.reserve((len as usize).min(body_limit));
        }
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| map_reqwest_error(&e, url, timeout))?
        {
            if body.is_empty()
                && let Some(pdf) = pdf
            {
                match pdf.limit_for(&chunk, class, body_limit) {
                    Some(l) => limit = l,
                    None => break,
                }
            }
            let room = limit - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
    }
    Ok(Response {
        final_url: response.url().clone(),
        status: status.as_u16(),
        content_type,
        body,
        truncated,
        limit,
        redirects,
        headers,
        retry_after: None,
    })
}

/// How a body that may be a PDF is read: the PDF cap once its type or
/// its first bytes say PDF.
#[derive(Debug, Clone, Copy)]
struct PdfBody {
    limit: usize,
    /// The type says PDF.
    declared: bool,
}

impl PdfBody {
    /// `Some` when a body of `content_type` may be a PDF: its type says so,
    /// says nothing, or is readable (a PDF served as `text/html`).
    fn of(content_type: Option<&str>, limit: usize) -> Option<Self> {
        let declared = super::pdf::is_pdf_type(content_type);
        let readable = ContentClass::of(content_type) != ContentClass::Unsupported;
        (declared || readable || super::pdf::is_opaque_type(content_type))
            .then_some(PdfBody { limit, declared })
    }

    /// The cap for a body starting with `first`: the PDF cap for a PDF,
    /// `body_limit` for a readable body, `None` (read no further) for an
    /// opaque body that is not a PDF.
    fn limit_for(self, first: &[u8], class: ContentClass, body_limit: usize) -> Option<usize> {
        if self.declared || super::pdf::has_pdf_magic(first) {
            return Some(self.limit);
        }
        (class != ContentClass::Unsupported).then_some(body_limit)
    }
}

/// A reqwest error as a [`FetchError`]: timeouts, guard refusals from the
/// resolver (strict mode), and transport failures with their whole cause
/// chain.
fn map_reqwest_error(e: &reqwest::Error, url: &Url, timeout: Duration) -> FetchError {
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(guard) = s.downcast_ref::<GuardError>() {
            return FetchError::Blocked {
                error: GuardError {
                    url: url.to_string(),
                    ..guard.clone()
                },
            };
        }
        source = s.source();
    }
    if e.is_timeout() {
        return FetchError::Timeout {
            url: url.to_string(),
            after: timeout,
        };
    }
    FetchError::Transport {
        url: url.to_string(),
        detail: error_chain(e),
    }
}

/// An error and its causes, joined with `: `.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let msg = s.to_string();
        if !out.contains(&msg) {
            out.push_str(": ");
            out.push_str(&msg);
        }
        source = s.source();
    }
    out
}
