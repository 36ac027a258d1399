//! The login partition: a persistent profile and an attached browser are
//! refused while pro mode is off; with it on, a cookie login wall is seen
//! (`auth_wall_suspected`), passed by filling the form and clicking, and the
//! content behind it is fetched, with login provenance. Also: the sign-in
//! survives a restart of the persistent profile, an attached browser (and
//! `auto` falling back to it) reports `chromium-attached` and keeps running
//! after shutdown.

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Form;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use ferret_browser::config::RuntimeChoice;
use ferret_browser::modes::{self, FetchRequest};
use ferret_browser::{
    BrowserError, BrowserRuntime, ChromiumConfig, ChromiumRuntime, RuntimeKind, Target,
    TaskSpaceSpec, WaitFor, pro_mode,
};
use ferret_core::Partition;

const WALL: &str = r#"<!doctype html><html><head><title>Members</title></head><body>
<main><h1>请先登录</h1><p>Sign in to continue reading this members-only page.</p>
<form method="post" action="/login">
  <label for="user">User</label><input id="user" name="user">
  <label for="pass">Password</label><input id="pass" name="pass" type="password">
  <button id="signin" type="submit">Sign in</button>
</form></main></body></html>"#;

const CONTENT: &str = r#"<!doctype html><html><head><title>Members</title></head><body>
<article id="secret-content"><h1>Members area</h1><p>Welcome back. This is the content that only
signed-in members can read, long enough to count as a real page. MEMBERS-ONLY</p></article>
</body></html>"#;

fn router() -> Router {
    Router::new()
        .route(
            "/account",
            get(|headers: HeaderMap| async move {
                let cookie = headers
                    .get(header::COOKIE)
                    .and_then(|c| c.to_str().ok())
                    .unwrap_or("");
                if cookie.contains("session=ok") {
                    Html(CONTENT)
                } else {
                    Html(WALL)
                }
            }),
        )
        .route(
            "/login",
            axum::routing::post(
                |Form(f): Form<HashMap<String, String>>| async move { login_post(f) },
            ),
        )
}

fn login_post(f: HashMap<String, String>) -> Response {
    let ok = f.get("user").map(String::as_str) == Some("ada")
        && f.get("pass").map(String::as_str) == Some("lovelace");
    if !ok {
        return (StatusCode::UNAUTHORIZED, Html(WALL)).into_response();
    }
    Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header(header::SET_COOKIE, "session=ok; Path=/; Max-Age=3600")
        .header(header::LOCATION, "/account")
        .body(axum::body::Body::empty())
        .unwrap_or_default()
}

/// Start a Chromium of our own with a DevTools port, as a user would, and
/// return its `http://127.0.0.1:PORT` endpoint and process.
async fn start_user_browser(profile: &Path) -> (String, tokio::process::Child) {
    let child = tokio::process::Command::new(support::chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-port=0",
            "--no-first-run",
            "--host-resolver-rules=MAP * 127.0.0.1",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .process_group(0)
        .spawn()
        .expect("start chromium");
    let port_file = profile.join("DevToolsActivePort");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(&port_file)
            && let Some(port) = text.lines().next().filter(|p| !p.is_empty())
        {
            return (format!("http://127.0.0.1:{port}"), child);
        }
        assert!(Instant::now() < deadline, "no DevToolsActivePort");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn main() {
    if support::skip_requested() {
        return;
    }
    let tokio = support::tokio_runtime();
    let code = tokio.block_on(async {
        let addr = support::serve(router()).await;
        let base = format!("http://example.com:{}", addr.port());
        let home = tempfile::tempdir().expect("temp home");
        let persistent = support::test_config().home(home.path()).persistent();
        let mut pgids: Vec<u32> = Vec::new();
        let mut profiles = Vec::new();
        let mut h = support::Harness::new();

        h.run("login_partition_refused_while_pro_mode_is_off", async {
            assert!(!pro_mode::is_enabled(home.path()));
            let err = ChromiumRuntime::new(persistent.clone()).expect_err("refused");
            assert!(matches!(err, BrowserError::ProModeRequired { .. }));
            assert!(err.to_string().contains("ferret pro enable"), "{err}");
            let err = ChromiumRuntime::new(
                ChromiumConfig::attached("http://127.0.0.1:9").home(home.path()),
            )
            .expect_err("attached refused");
            assert!(matches!(err, BrowserError::ProModeRequired { .. }));
        })
        .await;

        pro_mode::enable(home.path()).expect("enable");
        let rt = ChromiumRuntime::new(persistent.clone()).expect("runtime with pro mode");

        h.run("cookie_login_wall_then_content_after_signing_in", async {
            let space = TaskSpaceSpec::for_site("example.com");
            let before = modes::fetch(
                &rt,
                &FetchRequest::new(format!("{base}/account")).space(space.clone()),
            )
            .await
            .expect("fetch the wall");
            assert!(before.quality.auth_wall_suspected, "{:?}", before.quality);
            assert!(!before.quality.login_likely_ok);
            assert_eq!(before.provenance.search_partition, Partition::Login);
            assert!(before.provenance.login_state_used && !before.provenance.cache_eligible);
            assert_eq!(before.provenance.runtime, "chromium-managed");
            let info = rt.open_space(&space).await.expect("space");
            assert!(
                !info.isolated_context,
                "the login partition shares the profile's cookies"
            );
            assert!(info.keep);

            rt.navigate(&space.name, &format!("{base}/account"), &WaitFor::Load)
                .await
                .expect("open the wall");
            rt.fill(&space.name, &Target::Css("#user".into()), "ada")
                .await
                .expect("fill user");
            rt.fill(&space.name, &Target::Text("password".into()), "lovelace")
                .await
                .expect("fill password");
            rt.click(&space.name, &Target::Css("#signin".into()))
                .await
                .expect("click");
            assert!(
                rt.wait(&space.name, &WaitFor::selector("#secret-content"), None)
                    .await
                    .expect("wait")
            );
            let after = modes::fetch(
                &rt,
                &FetchRequest::new(format!("{base}/account")).space(space.clone()),
            )
            .await
            .expect("fetch behind the wall");
            assert!(after.content.contains("MEMBERS-ONLY"), "{}", after.content);
            assert!(!after.quality.auth_wall_suspected && after.quality.login_likely_ok);
            assert!(!rt.complete_space(&space.name).await.expect("kept"));
        })
        .await;

        h.run("pro_mode_off_refuses_further_calls", async {
            pro_mode::disable(home.path()).expect("disable");
            let err = modes::fetch(&rt, &FetchRequest::new(format!("{base}/account")))
                .await
                .expect_err("refused");
            assert!(matches!(err, BrowserError::ProModeRequired { .. }), "{err}");
            pro_mode::enable(home.path()).expect("enable again");
        })
        .await;

        if let Some(pid) = rt.browser_pid() {
            pgids.push(pid);
        }
        profiles.extend(rt.profile_dirs());
        rt.shutdown().await.expect("shutdown");

        h.run(
            "sign_in_survives_a_restart_of_the_persistent_profile",
            async {
                let rt2 = ChromiumRuntime::new(persistent.clone()).expect("runtime");
                let out = modes::fetch(&rt2, &FetchRequest::new(format!("{base}/account")))
                    .await
                    .expect("fetch");
                if let Some(pid) = rt2.browser_pid() {
                    pgids.push(pid);
                }
                profiles.extend(rt2.profile_dirs());
                rt2.shutdown().await.expect("shutdown");
                assert!(out.content.contains("MEMBERS-ONLY"), "{}", out.content);
            },
        )
        .await;

        let user_profile = tempfile::tempdir().expect("profile");
        let (endpoint, mut user_browser) = start_user_browser(user_profile.path()).await;
        let user_pid = user_browser.id().expect("pid");

        h.run("attached_browser_is_the_login_partition", async {
            let config = ChromiumConfig::attached(endpoint.clone()).home(home.path());
            let rt = ChromiumRuntime::new(config).expect("attached runtime");
            let out = modes::fetch(&rt, &FetchRequest::new(format!("{base}/account")))
                .await
                .expect("fetch through the attached browser");
            assert_eq!(out.provenance.runtime, "chromium-attached");
            assert_eq!(out.provenance.search_partition, Partition::Login);
            assert!(out.quality.auth_wall_suspected);
            assert_eq!(rt.runtime_kind(), Some(RuntimeKind::Attached));
            assert_eq!(rt.browser_pid(), None);
            rt.shutdown().await.expect("shutdown");
            // The user's browser keeps running.
            assert!(user_browser.try_wait().expect("status").is_none());
        })
        .await;

        h.run("auto_falls_back_to_attached", async {
            let mut config = support::test_config().home(home.path());
            config.runtime = RuntimeChoice::Auto;
            config.executable = "/nonexistent/chromium".into();
            config.endpoint = Some(endpoint.clone());
            let rt = ChromiumRuntime::new(config.clone()).expect("auto runtime");
            let status = rt.status().await.expect("status");
            assert_eq!(status.runtime, Some(RuntimeKind::Attached));
            assert_eq!(status.partition, Partition::Login);
            assert_eq!(rt.provenance().runtime, "chromium-attached");
            rt.shutdown().await.expect("shutdown");

            // Without pro mode the fallback is refused, and the error says
            // why both ways failed.
            pro_mode::disable(home.path()).expect("disable");
            let rt = ChromiumRuntime::new(config).expect("auto runtime");
            let err = rt.status().await.expect_err("no runtime");
            let msg = err.to_string();
            assert!(matches!(err, BrowserError::NoRuntime { .. }), "{err:?}");
            assert!(
                msg.contains("no Chromium executable") && msg.contains("pro enable"),
                "{msg}"
            );
            pro_mode::enable(home.path()).expect("enable");
        })
        .await;

        let _ = killpg_user(user_pid);
        let _ = user_browser.wait().await;
        pgids.push(user_pid);
        h.run(
            "no_browser_left",
            support::assert_no_browser_left(&pgids, &profiles),
        )
        .await;
        h.finish()
    });
    drop(tokio);
    std::process::exit(code);
}

fn killpg_user(pid: u32) -> nix::Result<()> {
    nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
}
