//! The runner of the harness-less browser test binaries (one browser per
//! binary, scenarios run in order): the Chromium path, the skip switch, a
//! loopback server and the scenario harness. Shared by ferret-browser's
//! and ferret-site-skills' browser tests (the latter include this file by
//! path).

#![allow(dead_code)]

use std::future::Future;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::time::Instant;

use ferret_browser::config::{CHROMIUM_ENV, DEFAULT_CHROMIUM};
use futures::FutureExt;

/// The Chromium the tests launch: `FERRET_CHROMIUM` or `/usr/bin/chromium`.
pub fn chromium() -> PathBuf {
    std::env::var_os(CHROMIUM_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_CHROMIUM))
}

/// Whether browser tests must be skipped: only when explicitly asked with
/// `FERRET_SKIP_BROWSER_TESTS=1`. A missing Chromium is a failure, not a
/// skip, so CI cannot pass without running them.
pub fn skip_requested() -> bool {
    if std::env::var("FERRET_SKIP_BROWSER_TESTS").is_ok_and(|v| v == "1") {
        eprintln!("skipped: FERRET_SKIP_BROWSER_TESTS=1");
        return true;
    }
    false
}

/// Serve `router` on 127.0.0.1 (random port).
pub async fn serve(router: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a local port");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

/// A minimal harness: runs named scenarios in order, catches panics,
/// prints cargo-style lines, returns the exit code.
pub struct Harness {
    filter: Option<String>,
    passed: usize,
    failed: Vec<String>,
    filtered: usize,
    start: Instant,
}

impl Harness {
    pub fn new() -> Self {
        let filter = std::env::args()
            .skip(1)
            .find(|a| !a.starts_with('-'))
            .filter(|a| !a.is_empty());
        Harness {
            filter,
            passed: 0,
            failed: Vec::new(),
            filtered: 0,
            start: Instant::now(),
        }
    }

    pub fn wants(&self, name: &str) -> bool {
        self.filter.as_deref().is_none_or(|f| name.contains(f))
    }

    pub async fn run<F: Future<Output = ()>>(&mut self, name: &str, scenario: F) {
        if !self.wants(name) {
            self.filtered += 1;
            return;
        }
        let t = Instant::now();
        let outcome = AssertUnwindSafe(scenario).catch_unwind().await;
        match outcome {
            Ok(()) => {
                println!("test {name} ... ok ({} ms)", t.elapsed().as_millis());
                self.passed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED");
                self.failed.push(name.to_string());
            }
        }
    }

    pub fn finish(self) -> i32 {
        let ok = self.failed.is_empty();
        if !ok {
            println!("\nfailures:");
            for f in &self.failed {
                println!("    {f}");
            }
        }
        println!(
            "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
            if ok { "ok" } else { "FAILED" },
            self.passed,
            self.failed.len(),
            self.filtered,
            self.start.elapsed().as_secs_f64()
        );
        i32::from(!ok)
    }
}

/// A multi-thread runtime for a harness binary.
pub fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}
