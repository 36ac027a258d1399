//! [`RowsEngine`]: an engine (named `rows`) that serves result rows the
//! caller supplied — `ferret search --stdin-results`, rows another tool
//! produced, fixtures.
//!
//! The engine does no parsing of its own: rows are normalised into
//! [`EngineHit`]s before they reach it, and it serves those hits for any
//! valid query, in their order, ranked 1…n, at most `max_results` of them.
//! Warnings given at construction (e.g. rows dropped while normalising) are
//! repeated on every response so they are never lost.

use async_trait::async_trait;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineRequest, EngineResponse,
    Provenance,
};

/// The engine's name.
pub const ROWS_ENGINE_NAME: &str = "rows";

/// Serves caller-supplied hits.
#[derive(Debug, Clone)]
pub struct RowsEngine {
    hits: Vec<EngineHit>,
    warnings: Vec<String>,
    provenance: Provenance,
}

impl RowsEngine {
    /// Serve `hits` in the order given (ranks are renumbered 1…n).
    pub fn new(hits: Vec<EngineHit>) -> Self {
        let hits = hits
            .into_iter()
            .enumerate()
            .map(|(i, mut h)| {
                h.rank = i as u32 + 1;
                h
            })
            .collect();
        RowsEngine {
            hits,
            warnings: Vec::new(),
            provenance: Provenance::public("rows"),
        }
    }

    /// Repeat `warnings` on every response (rows dropped while normalising,
    /// fields that were ignored, …).
    pub fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }

    /// Mark the rows with `provenance` (e.g. rows from a logged-in browser
    /// are login data and must say so).
    pub fn with_provenance(mut self, provenance: Provenance) -> Self {
        self.provenance = provenance;
        self
    }

    /// The hits served.
    pub fn hits(&self) -> &[EngineHit] {
        &self.hits
    }
}

#[async_trait]
impl Engine for RowsEngine {
    fn name(&self) -> &str {
        ROWS_ENGINE_NAME
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            max_results: self.hits.len().max(1),
            ..EngineCapabilities::new(EngineKind::External)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        Ok(EngineResponse {
            hits: self
                .hits
                .iter()
                .take(request.max_results)
                .cloned()
                .collect(),
            answer: None,
            warnings: self.warnings.clone(),
            provenance: self.provenance.clone(),
        })
    }
}
