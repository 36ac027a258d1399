//! Being a polite client: the proxy every Ferret HTTP client goes through
//! ([`ProxyConfig`]) and the per-host limiter the fetch ladder and the
//! scraped engines share ([`HostLimiter`]). Types only and timing: the
//! HTTP clients that apply them live in `ferret-evidence` and
//! `ferret-engines`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use url::{Host, Url};

/// The proxy environment variables, in the order they are read (each also
/// in lower case): `HTTPS_PROXY` for https targets, `HTTP_PROXY` for http
/// targets, `ALL_PROXY` for either when its own is unset, and `NO_PROXY`.
pub const PROXY_ENV_VARS: [&str; 4] = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"];

/// A proxy setting that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProxyError {
    /// The proxy address does not parse.
    #[error("invalid proxy URL {url:?}: {detail}; give one such as http://proxy.example:3128")]
    InvalidUrl {
        /// The address as given.
        url: String,
        /// Why it does not parse.
        detail: String,
    },
    /// A scheme Ferret cannot speak to a proxy.
    #[error("unsupported proxy scheme in {url:?}: use http, https, socks5 or socks5h")]
    UnsupportedScheme {
        /// The address as given.
        url: String,
    },
}

/// Where requests go through a proxy: one for http targets, one for https
/// targets, and the `NO_PROXY` hosts that go direct. Proxies never change
/// what the URL guard checks: every target and redirect hop is still
/// judged before the request is sent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProxyConfig {
    http: Option<Url>,
    https: Option<Url>,
    no_proxy: Vec<String>,
}

/// A proxy address, checked: http, https, socks5 or socks5h, with a host.
fn proxy_url(raw: &str) -> Result<Url, ProxyError> {
    let raw = raw.trim();
    // `proxy.example:3128` means an HTTP proxy, as curl reads it.
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("http://{raw}")
    };
    let url = Url::parse(&with_scheme).map_err(|e| ProxyError::InvalidUrl {
        url: raw.to_string(),
        detail: e.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https" | "socks5" | "socks5h") {
        return Err(ProxyError::UnsupportedScheme {
            url: raw.to_string(),
        });
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(ProxyError::InvalidUrl {
            url: raw.to_string(),
            detail: "it has no host".to_string(),
        });
    }
    Ok(url)
}

impl ProxyConfig {
    /// Every target (http and https) through `url`.
    pub fn all(url: &str) -> Result<Self, ProxyError> {
        let url = proxy_url(url)?;
        Ok(ProxyConfig {
            http: Some(url.clone()),
            https: Some(url),
            no_proxy: Vec::new(),
        })
    }

    /// The proxies the environment names (see [`PROXY_ENV_VARS`]); `None`
    /// when it names none. For the edges of a program (CLI, examples).
    pub fn from_env() -> Result<Option<Self>, ProxyError> {
        Self::from_env_with(|name| std::env::var(name).ok())
    }

    /// Like [`ProxyConfig::from_env`], reading variables through `lookup`
    /// (upper case first, then lower case; blank counts as unset).
    pub fn from_env_with(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, ProxyError> {
        let get = |name: &str| {
            lookup(name)
                .or_else(|| lookup(&name.to_ascii_lowercase()))
                .filter(|v| !v.trim().is_empty())
        };
        let all = get("ALL_PROXY");
        let http = get("HTTP_PROXY").or_else(|| all.clone());
        let https = get("HTTPS_PROXY").or(all);
        if http.is_none() && https.is_none() {
            return Ok(None);
        }
        let config = ProxyConfig {
            http: http.as_deref().map(proxy_url).transpose()?,
            https: https.as_deref().map(proxy_url).transpose()?,
            no_proxy: Vec::new(),
        };
        Ok(Some(match get("NO_PROXY") {
            Some(list) => config.no_proxy(&list),
            None => config,
        }))
    }

    /// Hosts that go direct, as `NO_PROXY` lists them (comma separated):
    /// `*` for all, a name for it and its subdomains (`example.com`,
    /// `.example.com`), an IP address, or an IP range (`10.0.0.0/8`).
    pub fn no_proxy(mut self, list: &str) -> Self {
        self.no_proxy.extend(
            list.split(',')
                .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
                .filter(|e| !e.is_empty()),
        );
        self
    }

    /// The proxy for `target`, or `None` when it goes direct (no proxy for
    /// its scheme, or `NO_PROXY` names its host).
    pub fn proxy_for(&self, target: &Url) -> Option<&Url> {
        let proxy = match target.scheme() {
            "https" => self.https.as_ref(),
            "http" => self.http.as_ref(),
            _ => None,
        }?;
        (!self.bypasses(target)).then_some(proxy)
    }

    /// Whether `NO_PROXY` sends `target` direct.
    pub fn bypasses(&self, target: &Url) -> bool {
        let Some(host) = target.host() else {
            return false;
        };
        self.no_proxy
            .iter()
            .any(|entry| no_proxy_matches(entry, &host))
    }

    /// The proxies' host names (each proxy is the operator's choice: the
    /// guard does not judge it, and its name is resolved as is).
    pub fn proxy_hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = [&self.http, &self.https]
            .into_iter()
            .flatten()
            .filter_map(|u| {
                u.host_str()
                    .map(|h| h.trim_matches(['[', ']']).to_ascii_lowercase())
            })
            .collect();
        hosts.dedup();
        hosts
    }
}

/// Whether one `NO_PROXY` entry covers `host`.
fn no_proxy_matches(entry: &str, host: &Host<&str>) -> bool {
    if entry == "*" {
        return true;
    }
    let ip = match host {
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            let entry = strip_port(entry);
            return name == entry || name.ends_with(&format!(".{entry}"));
        }
        Host::Ipv4(ip) => IpAddr::V4(*ip),
        Host::Ipv6(ip) => IpAddr::V6(*ip),
    };
    match entry.split_once('/') {
        Some((net, bits)) => match (net.parse::<IpAddr>(), bits.parse::<u32>()) {
            (Ok(net), Ok(bits)) => in_range(ip, net, bits),
            _ => false,
        },
        None => strip_port(entry).trim_matches(['[', ']']).parse::<IpAddr>() == Ok(ip),
    }
}

/// `host:port` → `host` (an IPv6 literal without brackets is left alone).
fn strip_port(entry: &str) -> &str {
    match entry.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) && !host.contains(':') => {
            host
        }
        _ => entry,
    }
}

/// Whether `ip` is in `net/bits`.
fn in_range(ip: IpAddr, net: IpAddr, bits: u32) -> bool {
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

static PROCESS_PROXY: OnceLock<Option<ProxyConfig>> = OnceLock::new();

/// Sets the process-wide default proxy, once (a CLI's `--proxy` or its
/// environment): the default of every Ferret HTTP client built afterwards.
/// `false` when it was already set.
pub fn set_process_proxy(proxy: Option<ProxyConfig>) -> bool {
    PROCESS_PROXY.set(proxy).is_ok()
}

/// The default proxy of Ferret's HTTP clients: the one
/// [`set_process_proxy`] set, else the environment's (an unusable
/// environment value is logged and ignored).
pub fn default_proxy() -> Option<ProxyConfig> {
    if let Some(set) = PROCESS_PROXY.get() {
        return set.clone();
    }
    ProxyConfig::from_env().unwrap_or_else(|e| {
        tracing::warn!(error = %e, "ignoring the proxy environment");
        None
    })
}

// ---- The per-host limiter -------------------------------------------------

/// How hard one host may be asked: requests in flight at once, request
/// starts per second, and the longest `Retry-After` pause honoured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostLimits {
    /// Requests in flight to one host at once (default 2).
    pub concurrency: usize,
    /// Request starts per second to one host (default 4; spaced evenly).
    pub per_second: f64,
    /// The longest pause a `Retry-After` imposes on a host (default 60 s).
    pub max_retry_after: Duration,
}

impl Default for HostLimits {
    fn default() -> Self {
        HostLimits {
            concurrency: 2,
            per_second: 4.0,
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl HostLimits {
    /// The spacing between two request starts.
    fn interval(&self) -> Duration {
        if self.per_second.is_finite() && self.per_second > 0.0 {
            Duration::from_secs_f64(1.0 / self.per_second)
        } else {
            Duration::ZERO
        }
    }
}

/// A request could not start before its deadline (the host is at its
/// limit, or paused by a `Retry-After`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{host} is busy: the next request could start only in {} ms, past the deadline", wait.as_millis())]
pub struct HostBusy {
    /// The host (`name:port`).
    pub host: String,
    /// How long the request would have had to wait from now.
    pub wait: Duration,
}

/// One host's state: its in-flight permits and its schedule.
#[derive(Debug)]
struct HostState {
    permits: Arc<Semaphore>,
    /// The earliest start of the next request (rate spacing and
    /// `Retry-After` pauses both move it).
    next: Mutex<Instant>,
}

/// A request's right to run: hold it until the response is read.
#[derive(Debug)]
pub struct HostPermit {
    _permit: OwnedSemaphorePermit,
    /// How long the request waited for its turn.
    pub waited: Duration,
}

/// Concurrency and rate limits per host, shared by every client that holds
/// a clone (the fetch ladder's plain-HTTP step and robots.txt reads, the
/// scraped engines). [`HostLimiter::global`] is the process-wide instance
/// those use by default, so one CLI run shares one limiter.
#[derive(Debug, Clone)]
pub struct HostLimiter {
    inner: Arc<LimiterInner>,
}

#[derive(Debug)]
struct LimiterInner {
    limits: HostLimits,
    hosts: Mutex<HashMap<String, Arc<HostState>>>,
}

/// The hosts a limiter remembers before it forgets idle ones.
const MAX_HOSTS: usize = 4096;

static GLOBAL_LIMITER: OnceLock<HostLimiter> = OnceLock::new();

impl Default for HostLimiter {
    fn default() -> Self {
        HostLimiter::new(HostLimits::default())
    }
}

impl HostLimiter {
    /// A limiter with `limits` (a concurrency of 0 counts as 1).
    pub fn new(limits: HostLimits) -> Self {
        HostLimiter {
            inner: Arc::new(LimiterInner {
                limits: HostLimits {
                    concurrency: limits.concurrency.max(1),
                    ..limits
                },
                hosts: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The process-wide limiter (default limits).
    pub fn global() -> HostLimiter {
        GLOBAL_LIMITER.get_or_init(HostLimiter::default).clone()
    }

    /// The limits.
    pub fn limits(&self) -> HostLimits {
        self.inner.limits
    }

    /// The key a URL is limited under: its host and port (`name:port`).
    pub fn key(url: &Url) -> String {
        format!(
            "{}:{}",
            url.host_str().unwrap_or_default().to_ascii_lowercase(),
            url.port_or_known_default().unwrap_or(0)
        )
    }

    fn state(&self, key: &str) -> Arc<HostState> {
        let mut hosts = self.inner.hosts.lock().unwrap_or_else(|e| e.into_inner());
        if hosts.len() >= MAX_HOSTS && !hosts.contains_key(key) {
            let now = Instant::now();
            // Forget hosts with nothing in flight and nothing scheduled.
            hosts.retain(|_, s| {
                Arc::strong_count(s) > 1
                    || s.permits.available_permits() < self.inner.limits.concurrency
                    || *s.next.lock().unwrap_or_else(|e| e.into_inner()) > now
            });
        }
        hosts
            .entry(key.to_string())
            .or_insert_with(|| {
                Arc::new(HostState {
                    permits: Arc::new(Semaphore::new(self.inner.limits.concurrency)),
                    next: Mutex::new(Instant::now()),
                })
            })
            .clone()
    }

    /// Waits for `url`'s host to take one more request (a free slot, then
    /// its turn in the rate schedule) — without a deadline.
    pub async fn acquire(&self, url: &Url) -> HostPermit {
        let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
        match self.acquire_until(url, far).await {
            Ok(permit) => permit,
            Err(_) => unreachable!("no request waits a year"),
        }
    }

    /// [`HostLimiter::acquire`], giving up at `deadline` (tokio's clock):
    /// a request whose
    /// turn comes after it fails at once with [`HostBusy`] instead of
    /// waiting in vain.
    pub async fn acquire_until(
        &self,
        url: &Url,
        deadline: Instant,
    ) -> Result<HostPermit, HostBusy> {
        let key = Self::key(url);
        let state = self.state(&key);
        let t0 = Instant::now();
        let busy = |wait| HostBusy {
            host: key.clone(),
            wait,
        };
        let permit = tokio::time::timeout_at(deadline, state.permits.clone().acquire_owned())
            .await
            .map_err(|_| busy(deadline.saturating_duration_since(t0)))?
            .map_err(|_| busy(Duration::ZERO))?;
        let start = {
            let mut next = state.next.lock().unwrap_or_else(|e| e.into_inner());
            let start = (*next).max(Instant::now());
            if start > deadline {
                return Err(busy(start - Instant::now()));
            }
            *next = start + self.inner.limits.interval();
            start
        };
        tokio::time::sleep_until(start).await;
        Ok(HostPermit {
            _permit: permit,
            waited: t0.elapsed(),
        })
    }

    /// A host asked to wait (`Retry-After`): no request to `url`'s host
    /// starts for `wait`, capped at [`HostLimits::max_retry_after`] and, when
    /// `deadline` is given, at it. Returns the pause applied.
    pub fn pause(&self, url: &Url, wait: Duration, deadline: Option<Instant>) -> Duration {
        let now = Instant::now();
        let mut pause = wait.min(self.inner.limits.max_retry_after);
        if let Some(deadline) = deadline {
            pause = pause.min(deadline.saturating_duration_since(now));
        }
        let state = self.state(&Self::key(url));
        let mut next = state.next.lock().unwrap_or_else(|e| e.into_inner());
        *next = (*next).max(now + pause);
        pause
    }
}

/// The wait a `Retry-After` value asks for: delta seconds (whole or
/// fractional), or a date — an HTTP-date in any of its three forms, or an
/// RFC 2822 date (past dates are no wait). The one parser of the header for
/// the fetcher and the engines.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>()
        && secs.is_finite()
        && secs >= 0.0
    {
        return Some(Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(value).ok().or_else(|| {
        chrono::DateTime::parse_from_rfc2822(value)
            .ok()
            .map(SystemTime::from)
    })?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_environment_names_proxies_per_scheme() {
        let c = ProxyConfig::from_env_with(env(&[
            ("https_proxy", "http://p.example:3128"),
            ("ALL_PROXY", "socks5://s.example:1080"),
            (
                "NO_PROXY",
                "internal.example, .corp.example,10.0.0.0/8,192.168.1.5",
            ),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(
            c.proxy_for(&u("https://a.example/")).map(Url::as_str),
            Some("http://p.example:3128/")
        );
        assert_eq!(
            c.proxy_for(&u("http://a.example/")).map(Url::as_str),
            Some("socks5://s.example:1080")
        );
        for direct in [
            "https://internal.example/",
            "https://x.internal.example/",
            "https://corp.example/",
            "http://10.1.2.3/",
            "http://192.168.1.5:8080/",
        ] {
            assert!(c.proxy_for(&u(direct)).is_none(), "{direct}");
        }
        assert!(c.proxy_for(&u("https://notinternal.example/")).is_some());
        assert_eq!(ProxyConfig::from_env_with(env(&[])).unwrap(), None);
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480); // 2015-10-21 07:28:00 UTC
        assert_eq!(
            parse_retry_after(" 120 ", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[tokio::test(start_paused = true)]
    async fn the_limiter_spaces_starts_and_caps_pauses() {
        let limiter = HostLimiter::new(HostLimits::default());
        let url = u("https://a.example/x");
        let t0 = Instant::now();
        let a = limiter.acquire(&url).await;
        let b = limiter.acquire(&url).await;
        assert!(b.waited >= Duration::from_millis(250), "{:?}", b.waited);
        // Both slots are taken: a third request cannot start before its deadline.
        let busy = limiter
            .acquire_until(&url, Instant::now() + Duration::from_millis(10))
            .await;
        assert!(busy.is_err());
        drop((a, b));
        assert_eq!(
            limiter.pause(&url, Duration::from_secs(600), None),
            Duration::from_secs(60)
        );
        let c = limiter.acquire(&url).await;
        assert!(
            t0.elapsed() >= Duration::from_secs(60),
            "{:?}",
            t0.elapsed()
        );
        drop(c);
        // Another host is not held up.
        let other = limiter.acquire(&u("https://b.example/")).await;
        assert_eq!(other.waited, Duration::ZERO);
    }

    #[test]
    fn bad_proxies_are_typed_errors() {
        assert!(matches!(
            ProxyConfig::all("ftp://p.example"),
            Err(ProxyError::UnsupportedScheme { .. })
        ));
        assert!(matches!(
            ProxyConfig::all("http://"),
            Err(ProxyError::InvalidUrl { .. })
        ));
        let c = ProxyConfig::all("p.example:8080").unwrap();
        assert_eq!(c.proxy_hosts(), vec!["p.example".to_string()]);
        assert!(
            ProxyConfig::all("http://p.example")
                .unwrap()
                .no_proxy("*")
                .bypasses(&u("http://a.example/"))
        );
    }
}
