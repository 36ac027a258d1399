//! [`RowsEngine`]: an engine (named `rows`) that serves result rows the
//! caller supplied — `ferret search --stdin-results`, rows another tool
//! produced, fixtures.
//!
//! The engine does no parsing of its own: rows are normalised by
//! [`ferret_core::rows`] (the accepted envelopes and field aliases, dropped
//! rows with reasons) and [`RowsEngine::from_normalized`] turns the result
//! into engines — one per engine the rows name, `rows` for rows that name
//! none. Each serves its hits for any valid query, in their order, ranked
//! 1…n, at most `max_results` of them. The normaliser's warnings (e.g. how
//! many rows were dropped and why) are repeated on every response so they
//! are never lost — among them the normaliser's limits (at most
//! [`ferret_core::rows::MAX_ROWS`] rows read, URL and field lengths capped),
//! so an engine built from a stranger's rows serves a bounded set.

use async_trait::async_trait;
use ferret_core::rows::NormalizedRows;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineRequest, EngineResponse,
    Provenance, Runtime,
};

/// The engine's name (the same as [`ferret_core::rows::ROWS_ENGINE`]).
pub const ROWS_ENGINE_NAME: &str = ferret_core::rows::ROWS_ENGINE;

/// Serves caller-supplied hits.
#[derive(Debug, Clone)]
pub struct RowsEngine {
    name: String,
    hits: Vec<EngineHit>,
    warnings: Vec<String>,
    provenance: Provenance,
}

impl RowsEngine {
    /// An engine named `rows` serving `hits` in the order given (ranks are
    /// renumbered 1…n).
    pub fn new(hits: Vec<EngineHit>) -> Self {
        RowsEngine::named(ROWS_ENGINE_NAME, hits)
    }

    /// An engine named `name` serving `hits` (rows that say which engine
    /// they came from keep that name, so fusion sees the consensus).
    pub fn named(name: impl Into<String>, hits: Vec<EngineHit>) -> Self {
        let hits = hits
            .into_iter()
            .enumerate()
            .map(|(i, mut h)| {
                h.rank = i as u32 + 1;
                h
            })
            .collect();
        RowsEngine {
            name: name.into(),
            hits,
            warnings: Vec::new(),
            provenance: Provenance::public(Runtime::Rows),
        }
    }

    /// One engine per engine the normalised rows name, in the order of
    /// their first row, each repeating the normaliser's warnings. Rows that
    /// survived nowhere give no engine; the warnings then say why.
    pub fn from_normalized(rows: &NormalizedRows) -> Vec<RowsEngine> {
        rows.calls
            .iter()
            .map(|call| {
                let mut warnings = rows.warnings.clone();
                warnings.extend(call.response.warnings.iter().cloned());
                RowsEngine::named(call.engine.clone(), call.response.hits.clone())
                    .with_warnings(warnings)
            })
            .collect()
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
        &self.name
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
