//! # ferret-engines
//!
//! Engine adapters for real search services, the layers that make them safe
//! to run unattended, caches, an embedded local index and record/replay.
//!
//! (Being built; module map below is filled in as each part lands.)
//!
//! - HTTP plumbing: [`http`] — one reqwest/rustls client setup
//!   ([`http::HttpClient`]: timeouts, same-site redirects, a body cap read
//!   incrementally), the status → [`EngineError`](ferret_core::EngineError)
//!   table every adapter shares ([`http::status`]), captcha/challenge/quota
//!   word tables, an injectable clock, and builder options
//!   ([`http::ServiceConfig`]: base URL, key, timeout, body cap).
//! - API adapters, each `XEngine::builder()….build()`: [`brave`] (Web,
//!   freshness pushdown), [`exa`] (Neural, type per intent), [`tavily`]
//!   (Answer), [`llm`] (a reusable OpenAI-compatible
//!   [`llm::ChatClient`] and the [`llm::GrokEngine`]), [`searxng`] (Web),
//!   [`wikipedia`] (Reference), [`github`] (Code: issues and/or
//!   repositories).
//! - Result-page scrapers: [`duckduckgo`] (HTML endpoint) and [`bing`], with
//!   challenge-page detection and Bing's unrelated-page check.
//! - Layers: [`layers`] (retry, circuit breaker, throttle, concurrency limit,
//!   single-flight, cache).
//! - Offline: [`rows`] (caller-supplied rows), [`replay`] (record/replay).

pub mod bing;
pub mod brave;
pub mod cache;
pub mod duckduckgo;
pub mod exa;
pub mod github;
pub mod health;
pub mod http;
pub mod layers;
pub mod llm;
#[cfg(feature = "local-index")]
pub mod local_index;
pub mod replay;
pub mod rows;
pub mod searxng;
#[cfg(feature = "sqlite")]
mod sqlite_file;
pub mod tavily;
pub mod wikipedia;

pub use bing::BingEngine;
pub use brave::BraveEngine;
pub use cache::MemoryCache;
pub use duckduckgo::DuckDuckGoEngine;
pub use exa::ExaEngine;
pub use github::GithubEngine;
pub use http::HttpClient;
pub use llm::{ChatClient, GrokEngine};
pub use replay::ReplayEngine;
pub use rows::RowsEngine;
pub use searxng::SearxngEngine;
pub use tavily::TavilyEngine;
pub use wikipedia::WikipediaEngine;
