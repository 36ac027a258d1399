//! The breaker-store conformance suite: the contract every [`BreakerStore`]
//! keeps (memory, SQLite, Redis, …), runnable against any of them.
//!
//! What is checked: a missing key loads as absent; a swap from absent
//! writes; a swap whose expectation is stale is refused and changes
//! nothing; a swap replaces and deletes; keys are independent; a value
//! expires after its TTL and a swap from absent succeeds again afterwards.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use ferret_engines::layers::MemoryBreakerStore;
//! use ferret_engines::layers::breaker::conformance::StoreConformance;
//! StoreConformance::new().check(&MemoryBreakerStore::new()).await.unwrap();
//! # });
//! ```

use std::time::Duration;

use super::store::BreakerStore;

/// A conformance run's configuration.
#[derive(Debug, Clone)]
pub struct StoreConformance {
    ttl_probe: Duration,
    run_id: String,
}

impl Default for StoreConformance {
    fn default() -> Self {
        StoreConformance::new()
    }
}

/// One step's outcome: what went wrong, if anything.
type Step = Result<(), String>;

impl StoreConformance {
    /// A run with a 300 ms TTL probe and fresh keys (so a shared store's
    /// other values are never touched).
    pub fn new() -> Self {
        StoreConformance {
            ttl_probe: Duration::from_millis(300),
            run_id: format!("{:016x}", fastrand::u64(..)),
        }
    }

    /// The TTL used to check expiry (the suite waits about twice as long).
    pub fn ttl_probe(mut self, ttl: Duration) -> Self {
        self.ttl_probe = ttl;
        self
    }

    fn key(&self, name: &str) -> String {
        format!("conformance-{}-{name}", self.run_id)
    }

    /// Run every check against `store`; the first failure is returned.
    pub async fn check<S: BreakerStore + ?Sized>(&self, store: &S) -> Step {
        self.swaps(store).await?;
        self.independent_keys(store).await?;
        self.expiry(store).await
    }

    /// Absent → a → (stale refused) → b → deleted.
    async fn swaps<S: BreakerStore + ?Sized>(&self, store: &S) -> Step {
        let k = self.key("swaps");
        let ttl = Duration::from_secs(600);
        expect_load(store, &k, None, "a missing key").await?;
        expect_swap(store, &k, None, Some("a"), ttl, true, "a swap from absent").await?;
        expect_load(store, &k, Some("a"), "after the first swap").await?;
        expect_swap(
            store,
            &k,
            None,
            Some("x"),
            ttl,
            false,
            "a swap expecting absent",
        )
        .await?;
        expect_swap(store, &k, Some("z"), Some("x"), ttl, false, "a stale swap").await?;
        expect_load(store, &k, Some("a"), "after refused swaps").await?;
        expect_swap(
            store,
            &k,
            Some("a"),
            Some("b"),
            ttl,
            true,
            "a replacing swap",
        )
        .await?;
        expect_load(store, &k, Some("b"), "after replacing").await?;
        expect_swap(store, &k, Some("b"), None, ttl, true, "a deleting swap").await?;
        expect_load(store, &k, None, "after deleting").await
    }

    /// A write under one key leaves another alone.
    async fn independent_keys<S: BreakerStore + ?Sized>(&self, store: &S) -> Step {
        let (a, b) = (self.key("one"), self.key("two"));
        let ttl = Duration::from_secs(600);
        expect_swap(store, &a, None, Some("1"), ttl, true, "writing key one").await?;
        expect_load(store, &b, None, "key two after writing key one").await?;
        expect_swap(store, &a, Some("1"), None, ttl, true, "deleting key one").await
    }

    /// A value is gone after its TTL; a swap from absent then succeeds.
    async fn expiry<S: BreakerStore + ?Sized>(&self, store: &S) -> Step {
        let k = self.key("ttl");
        let ttl = self.ttl_probe;
        expect_swap(store, &k, None, Some("t"), ttl, true, "a short-lived write").await?;
        expect_load(store, &k, Some("t"), "before the TTL").await?;
        tokio::time::sleep(ttl * 2 + Duration::from_millis(50)).await;
        expect_load(store, &k, None, "after the TTL").await?;
        expect_swap(store, &k, None, Some("u"), ttl, true, "a swap after expiry").await?;
        expect_swap(store, &k, Some("u"), None, ttl, true, "cleaning up").await
    }
}

async fn expect_load<S: BreakerStore + ?Sized>(
    store: &S,
    key: &str,
    want: Option<&str>,
    when: &str,
) -> Step {
    match store.load(key).await {
        Ok(got) if got.as_deref() == want => Ok(()),
        Ok(got) => Err(format!(
            "{}: load {when}: got {got:?}, want {want:?}",
            store.store_name()
        )),
        Err(e) => Err(format!("{}: load {when} failed: {e}", store.store_name())),
    }
}

async fn expect_swap<S: BreakerStore + ?Sized>(
    store: &S,
    key: &str,
    expected: Option<&str>,
    new: Option<&str>,
    ttl: Duration,
    want: bool,
    what: &str,
) -> Step {
    match store.compare_and_swap(key, expected, new, ttl).await {
        Ok(got) if got == want => Ok(()),
        Ok(got) => Err(format!(
            "{}: {what} returned {got}, want {want}",
            store.store_name()
        )),
        Err(e) => Err(format!("{}: {what} failed: {e}", store.store_name())),
    }
}
