//! The cache layer: read-through, write-through, TTL tiers, and what is
//! never cached (errors, login answers).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::conformance::{Conformance, Expect};
use ferret_core::layer::EngineExt;
use ferret_core::testing::{CountingEngine, FailingEngine, FlakyEngine, StaticEngine};
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest, EngineResponse, ErrorKind,
    Intent, Provenance, Runtime,
};
use ferret_engines::cache::{
    AdmittedEntry, CacheError, CacheKey, CachedResponse, MemoryCache, SearchCache,
};
use ferret_engines::layers::{Cache, CacheLayer, CacheStats};

fn memory() -> Arc<dyn SearchCache> {
    Arc::new(MemoryCache::new())
}

#[tokio::test]
async fn a_repeated_request_is_answered_from_the_cache() {
    let counting = CountingEngine::new(StaticEngine::new("brave", 4));
    let cached = Cache::new(counting.clone(), memory());
    let first = cached
        .search(&EngineRequest::new("rust async"))
        .await
        .unwrap();
    let second = cached
        .search(&EngineRequest::new("  Rust   ASYNC "))
        .await
        .unwrap();
    assert_eq!(counting.calls(), 1);
    assert_eq!(first, second);
    assert_eq!(
        cached.stats(),
        CacheStats {
            hits: 1,
            misses: 1,
            stores: 1,
            login_refusals: 0,
            backend_errors: 0,
        }
    );
}

#[tokio::test]
async fn other_options_or_engines_miss() {
    let cache = memory();
    let a = CountingEngine::new(StaticEngine::new("brave", 4));
    let b = CountingEngine::new(StaticEngine::new("exa", 4));
    let ca = Cache::new(a.clone(), cache.clone());
    let cb = Cache::new(b.clone(), cache);
    ca.search(&EngineRequest::new("q")).await.unwrap();
    ca.search(&EngineRequest::new("q").with_max_results(2))
        .await
        .unwrap();
    cb.search(&EngineRequest::new("q")).await.unwrap();
    assert_eq!((a.calls(), b.calls()), (2, 1));
}

#[tokio::test]
async fn errors_are_never_cached() {
    let flaky = FlakyEngine::new("brave", 1, EngineError::transport("reset"), 3);
    let cached = Cache::new(flaky.clone(), memory());
    let err = cached.search(&EngineRequest::new("q")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    let ok = cached.search(&EngineRequest::new("q")).await.unwrap();
    assert_eq!(ok.hits.len(), 3);
    assert_eq!(flaky.calls(), 2);
    assert_eq!(cached.stats().stores, 1);
}

/// An engine whose answers are login-partition data.
#[derive(Debug, Clone)]
struct LoggedIn;

#[async_trait]
impl Engine for LoggedIn {
    fn name(&self) -> &str {
        "ego-bing"
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Browser)
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let mut r = StaticEngine::new("ego-bing", 2).search(request).await?;
        r.provenance = Provenance::login(Runtime::ChromiumAttached);
        Ok(r)
    }
}

#[tokio::test]
async fn login_answers_pass_through_but_are_not_stored() {
    let backend = Arc::new(MemoryCache::new());
    let counting = CountingEngine::new(LoggedIn);
    let cached = Cache::new(counting.clone(), backend.clone());
    for _ in 0..2 {
        let r = cached.search(&EngineRequest::new("my feed")).await.unwrap();
        assert_eq!(r.hits.len(), 2);
        assert!(
            r.provenance.is_login(),
            "the caller still sees the login marker"
        );
    }
    assert_eq!(counting.calls(), 2, "nothing was served from the cache");
    let stats = cached.stats();
    assert_eq!((stats.stores, stats.login_refusals), (0, 2));
    let key = cached.key_for(&EngineRequest::new("my feed"));
    assert_eq!(backend.get(&key).await.unwrap(), None);
}

/// A backend that remembers the TTL of each admitted entry.
#[derive(Debug, Default)]
struct TtlSpy {
    ttls: Mutex<Vec<Duration>>,
}

#[async_trait]
impl SearchCache for TtlSpy {
    fn backend_name(&self) -> &'static str {
        "spy"
    }
    async fn get(&self, _key: &CacheKey) -> Result<Option<CachedResponse>, CacheError> {
        Ok(None)
    }
    async fn put_admitted(&self, entry: AdmittedEntry) -> Result<(), CacheError> {
        self.ttls.lock().unwrap().push(entry.ttl());
        Ok(())
    }
    async fn delete(&self, _key: &CacheKey) -> Result<bool, CacheError> {
        Ok(false)
    }
    async fn clear(&self) -> Result<(), CacheError> {
        Ok(())
    }
}

#[tokio::test]
async fn entries_get_the_ttl_of_their_tier() {
    let spy = Arc::new(TtlSpy::default());
    let cached = Cache::new(StaticEngine::new("brave", 3), spy.clone());
    let empty = Cache::new(StaticEngine::new("void", 0), spy.clone());
    for r in [
        EngineRequest::new("rust foundation").with_intent(Intent::News),
        EngineRequest::new("tokio docs").with_intent(Intent::Resource),
        EngineRequest::new("tokio docs today").with_intent(Intent::Resource),
        EngineRequest::new("茅台股价"),
    ] {
        cached.search(&r).await.unwrap();
    }
    empty
        .search(&EngineRequest::new("tokio docs").with_intent(Intent::Resource))
        .await
        .unwrap();
    let secs: Vec<u64> = spy
        .ttls
        .lock()
        .unwrap()
        .iter()
        .map(|d| d.as_secs())
        .collect();
    assert_eq!(secs, vec![600, 86400, 900, 300, 45]);
}

/// A backend whose server is down.
#[derive(Debug)]
struct Down;

#[async_trait]
impl SearchCache for Down {
    fn backend_name(&self) -> &'static str {
        "down"
    }
    async fn get(&self, _key: &CacheKey) -> Result<Option<CachedResponse>, CacheError> {
        Err(CacheError::Backend {
            backend: "down",
            message: "connection refused".into(),
        })
    }
    async fn put_admitted(&self, _entry: AdmittedEntry) -> Result<(), CacheError> {
        Err(CacheError::Backend {
            backend: "down",
            message: "connection refused".into(),
        })
    }
    async fn delete(&self, _key: &CacheKey) -> Result<bool, CacheError> {
        Ok(false)
    }
    async fn clear(&self) -> Result<(), CacheError> {
        Ok(())
    }
}

#[tokio::test]
async fn a_failing_backend_never_fails_the_search() {
    let cached = Cache::new(StaticEngine::new("brave", 3), Arc::new(Down));
    let r = cached.search(&EngineRequest::new("q")).await.unwrap();
    assert_eq!(r.hits.len(), 3);
    assert_eq!(cached.stats().backend_errors, 2);
}

/// A backend that hands back a login payload someone else wrote.
#[derive(Debug, Default)]
struct Poisoned {
    deleted: Mutex<usize>,
}

#[async_trait]
impl SearchCache for Poisoned {
    fn backend_name(&self) -> &'static str {
        "poisoned"
    }
    async fn get(&self, _key: &CacheKey) -> Result<Option<CachedResponse>, CacheError> {
        let mut v = CachedResponse::new(
            "brave",
            EngineResponse::empty(Provenance::public(Runtime::Http)),
        );
        v.response.provenance = Provenance::login(Runtime::ChromiumManaged);
        Ok(Some(v))
    }
    async fn put_admitted(&self, _entry: AdmittedEntry) -> Result<(), CacheError> {
        Ok(())
    }
    async fn delete(&self, _key: &CacheKey) -> Result<bool, CacheError> {
        *self.deleted.lock().unwrap() += 1;
        Ok(true)
    }
    async fn clear(&self) -> Result<(), CacheError> {
        Ok(())
    }
}

#[tokio::test]
async fn a_login_entry_read_back_is_deleted_and_missed() {
    let poisoned = Arc::new(Poisoned::default());
    let counting = CountingEngine::new(StaticEngine::new("brave", 3));
    let cached = Cache::new(counting.clone(), poisoned.clone());
    let r = cached.search(&EngineRequest::new("q")).await.unwrap();
    assert_eq!(r.hits.len(), 3);
    assert!(!r.provenance.is_login());
    assert_eq!(counting.calls(), 1);
    assert_eq!(*poisoned.deleted.lock().unwrap(), 1);
    assert_eq!(cached.stats().login_refusals, 1);
}

#[tokio::test]
async fn conforms_on_success_and_error() {
    let layer = CacheLayer::new(memory());
    Conformance::new("rust")
        .check(&StaticEngine::new("static", 5).layer(layer.clone()))
        .await
        .assert_passed();
    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::Quota))
        .check(
            &FailingEngine::new(
                "paid",
                EngineError::Quota {
                    message: "out of credit".into(),
                },
            )
            .layer(layer),
        )
        .await
        .assert_passed();
}
