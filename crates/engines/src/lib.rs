//! # ferret-engines
//!
//! Engine adapters for real search services, the layers that make them safe
//! to run unattended, caches, an embedded local index and record/replay.
//!
//! (Being built; module map below is filled in as each part lands.)
//!
//! - HTTP plumbing: [`http`] (client, status → error mapping, body caps).
//! - Adapters: [`brave`], [`exa`], [`tavily`], [`llm`] (OpenAI-compatible
//!   chat completions, Grok), [`searxng`], [`duckduckgo`], [`bing`],
//!   [`wikipedia`], [`github`].
//! - Layers: [`layers`] (retry, circuit breaker, throttle, concurrency limit,
//!   single-flight, cache).
//! - Offline: [`rows`] (caller-supplied rows), [`replay`] (record/replay).

pub mod bing;
pub mod brave;
pub mod cache;
pub mod duckduckgo;
pub mod exa;
pub mod github;
pub mod http;
pub mod layers;
pub mod llm;
pub mod replay;
pub mod rows;
pub mod searxng;
pub mod tavily;
pub mod wikipedia;
