//! Record and replay: answers and errors written to disk are served back
//! exactly; unrecorded requests are typed errors naming the missing key.

use std::time::Duration;

use ferret_core::conformance::{Conformance, Expect};
use ferret_core::layer::EngineExt;
use ferret_core::testing::{FailingEngine, StaticEngine};
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest, ErrorKind, Freshness,
    Provenance, Runtime,
};
use ferret_engines::replay::{
    RECORDING_SCHEMA, RecordLayer, Recorder, ReplayEngine, ReplayError, request_key,
};

fn web(name: &str, hits: usize) -> StaticEngine {
    let caps = EngineCapabilities {
        freshness: true,
        max_results: 20,
        ..EngineCapabilities::new(EngineKind::Web)
    };
    StaticEngine::new(name, hits).with_capabilities(caps)
}

#[tokio::test]
async fn recorded_answers_replay_exactly_under_the_engine_name() {
    let dir = tempfile::tempdir().unwrap();
    let live = Recorder::new(web("brave", 6), dir.path());
    let requests = [
        EngineRequest::new("rust async"),
        EngineRequest::new("rust async").with_max_results(3),
        EngineRequest::new("tokio").with_freshness(Freshness::Pw),
    ];
    let mut recorded = Vec::new();
    for r in &requests {
        recorded.push(live.search(r).await.unwrap());
    }
    assert_eq!(live.recorded(), 3);

    let replay = ReplayEngine::open(dir.path(), "brave").unwrap();
    assert_eq!(replay.name(), "brave");
    assert_eq!(replay.capabilities(), web("brave", 6).capabilities());
    for (r, original) in requests.iter().zip(&recorded) {
        let again = replay.search(r).await.unwrap();
        assert_eq!(again.hits, original.hits);
        assert_eq!(again.warnings, original.warnings);
        assert_eq!(again.provenance.runtime, "replay");
        assert!(!again.provenance.is_login());
    }
}

#[tokio::test]
async fn errors_are_recorded_and_replayed_with_their_kind_and_data() {
    let dir = tempfile::tempdir().unwrap();
    for (name, error) in [
        (
            "limited",
            EngineError::RateLimited {
                retry_after: Some(Duration::from_secs(7)),
                message: "429 Too Many Requests".into(),
            },
        ),
        (
            "flaky",
            EngineError::Transport {
                message: "connection reset".into(),
                temporary: true,
            },
        ),
        (
            "slow",
            EngineError::Timeout {
                after: Duration::from_millis(8000),
            },
        ),
        (
            "ddg",
            EngineError::Captcha {
                message: "captcha form".into(),
            },
        ),
    ] {
        let live = Recorder::new(FailingEngine::new(name, error.clone()), dir.path());
        let req = EngineRequest::new("q");
        assert_eq!(live.search(&req).await.unwrap_err(), error);
        let replay = ReplayEngine::open(dir.path(), name).unwrap();
        assert_eq!(replay.search(&req).await.unwrap_err(), error, "{name}");
    }
}

#[tokio::test]
async fn an_unrecorded_request_names_the_missing_key() {
    let dir = tempfile::tempdir().unwrap();
    let live = Recorder::new(web("brave", 3), dir.path());
    live.search(&EngineRequest::new("recorded")).await.unwrap();
    let replay = ReplayEngine::open(dir.path(), "brave").unwrap();
    let missing = EngineRequest::new("never asked");
    let err = replay.search(&missing).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    let text = err.to_string();
    assert!(text.contains(&request_key(&missing)), "{text}");
    assert!(text.contains("never asked"), "{text}");
    assert!(text.contains("Recorder"), "{text}");
}

#[tokio::test]
async fn each_request_is_one_json_file() {
    let dir = tempfile::tempdir().unwrap();
    let live = Recorder::new(web("brave", 2), dir.path());
    let req = EngineRequest::new("rust");
    live.search(&req).await.unwrap();
    live.search(&req).await.unwrap();
    let engine_dir = dir.path().join("brave");
    let mut files: Vec<String> = std::fs::read_dir(&engine_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let key = request_key(&req);
    assert_eq!(
        files,
        vec![format!("{key}.json"), "engine.json".to_string()]
    );
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(engine_dir.join(format!("{key}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(json["schema"], RECORDING_SCHEMA);
    assert_eq!(json["engine"], "brave");
    assert_eq!(json["key"], key.as_str());
    assert_eq!(json["request"]["query"], "rust");
    assert!(
        json["recorded_at"]
            .as_str()
            .is_some_and(|s| s.contains('T'))
    );
    assert_eq!(
        json["outcome"]["response"]["hits"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn opening_an_engine_that_was_never_recorded_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = ReplayEngine::open(dir.path(), "exa").unwrap_err();
    assert!(matches!(err, ReplayError::MissingManifest { .. }));
    assert!(
        err.to_string().contains("record the engine with Recorder"),
        "{err}"
    );
}

#[tokio::test]
async fn login_answers_stay_login_on_replay() {
    let dir = tempfile::tempdir().unwrap();
    #[derive(Debug)]
    struct LoggedIn;
    #[async_trait::async_trait]
    impl Engine for LoggedIn {
        fn name(&self) -> &str {
            "ego-bing"
        }
        fn capabilities(&self) -> EngineCapabilities {
            EngineCapabilities::new(EngineKind::Browser)
        }
        async fn search(
            &self,
            r: &EngineRequest,
        ) -> Result<ferret_core::EngineResponse, EngineError> {
            let mut resp = StaticEngine::new("ego-bing", 1).search(r).await?;
            resp.provenance = Provenance::login(Runtime::ChromiumAttached);
            Ok(resp)
        }
    }
    let live = Recorder::new(LoggedIn, dir.path());
    let req = EngineRequest::new("feed");
    live.search(&req).await.unwrap();
    let replayed = ReplayEngine::open(dir.path(), "ego-bing")
        .unwrap()
        .search(&req)
        .await
        .unwrap();
    assert_eq!(
        replayed.provenance,
        Provenance::login(Runtime::ChromiumAttached)
    );
}

#[tokio::test]
async fn recorder_and_replay_both_conform() {
    let dir = tempfile::tempdir().unwrap();
    // The conformance run through the recorder records every request it makes ...
    Conformance::new("rust")
        .check(&web("brave", 5).layer(RecordLayer::new(dir.path())))
        .await
        .assert_passed();
    // ... so the same run against the replay finds them all.
    Conformance::new("rust")
        .check(&ReplayEngine::open(dir.path(), "brave").unwrap())
        .await
        .assert_passed();

    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::BotDetected))
        .check(
            &FailingEngine::new(
                "ddg",
                EngineError::BotDetected {
                    message: "anomaly".into(),
                },
            )
            .layer(RecordLayer::new(dir.path())),
        )
        .await
        .assert_passed();
    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::BotDetected))
        .check(&ReplayEngine::open(dir.path(), "ddg").unwrap())
        .await
        .assert_passed();
}

#[tokio::test]
async fn an_unwritable_directory_does_not_fail_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let live = Recorder::new(web("brave", 2), &file);
    let r = live.search(&EngineRequest::new("q")).await.unwrap();
    assert_eq!(r.hits.len(), 2);
    assert_eq!(live.write_failures(), 1);
    assert_eq!(live.recorded(), 0);
}
