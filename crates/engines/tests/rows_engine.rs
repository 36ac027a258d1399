//! The rows engine serves caller-supplied hits.

use ferret_core::conformance::Conformance;
use ferret_core::{Engine, EngineHit, EngineKind, EngineRequest, Provenance};
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
        .with_provenance(Provenance::login("chromium-attached"));
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
