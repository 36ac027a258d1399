//! Search controls through the public search API: what each engine is
//! asked, the domain and date filters applied after fusion (every removal
//! reported), the controls an engine ignored named in its report, the
//! typed errors for bad values, and a property test that the domain
//! filters never keep an excluded domain nor drop an included one.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::{NaiveDate, TimeZone, Utc};
use ferret_core::fanout::Fanout;
use ferret_core::search::{SearchError, SearchOptions, Searcher};
use ferret_core::testing::StaticEngine;
use ferret_core::{
    Control, ControlError, ControlSet, DropReason, Engine, EngineCapabilities, EngineError,
    EngineHit, EngineKind, EngineRequest, EngineResponse, Freshness, Intent, Provenance, Runtime,
    SafeSearch, SearchResponse,
};
use proptest::prelude::*;

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn options() -> SearchOptions {
    SearchOptions::new()
        .with_now(Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap())
        .with_sub_queries(["tokio runtime"])
        .with_max_results(50)
}

fn hit(rank: u32, url: &str, published_at: Option<&str>) -> EngineHit {
    let mut hit = EngineHit::new(
        rank,
        url,
        format!("Tokio runtime page {rank} at {url}"),
        format!("Notes number {rank} on the tokio runtime, from {url}"),
    );
    hit.published_at = published_at.map(str::to_string);
    hit
}

fn searcher(engines: Vec<Arc<dyn Engine>>) -> Searcher {
    let fanout = Fanout::builder().engines(engines).build().unwrap();
    Searcher::builder().fanout(fanout).build()
}

async fn search(hits: Vec<EngineHit>, options: &SearchOptions) -> SearchResponse {
    searcher(vec![Arc::new(StaticEngine::with_hits("brave", hits))])
        .search("tokio runtime", options)
        .await
        .unwrap()
}

fn result_urls(response: &SearchResponse) -> Vec<String> {
    let mut urls: Vec<String> = response
        .results
        .iter()
        .map(|r| r.original_url.to_string())
        .collect();
    urls.sort();
    urls
}

fn dropped(response: &SearchResponse) -> Vec<(String, DropReason)> {
    let mut rows: Vec<(String, DropReason)> = response
        .dropped
        .iter()
        .map(|d| (d.url.clone().unwrap_or_default(), d.reason))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[tokio::test]
async fn excluded_domains_and_their_subdomains_are_removed_and_reported() {
    let hits = vec![
        hit(1, "https://docs.rs/tokio", None),
        hit(2, "https://www.reddit.com/r/rust/tokio", None),
        hit(3, "https://old.reddit.com/r/rust/runtime", None),
        hit(4, "https://notreddit.com/tokio", None),
    ];
    let response = search(hits, &options().with_exclude_domains(["Reddit.com"])).await;
    assert_eq!(
        result_urls(&response),
        ["https://docs.rs/tokio", "https://notreddit.com/tokio"]
    );
    assert_eq!(
        dropped(&response),
        [
            (
                "https://old.reddit.com/r/rust/runtime".to_string(),
                DropReason::ExcludedDomain
            ),
            (
                "https://www.reddit.com/r/rust/tokio".to_string(),
                DropReason::ExcludedDomain
            ),
        ]
    );
    assert!(
        response
            .dropped
            .iter()
            .all(|d| d.engine.as_deref() == Some("brave"))
    );
    let json = serde_json::to_value(&response).unwrap();
    assert_eq!(json["dropped"][0]["reason"], "excluded-domain");
}

#[tokio::test]
async fn only_included_domains_are_kept_and_the_rest_reported() {
    let hits = vec![
        hit(1, "https://docs.rs/tokio", None),
        hit(2, "https://blog.rust-lang.org/tokio", None),
        hit(3, "https://medium.com/tokio", None),
    ];
    let response = search(
        hits,
        &options().with_include_domains(["docs.rs", "rust-lang.org"]),
    )
    .await;
    assert_eq!(
        result_urls(&response),
        ["https://blog.rust-lang.org/tokio", "https://docs.rs/tokio"]
    );
    assert_eq!(
        dropped(&response),
        [(
            "https://medium.com/tokio".to_string(),
            DropReason::OutsideIncludedDomains
        )]
    );
}

#[tokio::test]
async fn with_site_still_restricts_to_one_domain() {
    let hits = vec![
        hit(1, "https://docs.rs/tokio", None),
        hit(2, "https://medium.com/tokio", None),
    ];
    let response = search(hits, &options().with_site("docs.rs")).await;
    assert_eq!(result_urls(&response), ["https://docs.rs/tokio"]);
    assert_eq!(response.dropped.len(), 1);
}

#[tokio::test]
async fn since_and_until_drop_dated_results_outside_and_count_undated_ones() {
    let hits = vec![
        hit(1, "https://a.example/old", Some("2024-12-31")),
        hit(2, "https://b.example/in", Some("2025-03-01T10:00:00Z")),
        hit(3, "https://c.example/new", Some("2025-07-01")),
        hit(4, "https://d.example/undated", None),
        hit(5, "https://e.example/last-day", Some("2025-06-30T23:00:00")),
    ];
    let response = search(
        hits,
        &options()
            .with_since(day("2025-01-01"))
            .with_until(day("2025-06-30")),
    )
    .await;
    assert_eq!(
        result_urls(&response),
        [
            "https://b.example/in",
            "https://d.example/undated",
            "https://e.example/last-day"
        ]
    );
    assert_eq!(
        dropped(&response),
        [
            (
                "https://a.example/old".to_string(),
                DropReason::PublishedBeforeSince
            ),
            (
                "https://c.example/new".to_string(),
                DropReason::PublishedAfterUntil
            ),
        ]
    );
    assert!(
        response
            .warnings
            .iter()
            .any(|w| w.starts_with("1 result had no publication date")),
        "{:?}",
        response.warnings
    );
}

#[tokio::test]
async fn a_date_range_replaces_the_plans_freshness_window_unless_one_is_given() {
    let hits = vec![hit(1, "https://a.example/x", Some("2025-03-01"))];
    let news = options().with_intent(Intent::News);
    let planned = search(hits.clone(), &news).await;
    assert!(planned.freshness.is_some(), "news plans a window");
    let ranged = search(hits.clone(), &news.clone().with_since(day("2025-01-01"))).await;
    assert_eq!(ranged.freshness, None);
    let both = search(
        hits,
        &news
            .with_freshness(Some(Freshness::Py))
            .with_since(day("2025-01-01")),
    )
    .await;
    assert_eq!(both.freshness, Some(Freshness::Py));
}

/// Records every request; its capabilities are given.
#[derive(Debug, Clone)]
struct Recording {
    name: &'static str,
    capabilities: EngineCapabilities,
    seen: Arc<Mutex<Vec<EngineRequest>>>,
}

impl Recording {
    fn new(name: &'static str, controls: ControlSet) -> Self {
        Recording {
            name,
            capabilities: EngineCapabilities::new(EngineKind::Web).with_controls(controls),
            seen: Arc::default(),
        }
    }
}

#[async_trait]
impl Engine for Recording {
    fn name(&self) -> &str {
        self.name
    }
    fn capabilities(&self) -> EngineCapabilities {
        self.capabilities.clone()
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        self.seen.lock().unwrap().push(request.clone());
        Ok(EngineResponse::new(
            Provenance::public(Runtime::Http),
            vec![hit(1, &format!("https://{}.example/x", self.name), None)],
        ))
    }
}

fn every_control() -> SearchOptions {
    options()
        .with_include_domains(["WWW.Example.com", "docs.rs", "docs.rs"])
        .with_exclude_domains(["reddit.com"])
        .with_since(day("2025-01-01"))
        .with_until(day("2025-06-30"))
        .with_language("de")
        .with_region("de")
        .with_safe_search(SafeSearch::Strict)
        .with_page(2)
}

#[tokio::test]
async fn every_engine_request_carries_the_normalised_controls() {
    let engine = Recording::new("plain", ControlSet::EMPTY);
    searcher(vec![Arc::new(engine.clone())])
        .search("tokio runtime", &every_control())
        .await
        .unwrap();
    let seen = engine.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let r = &seen[0];
    assert_eq!(r.include_domains, ["example.com", "docs.rs"]);
    assert_eq!(r.site, None, "two domains are not one site");
    assert_eq!(r.exclude_domains, ["reddit.com"]);
    assert_eq!(r.since, Some(day("2025-01-01")));
    assert_eq!(r.until, Some(day("2025-06-30")));
    assert_eq!(r.language.as_deref(), Some("de"));
    assert_eq!(r.region.as_deref(), Some("DE"));
    assert_eq!(r.safe_search, Some(SafeSearch::Strict));
    assert_eq!(r.page, Some(2));

    let one = Recording::new("one", ControlSet::EMPTY);
    searcher(vec![Arc::new(one.clone())])
        .search(
            "tokio runtime",
            &options().with_site("Docs.rs").with_page(1),
        )
        .await
        .unwrap();
    let r = one.seen.lock().unwrap()[0].clone();
    assert_eq!(r.site.as_deref(), Some("docs.rs"));
    assert_eq!(r.page, None, "page 1 is the default");
}

#[tokio::test]
async fn each_report_names_the_controls_its_engine_ignored() {
    let plain = Recording::new("plain", ControlSet::EMPTY);
    let full = Recording::new("full", ControlSet::of(&Control::ALL));
    let some = Recording::new(
        "some",
        ControlSet::of(&[Control::Region, Control::Since, Control::Until]),
    );
    let engines: Vec<Arc<dyn Engine>> = vec![Arc::new(plain), Arc::new(full), Arc::new(some)];
    let response = searcher(engines)
        .search("tokio runtime", &every_control())
        .await
        .unwrap();
    let unsupported = |name: &str| {
        response
            .engines
            .iter()
            .find(|r| r.name == name)
            .unwrap()
            .unsupported
            .clone()
    };
    assert_eq!(
        unsupported("plain"),
        [
            "include_domains",
            "exclude_domains",
            "since",
            "until",
            "language",
            "region",
            "safe_search",
            "page"
        ]
    );
    assert!(unsupported("full").is_empty());
    assert_eq!(
        unsupported("some"),
        [
            "include_domains",
            "exclude_domains",
            "language",
            "safe_search",
            "page"
        ]
    );
    let json = serde_json::to_value(&response).unwrap();
    let reports = json["engines"].as_array().unwrap();
    assert_eq!(reports[0]["unsupported"][0], "include_domains");
    assert!(
        reports[1].get("unsupported").is_none(),
        "skipped when empty"
    );
}

#[tokio::test]
async fn a_single_site_engine_supports_one_included_domain_only() {
    let mut caps = EngineCapabilities::new(EngineKind::Web);
    caps.site_filter = true;
    let mut site = Recording::new("site", ControlSet::EMPTY);
    site.capabilities = caps;
    let response = searcher(vec![Arc::new(site.clone())])
        .search("tokio runtime", &options().with_site("docs.rs"))
        .await
        .unwrap();
    assert!(response.engines[0].unsupported.is_empty());
    let response = searcher(vec![Arc::new(site)])
        .search(
            "tokio runtime",
            &options().with_include_domains(["docs.rs", "tokio.rs"]),
        )
        .await
        .unwrap();
    assert_eq!(response.engines[0].unsupported, ["include_domains"]);
}

#[tokio::test]
async fn searches_without_controls_report_nothing_new() {
    let response = search(vec![hit(1, "https://docs.rs/tokio", None)], &options()).await;
    let json = serde_json::to_value(&response).unwrap();
    assert!(json["engines"][0].get("unsupported").is_none());
    assert_eq!(json["dropped"], serde_json::json!([]));
}

#[tokio::test]
async fn bad_control_values_are_typed_errors() {
    let s = searcher(vec![Arc::new(StaticEngine::new("brave", 1))]);
    type IsExpected = fn(&ControlError) -> bool;
    let cases: Vec<(SearchOptions, IsExpected)> = vec![
        (
            options()
                .with_since(day("2025-02-01"))
                .with_until(day("2025-01-01")),
            |e| matches!(e, ControlError::SinceAfterUntil { .. }),
        ),
        (options().with_page(0), |e| {
            matches!(e, ControlError::PageZero)
        }),
        (
            options().with_exclude_domains(["https://x.example/a"]),
            |e| matches!(e, ControlError::InvalidDomain { .. }),
        ),
        (options().with_include_domains(["*.example.com"]), |e| {
            matches!(e, ControlError::InvalidDomain { .. })
        }),
        (
            options()
                .with_include_domains(["docs.rs"])
                .with_exclude_domains(["www.docs.rs"]),
            |e| matches!(e, ControlError::IncludedAndExcluded { .. }),
        ),
        (options().with_region("Germany"), |e| {
            matches!(e, ControlError::InvalidRegion { .. })
        }),
    ];
    for (opts, is_expected) in cases {
        match s.search("tokio runtime", &opts).await {
            Err(SearchError::Control(e)) => assert!(is_expected(&e), "{e}"),
            other => panic!("expected a control error, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_excluded_result_gives_way_to_its_near_duplicate_on_an_allowed_domain() {
    let text = "Tokio is an asynchronous runtime for the Rust programming language, \
                with a scheduler, timers, channels and an I/O driver built in";
    let hits = vec![
        EngineHit::new(
            1,
            "https://mirror.example/tokio",
            "Tokio runtime guide",
            text,
        ),
        EngineHit::new(2, "https://tokio.rs/guide", "Tokio runtime guide", text),
    ];
    let plain = search(hits.clone(), &options()).await;
    assert_eq!(
        plain.results.len(),
        1,
        "the same text folds into one result"
    );
    let excluded = plain.results[0].original_url.to_string();
    let kept = plain.results[0].near_duplicates[0].original_url.to_string();
    let host = url::Url::parse(&excluded)
        .unwrap()
        .host_str()
        .unwrap()
        .to_string();
    let response = search(hits, &options().with_exclude_domains([host])).await;
    assert_eq!(result_urls(&response), [kept]);
    assert_eq!(dropped(&response), [(excluded, DropReason::ExcludedDomain)]);
}

// ───────────────────────────── Property ─────────────────────────────

const HOSTS: &[&str] = &[
    "example.com",
    "www.example.com",
    "docs.example.com",
    "badexample.com",
    "example.com.evil.org",
    "reddit.com",
    "old.reddit.com",
    "docs.rs",
    "rust-lang.org",
    "blog.rust-lang.org",
];

const DOMAINS: &[&str] = &[
    "example.com",
    "reddit.com",
    "docs.rs",
    "blog.rust-lang.org",
    "evil.org",
];

fn host_in(host: &str, domains: &[&str]) -> bool {
    let host = host.strip_prefix("www.").unwrap_or(host);
    domains
        .iter()
        .any(|d| host == *d || host.ends_with(&format!(".{d}")))
}

fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .unwrap()
        .host_str()
        .unwrap()
        .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn domain_filters_never_keep_an_excluded_domain_nor_drop_an_included_one(
        picks in proptest::collection::vec((0..HOSTS.len(), 0u8..3), 1..16),
        include in proptest::collection::btree_set(0..DOMAINS.len(), 0..3),
        exclude in proptest::collection::btree_set(0..DOMAINS.len(), 0..3),
    ) {
        let include: Vec<&str> = include.iter().map(|i| DOMAINS[*i]).collect();
        let exclude: Vec<&str> = exclude
            .iter()
            .map(|i| DOMAINS[*i])
            .filter(|d| !include.contains(d))
            .collect();
        // Some pages share their text so that near-duplicates fold together.
        let hits: Vec<EngineHit> = picks
            .iter()
            .enumerate()
            .map(|(i, (h, text))| {
                let url = format!("https://{}/page/{i}", HOSTS[*h]);
                let body = format!(
                    "Edition {text}: tokio is an asynchronous runtime for the Rust programming \
                     language, with a scheduler, timers, channels and an I/O driver built in"
                );
                EngineHit::new(i as u32 + 1, url, format!("Tokio runtime guide {text}"), body)
            })
            .collect();
        let options = options()
            .with_include_domains(include.clone())
            .with_exclude_domains(exclude.clone());
        let response = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(search(hits.clone(), &options));

        let allowed = |url: &str| {
            let host = host_of(url);
            !host_in(&host, &exclude) && (include.is_empty() || host_in(&host, &include))
        };
        let mut kept: Vec<String> = Vec::new();
        for r in &response.results {
            kept.push(r.original_url.to_string());
            kept.extend(r.near_duplicates.iter().map(|d| d.original_url.to_string()));
        }
        for url in &kept {
            prop_assert!(allowed(url), "kept {url} (include {include:?}, exclude {exclude:?})");
        }
        let reported: Vec<String> =
            response.dropped.iter().filter_map(|d| d.url.clone()).collect();
        for h in &hits {
            if allowed(&h.url) {
                prop_assert!(kept.contains(&h.url.to_string()), "dropped included {}", h.url);
            } else {
                prop_assert!(reported.contains(&h.url.to_string()), "{} removed silently", h.url);
            }
        }
    }
}
