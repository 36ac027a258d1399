//! [`ServiceConfig`]: the settings every adapter builder shares (base URL,
//! API key, HTTP client options), and [`ConfigError`].

use std::time::Duration;

use url::Url;

use super::client::HttpClient;

/// A builder option that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The base URL is not an absolute http(s) URL.
    #[error(
        "invalid base URL {url:?}: {reason}; give an absolute http(s) URL such as https://api.example.com"
    )]
    InvalidBaseUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A service with no public default was given no base URL.
    #[error("{service} has no default address; set its base URL ({hint})")]
    MissingBaseUrl {
        /// The service.
        service: &'static str,
        /// Where the URL usually comes from.
        hint: &'static str,
    },
    /// Some other option has an unusable value.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The HTTP client could not be set up (TLS initialisation).
    #[error("could not set up the HTTP client: {0}")]
    Client(String),
}

/// Base URL, API key and HTTP client options, as every adapter builder
/// holds them. Unset options take the adapter's defaults.
#[derive(Debug, Clone, Default)]
pub struct ServiceConfig {
    base_url: Option<String>,
    api_key: Option<String>,
    http: Option<HttpClient>,
    timeout: Option<Duration>,
    body_limit: Option<usize>,
    user_agent: Option<String>,
    host_limiter: Option<ferret_core::politeness::HostLimiter>,
}

/// What an adapter uses for options the caller left unset.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServiceDefaults {
    pub base_url: &'static str,
    pub timeout: Duration,
    pub body_limit: usize,
    pub user_agent: &'static str,
}

impl ServiceDefaults {
    /// Whether the adapter scrapes result pages (it presents a browser's
    /// user agent): such pages are pages, so calls go through the per-host
    /// limiter the fetcher shares.
    fn scrapes_pages(&self) -> bool {
        self.user_agent == HttpClient::BROWSER_USER_AGENT
    }
}

impl ServiceConfig {
    /// Nothing set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The service's base URL (scheme, host, optional port and path prefix).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API key; blank means none.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        let key = key.into();
        self.api_key = (!key.trim().is_empty()).then(|| key.trim().to_string());
        self
    }

    /// Use this HTTP client (its pool is shared); the timeout and body cap
    /// set here, if any, still apply.
    pub fn http_client(mut self, client: HttpClient) -> Self {
        self.http = Some(client);
        self
    }

    /// The budget of one call (connect, headers and body).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The most body bytes read.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = Some(bytes);
        self
    }

    /// The `User-Agent` header (ignored when a client is given).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// The per-host limiter calls wait on (default: the process-wide
    /// [`HostLimiter::global`](ferret_core::politeness::HostLimiter::global)
    /// for the scraped engines, none for API engines).
    pub fn host_limiter(mut self, limiter: ferret_core::politeness::HostLimiter) -> Self {
        self.host_limiter = Some(limiter);
        self
    }

    /// The configured API key.
    pub fn key(&self) -> Option<&str> {
        self.api_key.as_deref()
    }

    /// The configured base URL, if one was set.
    pub fn configured_base(&self) -> Option<&str> {
        self.base_url.as_deref()
    }

    /// The endpoint `path` under the base URL (or `defaults.base_url`).
    pub(crate) fn endpoint(
        &self,
        defaults: &ServiceDefaults,
        path: &str,
    ) -> Result<Url, ConfigError> {
        join_endpoint(self.base_url.as_deref().unwrap_or(defaults.base_url), path)
    }

    /// The HTTP client to use.
    pub(crate) fn client(&self, defaults: &ServiceDefaults) -> Result<HttpClient, ConfigError> {
        let base = match &self.http {
            Some(client) => client.clone(),
            None => HttpClient::builder()
                .user_agent(
                    self.user_agent
                        .clone()
                        .unwrap_or_else(|| defaults.user_agent.to_string()),
                )
                .timeout(defaults.timeout)
                .body_limit(defaults.body_limit)
                .build()?,
        };
        let base = match (&self.host_limiter, defaults.scrapes_pages()) {
            (Some(limiter), _) => base.with_host_limiter(Some(limiter.clone())),
            (None, true) if base.host_limiter().is_none() => {
                base.with_host_limiter(Some(ferret_core::politeness::HostLimiter::global()))
            }
            _ => base,
        };
        let client = match self.timeout {
            Some(t) => base.with_timeout(t),
            None => base,
        };
        Ok(match self.body_limit {
            Some(n) => client.with_body_limit(n),
            None => client,
        })
    }
}

/// `base` with `path` appended, unless `base`'s path already ends with it
/// (so both `https://api.exa.ai` and `https://api.exa.ai/search` work).
/// Query and fragment of `base` are dropped.
pub(crate) fn join_endpoint(base: &str, path: &str) -> Result<Url, ConfigError> {
    let invalid = |reason: &str| ConfigError::InvalidBaseUrl {
        url: base.to_string(),
        reason: reason.to_string(),
    };
    let mut url = Url::parse(base.trim()).map_err(|e| invalid(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("the scheme must be http or https"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(
            "credentials in the URL are not allowed; use the API key option",
        ));
    }
    let wanted = path.trim_matches('/');
    let slash = if path.ends_with('/') && !wanted.is_empty() {
        "/"
    } else {
        ""
    };
    let current = url.path().trim_end_matches('/').to_string();
    let suffix = format!("/{wanted}");
    if wanted.is_empty() {
        url.set_path(if current.is_empty() { "/" } else { &current });
    } else if current.ends_with(&suffix) {
        url.set_path(&format!("{current}{slash}"));
    } else {
        url.set_path(&format!("{current}{suffix}{slash}"));
    }
    url.set_query(None);
    url.set_fragment(None);
    Ok(url)
}

/// Builder setters shared by every adapter (forwarding to its
/// `service: ServiceConfig` field).
macro_rules! common_setters {
    () => {
        /// The service's base URL (default: the public service). Tests
        /// point it at a local server.
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.service = self.service.base_url(url);
            self
        }

        /// Share an [`HttpClient`](crate::http::HttpClient) (its pool);
        /// `timeout`/`body_limit` set here still apply.
        pub fn http_client(mut self, client: crate::http::HttpClient) -> Self {
            self.service = self.service.http_client(client);
            self
        }

        /// The budget of one call: connect, headers and body.
        pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
            self.service = self.service.timeout(timeout);
            self
        }

        /// The most response-body bytes read.
        pub fn body_limit(mut self, bytes: usize) -> Self {
            self.service = self.service.body_limit(bytes);
            self
        }

        /// The `User-Agent` header.
        pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
            self.service = self.service.user_agent(user_agent);
            self
        }

        /// The per-host limiter calls wait on (default: the process-wide
        /// one for the scraped engines, none for API engines).
        pub fn host_limiter(mut self, limiter: ferret_core::politeness::HostLimiter) -> Self {
            self.service = self.service.host_limiter(limiter);
            self
        }
    };
}
pub(crate) use common_setters;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_join_without_doubling() {
        assert_eq!(
            join_endpoint("https://api.exa.ai", "/search")
                .unwrap()
                .as_str(),
            "https://api.exa.ai/search"
        );
        assert_eq!(
            join_endpoint("https://api.exa.ai/search/", "/search")
                .unwrap()
                .as_str(),
            "https://api.exa.ai/search"
        );
        assert_eq!(
            join_endpoint("http://127.0.0.1:8888/searxng", "search")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8888/searxng/search"
        );
        assert_eq!(
            join_endpoint("https://html.duckduckgo.com", "/html/")
                .unwrap()
                .as_str(),
            "https://html.duckduckgo.com/html/"
        );
        assert_eq!(
            join_endpoint("http://127.0.0.1:9/html", "/html/")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9/html/"
        );
        assert_eq!(
            join_endpoint("https://api.x.ai/v1", "chat/completions")
                .unwrap()
                .as_str(),
            "https://api.x.ai/v1/chat/completions"
        );
    }

    #[test]
    fn bad_base_urls_are_config_errors() {
        for bad in [
            "api.exa.ai",
            "ftp://x.example",
            "https://user:pw@x.example",
            "",
        ] {
            let e = join_endpoint(bad, "/search").unwrap_err();
            assert!(
                matches!(e, ConfigError::InvalidBaseUrl { .. }),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn blank_keys_are_no_keys() {
        assert_eq!(ServiceConfig::new().api_key("  ").key(), None);
        assert_eq!(ServiceConfig::new().api_key(" k ").key(), Some("k"));
    }
}
