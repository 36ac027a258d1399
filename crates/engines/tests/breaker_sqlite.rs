//! The circuit breaker's SQLite store: the store contract, breakers sharing
//! one file, and two separate processes sharing one file (this test binary
//! runs itself as the second process).
#![cfg(feature = "sqlite")]

mod layer_engines;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use ferret_core::{Engine, EngineRequest, ErrorKind};
use ferret_engines::layers::breaker::SqliteBreakerStore;
use ferret_engines::layers::breaker::conformance::StoreConformance;
use ferret_engines::layers::{BreakerConfig, BreakerStore, CircuitBreaker, MemoryBreakerStore};
use layer_engines::{Switch, bot};

/// Set in the child process: what it should do, and the store file.
const ROLE: &str = "FERRET_BREAKER_PROC_ROLE";
const FILE: &str = "FERRET_BREAKER_PROC_FILE";

async fn kind_of(e: &impl Engine) -> Result<usize, ErrorKind> {
    e.search(&EngineRequest::new("rust"))
        .await
        .map(|r| r.hits.len())
        .map_err(|e| e.kind())
}

fn store(path: &Path) -> Arc<SqliteBreakerStore> {
    Arc::new(SqliteBreakerStore::open(path).expect("open the breaker store"))
}

#[tokio::test]
async fn the_memory_and_sqlite_stores_keep_the_store_contract() {
    StoreConformance::new()
        .check(&MemoryBreakerStore::new())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let s = store(&dir.path().join("health.db"));
    StoreConformance::new().check(&*s).await.unwrap();
}

#[tokio::test]
async fn state_written_through_one_connection_is_read_through_another() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("health.db");
    let ddg = Switch::new("duckduckgo");
    ddg.fail_with(bot());
    let first = CircuitBreaker::new(ddg).with_store(store(&path));
    for _ in 0..3 {
        assert_eq!(kind_of(&first).await, Err(ErrorKind::BotDetected));
    }
    drop(first);
    let later = Switch::new("duckduckgo");
    let second = CircuitBreaker::new(later.clone()).with_store(store(&path));
    assert_eq!(kind_of(&second).await, Err(ErrorKind::CircuitOpen));
    assert_eq!(later.calls(), 0, "the reopened store kept the open breaker");
    let state = second.state().await.unwrap();
    assert_eq!(state.opened_by, Some(ErrorKind::BotDetected));
}

#[tokio::test]
async fn concurrent_failures_through_two_connections_are_all_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("health.db");
    let config = BreakerConfig {
        failure_threshold: 100,
        ..BreakerConfig::default()
    };
    let make = |s: Arc<SqliteBreakerStore>| {
        let e = Switch::new("ddg");
        e.fail_with(bot());
        Arc::new(
            CircuitBreaker::new(e)
                .with_store(s)
                .with_config(config.clone()),
        )
    };
    let a = make(store(&path));
    let b = make(store(&path));
    let mut tasks = Vec::new();
    for i in 0..20 {
        let engine = if i % 2 == 0 { a.clone() } else { b.clone() };
        tasks.push(tokio::spawn(async move { kind_of(&*engine).await }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), Err(ErrorKind::BotDetected));
    }
    assert_eq!(a.state().await.unwrap().failures.len(), 20);
}

#[tokio::test]
async fn a_file_that_is_not_a_database_is_a_typed_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("health.db");
    std::fs::write(&path, vec![b'x'; 4096]).unwrap();
    let err = SqliteBreakerStore::open(&path).unwrap_err();
    assert!(err.to_string().contains("health.db"), "{err}");
    let err = SqliteBreakerStore::open(dir.path()).unwrap_err();
    assert!(err.to_string().contains("directory"), "{err}");
}

/// Run this binary again as a child doing `role` on the store at `path`.
fn child(role: &str, path: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "breaker_process_child", "--nocapture"])
        .env(ROLE, role)
        .env(FILE, path)
        .spawn()
        .expect("spawn the child test process")
}

fn finish(mut c: std::process::Child, what: &str) {
    let status = c.wait().unwrap();
    assert!(status.success(), "the {what} process failed: {status}");
}

#[test]
fn two_processes_share_breaker_state_through_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("health.db");
    // Two processes counting failures at once lose none of them.
    let (a, b) = (child("count", &path), child("count", &path));
    finish(a, "first counting");
    finish(b, "second counting");
    finish(child("expect-20", &path), "reading");
    // One process trips the breaker; another sees it open.
    finish(child("trip", &path), "tripping");
    finish(child("expect-open", &path), "checking");
}

/// The child's part; does nothing when run as an ordinary test.
#[test]
fn breaker_process_child() {
    let (Ok(role), Ok(file)) = (std::env::var(ROLE), std::env::var(FILE)) else {
        return;
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(child_role(&role, Path::new(&file)));
}

async fn child_role(role: &str, path: &Path) {
    let counting = BreakerConfig {
        failure_threshold: 100,
        ..BreakerConfig::default()
    };
    let engine = Switch::new("ddg");
    match role {
        "count" => {
            engine.fail_with(bot());
            let b = CircuitBreaker::new(engine)
                .with_store(store(path))
                .with_config(counting);
            for _ in 0..10 {
                assert_eq!(kind_of(&b).await, Err(ErrorKind::BotDetected));
            }
        }
        "expect-20" => {
            let b = CircuitBreaker::new(engine).with_store(store(path));
            assert_eq!(b.state().await.unwrap().failures.len(), 20);
            b.reset().await.unwrap();
        }
        "trip" => {
            engine.fail_with(bot());
            let b = CircuitBreaker::new(engine).with_store(store(path));
            for _ in 0..3 {
                assert_eq!(kind_of(&b).await, Err(ErrorKind::BotDetected));
            }
        }
        "expect-open" => {
            let b = CircuitBreaker::new(engine.clone()).with_store(store(path));
            assert_eq!(kind_of(&b).await, Err(ErrorKind::CircuitOpen));
            assert_eq!(engine.calls(), 0);
            let raw = store(path).load("ddg").await.unwrap().unwrap();
            assert!(raw.contains("\"opened_by\":\"bot_detected\""), "{raw}");
        }
        other => panic!("unknown role {other}"),
    }
}
