//! [`CacheKey`]: what makes two engine calls "the same" for a cache.
//!
//! Every request option takes part: the SHA-256 of
//! `v1|search|<normalised query>|<engine>|<site>|<mode>|<freshness>|<intent>|<max_results>|<language>`,
//! hex, first 32 characters. A request with controls beyond those (domains
//! to include other than its one site, domains to exclude, dates, region,
//! safe search, a later page) adds `|controls:<JSON of them>`; one without
//! keeps the key it always had. The query is normalised ([`normalize_query`]:
//! ideographic spaces to spaces, trimmed, whitespace collapsed, lowercased)
//! so that the same question typed differently hits the same entry. Bump the
//! `v1` when the recipe changes; old entries then simply miss.

use std::fmt;

use ferret_core::EngineRequest;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::CacheError;

/// The recipe version mixed into every key.
pub const KEY_VERSION: &str = "v1";

/// Hex characters kept from the digest (128 bits).
pub const KEY_LEN: usize = 32;

/// A cache key: 32 lowercase hex characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CacheKey(String);

impl CacheKey {
    /// The key for `request` sent to the engine named `engine`.
    pub fn for_request(engine: &str, request: &EngineRequest) -> Self {
        let parts = [
            KEY_VERSION.to_string(),
            "search".to_string(),
            normalize_query(&request.query),
            engine.to_string(),
            request.site.as_deref().unwrap_or("").trim().to_lowercase(),
            request.mode.as_str().to_string(),
            request
                .freshness
                .map(|f| f.as_str())
                .unwrap_or("")
                .to_string(),
            request.intent.map(|i| i.as_str()).unwrap_or("").to_string(),
            request.max_results.to_string(),
            request
                .language
                .as_deref()
                .unwrap_or("")
                .trim()
                .to_lowercase(),
        ];
        let mut recipe = parts.join("|");
        if let Some(controls) = controls_part(request) {
            recipe.push_str("|controls:");
            recipe.push_str(&controls);
        }
        CacheKey(hex_prefix(recipe.as_bytes(), KEY_LEN))
    }

    /// A key read back from storage; must be 32 lowercase hex characters.
    pub fn parse(text: &str) -> Result<Self, CacheError> {
        if text.len() == KEY_LEN
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            Ok(CacheKey(text.to_string()))
        } else {
            Err(CacheError::InvalidKey {
                key: text.to_string(),
            })
        }
    }

    /// The key text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CacheKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for CacheKey {
    type Error = CacheError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        CacheKey::parse(&s)
    }
}

impl From<CacheKey> for String {
    fn from(k: CacheKey) -> String {
        k.0
    }
}

/// The request's controls beyond the classic key parts, as compact JSON
/// (domains lowercased), or `None` when it has none.
fn controls_part(request: &EngineRequest) -> Option<String> {
    let lower =
        |list: &[String]| -> Vec<String> { list.iter().map(|d| d.trim().to_lowercase()).collect() };
    let include = lower(&request.include_domains);
    let site = request.site.as_deref().map(|s| s.trim().to_lowercase());
    let include_beyond_site = match (include.as_slice(), &site) {
        ([], _) => false,
        ([one], Some(site)) => one != site,
        _ => true,
    };
    let page = request.page.filter(|p| *p > 1);
    let none = !include_beyond_site
        && request.exclude_domains.is_empty()
        && request.since.is_none()
        && request.until.is_none()
        && request.region.is_none()
        && request.safe_search.is_none()
        && page.is_none();
    if none {
        return None;
    }
    let json = serde_json::json!({
        "include": if include_beyond_site { include } else { Vec::new() },
        "exclude": lower(&request.exclude_domains),
        "since": request.since,
        "until": request.until,
        "region": request.region.as_deref().map(|r| r.trim().to_uppercase()),
        "safe": request.safe_search,
        "page": page,
    });
    Some(json.to_string())
}

/// The query as keys see it: U+3000 (ideographic space) becomes a space,
/// ends are trimmed, runs of whitespace collapse to one space, letters are
/// lowercased (CJK is unaffected).
pub fn normalize_query(query: &str) -> String {
    query
        .split(|c: char| c.is_whitespace() || c == '\u{3000}')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The first `len` hex characters of the SHA-256 of `bytes`.
pub(crate) fn hex_prefix(bytes: &[u8], len: usize) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
    }
    out.truncate(len);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::{Freshness, Mode};

    #[test]
    fn normalisation_folds_case_and_whitespace() {
        assert_eq!(
            normalize_query("  Rust\u{3000}ASYNC \t runtime "),
            "rust async runtime"
        );
        assert_eq!(normalize_query("最新  新闻"), "最新 新闻");
    }

    #[test]
    fn keys_ignore_spelling_but_not_options() {
        let a = CacheKey::for_request("brave", &EngineRequest::new("Rust  async"));
        let b = CacheKey::for_request("brave", &EngineRequest::new(" rust async "));
        assert_eq!(a, b);
        assert_eq!(a.as_str().len(), KEY_LEN);
        for other in [
            CacheKey::for_request("exa", &EngineRequest::new("rust async")),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async").with_mode(Mode::Deep),
            ),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async").with_freshness(Freshness::Pd),
            ),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async").with_max_results(3),
            ),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async").with_site("docs.rs"),
            ),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async").with_language("zh"),
            ),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async").with_exclude_domains(["reddit.com"]),
            ),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async").with_include_domains(["a.example", "b.example"]),
            ),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async")
                    .with_since(chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap()),
            ),
            CacheKey::for_request("brave", &EngineRequest::new("rust async").with_region("US")),
            CacheKey::for_request(
                "brave",
                &EngineRequest::new("rust async").with_safe_search(ferret_core::SafeSearch::Strict),
            ),
            CacheKey::for_request("brave", &EngineRequest::new("rust async").with_page(2)),
        ] {
            assert_ne!(a, other);
        }
        assert_eq!(CacheKey::parse(a.as_str()).unwrap(), a);
        assert!(CacheKey::parse("not-a-key").is_err());
    }

    #[test]
    fn one_included_domain_keys_as_the_site_it_always_was() {
        let site = CacheKey::for_request("brave", &EngineRequest::new("x").with_site("docs.rs"));
        let include = CacheKey::for_request(
            "brave",
            &EngineRequest::new("x").with_include_domains(["docs.rs"]),
        );
        assert_eq!(site, include);
        let page_one = CacheKey::for_request("brave", &EngineRequest::new("x").with_page(1));
        assert_eq!(
            page_one,
            CacheKey::for_request("brave", &EngineRequest::new("x"))
        );
    }
}
