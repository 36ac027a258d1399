//! The HTTP client's DNS resolver: fixed addresses for pinned hosts, the
//! system resolver otherwise, and — in strict mode — the URL guard's
//! address check on every answer, at connection time, so the connection
//! goes only to addresses that were checked.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use ferret_core::guard::{GuardError, GuardReason, UrlGuard};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::Url;

/// How long a lookup may take.
const DNS_TIMEOUT: Duration = Duration::from_secs(5);

/// See the module docs.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver {
    guard: UrlGuard,
    fixed: HashMap<String, Vec<SocketAddr>>,
}

impl GuardedResolver {
    pub(crate) fn new(guard: UrlGuard, fixed: HashMap<String, Vec<SocketAddr>>) -> Self {
        GuardedResolver { guard, fixed }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().trim_end_matches('.').to_ascii_lowercase();
        let guard = self.guard.clone();
        let fixed = self.fixed.get(&host).cloned();
        Box::pin(async move {
            let url = Url::parse(&format!("http://{host}/")).map_err(|e| {
                Box::new(GuardError {
                    reason: GuardReason::InvalidUrl,
                    url: host.clone(),
                    detail: format!("host name cannot be resolved: {e}"),
                }) as Box<dyn std::error::Error + Send + Sync>
            })?;
            let addrs: Vec<SocketAddr> = match fixed {
                Some(addrs) => addrs,
                None => {
                    let lookup = tokio::net::lookup_host((host.as_str(), 0));
                    let found =
                        tokio::time::timeout(DNS_TIMEOUT, lookup)
                            .await
                            .map_err(|_| {
                                Box::new(GuardError {
                                    reason: GuardReason::UnresolvableHost,
                                    url: url.to_string(),
                                    detail: format!(
                                        "DNS lookup of {host:?} took longer than {} ms",
                                        DNS_TIMEOUT.as_millis()
                                    ),
                                })
                                    as Box<dyn std::error::Error + Send + Sync>
                            })??;
                    let mut addrs: Vec<SocketAddr> = Vec::new();
                    for a in found {
                        if !addrs.contains(&a) {
                            addrs.push(a);
                        }
                    }
                    addrs
                }
            };
            if guard.is_strict() {
                guard
                    .check_addrs(&url, &addrs)
                    .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}
