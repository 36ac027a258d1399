//! One headless Chromium (public partition) for the whole binary, driven
//! through the public API against pages served on loopback under
//! real-looking names (`MAP * 127.0.0.1`): JavaScript-inserted text,
//! infinite scroll and "load more", a JavaScript challenge, same-origin API
//! calls, the URL guard on redirects and subrequests, interaction with
//! snapshots, task spaces, concurrent renders, and the real SERP captures.
//! Ends by shutting the browser down and checking no process is left.

mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use ferret_browser::modes::{self, ApiRequest, FetchRequest, SearchRequest};
use ferret_browser::serp::{SerpEngine, SerpStatus, TimeWindow};
use ferret_browser::{
    BrowserError, BrowserRuntime, ChromiumRuntime, RenderOptions, ScrollOptions, ScrollStop,
    Target, TaskSpaceSpec, WaitFor,
};
use ferret_core::Partition;
use ferret_core::guard::GuardReason;

const LATE: &str = r#"<!doctype html><html><head><meta charset=utf-8><title>Late article</title></head>
<body><nav>menu-entry-one menu-entry-two</nav><main><h1>Late news</h1><div id="article"></div></main>
<aside class="sidebar">sidebar-junk</aside><footer>footer-junk</footer>
<script>
window.addEventListener('load', function () {
  setTimeout(function () {
    var el = document.getElementById('article');
    el.innerText = 'The runtime schedules tasks on worker threads. '.repeat(40) + 'END-OF-LATE-ARTICLE';
    el.setAttribute('data-ready', '1');
  }, 300);
});
</script></body></html>"#;

const FEED: &str = r#"<!doctype html><html><head><title>Feed</title></head><body>
<div id="feed"></div>
<script>
let n = 0, loading = false;
const feed = document.getElementById('feed');
function add(k) {
  for (let i = 0; i < k && n < 50; i++) {
    const d = document.createElement('div');
    d.className = 'item'; d.style.height = '120px'; d.textContent = 'Item ' + (++n);
    feed.appendChild(d);
  }
}
add(10);
window.addEventListener('scroll', () => {
  if (loading || n >= 50) return;
  if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 200) {
    loading = true;
    setTimeout(() => { add(10); loading = false; }, 150);
  }
});
</script></body></html>"#;

const MORE: &str = r#"<!doctype html><html><head><title>More</title></head><body>
<ul id="list"></ul><button id="more">Load more</button>
<script>
let page = 0;
async function load() {
  const r = await fetch('/more/items?page=' + page);
  const items = await r.json();
  for (const t of items) {
    const li = document.createElement('li'); li.className = 'row'; li.textContent = t;
    document.getElementById('list').appendChild(li);
  }
  page++;
  if (items.length < 5) document.getElementById('more').remove();
}
document.getElementById('more').addEventListener('click', load);
load();
</script></body></html>"#;

const CHALLENGE: &str = r#"<!doctype html><html><head><title>Just a moment...</title></head><body>
<h1>Checking your browser before accessing example.com</h1>
<script>setTimeout(() => { document.cookie = 'cf_clearance=ok; path=/'; location.reload(); }, 400);</script>
</body></html>"#;

const PASSED: &str = r#"<!doctype html><html><head><title>Real page</title></head><body>
<article><h1>The real article</h1><p>The challenge was passed and this is the content behind it,
long enough to count as a real page of text for the quality signals. CHALLENGE-PASSED</p></article>
</body></html>"#;

const FORM: &str = r#"<!doctype html><html><head><title>Form</title></head><body>
<h1>Greeter</h1>
<label for="name">Your name</label> <input id="name" placeholder="Name">
<button id="greet" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value">Greet</button>
<p>Some text between the controls.</p>
<a href="/late">Read the late article</a>
<div id="out"></div>
<script>
document.getElementById('name').addEventListener('keydown', e => {
  if (e.key === 'Enter') document.getElementById('out').textContent = 'Entered ' + e.target.value;
});
</script></body></html>"#;

#[derive(Clone)]
struct Ctx {
    rt: ChromiumRuntime,
    /// `http://example.com:PORT`
    base: String,
    port: u16,
    secret_hits: Arc<AtomicUsize>,
}

fn router(secret_hits: Arc<AtomicUsize>, port_holder: Arc<AtomicUsize>) -> Router {
    let hits = secret_hits.clone();
    let ph = port_holder.clone();
    let ph2 = port_holder.clone();
    let ph3 = port_holder.clone();
    Router::new()
        .route("/late", get(|| async { Html(LATE) }))
        .route("/raf", get(|| async { Html(RAF) }))
        .route("/feed", get(|| async { Html(FEED) }))
        .route("/more", get(|| async { Html(MORE) }))
        .route(
            "/more/items",
            get(|Query(q): Query<HashMap<String, String>>| async move {
                let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(0);
                let items: Vec<String> = if page < 6 {
                    (0..5)
                        .map(|i| format!("Row {}", page * 5 + i + 1))
                        .collect()
                } else {
                    Vec::new()
                };
                axum::Json(items)
            }),
        )
        .route(
            "/challenge",
            get(|headers: HeaderMap| async move {
                let cookie = headers
                    .get(header::COOKIE)
                    .and_then(|c| c.to_str().ok())
                    .unwrap_or("");
                if cookie.contains("cf_clearance=ok") {
                    Html(PASSED)
                } else {
                    Html(CHALLENGE)
                }
            }),
        )
        .route("/form", get(|| async { Html(FORM) }))
        .route(
            "/ticking",
            get(|| async {
                Html(
                    "<!doctype html><title>Clock</title><main><p>A page whose clock never stops                      ticking, so it never settles. TICKING-BODY</p><p id=clock></p></main>                     <script>setInterval(() => { document.getElementById('clock').textContent =                      Date.now(); }, 100);</script>",
                )
            }),
        )
        .route(
            "/alerting",
            get(|| async {
                Html(
                    "<!doctype html><title>Alert</title><script>alert('hello');                      confirm('sure?');</script><main><p>Text after two dialogs.                      AFTER-DIALOGS</p></main>",
                )
            }),
        )
        .route(
            "/",
            get(|| async {
                (
                    [(header::SET_COOKIE, "sid=abc123; Path=/")],
                    Html("<!doctype html><title>App</title><p>app shell</p>"),
                )
            }),
        )
        .route(
            "/setcookie",
            get(|| async {
                (
                    [(header::SET_COOKIE, "space=a; Path=/")],
                    Html("<!doctype html><title>Set</title><p>cookie set</p>"),
                )
            }),
        )
        .route(
            "/api/data",
            get(|headers: HeaderMap| async move {
                let cookie = headers
                    .get(header::COOKIE)
                    .and_then(|c| c.to_str().ok())
                    .unwrap_or("")
                    .to_string();
                axum::Json(serde_json::json!({"cookie": cookie, "items": [1, 2, 3]}))
            }),
        )
        .route(
            "/api/big",
            get(|| async {
                let rows: Vec<serde_json::Value> = (0..6000)
                    .map(|i| serde_json::json!({"id": i, "name": format!("row number {i}")}))
                    .collect();
                axum::Json(rows)
            }),
        )
        .route(
            "/secret",
            get(move || {
                let hits = hits.clone();
                async move {
                    hits.fetch_add(1, Ordering::SeqCst);
                    "secret"
                }
            }),
        )
        .route(
            "/redirect-private",
            get(move || {
                let port = ph.load(Ordering::SeqCst);
                async move {
                    Response::builder()
                        .status(StatusCode::FOUND)
                        .header(header::LOCATION, format!("http://127.0.0.1:{port}/secret"))
                        .body(axum::body::Body::empty())
                        .unwrap_or_default()
                }
            }),
        )
        .route(
            "/subrequests",
            get(move || {
                let port = ph2.load(Ordering::SeqCst);
                async move {
                    Html(format!(
                        r#"<!doctype html><title>Public</title><body><main><p>A public page with an
image and a script that reach for a loopback address. PUBLIC-BODY</p>
<img src="http://127.0.0.1:{port}/secret?img"></main>
<script>fetch('http://127.0.0.1:{port}/secret?fetch').catch(() => {{}});</script></body>"#
                    ))
                }
            }),
        )
        .route(
            "/serp-local",
            get(move || {
                let port = ph3.load(Ordering::SeqCst);
                async move {
                    let item = |n: usize, path: &str, date: &str| {
                        format!(
                            r#"<li class="b_algo"><h2><a href="http://example.com:{port}{path}">Local result {n}</a></h2>
<div class="b_caption"><p>{date} · A local result page number {n}.</p></div></li>"#
                        )
                    };
                    Html(format!(
                        "<!doctype html><title>local - Search</title><ol id=b_results>{}{}{}</ol>",
                        item(1, "/late", "Nov 20, 2026"),
                        item(2, "/challenge", "Nov 21, 2026"),
                        item(3, "/redirect-private", "Nov 22, 2026"),
                    ))
                }
            }),
        )
        .route(
            "/f/{file}",
            get(|Path(file): Path<String>| async move {
                let Some(dir) = support::shared_dir() else {
                    return (StatusCode::NOT_FOUND, "no shared dir").into_response();
                };
                match std::fs::read(dir.join("fixtures/serp").join(&file)) {
                    Ok(bytes) => ([(header::CONTENT_TYPE, "text/html")], bytes).into_response(),
                    Err(_) => (StatusCode::NOT_FOUND, "missing").into_response(),
                }
            }),
        )
}

async fn js_inserted_text_is_fetched_in_full(c: &Ctx) {
    let out = modes::fetch(&c.rt, &FetchRequest::new(format!("{}/late", c.base)))
        .await
        .expect("fetch");
    assert_eq!(out.schema, "ferret.browser.fetch.v1");
    assert!(
        out.content.contains("END-OF-LATE-ARTICLE"),
        "{}",
        out.content
    );
    assert!(out.wait_satisfied);
    assert_eq!(out.main_source, "main");
    assert!(!out.content.contains("menu-entry-one"));
    assert!(!out.content.contains("sidebar-junk") && !out.content.contains("footer-junk"));
    assert_eq!(out.status, Some(200));
    assert_eq!(out.title, "Late article");
    assert!(out.word_count > 200);
    assert!(out.quality.login_likely_ok && !out.quality.empty_or_thin);
    let html = out.html.expect("rendered html handed back");
    assert!(html.contains("data-ready") && html.contains("END-OF-LATE-ARTICLE"));
    assert_eq!(out.provenance.runtime, "chromium-managed");
    assert_eq!(out.provenance.search_partition, Partition::Public);
    assert!(out.provenance.cache_eligible);

    // Waiting for a selector (one round trip: wait and read together).
    let page =
        c.rt.render(
            "ferret",
            &format!("{}/late", c.base),
            &RenderOptions {
                wait: WaitFor::selector("#article[data-ready]"),
                timeout: None,
                include_html: false,
            },
        )
        .await
        .expect("render");
    assert!(page.wait_satisfied && page.body_text.contains("END-OF-LATE-ARTICLE"));
    assert!(page.html.is_none());

    // Focus keeps the matching paragraphs or falls back to the start.
    let out = modes::fetch(
        &c.rt,
        &FetchRequest::new(format!("{}/late", c.base)).focus("worker threads"),
    )
    .await
    .expect("fetch with focus");
    assert!(out.focus_matched && out.content.contains("worker threads"));
}

async fn infinite_scroll_collected_to_the_end(c: &Ctx) {
    c.rt.navigate("scroll", &format!("{}/feed", c.base), &WaitFor::Load)
        .await
        .expect("navigate");
    let report =
        c.rt.scroll_until(
            "scroll",
            &ScrollOptions {
                item_selector: Some(".item".into()),
                stall_ms: 1000,
                max_stalls: 2,
                ..ScrollOptions::default()
            },
        )
        .await
        .expect("scroll");
    assert_eq!(report.items, 50, "{report:?}");
    assert_eq!(report.stopped, ScrollStop::Stalled);
    let n =
        c.rt.evaluate("scroll", "document.querySelectorAll('.item').length")
            .await
            .expect("count");
    assert_eq!(n, serde_json::json!(50));
    // The cap stops early.
    c.rt.navigate("scroll", &format!("{}/feed", c.base), &WaitFor::Load)
        .await
        .expect("navigate again");
    let report =
        c.rt.scroll_until(
            "scroll",
            &ScrollOptions {
                item_selector: Some(".item".into()),
                max_items: Some(20),
                stall_ms: 1000,
                ..ScrollOptions::default()
            },
        )
        .await
        .expect("scroll with cap");
    assert_eq!(report.stopped, ScrollStop::MaxItems);
    assert!(report.items >= 20 && report.items < 50, "{report:?}");
}

async fn load_more_button_collected_to_the_end(c: &Ctx) {
    c.rt.navigate(
        "more",
        &format!("{}/more", c.base),
        &WaitFor::selector(".row"),
    )
    .await
    .expect("navigate");
    let report =
        c.rt.scroll_until(
            "more",
            &ScrollOptions {
                load_more: Some("#more".into()),
                item_selector: Some(".row".into()),
                stall_ms: 1000,
                max_stalls: 2,
                ..ScrollOptions::default()
            },
        )
        .await
        .expect("scroll");
    assert_eq!(report.items, 30, "{report:?}");
    assert!(report.clicks >= 5, "{report:?}");
    assert_eq!(report.stopped, ScrollStop::Stalled);
    let html = c.rt.html("more").await.expect("html");
    assert!(html.contains("Row 30") && !html.contains("id=\"more\""));
}

async fn javascript_challenge_is_passed(c: &Ctx) {
    // Read right away, the challenge page itself is recognised…
    let before = modes::fetch(
        &c.rt,
        &FetchRequest::new(format!("{}/challenge", c.base))
            .wait(WaitFor::DomReady)
            .space(TaskSpaceSpec::new("challenge-before")),
    )
    .await
    .expect("fetch challenge page");
    assert!(before.quality.challenge_suspected, "{:?}", before.quality);
    assert!(!before.quality.login_likely_ok);
    // …and with the default wait the script sets its cookie, reloads, and
    // the real page is read.
    let after = modes::fetch(
        &c.rt,
        &FetchRequest::new(format!("{}/challenge", c.base)).space(TaskSpaceSpec::new("challenge")),
    )
    .await
    .expect("fetch through the challenge");
    assert!(
        after.content.contains("CHALLENGE-PASSED"),
        "{}",
        after.content
    );
    assert!(!after.quality.challenge_suspected && after.quality.login_likely_ok);
    assert_eq!(after.title, "Real page");
}

async fn api_mode_uses_the_page_cookies(c: &Ctx) {
    let space = TaskSpaceSpec::new("api");
    let out = modes::api(
        &c.rt,
        &ApiRequest::new(format!("{}/api/data", c.base)).space(space.clone()),
    )
    .await
    .expect("api");
    assert_eq!(out.schema, "ferret.browser.api.v1");
    assert_eq!(out.data_type, "json");
    assert!(!out.truncated);
    assert_eq!(out.status, Some(200));
    assert_eq!(out.page_title, "App");
    assert_eq!(out.page_url, format!("{}/", c.base));
    assert!(
        out.data["cookie"]
            .as_str()
            .unwrap_or("")
            .contains("sid=abc123"),
        "{}",
        out.data
    );
    assert_eq!(out.data["items"], serde_json::json!([1, 2, 3]));
    assert_eq!(out.fetch_method, "browser_api");

    let big = modes::api(
        &c.rt,
        &ApiRequest::new(format!("{}/api/big", c.base)).space(space.clone()),
    )
    .await
    .expect("api big");
    assert!(big.truncated);
    assert_eq!(big.data_type, "json_truncated");
    assert_eq!(
        big.data.as_str().map(|s| s.chars().count()),
        Some(modes::API_MAX_CHARS)
    );

    // A loopback API URL is refused with the guard's typed error (never an
    // answer), and never reaches the server.
    let before = c.secret_hits.load(Ordering::SeqCst);
    let private = modes::api(
        &c.rt,
        &ApiRequest::new(format!("http://127.0.0.1:{}/secret", c.port))
            .origin(format!("{}/", c.base))
            .space(space),
    )
    .await
    .expect_err("a loopback API URL is refused");
    assert!(matches!(private, BrowserError::Blocked { .. }), "{private}");
    assert_eq!(c.secret_hits.load(Ordering::SeqCst), before);
}

async fn private_redirects_and_subrequests_are_blocked(c: &Ctx) {
    let before = c.secret_hits.load(Ordering::SeqCst);
    let err =
        c.rt.render(
            "guard",
            &format!("{}/redirect-private", c.base),
            &RenderOptions::default(),
        )
        .await
        .expect_err("redirect to loopback must be blocked");
    assert_eq!(
        err.guard_reason(),
        Some(GuardReason::PrivateOrLocalHostBlocked),
        "{err}"
    );

    let page =
        c.rt.render(
            "guard",
            &format!("{}/subrequests", c.base),
            &RenderOptions::default(),
        )
        .await
        .expect("the page itself is public");
    assert!(page.main_text.contains("PUBLIC-BODY"));
    let urls: Vec<&str> = page.blocked.iter().map(|b| b.url.as_str()).collect();
    assert!(urls.iter().any(|u| u.ends_with("/secret?img")), "{urls:?}");
    assert!(
        urls.iter().any(|u| u.ends_with("/secret?fetch")),
        "{urls:?}"
    );
    assert!(
        page.blocked
            .iter()
            .all(|b| b.reason == GuardReason::PrivateOrLocalHostBlocked)
    );

    let err = modes::fetch(
        &c.rt,
        &FetchRequest::new(format!("http://127.0.0.1:{}/secret", c.port)),
    )
    .await
    .expect_err("a loopback URL is refused before navigating");
    assert!(matches!(err, BrowserError::Blocked { .. }), "{err}");
    assert!(
        err.to_string().contains("FERRET_ALLOW_PRIVATE_URLS"),
        "{err}"
    );
    assert_eq!(
        c.secret_hits.load(Ordering::SeqCst),
        before,
        "the server was reached"
    );
}

async fn interaction_with_stable_refs(c: &Ctx) {
    let info =
        c.rt.navigate("form", &format!("{}/form", c.base), &WaitFor::Load)
            .await
            .expect("navigate");
    assert_eq!(info.title, "Form");
    let s1 = c.rt.snapshot("form").await.expect("snapshot");
    let s2 = c.rt.snapshot("form").await.expect("snapshot again");
    assert_eq!(s1.refs, s2.refs, "refs stable on an unchanged page");
    assert_eq!(s1.text, s2.text);
    assert!(s1.text.contains("# Greeter"), "{}", s1.text);
    let input = s1
        .refs
        .iter()
        .find(|r| r.role == "textbox")
        .expect("textbox in snapshot");
    assert_eq!(input.name, "Your name");
    let button = s1
        .refs
        .iter()
        .find(|r| r.role == "button" && r.name == "Greet")
        .expect("button in snapshot");
    let link = s1.refs.iter().find(|r| r.role == "link").expect("link");
    assert!(link.href.as_deref().is_some_and(|h| h.ends_with("/late")));
    assert!(
        s1.text
            .contains(&format!("[ref={}] button \"Greet\"", button.r#ref))
    );

    c.rt.fill("form", &Target::Ref(input.r#ref), "Ada")
        .await
        .expect("fill");
    c.rt.click("form", &Target::Ref(button.r#ref))
        .await
        .expect("click");
    let out =
        c.rt.evaluate("form", "document.getElementById('out').textContent")
            .await
            .expect("read");
    assert_eq!(out, serde_json::json!("Hello, Ada"));

    c.rt.click("form", &Target::Css("#name".into()))
        .await
        .expect("focus the input");
    c.rt.press("form", "Enter").await.expect("press");
    let out =
        c.rt.evaluate("form", "document.getElementById('out').textContent")
            .await
            .expect("read");
    assert_eq!(out, serde_json::json!("Entered Ada"));

    let s3 = c.rt.snapshot("form").await.expect("snapshot after typing");
    let input3 = s3
        .refs
        .iter()
        .find(|r| r.role == "textbox")
        .expect("textbox");
    assert_eq!(input3.r#ref, input.r#ref, "same element keeps its ref");
    assert!(s3.text.contains("value=\"Ada\""));

    let err =
        c.rt.click("form", &Target::Ref(9999))
            .await
            .expect_err("unknown ref");
    assert!(matches!(err, BrowserError::ElementNotFound { .. }));
    assert!(c.rt.press("form", "NotAKey").await.is_err());
    c.rt.click("form", &Target::Text("late article".into()))
        .await
        .expect("click a link by text");
    assert!(
        c.rt.wait("form", &WaitFor::selector("#article[data-ready]"), None)
            .await
            .expect("wait")
    );
    let here =
        c.rt.current_page("form")
            .await
            .expect("page")
            .expect("open");
    assert!(here.url.ends_with("/late"), "{here:?}");

    let png = c.rt.screenshot("form", false).await.expect("screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() > 1000);
}

async fn task_spaces_are_named_isolated_and_closed(c: &Ctx) {
    let a =
        c.rt.open_space(&TaskSpaceSpec::new("space-a"))
            .await
            .expect("open a");
    assert!(a.isolated_context);
    c.rt.navigate("space-a", &format!("{}/setcookie", c.base), &WaitFor::Load)
        .await
        .expect("set cookie in a");
    let again =
        c.rt.open_space(&TaskSpaceSpec::new("space-a"))
            .await
            .expect("reopen a");
    assert_eq!(again.open_tabs, 1, "reused by name: {again:?}");
    let in_a =
        c.rt.evaluate("space-a", "document.cookie")
            .await
            .expect("a");
    assert_eq!(in_a, serde_json::json!("space=a"));
    c.rt.navigate("space-b", &format!("{}/form", c.base), &WaitFor::Load)
        .await
        .expect("b");
    let in_b =
        c.rt.evaluate("space-b", "document.cookie")
            .await
            .expect("b");
    assert_eq!(in_b, serde_json::json!(""), "spaces do not share cookies");

    c.rt.open_space(&TaskSpaceSpec::new("space-kept").keep(true))
        .await
        .expect("kept");
    assert!(c.rt.complete_space("space-a").await.expect("complete a"));
    assert!(
        !c.rt
            .complete_space("space-kept")
            .await
            .expect("complete kept")
    );
    let names: Vec<String> =
        c.rt.list_spaces()
            .await
            .into_iter()
            .map(|s| s.name)
            .collect();
    assert!(!names.contains(&"space-a".to_string()), "{names:?}");
    assert!(names.contains(&"space-kept".to_string()), "{names:?}");
    c.rt.close_space("space-kept").await.expect("close kept");
    c.rt.close_space("space-b").await.expect("close b");
}

async fn concurrent_renders_share_a_bounded_pool(c: &Ctx) {
    // Background tabs (one shared window): the cheaper mode still reads
    // pages whose content does not wait for an animation frame.
    let spec = TaskSpaceSpec::new("pool").max_tabs(3).background_tabs(true);
    c.rt.open_space(&spec).await.expect("open");
    let renders = (0..6).map(|i| {
        let rt = c.rt.clone();
        let url = format!("{}/late?i={i}", c.base);
        async move {
            rt.render(
                "pool",
                &url,
                &RenderOptions {
                    wait: WaitFor::selector("#article[data-ready]"),
                    timeout: None,
                    include_html: false,
                },
            )
            .await
        }
    });
    for page in futures::future::join_all(renders).await {
        let page = page.expect("render");
        assert!(page.body_text.contains("END-OF-LATE-ARTICLE"));
    }
    let info =
        c.rt.list_spaces()
            .await
            .into_iter()
            .find(|s| s.name == "pool")
            .expect("pool listed");
    assert!(info.open_tabs >= 1 && info.open_tabs <= 3, "{info:?}");
    c.rt.close_space("pool").await.expect("close");
}

/// A page whose content appears in an animation frame: frames only run in a
/// visible page.
const RAF: &str = r#"<!doctype html><html><head><title>raf</title></head><body>
<main><div id="raf">waiting</div></main>
<script>
requestAnimationFrame(() => {
  const d = document.getElementById('raf');
  d.textContent = 'RAF-RAN visibility=' + document.visibilityState;
  d.setAttribute('data-ready', '1');
});
</script></body></html>"#;

/// Every tab of a multi-tab space is a visible page: animation frames and
/// visibility-dependent code run in all of them, not only the newest.
async fn every_tab_of_a_space_is_visible(c: &Ctx) {
    let spec = TaskSpaceSpec::new("visible").max_tabs(3);
    c.rt.open_space(&spec).await.expect("open");
    let renders = (0..3).map(|i| {
        let rt = c.rt.clone();
        let url = format!("{}/raf?i={i}", c.base);
        async move {
            rt.render(
                "visible",
                &url,
                &RenderOptions {
                    wait: WaitFor::selector("#raf[data-ready]"),
                    timeout: Some(std::time::Duration::from_secs(10)),
                    include_html: false,
                },
            )
            .await
        }
    });
    for page in futures::future::join_all(renders).await {
        let page = page.expect("render");
        assert!(
            page.body_text.contains("RAF-RAN visibility=visible"),
            "{}",
            page.body_text
        );
    }
    c.rt.close_space("visible").await.expect("close");
}

/// Result pages are served under `*.example.com`: the engines' own hosts are
/// HSTS-preloaded in Chromium, which would upgrade the local `http://` to https.
async fn serp(c: &Ctx, engine: SerpEngine, host: &str, file: &str) -> modes::SearchOutput {
    modes::search(
        &c.rt,
        &SearchRequest::new("does caffeine affect sleep")
            .engine(engine)
            .space(TaskSpaceSpec::new("serp"))
            .base_url(format!("http://{host}:{}/f/{file}", c.port)),
    )
    .await
    .unwrap_or_else(|e| panic!("search {file}: {e}"))
}

async fn serp_pages_are_extracted(c: &Ctx) {
    if support::shared_dir().is_none() {
        eprintln!("skipped: ../shared not present");
        return;
    }
    let bing = serp(
        c,
        SerpEngine::Bing,
        "bing.example.com",
        "bing-q-does-caffeine-affect-sleep-2026-07.html",
    )
    .await;
    assert_eq!(bing.schema, "ferret.browser.search.v1");
    assert_eq!(bing.engine, "browser_bing");
    assert_eq!(bing.status, SerpStatus::Results);
    assert_eq!(bing.count, 8, "default n");
    assert_eq!(bing.results[0].title, "Caffeine and Sleep Problems");
    assert_eq!(
        bing.results[0].url,
        "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep"
    );
    assert!(
        bing.results[0]
            .snippet
            .contains("Drinking caffeine too close to bedtime")
    );
    assert_eq!(bing.results[0].published_at.as_deref(), Some("2025-07-16"));
    assert_eq!(
        bing.results[1].title,
        "More awake, less rested: The hidden cost of caffeine on sleep quality"
    );
    assert!(
        bing.results
            .iter()
            .all(|r| r.snippet.chars().count() <= 300)
    );
    assert!(bing.results.iter().all(|r| !r.url.contains("bing.com/ck/")));
    assert_eq!(bing.provenance.runtime, "chromium-managed");

    let ddg = serp(
        c,
        SerpEngine::DuckDuckGo,
        "duckduckgo.example.com",
        "duckduckgo-html-q-does-caffeine-affect-sleep-2026-07.html",
    )
    .await;
    assert_eq!(ddg.status, SerpStatus::Results);
    assert_eq!(ddg.results[0].title, "Caffeine and Sleep Problems");
    assert_eq!(
        ddg.results[0].url,
        "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep"
    );
    assert!(
        ddg.results[0]
            .snippet
            .starts_with("Drinking caffeine too close to bedtime")
    );
    assert!(
        ddg.results[1]
            .url
            .starts_with("https://knight-hennessy.stanford.edu/news/more-awake-less-rested")
    );

    let g25 = serp(
        c,
        SerpEngine::Google,
        "google.example.com",
        "google-desktop-ptbr-q-ai-tools-2025-03.html",
    )
    .await;
    assert_eq!(g25.status, SerpStatus::Results);
    assert!(!g25.fallback_selectors, "the 2025 markup is in the table");
    assert_eq!(
        g25.results[0].title,
        "The 50 Best AI Tools in 2025 (Tried & Tested)"
    );
    assert_eq!(g25.results[0].url, "https://www.synthesia.io/post/ai-tools");
    assert!(
        g25.results[0].snippet.contains("Explore 50 top AI tools"),
        "{:?}",
        g25.results[0]
    );
    assert_eq!(g25.results[1].url, "https://aitoolsdirectory.com/");

    let g23 = serp(
        c,
        SerpEngine::Google,
        "google.example.com",
        "google-desktop-q-google-2023-05.html",
    )
    .await;
    assert_eq!(g23.status, SerpStatus::Results);
    assert!(
        g23.results.iter().any(
            |r| r.url == "https://www.google.com/account/about/" && r.title == "Google Account"
        )
    );
    assert!(
        g23.results
            .iter()
            .any(|r| r.snippet.starts_with("Search the world's information"))
    );

    let baidu = serp(
        c,
        SerpEngine::Baidu,
        "baidu.example.com",
        "baidu-wayback-2018-09-18.html",
    )
    .await;
    assert_eq!(baidu.status, SerpStatus::Results);
    assert!(baidu.count >= 5, "{baidu:?}");
    assert!(
        baidu
            .results
            .iter()
            .any(|r| r.title.contains("月子中心推广-骐扬全网营销")),
        "{:?}",
        baidu.results
    );
    assert!(
        baidu
            .results
            .iter()
            .all(|r| r.url.starts_with("http://www.baidu.com/link?url="))
    );
    assert!(
        baidu
            .results
            .iter()
            .any(|r| r.snippet.contains("骐扬网络科技有限公司"))
    );

    let no_bing = serp(
        c,
        SerpEngine::Bing,
        "bing.example.com",
        "bing-nojs-no-results-2021-01.html",
    )
    .await;
    assert_eq!(no_bing.status, SerpStatus::NoResults, "{no_bing:?}");
    assert_eq!(no_bing.count, 0);
    let no_google = serp(
        c,
        SerpEngine::Google,
        "google.example.com",
        "google-desktop-no-results-2023-05.html",
    )
    .await;
    assert_eq!(no_google.status, SerpStatus::NoResults, "{no_google:?}");
    let sorry = serp(
        c,
        SerpEngine::Google,
        "google.example.com",
        "google-sorry-recaptcha-block-page-2020-10.html",
    )
    .await;
    assert_eq!(sorry.status, SerpStatus::Blocked, "{sorry:?}");
    assert!(matches!(
        sorry.into_result(),
        Err(BrowserError::SerpBlocked { .. })
    ));
    let anomaly = serp(
        c,
        SerpEngine::DuckDuckGo,
        "duckduckgo.example.com",
        "duckduckgo-lite-anomaly-challenge-2026-07.html",
    )
    .await;
    assert_eq!(anomaly.status, SerpStatus::Blocked, "{anomaly:?}");

    // A time window drops undated rows and rows outside it.
    let window = TimeWindow::parse(Some("2025-07-01"), Some("2025-12-31"), chrono::Utc::now())
        .expect("window");
    let windowed = modes::search(
        &c.rt,
        &SearchRequest::new("does caffeine affect sleep")
            .space(TaskSpaceSpec::new("serp"))
            .window(window)
            .base_url(format!(
                "http://bing.example.com:{}/f/bing-q-does-caffeine-affect-sleep-2026-07.html",
                c.port
            )),
    )
    .await
    .expect("windowed search");
    assert!(windowed.url.contains("filterui"), "{}", windowed.url);
    assert!(windowed.count >= 1);
    assert!(windowed.results.iter().all(|r| {
        r.published_at
            .as_deref()
            .is_some_and(|d| ("2025-07-01".."2026-01-01").contains(&d))
    }));
    assert!(
        windowed.dropped.undated + windowed.dropped.out_of_window > 0,
        "{:?}",
        windowed.dropped
    );
}

async fn act_searches_then_fetches_the_top_results(c: &Ctx) {
    let search = SearchRequest::new("local")
        .space(TaskSpaceSpec::new("act"))
        .base_url(format!("http://bing.example.com:{}/serp-local", c.port));
    let out = modes::act(&c.rt, &modes::ActRequest::new(search.clone()))
        .await
        .expect("act");
    assert_eq!(out.schema, "ferret.browser.act.v1");
    assert_eq!(out.results.len(), 3);
    assert_eq!(out.details.len(), 1, "one result opened without a window");
    let detail = out.detail.expect("detail");
    assert!(detail.content.contains("END-OF-LATE-ARTICLE"));
    assert!(detail.content.chars().count() <= 30_000);

    // With a time window the top five (here all three) are opened; the one
    // that redirects to loopback fails with its reason.
    let window = TimeWindow::parse(Some("2026-11-01"), Some("2026-11-30"), chrono::Utc::now())
        .expect("window");
    let out = modes::act(&c.rt, &modes::ActRequest::new(search.window(window)))
        .await
        .expect("act with window");
    assert_eq!(out.details.len(), 2, "{:?}", out.failures);
    assert_eq!(out.failures.len(), 1);
    assert_eq!(out.failures[0].code, "blocked_by_guard");
    assert!(
        out.details
            .iter()
            .any(|d| d.content.contains("CHALLENGE-PASSED"))
    );
}

async fn restless_pages_are_still_read(c: &Ctx) {
    let start = std::time::Instant::now();
    let mut req = FetchRequest::new(format!("{}/ticking", c.base));
    req.timeout = Some(Duration::from_secs(3));
    let out = modes::fetch(&c.rt, &req)
        .await
        .expect("read when the budget runs out");
    assert!(!out.wait_satisfied);
    assert!(out.content.contains("TICKING-BODY"));
    assert!(
        start.elapsed() < Duration::from_secs(6),
        "{:?}",
        start.elapsed()
    );

    let out = modes::fetch(&c.rt, &FetchRequest::new(format!("{}/alerting", c.base)))
        .await
        .expect("dialogs do not block");
    assert!(out.content.contains("AFTER-DIALOGS"), "{}", out.content);
}

async fn status_reports_the_runtime(c: &Ctx) {
    let s = modes::status(&c.rt, &c.rt.config().home).await;
    assert_eq!(s.schema, "ferret.browser.status.v1");
    let rt = s.runtime.clone().expect("runtime");
    assert!(rt.connected);
    assert_eq!(rt.runtime.map(|k| k.as_str()), Some("chromium-managed"));
    assert_eq!(rt.partition, Partition::Public);
    assert!(rt.browser_version.unwrap_or_default().contains("Chrome"));
    assert!(!s.pro_mode.enabled);
    assert_eq!(c.rt.launches(), 1, "one browser for the whole binary");
    let json = serde_json::to_value(&s).expect("serialise");
    assert_eq!(json["runtime"]["runtime"], "chromium-managed");
}

fn main() {
    if support::skip_requested() {
        return;
    }
    let tokio = support::tokio_runtime();
    let code = tokio.block_on(async {
        let secret_hits = Arc::new(AtomicUsize::new(0));
        let port_holder = Arc::new(AtomicUsize::new(0));
        let addr = support::serve(router(secret_hits.clone(), port_holder.clone())).await;
        port_holder.store(usize::from(addr.port()), Ordering::SeqCst);
        let rt = ChromiumRuntime::new(support::test_config()).expect("runtime");
        let c = Ctx {
            rt,
            base: format!("http://example.com:{}", addr.port()),
            port: addr.port(),
            secret_hits,
        };
        let mut h = support::Harness::new();
        h.run("status_reports_the_runtime", async {
            // Launch first so the status sees a connected browser.
            c.rt.open_space(&TaskSpaceSpec::default())
                .await
                .expect("launch");
            status_reports_the_runtime(&c).await
        })
        .await;
        h.run(
            "js_inserted_text_is_fetched_in_full",
            js_inserted_text_is_fetched_in_full(&c),
        )
        .await;
        h.run(
            "infinite_scroll_collected_to_the_end",
            infinite_scroll_collected_to_the_end(&c),
        )
        .await;
        h.run(
            "load_more_button_collected_to_the_end",
            load_more_button_collected_to_the_end(&c),
        )
        .await;
        h.run(
            "javascript_challenge_is_passed",
            javascript_challenge_is_passed(&c),
        )
        .await;
        h.run(
            "api_mode_uses_the_page_cookies",
            api_mode_uses_the_page_cookies(&c),
        )
        .await;
        h.run(
            "private_redirects_and_subrequests_are_blocked",
            private_redirects_and_subrequests_are_blocked(&c),
        )
        .await;
        h.run(
            "interaction_with_stable_refs",
            interaction_with_stable_refs(&c),
        )
        .await;
        h.run(
            "task_spaces_are_named_isolated_and_closed",
            task_spaces_are_named_isolated_and_closed(&c),
        )
        .await;
        h.run(
            "concurrent_renders_share_a_bounded_pool",
            concurrent_renders_share_a_bounded_pool(&c),
        )
        .await;
        h.run(
            "every_tab_of_a_space_is_visible",
            every_tab_of_a_space_is_visible(&c),
        )
        .await;
        h.run("serp_pages_are_extracted", serp_pages_are_extracted(&c))
            .await;
        h.run(
            "restless_pages_are_still_read",
            restless_pages_are_still_read(&c),
        )
        .await;
        h.run(
            "act_searches_then_fetches_the_top_results",
            act_searches_then_fetches_the_top_results(&c),
        )
        .await;

        let pid = c.rt.browser_pid();
        let profiles = c.rt.profile_dirs();
        c.rt.shutdown().await.expect("shutdown");
        h.run("no_browser_left_after_shutdown", async {
            let pid = pid.expect("a browser was launched");
            support::assert_no_browser_left(&[pid], &profiles).await;
            let err =
                c.rt.render(
                    "ferret",
                    &format!("{}/late", c.base),
                    &RenderOptions::default(),
                )
                .await
                .expect_err("shut down");
            assert!(matches!(err, BrowserError::ShutDown));
            let _ = Duration::ZERO;
        })
        .await;
        h.finish()
    });
    drop(tokio);
    std::process::exit(code);
}
