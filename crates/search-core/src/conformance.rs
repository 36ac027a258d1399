//! The engine conformance suite: the contract every [`Engine`] and every
//! layer must keep, runnable against any of them.
//!
//! ```
//! # tokio_test_block_on(async {
//! use ferret_core::conformance::{Conformance, Expect};
//! use ferret_core::testing::StaticEngine;
//!
//! let report = Conformance::new("rust async").expect(Expect::Hits { min: 1 })
//!     .check(&StaticEngine::new("static", 5)).await;
//! assert!(report.passed(), "{report}");
//! # });
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Runtime::new().unwrap().block_on(f)
//! # }
//! ```
//!
//! What is checked:
//! - the name is non-empty, made of `[a-z0-9._:-]`, and stable;
//! - capabilities name at least one kind, allow at least one result, and are stable;
//! - a blank query and `max_results = 0` are [`ErrorKind::InvalidQuery`], not a panic or hits;
//! - the probe query gives the expected outcome (hits, or one error kind);
//! - hits have ranks ≥ 1 in strictly increasing order, absolute http(s)
//!   URLs, and never more than `max_results`;
//! - an error's `is_temporary` agrees with its kind;
//! - concurrent identical calls all succeed or all fail with the same kind;
//! - a call cancelled mid-flight leaves the engine usable;
//! - deterministic engines give the same URLs twice.

use std::fmt;
use std::time::Duration;

use crate::engine::{Engine, EngineRequest, EngineResponse};
use crate::error::{EngineError, ErrorKind};

/// The outcome the probe query must have.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// Success with at least `min` hits.
    Hits {
        /// Minimum number of hits.
        min: usize,
    },
    /// Failure of this kind.
    Error(ErrorKind),
    /// Either success or any typed error (for engines whose outcome depends
    /// on the environment).
    Any,
}

/// A conformance run's configuration. Build with [`Conformance::new`], then
/// [`Conformance::check`] an engine.
#[derive(Debug, Clone)]
pub struct Conformance {
    query: String,
    expect: Expect,
    deterministic: bool,
    concurrency: usize,
    small_max: usize,
    cancel_after: Duration,
    per_call_budget: Duration,
}

impl Conformance {
    /// A run that probes with `query`, expecting hits.
    pub fn new(query: impl Into<String>) -> Self {
        Conformance {
            query: query.into(),
            expect: Expect::Hits { min: 1 },
            deterministic: true,
            concurrency: 8,
            small_max: 2,
            cancel_after: Duration::from_millis(1),
            per_call_budget: Duration::from_secs(30),
        }
    }

    /// Set the expected outcome of the probe query.
    pub fn expect(mut self, expect: Expect) -> Self {
        self.expect = expect;
        self
    }

    /// Whether two identical calls must return the same URLs (default true).
    pub fn deterministic(mut self, yes: bool) -> Self {
        self.deterministic = yes;
        self
    }

    /// How many identical calls to run at once (default 8).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// The most any single call may take before the suite calls it hung
    /// (default 30 s).
    pub fn per_call_budget(mut self, d: Duration) -> Self {
        self.per_call_budget = d;
        self
    }

    /// Run every check against `engine`.
    pub async fn check<E: Engine + ?Sized>(&self, engine: &E) -> ConformanceReport {
        let mut r = ConformanceReport {
            engine: engine.name().to_string(),
            checks: 0,
            failures: Vec::new(),
        };
        check_identity(&mut r, engine);
        self.check_invalid_requests(&mut r, engine).await;

        // The probe query.
        let req = EngineRequest::new(self.query.clone());
        let first = self.call(engine, &req).await;
        match &first {
            Err(()) => r.fail("probe query: no answer within the budget"),
            Ok(outcome) => self.check_outcome(&mut r, "probe query", &req, outcome),
        }

        self.check_small_max(&mut r, engine).await;
        self.check_concurrency(&mut r, engine, &req).await;
        self.check_cancellation(&mut r, engine, &req).await;

        // Determinism.
        if self.deterministic
            && let Ok(Ok(a)) = &first
            && let Ok(Ok(b)) = self.call(engine, &req).await
        {
            let ua: Vec<&str> = a.hits.iter().map(|h| h.url.as_str()).collect();
            let ub: Vec<&str> = b.hits.iter().map(|h| h.url.as_str()).collect();
            r.expect(ua == ub, "two identical calls returned different URLs");
        }
        r
    }

    /// A blank query and `max_results = 0` are invalid queries.
    async fn check_invalid_requests<E: Engine + ?Sized>(
        &self,
        r: &mut ConformanceReport,
        engine: &E,
    ) {
        for (what, req) in [
            ("blank query", EngineRequest::new("  \t ")),
            (
                "max_results = 0",
                EngineRequest::new(self.query.clone()).with_max_results(0),
            ),
        ] {
            match self.call(engine, &req).await {
                Ok(Ok(resp)) => r.fail(format!(
                    "{what}: expected invalid_query, got {} hits",
                    resp.hits.len()
                )),
                Ok(Err(e)) => r.expect(
                    e.kind() == ErrorKind::InvalidQuery,
                    format!("{what}: expected invalid_query, got {}: {e}", e.kind()),
                ),
                Err(()) => r.fail(format!("{what}: no answer within the budget")),
            }
        }
    }

    /// A small `max_results` is honoured.
    async fn check_small_max<E: Engine + ?Sized>(&self, r: &mut ConformanceReport, engine: &E) {
        let small = EngineRequest::new(self.query.clone()).with_max_results(self.small_max);
        if let Ok(Ok(resp)) = self.call(engine, &small).await {
            r.expect(
                resp.hits.len() <= self.small_max,
                format!(
                    "max_results = {} returned {} hits",
                    self.small_max,
                    resp.hits.len()
                ),
            );
        }
    }

    /// Identical concurrent calls all answer and agree.
    async fn check_concurrency<E: Engine + ?Sized>(
        &self,
        r: &mut ConformanceReport,
        engine: &E,
        req: &EngineRequest,
    ) {
        let calls = (0..self.concurrency).map(|_| self.call(engine, req));
        let outcomes = futures::future::join_all(calls).await;
        let classes: Vec<Result<(), ErrorKind>> = outcomes
            .iter()
            .filter_map(|o| o.as_ref().ok())
            .map(|o| o.as_ref().map(|_| ()).map_err(|e| e.kind()))
            .collect();
        r.expect(
            classes.len() == self.concurrency,
            format!(
                "{} of {} concurrent calls did not answer within the budget",
                self.concurrency - classes.len(),
                self.concurrency
            ),
        );
        if self.deterministic {
            r.expect(
                classes.windows(2).all(|w| w[0] == w[1]),
                format!("concurrent identical calls disagree: {classes:?}"),
            );
        }
        for o in outcomes.iter().filter_map(|o| o.as_ref().ok()) {
            self.check_outcome(r, "concurrent call", req, o);
        }
    }

    /// A call cancelled mid-flight leaves the engine usable.
    async fn check_cancellation<E: Engine + ?Sized>(
        &self,
        r: &mut ConformanceReport,
        engine: &E,
        req: &EngineRequest,
    ) {
        let _ = tokio::time::timeout(self.cancel_after, engine.search(req)).await;
        match self.call(engine, req).await {
            Err(()) => r.fail("after a cancelled call: no answer within the budget"),
            Ok(o) => self.check_outcome(r, "after a cancelled call", req, &o),
        }
    }

    async fn call<E: Engine + ?Sized>(
        &self,
        engine: &E,
        req: &EngineRequest,
    ) -> Result<Result<EngineResponse, EngineError>, ()> {
        tokio::time::timeout(self.per_call_budget, engine.search(req))
            .await
            .map_err(|_| ())
    }

    fn check_outcome(
        &self,
        r: &mut ConformanceReport,
        what: &str,
        req: &EngineRequest,
        outcome: &Result<EngineResponse, EngineError>,
    ) {
        match (outcome, &self.expect) {
            (Ok(resp), Expect::Hits { min }) => {
                r.expect(
                    resp.hits.len() >= *min,
                    format!(
                        "{what}: expected at least {min} hits, got {}",
                        resp.hits.len()
                    ),
                );
                check_hits(r, what, req, resp);
            }
            (Ok(resp), Expect::Any) => check_hits(r, what, req, resp),
            (Ok(resp), Expect::Error(kind)) => r.fail(format!(
                "{what}: expected {kind}, got {} hits",
                resp.hits.len()
            )),
            (Err(e), Expect::Error(kind)) => {
                r.expect(
                    e.kind() == *kind,
                    format!("{what}: expected {kind}, got {}: {e}", e.kind()),
                );
                check_error(r, what, e);
            }
            (Err(e), Expect::Any) => {
                r.expect(
                    e.kind() != ErrorKind::InvalidQuery,
                    format!("{what}: a valid query was called invalid: {e}"),
                );
                check_error(r, what, e);
            }
            (Err(e), Expect::Hits { .. }) => {
                r.fail(format!("{what}: expected hits, got {}: {e}", e.kind()))
            }
        }
    }
}

/// The name is well-formed and stable; capabilities are sane and stable.
fn check_identity<E: Engine + ?Sized>(r: &mut ConformanceReport, engine: &E) {
    let name = engine.name().to_string();
    r.expect(!name.is_empty(), "name is empty");
    r.expect(
        name.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._:-".contains(c)),
        format!("name {name:?} has characters outside [a-z0-9._:-]"),
    );
    r.expect(engine.name() == name, "name changed between calls");
    let caps = engine.capabilities();
    r.expect(!caps.kinds.is_empty(), "capabilities name no kind");
    r.expect(caps.max_results >= 1, "capabilities allow 0 results");
    r.expect(
        engine.capabilities() == caps,
        "capabilities changed between calls",
    );
}

fn check_hits(r: &mut ConformanceReport, what: &str, req: &EngineRequest, resp: &EngineResponse) {
    r.expect(
        resp.hits.len() <= req.max_results,
        format!(
            "{what}: {} hits for max_results {}",
            resp.hits.len(),
            req.max_results
        ),
    );
    let mut last = 0u32;
    for h in &resp.hits {
        r.expect(h.rank >= 1, format!("{what}: rank 0 for {}", h.url));
        r.expect(
            h.rank > last,
            format!("{what}: rank {} after {last} is not increasing", h.rank),
        );
        last = h.rank;
        let ok = url::Url::parse(&h.url)
            .map(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .unwrap_or(false);
        r.expect(
            ok,
            format!("{what}: {:?} is not an absolute http(s) URL", h.url),
        );
    }
}

fn check_error(r: &mut ConformanceReport, what: &str, e: &EngineError) {
    let expected_temporary = match e {
        EngineError::RateLimited { .. } | EngineError::Timeout { .. } => Some(true),
        EngineError::Transport { .. } => None,
        _ => Some(false),
    };
    if let Some(t) = expected_temporary {
        r.expect(
            e.is_temporary() == t,
            format!(
                "{what}: {} error says temporary={}",
                e.kind(),
                e.is_temporary()
            ),
        );
    }
    r.expect(
        !e.to_string().is_empty(),
        format!("{what}: error has no message"),
    );
}

/// What a conformance run found.
#[derive(Debug, Clone)]
pub struct ConformanceReport {
    /// The engine's name.
    pub engine: String,
    /// How many checks ran.
    pub checks: usize,
    /// A line per failed check.
    pub failures: Vec<String>,
}

impl ConformanceReport {
    /// True when no check failed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// Panic with every failure listed unless the run passed.
    pub fn assert_passed(&self) {
        assert!(self.passed(), "{self}");
    }

    fn expect(&mut self, ok: bool, msg: impl Into<String>) {
        self.checks += 1;
        if !ok {
            self.failures.push(msg.into());
        }
    }

    fn fail(&mut self, msg: impl Into<String>) {
        self.expect(false, msg);
    }
}

impl fmt::Display for ConformanceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "conformance of {:?}: {} checks, {} failed",
            self.engine,
            self.checks,
            self.failures.len()
        )?;
        for line in &self.failures {
            write!(f, "\n  - {line}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Provenance;
    use crate::Runtime;
    use crate::engine::{EngineCapabilities, EngineHit};
    use crate::layer::{EngineExt, TimeoutLayer};
    use crate::testing::{FailingEngine, SlowEngine, StaticEngine};
    use async_trait::async_trait;

    #[tokio::test]
    async fn static_engine_conforms() {
        Conformance::new("rust")
            .check(&StaticEngine::new("static", 5))
            .await
            .assert_passed();
    }

    #[tokio::test]
    async fn timeout_layer_conforms_on_success_and_on_timeout() {
        Conformance::new("rust")
            .check(&StaticEngine::new("static", 5).layer(TimeoutLayer::new(Duration::from_secs(5))))
            .await
            .assert_passed();
        Conformance::new("rust")
            .expect(Expect::Error(ErrorKind::Timeout))
            .check(&SlowEngine::hanging("hang").layer(TimeoutLayer::new(Duration::from_millis(20))))
            .await
            .assert_passed();
    }

    #[tokio::test]
    async fn failing_engine_conforms_with_its_kind() {
        let e = FailingEngine::new(
            "bad",
            EngineError::RateLimited {
                retry_after: Some(Duration::from_secs(3)),
                message: "429".into(),
            },
        );
        Conformance::new("q")
            .expect(Expect::Error(ErrorKind::RateLimited))
            .check(&e)
            .await
            .assert_passed();
    }

    /// An engine that breaks the contract in several ways at once.
    #[derive(Debug)]
    struct Broken;

    #[async_trait]
    impl Engine for Broken {
        fn name(&self) -> &str {
            "Broken Engine"
        }
        fn capabilities(&self) -> EngineCapabilities {
            EngineCapabilities {
                kinds: vec![],
                ..EngineCapabilities::new(crate::engine::EngineKind::Web)
            }
        }
        async fn search(&self, _r: &EngineRequest) -> Result<EngineResponse, EngineError> {
            Ok(EngineResponse::new(
                Provenance::public(Runtime::Http),
                vec![
                    EngineHit::new(2, "ftp://x.example/", "t", "s"),
                    EngineHit::new(1, "/relative", "t", "s"),
                    EngineHit::new(3, "https://ok.example/", "t", "s"),
                ],
            ))
        }
    }

    #[tokio::test]
    async fn a_broken_engine_fails_with_every_problem_listed() {
        let report = Conformance::new("q").check(&Broken).await;
        assert!(!report.passed());
        let text = report.to_string();
        for needle in [
            "outside [a-z0-9._:-]",
            "no kind",
            "blank query",
            "max_results = 0",
            "not increasing",
            "not an absolute http(s) URL",
            "max_results = 2 returned 3 hits",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
    }
}
