//! The HTTP client's DNS resolver: fixed addresses for pinned hosts, the
//! system resolver otherwise, and — in strict mode — the URL guard's
//! address check on every answer, at connection time, so the connection
//! goes only to addresses that were checked. The resolving itself is the
//! guard's ([`UrlGuard::addresses_for`]), shared with the browser's egress
//! proxy. The configured proxies' own names are resolved without the
//! address check: a proxy is the operator's choice (often on a private
//! network), and the targets behind it are judged before each request.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;

use ferret_core::guard::{GuardError, GuardReason, UrlGuard};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::Url;

/// See the module docs.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver {
    guard: UrlGuard,
    fixed: HashMap<String, Vec<SocketAddr>>,
    /// Names resolved without the address check (the proxies').
    direct: HashSet<String>,
}

impl GuardedResolver {
    pub(crate) fn new(guard: UrlGuard, fixed: HashMap<String, Vec<SocketAddr>>) -> Self {
        GuardedResolver {
            guard,
            fixed,
            direct: HashSet::new(),
        }
    }

    /// Resolve `hosts` (the proxies' names) without the address check.
    pub(crate) fn direct(mut self, hosts: Vec<String>) -> Self {
        self.direct.extend(hosts);
        self
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().trim_end_matches('.').to_ascii_lowercase();
        let guard = if self.direct.contains(&host) {
            UrlGuard::new().allow_private(true).strict(false)
        } else {
            self.guard.clone()
        };
        // `*` pins every host without a pin of its own.
        let fixed = self
            .fixed
            .get(&host)
            .or_else(|| self.fixed.get("*"))
            .cloned();
        Box::pin(async move {
            let url = Url::parse(&format!("http://{host}/")).map_err(|e| {
                Box::new(GuardError {
                    reason: GuardReason::InvalidUrl,
                    url: host.clone(),
                    detail: format!("host name cannot be resolved: {e}"),
                }) as Box<dyn std::error::Error + Send + Sync>
            })?;
            // reqwest sets the port itself; 0 is replaced. A name that does
            // not resolve is a transport failure, not a guard refusal.
            let addrs = guard.addresses_for(&url, 0, fixed).await.map_err(|e| {
                if e.reason == GuardReason::UnresolvableHost {
                    Box::new(std::io::Error::other(e.to_string()))
                        as Box<dyn std::error::Error + Send + Sync>
                } else {
                    Box::new(e) as Box<dyn std::error::Error + Send + Sync>
                }
            })?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}
