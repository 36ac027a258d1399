//! Search-engine result pages in a real browser (the `search` mode):
//! the per-engine table (URL, selectors, time-window parameters, no-results
//! and block markers), date parsing, time windows, and turning extracted
//! rows into results.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Datelike, Duration as ChronoDuration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use url::Url;

use crate::error::BrowserError;

/// Snippets are cut to this many characters.
pub const SNIPPET_CHARS: usize = 300;

/// The result pages Ferret can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SerpEngine {
    /// Bing (the default: the most stable).
    #[default]
    Bing,
    /// DuckDuckGo's HTML version.
    DuckDuckGo,
    /// Baidu (Chinese).
    Baidu,
    /// Google (may answer with a captcha).
    Google,
}

/// One engine's row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineSpec {
    /// The engine.
    pub engine: SerpEngine,
    /// `https://host/path` of the result page.
    pub base: &'static str,
    /// The query parameter.
    pub query_param: &'static str,
    /// Result items.
    pub item: &'static str,
    /// Title / link inside an item, tried in order.
    pub link: &'static [&'static str],
    /// Snippet inside an item.
    pub snippet: &'static str,
    /// Text that means "no results" (lower-case).
    pub no_results: &'static [&'static str],
    /// Text or URL parts that mean a block / captcha page (lower-case).
    pub blocked: &'static [&'static str],
}

/// The table (each engine's result selectors; Google also has its 2025 markup,
/// `div.MjjYud` / `h3.LC20lb`, since current pages have no `div.g`).
pub const ENGINES: &[EngineSpec] = &[
    EngineSpec {
        engine: SerpEngine::Bing,
        base: "https://www.bing.com/search",
        query_param: "q",
        item: "li.b_algo",
        link: &["h2 a"],
        snippet: ".b_caption p, p",
        no_results: &["there are no results for", "no results found for"],
        blocked: &[
            "/challenge",
            "verify you are a human",
            "solve the challenge",
            "unusual traffic",
        ],
    },
    EngineSpec {
        engine: SerpEngine::DuckDuckGo,
        base: "https://html.duckduckgo.com/html/",
        query_param: "q",
        item: "div.result",
        link: &["a.result__a"],
        snippet: ".result__snippet",
        no_results: &["no results.", "no  results found"],
        blocked: &[
            "bots use duckduckgo too",
            "complete the following challenge",
            "anomaly.js",
        ],
    },
    EngineSpec {
        engine: SerpEngine::Baidu,
        base: "https://www.baidu.com/s",
        query_param: "wd",
        item: "div#content_left div[class*='c-container'], div#content_left div.result",
        link: &["h3 a"],
        snippet: ".c-abstract",
        no_results: &["抱歉没有找到", "很抱歉，没有找到", "没有找到与"],
        blocked: &[
            "百度安全验证",
            "wappass.baidu.com",
            "请完成下方验证",
            "网络不给力",
        ],
    },
    EngineSpec {
        engine: SerpEngine::Google,
        base: "https://www.google.com/search",
        query_param: "q",
        item: "div.g, div[data-sncf], div.MjjYud",
        link: &["a h3", "h3.LC20lb", "h3"],
        snippet: "div.VwiC3b, div[data-sncf], span.aCOpRe",
        no_results: &[
            "did not match any documents",
            "não encontrou nenhum documento",
            "找不到和您查询的",
            "no results found for",
        ],
        blocked: &[
            "/sorry/",
            "unusual traffic from your computer network",
            "our systems have detected unusual traffic",
            "not a robot",
        ],
    },
];

impl SerpEngine {
    /// Its row of [`ENGINES`].
    pub fn spec(self) -> &'static EngineSpec {
        ENGINES
            .iter()
            .find(|s| s.engine == self)
            .unwrap_or(&ENGINES[0])
    }

    /// `bing`, `duckduckgo`, `baidu`, `google`.
    pub fn as_str(self) -> &'static str {
        match self {
            SerpEngine::Bing => "bing",
            SerpEngine::DuckDuckGo => "duckduckgo",
            SerpEngine::Baidu => "baidu",
            SerpEngine::Google => "google",
        }
    }

    /// The result page URL for `query` on `base` (the engine's own when
    /// `None`), with the time window pushed down.
    pub fn search_url(
        self,
        query: &str,
        window: Option<&TimeWindow>,
        base: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Url, BrowserError> {
        let spec = self.spec();
        let base = base.unwrap_or(spec.base);
        let mut url = Url::parse(base).map_err(|e| {
            BrowserError::invalid(format!("bad result page base URL {base:?}: {e}"))
        })?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair(spec.query_param, query);
            if let Some(window) = window {
                for (k, v) in window.params(self, now) {
                    q.append_pair(k, &v);
                }
            }
        }
        Ok(url)
    }
}

impl fmt::Display for SerpEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SerpEngine {
    type Err = BrowserError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "bing" => Ok(SerpEngine::Bing),
            "duckduckgo" | "ddg" => Ok(SerpEngine::DuckDuckGo),
            "baidu" => Ok(SerpEngine::Baidu),
            "google" => Ok(SerpEngine::Google),
            other => Err(BrowserError::invalid(format!(
                "unknown engine {other:?}; use bing, duckduckgo, baidu or google"
            ))),
        }
    }
}

/// A publication-time window (`--since` / `--until`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeWindow {
    /// Earliest time.
    pub since: Option<DateTime<Utc>>,
    /// Latest time.
    pub until: Option<DateTime<Utc>>,
}

impl TimeWindow {
    /// Parse `--since` / `--until` values: `12h`, `7d`, `1w`, `30d`, `1y`
    /// (before `now`) or an ISO date / datetime.
    pub fn parse(
        since: Option<&str>,
        until: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Option<TimeWindow>, BrowserError> {
        let since = since.map(|s| parse_point(s, now)).transpose()?;
        let until = until.map(|s| parse_point(s, now)).transpose()?;
        if since.is_none() && until.is_none() {
            return Ok(None);
        }
        if let (Some(a), Some(b)) = (since, until)
            && a > b
        {
            return Err(BrowserError::invalid(format!(
                "the time window starts ({a}) after it ends ({b})"
            )));
        }
        Ok(Some(TimeWindow { since, until }))
    }

    /// Whether `date` falls inside.
    pub fn contains(&self, date: NaiveDate) -> bool {
        self.since.is_none_or(|s| date >= s.date_naive())
            && self.until.is_none_or(|u| date <= u.date_naive())
    }

    /// The engine's query parameters for this window: Google
    /// `tbs=cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY`; Bing
    /// `qft=+filterui:age-lt{minutes}`; Baidu `gpc=stf={from},{to}|stftype=2`
    /// (Unix seconds); DuckDuckGo `df=YYYY-MM-DD..YYYY-MM-DD`.
    pub fn params(&self, engine: SerpEngine, now: DateTime<Utc>) -> Vec<(&'static str, String)> {
        let since = self.since.unwrap_or(now - ChronoDuration::days(365 * 30));
        let until = self.until.unwrap_or(now);
        let mdy = |d: DateTime<Utc>| format!("{}/{}/{}", d.month(), d.day(), d.year());
        match engine {
            SerpEngine::Google => vec![(
                "tbs",
                format!("cdr:1,cd_min:{},cd_max:{}", mdy(since), mdy(until)),
            )],
            SerpEngine::Bing => {
                let minutes = (now - since).num_minutes().max(1);
                vec![("qft", format!("+filterui:age-lt{minutes}"))]
            }
            SerpEngine::Baidu => vec![(
                "gpc",
                format!("stf={},{}|stftype=2", since.timestamp(), until.timestamp()),
            )],
            SerpEngine::DuckDuckGo => vec![(
                "df",
                format!("{}..{}", since.format("%Y-%m-%d"), until.format("%Y-%m-%d")),
            )],
        }
    }
}

fn parse_point(s: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, BrowserError> {
    let t = s.trim();
    let bad = || {
        BrowserError::invalid(format!(
            "bad time {t:?}: use 12h, 7d, 1w, 30d, 1y or an ISO date like 2026-01-31"
        ))
    };
    if let Some(unit) = t.chars().last().filter(|c| c.is_ascii_alphabetic()) {
        let n: i64 = t[..t.len() - 1].trim().parse().map_err(|_| bad())?;
        if n < 0 {
            return Err(bad());
        }
        let d = match unit.to_ascii_lowercase() {
            'h' => ChronoDuration::hours(n),
            'd' => ChronoDuration::days(n),
            'w' => ChronoDuration::weeks(n),
            'm' => ChronoDuration::days(30 * n),
            'y' => ChronoDuration::days(365 * n),
            _ => return Err(bad()),
        };
        return Ok(now - d);
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt.with_timezone(&Utc));
    }
    NaiveDate::parse_from_str(t, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
        .ok_or_else(bad)
}

/// The first date in `text` as ISO `YYYY-MM-DD`: `2024年3月5日`,
/// `5 Mar 2024`, `Mar 5, 2024` (full month names too) or `2024-03-05`
/// ([`ferret_core::dates::find_date`]).
pub fn parse_date(text: &str) -> Option<String> {
    ferret_core::dates::find_date(text).map(|d| d.format("%Y-%m-%d").to_string())
}

/// Cut `text` to at most `max` characters (on a character boundary).
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

/// One result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SerpRow {
    /// 1-based position on the page (after filtering).
    pub rank: usize,
    /// The title.
    pub title: String,
    /// The target URL (redirect wrappers unwrapped).
    pub url: String,
    /// The snippet, at most [`SNIPPET_CHARS`] characters.
    pub snippet: String,
    /// The date found in the snippet or item, ISO `YYYY-MM-DD`.
    pub published_at: Option<String>,
}

/// What kind of page came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SerpStatus {
    /// Results were read.
    Results,
    /// The engine said it found nothing.
    NoResults,
    /// A block, captcha or challenge page.
    Blocked,
    /// No rows, and neither marker was found.
    Empty,
}

/// A row as the page script extracted it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RawRow {
    /// Title text.
    pub title: String,
    /// The link's absolute href.
    pub href: String,
    /// Snippet text.
    #[serde(default)]
    pub snippet: String,
    /// The item's text (for dates).
    #[serde(default)]
    pub text: String,
}

/// Counts of rows left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SerpDropped {
    /// Not http(s), or the engine's own pages.
    pub not_a_result: usize,
    /// Undated rows while a time window was set.
    pub undated: usize,
    /// Dated outside the window.
    pub out_of_window: usize,
    /// Beyond `n`.
    pub over_limit: usize,
}

/// Turn raw rows into results: unwrap redirects, drop the engine's own
/// pages, cut snippets, parse dates, apply the window (undated rows are
/// dropped when one is set), keep `n`.
pub fn finish_rows(
    engine: SerpEngine,
    raw: Vec<RawRow>,
    window: Option<&TimeWindow>,
    n: usize,
) -> (Vec<SerpRow>, SerpDropped) {
    let mut dropped = SerpDropped::default();
    let mut out: Vec<SerpRow> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for row in raw {
        let target = ferret_core::canonical::unwrap_redirect(&row.href).unwrap_or(row.href);
        let Ok(parsed) = Url::parse(&target) else {
            dropped.not_a_result += 1;
            continue;
        };
        if !matches!(parsed.scheme(), "http" | "https") || is_engine_page(engine, &parsed) {
            dropped.not_a_result += 1;
            continue;
        }
        if !seen.insert(target.clone()) {
            continue;
        }
        let snippet = cut(row.snippet.trim(), SNIPPET_CHARS);
        let published_at = parse_date(&snippet).or_else(|| parse_date(&row.text));
        if let Some(window) = window {
            match published_at
                .as_deref()
                .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
            {
                None => {
                    dropped.undated += 1;
                    continue;
                }
                Some(d) if !window.contains(d) => {
                    dropped.out_of_window += 1;
                    continue;
                }
                Some(_) => {}
            }
        }
        if out.len() >= n {
            dropped.over_limit += 1;
            continue;
        }
        out.push(SerpRow {
            rank: out.len() + 1,
            title: row.title.trim().to_string(),
            url: target,
            snippet,
            published_at,
        });
    }
    (out, dropped)
}

/// The engine's own navigation (next page, images, settings …) is not a
/// result. Baidu's `/link?url=` redirects are kept: they are the results.
fn is_engine_page(engine: SerpEngine, url: &Url) -> bool {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    let path = url.path();
    match engine {
        SerpEngine::Bing => host.ends_with("bing.com") && !path.starts_with("/ck/"),
        SerpEngine::DuckDuckGo => host.ends_with("duckduckgo.com"),
        SerpEngine::Baidu => host.ends_with("baidu.com") && path != "/link",
        SerpEngine::Google => {
            host.starts_with("google.")
                && (path.starts_with("/search") || path.starts_with("/preferences"))
        }
    }
}

/// Classify the page: results, no results, blocked or empty. `marker` is
/// what was recognised.
pub fn classify(
    engine: SerpEngine,
    rows: usize,
    url: &str,
    title: &str,
    text_head: &str,
    has_captcha: bool,
) -> (SerpStatus, Option<String>) {
    let spec = engine.spec();
    let hay = format!(
        "{}\n{}\n{}",
        url.to_lowercase(),
        title.to_lowercase(),
        text_head.to_lowercase()
    );
    if rows > 0 {
        return (SerpStatus::Results, None);
    }
    if let Some(m) = spec.blocked.iter().find(|m| hay.contains(*m)) {
        return (SerpStatus::Blocked, Some(m.to_string()));
    }
    if has_captcha {
        return (SerpStatus::Blocked, Some("captcha form".into()));
    }
    if let Some(m) = spec.no_results.iter().find(|m| hay.contains(*m)) {
        return (SerpStatus::NoResults, Some(m.to_string()));
    }
    (SerpStatus::Empty, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
    }

    #[test]
    fn dates_in_the_three_seed_forms_and_iso() {
        assert_eq!(
            parse_date("发布于2024年3月5日 新闻").as_deref(),
            Some("2024-03-05")
        );
        assert_eq!(
            parse_date("5 Mar 2024 — text").as_deref(),
            Some("2024-03-05")
        );
        assert_eq!(
            parse_date("Mar 5, 2024 · text").as_deref(),
            Some("2024-03-05")
        );
        assert_eq!(
            parse_date("September 30, 2025").as_deref(),
            Some("2025-09-30")
        );
        assert_eq!(
            parse_date("posted 2023-12-01").as_deref(),
            Some("2023-12-01")
        );
        assert_eq!(parse_date("Feb 30, 2024"), None);
        assert_eq!(parse_date("no date here 2024"), None);
        // The earliest date in the text wins.
        assert_eq!(
            parse_date("Jan 2, 2020 then 2021年1月1日").as_deref(),
            Some("2020-01-02")
        );
    }

    #[test]
    fn window_params_per_engine() {
        let w = TimeWindow::parse(Some("7d"), None, now()).unwrap().unwrap();
        let g = SerpEngine::Google
            .search_url("rust", Some(&w), None, now())
            .unwrap();
        assert!(
            g.as_str()
                .contains("tbs=cdr%3A1%2Ccd_min%3A11%2F22%2F2026%2Ccd_max%3A11%2F29%2F2026"),
            "{g}"
        );
        let b = SerpEngine::Bing
            .search_url("rust", Some(&w), None, now())
            .unwrap();
        assert!(b.as_str().contains("qft=%2Bfilterui%3Aage-lt10080"), "{b}");
        let bd = SerpEngine::Baidu
            .search_url("rust", Some(&w), None, now())
            .unwrap();
        let pairs: Vec<(String, String)> = bd.query_pairs().into_owned().collect();
        assert_eq!(pairs[0], ("wd".into(), "rust".into()));
        assert_eq!(
            pairs[1].1,
            format!(
                "stf={},{}|stftype=2",
                (now() - ChronoDuration::days(7)).timestamp(),
                now().timestamp()
            )
        );
        let d = SerpEngine::DuckDuckGo
            .search_url(
                "rust",
                Some(&w),
                Some("http://html.duckduckgo.com:8080/html/"),
                now(),
            )
            .unwrap();
        assert_eq!(d.port(), Some(8080));
        assert!(d.as_str().contains("df=2026-11-22..2026-11-29"), "{d}");
        assert!(TimeWindow::parse(Some("2026-02-01"), Some("2026-01-01"), now()).is_err());
        assert!(TimeWindow::parse(Some("soon"), None, now()).is_err());
        assert_eq!(TimeWindow::parse(None, None, now()).unwrap(), None);
    }

    #[test]
    fn rows_unwrap_filter_and_window() {
        let raw = vec![
            RawRow {
                title: " Dated ".into(),
                href: "https://www.google.com/url?q=https://a.example/x&sa=U".into(),
                snippet: "Mar 5, 2026 · fresh".into(),
                text: String::new(),
            },
            RawRow {
                title: "Undated".into(),
                href: "https://b.example/".into(),
                snippet: "no date".into(),
                text: String::new(),
            },
            RawRow {
                title: "Old".into(),
                href: "https://c.example/".into(),
                snippet: "1 Jan 2001".into(),
                text: String::new(),
            },
            RawRow {
                title: "Next page".into(),
                href: "https://www.google.com/search?q=x&start=10".into(),
                snippet: String::new(),
                text: String::new(),
            },
        ];
        let (rows, dropped) = finish_rows(SerpEngine::Google, raw.clone(), None, 8);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].url, "https://a.example/x");
        assert_eq!(rows[0].title, "Dated");
        assert_eq!(rows[0].published_at.as_deref(), Some("2026-03-05"));
        assert_eq!(dropped.not_a_result, 1);
        let w = TimeWindow::parse(Some("1y"), None, now()).unwrap().unwrap();
        let (rows, dropped) = finish_rows(SerpEngine::Google, raw.clone(), Some(&w), 8);
        assert_eq!(rows.len(), 1);
        assert_eq!((dropped.undated, dropped.out_of_window), (1, 1));
        let (rows, dropped) = finish_rows(SerpEngine::Google, raw, None, 1);
        assert_eq!((rows.len(), dropped.over_limit), (1, 2));
    }

    #[test]
    fn classify_pages() {
        assert_eq!(
            classify(
                SerpEngine::Google,
                0,
                "https://www.google.com/sorry/index",
                "",
                "",
                false
            )
            .0,
            SerpStatus::Blocked
        );
        assert_eq!(
            classify(
                SerpEngine::Bing,
                0,
                "",
                "",
                "There are no results for xyz",
                false
            )
            .0,
            SerpStatus::NoResults
        );
        assert_eq!(
            classify(SerpEngine::Bing, 3, "", "", "", true).0,
            SerpStatus::Results
        );
        assert_eq!(
            classify(SerpEngine::Baidu, 0, "", "", "", false).0,
            SerpStatus::Empty
        );
        assert_eq!("DDG".parse::<SerpEngine>().unwrap(), SerpEngine::DuckDuckGo);
        assert!("yahoo".parse::<SerpEngine>().is_err());
    }

    proptest! {
        #[test]
        fn cut_never_exceeds_and_is_prefix(s in "\\PC{0,400}", max in 0usize..350) {
            let c = cut(&s, max);
            prop_assert!(c.chars().count() <= max);
            prop_assert!(s.starts_with(&c));
        }

        #[test]
        fn parsed_dates_round_trip(y in 1990i32..2100, m in 1u32..=12, d in 1u32..=28) {
            let date = NaiveDate::from_ymd_opt(y, m, d).unwrap();
            let iso = date.format("%Y-%m-%d").to_string();
            prop_assert_eq!(parse_date(&format!("{y}年{m}月{d}日")), Some(iso.clone()));
            prop_assert_eq!(parse_date(&date.format("%d %b %Y").to_string()), Some(iso.clone()));
            prop_assert_eq!(parse_date(&date.format("%B %-d, %Y").to_string()), Some(iso));
        }

        #[test]
        fn parse_date_never_panics(s in "\\PC{0,200}") {
            let _ = parse_date(&s);
        }
    }
}
