//! # ferret
//!
//! Evidence-grade web search for AI agents: plan the query, fan it out to
//! many engines, fuse and deduplicate, fetch the original pages, extract
//! what they say, and decide whether the evidence is sufficient.
//!
//! Start with [`Ferret::builder`]: add engines (each behind its default layer
//! stack), optionally a cache, then [`Ferret::search`]. [`env`](mod@env) builds the
//! engines an environment configures (`BRAVE_API_KEY`, …).
//!
//! This facade re-exports the workspace's crates:
//!
//! - [`text`] (`ferret-text`): the one tokenizer, analyzers, sentences,
//!   stemming, stopwords, facts and dates.
//! - [`extract`] (`ferret-extract`): main-content extraction from bytes,
//!   page bounds, highlights, the safety scan, structured extraction.
//! - [`fetch`] (`ferret-fetch`): the fetch ladder, verdicts, the page
//!   cache, thread references.
//! - [`core`] (`ferret-core`): types, the `Engine` trait and layers,
//!   planning, fanout, fusion, dedup and the URL guard.
//! - [`engines`] (`ferret-engines`): engine adapters, layers (retry, circuit
//!   breaker, throttle, concurrency limit, single-flight, cache), caches and
//!   record/replay.
//!
//! Its own modules: [`agent`] (the tools for agents: definitions, one
//! dispatcher, answers sized for a model), [`builder`] ([`Ferret`], [`FerretBuilder`]), [`env`](mod@env)
//! (engines from environment variables), [`error`] ([`FerretError`]),
//! [`mcp`] (the MCP server, feature `mcp`), `rig` (search, fetch and research as rig-core tools, feature `rig`),
//! [`setup`] (everything the environment configures: engines, the local
//! index seeded from the embedded user guide, the cache, the fetcher).

pub mod agent;
pub mod builder;
pub mod env;
pub mod error;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "rig")]
pub mod rig;
pub mod setup;

pub use builder::{Ferret, FerretBuilder};
pub use error::FerretError;
/// The browser runtime (`ferret-browser`, feature `browser`).
#[cfg(feature = "browser")]
pub use ferret_browser as browser;
pub use ferret_core as core;
pub use ferret_engines as engines;
/// Fetching, verdicts, the judgement and research (`ferret-evidence`).
pub use ferret_evidence as evidence;
/// Main-content extraction from bytes (`ferret-extract`).
pub use ferret_extract as extract;
/// Fetching pages and their verdicts (`ferret-fetch`).
pub use ferret_fetch as fetch;
/// Site skills: validated site packages run in the browser
/// (`ferret-site-skills`, feature `browser`).
#[cfg(feature = "browser")]
pub use ferret_site_skills as site_skills;
/// Text analysis (`ferret-text`).
pub use ferret_text as text;
