//! Where research reads its pages: a [`PageSource`]. The fetch ladder
//! ([`Fetcher`]) is the one Ferret runs with; a caller may put anything else
//! behind the same call (pages already fetched, a recording, a test's
//! in-memory pages), so research and its tests need no HTTP.

use async_trait::async_trait;

use crate::fetch::{FetchError, FetchOptions, FetchedPage, Fetcher};

/// Reads one page for research: `url` with `options`, as the fetch ladder
/// would (a refused or failed read is a [`FetchError`], which the run
/// reports for that candidate and goes on).
#[async_trait]
pub trait PageSource: Send + Sync + 'static {
    /// The page at `url`.
    async fn fetch(&self, url: &str, options: &FetchOptions) -> Result<FetchedPage, FetchError>;

    /// A short name for logs and `Debug` output.
    fn name(&self) -> &str {
        "pages"
    }
}

#[async_trait]
impl PageSource for Fetcher {
    async fn fetch(&self, url: &str, options: &FetchOptions) -> Result<FetchedPage, FetchError> {
        Fetcher::fetch(self, url, options).await
    }

    fn name(&self) -> &str {
        "fetcher"
    }
}
