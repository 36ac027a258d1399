//! The URL guard: one check used by every fetch, navigation, API call and
//! redirect hop in Ferret.
//!
//! [`UrlGuard::check`] is syntactic (no I/O). It refuses:
//!
//! - schemes other than `http` and `https` ([`GuardReason::SchemeNotAllowed`]);
//! - user names or passwords in the URL ([`GuardReason::CredentialsInUrl`]);
//! - URLs without a host ([`GuardReason::MissingHost`]);
//! - loopback, private, link-local, CGNAT (100.64.0.0/10), unique-local
//!   (fc00::/7), multicast, reserved (0/8, 240/4, broadcast),
//!   documentation, benchmarking and cloud-metadata addresses
//!   (169.254.169.254, fd00:ec2::254) in every spelling — decimal
//!   (`2130706433`), octal (`0177.0.0.1`), hex (`0x7f.0.0.1`,
//!   `0x7f000001`), short (`127.1`), mixed, with trailing dots, and IPv6
//!   forms that carry such an IPv4 address (IPv4-mapped `::ffff:…`, NAT64
//!   `64:ff9b::/96`, 6to4 `2002::/16`) — and the names `localhost`,
//!   `*.localhost`, `metadata.google.internal`, `metadata`,
//!   `instance-data`, names under `.local .internal .lan .home.arpa .corp
//!   .intranet .localdomain`, and dot-less names
//!   ([`GuardReason::PrivateOrLocalHostBlocked`]).
//!
//! In strict mode ([`UrlGuard::strict`], `FERRET_STRICT_SSRF=1`),
//! [`UrlGuard::check_resolved`] also resolves the host and checks **every**
//! address it resolves to ([`GuardReason::BlockedByStrictSsrf`]); the
//! returned [`CheckedUrl`] carries those addresses so an HTTP client can pin
//! its connection to them (reqwest's `resolve_to_addrs`) and a DNS answer
//! that changes between check and connect cannot reach a private address.
//!
//! **The fake-ip exception.** Proxy tools such as Clash, sing-box or Surge
//! in "fake-ip" mode answer every DNS query with an address from
//! 198.18.0.0/15 and carry the real connection through the proxy. In
//! strict mode only, a name whose resolved addresses are *all* in
//! 198.18.0.0/15 is allowed. A mix of fake-ip and other addresses is judged
//! normally (and 198.18.0.0/15 is a blocked benchmarking range), and an IP
//! literal in that range is always blocked.
//!
//! [`UrlGuard::allow_private`] (`FERRET_ALLOW_PRIVATE_URLS=1`) lifts the
//! private/local checks, e.g. for tests against local servers; it never
//! lifts the scheme, credential or missing-host checks. The library default
//! ([`UrlGuard::default`]) checks and does not read the environment; only
//! [`UrlGuard::from_env`], called at the edges (CLI, examples), does.

mod host;
pub use host::local_name_reason;
mod ranges;

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::{Host, Url};

/// The environment variable that lifts the private/local checks
/// (read only by [`UrlGuard::from_env`]).
pub const ALLOW_PRIVATE_ENV: &str = "FERRET_ALLOW_PRIVATE_URLS";

/// The environment variable that turns strict (DNS-checking) mode on
/// (read only by [`UrlGuard::from_env`]).
pub const STRICT_ENV: &str = "FERRET_STRICT_SSRF";

/// Why the guard refused a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardReason {
    /// Not a parseable absolute URL.
    InvalidUrl,
    /// A scheme other than `http` or `https`.
    SchemeNotAllowed,
    /// A user name or password in the URL.
    CredentialsInUrl,
    /// No host.
    MissingHost,
    /// A loopback, private, link-local, reserved or metadata address, or a
    /// local / internal host name.
    PrivateOrLocalHostBlocked,
    /// Strict mode: the host resolved to such an address.
    BlockedByStrictSsrf,
    /// Strict mode: the host could not be resolved, so it could not be
    /// checked.
    UnresolvableHost,
}

impl GuardReason {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardReason::InvalidUrl => "invalid_url",
            GuardReason::SchemeNotAllowed => "scheme_not_allowed",
            GuardReason::CredentialsInUrl => "credentials_in_url",
            GuardReason::MissingHost => "missing_host",
            GuardReason::PrivateOrLocalHostBlocked => "private_or_local_host_blocked",
            GuardReason::BlockedByStrictSsrf => "blocked_by_strict_ssrf",
            GuardReason::UnresolvableHost => "unresolvable_host",
        }
    }

    /// What the caller can do about it.
    fn hint(self) -> &'static str {
        match self {
            GuardReason::InvalidUrl | GuardReason::MissingHost => {
                "pass an absolute http(s) URL such as https://example.com/page"
            }
            GuardReason::SchemeNotAllowed => {
                "only http and https URLs are fetched; this check cannot be lifted"
            }
            GuardReason::CredentialsInUrl => {
                "remove the user name and password from the URL (send credentials in headers); \
                 this check cannot be lifted"
            }
            GuardReason::PrivateOrLocalHostBlocked => {
                "to allow private and local addresses (e.g. tests against a local server) set \
                 FERRET_ALLOW_PRIVATE_URLS=1 or build the guard with UrlGuard::allow_private(true)"
            }
            GuardReason::BlockedByStrictSsrf => {
                "to allow private and local addresses set FERRET_ALLOW_PRIVATE_URLS=1 or build \
                 the guard with UrlGuard::allow_private(true); strict DNS checks are on because \
                 of FERRET_STRICT_SSRF=1 or UrlGuard::strict(true)"
            }
            GuardReason::UnresolvableHost => {
                "check the host name; strict mode (FERRET_STRICT_SSRF=1 or UrlGuard::strict(true)) \
                 must resolve a host before it can be fetched"
            }
        }
    }
}

impl fmt::Display for GuardReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A URL the guard refused: why, which URL, and the specifics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub struct GuardError {
    /// The reason code.
    pub reason: GuardReason,
    /// The URL as given (trimmed).
    pub url: String,
    /// What exactly was wrong (e.g. which address range the host is in).
    pub detail: String,
}

impl fmt::Display for GuardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "URL guard blocked {:?} ({}): {}; {}",
            self.url,
            self.reason,
            self.detail,
            self.reason.hint()
        )
    }
}

impl GuardError {
    fn new(reason: GuardReason, url: &str, detail: impl Into<String>) -> Self {
        GuardError {
            reason,
            url: url.to_string(),
            detail: detail.into(),
        }
    }
}

/// A URL that passed the guard, with the addresses strict mode checked
/// (empty outside strict mode). Connect only to `addrs` when it is not
/// empty, e.g. with reqwest's `ClientBuilder::resolve_to_addrs(host,
/// &addrs)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUrl {
    /// The parsed URL.
    pub url: Url,
    /// Every address the host resolved to, all checked (strict mode only).
    pub addrs: Vec<SocketAddr>,
}

impl CheckedUrl {
    /// The host as the URL spells it (what an HTTP client pins `addrs` to).
    pub fn host(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }
}

/// The guard's answer in a serialisable form (`ferret check-url`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardVerdict {
    /// Whether the URL may be fetched.
    pub allowed: bool,
    /// Why not, when it may not.
    pub reason: Option<GuardReason>,
    /// What was checked or what was wrong.
    pub detail: String,
    /// The URL: normalised when it parsed, as given otherwise.
    pub url: String,
    /// The addresses checked in strict mode.
    #[serde(default)]
    pub resolved: Vec<String>,
    /// Whether strict (DNS) checks were on.
    #[serde(default)]
    pub strict: bool,
}

impl GuardVerdict {
    fn from_result(result: Result<CheckedUrl, GuardError>, guard: &UrlGuard) -> Self {
        match result {
            Ok(checked) => GuardVerdict {
                allowed: true,
                reason: None,
                detail: if guard.allow_private {
                    "allowed: private and local addresses are allowed by configuration".to_string()
                } else if guard.strict {
                    format!(
                        "allowed: public host, all {} resolved address(es) checked",
                        checked.addrs.len()
                    )
                } else {
                    "allowed: http(s) URL with a public host (DNS not checked; strict mode off)"
                        .to_string()
                },
                url: checked.url.to_string(),
                resolved: checked.addrs.iter().map(|a| a.ip().to_string()).collect(),
                strict: guard.strict,
            },
            Err(e) => GuardVerdict {
                allowed: false,
                reason: Some(e.reason),
                detail: e.detail,
                url: e.url,
                resolved: Vec::new(),
                strict: guard.strict,
            },
        }
    }
}

/// The URL guard. `Default` checks (private addresses blocked) without
/// strict DNS checks; see the module docs for the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlGuard {
    allow_private: bool,
    strict: bool,
    dns_timeout: Duration,
}

impl Default for UrlGuard {
    fn default() -> Self {
        UrlGuard {
            allow_private: false,
            strict: false,
            dns_timeout: Self::DEFAULT_DNS_TIMEOUT,
        }
    }
}

fn truthy(value: Option<String>) -> bool {
    value.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

impl UrlGuard {
    /// How long strict mode waits for DNS by default.
    pub const DEFAULT_DNS_TIMEOUT: Duration = Duration::from_secs(5);

    /// The default guard: checking on, strict off.
    pub fn new() -> Self {
        Self::default()
    }

    /// A guard configured from `FERRET_ALLOW_PRIVATE_URLS` and
    /// `FERRET_STRICT_SSRF` (`1`, `true`, `yes` or `on`). For the edges of
    /// the program only (CLI, examples); libraries take a guard.
    pub fn from_env() -> Self {
        Self::from_env_with(|name| std::env::var(name).ok())
    }

    /// Like [`UrlGuard::from_env`], reading variables through `lookup`.
    pub fn from_env_with(lookup: impl Fn(&str) -> Option<String>) -> Self {
        Self::default()
            .allow_private(truthy(lookup(ALLOW_PRIVATE_ENV)))
            .strict(truthy(lookup(STRICT_ENV)))
    }

    /// Allow (`true`) or block (`false`, the default) private and local
    /// hosts. The scheme, credential and host checks stay on.
    pub fn allow_private(mut self, allow: bool) -> Self {
        self.allow_private = allow;
        self
    }

    /// Turn strict mode (DNS resolution, every address checked) on or off.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// How long strict mode waits for DNS.
    pub fn dns_timeout(mut self, timeout: Duration) -> Self {
        self.dns_timeout = timeout;
        self
    }

    /// Whether private and local hosts are allowed.
    pub fn allows_private(&self) -> bool {
        self.allow_private
    }

    /// Whether strict mode is on.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// The syntactic check (no I/O): the parsed URL, or why it is refused.
    pub fn check(&self, raw: &str) -> Result<Url, GuardError> {
        let input = raw.trim();
        let url = parse_http_url(input)?;
        let authority = host::raw_authority(input).unwrap_or_default();
        refuse_credentials(input, &url, authority)?;
        let parsed_host = require_host(input, &url)?;
        if self.allow_private {
            return Ok(url);
        }
        // Defence in depth: judge the host as the input spelled it too.
        if let Some(detail) =
            parsed_host_blocked(&parsed_host).or_else(|| raw_host_blocked(authority))
        {
            return Err(GuardError::new(
                GuardReason::PrivateOrLocalHostBlocked,
                input,
                detail,
            ));
        }
        Ok(url)
    }

    /// The full check. Outside strict mode this is [`UrlGuard::check`] with
    /// no addresses. In strict mode the host is resolved (an IP literal is
    /// taken as is) and every address is checked with
    /// [`UrlGuard::check_addrs`]; the addresses come back for pinning.
    pub async fn check_resolved(&self, raw: &str) -> Result<CheckedUrl, GuardError> {
        let url = self.check(raw)?;
        if !self.strict {
            return Ok(CheckedUrl {
                url,
                addrs: Vec::new(),
            });
        }
        let port = url.port_or_known_default().unwrap_or(443);
        let addrs = self.addresses_for(&url, port, None).await?;
        Ok(CheckedUrl { url, addrs })
    }

    /// The addresses a connection to `url` (which already passed
    /// [`UrlGuard::check`]) may use on `port`: `pinned` when the caller pins
    /// the host (a test's fixed address, a resolver rule), an IP literal as
    /// it is, otherwise the system resolver within the DNS timeout. In
    /// strict mode every address is judged by [`UrlGuard::check_addrs`], so
    /// a connection to what comes back goes only to checked addresses. This
    /// is the one place that resolves for a connection: the HTTP client's
    /// resolver and the browser's egress proxy both use it.
    pub async fn addresses_for(
        &self,
        url: &Url,
        port: u16,
        pinned: Option<Vec<SocketAddr>>,
    ) -> Result<Vec<SocketAddr>, GuardError> {
        let addrs = match (pinned, url.host()) {
            (Some(addrs), _) => addrs,
            (None, Some(Host::Ipv4(ip))) => vec![SocketAddr::new(IpAddr::V4(ip), port)],
            (None, Some(Host::Ipv6(ip))) => vec![SocketAddr::new(IpAddr::V6(ip), port)],
            (None, Some(Host::Domain(d))) => self.resolve(url, d, port).await?,
            (None, None) => {
                return Err(GuardError::new(
                    GuardReason::MissingHost,
                    url.as_str(),
                    "the URL has no host",
                ));
            }
        };
        if self.strict {
            self.check_addrs(url, &addrs)?;
        } else if addrs.is_empty() {
            return Err(GuardError::new(
                GuardReason::UnresolvableHost,
                url.as_str(),
                format!(
                    "{:?} resolved to no addresses",
                    url.host_str().unwrap_or("")
                ),
            ));
        }
        Ok(addrs)
    }

    async fn resolve(
        &self,
        url: &Url,
        name: &str,
        port: u16,
    ) -> Result<Vec<SocketAddr>, GuardError> {
        let unresolvable =
            |detail: String| GuardError::new(GuardReason::UnresolvableHost, url.as_str(), detail);
        let lookup = tokio::net::lookup_host((name, port));
        match tokio::time::timeout(self.dns_timeout, lookup).await {
            Err(_) => Err(unresolvable(format!(
                "DNS lookup of {name:?} took longer than {} ms",
                self.dns_timeout.as_millis()
            ))),
            Ok(Err(e)) => Err(unresolvable(format!("DNS lookup of {name:?} failed: {e}"))),
            Ok(Ok(found)) => {
                let mut addrs: Vec<SocketAddr> = Vec::new();
                for a in found {
                    if !addrs.contains(&a) {
                        addrs.push(a);
                    }
                }
                Ok(addrs)
            }
        }
    }

    /// Judge the addresses `url`'s host resolved to (strict mode's second
    /// step, public so callers that resolve by other means — a browser's
    /// resolver, a proxy — apply the same rule): every address must be
    /// public, except that a name resolving only to fake-ip addresses
    /// (198.18.0.0/15) is allowed. No addresses at all is
    /// [`GuardReason::UnresolvableHost`]. With
    /// [`UrlGuard::allow_private`] any non-empty set passes.
    pub fn check_addrs(&self, url: &Url, addrs: &[SocketAddr]) -> Result<(), GuardError> {
        let name = url.host_str().unwrap_or_default();
        if addrs.is_empty() {
            return Err(GuardError::new(
                GuardReason::UnresolvableHost,
                url.as_str(),
                format!("{name:?} resolved to no addresses"),
            ));
        }
        if self.allow_private {
            return Ok(());
        }
        let blocked: Vec<String> = addrs
            .iter()
            .filter_map(|a| ranges::blocked_ip(a.ip()).map(|why| format!("{} ({why})", a.ip())))
            .collect();
        if blocked.is_empty() {
            return Ok(());
        }
        let is_literal = !matches!(url.host(), Some(Host::Domain(_)));
        if !is_literal && addrs.iter().all(|a| ranges::is_fake_ip(a.ip())) {
            return Ok(());
        }
        Err(GuardError::new(
            GuardReason::BlockedByStrictSsrf,
            url.as_str(),
            format!("{name:?} resolves to {}", blocked.join(", ")),
        ))
    }

    /// Check one redirect hop: `location` (absolute or relative, as the
    /// `Location` header gave it) is resolved against `from`, then checked
    /// with [`UrlGuard::check`].
    pub fn check_redirect(&self, from: &Url, location: &str) -> Result<Url, GuardError> {
        let next = from.join(location.trim()).map_err(|e| {
            GuardError::new(
                GuardReason::InvalidUrl,
                location.trim(),
                format!("redirect Location from {from} is not a valid URL reference: {e}"),
            )
        })?;
        self.check(next.as_str())
    }

    /// [`UrlGuard::check_redirect`] followed by [`UrlGuard::check_resolved`]
    /// on the target: the per-hop check of a client that pins addresses.
    pub async fn check_redirect_resolved(
        &self,
        from: &Url,
        location: &str,
    ) -> Result<CheckedUrl, GuardError> {
        let next = self.check_redirect(from, location)?;
        self.check_resolved(next.as_str()).await
    }

    /// The syntactic check as a [`GuardVerdict`].
    pub fn verdict(&self, raw: &str) -> GuardVerdict {
        let result = self.check(raw).map(|url| CheckedUrl {
            url,
            addrs: Vec::new(),
        });
        GuardVerdict::from_result(
            result,
            &UrlGuard {
                strict: false,
                ..self.clone()
            },
        )
    }

    /// The full check ([`UrlGuard::check_resolved`]) as a [`GuardVerdict`].
    pub async fn verdict_resolved(&self, raw: &str) -> GuardVerdict {
        GuardVerdict::from_result(self.check_resolved(raw).await, self)
    }
}

/// Parse `input` as an absolute http(s) URL.
fn parse_http_url(input: &str) -> Result<Url, GuardError> {
    if input.is_empty() {
        return Err(GuardError::new(
            GuardReason::InvalidUrl,
            input,
            "the URL is empty",
        ));
    }
    let url = Url::parse(input).map_err(|e| match e {
        url::ParseError::EmptyHost => {
            GuardError::new(GuardReason::MissingHost, input, "the URL has an empty host")
        }
        other => GuardError::new(
            GuardReason::InvalidUrl,
            input,
            format!("not an absolute URL: {other}"),
        ),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(GuardError::new(
            GuardReason::SchemeNotAllowed,
            input,
            format!("scheme {:?} is not http or https", url.scheme()),
        ));
    }
    Ok(url)
}

/// Refuse a URL that carries a user name or password.
fn refuse_credentials(input: &str, url: &Url, authority: &str) -> Result<(), GuardError> {
    // An empty user-info (`http://@host/`, `http://:@host/`) carries no
    // credential: it is normalised away, not refused.
    let userinfo = authority.rsplit_once('@').map(|(u, _)| u);
    let empty_userinfo = matches!(userinfo, Some("" | ":"));
    if !url.username().is_empty()
        || url.password().is_some_and(|p| !p.is_empty())
        || (userinfo.is_some() && !empty_userinfo)
    {
        return Err(GuardError::new(
            GuardReason::CredentialsInUrl,
            input,
            "the URL carries a user name or password (user:pass@host)",
        ));
    }
    Ok(())
}

/// The URL's host; refused when missing or only dots.
fn require_host<'u>(input: &str, url: &'u Url) -> Result<Host<&'u str>, GuardError> {
    let Some(parsed_host) = url.host() else {
        return Err(GuardError::new(
            GuardReason::MissingHost,
            input,
            "the URL has no host",
        ));
    };
    if let Host::Domain(d) = &parsed_host
        && d.trim_end_matches('.').is_empty()
    {
        return Err(GuardError::new(
            GuardReason::MissingHost,
            input,
            format!("the host {d:?} is empty"),
        ));
    }
    Ok(parsed_host)
}

/// Why the parsed host is private or local, if it is.
fn parsed_host_blocked(parsed_host: &Host<&str>) -> Option<String> {
    match parsed_host {
        Host::Ipv4(ip) => ranges::blocked_v4(*ip).map(|why| format!("host {ip} is {why}")),
        Host::Ipv6(ip) => ranges::blocked_v6(*ip).map(|why| format!("host [{ip}] is {why}")),
        Host::Domain(d) => {
            if let Some(ip) = host::parse_numeric_v4(d)
                && let Some(why) = ranges::blocked_v4(ip)
            {
                return Some(format!("host {d:?} (= {ip}) is {why}"));
            }
            host::local_name_reason(d).map(|why| format!("host {why}"))
        }
    }
}

/// Why the host as the input spelled it (before URL normalisation) is
/// private or local, if it is.
fn raw_host_blocked(authority: &str) -> Option<String> {
    let raw = host::raw_host(authority);
    if let Some(ip) = host::parse_numeric_v4(&raw)
        && let Some(why) = ranges::blocked_v4(ip)
    {
        return Some(format!("host {raw:?} (= {ip}) is {why}"));
    }
    if let Ok(ip) = raw.parse::<std::net::Ipv6Addr>()
        && let Some(why) = ranges::blocked_v6(ip)
    {
        return Some(format!("host [{ip}] is {why}"));
    }
    None
}
