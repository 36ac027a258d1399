//! The rows engine serves caller-supplied hits.

use ferret_core::conformance::Conformance;
use ferret_core::{Engine, EngineHit, EngineKind, EngineRequest, Provenance, Runtime};
use ferret_engines::rows::RowsEngine;

fn hits(n: u32) -> Vec<EngineHit> {
    (1..=n)
        .map(|i| {
            EngineHit::new(
                i * 10,
                format!("https://r{i}.example/"),
                format!("row {i}"),
                "",
            )
        })
        .collect()
}

#[tokio::test]
async fn serves_rows_in_order_ranked_from_one() {
    let e = RowsEngine::new(hits(4));
    assert_eq!(e.name(), "rows");
    assert!(e.capabilities().is(EngineKind::External));
    let r = e.search(&EngineRequest::new("anything")).await.unwrap();
    let ranks: Vec<u32> = r.hits.iter().map(|h| h.rank).collect();
    assert_eq!(ranks, vec![1, 2, 3, 4]);
    assert_eq!(r.hits[0].url, "https://r1.example/");
}

#[tokio::test]
async fn respects_max_results() {
    let e = RowsEngine::new(hits(12));
    let r = e
        .search(&EngineRequest::new("q").with_max_results(5))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 5);
    assert_eq!(e.capabilities().max_results, 12);
}

#[tokio::test]
async fn repeats_warnings_and_keeps_provenance() {
    let e = RowsEngine::new(hits(2))
        .with_warnings(vec!["row 3 dropped: missing-or-invalid-url".into()])
        .with_provenance(Provenance::login(Runtime::ChromiumAttached));
    for _ in 0..2 {
        let r = e.search(&EngineRequest::new("q")).await.unwrap();
        assert_eq!(
            r.warnings,
            vec!["row 3 dropped: missing-or-invalid-url".to_string()]
        );
        assert!(r.provenance.is_login());
    }
}

#[tokio::test]
async fn an_empty_engine_answers_with_no_hits() {
    let e = RowsEngine::new(Vec::new());
    assert_eq!(e.capabilities().max_results, 1);
    assert!(
        e.search(&EngineRequest::new("q"))
            .await
            .unwrap()
            .hits
            .is_empty()
    );
}

#[tokio::test]
async fn conforms() {
    Conformance::new("rust")
        .check(&RowsEngine::new(hits(5)))
        .await
        .assert_passed();
}

#[tokio::test]
async fn normalised_rows_become_one_engine_per_named_source() {
    let text = r#"{"results": [
        {"url": "https://a.example/1", "title": "A1", "engine": "brave", "rank": 2},
        {"link": "https://b.example/1", "title": "B1"},
        {"title": "no url"},
        {"url": "https://a.example/2", "title": "A2", "engine": "brave", "rank": 1},
        {"href": "https://b.example/2", "name": "B2"}
    ]}"#;
    let rows = ferret_core::rows::normalize_rows_str(text, "q");
    let engines = RowsEngine::from_normalized(&rows);
    let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
    assert_eq!(names, vec!["brave", "rows"]);
    let brave = engines[0].search(&EngineRequest::new("q")).await.unwrap();
    let urls: Vec<&str> = brave.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(urls, vec!["https://a.example/2", "https://a.example/1"]);
    let unnamed = engines[1]
        .search(&EngineRequest::new("q").with_max_results(1))
        .await
        .unwrap();
    assert_eq!(unnamed.hits.len(), 1);
    assert!(
        unnamed
            .warnings
            .iter()
            .any(|w| w.contains("1 of 5 rows dropped")),
        "{:?}",
        unnamed.warnings
    );
}

#[tokio::test]
async fn rows_that_all_fail_give_no_engine_and_a_warning() {
    let rows = ferret_core::rows::normalize_rows_str("not json", "q");
    assert!(RowsEngine::from_normalized(&rows).is_empty());
    assert!(!rows.warnings.is_empty());
}
