//! # ferret
//!
//! Evidence-grade web search for AI agents. This facade re-exports the
//! workspace's crates:
//!
//! - [`core`] (`ferret-core`): types, the `Engine` trait and layers,
//!   planning, fanout, fusion, dedup and the URL guard.

pub use ferret_core as core;
