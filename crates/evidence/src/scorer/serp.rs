//! Search-result pages and redirect ("jump") URLs: a SERP lists other
//! pages, a jump URL only forwards to one; neither is evidence (a SERP can
//! read as `strong_ok` and falsely satisfy constraints).
//!
//! A URL is a SERP or jump URL when:
//!
//! 1. it is a known redirect wrapper ([`ferret_core::canonical::unwrap_redirect`]:
//!    Google `/url?q=`, Bing `/ck/a`, DuckDuckGo `/l/?uddg=`);
//! 2. it contains one of [`SERP_URL_PATTERNS`] (on the lowercased
//!    URL, `www.` removed); or
//! 3. its host (without `www.`) is one of [`SERP_HOSTS`] and its path is a
//!    search path (`""`, `/`, `/s`, `/web`, `/search`, `/html`, or starting
//!    with `/search` or `/s/`, or containing `link`) or its query asks a
//!    question (`q=`, `wd=`, `query=`, `p=`, `text=`, `keyword=`).

use url::Url;

/// Substrings of a lowercased URL (without `www.`) that mark a SERP or a
/// jump link (the engines' search and redirect paths, Baidu's `/link`
/// and `/baidu.php` among them).
pub const SERP_URL_PATTERNS: &[&str] = &[
    "baidu.com/s?",
    "baidu.com/link",
    "baidu.com/baidu.php",
    "sogou.com/link",
    "sogou.com/web?",
    "so.com/s?",
    "bing.com/search?",
    "google.com/search?",
    "google.com/url?",
    "google.com.hk/search?",
    "google.com.hk/url?",
    "weixin.sogou.com/weixin",
    "search.naver.com/search.naver",
    "search.yahoo.com/search",
    "duckduckgo.com/?q=",
    "html.duckduckgo.com/html",
    "search.brave.com/search",
    "yandex.com/search",
    "yandex.ru/search",
];

/// Hosts of search engines (the common ones, and the engines Ferret
/// itself scrapes).
pub const SERP_HOSTS: &[&str] = &[
    "baidu.com",
    "m.baidu.com",
    "sogou.com",
    "weixin.sogou.com",
    "so.com",
    "bing.com",
    "cn.bing.com",
    "google.com",
    "google.com.hk",
    "duckduckgo.com",
    "html.duckduckgo.com",
    "search.naver.com",
    "search.yahoo.com",
    "search.brave.com",
    "yandex.com",
    "yandex.ru",
];

/// Query keys that carry a search query on a SERP host.
const QUERY_KEYS: &[&str] = &["q", "wd", "query", "p", "text", "keyword"];

/// Paths that are search pages on a SERP host.
const SEARCH_PATHS: &[&str] = &["", "/", "/s", "/web", "/search", "/html"];

/// Whether `url` is a search-result page or a redirect wrapper (see the
/// module docs). Unparseable URLs are not evidence either: `true`.
pub fn is_serp_or_jump_url(url: &str) -> bool {
    let trimmed = url.trim();
    if trimmed.is_empty() {
        return true;
    }
    if ferret_core::canonical::unwrap_redirect(trimmed).is_some() {
        return true;
    }
    let Ok(parsed) = Url::parse(trimmed) else {
        return true;
    };
    let Some(host) = parsed.host_str() else {
        return true;
    };
    let host = host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let lowered = trimmed.to_lowercase();
    let without_www = lowered.replacen("://www.", "://", 1);
    if SERP_URL_PATTERNS.iter().any(|p| without_www.contains(p)) {
        return true;
    }
    if !SERP_HOSTS.contains(&host) {
        return false;
    }
    let path = parsed.path().to_ascii_lowercase();
    let search_path = SEARCH_PATHS.contains(&path.as_str())
        || path.starts_with("/search")
        || path.starts_with("/s/")
        || path.contains("link");
    let asks = parsed
        .query_pairs()
        .any(|(k, v)| QUERY_KEYS.contains(&k.as_ref()) && !v.trim().is_empty());
    search_path || asks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serps_and_jumps() {
        for url in [
            "https://www.google.com/search?q=rust",
            "https://www.google.com/url?q=https://example.com/",
            "https://www.baidu.com/s?wd=rust",
            "https://www.baidu.com/link?url=abc",
            "https://www.bing.com/search?q=rust",
            "https://duckduckgo.com/?q=rust",
            "https://search.naver.com/search.naver?query=rust",
            "https://www.bing.com/ck/a?u=a1aHR0cHM6Ly9leGFtcGxlLmNvbS8",
            "not a url",
        ] {
            assert!(is_serp_or_jump_url(url), "{url}");
        }
    }

    #[test]
    fn ordinary_pages() {
        for url in [
            "https://www.rust-lang.org/learn",
            "https://docs.rs/tokio/latest/tokio/",
            "https://blog.google.com/technology/ai/",
            "https://support.google.com/websearch/answer/134479",
            "https://en.wikipedia.org/wiki/Search_engine",
        ] {
            assert!(!is_serp_or_jump_url(url), "{url}");
        }
    }
}
