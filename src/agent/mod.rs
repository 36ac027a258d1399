//! Ferret as tools for agents: the same tool definitions the MCP server
//! lists (name, description for a model, JSON Schema of the input) and one
//! dispatcher, so any agent framework can expose them.
//!
//! ```no_run
//! # async fn demo() -> Result<(), ferret::FerretError> {
//! use ferret::agent::{Toolbox, definitions};
//!
//! let tools = Toolbox::from_env().await?;
//! for def in definitions() {
//!     println!("{}: {}", def.name, def.input_schema);
//! }
//! let answer = tools.call("search", serde_json::json!({"query": "rust async runtime"})).await;
//! println!("{answer}");
//! # Ok(()) }
//! ```
//!
//! - [`tools`]: the tool table ([`ToolDef`], [`definitions`]).
//! - [`inputs`]: one input type per tool; its JSON Schema is generated from it.
//! - [`compact`]: answers sized for a model (`detail: "compact"`, the default).
//! - [`error`]: [`ToolError`], the typed `ferret.error.v1` failure.
//! - [`Toolbox`] (here): what the tools run against, and [`Toolbox::call`].

pub mod compact;
pub mod error;
pub mod inputs;
mod run;
pub mod tools;

use std::sync::Arc;

use serde_json::Value;

pub use error::{ErrorKind, ToolError};
pub use inputs::Detail;
pub use tools::{ToolDef, definition, definitions};

use crate::setup::FetchSetup;
use crate::{Ferret, FerretError};

/// A tool's answer: the structured result and its text rendering.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The result as JSON: the compact digest, or the whole envelope with
    /// `detail: "full"`.
    pub structured: Value,
    /// The text a model reads: the compact rendering, or the envelope as
    /// JSON with `detail: "full"`.
    pub text: String,
}

/// One step of a long call, for progress notifications.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressUpdate {
    /// Steps done so far (grows with every update).
    pub progress: f64,
    /// What is happening.
    pub message: String,
}

/// Hooks of one call: where its progress goes.
#[derive(Clone, Default)]
pub struct CallContext {
    progress: Option<Arc<dyn Fn(ProgressUpdate) + Send + Sync>>,
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl CallContext {
    /// Send each progress update to `sink`.
    pub fn with_progress(sink: impl Fn(ProgressUpdate) + Send + Sync + 'static) -> Self {
        CallContext {
            progress: Some(Arc::new(sink)),
        }
    }
}

/// What the tools run against: a [`Ferret`] for search and plan, a fetcher
/// for fetch, verify, extract and research, and (feature `browser`) the
/// site-skill tools with their browser tab. Pro mode cannot be switched on
/// through a tool: a call that would read in the login partition fails with
/// [`ErrorKind::ProModeRequired`].
pub struct Toolbox {
    ferret: Arc<Ferret>,
    fetch: FetchSetup,
    #[cfg(feature = "local-index")]
    local: Option<ferret_engines::local_index::LocalIndex>,
    #[cfg(feature = "browser")]
    site: Option<ferret_site_skills::SiteTools>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("ferret", &self.ferret)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// Tools over `ferret` and the fetcher `fetch` (no site skills, no
    /// local-document reader).
    pub fn new(ferret: Ferret, fetch: FetchSetup) -> Self {
        Toolbox {
            ferret: Arc::new(ferret),
            fetch,
            #[cfg(feature = "local-index")]
            local: None,
            #[cfg(feature = "browser")]
            site: None,
        }
    }

    /// The tools as this environment configures them
    /// ([`crate::setup::configured`], [`crate::setup::fetch_setup`] with the
    /// browser on `auto`, started only when a page needs it, and the
    /// installed site skills).
    pub async fn from_env() -> Result<Toolbox, FerretError> {
        let configured = crate::setup::configured(None).await?;
        #[cfg(feature = "browser")]
        let browser = crate::setup::browser_from_env()?;
        #[cfg(not(feature = "browser"))]
        let browser = ();
        let fetch = crate::setup::fetch_setup(ferret_evidence::fetch::BrowserMode::Auto, browser)?;
        #[cfg(feature = "browser")]
        let site = fetch.runtime().map(|rt| {
            let registry = Arc::new(ferret_site_skills::registry::Registry::from_env());
            ferret_site_skills::SiteTools::new(registry, rt)
        });
        Ok(Toolbox {
            ferret: Arc::new(configured.ferret),
            fetch,
            #[cfg(feature = "local-index")]
            local: configured.local,
            #[cfg(feature = "browser")]
            site,
        })
    }

    /// Read local-index hits back from their files in `research`.
    #[cfg(feature = "local-index")]
    pub fn with_local_index(mut self, index: ferret_engines::local_index::LocalIndex) -> Self {
        self.local = Some(index);
        self
    }

    /// The Ferret the search tools use.
    pub fn ferret(&self) -> &Ferret {
        &self.ferret
    }

    /// Call the tool `name` with its JSON input: the structured result, or
    /// the `ferret.error.v1` object of a failure.
    pub async fn call(&self, name: &str, input: Value) -> Value {
        match self.call_tool(name, input, &CallContext::default()).await {
            Ok(out) => out.structured,
            Err(e) => e.to_json(),
        }
    }

    /// Call the tool `name` with its JSON input; progress goes to `context`.
    pub async fn call_tool(
        &self,
        name: &str,
        input: Value,
        context: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        self.dispatch(name, input, context)
            .await
            .map_err(|e| e.in_tool(name))
    }

    /// Close the browser if one was started.
    pub async fn shutdown(self) {
        self.fetch.shutdown().await;
    }
}
