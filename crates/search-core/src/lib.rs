//! # ferret-core
//!
//! The brain every other Ferret crate plugs into. It does no network I/O of
//! its own (beyond DNS in the URL guard's strict mode).
//!
//! A query's path, one module per step:
//!
//! ```text
//! query ─► intent ─► plan ─► fanout (engine × sub-query) ─► fusion ─► near_dup ─► SearchResponse
//! ```
//!
//! - Vocabulary: [`query`] ([`Intent`], [`Mode`], [`Freshness`], [`Weights`]),
//!   [`tokenize`] (CJK-aware tokens).
//! - Engines: [`engine`] (the [`Engine`] trait, [`EngineRequest`],
//!   [`EngineResponse`], [`EngineHit`], [`EngineCapabilities`]), [`error`]
//!   ([`EngineError`] and [`ErrorKind`]), [`layer`] (engines that wrap
//!   engines, e.g. [`layer::Timeout`]), [`conformance`] (the contract suite
//!   every engine and layer passes), [`testing`] (in-process engines).
//! - Controls: [`controls`] (domains to include or exclude, a date range,
//!   region, safe search, page; which engines push each down; the
//!   filters that apply domains and dates to fused results).
//! - Planning: [`intent`] (classification and per-intent tables), [`plan`]
//!   (sub-queries, constraints, the [`plan::Planner`] trait).
//! - Running: [`fanout`] (concurrent calls, deadlines, per-engine reports,
//!   progress events).
//! - Merging: [`canonical`] (the canonical URL), [`authority`],
//!   [`freshness`] and [`fusion`] (weighted RRF and intent scores),
//!   [`near_dup`] (SimHash clusters), [`rows`] (external result rows).
//! - Re-ranking: [`goggles`] (Brave Goggles: parser, built-in presets,
//!   FinalScore with source tiers and conflict flags).
//! - The whole path: [`search`] (plan → fanout → fuse → [`SearchResponse`]).
//! - Output: [`result`] ([`SearchResult`]), [`response`] ([`SearchResponse`],
//!   `ferret.search.v1`), [`provenance`] (partitions and cache eligibility),
//!   [`text`] ([`Text`], the shared strings hits and results hold).
//! - Safety: [`guard`] (the URL guard used by every fetch, navigation and
//!   redirect hop).
//! - Politeness: [`politeness`] (the proxy every HTTP client goes through,
//!   and the per-host limiter the fetcher and the scraped engines share).
//! - Internal: `workers` (joining the scoped threads of large fusions).

pub mod authority;
pub mod canonical;
pub mod chat;
pub mod conformance;
pub mod controls;
pub mod engine;
pub mod error;
pub mod fanout;
pub mod freshness;
pub mod fusion;
pub mod goggles;
pub mod guard;
pub mod intent;
pub mod layer;
pub mod near_dup;
pub mod plan;
pub mod politeness;
pub mod provenance;
pub mod query;
pub mod response;
pub mod result;
pub mod rows;
pub mod search;
pub mod testing;
pub mod text;
pub mod tier;

pub use ferret_text::{dates, quality, tokenize};

pub use controls::{Control, ControlError, ControlSet, SafeSearch};
pub use engine::{
    DynEngine, Engine, EngineCapabilities, EngineHit, EngineKind, EngineRequest, EngineResponse,
};
pub use error::{EngineError, ErrorKind};
pub use provenance::{Partition, Provenance, ProvenanceClaim, Runtime};
pub use query::{Freshness, Intent, Mode, Weights};
pub use response::{
    DropReason, DroppedRow, EngineCall, EngineReport, EngineStatus, SearchResponse,
};
pub use result::{Scores, SearchResult, SourceHit};
pub use text::Text;
pub use tier::SourceTier;
