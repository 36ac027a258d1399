//! A browser killed in the middle of a call: the call fails with a typed
//! error well within its timeout, and the next call relaunches and
//! succeeds. A server that never answers: the call times out and the space
//! keeps working. A runtime dropped without shutdown takes its browser with
//! it. Nothing is left running at the end.

mod support;

use std::time::{Duration, Instant};

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use ferret_browser::{BrowserError, BrowserRuntime, ChromiumRuntime, RenderOptions, WaitFor};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

const PAGE: &str = "<!doctype html><title>Plain</title><main><p>A plain page that loads at once \
                    and says so. PLAIN-PAGE</p></main>";

fn router() -> Router {
    Router::new()
        .route("/plain", get(|| async { Html(PAGE) }))
        .route(
            "/hang",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Html("never")
            }),
        )
}

fn main() {
    if support::skip_requested() {
        return;
    }
    let tokio = support::tokio_runtime();
    let code = tokio.block_on(async {
        let addr = support::serve(router()).await;
        let base = format!("http://example.com:{}", addr.port());
        let rt =
            ChromiumRuntime::new(support::test_config().page_load_timeout(Duration::from_secs(15)))
                .expect("runtime");
        let mut pids: Vec<u32> = Vec::new();
        let mut profiles = Vec::new();
        let mut h = support::Harness::new();

        h.run("killed_mid_call_fails_typed_then_relaunches", async {
            let first = rt
                .render(
                    "ferret",
                    &format!("{base}/plain"),
                    &RenderOptions::default(),
                )
                .await
                .expect("first render");
            assert!(first.main_text.contains("PLAIN-PAGE"));
            let pid = rt.browser_pid().expect("managed pid");
            pids.push(pid);
            // A render that waits for an element that never comes…
            let never = RenderOptions {
                wait: WaitFor::selector("#never"),
                timeout: Some(Duration::from_secs(15)),
                include_html: false,
            };
            let plain = format!("{base}/plain");
            let slow = rt.render("ferret", &plain, &never);
            // …while the browser is killed under it.
            let killer = async {
                tokio::time::sleep(Duration::from_millis(800)).await;
                killpg(Pid::from_raw(pid as i32), Signal::SIGKILL).expect("kill the browser");
            };
            let start = Instant::now();
            let (result, ()) = tokio::join!(slow, killer);
            let took = start.elapsed();
            let err = result.expect_err("the call must fail");
            assert!(
                matches!(err, BrowserError::BrowserDied { .. }),
                "typed error, got {err:?}"
            );
            assert!(err.is_temporary());
            assert!(took < Duration::from_secs(10), "took {took:?}");

            let again = rt
                .render(
                    "ferret",
                    &format!("{base}/plain"),
                    &RenderOptions::default(),
                )
                .await
                .expect("relaunch on the next call");
            assert!(again.main_text.contains("PLAIN-PAGE"));
            assert_eq!(rt.launches(), 2);
            let new_pid = rt.browser_pid().expect("new pid");
            assert_ne!(new_pid, pid);
            pids.push(new_pid);
            support::assert_groups_gone(&[pid]).await;
        })
        .await;

        h.run(
            "unanswered_navigation_times_out_and_the_space_recovers",
            async {
                let start = Instant::now();
                let err = rt
                    .render(
                        "ferret",
                        &format!("{base}/hang"),
                        &RenderOptions {
                            timeout: Some(Duration::from_secs(2)),
                            ..RenderOptions::default()
                        },
                    )
                    .await
                    .expect_err("a server that never answers");
                assert!(matches!(err, BrowserError::Timeout { .. }), "{err:?}");
                assert!(start.elapsed() < Duration::from_secs(6));
                let ok = rt
                    .render(
                        "ferret",
                        &format!("{base}/plain"),
                        &RenderOptions::default(),
                    )
                    .await
                    .expect("the space still works");
                assert!(ok.main_text.contains("PLAIN-PAGE"));
                assert_eq!(rt.launches(), 2, "a timeout is not a crash");
            },
        )
        .await;

        h.run("dropped_runtime_takes_its_browser_along", async {
            let other = ChromiumRuntime::new(support::test_config()).expect("runtime");
            other
                .render(
                    "ferret",
                    &format!("{base}/plain"),
                    &RenderOptions::default(),
                )
                .await
                .expect("render");
            let pid = other.browser_pid().expect("pid");
            profiles.extend(other.profile_dirs());
            drop(other);
            support::assert_groups_gone(&[pid]).await;
        })
        .await;

        if let Some(pid) = rt.browser_pid()
            && !pids.contains(&pid)
        {
            pids.push(pid);
        }
        profiles.extend(rt.profile_dirs());
        rt.shutdown().await.expect("shutdown");
        h.run(
            "no_browser_left_after_shutdown",
            support::assert_no_browser_left(&pids, &profiles),
        )
        .await;
        h.finish()
    });
    drop(tokio);
    std::process::exit(code);
}
