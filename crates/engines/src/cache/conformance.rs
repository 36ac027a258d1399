//! The cache conformance suite: the contract every [`SearchCache`] backend
//! keeps, runnable against any of them (memory, SQLite, Redis, …).
//!
//! What is checked: a missing key is a miss; a put is read back unchanged;
//! a second put replaces the first; delete reports whether it removed
//! something; entries expire after their TTL; clear empties the cache; and
//! every kind of login-partition payload is refused with
//! [`CacheError::LoginPartitionRejected`] and never read back.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use ferret_engines::cache::{MemoryCache, conformance::CacheConformance};
//! CacheConformance::new().check(&MemoryCache::new()).await.assert_passed();
//! # });
//! ```

use std::fmt;
use std::time::Duration;

use ferret_core::{EngineHit, EngineRequest, EngineResponse, Partition, Provenance, Runtime};

use super::{CacheError, CacheKey, CachedResponse, SearchCache, SearchCacheExt};

/// A conformance run's configuration.
#[derive(Debug, Clone)]
pub struct CacheConformance {
    ttl_probe: Duration,
    run_id: String,
}

impl Default for CacheConformance {
    fn default() -> Self {
        CacheConformance::new()
    }
}

impl CacheConformance {
    /// A run with a 300 ms TTL probe and fresh keys (so a shared backend's
    /// other entries are not touched, except by the final `clear`).
    pub fn new() -> Self {
        CacheConformance {
            ttl_probe: Duration::from_millis(300),
            run_id: format!("{:016x}", fastrand::u64(..)),
        }
    }

    /// The TTL used to check expiry (the suite waits twice as long).
    pub fn ttl_probe(mut self, ttl: Duration) -> Self {
        self.ttl_probe = ttl;
        self
    }

    /// The login-guard property for one payload, for property tests over
    /// random provenance: a `put` with `provenance` must succeed and read
    /// back unchanged when the data may be cached, and must fail with
    /// [`CacheError::LoginPartitionRejected`] and read back nothing when it
    /// is login data ([`super::login_marker`]). Returns what went wrong.
    pub async fn check_provenance<C: SearchCache + ?Sized>(
        &self,
        cache: &C,
        provenance: Provenance,
    ) -> Result<(), String> {
        let k = self.key(&format!("provenance {provenance:?}"));
        let mut value = sample("provenance", 2);
        value.response.provenance = provenance.clone();
        let login = super::login_marker(&value.engine, &provenance).is_some();
        let put = cache.put(&k, value.clone(), Duration::from_secs(600)).await;
        let got = cache
            .get(&k)
            .await
            .map_err(|e| format!("get failed: {e}"))?;
        let _ = cache.delete(&k).await;
        match (login, put, got) {
            (true, Err(CacheError::LoginPartitionRejected { .. }), None) => Ok(()),
            (true, put, got) => Err(format!(
                "login payload {provenance:?}: put gave {put:?}, read back {got:?}"
            )),
            (false, Ok(()), Some(back)) if back == value => Ok(()),
            (false, put, got) => Err(format!(
                "public payload {provenance:?}: put gave {put:?}, read back {got:?}"
            )),
        }
    }

    fn key(&self, name: &str) -> CacheKey {
        CacheKey::for_request(
            "conformance",
            &EngineRequest::new(format!("{} {name}", self.run_id)),
        )
    }

    /// Run every check against `cache`, ending with `clear`.
    pub async fn check<C: SearchCache + ?Sized>(&self, cache: &C) -> CacheConformanceReport {
        let mut r = CacheConformanceReport {
            backend: cache.backend_name().to_string(),
            failures: Vec::new(),
        };
        let ttl = Duration::from_secs(600);

        // Miss, put, read back, replace.
        let k = self.key("basic");
        r.expect_ok("get of a missing key", cache.get(&k).await, |v| v.is_none());
        let first = sample("one", 2);
        r.expect_ok("put", cache.put(&k, first.clone(), ttl).await, |_| true);
        r.expect_ok("read back", cache.get(&k).await, |v| {
            v.as_ref() == Some(&first)
        });
        let second = sample("two", 3);
        r.expect_ok("replace", cache.put(&k, second.clone(), ttl).await, |_| {
            true
        });
        r.expect_ok("read replaced", cache.get(&k).await, |v| {
            v.as_ref() == Some(&second)
        });

        // Delete.
        r.expect_ok("delete present", cache.delete(&k).await, |removed| *removed);
        r.expect_ok("delete absent", cache.delete(&k).await, |removed| !*removed);
        r.expect_ok("get after delete", cache.get(&k).await, |v| v.is_none());

        // Login payloads.
        for (what, provenance) in login_provenances() {
            let k = self.key(what);
            let mut value = sample(what, 1);
            value.response.provenance = provenance;
            match cache.put(&k, value, ttl).await {
                Err(CacheError::LoginPartitionRejected { .. }) => {}
                other => r.fail(format!(
                    "login payload ({what}): expected LoginPartitionRejected, got {other:?}"
                )),
            }
            r.expect_ok(
                &format!("get after refused login put ({what})"),
                cache.get(&k).await,
                |v| v.is_none(),
            );
        }

        // Expiry.
        let k = self.key("expiry");
        r.expect_ok(
            "put with short TTL",
            cache.put(&k, sample("short", 1), self.ttl_probe).await,
            |_| true,
        );
        tokio::time::sleep(self.ttl_probe * 2).await;
        r.expect_ok("get after TTL", cache.get(&k).await, |v| v.is_none());

        // Clear.
        let k = self.key("clear");
        r.expect_ok(
            "put before clear",
            cache.put(&k, sample("c", 1), ttl).await,
            |_| true,
        );
        r.expect_ok("clear", cache.clear().await, |_| true);
        r.expect_ok("get after clear", cache.get(&k).await, |v| v.is_none());
        r
    }
}

fn sample(tag: &str, hits: u32) -> CachedResponse {
    let hits = (1..=hits)
        .map(|i| {
            EngineHit::new(
                i,
                format!("https://{tag}.example/{i}"),
                format!("{tag} {i}"),
                "snippet",
            )
        })
        .collect();
    let mut response = EngineResponse::new(Provenance::public(Runtime::Http), hits);
    response.warnings.push(format!("warning {tag}"));
    CachedResponse::new("conformance", response)
}

/// One provenance per login marker.
fn login_provenances() -> Vec<(&'static str, Provenance)> {
    let mut partition = Provenance::public(Runtime::Http);
    partition.search_partition = Partition::Login;
    let mut state = Provenance::public(Runtime::Http);
    state.login_state_used = true;
    let mut auth = Provenance::public(Runtime::Http);
    auth.auth_partition = "login:zhihu".into();
    let mut ineligible = Provenance::public(Runtime::Http);
    ineligible.cache_eligible = false;
    vec![
        ("login", Provenance::login(Runtime::ChromiumManaged)),
        ("partition", partition),
        ("state", state),
        ("auth", auth),
        ("ineligible", ineligible),
        ("attached", Provenance::login(Runtime::ChromiumAttached)),
    ]
}

/// The outcome of a [`CacheConformance`] run.
#[derive(Debug, Clone)]
pub struct CacheConformanceReport {
    /// The backend checked.
    pub backend: String,
    /// Failed checks, one line each.
    pub failures: Vec<String>,
}

impl CacheConformanceReport {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// Panic with the report unless every check passed (for tests).
    pub fn assert_passed(&self) {
        assert!(self.passed(), "{self}");
    }

    fn fail(&mut self, msg: String) {
        self.failures.push(msg);
    }

    fn expect_ok<T: fmt::Debug>(
        &mut self,
        what: &str,
        got: Result<T, CacheError>,
        ok: impl FnOnce(&T) -> bool,
    ) {
        match got {
            Ok(v) if ok(&v) => {}
            Ok(v) => self.fail(format!("{what}: unexpected {v:?}")),
            Err(e) => self.fail(format!("{what}: {e}")),
        }
    }
}

impl fmt::Display for CacheConformanceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cache conformance of {}: {} failed",
            self.backend,
            self.failures.len()
        )?;
        for line in &self.failures {
            write!(f, "\n  - {line}")?;
        }
        Ok(())
    }
}
