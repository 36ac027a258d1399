//! The managed browser's one way out: a forward proxy on loopback, inside
//! this process, that every connection Chromium makes goes through.
//!
//! A managed Chromium is launched with `--proxy-server` pointing here and
//! `--proxy-bypass-list=<-loopback>` (so not even loopback names skip it),
//! its own resolver told to resolve nothing (`--host-resolver-rules=MAP *
//! ~NOTFOUND`: a connection that tried to go around the proxy could not
//! even find its host) and WebRTC kept off non-proxied UDP. Documents,
//! sub-resources, WebSockets, EventSource streams, workers and preconnects
//! therefore all arrive here, as `CONNECT host:port` (TLS, WebSockets) or
//! as an absolute-form request (`GET http://host/…`).
//!
//! Each one is judged by the same [`UrlGuard`] as the HTTP path before any
//! connection leaves: the syntactic check of the URL, then the host is
//! resolved — through the [`ResolverRules`] the configuration gives (the
//! `MAP pattern address` rules tests use to give local servers public-looking
//! names), else the system resolver — and, in strict mode, every address is
//! checked ([`UrlGuard::check_addrs`]) and the connection goes only to those
//! checked addresses. A refusal answers `403` with the reason in an
//! `X-Ferret-Guard` header, and is recorded ([`EgressProxy::refusals_since`])
//! so that the page's report can say what was blocked.
//!
//! A request is forwarded to its origin and the rest of the client
//! connection is relayed to that same origin, never re-routed: a second
//! request on the same connection can only reach the address that was
//! already checked (the forwarded request asks the origin to close after
//! answering, so Chromium opens a new proxy connection for the next one).

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferret_core::guard::{GuardError, GuardReason, UrlGuard};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use url::Url;

use crate::runtime::BlockedRequest;

/// The most bytes of a request head read before it is refused.
const MAX_HEAD: usize = 64 * 1024;
/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting to an origin may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Refusals kept for the reports.
const MAX_REFUSALS: usize = 512;

/// `MAP pattern address` rules, in Chromium's `--host-resolver-rules`
/// syntax: the proxy resolves names through them before the system
/// resolver. Patterns are `*`, `*.suffix` or a host; the address is an IP
/// (optionally `ip:port`) or `~NOTFOUND`. `EXCLUDE pattern` exempts hosts
/// from the rules before it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolverRules {
    rules: Vec<Rule>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    Map {
        pattern: String,
        target: Option<(IpAddr, Option<u16>)>,
    },
    Exclude {
        pattern: String,
    },
}

impl ResolverRules {
    /// Parse comma-separated rules; unknown entries are ignored.
    pub fn parse(text: &str) -> Self {
        let mut rules = Vec::new();
        for entry in text.split(',') {
            let words: Vec<&str> = entry.split_whitespace().collect();
            match words.as_slice() {
                ["MAP", pattern, target] => rules.push(Rule::Map {
                    pattern: pattern.to_ascii_lowercase(),
                    target: parse_target(target),
                }),
                ["EXCLUDE", pattern] => rules.push(Rule::Exclude {
                    pattern: pattern.to_ascii_lowercase(),
                }),
                _ => {}
            }
        }
        ResolverRules { rules }
    }

    /// What the rules say of `host`: `Some(None)` for `~NOTFOUND`, `None`
    /// when no rule applies.
    fn lookup(&self, host: &str) -> Option<Option<(IpAddr, Option<u16>)>> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let mut found = None;
        for rule in &self.rules {
            match rule {
                Rule::Map { pattern, target } if found.is_none() && matches(pattern, &host) => {
                    found = Some(*target);
                }
                Rule::Exclude { pattern } if matches(pattern, &host) => return None,
                _ => {}
            }
        }
        found
    }
}

fn parse_target(target: &str) -> Option<(IpAddr, Option<u16>)> {
    if let Ok(ip) = target.trim_matches(['[', ']']).parse::<IpAddr>() {
        return Some((ip, None));
    }
    target
        .parse::<SocketAddr>()
        .ok()
        .map(|a| (a.ip(), Some(a.port())))
}

fn matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix("*.") {
        _ if pattern == "*" => true,
        Some(suffix) => host.ends_with(&format!(".{suffix}")),
        None => pattern == host,
    }
}

/// A refused connection attempt.
#[derive(Debug, Clone)]
struct Refusal {
    at: Instant,
    blocked: BlockedRequest,
}

/// The proxy: its address, and what it refused.
#[derive(Debug)]
pub struct EgressProxy {
    addr: SocketAddr,
    refusals: Arc<Mutex<Vec<Refusal>>>,
    accept: JoinHandle<()>,
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        // Every open connection is a task of the accept loop's set.
        self.accept.abort();
    }
}

/// What each connection needs.
#[derive(Debug, Clone)]
struct Gate {
    guard: UrlGuard,
    rules: ResolverRules,
    refusals: Arc<Mutex<Vec<Refusal>>>,
}

impl EgressProxy {
    /// Listen on a free loopback port; connections are judged by `guard`,
    /// names resolved through `rules` first.
    pub async fn start(guard: UrlGuard, rules: ResolverRules) -> std::io::Result<Self> {
        let listener = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let refusals = Arc::new(Mutex::new(Vec::new()));
        let gate = Gate {
            guard,
            rules,
            refusals: refusals.clone(),
        };
        let accept = tokio::spawn(accept_loop(listener, gate));
        Ok(EgressProxy {
            addr,
            refusals,
            accept,
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The Chromium switches that send every connection here, without
    /// leading dashes.
    pub fn chromium_switches(&self) -> Vec<String> {
        vec![
            format!("proxy-server=http://{}", self.addr),
            "proxy-bypass-list=<-loopback>".to_string(),
            // Nothing is resolved by Chromium itself: a connection that went
            // around the proxy would find no host.
            format!(
                "host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE {}",
                self.addr.ip()
            ),
            "force-webrtc-ip-handling-policy=disable_non_proxied_udp".to_string(),
            "dns-prefetch-disable".to_string(),
        ]
    }

    /// A refusal since `since` of a connection to `url`'s origin (host and
    /// port, whatever the scheme: `CONNECT` refusals carry no path).
    pub fn refusal_of_origin(&self, url: &str, since: Instant) -> Option<BlockedRequest> {
        let origin = |u: &str| {
            Url::parse(u)
                .ok()
                .and_then(|u| Some((u.host_str()?.to_string(), u.port_or_known_default()?)))
        };
        let wanted = origin(url)?;
        self.refusals_since(since)
            .into_iter()
            .find(|b| origin(&b.url).is_some_and(|o| o == wanted))
    }

    /// Connections refused since `since`, oldest first.
    pub fn refusals_since(&self, since: Instant) -> Vec<BlockedRequest> {
        self.refusals
            .lock()
            .map(|r| {
                r.iter()
                    .filter(|r| r.at >= since)
                    .map(|r| r.blocked.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

async fn accept_loop(listener: TcpListener, gate: Gate) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((client, _)) => {
                    let gate = gate.clone();
                    connections.spawn(async move {
                        if let Err(e) = handle(client, &gate).await {
                            tracing::debug!(target: "ferret_browser::egress", "connection ended: {e}");
                        }
                    });
                }
                Err(e) => {
                    tracing::warn!(target: "ferret_browser::egress", "accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// A request head as the client sent it.
struct Head {
    method: String,
    target: String,
    version: String,
    /// Header lines, without the line ending.
    headers: Vec<String>,
    /// Bytes read past the head (the start of a body or a tunnel).
    rest: Vec<u8>,
}

async fn handle(mut client: TcpStream, gate: &Gate) -> std::io::Result<()> {
    let head = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await {
        Ok(Ok(Some(head))) => head,
        Ok(Ok(None)) | Err(_) => return Ok(()),
        Ok(Err(e)) => return Err(e),
    };
    let (url, port) = match target_url(&head) {
        Ok(found) => found,
        Err(message) => return answer(&mut client, "400 Bad Request", "", &message).await,
    };
    let upstream = match open(gate, &url, port).await {
        Ok(stream) => stream,
        Err(NotOpened::Refused(e)) => return refuse(&mut client, gate, &url, &e).await,
        Err(NotOpened::Unreachable(why)) => {
            return answer(&mut client, "502 Bad Gateway", "", &why).await;
        }
    };
    if head.method.eq_ignore_ascii_case("CONNECT") {
        tunnel(client, upstream, &head.rest).await
    } else {
        forward(client, upstream, &head, &url).await
    }
}

/// Read up to the blank line that ends the head. `None` when the client
/// closed first.
async fn read_head(client: &mut TcpStream) -> std::io::Result<Option<Head>> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 4096];
    let end = loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = find_end(&buf) {
            break at;
        }
        if buf.len() > MAX_HEAD {
            return Err(std::io::Error::other("request head too large"));
        }
    };
    let text = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut lines = text.split("\r\n").filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split_whitespace();
    let head = Head {
        method: parts.next().unwrap_or_default().to_string(),
        target: parts.next().unwrap_or_default().to_string(),
        version: parts.next().unwrap_or("HTTP/1.1").to_string(),
        headers: lines.map(str::to_string).collect(),
        rest: buf[end + 4..].to_vec(),
    };
    Ok(Some(head))
}

fn find_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n")
}

/// The URL the guard judges, and the port to connect to: `CONNECT host:port`
/// is judged as `https://host:port/`, an absolute-form request by its URL.
fn target_url(head: &Head) -> Result<(Url, u16), String> {
    if head.method.eq_ignore_ascii_case("CONNECT") {
        let url = Url::parse(&format!("https://{}/", head.target))
            .map_err(|e| format!("CONNECT to {:?}: {e}", head.target))?;
        let port = url.port_or_known_default().unwrap_or(443);
        return Ok((url, port));
    }
    let url = Url::parse(&head.target).map_err(|_| {
        format!(
            "{:?} is not an absolute URL: this is a proxy for Ferret's browser only",
            head.target
        )
    })?;
    let port = url
        .port_or_known_default()
        .ok_or_else(|| format!("{url} has no port"))?;
    Ok((url, port))
}

/// Why no connection was opened.
enum NotOpened {
    /// The guard refused the target.
    Refused(GuardError),
    /// The target was allowed but did not answer.
    Unreachable(String),
}

impl From<GuardError> for NotOpened {
    fn from(e: GuardError) -> Self {
        NotOpened::Refused(e)
    }
}

/// Judge `url`, resolve its host (a resolver rule pins it) and connect to a
/// checked address.
async fn open(gate: &Gate, url: &Url, port: u16) -> Result<TcpStream, NotOpened> {
    let checked = gate.guard.check(url.as_str())?;
    let host = checked.host_str().unwrap_or_default().to_string();
    let bare = host.trim_matches(['[', ']']);
    let pinned = match gate.rules.lookup(bare) {
        Some(Some((ip, mapped_port))) => {
            Some(vec![SocketAddr::new(ip, mapped_port.unwrap_or(port))])
        }
        Some(None) => {
            return Err(NotOpened::Refused(GuardError {
                reason: GuardReason::UnresolvableHost,
                url: checked.to_string(),
                detail: format!("{bare} is mapped to ~NOTFOUND"),
            }));
        }
        None => None,
    };
    let addrs = gate.guard.addresses_for(&checked, port, pinned).await?;
    let mut last = None;
    for addr in &addrs {
        match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => return Ok(stream),
            Ok(Err(e)) => last = Some(e.to_string()),
            Err(_) => last = Some(format!("no answer within {} s", CONNECT_TIMEOUT.as_secs())),
        }
    }
    Err(NotOpened::Unreachable(format!(
        "could not connect to {host}: {}",
        last.unwrap_or_else(|| "no address".into())
    )))
}

async fn tunnel(
    mut client: TcpStream,
    mut upstream: TcpStream,
    rest: &[u8],
) -> std::io::Result<()> {
    client
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .await?;
    if !rest.is_empty() {
        upstream.write_all(rest).await?;
    }
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

/// Send the request on in origin form (no proxy headers; the origin asked to
/// close after it, unless the request is an upgrade), then relay.
async fn forward(
    mut client: TcpStream,
    mut upstream: TcpStream,
    head: &Head,
    url: &Url,
) -> std::io::Result<()> {
    let mut path = url.path().to_string();
    if let Some(q) = url.query() {
        path.push('?');
        path.push_str(q);
    }
    let upgrade = head
        .headers
        .iter()
        .any(|h| header_is(h, "connection") && h.to_ascii_lowercase().contains("upgrade"));
    let mut out = format!("{} {path} {}\r\n", head.method, head.version);
    for h in &head.headers {
        let proxy_only = header_is(h, "proxy-connection") || header_is(h, "proxy-authorization");
        if proxy_only || (!upgrade && header_is(h, "connection")) {
            continue;
        }
        out.push_str(h);
        out.push_str("\r\n");
    }
    if !upgrade {
        out.push_str("Connection: close\r\n");
    }
    out.push_str("\r\n");
    upstream.write_all(out.as_bytes()).await?;
    if !head.rest.is_empty() {
        upstream.write_all(&head.rest).await?;
    }
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

fn header_is(line: &str, name: &str) -> bool {
    line.split_once(':')
        .is_some_and(|(n, _)| n.trim().eq_ignore_ascii_case(name))
}

async fn refuse(
    client: &mut TcpStream,
    gate: &Gate,
    url: &Url,
    error: &GuardError,
) -> std::io::Result<()> {
    tracing::debug!(target: "ferret_browser::egress", %url, "refused: {error}");
    if let Ok(mut r) = gate.refusals.lock() {
        if r.len() >= MAX_REFUSALS {
            r.remove(0);
        }
        r.push(Refusal {
            at: Instant::now(),
            blocked: BlockedRequest {
                url: url.to_string(),
                reason: error.reason,
                resource_type: "egress".to_string(),
            },
        });
    }
    let header = format!("X-Ferret-Guard: {}\r\n", error.reason.as_str());
    let body = format!("blocked by Ferret's URL guard: {error}");
    answer(client, "403 Forbidden", &header, &body).await
}

/// Answer with `status` and a plain-text `body`, then close.
async fn answer(
    client: &mut TcpStream,
    status: &str,
    extra_headers: &str,
    body: &str,
) -> std::io::Result<()> {
    let body = format!("{body}\n");
    let answer = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n{extra_headers}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(answer.as_bytes()).await?;
    client.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_map_patterns_and_exclusions() {
        let rules = ResolverRules::parse(
            "MAP *.example 127.0.0.1, MAP good.test 10.0.0.1:8080, EXCLUDE keep.example, MAP gone.test ~NOTFOUND",
        );
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(
            rules.lookup("a.example"),
            Some(Some((ip("127.0.0.1"), None)))
        );
        assert_eq!(
            rules.lookup("A.Example."),
            Some(Some((ip("127.0.0.1"), None)))
        );
        assert_eq!(
            rules.lookup("good.test"),
            Some(Some((ip("10.0.0.1"), Some(8080))))
        );
        assert_eq!(rules.lookup("keep.example"), None);
        assert_eq!(rules.lookup("gone.test"), Some(None));
        assert_eq!(rules.lookup("example"), None);
        assert_eq!(
            ResolverRules::parse("MAP * 127.0.0.1").lookup("anything.org"),
            Some(Some((ip("127.0.0.1"), None)))
        );
    }

    #[test]
    fn connect_targets_are_judged_as_https_urls() {
        let head = |method: &str, target: &str| Head {
            method: method.into(),
            target: target.into(),
            version: "HTTP/1.1".into(),
            headers: Vec::new(),
            rest: Vec::new(),
        };
        let (url, port) = target_url(&head("CONNECT", "example.com:443")).unwrap();
        assert_eq!((url.as_str(), port), ("https://example.com/", 443));
        let (url, port) = target_url(&head("CONNECT", "[::1]:9000")).unwrap();
        assert_eq!((url.host_str(), port), (Some("[::1]"), 9000));
        let (url, port) = target_url(&head("GET", "http://a.example:81/x?y=1")).unwrap();
        assert_eq!((url.path(), port), ("/x", 81));
        assert!(target_url(&head("GET", "/relative")).is_err());
    }
}
