//! Engine health: the connectivity probe (loopback only: closed ports and
//! a listening socket), its verdicts shared by every engine of a run, and
//! cool-downs kept for the next run.
#![cfg(feature = "sqlite")]

mod layer_engines;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ferret_core::{Engine, EngineRequest, ErrorKind};
use ferret_engines::health::{NetworkHealth, ProbeTarget, Reachable, until_in};
use ferret_engines::layers::breaker::SqliteBreakerStore;
use layer_engines::{Switch, bot};

/// A loopback port nobody listens on (connect refused).
fn closed() -> ProbeTarget {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    ProbeTarget {
        host: "127.0.0.1".into(),
        port,
    }
}

async fn error_of(e: &impl Engine) -> Result<usize, (ErrorKind, String)> {
    e.search(&EngineRequest::new("rust"))
        .await
        .map(|r| r.hits.len())
        .map_err(|e| (e.kind(), e.to_string()))
}

fn sqlite(dir: &tempfile::TempDir) -> Arc<SqliteBreakerStore> {
    Arc::new(SqliteBreakerStore::open(dir.path().join("health.db")).unwrap())
}

#[tokio::test]
async fn when_no_host_answers_every_engine_is_skipped_as_offline_without_a_call() {
    let dir = tempfile::tempdir().unwrap();
    let health = Arc::new(
        NetworkHealth::new(sqlite(&dir))
            .with_target("ddg", closed())
            .with_target("bing", closed()),
    );
    let engines = [
        Switch::new("ddg"),
        Switch::new("bing"),
        Switch::new("other"),
    ];
    let started = Instant::now();
    for e in &engines {
        let guarded = Reachable::new(e.clone(), health.clone());
        let (kind, message) = error_of(&guarded).await.unwrap_err();
        assert_eq!(kind, ErrorKind::Transport);
        assert!(message.contains("offline:"), "{message}");
        assert!(message.contains(e.name()), "{message}");
        assert!(until_in(&message).is_some(), "{message}");
        assert_eq!(e.calls(), 0);
    }
    assert!(started.elapsed() < Duration::from_secs(3));

    // The next run reads the verdict instead of probing again.
    let next = Arc::new(NetworkHealth::new(sqlite(&dir)));
    let (_, message) = error_of(&Reachable::new(Switch::new("ddg"), next))
        .await
        .unwrap_err();
    assert!(message.contains("offline:"), "{message}");
}

#[tokio::test]
async fn a_refusing_host_among_answering_ones_is_unreachable_and_the_others_go_through() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let open = ProbeTarget {
        host: "127.0.0.1".into(),
        port: listener.local_addr().unwrap().port(),
    };
    let dir = tempfile::tempdir().unwrap();
    let health = Arc::new(
        NetworkHealth::new(sqlite(&dir))
            .with_target("up", open)
            .with_target("down", closed()),
    );
    let up = Switch::new("up");
    assert_eq!(
        error_of(&Reachable::new(up.clone(), health.clone())).await,
        Ok(10)
    );
    let down = Switch::new("down");
    let (kind, message) = error_of(&Reachable::new(down.clone(), health.clone()))
        .await
        .unwrap_err();
    assert_eq!(kind, ErrorKind::Transport);
    assert!(
        message.starts_with("transport error: unreachable:"),
        "{message}"
    );
    assert_eq!(down.calls(), 0);
}

#[tokio::test]
async fn a_bot_detection_cools_the_engine_down_for_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let first = Arc::new(NetworkHealth::new(sqlite(&dir)));
    let ddg = Switch::new("duckduckgo");
    ddg.fail_with(bot());
    let guarded = Reachable::new(ddg.clone(), first);
    assert_eq!(
        error_of(&guarded).await.unwrap_err().0,
        ErrorKind::BotDetected
    );

    let second = Arc::new(NetworkHealth::new(sqlite(&dir)));
    let later = Switch::new("duckduckgo");
    let (kind, message) = error_of(&Reachable::new(later.clone(), second.clone()))
        .await
        .unwrap_err();
    assert_eq!(kind, ErrorKind::CircuitOpen);
    assert!(message.contains("cooling down until"), "{message}");
    assert!(until_in(&message).is_some(), "{message}");
    assert_eq!(later.calls(), 0, "the next run skipped the blocked engine");

    second.forget(&["duckduckgo"]).await;
    let third = Arc::new(NetworkHealth::new(sqlite(&dir)));
    assert_eq!(error_of(&Reachable::new(later, third)).await, Ok(10));
}
