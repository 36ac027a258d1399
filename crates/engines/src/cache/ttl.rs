//! [`TtlPolicy`]: how long a cached answer stays fresh (by tier).
//!
//! | tier | TTL | chosen when |
//! |---|---|---|
//! | financial | 300 s | the query has a market word ([`FINANCIAL_WORDS`]) |
//! | news | 600 s | intent `news` |
//! | realtime | 900 s | intent `status` |
//! | general | 3600 s | intent `factual`, or no intent |
//! | research | 7200 s | intents `comparison`, `tutorial`, `exploratory` |
//! | evergreen | 86400 s | intent `resource` |
//!
//! Then two caps: a *freshness-sensitive* request — a freshness word in the
//! query ([`FRESHNESS_WORDS`]: 今日, 实时, 最新, today, breaking, latest, …)
//! or a `pd` / `pw` freshness window — is capped at 900 s; an answer with no
//! hits is kept 45 s only.

use std::time::Duration;

use ferret_core::{EngineRequest, EngineResponse, Freshness, Intent};
use serde::{Deserialize, Serialize};

use super::key::normalize_query;

/// A freshness class of cached answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TtlTier {
    /// Prices and quotes.
    Financial,
    /// News.
    News,
    /// The current state of something.
    Realtime,
    /// Everything else.
    General,
    /// Comparisons, tutorials, open research.
    Research,
    /// Official sites, docs, downloads.
    Evergreen,
}

/// The default TTL per tier, in seconds.
pub const TTL_TIERS: [(TtlTier, u64); 6] = [
    (TtlTier::Financial, 300),
    (TtlTier::News, 600),
    (TtlTier::Realtime, 900),
    (TtlTier::General, 3600),
    (TtlTier::Research, 7200),
    (TtlTier::Evergreen, 86400),
];

/// The tier for each intent.
pub const INTENT_TIERS: [(Intent, TtlTier); 7] = [
    (Intent::News, TtlTier::News),
    (Intent::Status, TtlTier::Realtime),
    (Intent::Factual, TtlTier::General),
    (Intent::Comparison, TtlTier::Research),
    (Intent::Tutorial, TtlTier::Research),
    (Intent::Exploratory, TtlTier::Research),
    (Intent::Resource, TtlTier::Evergreen),
];

/// Words that make a query freshness-sensitive.
/// ASCII words match whole words; CJK words match anywhere.
pub const FRESHNESS_WORDS: &[&str] = &[
    "今日",
    "今天",
    "昨晚",
    "昨夜",
    "本周",
    "本月",
    "实时",
    "即时",
    "最新",
    "刚刚",
    "盘中",
    "盘前",
    "盘后",
    "快讯",
    "直播",
    "热点新闻",
    "头条",
    "today",
    "tonight",
    "breaking",
    "live update",
    "just now",
    "right now",
    "this morning",
    "this week",
    "this month",
    "latest",
];

/// Words that put a query in the financial tier (the query's words are
/// all Ferret has to go on: it does not classify queries by domain).
pub const FINANCIAL_WORDS: &[&str] = &[
    "股价",
    "股票",
    "基金",
    "汇率",
    "行情",
    "大盘",
    "涨停",
    "跌停",
    "市值",
    "币价",
    "stock price",
    "share price",
    "stock quote",
    "exchange rate",
    "forex",
    "nasdaq",
    "dow jones",
    "s&p 500",
    "market cap",
    "bitcoin price",
    "crypto price",
];

impl TtlTier {
    /// Every tier, shortest TTL first.
    pub const ALL: [TtlTier; 6] = [
        TtlTier::Financial,
        TtlTier::News,
        TtlTier::Realtime,
        TtlTier::General,
        TtlTier::Research,
        TtlTier::Evergreen,
    ];

    /// The tier's default TTL from [`TTL_TIERS`].
    pub fn default_ttl(self) -> Duration {
        let secs = TTL_TIERS
            .iter()
            .find(|(t, _)| *t == self)
            .map_or(3600, |(_, s)| *s);
        Duration::from_secs(secs)
    }
}

/// Chooses the TTL of a cached answer (see the module docs). Every number
/// can be changed.
#[derive(Debug, Clone, PartialEq)]
pub struct TtlPolicy {
    tiers: Vec<(TtlTier, Duration)>,
    freshness_cap: Duration,
    empty_ttl: Duration,
}

impl Default for TtlPolicy {
    fn default() -> Self {
        TtlPolicy {
            tiers: TTL_TIERS
                .iter()
                .map(|(t, s)| (*t, Duration::from_secs(*s)))
                .collect(),
            freshness_cap: Duration::from_secs(900),
            empty_ttl: Duration::from_secs(45),
        }
    }
}

impl TtlPolicy {
    /// The default tiers ([`TTL_TIERS`]).
    pub fn new() -> Self {
        TtlPolicy::default()
    }

    /// Use `ttl` for `tier`.
    pub fn with_tier_ttl(mut self, tier: TtlTier, ttl: Duration) -> Self {
        match self.tiers.iter_mut().find(|(t, _)| *t == tier) {
            Some(slot) => slot.1 = ttl,
            None => self.tiers.push((tier, ttl)),
        }
        self
    }

    /// Cap freshness-sensitive requests at `cap` (900 s).
    pub fn with_freshness_cap(mut self, cap: Duration) -> Self {
        self.freshness_cap = cap;
        self
    }

    /// Keep answers without hits for `ttl` (45 s).
    pub fn with_empty_ttl(mut self, ttl: Duration) -> Self {
        self.empty_ttl = ttl;
        self
    }

    /// The TTL configured for `tier`.
    pub fn tier_ttl(&self, tier: TtlTier) -> Duration {
        self.tiers
            .iter()
            .find(|(t, _)| *t == tier)
            .map_or_else(|| tier.default_ttl(), |(_, d)| *d)
    }

    /// The tier of `request`: financial words first, then its intent.
    pub fn tier(&self, request: &EngineRequest) -> TtlTier {
        let query = normalize_query(&request.query);
        if FINANCIAL_WORDS.iter().any(|w| contains_word(&query, w)) {
            return TtlTier::Financial;
        }
        request
            .intent
            .and_then(|i| INTENT_TIERS.iter().find(|(k, _)| *k == i))
            .map_or(TtlTier::General, |(_, t)| *t)
    }

    /// Whether `request` asks for fresh results: a freshness word in the
    /// query, or a past-day / past-week window.
    pub fn is_freshness_sensitive(&self, request: &EngineRequest) -> bool {
        if matches!(request.freshness, Some(Freshness::Pd | Freshness::Pw)) {
            return true;
        }
        let query = normalize_query(&request.query);
        FRESHNESS_WORDS.iter().any(|w| contains_word(&query, w))
    }

    /// The TTL for caching `response` to `request`.
    pub fn ttl(&self, request: &EngineRequest, response: &EngineResponse) -> Duration {
        let mut ttl = self.tier_ttl(self.tier(request));
        if self.is_freshness_sensitive(request) {
            ttl = ttl.min(self.freshness_cap);
        }
        if response.hits.is_empty() {
            ttl = ttl.min(self.empty_ttl);
        }
        ttl
    }
}

/// Whether `needle` occurs in `haystack`: anywhere for non-ASCII needles, as
/// a whole word (not inside a longer ASCII word) for ASCII ones.
fn contains_word(haystack: &str, needle: &str) -> bool {
    if !needle.is_ascii() {
        return haystack.contains(needle);
    }
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    haystack.match_indices(needle).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + needle.len()..].chars().next();
        !is_word(before) && !is_word(after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::EngineHit;
    use ferret_core::Provenance;
    use ferret_core::Runtime;

    fn some_hits() -> EngineResponse {
        EngineResponse::new(
            Provenance::public(Runtime::Http),
            vec![EngineHit::new(1, "https://a.example/", "a", "")],
        )
    }

    #[test]
    fn tiers_follow_intent_and_market_words() {
        let p = TtlPolicy::new();
        let ttl = |r: EngineRequest| p.ttl(&r, &some_hits()).as_secs();
        assert_eq!(
            ttl(EngineRequest::new("tokio").with_intent(Intent::Resource)),
            86400
        );
        assert_eq!(
            ttl(EngineRequest::new("tokio vs async-std").with_intent(Intent::Comparison)),
            7200
        );
        assert_eq!(ttl(EngineRequest::new("what is tokio")), 3600);
        assert_eq!(
            ttl(EngineRequest::new("rust release").with_intent(Intent::Status)),
            900
        );
        assert_eq!(
            ttl(EngineRequest::new("rust foundation").with_intent(Intent::News)),
            600
        );
        assert_eq!(
            ttl(EngineRequest::new("AAPL stock price").with_intent(Intent::Resource)),
            300
        );
        assert_eq!(ttl(EngineRequest::new("茅台股价")), 300);
    }

    #[test]
    fn freshness_words_and_windows_cap_at_900() {
        let p = TtlPolicy::new();
        let ttl = |r: EngineRequest| p.ttl(&r, &some_hits()).as_secs();
        assert_eq!(
            ttl(EngineRequest::new("rust docs today").with_intent(Intent::Resource)),
            900
        );
        assert_eq!(
            ttl(EngineRequest::new("最新 rust 版本").with_intent(Intent::Resource)),
            900
        );
        assert_eq!(
            ttl(EngineRequest::new("Latest tokio").with_intent(Intent::Comparison)),
            900
        );
        assert_eq!(
            ttl(EngineRequest::new("tokio")
                .with_intent(Intent::Resource)
                .with_freshness(Freshness::Pd)),
            900
        );
        assert_eq!(
            ttl(EngineRequest::new("tokio")
                .with_intent(Intent::Resource)
                .with_freshness(Freshness::Py)),
            86400
        );
        // Whole words only: "todays" and "latestness" are not freshness words.
        assert_eq!(
            ttl(EngineRequest::new("todays latestness").with_intent(Intent::Resource)),
            86400
        );
    }

    #[test]
    fn empty_answers_are_kept_45_seconds() {
        let p = TtlPolicy::new();
        let r = EngineRequest::new("tokio").with_intent(Intent::Resource);
        assert_eq!(
            p.ttl(
                &r,
                &EngineResponse::empty(Provenance::public(Runtime::Http))
            )
            .as_secs(),
            45
        );
    }
}
