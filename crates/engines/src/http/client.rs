//! [`HttpClient`]: the one reqwest setup every adapter uses, and
//! [`Fetched`], a finished exchange with its capped body.

use std::time::Duration;

use ferret_core::EngineError;
use ferret_core::politeness::{HostLimiter, ProxyConfig};
use reqwest::header::{self, HeaderMap};
use reqwest::redirect;
use serde::de::DeserializeOwned;
use url::Url;

use super::status::{Service, excerpt};

/// A configured HTTP client. Cheap to clone (the connection pool is shared).
///
/// ```
/// use std::time::Duration;
/// use ferret_engines::http::HttpClient;
///
/// let client = HttpClient::builder()
///     .timeout(Duration::from_secs(10))
///     .body_limit(1 << 20)
///     .build()
///     .unwrap();
/// assert_eq!(client.body_limit(), 1 << 20);
/// ```
#[derive(Debug, Clone)]
pub struct HttpClient {
    client: reqwest::Client,
    timeout: Duration,
    body_limit: usize,
    limiter: Option<HostLimiter>,
}

/// Options for [`HttpClient`]; see [`HttpClient::builder`].
#[derive(Debug, Clone)]
pub struct HttpClientBuilder {
    user_agent: String,
    connect_timeout: Duration,
    timeout: Duration,
    body_limit: usize,
    max_redirects: usize,
    accept_language: Option<String>,
    proxy: Option<ProxyConfig>,
    limiter: Option<HostLimiter>,
}

impl Default for HttpClientBuilder {
    fn default() -> Self {
        HttpClientBuilder {
            user_agent: HttpClient::DEFAULT_USER_AGENT.to_string(),
            connect_timeout: HttpClient::DEFAULT_CONNECT_TIMEOUT,
            timeout: HttpClient::DEFAULT_TIMEOUT,
            body_limit: HttpClient::DEFAULT_BODY_LIMIT,
            max_redirects: HttpClient::DEFAULT_MAX_REDIRECTS,
            accept_language: None,
            proxy: ferret_core::politeness::default_proxy(),
            limiter: None,
        }
    }
}

impl HttpClientBuilder {
    /// The `User-Agent` header (default [`HttpClient::DEFAULT_USER_AGENT`]).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// The most a TCP/TLS connect may take (default 5 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The budget of a whole exchange: connect, headers and the full body
    /// (default 20 s). A body that drips in slower than this times out.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most body bytes kept (after decompression; default 4 MiB).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes.max(1);
        self
    }

    /// How many redirect hops to follow (default 5). Hops must stay on the
    /// same site as the first URL (same host, or same last two DNS labels);
    /// others are refused, so a configured endpoint cannot bounce a call to
    /// an unrelated or internal host.
    pub fn max_redirects(mut self, hops: usize) -> Self {
        self.max_redirects = hops;
        self
    }

    /// A default `Accept-Language` header (none by default).
    pub fn accept_language(mut self, value: impl Into<String>) -> Self {
        self.accept_language = Some(value.into());
        self
    }

    /// The proxy calls go through (`None`: direct). Default: the
    /// process-wide one ([`ferret_core::politeness::set_process_proxy`]),
    /// else the environment's (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`,
    /// `NO_PROXY`, also in lower case); http, https and socks5 proxies.
    pub fn proxy(mut self, proxy: Option<ProxyConfig>) -> Self {
        self.proxy = proxy;
        self
    }

    /// The per-host limiter every call waits on (default none; the
    /// scraped engines — Bing, DuckDuckGo — get the process-wide
    /// [`HostLimiter::global`] the fetcher shares). A 429 or 503 with
    /// `Retry-After` pauses the host (capped at 60 s); a call whose turn
    /// would come after its budget fails at once as a timeout.
    pub fn host_limiter(mut self, limiter: Option<HostLimiter>) -> Self {
        self.limiter = limiter;
        self
    }

    /// Build the client.
    pub fn build(self) -> Result<HttpClient, super::ConfigError> {
        let max = self.max_redirects;
        let policy = redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > max {
                let msg = format!("more than {max} redirects");
                return attempt.error(msg);
            }
            let next = attempt.url().clone();
            match attempt.previous().first() {
                Some(first) if !same_site(first, &next) => {
                    let msg = format!(
                        "redirect from {} to another site ({next}) refused",
                        first.host_str().unwrap_or("?")
                    );
                    attempt.error(msg)
                }
                _ => attempt.follow(),
            }
        });
        let mut headers = HeaderMap::new();
        if let Some(lang) = &self.accept_language {
            let value = header::HeaderValue::from_str(lang).map_err(|_| {
                super::ConfigError::InvalidOption(format!(
                    "Accept-Language {lang:?} is not a valid header value"
                ))
            })?;
            headers.insert(header::ACCEPT_LANGUAGE, value);
        }
        // Only the configured proxy, matched by Ferret's own NO_PROXY rules.
        let mut builder = reqwest::Client::builder().no_proxy();
        if let Some(proxy) = self.proxy.clone() {
            builder = builder.proxy(reqwest::Proxy::custom(move |target| {
                proxy.proxy_for(target).cloned()
            }));
        }
        let client = builder
            .user_agent(self.user_agent.clone())
            .connect_timeout(self.connect_timeout)
            .redirect(policy)
            .default_headers(headers)
            .gzip(true)
            .brotli(true)
            .build()
            .map_err(|e| super::ConfigError::Client(error_chain(&e)))?;
        Ok(HttpClient {
            client,
            timeout: self.timeout,
            body_limit: self.body_limit,
            limiter: self.limiter,
        })
    }
}

/// Whether a redirect from `from` to `to` stays on the same site.
fn same_site(from: &Url, to: &Url) -> bool {
    if !matches!(to.scheme(), "http" | "https") {
        return false;
    }
    let (Some(a), Some(b)) = (from.host(), to.host()) else {
        return false;
    };
    match (a, b) {
        (url::Host::Domain(a), url::Host::Domain(b)) => {
            let a = a.to_ascii_lowercase();
            let b = b.to_ascii_lowercase();
            a == b || last_two_labels(&a) == last_two_labels(&b)
        }
        (a, b) => a == b,
    }
}

fn last_two_labels(host: &str) -> &str {
    let host = host.trim_end_matches('.');
    match host.rmatch_indices('.').nth(1) {
        Some((i, _)) => &host[i + 1..],
        None => host,
    }
}

impl HttpClient {
    /// The default `User-Agent`: names Ferret and its version.
    pub const DEFAULT_USER_AGENT: &'static str = concat!(
        "ferret/",
        env!("CARGO_PKG_VERSION"),
        " (+https://github.com/ferret-search/ferret)"
    );
    /// A desktop-browser `User-Agent`, for result pages that serve other
    /// markup to unknown clients (the scrapers' default).
    pub const BROWSER_USER_AGENT: &'static str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
    /// Default connect timeout.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
    /// Default budget of a whole exchange.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
    /// Default body cap for API responses: 4 MiB.
    pub const DEFAULT_BODY_LIMIT: usize = 4 << 20;
    /// Default redirect hops.
    pub const DEFAULT_MAX_REDIRECTS: usize = 5;

    /// A builder with the defaults above.
    pub fn builder() -> HttpClientBuilder {
        HttpClientBuilder::default()
    }

    /// The budget of a whole exchange.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The body cap in bytes.
    pub fn body_limit(&self) -> usize {
        self.body_limit
    }

    /// The per-host limiter calls wait on, if any.
    pub fn host_limiter(&self) -> Option<&HostLimiter> {
        self.limiter.as_ref()
    }

    /// The same client (same pool) with another per-host limiter.
    pub fn with_host_limiter(&self, limiter: Option<HostLimiter>) -> HttpClient {
        HttpClient {
            limiter,
            ..self.clone()
        }
    }

    /// The same client (same pool) with another exchange budget.
    pub fn with_timeout(&self, timeout: Duration) -> HttpClient {
        HttpClient {
            timeout,
            ..self.clone()
        }
    }

    /// The same client (same pool) with another body cap.
    pub fn with_body_limit(&self, bytes: usize) -> HttpClient {
        HttpClient {
            body_limit: bytes.max(1),
            ..self.clone()
        }
    }

    /// Start a GET request.
    pub fn get(&self, url: Url) -> reqwest::RequestBuilder {
        self.client.get(url)
    }

    /// Start a POST request.
    pub fn post(&self, url: Url) -> reqwest::RequestBuilder {
        self.client.post(url)
    }

    /// Send `request` and read its body (up to the cap), all within the
    /// client's time budget. Transport failures become typed errors (see the
    /// module docs); HTTP error statuses do not — pass the result to
    /// [`super::status::check`].
    pub async fn send(&self, request: reqwest::RequestBuilder) -> Result<Fetched, EngineError> {
        let budget = self.timeout;
        let deadline = tokio::time::Instant::now() + budget;
        match tokio::time::timeout(budget, self.exchange(request, deadline)).await {
            Ok(result) => result,
            Err(_) => Err(EngineError::Timeout { after: budget }),
        }
    }

    /// Sends `request` once the per-host limiter gives it a turn (a turn
    /// past `deadline` is a timeout at once); a 429/503 `Retry-After`
    /// pauses the host.
    async fn send_limited(
        &self,
        request: reqwest::RequestBuilder,
        deadline: tokio::time::Instant,
    ) -> Result<reqwest::Response, EngineError> {
        let Some(limiter) = &self.limiter else {
            return request
                .send()
                .await
                .map_err(|e| request_error(&e, self.timeout));
        };
        let (client, request) = request.build_split();
        let request = request.map_err(|e| request_error(&e, self.timeout))?;
        let url = request.url().clone();
        let _turn =
            limiter
                .acquire_until(&url, deadline)
                .await
                .map_err(|_| EngineError::Timeout {
                    after: self.timeout,
                })?;
        let response = client
            .execute(request)
            .await
            .map_err(|e| request_error(&e, self.timeout))?;
        if matches!(response.status().as_u16(), 429 | 503)
            && let Some(wait) =
                super::status::retry_after(response.headers(), std::time::SystemTime::now())
        {
            limiter.pause(&url, wait, None);
        }
        Ok(response)
    }

    async fn exchange(
        &self,
        request: reqwest::RequestBuilder,
        deadline: tokio::time::Instant,
    ) -> Result<Fetched, EngineError> {
        let mut response = self.send_limited(request, deadline).await?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let url = response.url().clone();
        let limit = self.body_limit;
        let initial = response
            .content_length()
            .map_or(8 * 1024, |n| n as usize)
            .min(limit);
        let mut body: Vec<u8> = Vec::with_capacity(initial);
        let mut truncated = false;
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) if e.is_timeout() => {
                    return Err(EngineError::Timeout {
                        after: self.timeout,
                    });
                }
                Err(e) => {
                    return Err(EngineError::transport(format!(
                        "the connection to {} broke after {} body bytes ({}); the response was \
                         incomplete, trying again may work",
                        url.host_str().unwrap_or("the server"),
                        body.len(),
                        error_chain(&e)
                    )));
                }
            };
            let room = limit - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        // Dropping `response` here closes a connection whose body was cut off.
        Ok(Fetched {
            status,
            headers,
            url,
            body,
            truncated,
            limit,
        })
    }
}

fn request_error(e: &reqwest::Error, budget: Duration) -> EngineError {
    let host = e
        .url()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| "the server".to_string());
    let detail = error_chain(e);
    if e.is_timeout() {
        EngineError::Timeout { after: budget }
    } else if e.is_redirect() {
        EngineError::Transport {
            message: format!("{detail}; point the base URL at the final address"),
            temporary: false,
        }
    } else if e.is_connect() {
        EngineError::transport(format!(
            "could not connect to {host}: {detail}; check that the service is up and the base \
             URL is right"
        ))
    } else if e.is_builder() {
        EngineError::Transport {
            message: format!("could not build the request: {detail}"),
            temporary: false,
        }
    } else {
        EngineError::transport(format!("request to {host} failed: {detail}"))
    }
}

/// An error and all its sources, joined with `: ` (reqwest's own message
/// hides the cause).
pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// A finished HTTP exchange: status, headers, final URL and the body read
/// up to the client's cap.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The HTTP status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The URL that answered (after redirects).
    pub url: Url,
    /// The body, at most `limit` bytes.
    pub body: Vec<u8>,
    /// Whether the body was cut off at the cap.
    pub truncated: bool,
    /// The cap that applied.
    pub limit: usize,
}

impl Fetched {
    /// A header's value as text, when present and valid.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
    }

    /// Whether the body looks like HTML (by `Content-Type`, or by its first
    /// non-blank character when the type is missing).
    pub fn is_html(&self) -> bool {
        match self.header("content-type") {
            Some(ct) => ct.to_ascii_lowercase().contains("html"),
            None => self
                .body
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|b| *b == b'<'),
        }
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Decode the body as JSON. A body cut off at the cap, or one that is
    /// not the expected JSON, is [`EngineError::Parse`].
    pub fn json<T: DeserializeOwned>(&self, service: &Service) -> Result<T, EngineError> {
        if self.truncated {
            return Err(self.cap_error(service));
        }
        serde_json::from_slice(&self.body).map_err(|e| {
            EngineError::parse(format!(
                "{} sent a body that is not the expected JSON ({e}); it starts: {}",
                service.display,
                excerpt(&self.body, 160)
            ))
        })
    }

    /// The error for a body that exceeded the cap.
    pub fn cap_error(&self, service: &Service) -> EngineError {
        EngineError::parse(format!(
            "{} sent more than {} bytes; the body was cut off at the cap and not parsed (raise \
             the cap with the builder's body_limit if this service really answers that much)",
            service.display, self.limit
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn redirects_stay_on_the_same_site() {
        assert!(same_site(
            &u("https://www.bing.com/search"),
            &u("https://cn.bing.com/search")
        ));
        assert!(same_site(
            &u("http://127.0.0.1:8080/a"),
            &u("http://127.0.0.1:8080/b")
        ));
        assert!(!same_site(
            &u("https://api.exa.ai/search"),
            &u("http://169.254.169.254/latest")
        ));
        assert!(!same_site(
            &u("https://api.exa.ai/search"),
            &u("https://evil.example/search")
        ));
        assert!(!same_site(
            &u("https://api.exa.ai/search"),
            &u("file:///etc/passwd")
        ));
    }

    #[test]
    fn last_two_labels_of_hosts() {
        assert_eq!(last_two_labels("a.b.example.com"), "example.com");
        assert_eq!(last_two_labels("example.com"), "example.com");
        assert_eq!(last_two_labels("localhost"), "localhost");
    }
}
