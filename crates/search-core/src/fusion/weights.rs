//! The RRF weight of each engine: a default table by engine name, with
//! per-engine overrides.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The weight of an engine not in [`DEFAULT_ENGINE_WEIGHTS`].
pub const GENERIC_ENGINE_WEIGHT: f64 = 1.0;

/// The default RRF engine weights, by engine name: reference works and
/// papers above code hosts and package registries, those above Q&A sites,
/// and social and forum sites below the generic weight (see [`EngineWeights::weight`]
/// for how names match).
pub const DEFAULT_ENGINE_WEIGHTS: &[(&str, f64)] = &[
    ("wikipedia", 1.4),
    ("arxiv", 1.3),
    ("academic", 1.3),
    ("scholar", 1.3),
    ("semanticscholar", 1.3),
    ("openalex", 1.3),
    ("pubmed", 1.3),
    ("crossref", 1.3),
    ("github", 1.2),
    ("pypi", 1.2),
    ("npm", 1.2),
    ("crates", 1.2),
    ("mdn", 1.2),
    ("stackoverflow", 1.1),
    ("hackernews", 0.8),
    ("zhihu", 0.8),
    ("v2ex", 0.8),
    ("twitter", 0.7),
    ("reddit", 0.7),
    ("xiaohongshu", 0.7),
    ("bilibili", 0.7),
    ("weibo", 0.7),
];

/// RRF weights per engine: the default table with per-engine overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineWeights {
    /// Overrides by exact engine name (lowercased).
    pub overrides: BTreeMap<String, f64>,
}

impl EngineWeights {
    /// The default table with no overrides.
    pub fn new() -> Self {
        EngineWeights::default()
    }

    /// Override one engine's weight.
    pub fn with(mut self, engine: impl AsRef<str>, weight: f64) -> Self {
        self.overrides
            .insert(engine.as_ref().to_ascii_lowercase(), weight);
        self
    }

    /// The weight of `engine`: an override for its exact name; else the
    /// table entry for its name with separators removed (`hacker_news` →
    /// `hackernews`); else the entry of its first name segment that has one
    /// (`wikipedia-zh` → `wikipedia`, `crates_io` → `crates`); else 1.0.
    pub fn weight(&self, engine: &str) -> f64 {
        let lower = engine.trim().to_ascii_lowercase();
        if let Some(w) = self.overrides.get(&lower) {
            return *w;
        }
        let lookup = |name: &str| {
            DEFAULT_ENGINE_WEIGHTS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, w)| *w)
        };
        let joined: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
        if let Some(w) = lookup(&joined) {
            return w;
        }
        lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|s| !s.is_empty())
            .find_map(lookup)
            .unwrap_or(GENERIC_ENGINE_WEIGHT)
    }
}
