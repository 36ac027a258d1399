//! DuckDuckGo's keyless HTML endpoint: `POST https://html.duckduckgo.com/html/`
//! (or `GET`) with `q`, `kl` (DuckDuckGo's region: from the request's
//! region, else from the language), `kp` (safe search: `-2` off, `-1`
//! moderate, `1` strict) and `df` (`d`/`w`/`m`/`y` freshness).
//!
//! Parsing: each `div.result` that is not an ad (`result--ad`, or a
//! `duckduckgo.com/y.js` ad click) gives `a.result__a` (title and link —
//! the `//duckduckgo.com/l/?uddg=` wrapper unwrapped with
//! [`unwrap_redirect`]), `.result__snippet` and the ISO date DuckDuckGo
//! prints in `.result__extras__url span`.
//!
//! A page with no results is classified:
//! - the anomaly / challenge page → [`BotDetected`](EngineError::BotDetected)
//!   (an explicit captcha → [`Captcha`](EngineError::Captcha)). When the
//!   query used `site:`, the message says DuckDuckGo rejects `site:` queries
//!   from automated clients (in practice every one is refused), and
//!   to retry with plain keywords;
//! - DuckDuckGo's "No results" page, or an empty result list → `Ok` with no
//!   hits;
//! - anything else → [`Parse`](EngineError::Parse) (the markup changed).
//!
//! A site restriction is never pushed down (for the reason above); it is
//! reported in the warnings. Excluded domains, a since/until range and a
//! page are not pushed down either.

use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::canonical::unwrap_redirect;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest,
    EngineResponse, Freshness, SafeSearch,
};
use reqwest::header::{ACCEPT, ACCEPT_LANGUAGE};
use scraper::{ElementRef, Html, Selector};
use url::Url;

use crate::http::config::{ServiceDefaults, common_setters};
use crate::http::{
    ConfigError, HitCollector, HttpClient, Service, ServiceConfig, clock, markers, status,
};

/// How DuckDuckGo is named in errors.
pub const SERVICE: Service = Service {
    display: "DuckDuckGo",
    credential_hint: None,
};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: DuckDuckGoEngine::DEFAULT_BASE_URL,
    timeout: Duration::from_secs(15),
    body_limit: 2 << 20,
    user_agent: HttpClient::BROWSER_USER_AGENT,
};

/// DuckDuckGo regions (`kl`) for BCP 47 language tags.
const REGIONS: &[(&str, &str)] = &[
    ("en", "us-en"),
    ("en-us", "us-en"),
    ("en-gb", "uk-en"),
    ("en-au", "au-en"),
    ("en-ca", "ca-en"),
    ("en-in", "in-en"),
    ("zh", "cn-zh"),
    ("zh-cn", "cn-zh"),
    ("zh-hans", "cn-zh"),
    ("zh-tw", "tw-tzh"),
    ("zh-hant", "tw-tzh"),
    ("zh-hk", "hk-tzh"),
    ("ja", "jp-jp"),
    ("ko", "kr-kr"),
    ("de", "de-de"),
    ("fr", "fr-fr"),
    ("es", "es-es"),
    ("it", "it-it"),
    ("nl", "nl-nl"),
    ("pt", "pt-pt"),
    ("pt-br", "br-pt"),
    ("ru", "ru-ru"),
    ("pl", "pl-pl"),
    ("sv", "se-sv"),
    ("tr", "tr-tr"),
];

/// DuckDuckGo's `kl` region for a language tag (exact tag first, then the
/// primary subtag).
pub fn region(tag: &str) -> Option<&'static str> {
    let lower = tag.trim().to_ascii_lowercase().replace('_', "-");
    let primary = lower.split('-').next().unwrap_or_default().to_string();
    [lower, primary]
        .iter()
        .find_map(|t| REGIONS.iter().find(|(k, _)| k == t).map(|(_, v)| *v))
}

/// Countries whose DuckDuckGo region code is not their ISO code.
const COUNTRY_ALIASES: &[(&str, &str)] = &[("gb", "uk")];

/// DuckDuckGo's `kl` region for a two-letter country code: the region of
/// that country whose language is `language`'s, else its first one.
pub fn region_for_country(country: &str, language: Option<&str>) -> Option<&'static str> {
    let lower = country.trim().to_ascii_lowercase();
    let code = COUNTRY_ALIASES
        .iter()
        .find(|(iso, _)| *iso == lower)
        .map_or(lower.as_str(), |(_, ddg)| ddg);
    let prefix = format!("{code}-");
    let mut regions = REGIONS
        .iter()
        .map(|(_, kl)| *kl)
        .filter(|kl| kl.starts_with(&prefix));
    let wanted = language
        .and_then(region)
        .filter(|kl| kl.starts_with(&prefix));
    wanted.or_else(|| regions.next())
}

/// DuckDuckGo's `kp` for a safe-search level.
pub fn safe_search(level: SafeSearch) -> &'static str {
    match level {
        SafeSearch::Off => "-2",
        SafeSearch::Moderate => "-1",
        SafeSearch::Strict => "1",
    }
}

/// The controls DuckDuckGo pushes down.
const CONTROLS: ControlSet = ControlSet::of(&[
    Control::Freshness,
    Control::Language,
    Control::Region,
    Control::SafeSearch,
]);

/// DuckDuckGo's `df` for a freshness window.
pub fn date_filter(freshness: Freshness) -> &'static str {
    match freshness {
        Freshness::Pd => "d",
        Freshness::Pw => "w",
        Freshness::Pm => "m",
        Freshness::Py => "y",
    }
}

/// How the form is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormMethod {
    /// `POST` with a form body, as the HTML page's own form does (default).
    #[default]
    Post,
    /// `GET` with query parameters.
    Get,
}

/// The DuckDuckGo HTML scraper (`duckduckgo`).
#[derive(Debug, Clone)]
pub struct DuckDuckGoEngine {
    http: HttpClient,
    endpoint: Url,
    method: FormMethod,
}

/// Builder for [`DuckDuckGoEngine`].
#[derive(Debug, Clone, Default)]
pub struct DuckDuckGoBuilder {
    service: ServiceConfig,
    method: FormMethod,
}

impl DuckDuckGoBuilder {
    common_setters!();

    /// Send the form as `POST` (default) or `GET`.
    pub fn method(mut self, method: FormMethod) -> Self {
        self.method = method;
        self
    }

    /// Build the engine.
    pub fn build(self) -> Result<DuckDuckGoEngine, ConfigError> {
        Ok(DuckDuckGoEngine {
            http: self.service.client(&DEFAULTS)?,
            endpoint: self.service.endpoint(&DEFAULTS, "/html/")?,
            method: self.method,
        })
    }
}

impl DuckDuckGoEngine {
    /// The HTML endpoint's host.
    pub const DEFAULT_BASE_URL: &'static str = "https://html.duckduckgo.com";
    /// Results per page.
    pub const MAX_RESULTS: usize = 10;

    /// A builder with the defaults.
    pub fn builder() -> DuckDuckGoBuilder {
        DuckDuckGoBuilder::default()
    }

    /// The URL searches go to.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    /// The form fields sent for `request`; what could not be sent goes to
    /// `warnings`.
    pub fn request_params(
        request: &EngineRequest,
        warnings: &mut Vec<String>,
    ) -> Vec<(&'static str, String)> {
        let mut params: Vec<(&str, String)> = vec![("q", request.query.trim().to_string())];
        if let Some(kl) = Self::kl(request, warnings) {
            params.push(("kl", kl.to_string()));
        }
        if let Some(level) = request.safe_search {
            params.push(("kp", safe_search(level).to_string()));
        }
        if let Some(f) = request.freshness {
            params.push(("df", date_filter(f).to_string()));
        }
        params
    }

    /// The `kl` region: the request's region (with its language), else
    /// its language's region.
    fn kl(request: &EngineRequest, warnings: &mut Vec<String>) -> Option<&'static str> {
        let language = request.language.as_deref();
        if let Some(country) = &request.region {
            match region_for_country(country, language) {
                Some(kl) => return Some(kl),
                None => warnings.push(format!(
                    "duckduckgo: no DuckDuckGo region for country {country}; used the language's"
                )),
            }
        }
        let lang = language?;
        let kl = region(lang);
        if kl.is_none() {
            warnings.push(format!(
                "duckduckgo: no DuckDuckGo region for language {lang:?}; searched all regions"
            ));
        }
        kl
    }
}

#[async_trait]
impl Engine for DuckDuckGoEngine {
    fn name(&self) -> &str {
        "duckduckgo"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            site_filter: false,
            max_results: Self::MAX_RESULTS,
            ..EngineCapabilities::new(EngineKind::Scraper).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let mut warnings = Vec::new();
        if let Some(site) = &request.site {
            warnings.push(format!(
                "duckduckgo: the site restriction ({site}) was not pushed down: DuckDuckGo \
                 answers `site:` queries from automated clients with its bot challenge"
            ));
        }
        let params = Self::request_params(request, &mut warnings);
        let call = match self.method {
            FormMethod::Post => self.http.post(self.endpoint.clone()).form(&params),
            FormMethod::Get => self.http.get(self.endpoint.clone()).query(&params),
        }
        .header(ACCEPT, "text/html,application/xhtml+xml")
        .header(ACCEPT_LANGUAGE, "en-US,en;q=0.9");
        let fetched = self.http.send(call).await?;
        status::check(&fetched, &SERVICE)?;
        let html = fetched.text();
        let mut response = parse_page(&html, request.max_results).map_err(|e| {
            let site_query = request.query.to_ascii_lowercase().contains("site:");
            match e {
                EngineError::BotDetected { message } if site_query => EngineError::BotDetected {
                    message: format!(
                        "{message}; note: DuckDuckGo rejects `site:` queries from automated \
                         clients, retry with plain keywords plus the site's name"
                    ),
                },
                other => other,
            }
        })?;
        if fetched.truncated {
            warnings.push(format!(
                "duckduckgo: the page was cut off at {} bytes; results after that are missing",
                fetched.limit
            ));
        }
        warnings.append(&mut response.warnings);
        response.warnings = warnings;
        Ok(response)
    }
}

fn selector(css: &str) -> Selector {
    Selector::parse(css).unwrap_or_else(|e| panic!("static selector {css:?} is invalid: {e}"))
}

static RESULT: LazyLock<Selector> = LazyLock::new(|| selector("div.result"));
static TITLE: LazyLock<Selector> = LazyLock::new(|| selector("a.result__a"));
static SNIPPET: LazyLock<Selector> = LazyLock::new(|| selector(".result__snippet"));
static EXTRAS: LazyLock<Selector> = LazyLock::new(|| selector(".result__extras__url span"));
static NO_RESULTS: LazyLock<Selector> = LazyLock::new(|| selector(".no-results"));
static RESULT_LIST: LazyLock<Selector> = LazyLock::new(|| selector("#links, div.results"));

fn text_of(el: ElementRef<'_>) -> String {
    el.text().collect::<String>()
}

/// The target of a DuckDuckGo result link: the `uddg` wrapper unwrapped,
/// protocol-relative and site-relative links made absolute.
pub fn result_url(href: &str) -> String {
    let href = href.trim();
    if let Some(target) = unwrap_redirect(href) {
        return target;
    }
    if let Some(rest) = href.strip_prefix("//") {
        return format!("https://{rest}");
    }
    if href.starts_with('/') {
        return format!("https://duckduckgo.com{href}");
    }
    href.to_string()
}

fn is_ad(result: ElementRef<'_>, href: &str) -> bool {
    result.value().classes().any(|c| c == "result--ad")
        || href.contains("duckduckgo.com/y.js")
        || href.contains("ad_domain=")
}

/// Parse a DuckDuckGo HTML results page into at most `max` hits (see the
/// module docs for how a page without results is classified).
pub fn parse_page(html: &str, max: usize) -> Result<EngineResponse, EngineError> {
    let doc = Html::parse_document(html);
    let mut hits = HitCollector::new("duckduckgo", max);
    let mut organic = 0usize;
    for result in doc.select(&RESULT) {
        let Some(link) = result.select(&TITLE).next() else {
            continue;
        };
        let href = link.value().attr("href").unwrap_or_default();
        if is_ad(result, href) {
            continue;
        }
        organic += 1;
        let snippet = result
            .select(&SNIPPET)
            .next()
            .map(text_of)
            .unwrap_or_default();
        let date = result
            .select(&EXTRAS)
            .find_map(|s| clock::normalize_iso(&text_of(s)));
        hits.push(organic, &result_url(href), &text_of(link), &snippet, date);
    }
    if organic == 0 {
        if let Some(block) = markers::block_page(html.as_bytes()) {
            return Err(block.into_error("DuckDuckGo"));
        }
        let no_results = doc.select(&NO_RESULTS).next().is_some();
        if !no_results && doc.select(&RESULT_LIST).next().is_none() {
            return Err(EngineError::parse(
                "the DuckDuckGo page has no result list (no div.result, #links or .no-results); \
                 the page markup may have changed",
            ));
        }
    }
    Ok(hits.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::ErrorKind;
    use proptest::prelude::*;

    #[test]
    fn regions_and_date_filters() {
        assert_eq!(region("en-US"), Some("us-en"));
        assert_eq!(region("zh-CN"), Some("cn-zh"));
        assert_eq!(region("de-AT"), Some("de-de"));
        assert_eq!(region("xx"), None);
        assert_eq!(date_filter(Freshness::Pw), "w");
    }

    #[test]
    fn result_links_are_unwrapped() {
        assert_eq!(
            result_url("//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx&rut=abc"),
            "https://a.example/x"
        );
        assert_eq!(result_url("//b.example/y"), "https://b.example/y");
        assert_eq!(result_url("https://c.example/"), "https://c.example/");
    }

    #[test]
    fn ads_are_skipped_and_positions_count_organic_results() {
        let html = r#"<div id="links">
          <div class="result result--ad"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=x">Ad</a></div>
          <div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2F">A</a>
            <a class="result__snippet">first <b>one</b></a></div>
        </div>"#;
        let r = parse_page(html, 10).unwrap();
        assert_eq!(r.hits.len(), 1);
        assert_eq!(r.hits[0].rank, 1);
        assert_eq!(r.hits[0].snippet, "first one");
    }

    #[test]
    fn empty_pages_are_classified() {
        let none = r#"<div id="links"><div class="no-results">No results.</div></div>"#;
        assert!(parse_page(none, 10).unwrap().hits.is_empty());
        let odd = "<html><body><p>hello</p></body></html>";
        assert_eq!(parse_page(odd, 10).unwrap_err().kind(), ErrorKind::Parse);
        let challenge = "<div class='anomaly-modal__title'>bots use DuckDuckGo too</div>";
        assert_eq!(
            parse_page(challenge, 10).unwrap_err().kind(),
            ErrorKind::BotDetected
        );
    }

    proptest! {
        #[test]
        fn parsing_never_panics(s in "\\PC{0,300}") {
            let _ = parse_page(&s, 10);
        }
    }
}
