//! Engine health that outlives one run: [`NetworkHealth`] and its layer
//! [`Reachable`].
//!
//! **What it does**: before the first network call of a run, one quick
//! connectivity probe (DNS and a TCP connect, no request) goes to every
//! network engine's host at once, bounded by
//! [`HealthConfig::probe_timeout`]. Its verdict is shared by every engine
//! of the run and kept in a [`BreakerStore`] (the breakers' SQLite file or
//! Redis), so the next run knows it too:
//!
//! | verdict | effect | kept for (defaults) |
//! |---|---|---|
//! | no host answered | the machine is **offline**: every network engine is skipped at once with a `transport` error whose message starts `offline:` | 30 s |
//! | a host refused or did not resolve, others answered | that engine is **unreachable**: skipped with a `transport` error starting `unreachable:` | 60 s |
//! | some host answered | online: calls go through | 2 min (no probe meanwhile) |
//!
//! An engine that answers with a bot-detection page or a captcha gets a
//! **cool-down** ([`HealthConfig::cool_down`]): later calls, in this run and
//! the next ones, fail at once with [`EngineError::CircuitOpen`] until it
//! ends. Every skip message names the end as `until <RFC 3339 time>`
//! ([`until_in`] reads it back).
//!
//! **Where it sits**: innermost, right around the engine (inside
//! [`Retry`](crate::layers::Retry), whose retries it ends, and inside the
//! circuit breaker, whose own ladder still counts bot detections).
//!
//! The probe resolves names on a thread of its own, so a resolver that
//! hangs (a machine without network) holds neither the search nor the
//! process's exit. A store that fails is logged and ignored: health never
//! fails a search.

use std::collections::HashMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::layer::Layer;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineRequest, EngineResponse, ErrorKind,
};
use serde::{Deserialize, Serialize};

use crate::layers::{BreakerStore, Clock, MemoryBreakerStore, SystemClock};

/// The store key of the network's verdict.
const NETWORK_KEY: &str = "health:network";

/// The store key of one engine's mark.
fn engine_key(engine: &str) -> String {
    format!("health:engine:{engine}")
}

/// The numbers of [`NetworkHealth`]; [`Default`] gives the module table's.
#[derive(Debug, Clone, PartialEq)]
pub struct HealthConfig {
    /// The most the connectivity probe may take (700 ms); a host that has
    /// not connected by then counts as not answering.
    pub probe_timeout: Duration,
    /// How long an offline verdict is kept (30 s).
    pub offline_for: Duration,
    /// How long an unreachable engine is skipped (60 s).
    pub unreachable_for: Duration,
    /// How long an online verdict spares later runs the probe (2 min).
    pub online_for: Duration,
    /// Error kinds that cool an engine down, and for how long (bot
    /// detection 5 min, captcha 1 h).
    pub cool_down: Vec<(ErrorKind, Duration)>,
}

impl Default for HealthConfig {
    fn default() -> Self {
        HealthConfig {
            probe_timeout: Duration::from_millis(700),
            offline_for: Duration::from_secs(30),
            unreachable_for: Duration::from_secs(60),
            online_for: Duration::from_secs(120),
            cool_down: vec![
                (ErrorKind::BotDetected, Duration::from_secs(300)),
                (ErrorKind::Captcha, Duration::from_secs(3600)),
            ],
        }
    }
}

/// What a mark says about the network or an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    /// Some engine host answered the probe.
    Online,
    /// No engine host answered the probe.
    Offline,
    /// This engine's host refused or did not resolve.
    Unreachable,
    /// This engine blocked us; wait.
    CoolDown,
}

/// A stored verdict (JSON in the store). Times are ms since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthMark {
    /// The verdict.
    pub status: HealthStatus,
    /// When it ends.
    pub until: u64,
    /// Why (the probe's or the engine's words).
    pub reason: String,
}

impl HealthMark {
    /// The error a skipped call gets, for `engine`.
    fn error(&self, engine: &str, now: u64) -> EngineError {
        let until = format_until(self.until);
        let left = Duration::from_millis(self.until.saturating_sub(now));
        match self.status {
            HealthStatus::Online => EngineError::transport("online"),
            HealthStatus::Offline => EngineError::Transport {
                message: format!(
                    "offline: no engine host answered ({}); {engine} skipped until {until} \
                     without calling it",
                    self.reason
                ),
                temporary: false,
            },
            HealthStatus::Unreachable => EngineError::Transport {
                message: format!(
                    "unreachable: {}; {engine} skipped until {until}",
                    self.reason
                ),
                temporary: false,
            },
            HealthStatus::CoolDown => EngineError::CircuitOpen {
                retry_after: Some(left),
                message: format!(
                    "{engine} is cooling down until {until} after {}; try again later or use \
                     other engines",
                    self.reason
                ),
            },
        }
    }
}

/// `ms` since the epoch as an RFC 3339 UTC time (seconds).
pub(crate) fn format_until(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The time a skip message names after `until `, as RFC 3339 (the
/// machine-readable end of a suspension, for reports).
pub fn until_in(message: &str) -> Option<String> {
    message.match_indices("until ").find_map(|(i, m)| {
        let rest = &message[i + m.len()..];
        let end = rest
            .find(|c: char| c.is_whitespace() || c == ';' || c == ',' || c == ')')
            .unwrap_or(rest.len());
        let stamp = rest[..end].trim_end_matches('.');
        chrono::DateTime::parse_from_rfc3339(stamp)
            .ok()
            .map(|_| stamp.to_string())
    })
}

/// Where an engine's service listens, for the probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeTarget {
    /// Host name or IP address.
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl ProbeTarget {
    /// The host and port of an `http(s)` URL.
    pub fn from_url(url: &str) -> Option<Self> {
        let url = url::Url::parse(url).ok()?;
        let host = url.host_str()?.trim_matches(['[', ']']).to_string();
        Some(ProbeTarget {
            port: url.port_or_known_default()?,
            host,
        })
    }
}

/// The probe's findings: the network's verdict and each engine's failure.
#[derive(Debug, Clone)]
struct Verdict {
    network: HealthMark,
    unreachable: HashMap<String, HealthMark>,
}

/// One run's shared view of engine health (see the module docs). Cheap to
/// share behind an `Arc`; every [`Reachable`] of a run holds the same one.
#[derive(Debug)]
pub struct NetworkHealth {
    store: Arc<dyn BreakerStore>,
    clock: Arc<dyn Clock>,
    config: HealthConfig,
    targets: Mutex<Vec<(String, ProbeTarget)>>,
    /// The run's verdict while it lasts (a long-lived process probes again
    /// once it ends).
    verdict: tokio::sync::Mutex<Option<Verdict>>,
}

impl NetworkHealth {
    /// Health kept in `store` (shared with the breakers, or its own).
    pub fn new(store: Arc<dyn BreakerStore>) -> Self {
        NetworkHealth {
            store,
            clock: Arc::new(SystemClock),
            config: HealthConfig::default(),
            targets: Mutex::new(Vec::new()),
            verdict: tokio::sync::Mutex::new(None),
        }
    }

    /// Health for this process only.
    pub fn in_memory() -> Self {
        NetworkHealth::new(Arc::new(MemoryBreakerStore::new()))
    }

    /// Replace the numbers.
    pub fn with_config(mut self, config: HealthConfig) -> Self {
        self.config = config;
        self
    }

    /// Read time from `clock`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Probe `target` for `engine` (an engine without a target is still
    /// skipped when the whole network is offline).
    pub fn with_target(self, engine: impl Into<String>, target: ProbeTarget) -> Self {
        self.lock_targets().push((engine.into(), target));
        self
    }

    fn lock_targets(&self) -> std::sync::MutexGuard<'_, Vec<(String, ProbeTarget)>> {
        self.targets.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The stored mark under `key`, if live.
    async fn mark(&self, key: &str) -> Option<HealthMark> {
        let raw = match self.store.load(key).await {
            Ok(raw) => raw?,
            Err(e) => {
                tracing::warn!(error = %e, "health store failed; ignoring it");
                return None;
            }
        };
        let mark: HealthMark = serde_json::from_str(&raw).ok()?;
        (mark.until > self.clock.now_ms()).then_some(mark)
    }

    /// Keep `mark` under `key` until it ends.
    async fn save(&self, key: &str, mark: &HealthMark) {
        let ttl = Duration::from_millis(mark.until.saturating_sub(self.clock.now_ms()));
        let encoded = serde_json::to_string(mark).unwrap_or_default();
        for _ in 0..4 {
            let current = match self.store.load(key).await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "health store failed; the verdict is not kept");
                    return;
                }
            };
            match self
                .store
                .compare_and_swap(key, current.as_deref(), Some(&encoded), ttl)
                .await
            {
                Ok(true) => return,
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "health store failed; the verdict is not kept");
                    return;
                }
            }
        }
    }

    /// The run's verdict: the one in hand while it lasts, else the stored
    /// one, else a fresh probe (one at a time).
    async fn verdict(&self) -> Verdict {
        let mut held = self.verdict.lock().await;
        if let Some(v) = held
            .as_ref()
            .filter(|v| v.network.until > self.clock.now_ms())
        {
            return v.clone();
        }
        let verdict = match self.mark(NETWORK_KEY).await {
            Some(network) => Verdict {
                network,
                unreachable: HashMap::new(),
            },
            None => {
                let verdict = self.probe().await;
                self.save(NETWORK_KEY, &verdict.network).await;
                for (engine, mark) in &verdict.unreachable {
                    self.save(&engine_key(engine), mark).await;
                }
                verdict
            }
        };
        *held = Some(verdict.clone());
        verdict
    }

    /// Probe every target at once and judge.
    async fn probe(&self) -> Verdict {
        let targets = self.lock_targets().clone();
        let timeout = self.config.probe_timeout;
        let outcomes = futures::future::join_all(
            targets
                .iter()
                .map(|(_, t)| tokio::time::timeout(timeout, connect(t.clone()))),
        )
        .await;
        let now = self.clock.now_ms();
        let mut reasons = Vec::new();
        let mut unreachable = HashMap::new();
        let mut online = targets.is_empty();
        for ((engine, target), outcome) in targets.iter().zip(outcomes) {
            let failure = match outcome {
                Ok(Ok(())) => {
                    online = true;
                    continue;
                }
                Ok(Err(e)) => Some(e),
                Err(_) => None,
            };
            let why = failure.clone().unwrap_or_else(|| {
                format!(
                    "{}:{} no answer within {timeout:?}",
                    target.host, target.port
                )
            });
            reasons.push(format!("{engine}: {why}"));
            if let Some(e) = failure {
                let until = now + self.config.unreachable_for.as_millis() as u64;
                let mark = HealthMark {
                    status: HealthStatus::Unreachable,
                    until,
                    reason: e,
                };
                unreachable.insert(engine.clone(), mark);
            }
        }
        self.judge(online, reasons, unreachable, now)
    }

    /// The verdict from what the probe saw.
    fn judge(
        &self,
        online: bool,
        reasons: Vec<String>,
        unreachable: HashMap<String, HealthMark>,
        now: u64,
    ) -> Verdict {
        if online {
            let until = now + self.config.online_for.as_millis() as u64;
            let reason = "an engine host answered".to_string();
            return Verdict {
                network: HealthMark {
                    status: HealthStatus::Online,
                    until,
                    reason,
                },
                unreachable,
            };
        }
        let until = now + self.config.offline_for.as_millis() as u64;
        Verdict {
            network: HealthMark {
                status: HealthStatus::Offline,
                until,
                reason: reasons.join("; "),
            },
            unreachable: HashMap::new(),
        }
    }

    /// Why `engine` must not be called now, if it must not.
    pub async fn refusal(&self, engine: &str) -> Option<EngineError> {
        let verdict = self.verdict().await;
        let now = self.clock.now_ms();
        if verdict.network.status == HealthStatus::Offline {
            return Some(verdict.network.error(engine, now));
        }
        if let Some(mark) = verdict.unreachable.get(engine) {
            return Some(mark.error(engine, now));
        }
        let mark = self.mark(&engine_key(engine)).await?;
        Some(mark.error(engine, now))
    }

    /// Note how a call to `engine` ended: a blocking answer starts a
    /// cool-down.
    pub async fn record(&self, engine: &str, error: &EngineError) {
        let kind = error.kind();
        let Some((_, d)) = self.config.cool_down.iter().find(|(k, _)| *k == kind) else {
            return;
        };
        let mark = HealthMark {
            status: HealthStatus::CoolDown,
            until: self.clock.now_ms() + d.as_millis() as u64,
            reason: format!("a {kind} answer"),
        };
        self.save(&engine_key(engine), &mark).await;
    }

    /// Forget the network's verdict and `engines`' marks (a later run
    /// probes again).
    pub async fn forget(&self, engines: &[&str]) {
        let keys =
            std::iter::once(NETWORK_KEY.to_string()).chain(engines.iter().map(|e| engine_key(e)));
        for key in keys {
            if let Ok(Some(raw)) = self.store.load(&key).await {
                let _ = self
                    .store
                    .compare_and_swap(&key, Some(&raw), None, Duration::ZERO)
                    .await;
            }
        }
    }
}

/// Resolve `target` on a detached thread (a hanging resolver must not hold
/// the runtime's blocking pool, which the process waits for at exit), then
/// connect to its first addresses.
async fn connect(target: ProbeTarget) -> Result<(), String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let host = target.host.clone();
    let port = target.port;
    let spawned = std::thread::Builder::new()
        .name("ferret-probe".into())
        .spawn(move || {
            let found: std::io::Result<Vec<SocketAddr>> = (host.as_str(), port)
                .to_socket_addrs()
                .map(Iterator::collect);
            let _ = tx.send(found);
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start the probe: {e}"));
    }
    let addrs = match rx.await {
        Ok(Ok(addrs)) if !addrs.is_empty() => addrs,
        Ok(Ok(_)) => return Err(format!("{} has no address", target.host)),
        Ok(Err(e)) => return Err(format!("cannot resolve {}: {e}", target.host)),
        Err(_) => return Err(format!("cannot resolve {}", target.host)),
    };
    let mut last = String::new();
    for addr in addrs.into_iter().take(3) {
        match tokio::net::TcpStream::connect(addr).await {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("could not connect to {addr}: {e}"),
        }
    }
    Err(last)
}

/// An engine whose calls go through [`NetworkHealth`] first (see the
/// module docs).
#[derive(Debug, Clone)]
pub struct Reachable<E> {
    inner: E,
    health: Arc<NetworkHealth>,
}

impl<E: Engine> Reachable<E> {
    /// Guard `inner` with `health` (share one per run).
    pub fn new(inner: E, health: Arc<NetworkHealth>) -> Self {
        Reachable { inner, health }
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<E: Engine> Engine for Reachable<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        if let Some(refused) = self.health.refusal(self.inner.name()).await {
            return Err(refused);
        }
        let outcome = self.inner.search(request).await;
        if let Err(e) = &outcome {
            self.health.record(self.inner.name(), e).await;
        }
        outcome
    }
}

/// A [`Layer`] wrapping engines in [`Reachable`] around one shared
/// [`NetworkHealth`].
#[derive(Debug, Clone)]
pub struct ReachableLayer(pub Arc<NetworkHealth>);

impl<E: Engine> Layer<E> for ReachableLayer {
    type Engine = Reachable<E>;

    fn layer(&self, inner: E) -> Reachable<E> {
        Reachable::new(inner, self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_of_a_suspension_reads_back_from_its_message() {
        let mark = HealthMark {
            status: HealthStatus::CoolDown,
            until: 1_800_000_000_000,
            reason: "a bot_detected answer".into(),
        };
        let e = mark.error("duckduckgo", 1_799_999_000_000);
        assert_eq!(e.kind(), ErrorKind::CircuitOpen);
        assert_eq!(
            until_in(&e.to_string()).as_deref(),
            Some("2027-01-15T08:00:00Z")
        );
        assert_eq!(until_in("no time here, until later"), None);
    }

    #[test]
    fn targets_come_from_urls_with_default_ports() {
        let t = ProbeTarget::from_url("https://html.duckduckgo.com/html").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("html.duckduckgo.com", 443));
        let t = ProbeTarget::from_url("http://127.0.0.1:9").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("127.0.0.1", 9));
        assert_eq!(ProbeTarget::from_url("not a url"), None);
    }
}
