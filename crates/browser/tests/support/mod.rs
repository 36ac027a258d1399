//! Shared pieces of the browser test binaries: the runner (`harness.rs`:
//! the scenario harness, the Chromium path, a local server), the test
//! config, the shared fixtures folder, and the closing process checks.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ferret_browser::{ChromiumConfig, procs};

#[path = "harness.rs"]
mod harness;
#[allow(unused_imports)] // each test binary uses its own subset
pub use harness::{Harness, chromium, serve, skip_requested, tokio_runtime};

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
