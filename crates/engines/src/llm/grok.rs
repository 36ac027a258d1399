//! [`GrokEngine`] (`grok`): search by asking a model for JSON results.
//!
//! The system prompt asks for `{"results":[{title,url,snippet,
//! published_date}]}` with at most `max_results` rows and real URLs only;
//! a freshness window, a since/until range, the domains to include or
//! exclude, a language and a region are stated in it.
//! For a time-sensitive query — one with a time word (当前 现在 今天 最新
//! 最近 近期 实时 目前 本周 本月 今年 / current now today latest recent this
//! week/month/year), a freshness window, or the status/news intent — the
//! current time (from an injectable clock) is injected. The answer is read
//! with [`super::parse`]: SSE or JSON bodies, `<think>` removed, JSON in
//! fences or prose, http(s) links only.

use std::time::Duration;

use async_trait::async_trait;
use ferret_core::tokenize::token_strings;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest,
    EngineResponse, Intent, Runtime,
};

use super::chat::{ChatClient, ChatClientBuilder, ChatMessage};
use super::parse;
use crate::http::{ConfigError, HttpClient, Service, SharedClock, clock};

/// The controls stated in Grok's prompt.
const CONTROLS: ControlSet = ControlSet::of(&[
    Control::IncludeDomains,
    Control::ExcludeDomains,
    Control::Freshness,
    Control::Since,
    Control::Until,
    Control::Language,
    Control::Region,
]);

/// How Grok is named in errors.
pub const SERVICE: Service = Service {
    display: "Grok (chat completions)",
    credential_hint: Some("set GROK_API_KEY (and GROK_API_URL / GROK_MODEL if not xAI's defaults)"),
};

/// Words that make a query time-sensitive. CJK words match as
/// substrings; English ones as whole words or word sequences.
pub const TIME_WORDS: &[&str] = &[
    "当前",
    "现在",
    "今天",
    "最新",
    "最近",
    "近期",
    "实时",
    "目前",
    "本周",
    "本月",
    "今年",
    "current",
    "now",
    "today",
    "latest",
    "recent",
    "this week",
    "this month",
    "this year",
];

/// Whether `query` contains one of [`TIME_WORDS`].
pub fn is_time_sensitive(query: &str) -> bool {
    let tokens = token_strings(query);
    TIME_WORDS.iter().any(|word| {
        if word.is_ascii() {
            let parts: Vec<&str> = word.split(' ').collect();
            tokens
                .windows(parts.len())
                .any(|w| w.iter().zip(&parts).all(|(t, p)| t == p))
        } else {
            query.contains(word)
        }
    })
}

/// The Grok search engine (`grok`), over a [`ChatClient`].
#[derive(Debug, Clone)]
pub struct GrokEngine {
    client: ChatClient,
    clock: SharedClock,
}

/// Builder for [`GrokEngine`].
#[derive(Debug, Clone)]
pub struct GrokBuilder {
    chat: ChatClientBuilder,
    clock: SharedClock,
}

impl Default for GrokBuilder {
    fn default() -> Self {
        GrokBuilder {
            chat: ChatClient::builder()
                .base_url(GrokEngine::DEFAULT_BASE_URL)
                .model(GrokEngine::DEFAULT_MODEL)
                .service(SERVICE),
            clock: clock::system(),
        }
    }
}

impl GrokBuilder {
    /// The API root or full completions URL (`GROK_API_URL`; default
    /// `https://api.x.ai/v1`).
    pub fn api_url(mut self, url: impl Into<String>) -> Self {
        self.chat = self.chat.base_url(url);
        self
    }

    /// The same as [`GrokBuilder::api_url`], named like the other adapters'
    /// builders.
    pub fn base_url(self, url: impl Into<String>) -> Self {
        self.api_url(url)
    }

    /// The API key (`GROK_API_KEY`). Without one, searches fail with an
    /// `Auth` error saying to set it.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.chat = self.chat.api_key(key);
        self
    }

    /// The model (`GROK_MODEL`; default `grok-4.1-fast`). Blank keeps the
    /// default.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        let model = model.into();
        if !model.trim().is_empty() {
            self.chat = self.chat.model(model);
        }
        self
    }

    /// The budget of one call (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.chat = self.chat.timeout(timeout);
        self
    }

    /// Share an HTTP client.
    pub fn http_client(mut self, client: HttpClient) -> Self {
        self.chat = self.chat.http_client(client);
        self
    }

    /// The most response-body bytes read (default 4 MiB).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.chat = self.chat.body_limit(bytes);
        self
    }

    /// The `User-Agent` header.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.chat = self.chat.user_agent(user_agent);
        self
    }

    /// Sampling temperature (default 0.1).
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.chat = self.chat.temperature(temperature);
        self
    }

    /// `max_tokens` (default 2048).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.chat = self.chat.max_tokens(max_tokens);
        self
    }

    /// The clock the current-time context comes from (default: system).
    pub fn clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// Build the engine.
    pub fn build(self) -> Result<GrokEngine, ConfigError> {
        Ok(GrokEngine {
            client: self.chat.build()?,
            clock: self.clock,
        })
    }
}

impl GrokEngine {
    /// xAI's API root.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.x.ai/v1";
    /// The default model.
    pub const DEFAULT_MODEL: &'static str = "grok-4.1-fast";
    /// The most results asked for in one call.
    pub const MAX_RESULTS: usize = 20;

    /// A builder with the defaults.
    pub fn builder() -> GrokBuilder {
        GrokBuilder::default()
    }

    /// The chat client underneath.
    pub fn client(&self) -> &ChatClient {
        &self.client
    }

    /// The messages sent for `request`.
    pub fn prompt(&self, request: &EngineRequest) -> Vec<ChatMessage> {
        let n = request.max_results.min(Self::MAX_RESULTS);
        let mut system = format!(
            "You are a web search engine. Find real, currently reachable web pages that answer \
             the user's query. Answer ONLY with JSON of the form \
             {{\"results\":[{{\"title\":\"...\",\"url\":\"https://...\",\"snippet\":\"...\",\
             \"published_date\":\"YYYY-MM-DD or null\"}}]}} with at most {n} results, best first. \
             Use only URLs you are confident exist; never invent one. No prose, no markdown."
        );
        let time_sensitive = is_time_sensitive(&request.query)
            || request.freshness.is_some()
            || matches!(request.intent, Some(Intent::Status | Intent::News));
        if time_sensitive {
            system.push_str(&format!(
                "\nCurrent time: {} (UTC). The query is time-sensitive: prefer the most recent \
                 sources and give their publication dates.",
                clock::iso_datetime(self.clock.now())
            ));
        }
        system.push_str(&restrictions(request));
        vec![
            ChatMessage::system(system),
            ChatMessage::user(request.query.trim()),
        ]
    }
}

/// The prompt lines stating the request's controls, each on its own line.
fn restrictions(request: &EngineRequest) -> String {
    let mut lines = String::new();
    let mut say = |line: String| {
        lines.push('\n');
        lines.push_str(&line);
    };
    if let Some(f) = request.freshness {
        say(format!(
            "Only include pages published in the past {} day(s).",
            f.days()
        ));
    }
    if let Some(since) = request.since {
        say(format!("Only include pages published on or after {since}."));
    }
    if let Some(until) = request.until {
        say(format!(
            "Only include pages published on or before {until}."
        ));
    }
    let include = request.included_domains();
    if !include.is_empty() {
        say(format!("Only include pages from {}.", include.join(", ")));
    }
    if !request.exclude_domains.is_empty() {
        say(format!(
            "Never include pages from {}.",
            request.exclude_domains.join(", ")
        ));
    }
    if let Some(lang) = &request.language {
        say(format!("Prefer pages written in {}.", lang.trim()));
    }
    if let Some(region) = &request.region {
        say(format!("Prefer pages for readers in the country {region}."));
    }
    lines
}

#[async_trait]
impl Engine for GrokEngine {
    fn name(&self) -> &str {
        "grok"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            site_filter: true,
            max_results: Self::MAX_RESULTS,
            llm_backed: true,
            ..EngineCapabilities::new(EngineKind::Llm).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        if !self.client.has_api_key() {
            return Err(SERVICE.missing_key());
        }
        let text = self.client.complete(&self.prompt(request)).await?;
        let mut response = parse::hits_from_text("grok", &text, request.max_results);
        response.provenance.runtime = Runtime::Llm;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::FixedClock;
    use ferret_core::Freshness;
    use std::sync::Arc;

    #[test]
    fn time_words_in_both_languages() {
        for q in [
            "Rust 最新进展",
            "今天 天气",
            "latest Deno release",
            "what happened this week in AI",
            "Current state of WASI",
        ] {
            assert!(is_time_sensitive(q), "{q}");
        }
        for q in [
            "what is a monad",
            "I know the week",
            "nowhere man",
            "this weekend",
        ] {
            assert!(!is_time_sensitive(q), "{q}");
        }
    }

    #[test]
    fn prompt_injects_time_only_when_time_sensitive() {
        let grok = GrokEngine::builder()
            .api_key("k")
            .clock(Arc::new(FixedClock::at_date(2026, 7, 25)))
            .build()
            .unwrap();
        let p = grok.prompt(&EngineRequest::new("latest rust release"));
        assert!(
            p[0].content.contains("Current time: 2026-07-25T00:00:00Z"),
            "{}",
            p[0].content
        );
        assert_eq!(p[1].content, "latest rust release");
        let p = grok.prompt(&EngineRequest::new("what is a monad"));
        assert!(!p[0].content.contains("Current time"));
        let p = grok.prompt(
            &EngineRequest::new("what is a monad")
                .with_freshness(Freshness::Pw)
                .with_site("haskell.org"),
        );
        assert!(p[0].content.contains("Current time"));
        assert!(p[0].content.contains("past 7 day(s)"));
        assert!(p[0].content.contains("haskell.org"));
    }

    #[test]
    fn prompt_states_domains_dates_and_region() {
        let grok = GrokEngine::builder().api_key("k").build().unwrap();
        let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        let p = grok.prompt(
            &EngineRequest::new("rust")
                .with_include_domains(["docs.rs", "rust-lang.org"])
                .with_exclude_domains(["reddit.com"])
                .with_since(day("2025-01-01"))
                .with_until(day("2025-06-30"))
                .with_region("DE"),
        );
        let system = &p[0].content;
        for wanted in [
            "Only include pages from docs.rs, rust-lang.org.",
            "Never include pages from reddit.com.",
            "on or after 2025-01-01",
            "on or before 2025-06-30",
            "country DE",
        ] {
            assert!(system.contains(wanted), "{wanted}: {system}");
        }
    }

    #[test]
    fn defaults_are_xais_endpoint_model_and_limits() {
        let grok = GrokEngine::builder().api_key("k").build().unwrap();
        assert_eq!(grok.client().model(), "grok-4.1-fast");
        assert_eq!(
            grok.client().endpoint().as_str(),
            "https://api.x.ai/v1/chat/completions"
        );
        assert_eq!(grok.client().timeout(), Duration::from_secs(30));
        let body = grok.client().request_body(&[]);
        assert_eq!(body["max_tokens"], 2048);
        assert!((body["temperature"].as_f64().unwrap() - 0.1).abs() < 1e-6);
        assert!(grok.capabilities().llm_backed);
    }
}
