//! The public + login merge (`ferret.merge.v1`): inputs built by
//! serialising the crates' real envelopes (`ferret.search.v1`,
//! `ferret.browser.search.v1`, `ferret.browser.fetch.v1`,
//! `ferret.browser.act.v1`), matched by canonical URL, both sides kept with
//! `dual_sourced`, title conflicts, isolation and provenance, snippet caps,
//! typed errors, and (proptest) nothing lost and a deterministic order.
//! Pure JSON: no browser is started.

use std::collections::BTreeMap;

use ferret_browser::merge::{
    self, BODY_SNIPPET_CHARS, InputShape, ItemKind, MergeError, MergeInput, MergeReport,
    SERP_SNIPPET_CHARS,
};
use ferret_browser::modes::{self, ActOutput, FetchOutput, SearchOutput};
use ferret_browser::runtime::RenderedPage;
use ferret_browser::serp::{SerpDropped, SerpRow, SerpStatus};
use ferret_core::canonical::{CanonicalOptions, canonical_url};
use ferret_core::response::{EVIDENCE_POLICY, EngineReport, EngineStatus, SEARCH_SCHEMA};
use ferret_core::{
    Intent, Mode, Partition, Provenance, Runtime, Scores, SearchResponse, SearchResult, SourceHit,
};
use proptest::prelude::*;

// ---- real envelopes ----

fn row(rank: usize, url: &str, title: &str, snippet: &str) -> SerpRow {
    SerpRow {
        rank,
        title: title.into(),
        url: url.into(),
        snippet: snippet.into(),
        published_at: None,
    }
}

fn browser_search(query: &str, rows: Vec<SerpRow>, provenance: Provenance) -> SearchOutput {
    SearchOutput {
        schema: "ferret.browser.search.v1".into(),
        query: query.into(),
        engine: "browser_bing".into(),
        source: "ferret-browser".into(),
        url: format!("https://www.bing.com/search?q={query}"),
        status: SerpStatus::Results,
        status_marker: None,
        count: rows.len(),
        results: rows,
        dropped: SerpDropped::default(),
        fallback_selectors: false,
        window: None,
        fetch_method: "browser".into(),
        elapsed_ms: 12,
        provenance,
    }
}

fn browser_fetch(
    url: &str,
    final_url: &str,
    title: &str,
    text: &str,
    provenance: Provenance,
) -> FetchOutput {
    modes::fetch_output(
        RenderedPage {
            requested_url: url.into(),
            final_url: final_url.into(),
            title: title.into(),
            main_text: text.into(),
            main_source: "article".into(),
            body_text: text.into(),
            html: None,
            http_status: Some(200),
            wait_satisfied: true,
            blocked: Vec::new(),
            elapsed_ms: 40,
            provenance,
        },
        None,
        60_000,
        false,
    )
}

fn browser_act(search: SearchOutput, details: Vec<FetchOutput>) -> ActOutput {
    ActOutput {
        schema: "ferret.browser.act.v1".into(),
        query: search.query.clone(),
        engine: search.engine.clone(),
        results: search.results.clone(),
        search_status: search.status,
        detail: details.first().cloned(),
        details,
        failures: Vec::new(),
        elapsed_ms: 99,
        provenance: search.provenance,
    }
}

fn fused(original_url: &str, title: &str, snippet: &str, engines: &[&str]) -> SearchResult {
    SearchResult {
        url: canonical_url(original_url, CanonicalOptions::default()).unwrap(),
        original_url: original_url.into(),
        title: title.into(),
        snippet: snippet.into(),
        published_at: Some("2026-03-01".into()),
        domain: "example.com".into(),
        sources: engines
            .iter()
            .enumerate()
            .map(|(i, e)| SourceHit {
                engine: (*e).into(),
                rank: i as u32 + 1,
                sub_query: "rust merge".into(),
                url: original_url.into(),
                provenance: Provenance::public(Runtime::Http),
            })
            .collect(),
        scores: Scores::default(),
        score_basis: None,
        near_duplicates: Vec::new(),
        flags: Vec::new(),
        provenance: Provenance::public(Runtime::Http),
    }
}

fn search_response(query: &str, results: Vec<SearchResult>) -> SearchResponse {
    SearchResponse {
        schema: SEARCH_SCHEMA.into(),
        query: query.into(),
        intent: Intent::Factual,
        mode: Mode::Deep,
        freshness: None,
        sub_queries: vec![query.into()],
        results,
        engines: vec![EngineReport {
            name: "searxng".into(),
            status: EngineStatus::Ok,
            error_kind: None,
            message: None,
            elapsed_ms: 5,
            count: 2,
            calls: 1,
            failed_calls: 0,
            unsupported: Vec::new(),
        }],
        dropped: Vec::new(),
        goggle: None,
        discarded: Vec::new(),
        answers: Vec::new(),
        warnings: Vec::new(),
        evidence_policy: EVIDENCE_POLICY.into(),
        deadline_hit: false,
        elapsed_ms: 30,
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

fn public_input<T: serde::Serialize>(value: &T) -> MergeInput {
    MergeInput::from_json(&json(value), Partition::Public).unwrap()
}

fn login_input<T: serde::Serialize>(value: &T) -> MergeInput {
    MergeInput::from_json(&json(value), Partition::Login).unwrap()
}

fn login_prov() -> Provenance {
    Provenance::login(Runtime::ChromiumManaged)
}

fn public_prov() -> Provenance {
    Provenance::public(Runtime::ChromiumManaged)
}

// ---- matching ----

#[test]
fn same_url_with_tracking_and_fragment_is_one_dual_sourced_pair() {
    let public = public_input(&browser_search(
        "rust merge",
        vec![
            row(
                1,
                "https://Example.COM/guide?id=7&utm_source=news&utm_medium=mail#intro",
                "Guide",
                "public",
            ),
            row(2, "https://other.org/page", "Other", "only public"),
        ],
        public_prov(),
    ));
    let login = login_input(&browser_search(
        "rust merge",
        vec![row(
            1,
            "https://example.com/guide?fbclid=abc&id=7&gclid=q&spm=a.b#comments",
            "Guide",
            "login",
        )],
        login_prov(),
    ));
    let report = merge::merge(&public, &login);

    assert_eq!(report.items.len(), 3);
    let dual: Vec<_> = report.items.iter().filter(|i| i.dual_sourced).collect();
    assert_eq!(dual.len(), 2);
    assert_eq!(dual[0].side, Partition::Public);
    assert_eq!(dual[1].side, Partition::Login);
    assert_eq!(dual[0].canonical_url, dual[1].canonical_url);
    assert_eq!(
        dual[0].canonical_url.as_deref(),
        Some("https://example.com/guide?id=7")
    );
    // The original URLs are kept as given.
    assert!(dual[0].url.contains("utm_source=news"));
    assert!(dual[1].url.contains("fbclid=abc"));
    assert_eq!(report.counts.dual_sourced, 1);
    assert_eq!(report.counts.dual_sourced_items, 2);
    assert_eq!(report.counts.conflicts, 0);
    let other = report
        .items
        .iter()
        .find(|i| i.url == "https://other.org/page")
        .unwrap();
    assert!(!other.dual_sourced);
}

#[test]
fn every_basic_tracking_rule_makes_a_match() {
    let base = "https://news.example.com/a/b?id=1";
    let variants = [
        "https://NEWS.Example.com/a/b?id=1",
        "https://news.example.com/a/b?id=1#section-2",
        "https://news.example.com/a/b?id=1&utm_source=x",
        "https://news.example.com/a/b?utm_medium=y&id=1",
        "https://news.example.com/a/b?id=1&utm_campaign=z",
        "https://news.example.com/a/b?id=1&utm_term=t",
        "https://news.example.com/a/b?id=1&utm_content=c",
        "https://news.example.com/a/b?spm=1.2.3&id=1",
        "https://news.example.com/a/b?id=1&fbclid=IwAR0",
        "https://news.example.com/a/b?gclid=Cj0&id=1",
    ];
    for variant in variants {
        let public = public_input(&vec![
            serde_json::json!({"url": base, "title": "A", "snippet": ""}),
        ]);
        let login = login_input(&vec![
            serde_json::json!({"url": variant, "title": "A", "snippet": ""}),
        ]);
        let report = merge::merge(&public, &login);
        assert_eq!(
            report.counts.dual_sourced, 1,
            "{variant} should match {base}"
        );
        assert!(report.items.iter().all(|i| i.dual_sourced), "{variant}");
    }
}

#[test]
fn different_paths_do_not_match() {
    let public = public_input(&vec![
        serde_json::json!({"url": "https://example.com/a", "title": "A"}),
    ]);
    let login = login_input(&vec![
        serde_json::json!({"url": "https://example.com/A", "title": "A"}),
    ]);
    let report = merge::merge(&public, &login);
    assert_eq!(report.counts.dual_sourced, 0);
    assert!(report.items.iter().all(|i| !i.dual_sourced));
}

// ---- conflicts ----

#[test]
fn differing_titles_are_a_conflict() {
    let public = public_input(&browser_search(
        "q",
        vec![row(
            1,
            "https://example.com/post/1?utm_source=feed",
            "Release notes 1.2",
            "",
        )],
        public_prov(),
    ));
    let login = login_input(&browser_search(
        "q",
        vec![row(
            1,
            "https://example.com/post/1",
            "Release notes 1.2 (members edition)",
            "",
        )],
        login_prov(),
    ));
    let report = merge::merge(&public, &login);
    assert_eq!(report.conflicts.len(), 1);
    let c = &report.conflicts[0];
    assert_eq!(c.url, "https://example.com/post/1");
    assert_eq!(c.kind, ItemKind::Serp);
    assert_eq!(c.public_title, "Release notes 1.2");
    assert_eq!(c.login_title, "Release notes 1.2 (members edition)");
    assert_eq!(c.public_url, "https://example.com/post/1?utm_source=feed");
    assert_eq!(c.login_url, "https://example.com/post/1");
    assert_eq!(report.counts.conflicts, 1);
    // Both items are still there.
    assert_eq!(report.items.len(), 2);
    assert!(report.items.iter().all(|i| i.dual_sourced));
}

#[test]
fn titles_equal_after_whitespace_and_case_are_no_conflict() {
    let public = public_input(&vec![
        serde_json::json!({"url": "https://example.com/x", "title": "Rust  Merge\tGuide"}),
    ]);
    let login = login_input(&vec![
        serde_json::json!({"url": "https://example.com/x", "title": " rust merge guide\n"}),
    ]);
    let report = merge::merge(&public, &login);
    assert_eq!(report.counts.dual_sourced, 1);
    assert!(report.conflicts.is_empty());
}

#[test]
fn a_result_title_is_not_compared_with_a_page_title() {
    let public = public_input(&browser_search(
        "q",
        vec![row(
            1,
            "https://example.com/doc",
            "Doc - Example search title",
            "",
        )],
        public_prov(),
    ));
    let login = login_input(&browser_fetch(
        "https://example.com/doc",
        "https://example.com/doc",
        "Example | Doc",
        "The document text.",
        login_prov(),
    ));
    let report = merge::merge(&public, &login);
    assert_eq!(report.counts.dual_sourced, 1);
    assert!(report.conflicts.is_empty());
}

#[test]
fn an_empty_title_is_no_disagreement() {
    let public = public_input(&vec![
        serde_json::json!({"url": "https://example.com/x", "title": ""}),
    ]);
    let login = login_input(&vec![
        serde_json::json!({"url": "https://example.com/x", "title": "Something"}),
    ]);
    let report = merge::merge(&public, &login);
    assert_eq!(report.counts.dual_sourced, 1);
    assert!(report.conflicts.is_empty());
}

// ---- isolation and provenance ----

#[test]
fn report_states_schema_and_isolation() {
    let public = public_input(&browser_search(
        "q",
        vec![row(1, "https://a.example/", "A", "")],
        public_prov(),
    ));
    let login = login_input(&browser_search(
        "q",
        vec![row(1, "https://b.example/", "B", "")],
        login_prov(),
    ));
    let report = merge::merge(&public, &login);
    let value = serde_json::to_value(&report).unwrap();
    assert_eq!(value["schema"], "ferret.merge.v1");
    assert_eq!(value["isolation"]["public_cache_eligible"], true);
    assert_eq!(value["isolation"]["login_cache_eligible"], false);
    assert_eq!(value["isolation"]["report_cache_eligible"], false);
    assert_eq!(value["counts"]["public"], 1);
    assert_eq!(value["counts"]["login"], 1);
    assert_eq!(value["counts"]["dual_sourced"], 0);
    assert_eq!(value["counts"]["conflicts"], 0);
    assert_eq!(value["items"][0]["kind"], "serp");
    assert_eq!(value["items"][0]["rank_in_source"], 1);
    assert_eq!(value["items"][1]["provenance"]["search_partition"], "login");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}

#[test]
fn login_items_are_never_cache_eligible_even_from_a_public_file() {
    // A public search passed as the login input: treated as login, warned.
    let public = public_input(&browser_search(
        "q",
        vec![row(1, "https://a.example/", "A", "")],
        public_prov(),
    ));
    let swapped = login_input(&browser_search(
        "q",
        vec![
            row(1, "https://a.example/", "A", ""),
            row(2, "https://c.example/", "C", ""),
        ],
        public_prov(),
    ));
    let report = merge::merge(&public, &swapped);
    let login: Vec<_> = report.side(Partition::Login).collect();
    assert_eq!(login.len(), 2);
    for item in &login {
        assert!(!item.provenance.cache_eligible);
        assert!(item.provenance.is_login());
        assert_eq!(item.provenance.search_partition, Partition::Login);
        assert_eq!(item.provenance.auth_partition, "login");
        assert_eq!(item.provenance.runtime, "chromium-managed");
    }
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("2 item(s) of the login input") && w.contains("treated as login")),
        "{:?}",
        report.warnings
    );
    // Public items stay public.
    let public_items: Vec<_> = report.side(Partition::Public).collect();
    assert!(
        public_items
            .iter()
            .all(|i| i.provenance.cache_eligible && !i.provenance.is_login())
    );
    assert!(report.isolation.public_cache_eligible);
}

#[test]
fn login_input_without_provenance_is_login_with_a_warning() {
    let public = public_input(&vec![
        serde_json::json!({"url": "https://a.example/", "title": "A"}),
    ]);
    let login = login_input(&vec![
        serde_json::json!({"url": "https://b.example/", "title": "B"}),
    ]);
    let report = merge::merge(&public, &login);
    let item = report.side(Partition::Login).next().unwrap();
    assert!(!item.provenance.cache_eligible);
    assert!(item.provenance.login_state_used);
    assert_eq!(item.provenance.runtime, "unknown");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("carry no provenance")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn login_data_passed_as_public_keeps_login_provenance() {
    let public = public_input(&browser_search(
        "q",
        vec![row(1, "https://a.example/", "A", "")],
        login_prov(),
    ));
    let login = login_input(&browser_search(
        "q",
        vec![row(1, "https://b.example/", "B", "")],
        login_prov(),
    ));
    let report = merge::merge(&public, &login);
    let item = report.side(Partition::Public).next().unwrap();
    assert!(!item.provenance.cache_eligible);
    assert!(item.provenance.is_login());
    assert!(!report.isolation.public_cache_eligible);
    assert!(!report.isolation.login_cache_eligible);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("public input") && w.contains("login provenance"))
    );
}

#[test]
fn a_site_login_label_is_kept() {
    let mut prov = login_prov();
    prov.auth_partition = "login:zhihu.com".into();
    let public = public_input(&Vec::<serde_json::Value>::new());
    let login = login_input(&browser_search(
        "q",
        vec![row(1, "https://www.zhihu.com/question/1", "Q", "")],
        prov,
    ));
    let report = merge::merge(&public, &login);
    assert_eq!(report.items[0].provenance.auth_partition, "login:zhihu.com");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}

#[test]
fn sides_follow_argument_position() {
    let read_as_login = login_input(&browser_search(
        "q",
        vec![row(1, "https://a.example/", "A", "")],
        public_prov(),
    ));
    let read_as_public = public_input(&browser_search(
        "q",
        vec![row(1, "https://b.example/", "B", "")],
        login_prov(),
    ));
    let report = merge::merge(&read_as_login, &read_as_public);
    assert_eq!(report.items[0].side, Partition::Public);
    assert!(report.items[0].provenance.cache_eligible);
    assert_eq!(report.items[1].side, Partition::Login);
    assert!(!report.items[1].provenance.cache_eligible);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("read as the login side but passed as the public input"))
    );
}

// ---- snippets ----

#[test]
fn snippets_are_capped_on_char_boundaries() {
    let long_cjk: String = "登录态专业搜索结果🦀"
        .chars()
        .cycle()
        .take(SERP_SNIPPET_CHARS + 123)
        .collect();
    let long_body: String = "正文内容，包含中文与emoji🦀。"
        .chars()
        .cycle()
        .take(BODY_SNIPPET_CHARS * 2)
        .collect();
    let public = public_input(&browser_search(
        "q",
        vec![
            row(1, "https://a.example/", "A", &long_cjk),
            row(2, "https://b.example/", "B", "短摘要"),
        ],
        public_prov(),
    ));
    let login = login_input(&browser_fetch(
        "https://c.example/",
        "https://c.example/",
        "C",
        &long_body,
        login_prov(),
    ));
    let report = merge::merge(&public, &login);

    let a = report
        .items
        .iter()
        .find(|i| i.url == "https://a.example/")
        .unwrap();
    assert_eq!(a.snippet.chars().count(), SERP_SNIPPET_CHARS);
    assert!(long_cjk.starts_with(&a.snippet));
    assert!(a.snippet_truncated);

    let b = report
        .items
        .iter()
        .find(|i| i.url == "https://b.example/")
        .unwrap();
    assert_eq!(b.snippet, "短摘要");
    assert!(!b.snippet_truncated);

    let c = report
        .items
        .iter()
        .find(|i| i.kind == ItemKind::Body)
        .unwrap();
    assert_eq!(c.snippet.chars().count(), BODY_SNIPPET_CHARS);
    assert!(long_body.starts_with(&c.snippet));
    assert!(c.snippet_truncated);
}

// ---- each accepted shape ----

#[test]
fn reads_ferret_search_v1() {
    let response = search_response(
        "rust merge",
        vec![
            fused(
                "https://www.example.com/a?utm_source=x",
                "A",
                "first",
                &["searxng", "brave", "searxng"],
            ),
            fused("https://docs.example.org/b", "B", "second", &["brave"]),
        ],
    );
    let input = public_input(&response);
    assert_eq!(input.shape, InputShape::Search);
    assert_eq!(input.query.as_deref(), Some("rust merge"));
    assert_eq!(input.items.len(), 2);
    let a = &input.items[0];
    assert_eq!(a.kind, ItemKind::Serp);
    assert_eq!(a.rank_in_source, 1);
    assert_eq!(
        a.url, "https://www.example.com/a?utm_source=x",
        "original_url is kept"
    );
    assert_eq!(a.title, "A");
    assert_eq!(a.text, "first");
    assert_eq!(a.published_at.as_deref(), Some("2026-03-01"));
    assert_eq!(a.engines, vec!["searxng".to_string(), "brave".to_string()]);
    assert_eq!(a.file_provenance.runtime.as_deref(), Some("http"));
    assert_eq!(input.items[1].rank_in_source, 2);

    let report = merge::merge(&input, &login_input(&Vec::<serde_json::Value>::new()));
    assert_eq!(report.inputs.public.schema, "ferret.search.v1");
    assert_eq!(
        report.items[0].provenance,
        Provenance::public(Runtime::Http)
    );
}

#[test]
fn reads_ferret_browser_search_v1() {
    let mut rows = vec![
        row(1, "https://a.example/1", "One", "s1"),
        row(2, "https://a.example/2", "Two", "s2"),
    ];
    rows[1].published_at = Some("2026-01-02".into());
    let input = login_input(&browser_search("知乎 登录", rows, login_prov()));
    assert_eq!(input.shape, InputShape::BrowserSearch);
    assert_eq!(input.engine.as_deref(), Some("browser_bing"));
    assert_eq!(input.query.as_deref(), Some("知乎 登录"));
    assert_eq!(input.items.len(), 2);
    assert_eq!(input.items[1].title, "Two");
    assert_eq!(input.items[1].text, "s2");
    assert_eq!(input.items[1].published_at.as_deref(), Some("2026-01-02"));
    assert_eq!(input.items[1].engines, vec!["browser_bing".to_string()]);
    assert!(input.items.iter().all(|i| i.file_provenance.says_login()));
}

#[test]
fn reads_ferret_browser_fetch_v1() {
    let out = browser_fetch(
        "https://example.com/members",
        "https://example.com/members/welcome",
        "Members",
        "Welcome back, this is the members-only text.",
        login_prov(),
    );
    let input = login_input(&out);
    assert_eq!(input.shape, InputShape::BrowserFetch);
    assert_eq!(input.items.len(), 1);
    let page = &input.items[0];
    assert_eq!(page.kind, ItemKind::Body);
    assert_eq!(page.rank_in_source, 1);
    assert_eq!(page.url, "https://example.com/members");
    assert_eq!(
        page.final_url.as_deref(),
        Some("https://example.com/members/welcome")
    );
    assert_eq!(page.title, "Members");
    assert_eq!(page.text, out.content);
    let quality = page.quality.as_ref().expect("the quality block is carried");
    assert_eq!(quality["content_chars"], out.quality.content_chars);
    assert_eq!(
        page.file_provenance.runtime.as_deref(),
        Some("chromium-managed")
    );
    assert!(page.file_provenance.says_login());
}

#[test]
fn reads_ferret_browser_act_v1_rows_then_every_detail_once() {
    let search = browser_search(
        "q",
        vec![
            row(1, "https://a.example/1", "One", "s1"),
            row(2, "https://a.example/2", "Two", "s2"),
        ],
        login_prov(),
    );
    let details = vec![
        browser_fetch(
            "https://a.example/1",
            "https://a.example/1",
            "One page",
            "page one",
            login_prov(),
        ),
        browser_fetch(
            "https://a.example/2",
            "https://a.example/2",
            "Two page",
            "page two",
            login_prov(),
        ),
    ];
    let input = login_input(&browser_act(search, details));
    assert_eq!(input.shape, InputShape::BrowserAct);
    let kinds: Vec<_> = input
        .items
        .iter()
        .map(|i| (i.kind, i.rank_in_source, i.url.as_str()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (ItemKind::Serp, 1, "https://a.example/1"),
            (ItemKind::Serp, 2, "https://a.example/2"),
            (ItemKind::Body, 1, "https://a.example/1"),
            (ItemKind::Body, 2, "https://a.example/2"),
        ]
    );
    assert_eq!(input.items[2].text, "page one");
}

#[test]
fn reads_ferret_fetch_v1() {
    // `ferret fetch --json` (crate ferret-evidence, which depends on this
    // crate, so its type cannot be used here): the fields merge reads.
    let text = serde_json::json!({
        "schema": "ferret.fetch.v1",
        "url": "https://example.com/doc",
        "final_url": "https://example.com/doc",
        "title": "Doc",
        "text": "The document's text.",
        "published_at": "2025-12-01",
        "quality": {"content_chars": 20},
        "provenance": Provenance::public(Runtime::Http),
        "ok": true
    })
    .to_string();
    let input = MergeInput::from_json(&text, Partition::Public).unwrap();
    assert_eq!(input.shape, InputShape::Fetch);
    let page = &input.items[0];
    assert_eq!(page.kind, ItemKind::Body);
    assert_eq!(page.text, "The document's text.");
    assert_eq!(page.final_url, None);
    assert_eq!(page.published_at.as_deref(), Some("2025-12-01"));
    assert_eq!(page.file_provenance.runtime.as_deref(), Some("http"));
}

#[test]
fn reads_a_bare_array() {
    let rows = vec![
        row(1, "https://a.example/1", "One", "s1"),
        row(2, "https://a.example/2", "Two", "s2"),
    ];
    let input = public_input(&rows);
    assert_eq!(input.shape, InputShape::Array);
    assert_eq!(input.items.len(), 2);
    assert_eq!(input.items[0].url, "https://a.example/1");
    assert_eq!(input.items[1].text, "s2");
    // Minimal rows: only a URL.
    let minimal =
        MergeInput::from_json(r#"[{"url": "https://x.example/"}]"#, Partition::Login).unwrap();
    assert_eq!(minimal.items[0].title, "");
    assert_eq!(minimal.items[0].text, "");
}

// ---- errors ----

#[test]
fn text_that_is_not_json_is_a_typed_error_naming_the_side() {
    let err = MergeInput::from_json("{not json", Partition::Login).unwrap_err();
    assert!(matches!(err, MergeError::Json { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("login input"), "{msg}");
    assert!(msg.contains("ferret.search.v1"), "{msg}");
}

#[test]
fn an_unknown_schema_is_a_typed_error_listing_what_is_accepted() {
    let err = MergeInput::from_json_named(
        r#"{"schema": "ferret.browser.api.v1", "data": {}}"#,
        Partition::Public,
        Some("/tmp/api.json"),
    )
    .unwrap_err();
    match &err {
        MergeError::UnknownSchema { input, schema } => {
            assert_eq!(input, "public input /tmp/api.json");
            assert_eq!(schema, "ferret.browser.api.v1");
        }
        other => panic!("expected UnknownSchema, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("ferret.browser.fetch.v1") && msg.contains("array"),
        "{msg}"
    );
}

#[test]
fn other_json_shapes_are_typed_errors() {
    for (text, found) in [
        (r#"{"results": []}"#, "without a `schema`"),
        (r#"{"schema": 3}"#, "`schema` is a number"),
        (r#""https://example.com""#, "a string"),
        ("null", "null"),
        ("42", "a number"),
    ] {
        let err = MergeInput::from_json(text, Partition::Public).unwrap_err();
        match &err {
            MergeError::UnknownShape { input, found: f } => {
                assert_eq!(input, "public input");
                assert!(f.contains(found), "{text}: {f}");
            }
            other => panic!("{text}: expected UnknownShape, got {other:?}"),
        }
    }
}

#[test]
fn a_row_without_a_url_is_malformed_at_that_row() {
    let mut value = serde_json::to_value(browser_search(
        "q",
        vec![
            row(1, "https://a.example/1", "One", ""),
            row(2, "https://a.example/2", "Two", ""),
        ],
        login_prov(),
    ))
    .unwrap();
    value["results"][1].as_object_mut().unwrap().remove("url");
    let err = MergeInput::from_json(&value.to_string(), Partition::Login).unwrap_err();
    match &err {
        MergeError::Malformed {
            input,
            schema,
            at,
            message,
        } => {
            assert_eq!(input, "login input");
            assert_eq!(schema, "ferret.browser.search.v1");
            assert_eq!(at, "results[1]");
            assert!(message.contains("url"), "{message}");
        }
        other => panic!("expected Malformed, got {other:?}"),
    }

    let err = MergeInput::from_json(
        r#"[{"url": "https://a.example/"}, "just a string"]"#,
        Partition::Public,
    )
    .unwrap_err();
    assert!(
        matches!(&err, MergeError::Malformed { at, .. } if at == "[1]"),
        "{err:?}"
    );

    let err = MergeInput::from_json(
        r#"{"schema": "ferret.search.v1", "query": "q"}"#,
        Partition::Public,
    )
    .unwrap_err();
    assert!(
        matches!(&err, MergeError::Malformed { at, message, .. } if at == "the envelope" && message.contains("results")),
        "{err:?}"
    );
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent.json");
    let err = MergeInput::from_path(&missing, Partition::Login).unwrap_err();
    assert!(matches!(err, MergeError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains("absent.json"), "{err}");
    assert!(err.to_string().contains("login input"), "{err}");
}

#[test]
fn merge_files_reads_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let public_path = dir.path().join("public.json");
    let login_path = dir.path().join("login.json");
    std::fs::write(
        &public_path,
        json(&search_response(
            "q",
            vec![fused("https://example.com/a", "A", "s", &["brave"])],
        )),
    )
    .unwrap();
    std::fs::write(
        &login_path,
        json(&browser_search(
            "q",
            vec![row(1, "https://example.com/a#top", "A", "s")],
            login_prov(),
        )),
    )
    .unwrap();
    let report = merge::merge_files(&public_path, &login_path).unwrap();
    assert_eq!(report.counts.dual_sourced, 1);
    assert!(report.inputs.public.label.ends_with("public.json"));
    assert!(report.inputs.login.label.starts_with("login input"));

    std::fs::write(&login_path, "[1, 2]").unwrap();
    let err = merge::merge_files(&public_path, &login_path).unwrap_err();
    assert!(err.to_string().contains("login.json"), "{err}");
}

// ---- order, unmatched, output ----

#[test]
fn order_is_by_first_appearance_with_pairs_together() {
    let public = public_input(&browser_search(
        "q",
        vec![
            row(1, "https://p.example/1", "P1", ""),
            row(2, "https://both.example/x", "X", ""),
            row(3, "https://p.example/3", "P3", ""),
        ],
        public_prov(),
    ));
    let login = login_input(&browser_search(
        "q",
        vec![
            row(1, "https://l.example/1", "L1", ""),
            row(2, "https://both.example/x?utm_campaign=c", "X", ""),
        ],
        login_prov(),
    ));
    let report = merge::merge(&public, &login);
    let order: Vec<_> = report
        .items
        .iter()
        .map(|i| (i.side, i.rank_in_source))
        .collect();
    assert_eq!(
        order,
        vec![
            (Partition::Public, 1),
            (Partition::Public, 2),
            (Partition::Login, 2),
            (Partition::Public, 3),
            (Partition::Login, 1),
        ]
    );
}

#[test]
fn a_url_without_canonical_form_is_kept_unmatched_with_a_warning() {
    let public = public_input(&vec![
        serde_json::json!({"url": "javascript:void(0)", "title": "J"}),
    ]);
    let login = login_input(&vec![
        serde_json::json!({"url": "javascript:void(0)", "title": "J"}),
    ]);
    let report = merge::merge(&public, &login);
    assert_eq!(report.items.len(), 2);
    assert!(
        report
            .items
            .iter()
            .all(|i| i.canonical_url.is_none() && !i.dual_sourced)
    );
    assert_eq!(report.counts.unmatched, 2);
    assert_eq!(
        report
            .warnings
            .iter()
            .filter(|w| w.contains("no canonical URL"))
            .count(),
        2
    );
}

#[test]
fn different_queries_are_warned_about() {
    let public = public_input(&browser_search("alpha", vec![], public_prov()));
    let login = login_input(&browser_search("beta", vec![], login_prov()));
    let report = merge::merge(&public, &login);
    assert_eq!(report.query.as_deref(), Some("alpha"));
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("different queries"))
    );
    assert!(report.items.is_empty());
}

#[test]
fn report_round_trips_through_json() {
    let public = public_input(&search_response(
        "q",
        vec![fused("https://example.com/a", "A", "s", &["brave"])],
    ));
    let login = login_input(&browser_act(
        browser_search(
            "q",
            vec![row(1, "https://example.com/a", "A (login)", "s")],
            login_prov(),
        ),
        vec![browser_fetch(
            "https://example.com/a",
            "https://example.com/a",
            "A",
            "text",
            login_prov(),
        )],
    ));
    let report = merge::merge(&public, &login);
    let back: MergeReport = serde_json::from_str(&json(&report)).unwrap();
    assert_eq!(back, report);
}

#[test]
fn the_human_report_lists_items_conflicts_and_isolation() {
    let public = public_input(&browser_search(
        "q",
        vec![row(1, "https://example.com/a", "Public title", "")],
        public_prov(),
    ));
    let login = login_input(&browser_search(
        "q",
        vec![row(1, "https://example.com/a", "Login title", "")],
        public_prov(),
    ));
    let text = merge::merge(&public, &login).to_human();
    assert!(text.contains("1 public + 1 login items"), "{text}");
    assert!(
        text.contains("[public serp #1] [both] Public title"),
        "{text}"
    );
    assert!(
        text.contains("[login serp #1] [both] Login title"),
        "{text}"
    );
    assert!(
        text.contains("public: Public title") && text.contains("login:  Login title"),
        "{text}"
    );
    assert!(text.contains("login items never"), "{text}");
    assert!(text.contains("warning:"), "{text}");
}

// ---- properties ----

const HOSTS: [&str; 3] = ["example.com", "EXAMPLE.com", "www.example.com"];
const TRACKING: [&str; 6] = [
    "",
    "utm_source=a",
    "fbclid=b",
    "gclid=c",
    "spm=d.e",
    "utm_content=f",
];

fn url_of(path: usize, host: usize, tracking: usize, fragment: bool) -> String {
    let t = TRACKING[tracking];
    let mut url = format!("https://{}/p{path}", HOSTS[host]);
    if !t.is_empty() {
        url.push('?');
        url.push_str(t);
    }
    if fragment {
        url.push_str("#frag");
    }
    url
}

fn item_strategy() -> impl Strategy<Value = (String, String, String)> {
    (
        0usize..6,
        0usize..3,
        0usize..6,
        any::<bool>(),
        "[A-Za-z 文]{0,12}",
        "[a-z数据🦀 ]{0,900}",
    )
        .prop_map(|(p, h, t, f, title, text)| (url_of(p, h, t, f), title, text))
}

fn key(url: &str) -> String {
    canonical_url(url, CanonicalOptions::default()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn nothing_is_lost_and_merge_is_deterministic(
        public_rows in proptest::collection::vec(item_strategy(), 0..8),
        login_rows in proptest::collection::vec(item_strategy(), 0..6),
        login_pages in proptest::collection::vec(item_strategy(), 0..3),
    ) {
        let public = browser_search(
            "q",
            public_rows.iter().enumerate().map(|(i, (u, t, s))| row(i + 1, u, t, s)).collect(),
            public_prov(),
        );
        let login = browser_act(
            browser_search(
                "q",
                login_rows.iter().enumerate().map(|(i, (u, t, s))| row(i + 1, u, t, s)).collect(),
                login_prov(),
            ),
            login_pages.iter().map(|(u, t, s)| browser_fetch(u, u, t, s, login_prov())).collect(),
        );
        let public_text = json(&public);
        let login_text = json(&login);
        let public = MergeInput::from_json(&public_text, Partition::Public).unwrap();
        let login = MergeInput::from_json(&login_text, Partition::Login).unwrap();
        let report = merge::merge(&public, &login);

        // Every input item exactly once, with its URL and title.
        let mut expected: BTreeMap<(bool, ItemKind, usize), (String, String, String)> = BTreeMap::new();
        for (side, input) in [(false, &public), (true, &login)] {
            for item in &input.items {
                expected.insert((side, item.kind, item.rank_in_source), (item.url.clone(), item.title.clone(), item.text.clone()));
            }
        }
        prop_assert_eq!(report.items.len(), public_rows.len() + login_rows.len() + login_pages.len());
        prop_assert_eq!(report.counts.items, report.items.len());
        let mut seen = BTreeMap::new();
        for item in &report.items {
            let k = (item.side == Partition::Login, item.kind, item.rank_in_source);
            prop_assert!(seen.insert(k, ()).is_none(), "{:?} appears twice", k);
            let (url, title, text) = expected.get(&k).expect("an item not in the inputs");
            prop_assert_eq!(&item.url, url);
            prop_assert_eq!(&item.title, title);
            prop_assert!(text.starts_with(&item.snippet));
            prop_assert!(item.snippet.chars().count() <= item.kind.snippet_cap());
            prop_assert_eq!(item.snippet_truncated, item.snippet.len() < text.len());
            // dual_sourced exactly when the other side has the same key.
            let other = if item.side == Partition::Login { &public } else { &login };
            let has_match = other.items.iter().any(|o| key(&o.url) == key(&item.url));
            prop_assert_eq!(item.dual_sourced, has_match);
            let own_key = key(&item.url);
            prop_assert_eq!(item.canonical_url.as_deref(), Some(own_key.as_str()));
            if item.side == Partition::Login {
                prop_assert!(!item.provenance.cache_eligible);
            } else {
                prop_assert!(item.provenance.cache_eligible);
            }
        }
        prop_assert_eq!(seen.len(), expected.len());

        // Same inputs, same report: read again from the same text, merged
        // again, byte for byte.
        let again = merge::merge(
            &MergeInput::from_json(&public_text, Partition::Public).unwrap(),
            &MergeInput::from_json(&login_text, Partition::Login).unwrap(),
        );
        prop_assert_eq!(json(&again), json(&report));
        prop_assert_eq!(merge::merge(&public, &login), report);
    }
}
