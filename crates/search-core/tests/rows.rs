//! External result rows (`ferret search --stdin-results`): envelopes,
//! key aliases, drops with reasons, per-engine ranks, the real API
//! captures in ../shared/fixtures/api, and property tests that nothing is
//! lost and nothing panics.

use std::path::PathBuf;

use ferret_core::response::{DropReason, DroppedRow};
use ferret_core::rows::{
    DATE_KEYS, NormalizedRows, ROWS_ENGINE, SNIPPET_KEYS, TITLE_KEYS, URL_KEYS, normalize_rows,
    normalize_rows_str, normalize_rows_with,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn norm(value: Value) -> NormalizedRows {
    normalize_rows(&value, "q")
}

fn urls(rows: &NormalizedRows, engine: &str) -> Vec<String> {
    rows.calls
        .iter()
        .find(|c| c.engine == engine)
        .map(|c| c.response.hits.iter().map(|h| h.url.to_string()).collect())
        .unwrap_or_default()
}

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared not present");
        None
    }
}

#[test]
fn a_top_level_array_becomes_one_rows_engine_in_input_order() {
    let rows = norm(json!([
        {"url": "https://a.example/1", "title": "A", "snippet": "first"},
        {"url": "https://b.example/2", "title": "B", "snippet": "second"},
    ]));
    assert_eq!(rows.calls.len(), 1);
    let call = &rows.calls[0];
    assert_eq!(call.engine, ROWS_ENGINE);
    assert_eq!(call.sub_query, "q");
    assert_eq!(call.sub_query_index, 0);
    let hits = &call.response.hits;
    assert_eq!(hits.len(), 2);
    assert_eq!(
        (hits[0].rank, hits[0].url.as_str(), hits[0].title.as_str()),
        (1, "https://a.example/1", "A")
    );
    assert_eq!(hits[0].snippet, "first");
    assert_eq!(
        (hits[1].rank, hits[1].url.as_str()),
        (2, "https://b.example/2")
    );
    assert!(rows.dropped.is_empty());
    assert!(rows.warnings.is_empty());
    assert_eq!(rows.input_rows, 2);
}

#[test]
fn the_query_becomes_the_sub_query() {
    let rows = normalize_rows(
        &json!([{"url": "https://a.example/"}]),
        "caffeine and sleep",
    );
    assert_eq!(rows.calls[0].sub_query, "caffeine and sleep");
}

#[test]
fn rows_are_found_under_every_envelope_key() {
    let row = json!([{"url": "https://a.example/x"}]);
    for envelope in [
        json!({"results": row}),
        json!({"data": row}),
        json!({"items": row}),
        json!({"web": {"results": row}}),
        json!({"organic": row}),
        json!({"query": "q", "results": null, "organic": row}),
    ] {
        let rows = norm(envelope.clone());
        assert_eq!(
            urls(&rows, ROWS_ENGINE),
            ["https://a.example/x"],
            "{envelope}"
        );
    }
}

#[test]
fn envelope_keys_are_tried_in_order() {
    let rows = norm(json!({
        "organic": [{"url": "https://organic.example/"}],
        "results": [{"url": "https://results.example/"}],
    }));
    assert_eq!(urls(&rows, ROWS_ENGINE), ["https://results.example/"]);
}

#[test]
fn every_url_alias_is_accepted() {
    for key in URL_KEYS {
        let rows = norm(json!([{ *key: "https://a.example/p" }]));
        assert_eq!(urls(&rows, ROWS_ENGINE), ["https://a.example/p"], "{key}");
    }
}

#[test]
fn every_title_snippet_and_date_alias_is_accepted() {
    for key in TITLE_KEYS {
        let rows = norm(json!([{"url": "https://a.example/", *key: " The title "}]));
        assert_eq!(rows.calls[0].response.hits[0].title, "The title", "{key}");
    }
    for key in SNIPPET_KEYS {
        let rows = norm(json!([{"url": "https://a.example/", *key: "snip"}]));
        assert_eq!(rows.calls[0].response.hits[0].snippet, "snip", "{key}");
    }
    for key in DATE_KEYS {
        let rows = norm(json!([{"url": "https://a.example/", *key: "2025-03-01"}]));
        assert_eq!(
            rows.calls[0].response.hits[0].published_at.as_deref(),
            Some("2025-03-01"),
            "{key}"
        );
    }
}

#[test]
fn the_first_non_empty_alias_wins() {
    let rows = norm(json!([{
        "url": "", "link": null, "href": "https://href.example/",
        "title": "", "name": "Named",
        "snippet": "   ", "summary": "Summed",
    }]));
    let hit = &rows.calls[0].response.hits[0];
    assert_eq!(hit.url, "https://href.example/");
    assert_eq!(hit.title, "Named");
    assert_eq!(hit.snippet, "Summed");
    assert_eq!(hit.published_at, None);
}

#[test]
fn fragments_are_removed() {
    let rows = norm(json!([{"url": "https://a.example/page?x=1#section-2"}]));
    assert_eq!(urls(&rows, ROWS_ENGINE), ["https://a.example/page?x=1"]);
}

#[test]
fn rows_without_a_valid_http_url_are_dropped_with_their_reason() {
    let rows = norm(json!([
        {"title": "no url"},
        {"url": "ftp://files.example/x"},
        {"url": "javascript:void(0)"},
        {"url": "/relative/path"},
        {"url": "not a url"},
        "https://a-bare-string.example/",
        42,
        {"url": "https://kept.example/"},
    ]));
    assert_eq!(urls(&rows, ROWS_ENGINE), ["https://kept.example/"]);
    assert_eq!(rows.dropped.len(), 7);
    for (i, d) in rows.dropped.iter().enumerate() {
        assert_eq!(d.index, i);
        assert_eq!(d.reason, DropReason::MissingOrInvalidUrl);
        assert_eq!(d.engine.as_deref(), Some(ROWS_ENGINE));
    }
    assert_eq!(rows.dropped[0].url, None);
    assert_eq!(
        rows.dropped[1].url.as_deref(),
        Some("ftp://files.example/x")
    );
    assert!(
        rows.warnings
            .iter()
            .any(|w| w.contains("7 of 8 rows dropped")),
        "{:?}",
        rows.warnings
    );
}

#[test]
fn a_url_repeated_within_one_engine_is_dropped_as_duplicate() {
    let rows = norm(json!([
        {"url": "https://a.example/p"},
        {"url": "https://b.example/"},
        {"url": "https://a.example/p#other-fragment"},
    ]));
    assert_eq!(
        urls(&rows, ROWS_ENGINE),
        ["https://a.example/p", "https://b.example/"]
    );
    assert_eq!(
        rows.dropped,
        vec![DroppedRow {
            index: 2,
            engine: Some(ROWS_ENGINE.to_string()),
            url: Some("https://a.example/p#other-fragment".to_string()),
            reason: DropReason::DuplicateUrl,
        }]
    );
}

#[test]
fn the_same_url_from_two_engines_is_consensus_not_a_duplicate() {
    let rows = norm(json!([
        {"url": "https://a.example/p", "engine": "brave"},
        {"url": "https://a.example/p", "engine": "exa"},
    ]));
    assert!(rows.dropped.is_empty());
    assert_eq!(urls(&rows, "brave"), ["https://a.example/p"]);
    assert_eq!(urls(&rows, "exa"), ["https://a.example/p"]);
}

#[test]
fn rows_are_grouped_by_engine_or_source_in_first_seen_order() {
    let rows = norm(json!([
        {"url": "https://1.example/", "engine": "brave"},
        {"url": "https://2.example/", "source": "tavily"},
        {"url": "https://3.example/"},
        {"url": "https://4.example/", "engine": "brave"},
    ]));
    let engines: Vec<&str> = rows.calls.iter().map(|c| c.engine.as_str()).collect();
    assert_eq!(engines, ["brave", "tavily", ROWS_ENGINE]);
    assert_eq!(
        urls(&rows, "brave"),
        ["https://1.example/", "https://4.example/"]
    );
    let ranks: Vec<u32> = rows.calls[0].response.hits.iter().map(|h| h.rank).collect();
    assert_eq!(ranks, [1, 2]);
}

#[test]
fn hits_are_ordered_by_given_rank_with_ties_in_input_order() {
    let rows = norm(json!([
        {"url": "https://c.example/", "engine": "e", "rank": "3"},
        {"url": "https://a.example/", "engine": "e", "rank": 1.0},
        {"url": "https://b2.example/", "engine": "e", "rank": 2},
        {"url": "https://b1.example/", "engine": "e", "rank": " 2 "},
        {"url": "https://half.example/", "engine": "e", "rank": 1.5},
    ]));
    assert_eq!(
        urls(&rows, "e"),
        [
            "https://a.example/",
            "https://half.example/",
            "https://b2.example/",
            "https://b1.example/",
            "https://c.example/",
        ]
    );
    let ranks: Vec<u32> = rows.calls[0].response.hits.iter().map(|h| h.rank).collect();
    assert_eq!(ranks, [1, 2, 3, 4, 5]);
}

#[test]
fn unusable_ranks_fall_back_to_input_position() {
    let rows = norm(json!([
        {"url": "https://a.example/", "rank": "first"},
        {"url": "https://b.example/", "rank": null},
        {"url": "https://c.example/", "rank": {"n": 1}},
    ]));
    assert_eq!(
        urls(&rows, ROWS_ENGINE),
        [
            "https://a.example/",
            "https://b.example/",
            "https://c.example/"
        ]
    );
}

#[test]
fn duplicates_keep_the_best_ranked_row() {
    let rows = norm(json!([
        {"url": "https://a.example/", "engine": "e", "rank": 5},
        {"url": "https://a.example/", "engine": "e", "rank": 1},
    ]));
    assert_eq!(rows.dropped.len(), 1);
    assert_eq!(rows.dropped[0].index, 0);
    assert_eq!(rows.dropped[0].reason, DropReason::DuplicateUrl);
    assert_eq!(rows.calls[0].response.hits[0].rank, 1);
}

#[test]
fn ranks_count_only_surviving_rows() {
    let rows = norm(json!([
        {"url": "https://a.example/"},
        {"url": "mailto:x@example.com"},
        {"url": "https://a.example/"},
        {"url": "https://b.example/"},
    ]));
    let hits = &rows.calls[0].response.hits;
    assert_eq!(hits.len(), 2);
    assert_eq!(
        (hits[1].url.as_str(), hits[1].rank),
        ("https://b.example/", 2)
    );
}

#[test]
fn a_default_engine_label_names_engineless_rows() {
    let rows = normalize_rows_with(
        &json!([{"url": "https://a.example/"}, {"url": "https://b.example/", "engine": "x"}]),
        "q",
        "my-backend",
    );
    let engines: Vec<&str> = rows.calls.iter().map(|c| c.engine.as_str()).collect();
    assert_eq!(engines, ["my-backend", "x"]);
}

#[test]
fn empty_input_is_an_empty_set_with_a_warning() {
    for text in ["", "   \n"] {
        let rows = normalize_rows_str(text, "q");
        assert!(rows.calls.is_empty() && rows.dropped.is_empty());
        assert!(rows.is_empty());
        assert_eq!(rows.warnings.len(), 1);
        assert!(rows.warnings[0].contains("empty"), "{:?}", rows.warnings);
    }
}

#[test]
fn invalid_json_is_an_empty_set_with_a_warning() {
    let rows = normalize_rows_str("[{\"url\": ", "q");
    assert!(rows.calls.is_empty() && rows.dropped.is_empty());
    assert!(
        rows.warnings[0].contains("not valid JSON"),
        "{:?}",
        rows.warnings
    );
}

#[test]
fn unsupported_envelopes_are_an_empty_set_with_a_warning() {
    for text in [
        r#"{"hits": [{"url": "https://a.example/"}]}"#,
        r#"{"results": {"url": "https://a.example/"}}"#,
        r#""https://a.example/""#,
        "42",
        "null",
    ] {
        let rows = normalize_rows_str(text, "q");
        assert!(rows.calls.is_empty() && rows.dropped.is_empty(), "{text}");
        assert_eq!(rows.input_rows, 0);
        assert!(
            rows.warnings[0].contains("unsupported envelope"),
            "{text}: {:?}",
            rows.warnings
        );
    }
}

#[test]
fn an_empty_rows_array_is_warned_about() {
    let rows = normalize_rows_str(r#"{"results": []}"#, "q");
    assert!(rows.calls.is_empty());
    assert!(rows.warnings[0].contains("empty"), "{:?}", rows.warnings);
}

#[test]
fn dropped_rows_serialise_with_their_documented_reason_names() {
    let rows =
        norm(json!([{"url": "x"}, {"url": "https://a.example/"}, {"url": "https://a.example/"}]));
    let json = serde_json::to_value(&rows.dropped).unwrap();
    assert_eq!(json[0]["reason"], "missing-or-invalid-url");
    assert_eq!(json[1]["reason"], "duplicate-url");
    let back: NormalizedRows =
        serde_json::from_value(serde_json::to_value(&rows).unwrap()).unwrap();
    assert_eq!(back, rows);
}

// ---- real captures --------------------------------------------------------

fn fixture(name: &str) -> Option<String> {
    let path = shared_dir()?.join("fixtures/api").join(name);
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[test]
fn a_real_brave_response_normalises_from_web_results() {
    let Some(text) = fixture("brave-search-api-web-q-laravel-2024-03.json") else {
        return;
    };
    let raw: Value = serde_json::from_str(&text).unwrap();
    let expected = raw["web"]["results"].as_array().unwrap().len();
    let rows = normalize_rows_str(&text, "Laravel");
    assert_eq!(rows.input_rows, expected);
    assert_eq!(rows.hit_count() + rows.dropped.len(), expected);
    let hits = &rows.calls[0].response.hits;
    assert_eq!(rows.calls[0].engine, ROWS_ENGINE);
    assert_eq!(
        hits[0].url,
        raw["web"]["results"][0]["url"].as_str().unwrap()
    );
    assert_eq!(
        hits[0].title,
        raw["web"]["results"][0]["title"].as_str().unwrap()
    );
    // Brave's `description` is the snippet.
    assert!(!hits[0].snippet.is_empty());
    assert!(
        hits.iter()
            .all(|h| h.url.starts_with("https://") || h.url.starts_with("http://"))
    );
}

#[test]
fn a_real_tavily_response_normalises_from_results() {
    let Some(text) =
        fixture("tavily-search-response-q-transformer-architectures-2026-03.derived.json")
    else {
        return;
    };
    let raw: Value = serde_json::from_str(&text).unwrap();
    let rows = normalize_rows_str(&text, "transformer architectures");
    let results = raw["results"].as_array().unwrap();
    assert_eq!(rows.hit_count(), results.len());
    for (hit, row) in rows.calls[0].response.hits.iter().zip(results) {
        assert_eq!(hit.title, row["title"].as_str().unwrap().trim());
        assert_eq!(hit.snippet, row["content"].as_str().unwrap().trim());
    }
}

#[test]
fn a_real_searxng_response_keeps_each_rows_engine() {
    let Some(text) =
        fixture("searxng-format-json-q-severance-with-unresponsive-engines-2026-08.json")
    else {
        return;
    };
    let raw: Value = serde_json::from_str(&text).unwrap();
    let rows = normalize_rows_str(&text, "severance");
    let results = raw["results"].as_array().unwrap();
    assert_eq!(rows.hit_count() + rows.dropped.len(), results.len());
    for row in results {
        let engine = row["engine"].as_str().unwrap();
        assert!(
            rows.calls.iter().any(|c| c.engine == engine),
            "engine {engine} missing"
        );
    }
}

// ---- properties -----------------------------------------------------------

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "https://a.example/",
            "http://b.example/x#f",
            "ftp://c.example/",
            "https://a.example/#y",
            "1",
            "2.5",
            "google",
            "",
        ])
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        let key = prop::sample::select(vec![
            "url",
            "link",
            "href",
            "sourceUrl",
            "source_url",
            "title",
            "name",
            "snippet",
            "text",
            "date",
            "engine",
            "source",
            "rank",
            "results",
            "data",
            "items",
            "web",
            "organic",
            "x",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..8).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

fn arb_row() -> impl Strategy<Value = Value> {
    let url = prop_oneof![
        (0u8..6, prop::option::of("[a-z]{1,3}")).prop_map(|(host, frag)| {
            let frag = frag.map(|f| format!("#{f}")).unwrap_or_default();
            json!(format!("https://h{host}.example/p{frag}"))
        }),
        Just(json!("mailto:x@example.com")),
        Just(json!("")),
        Just(Value::Null),
        Just(json!(7)),
    ];
    (
        prop::sample::select(URL_KEYS.to_vec()),
        url,
        prop::option::of(prop::sample::select(vec!["brave", "exa", "tavily"])),
        prop::option::of(prop_oneof![
            (0u32..10).prop_map(|n| json!(n)),
            (0u32..10).prop_map(|n| json!(n.to_string())),
            (0.0f64..10.0).prop_map(|f| json!(f)),
            Just(json!("n/a")),
        ]),
    )
        .prop_map(|(key, url, engine, rank)| {
            let mut row = serde_json::Map::new();
            row.insert(key.to_string(), url);
            row.insert("title".into(), json!("t"));
            if let Some(e) = engine {
                row.insert("engine".into(), json!(e));
            }
            if let Some(r) = rank {
                row.insert("rank".into(), r);
            }
            Value::Object(row)
        })
}

fn check_invariants(rows: &NormalizedRows) -> Result<(), TestCaseError> {
    prop_assert_eq!(rows.hit_count() + rows.dropped.len(), rows.input_rows);
    let mut indexes: Vec<usize> = rows.dropped.iter().map(|d| d.index).collect();
    indexes.dedup();
    prop_assert_eq!(indexes.len(), rows.dropped.len(), "a row dropped twice");
    prop_assert!(rows.dropped.iter().all(|d| d.index < rows.input_rows));
    for call in &rows.calls {
        prop_assert!(!call.response.hits.is_empty());
        for (i, hit) in call.response.hits.iter().enumerate() {
            prop_assert_eq!(hit.rank as usize, i + 1);
            prop_assert!(hit.url.starts_with("http://") || hit.url.starts_with("https://"));
            prop_assert!(!hit.url.contains('#'));
            let repeats = call
                .response
                .hits
                .iter()
                .filter(|h| h.url == hit.url)
                .count();
            prop_assert_eq!(repeats, 1, "duplicate URL kept in {}", call.engine);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn normalisation_never_panics_and_loses_nothing_on_arbitrary_json(value in arb_json()) {
        let rows = normalize_rows(&value, "q");
        check_invariants(&rows)?;
        if let Value::Array(items) = &value {
            prop_assert_eq!(rows.input_rows, items.len());
        }
        // The same value as text gives the same accounting.
        let text = serde_json::to_string(&value).unwrap();
        let from_text = normalize_rows_str(&text, "q");
        prop_assert_eq!(from_text.input_rows, rows.input_rows);
        prop_assert_eq!(from_text.hit_count(), rows.hit_count());
        prop_assert_eq!(from_text.dropped.len(), rows.dropped.len());
    }

    #[test]
    fn every_generated_row_is_a_hit_or_a_dropped_row(
        rows in prop::collection::vec(arb_row(), 0..40),
        envelope in 0u8..3,
    ) {
        let n = rows.len();
        let value = match envelope {
            0 => Value::Array(rows),
            1 => json!({"results": rows}),
            _ => json!({"web": {"results": rows}}),
        };
        let out = normalize_rows(&value, "q");
        prop_assert_eq!(out.input_rows, n);
        check_invariants(&out)?;
    }

    #[test]
    fn normalisation_never_panics_on_arbitrary_text(text in ".{0,200}") {
        let rows = normalize_rows_str(&text, "q");
        check_invariants(&rows)?;
    }
}
