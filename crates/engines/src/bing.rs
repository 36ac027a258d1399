//! Bing's keyless result page: `GET /search?q=…`.
//!
//! Request: `q` (with ` site:<host>` operators for the domains to include
//! and ` -site:<host>` for those to exclude), `count` (at most 10),
//! `setlang` (the language), `cc` (the region), `adlt` (safe search:
//! `off`/`moderate`/`strict`), `first` (the 1-based position of a later
//! page's first result) and `filters` for freshness (`ex1:"ez1"` day,
//! `ez2` week, `ez3` month; a year is the custom range
//! `ex1:"ez5_<from>_<to>"` in days since 1970, from an injectable clock;
//! a since/until range is the same custom range, and replaces the window).
//!
//! Parsing: every `li.b_algo` gives `h2 a` (title and link; Bing's
//! `/ck/a?…&u=a1<base64url>` wrapper unwrapped with [`unwrap_redirect`])
//! and the `.b_caption p` snippet, whose leading `span.news_dt` date
//! (`Jul 16, 2025 · …`) becomes `published_at`.
//!
//! Unrelated pages: Bing sometimes answers a query with results for
//! something else. When no hit's title, snippet or URL shares a single
//! query term ([`Analyzer::KEYWORD`] terms, CJK-aware) with the query, the page is
//! rejected: the response is `Ok` with **no hits and a warning** saying
//! why (a wrong page is not a transport or parse failure, and a circuit
//! breaker should not count it as a block).
//!
//! A page with no results: Bing's "There are no results" page
//! (`li.b_no`) or an empty `ol#b_results` → `Ok` with no hits; a captcha
//! or challenge page → [`Captcha`](EngineError::Captcha) /
//! [`BotDetected`](EngineError::BotDetected); anything else →
//! [`Parse`](EngineError::Parse).

use std::collections::HashSet;
use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::canonical::unwrap_redirect;
use ferret_core::tokenize::token_strings;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest,
    EngineResponse, Freshness,
};
use ferret_text::Analyzer;
use reqwest::header::{ACCEPT, ACCEPT_LANGUAGE};
use scraper::{ElementRef, Html, Selector};
use url::Url;

use crate::http::config::{ServiceDefaults, common_setters};
use crate::http::controls::{closed_range, day_of, with_site_operators};
use crate::http::{
    ConfigError, HitCollector, HttpClient, Service, ServiceConfig, SharedClock, clock, markers,
    status,
};

/// How Bing is named in errors.
pub const SERVICE: Service = Service {
    display: "Bing",
    credential_hint: None,
};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: BingEngine::DEFAULT_BASE_URL,
    timeout: Duration::from_secs(15),
    body_limit: 2 << 20,
    user_agent: HttpClient::BROWSER_USER_AGENT,
};

/// Bing's `filters` value for a freshness window ending at `now`.
pub fn freshness_filter(freshness: Freshness, now: std::time::SystemTime) -> String {
    match freshness {
        Freshness::Pd => "ex1:\"ez1\"".to_string(),
        Freshness::Pw => "ex1:\"ez2\"".to_string(),
        Freshness::Pm => "ex1:\"ez3\"".to_string(),
        Freshness::Py => {
            let to = clock::epoch_days(now);
            format!("ex1:\"ez5_{}_{to}\"", to - 365)
        }
    }
}

/// Bing's `filters` value for the days `since` to `until`.
pub fn range_filter(since: chrono::NaiveDate, until: chrono::NaiveDate) -> String {
    use chrono::Datelike;
    let days =
        |d: chrono::NaiveDate| clock::days_from_civil(i64::from(d.year()), d.month(), d.day());
    format!("ex1:\"ez5_{}_{}\"", days(since), days(until))
}

/// The controls Bing pushes down.
const CONTROLS: ControlSet = ControlSet::of(&Control::ALL);

/// The Bing HTML scraper (`bing`).
#[derive(Debug, Clone)]
pub struct BingEngine {
    http: HttpClient,
    endpoint: Url,
    clock: SharedClock,
}

/// Builder for [`BingEngine`].
#[derive(Debug, Clone)]
pub struct BingBuilder {
    service: ServiceConfig,
    clock: SharedClock,
}

impl Default for BingBuilder {
    fn default() -> Self {
        BingBuilder {
            service: ServiceConfig::new(),
            clock: clock::system(),
        }
    }
}

impl BingBuilder {
    common_setters!();

    /// The clock a one-year window is computed from (default: system).
    pub fn clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// Build the engine.
    pub fn build(self) -> Result<BingEngine, ConfigError> {
        Ok(BingEngine {
            http: self.service.client(&DEFAULTS)?,
            endpoint: self.service.endpoint(&DEFAULTS, "/search")?,
            clock: self.clock,
        })
    }
}

impl BingEngine {
    /// Bing's host.
    pub const DEFAULT_BASE_URL: &'static str = "https://www.bing.com";
    /// Results per page.
    pub const MAX_RESULTS: usize = 10;

    /// A builder with the defaults.
    pub fn builder() -> BingBuilder {
        BingBuilder::default()
    }

    /// The URL searches go to.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    /// The query parameters sent for `request`.
    pub fn request_params(&self, request: &EngineRequest) -> Vec<(&'static str, String)> {
        let q = with_site_operators(&request.query, request);
        let count = request.max_results.min(Self::MAX_RESULTS);
        let mut params: Vec<(&str, String)> = vec![("q", q), ("count", count.to_string())];
        if let Some(lang) = &request.language {
            params.push(("setlang", lang.trim().to_string()));
        }
        if let Some(region) = &request.region {
            params.push(("cc", region.trim().to_ascii_uppercase()));
        }
        if let Some(level) = request.safe_search {
            params.push(("adlt", level.as_str().to_string()));
        }
        if request.page_number() > 1 {
            params.push(("first", (request.offset(count) + 1).to_string()));
        }
        let now = self.clock.now();
        match closed_range(request, day_of(now)) {
            Some((since, until)) => params.push(("filters", range_filter(since, until))),
            None => {
                if let Some(f) = request.freshness {
                    params.push(("filters", freshness_filter(f, now)));
                }
            }
        }
        params
    }
}

#[async_trait]
impl Engine for BingEngine {
    fn name(&self) -> &str {
        "bing"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            site_filter: true,
            max_results: Self::MAX_RESULTS,
            ..EngineCapabilities::new(EngineKind::Scraper).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let params = self.request_params(request);
        let call = self
            .http
            .get(self.endpoint.clone())
            .query(&params)
            .header(ACCEPT, "text/html,application/xhtml+xml")
            .header(ACCEPT_LANGUAGE, "en-US,en;q=0.9");
        let fetched = self.http.send(call).await?;
        status::check(&fetched, &SERVICE)?;
        let mut response = parse_page(&fetched.text(), &request.query, request.max_results)?;
        if fetched.truncated {
            response.warnings.push(format!(
                "bing: the page was cut off at {} bytes; results after that are missing",
                fetched.limit
            ));
        }
        Ok(response)
    }
}

fn selector(css: &str) -> Selector {
    Selector::parse(css).unwrap_or_else(|e| panic!("static selector {css:?} is invalid: {e}"))
}

static RESULT: LazyLock<Selector> = LazyLock::new(|| selector("li.b_algo"));
static TITLE: LazyLock<Selector> = LazyLock::new(|| selector("h2 a"));
static CAPTION: LazyLock<Selector> = LazyLock::new(|| {
    selector(".b_caption p, p.b_lineclamp2, p.b_lineclamp3, p.b_lineclamp4, .b_algoSlug")
});
static DATE: LazyLock<Selector> = LazyLock::new(|| selector("span.news_dt"));
static NO_RESULTS: LazyLock<Selector> = LazyLock::new(|| selector("li.b_no"));
static RESULT_LIST: LazyLock<Selector> = LazyLock::new(|| selector("ol#b_results"));

fn text_of(el: ElementRef<'_>) -> String {
    el.text().collect::<String>()
}

/// Where a Bing result link points: `/ck/a` wrappers unwrapped (relative
/// ones resolved against bing.com first). `None` for a wrapper that does
/// not decode.
pub fn result_url(href: &str) -> Option<String> {
    let href = href.trim();
    let absolute = if href.starts_with('/') && !href.starts_with("//") {
        format!("https://www.bing.com{href}")
    } else {
        href.to_string()
    };
    if let Some(target) = unwrap_redirect(&absolute) {
        return Some(target);
    }
    let is_wrapper = Url::parse(&absolute).is_ok_and(|u| {
        u.host_str()
            .is_some_and(|h| h == "bing.com" || h.ends_with(".bing.com"))
            && u.path() == "/ck/a"
    });
    (!is_wrapper).then_some(absolute)
}

fn caption(result: ElementRef<'_>) -> (String, Option<String>) {
    let Some(p) = result.select(&CAPTION).next() else {
        return (String::new(), None);
    };
    let text = crate::http::inline_html::collapse_whitespace(&text_of(p));
    let Some(date_el) = p.select(&DATE).next() else {
        return (text, None);
    };
    let date_text = crate::http::inline_html::collapse_whitespace(&text_of(date_el));
    let date = clock::parse_month_day_year(&date_text);
    let rest = text
        .strip_prefix(&date_text)
        .map(|r| r.trim_start_matches([' ', '·', '-', '—']).to_string())
        .unwrap_or(text);
    (rest, date)
}

/// Parse a Bing results page for `query` into at most `max` hits (see the
/// module docs for the unrelated-page rule and empty pages).
pub fn parse_page(html: &str, query: &str, max: usize) -> Result<EngineResponse, EngineError> {
    let doc = Html::parse_document(html);
    let mut hits = HitCollector::new("bing", max);
    let mut position = 0usize;
    for result in doc.select(&RESULT) {
        let Some(link) = result.select(&TITLE).next() else {
            continue;
        };
        position += 1;
        let href = link.value().attr("href").unwrap_or_default();
        let Some(url) = result_url(href) else {
            hits.warn(format!(
                "bing: dropped result #{position}: its redirect link does not decode"
            ));
            continue;
        };
        let (snippet, date) = caption(result);
        hits.push(position, &url, &text_of(link), &snippet, date);
    }
    if position == 0 {
        if doc.select(&NO_RESULTS).next().is_some() {
            return Ok(hits.finish());
        }
        if let Some(block) = markers::block_page(html.as_bytes()) {
            return Err(block.into_error("Bing"));
        }
        if doc.select(&RESULT_LIST).next().is_none() {
            return Err(EngineError::parse(
                "the Bing page has no result list (no li.b_algo, li.b_no or ol#b_results); the \
                 page markup may have changed",
            ));
        }
    }
    let mut response = hits.finish();
    if let Some(warning) = unrelated(&response, query) {
        response.hits.clear();
        response.warnings.push(warning);
    }
    Ok(response)
}

/// A warning when no hit shares a query term with `query`.
fn unrelated(response: &EngineResponse, query: &str) -> Option<String> {
    let terms: Vec<String> = Analyzer::KEYWORD
        .terms(query)
        .into_iter()
        .filter(|t| !t.starts_with("site:"))
        .collect();
    if terms.is_empty() || response.hits.is_empty() {
        return None;
    }
    let page: HashSet<String> = response
        .hits
        .iter()
        .flat_map(|h| token_strings(&format!("{} {} {}", h.title, h.snippet, h.url)))
        .collect();
    if terms.iter().any(|t| page.contains(t)) {
        return None;
    }
    Some(format!(
        "bing: discarded {} results that share no term with the query ({}); Bing answered with \
         an unrelated page",
        response.hits.len(),
        terms.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::FixedClock;
    use crate::http::clock::Clock;
    use ferret_core::ErrorKind;
    use proptest::prelude::*;

    #[test]
    fn freshness_filters() {
        let now = FixedClock::at_date(2026, 1, 1).now();
        assert_eq!(freshness_filter(Freshness::Pd, now), "ex1:\"ez1\"");
        assert_eq!(freshness_filter(Freshness::Pm, now), "ex1:\"ez3\"");
        assert_eq!(
            freshness_filter(Freshness::Py, now),
            "ex1:\"ez5_20089_20454\""
        );
    }

    #[test]
    fn redirect_links_unwrap_and_broken_ones_are_refused() {
        assert_eq!(
            result_url(
                "https://www.bing.com/ck/a?!&&p=x&u=a1aHR0cHM6Ly93d3cudzNzY2hvb2xzLmNvbS9Kcy8&ntb=1"
            )
            .as_deref(),
            Some("https://www.w3schools.com/Js/")
        );
        assert_eq!(
            result_url("/ck/a?u=a1aHR0cHM6Ly9hLmV4YW1wbGUv").as_deref(),
            Some("https://a.example/")
        );
        assert_eq!(result_url("https://www.bing.com/ck/a?u=zzz"), None);
        assert_eq!(
            result_url("https://plain.example/").as_deref(),
            Some("https://plain.example/")
        );
    }

    #[test]
    fn dates_are_taken_from_the_caption() {
        let html = r#"<ol id="b_results"><li class="b_algo"><h2><a href="https://a.example/">Sleep and caffeine</a></h2>
            <div class="b_caption"><p class="b_lineclamp2"><span class="news_dt">Jul 16, 2025</span> · Caffeine keeps you awake</p></div></li></ol>"#;
        let r = parse_page(html, "caffeine sleep", 10).unwrap();
        assert_eq!(r.hits[0].snippet, "Caffeine keeps you awake");
        assert_eq!(r.hits[0].published_at.as_deref(), Some("2025-07-16"));
    }

    #[test]
    fn unrelated_pages_are_emptied_with_a_warning() {
        let html = r#"<ol id="b_results"><li class="b_algo"><h2><a href="https://a.example/">Garden furniture sale</a></h2>
            <div class="b_caption"><p>Chairs and tables</p></div></li></ol>"#;
        let r = parse_page(html, "rust async runtime", 10).unwrap();
        assert!(r.hits.is_empty());
        assert!(r.warnings[0].contains("share no term"), "{:?}", r.warnings);
    }

    #[test]
    fn empty_pages_are_classified() {
        let none = r#"<ol id="b_results"><li class="b_no"><h1>There are no results</h1></li></ol>"#;
        assert!(parse_page(none, "x", 10).unwrap().hits.is_empty());
        let odd = "<html><body>maintenance</body></html>";
        assert_eq!(
            parse_page(odd, "x", 10).unwrap_err().kind(),
            ErrorKind::Parse
        );
        let captcha = "<html><div id='b_captcha'>solve the captcha</div></html>";
        assert_eq!(
            parse_page(captcha, "x", 10).unwrap_err().kind(),
            ErrorKind::Captcha
        );
    }

    proptest! {
        #[test]
        fn parsing_never_panics(s in "\\PC{0,300}", q in "\\PC{0,20}") {
            let _ = parse_page(&s, &q, 10);
        }
    }
}
