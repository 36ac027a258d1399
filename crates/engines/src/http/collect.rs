//! [`HitCollector`]: parsed result rows → ranked [`EngineHit`]s, with a
//! warning for every row dropped.

use ferret_core::{EngineHit, EngineResponse, Provenance, Runtime};
use url::Url;

use super::inline_html::collapse_whitespace;

/// Collects hits in the engine's order, up to a maximum.
///
/// A row's rank is its 1-based position in the engine's own list (so ranks
/// stay strictly increasing even when a row is dropped). Rows without an
/// absolute http(s) URL are dropped with a warning naming the row.
#[derive(Debug, Clone)]
pub struct HitCollector {
    engine: &'static str,
    max: usize,
    hits: Vec<EngineHit>,
    warnings: Vec<String>,
}

impl HitCollector {
    /// A collector for `engine` keeping at most `max` hits.
    pub fn new(engine: &'static str, max: usize) -> Self {
        HitCollector {
            engine,
            max,
            hits: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Whether `max` hits were collected.
    pub fn is_full(&self) -> bool {
        self.hits.len() >= self.max
    }

    /// How many hits were collected.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// Whether no hit was collected.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// Add the row at `position` (1-based). Ignored once full. A blank
    /// title is replaced by the URL.
    pub fn push(
        &mut self,
        position: usize,
        url: &str,
        title: &str,
        snippet: &str,
        published_at: Option<String>,
    ) {
        if self.is_full() {
            return;
        }
        let url = url.trim();
        let valid = Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
        let Some(parsed) = valid else {
            self.warnings.push(format!(
                "{}: dropped result #{position}: {url:?} is not an absolute http(s) URL",
                self.engine
            ));
            return;
        };
        let title = collapse_whitespace(title);
        let title = if title.is_empty() {
            parsed.to_string()
        } else {
            title
        };
        let rank = u32::try_from(position).unwrap_or(u32::MAX);
        if self.hits.last().is_some_and(|h| h.rank >= rank) {
            self.warnings.push(format!(
                "{}: dropped result #{position}: out of order",
                self.engine
            ));
            return;
        }
        let mut hit = EngineHit::new(rank, url, title, collapse_whitespace(snippet));
        hit.published_at = published_at.filter(|d| !d.trim().is_empty());
        self.hits.push(hit);
    }

    /// Add a warning of the caller's own.
    pub fn warn(&mut self, warning: impl Into<String>) {
        self.warnings.push(warning.into());
    }

    /// The response: hits, warnings, public `http` provenance.
    pub fn finish(self) -> EngineResponse {
        EngineResponse {
            hits: self.hits,
            answer: None,
            warnings: self.warnings,
            provenance: Provenance::public(Runtime::Http),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_positions_drops_bad_urls_with_a_warning_and_stops_at_max() {
        let mut c = HitCollector::new("t", 2);
        c.push(1, "https://a.example/", " A \n title ", "s", None);
        c.push(2, "javascript:alert(1)", "bad", "", None);
        c.push(3, "https://c.example/", "", "", Some("2024-01-01".into()));
        c.push(4, "https://d.example/", "D", "", None);
        let r = c.finish();
        assert_eq!(r.hits.len(), 2);
        assert_eq!(r.hits[0].title, "A title");
        assert_eq!(r.hits[1].rank, 3);
        assert_eq!(r.hits[1].title, "https://c.example/");
        assert_eq!(r.hits[1].published_at.as_deref(), Some("2024-01-01"));
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].contains("#2"), "{:?}", r.warnings);
    }
}
