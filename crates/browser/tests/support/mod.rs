//! Shared pieces of the browser test binaries: a tiny test harness (one
//! browser per binary, scenarios run in order, a closing process check),
//! the Chromium path, the shared fixtures folder, and a local server.

#![allow(dead_code)]

use std::future::Future;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ferret_browser::{ChromiumConfig, procs};
use futures::FutureExt;

/// The Chromium the tests launch: `FERRET_CHROMIUM` or `/usr/bin/chromium`.
pub fn chromium() -> PathBuf {
    std::env::var_os("FERRET_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
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

/// The shared folder (`$FERRET_SHARED` or `<workspace>/../shared`).
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join("../shared")
        });
    dir.is_dir().then_some(dir)
}

/// A managed public-partition config for tests: every host name resolves to
/// loopback (no test ever reaches the internet) and the URL guard keeps its
/// default (private addresses blocked), so pages are reached through
/// real-looking names like `http://example.com:PORT/`.
pub fn test_config() -> ChromiumConfig {
    let mut c = ChromiumConfig::managed(chromium())
        .host_resolver_rules("MAP * 127.0.0.1")
        .call_timeout(Duration::from_secs(10))
        .page_load_timeout(Duration::from_secs(20))
        .launch_timeout(Duration::from_secs(30));
    c.home = std::env::temp_dir().join(format!("ferret-test-home-{}", std::process::id()));
    c
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

/// Assert that no process of the given browsers' process groups is alive
/// (helpers may need a moment to exit after the browser is killed).
pub async fn assert_groups_gone(pgids: &[u32]) {
    assert_gone(pgids, &[], false).await
}

/// Assert that no browser process this test started is still alive: none
/// in the process groups of the launched browsers, none below this process,
/// and no crash handler writing into one of `profiles`.
pub async fn assert_no_browser_left(pgids: &[u32], profiles: &[PathBuf]) {
    assert_gone(pgids, profiles, true).await
}

fn crash_handlers_of(profiles: &[PathBuf]) -> Vec<procs::ProcInfo> {
    procs::all()
        .into_iter()
        .filter(|p| !p.is_zombie() && p.name.starts_with("chrome_crashpad"))
        .filter(|p| {
            procs::cmdline(p.pid).is_some_and(|args| {
                args.iter().any(|a| {
                    a.starts_with("--database=")
                        && profiles
                            .iter()
                            .any(|d| a.contains(&*d.display().to_string()))
                })
            })
        })
        .collect()
}

async fn assert_gone(pgids: &[u32], profiles: &[PathBuf], descendants: bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut left: Vec<procs::ProcInfo> = pgids
            .iter()
            .flat_map(|g| procs::live_in_group(*g))
            .collect();
        let below = if descendants {
            procs::live_descendants(std::process::id())
        } else {
            Vec::new()
        };
        left.extend(below.into_iter().filter(|p| {
            p.exe.as_deref().is_some_and(|e| e.contains("chrom")) || p.name.contains("chrom")
        }));
        left.extend(crash_handlers_of(profiles));
        if left.is_empty() {
            return;
        }
        if Instant::now() > deadline {
            panic!("browser processes left behind: {left:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
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
