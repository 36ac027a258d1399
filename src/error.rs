//! [`FerretError`]: why the facade could not be built or could not run.

use ferret_core::search::SearchError;

/// An error of the facade.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FerretError {
    /// An engine's configuration is unusable (a bad base URL, …).
    #[error("engine {engine}: {message}")]
    Config {
        /// The engine's name.
        engine: String,
        /// What is wrong and what to set instead.
        message: String,
    },
    /// The fanout could not be built (duplicate engine names, zero
    /// durations, …).
    #[error("cannot build the search: {0}")]
    Fanout(#[from] ferret_core::fanout::FanoutError),
    /// A search could not run.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The cache could not be opened.
    #[error("cache: {0}")]
    Cache(String),
    /// The local index could not be opened or updated.
    #[error("local index: {0}")]
    LocalIndex(String),
    /// The fetcher or its browser could not be set up.
    #[error("fetcher: {0}")]
    Browser(String),
    /// A file or directory could not be used.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// What failed.
        message: String,
    },
}
