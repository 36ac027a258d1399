//! End to end in one real headless Chromium for the whole binary: the real
//! site captures served over HTTPS (self-signed certificate, ring) on
//! loopback under their real hostnames (`MAP * 127.0.0.1`), driven through
//! the three tools — navigate_site, read_site_skills, run_site_browser_tool
//! — with the built-in packages and a test package installed through the
//! SITE_SKILLS_DIR override root. Ends by shutting the browser down and
//! checking its processes are gone.

mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Request};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect};
use axum::routing::get;
use ferret_browser::{BrowserRuntime, ChromiumConfig, ChromiumRuntime};
use ferret_core::{Provenance, Runtime};
use ferret_site_skills::commands;
use ferret_site_skills::{
    CollectStop, CollectorConfig, OverrideRoots, Registry, SiteTools, SkillError,
};
use serde_json::{Value, json};
use support::{Harness, write_package};

const FEED_PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Feed</title>
<style>li { height: 60px }</style></head><body><ul id="list"></ul>
<script>
const TOTAL = 35, WINDOW = 15;
let next = 0, loading = false;
window.__feedDone = false;
const list = document.getElementById('list');
function more(k) {
  for (let i = 0; i < k && next < TOTAL; i++) {
    next++;
    const li = document.createElement('li');
    li.dataset.n = next;
    li.dataset.author = 'user' + (next % 7);
    li.dataset.time = '2024-01-01T00:00:' + String(next).padStart(2, '0') + 'Z';
    li.textContent = 'comment ' + next;
    list.appendChild(li);
  }
  // Virtualised: only the last WINDOW rows stay in the DOM.
  while (list.children.length > WINDOW) list.firstElementChild.remove();
  if (next >= TOTAL) window.__feedDone = true;
}
more(10);
window.addEventListener('feed-more', () => {
  if (loading) return;
  loading = true;
  setTimeout(() => { more(10); loading = false; }, 200);
});
</script></body></html>"#;

const STATIC_PAGE: &str = r#"<!doctype html><html><head><title>Static</title></head><body>
<ul id="list"><li data-n="1" data-author="a">one</li><li data-n="2" data-author="b">two</li>
<li data-n="3" data-author="c">three</li></ul></body></html>"#;

const FEED_JS: &str = r#"// Test bundle for the feed.example pages.
window.FeedTools = {
  items(args) {
    window.__round = (window.__round || 0) + 1;
    const round = window.__round;
    const out = [];
    for (const li of document.querySelectorAll('#list li')) {
      const n = +li.dataset.n;
      const item = {
        author: li.dataset.author,
        text: li.textContent,
        time: li.dataset.time || null,
        views: [round],
        likes: round > 1 ? n : null,
      };
      // Every tenth row has no id: it is keyed by author + text + time.
      if (n % 10 !== 0) item.comment_id = 'c' + n;
      out.push(item);
    }
    return out.slice(0, args.limit);
  },
  scroll() {
    window.scrollTo(0, document.body.scrollHeight);
    window.dispatchEvent(new Event('feed-more'));
    return { at_end: window.__feedDone === true };
  },
  wrongType() { return 'a string, not an object'; },
  boom() { throw new Error('the list is not loaded yet'); },
  hidden() { window.__hiddenRan = true; return {}; },
};
"#;

const ECHO_JS: &str = r#"// One exported async function.
async function echo(args) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  return { args: args, host: location.hostname };
};
"#;

fn feed_manifest() -> Value {
    let obj = |d: &str| json!({"type": "object", "description": d});
    json!({
        "id": "feedtest",
        "name": "Feed test",
        "domains": ["feed.example", "*.feed.example"],
        "notes": ["notes/feed.md"],
        "browserTools": {
            "items": {
                "description": "Visible feed rows.",
                "path": "feed.js",
                "binding": "window.FeedTools",
                "callable": "items",
                "args": {"limit": {"type": "integer", "required": false, "description": "Most rows."}},
                "returns": {"type": "array", "description": "Rows."},
                "pagination": {"scrollTool": "scroll"}
            },
            "scroll": {
                "description": "Scroll one step.",
                "path": "feed.js",
                "binding": "window.FeedTools",
                "callable": "scroll",
                "action": true,
                "returns": obj("{at_end}")
            },
            "wrongType": {
                "description": "Declares an object, returns a string.",
                "path": "feed.js",
                "binding": "window.FeedTools",
                "callable": "wrongType",
                "returns": obj("Never an object.")
            },
            "boom": {
                "description": "Throws.",
                "path": "feed.js",
                "binding": "window.FeedTools",
                "callable": "boom",
                "returns": obj("Nothing.")
            },
            "missingFn": {
                "description": "Names a function the bundle lacks.",
                "path": "feed.js",
                "binding": "window.FeedTools",
                "callable": "notThere",
                "returns": obj("Nothing.")
            },
            "echo": {
                "description": "Returns its arguments.",
                "path": "echo.js",
                "args": {
                    "name": {"type": "string", "required": true, "description": "A name."},
                    "count": {"type": "integer", "required": false, "description": "A count."},
                    "ratio": {"type": "number", "required": false, "description": "A ratio."},
                    "flag": {"type": "boolean", "required": false, "description": "A flag."},
                    "tags": {"type": "array", "required": false, "description": "Tags."},
                    "opts": {"type": "object", "required": false, "description": "Options."}
                },
                "returns": obj("{args, host}")
            },
            "wsprobe": {
                "description": "Tries to open a WebSocket to loopback.",
                "path": "wsprobe.js",
                "args": {
                    "port": {"type": "integer", "required": true, "description": "The port."}
                },
                "returns": obj("{opened}")
            }
        }
    })
}

const WSPROBE_JS: &str = r#"// Tries to reach the machine the browser runs on.
async function wsprobe(args) {
  const targets = ['ws://127.0.0.1:' + args.port + '/', 'ws://localhost:' + args.port + '/'];
  const tries = targets.map((t) => new Promise((resolve) => {
    let ws;
    try { ws = new WebSocket(t); } catch (e) { resolve(false); return; }
    ws.onopen = () => resolve(true);
    ws.onerror = () => resolve(false);
    setTimeout(() => resolve(false), 3000);
  }));
  const opened = await Promise.all(tries);
  return { opened: opened.some(Boolean) };
};
"#;

const FEED_NOTE: &str = "Rows load 10 at a time; only the last 15 stay in the DOM.\n";

struct Pages {
    github: String,
    hackernews: String,
    wikipedia: String,
    stackexchange: String,
    stackoverflow: String,
    reddit_json: String,
}

fn read_pages(shared: &std::path::Path) -> Pages {
    let read = |name: &str| {
        std::fs::read_to_string(shared.join("fixtures/sites").join(name))
            .unwrap_or_else(|e| panic!("read fixture {name}: {e}"))
    };
    Pages {
        github: read("github-issue-page-kepano-defuddle-56.html"),
        hackernews: read("hackernews-item-39232976-pkl-566-comments-2024-02.html"),
        wikipedia: read("wikipedia-article-rust-programming-language-2026-04.html"),
        stackexchange: read("stackexchange-rpg-question-69973-with-answers-2026-04.html"),
        stackoverflow: read("stackoverflow-question-79924222-unanswered-2026-04.html"),
        reddit_json: read("reddit-thread-json-announcements-fo7p5b-2020-04.json"),
    }
}

fn router(pages: Pages, tls_port: Arc<AtomicU16>, http_port: Arc<AtomicU16>) -> Router {
    let pages = Arc::new(pages);
    let html = |f: fn(&Pages) -> &String| {
        let pages = pages.clone();
        get(move || {
            let pages = pages.clone();
            async move { Html(f(&pages).clone()) }
        })
    };
    let reddit = {
        let pages = pages.clone();
        get(move |Path(rest): Path<String>| {
            let pages = pages.clone();
            async move {
                if rest.ends_with(".json") {
                    (
                        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
                        pages.reddit_json.clone(),
                    )
                        .into_response()
                } else {
                    Html(
                        "<!doctype html><meta charset=utf-8><title>Introducing Reddit Polls : \
                         announcements</title><shreddit-app></shreddit-app>",
                    )
                    .into_response()
                }
            }
        })
    };
    Router::new()
        .route("/kepano/defuddle/issues/56", html(|p| &p.github))
        .route("/item", html(|p| &p.hackernews))
        .route("/wiki/{*title}", html(|p| &p.wikipedia))
        .route("/questions/69973/{*slug}", html(|p| &p.stackexchange))
        .route("/questions/79924222/{*slug}", html(|p| &p.stackoverflow))
        .route("/r/announcements/comments/fo7p5b/{*rest}", reddit)
        .route(
            "/redirect-away",
            get(move || {
                let port = tls_port.load(Ordering::SeqCst);
                async move { Redirect::to(&format!("https://elsewhere.example:{port}/landing")) }
            }),
        )
        .route(
            "/downgrade",
            get(move || {
                let port = http_port.load(Ordering::SeqCst);
                async move { Redirect::to(&format!("http://feed.example:{port}/plain")) }
            }),
        )
        .route(
            "/landing",
            get(|| async { Html("<!doctype html><title>Landing</title><p>elsewhere</p>") }),
        )
        .route(
            "/plain",
            get(|| async { Html("<!doctype html><title>Plain</title><p>plain page</p>") }),
        )
        .route("/feed", get(|| async { Html(FEED_PAGE) }))
        .route("/static", get(|| async { Html(STATIC_PAGE) }))
        .fallback(|req: Request| async move {
            (StatusCode::NOT_FOUND, format!("no page at {}", req.uri())).into_response()
        })
}

#[derive(Clone)]
struct Ctx {
    tools: SiteTools,
    port: u16,
}

impl Ctx {
    fn url(&self, host: &str, path: &str) -> String {
        format!("https://{host}:{}{path}", self.port)
    }
}

fn code(result: Result<impl std::fmt::Debug, SkillError>) -> (String, String) {
    let err = result.expect_err("expected a refusal");
    (err.code().to_string(), err.to_string())
}

fn main() {
    if support::skip_requested() {
        return;
    }
    let Some(shared) = support::shared_dir() else {
        return;
    };
    let pages = read_pages(&shared);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let code = rt.block_on(async move {
        let tls_port = Arc::new(AtomicU16::new(0));
        let http_port = Arc::new(AtomicU16::new(0));
        let app = router(pages, tls_port.clone(), http_port.clone());
        let names = [
            "github.com",
            "news.ycombinator.com",
            "en.wikipedia.org",
            "rpg.stackexchange.com",
            "stackoverflow.com",
            "www.reddit.com",
            "feed.example",
            "elsewhere.example",
        ];
        let addr = support::serve_tls(app.clone(), &names).await;
        tls_port.store(addr.port(), Ordering::SeqCst);
        let plain = support::serve_http(app).await;
        http_port.store(plain.port(), Ordering::SeqCst);

        let skills_dir = tempfile::tempdir().expect("a temp dir");
        write_package(
            skills_dir.path(),
            "feedtest",
            &feed_manifest(),
            &[
                ("feed.js", FEED_JS.as_bytes()),
                ("echo.js", ECHO_JS.as_bytes()),
                ("wsprobe.js", WSPROBE_JS.as_bytes()),
                ("notes/feed.md", FEED_NOTE.as_bytes()),
            ],
        );
        let registry = Registry::load(&OverrideRoots::none().site_skills_dir(skills_dir.path()));
        assert!(registry.issues().is_empty(), "{:?}", registry.issues());

        let mut config = ChromiumConfig::managed(support::chromium())
            .host_resolver_rules("MAP * 127.0.0.1")
            .call_timeout(Duration::from_secs(15))
            .page_load_timeout(Duration::from_secs(30))
            .launch_timeout(Duration::from_secs(30));
        config.home =
            std::env::temp_dir().join(format!("ferret-skills-test-{}", std::process::id()));
        let chromium = ChromiumRuntime::new(config).expect("a runtime");
        let runtime: Arc<dyn BrowserRuntime> = Arc::new(chromium.clone());
        let ctx = Ctx {
            tools: SiteTools::new(Arc::new(registry), runtime.clone()),
            port: addr.port(),
        };

        let mut h = Harness::new();
        h.run(
            "refusals_before_any_navigation",
            refusals_before_navigation(ctx.clone()),
        )
        .await;
        h.run(
            "hackernews_item_with_566_nested_comments",
            hackernews(ctx.clone()),
        )
        .await;
        h.run("github_issue_thread", github(ctx.clone())).await;
        h.run("wikipedia_article_and_section", wikipedia(ctx.clone()))
            .await;
        h.run("stackexchange_question_pages", stackexchange(ctx.clone()))
            .await;
        h.run(
            "reddit_thread_through_its_json_endpoint",
            reddit(ctx.clone()),
        )
        .await;
        h.run(
            "read_site_skills_follows_the_real_hostname",
            rediscovery(ctx.clone()),
        )
        .await;
        h.run(
            "a_redirect_off_the_covered_domains_is_caught",
            redirect_off(ctx.clone()),
        )
        .await;
        h.run(
            "a_redirect_to_http_is_caught",
            redirect_to_http(ctx.clone()),
        )
        .await;
        h.run("only_declared_tools_run", undeclared(ctx.clone()))
            .await;
        h.run(
            "results_and_script_failures",
            results_and_failures(ctx.clone()),
        )
        .await;
        h.run(
            "arguments_are_checked_before_the_script_runs",
            arguments(ctx.clone()),
        )
        .await;
        h.run(
            "pagination_collects_a_virtualised_list",
            pagination(ctx.clone()),
        )
        .await;
        h.run(
            "pagination_stops_at_limit_and_on_stalls",
            pagination_limits(ctx.clone()),
        )
        .await;
        h.run(
            "agent_dispatch_and_cli_envelopes",
            agent_and_cli(ctx.clone()),
        )
        .await;
        h.run(
            "a_tool_script_cannot_open_a_websocket_to_loopback",
            tool_websocket_to_loopback(ctx.clone()),
        )
        .await;
        h.run(
            "a_tool_run_in_the_users_browser_is_login_data",
            users_browser(ctx.clone()),
        )
        .await;

        let pid = chromium.browser_pid();
        runtime.shutdown().await.expect("shutdown");
        if let Some(pid) = pid {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while !ferret_browser::procs::live_in_group(pid).is_empty() {
                assert!(
                    std::time::Instant::now() < deadline,
                    "browser processes left behind"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        h.finish()
    });
    std::process::exit(code);
}

/// A page tool's script opens WebSockets to loopback (by address and by
/// `localhost`): the browser's egress proxy refuses them, and a canary
/// listening there never sees a connection.
async fn tool_websocket_to_loopback(ctx: Ctx) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a canary");
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    let t = &ctx.tools;
    t.navigate_site(&ctx.url("feed.example", "/static"))
        .await
        .unwrap();
    let r = t
        .run_site_browser_tool("feedtest", "wsprobe", Some(&json!({"port": port})))
        .await
        .unwrap();
    assert_eq!(r, json!({"opened": false}));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(accepted.load(Ordering::SeqCst), 0, "the canary was reached");
}

/// A Chromium of the test's own, started as a user would (its own profile,
/// a DevTools port), and attached to with pro mode on: a site tool run
/// there reads login data, labelled `chromium-attached`.
async fn users_browser(ctx: Ctx) {
    let profile = tempfile::tempdir().expect("a profile");
    let mut child = tokio::process::Command::new(support::chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--ignore-certificate-errors",
            "--remote-debugging-port=0",
            "--host-resolver-rules=MAP * 127.0.0.1",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the user's chromium");
    let port_file = profile.path().join("DevToolsActivePort");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let endpoint = loop {
        if let Some(port) = std::fs::read_to_string(&port_file)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string))
            .filter(|p| !p.is_empty())
        {
            break format!("http://127.0.0.1:{port}");
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no DevToolsActivePort"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let home = tempfile::tempdir().expect("a home");
    ferret_browser::pro_mode::enable(home.path()).expect("pro mode on");
    let attached = ChromiumRuntime::new(ChromiumConfig::attached(endpoint).home(home.path()))
        .expect("an attached runtime");
    let tools = SiteTools::new(ctx.tools.registry().clone(), Arc::new(attached.clone()));
    let run = commands::run(
        &tools,
        "feedtest",
        "echo",
        Some(&json!({"name": "n"})),
        Some(&ctx.url("feed.example", "/static")),
    )
    .await
    .expect("the tool runs in the user's browser");
    assert_eq!(run.result["host"], "feed.example");
    assert_eq!(run.provenance, Provenance::login(Runtime::ChromiumAttached));
    attached.shutdown().await.expect("detach");
    let _ = child.kill().await;
}

async fn refusals_before_navigation(ctx: Ctx) {
    let t = &ctx.tools;
    assert_eq!(code(t.read_site_skills().await).0, "no_page");
    assert_eq!(
        code(t.run_site_browser_tool("hackernews", "item", None).await).0,
        "no_page"
    );
    let (c, m) = code(
        t.navigate_site(&format!(
            "http://github.com:{}/kepano/defuddle/issues/56",
            ctx.port
        ))
        .await,
    );
    assert_eq!(c, "not_https", "{m}");
    let (c, m) = code(
        t.navigate_site(&format!("https://user:secret@github.com:{}/", ctx.port))
            .await,
    );
    assert_eq!(c, "credentials_in_url");
    assert!(!m.contains("secret"), "credentials are not echoed: {m}");
    let (c, m) = code(t.navigate_site(&ctx.url("example.org", "/")).await);
    assert_eq!(c, "domain_not_covered", "{m}");
    assert!(m.contains("example.org"));
    assert_eq!(
        code(t.navigate_site("github.com/kepano").await).0,
        "bad_url"
    );
    assert_eq!(
        code(
            t.navigate_site(&format!("https://127.0.0.1:{}/", ctx.port))
                .await
        )
        .0,
        "bad_url"
    );
    // Nothing was opened by any of these.
    assert_eq!(code(t.read_site_skills().await).0, "no_page");
    let (c, m) = code(t.run_site_browser_tool("nope", "x", None).await);
    assert_eq!(c, "unknown_site");
    assert!(m.contains("feedtest") && m.contains("wikipedia"), "{m}");
}

async fn hackernews(ctx: Ctx) {
    let t = &ctx.tools;
    let page = t
        .navigate_site(&ctx.url("news.ycombinator.com", "/item?id=39232976"))
        .await
        .expect("navigate_site");
    assert!(page.url.contains("news.ycombinator.com"), "{}", page.url);
    assert_eq!(page.skills.len(), 1);
    assert_eq!(page.skills[0].id, "hackernews");
    assert!(page.skills[0].knowledge.is_empty());
    assert!(page.skills[0].browser_tools.contains_key("item"));

    let r = t
        .run_site_browser_tool("hackernews", "item", None)
        .await
        .expect("item");
    assert_eq!(r["kind"], "story");
    assert_eq!(r["item"]["id"], "39232976");
    assert_eq!(
        r["item"]["title"],
        "Pkl, a Programming Language for Configuration"
    );
    assert_eq!(
        r["item"]["url"],
        "https://pkl-lang.org/blog/introducing-pkl.html"
    );
    assert_eq!(r["item"]["author"], "bioballer");
    assert_eq!(r["item"]["score"], 930);
    assert_eq!(r["item"]["reported_comments"], 564);
    assert_eq!(r["comments_on_page"], 566);
    let comments = r["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 566);
    let by_id: HashMap<&str, &Value> = comments
        .iter()
        .map(|c| (c["comment_id"].as_str().unwrap(), c))
        .collect();
    assert_eq!(by_id.len(), 566, "comment ids are distinct");

    let first = &comments[0];
    assert_eq!(first["comment_id"], "39242012");
    assert_eq!(first["author"], "dang");
    assert_eq!(first["depth"], 0);
    assert_eq!(first["parent_id"], Value::Null);
    assert_eq!(first["time"], "2024-02-03T16:43:55Z");
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .starts_with("See also https://pkl-lang.org/index.html\n\n(via")
    );
    let reply = by_id["39242400"];
    assert_eq!(
        (
            reply["author"].as_str(),
            reply["depth"].as_u64(),
            reply["parent_id"].as_str()
        ),
        (Some("mimischi"), Some(1), Some("39242012"))
    );
    let deeper = by_id["39243319"];
    assert_eq!(
        (
            deeper["author"].as_str(),
            deeper["depth"].as_u64(),
            deeper["parent_id"].as_str()
        ),
        (Some("dang"), Some(2), Some("39242400"))
    );
    assert_eq!(by_id["39243609"]["parent_id"], "39243319");
    assert_eq!(by_id["39243609"]["depth"], 3);
    assert_eq!(by_id["39242400"]["replies"], 1);
    let flagged = by_id["39239634"];
    assert_eq!(
        (flagged["status"].as_str(), flagged["depth"].as_u64()),
        (Some("flagged"), Some(0))
    );
    assert!(
        by_id["39250540"]["text"]
            .as_str()
            .unwrap()
            .contains("\n  16K /gnu/store/"),
        "code keeps its lines"
    );

    // The tree is consistent: every parent precedes its child one level up.
    let mut seen: HashMap<&str, u64> = HashMap::new();
    let mut max_depth = 0;
    for c in comments {
        let depth = c["depth"].as_u64().unwrap();
        max_depth = max_depth.max(depth);
        match c["parent_id"].as_str() {
            None => assert_eq!(depth, 0),
            Some(p) => assert_eq!(seen.get(p).copied(), Some(depth - 1), "{c}"),
        }
        seen.insert(c["comment_id"].as_str().unwrap(), depth);
    }
    assert_eq!(max_depth, 8);
    let roots = comments.iter().filter(|c| c["depth"] == 0).count();
    let replies: u64 = comments
        .iter()
        .map(|c| c["replies"].as_u64().unwrap())
        .sum();
    assert_eq!(replies as usize + roots, 566);

    let some = t
        .run_site_browser_tool("hackernews", "item", Some(&json!({"max_comments": 3})))
        .await
        .unwrap();
    assert_eq!(some["comments"].as_array().unwrap().len(), 3);
    assert_eq!(some["comments_on_page"], 566);
}

async fn github(ctx: Ctx) {
    let t = &ctx.tools;
    let page = t
        .navigate_site(&ctx.url("github.com", "/kepano/defuddle/issues/56"))
        .await
        .expect("navigate_site");
    assert_eq!(page.skills[0].id, "github");
    let r = t
        .run_site_browser_tool("github", "thread", None)
        .await
        .expect("thread");
    assert_eq!(r["title"], "Defuddle on Cloudflare Workers");
    assert_eq!(r["kind"], "issue");
    assert_eq!(r["repo"], "kepano/defuddle");
    assert_eq!(r["number"], 56);
    assert_eq!(r["state"], "Open");
    assert_eq!(r["author"], "jmorrell");
    assert_eq!(r["created_at"], "2025-05-25T20:35:48.000Z");
    assert!(r["body"].as_str().unwrap().starts_with(
        "Example repo here: https://github.com/jmorrell/defuddle-cloudflare-example\n\nI was looking forward"
    ));
    assert!(
        r["body"]
            .as_str()
            .unwrap()
            .contains("const sheets = Array.from(doc.styleSheets ?? [])")
    );
    assert_eq!(r["labels"], json!([]));
    let comments = r["comments"].as_array().unwrap();
    let authors: Vec<&str> = comments
        .iter()
        .map(|c| c["author"].as_str().unwrap())
        .collect();
    assert_eq!(
        authors,
        [
            "jmorrell", "masylum", "nbbaier", "nbbaier", "masylum", "nbbaier"
        ]
    );
    assert_eq!(r["comments_count"], 6);
    assert_eq!(comments[0]["comment_id"], "2908119605");
    assert_eq!(comments[0]["time"], "2025-05-25T22:14:08.000Z");
    assert_eq!(comments[0]["author_association"], "Contributor");
    assert_eq!(comments[0]["edited"], true);
    assert_eq!(comments[4]["text"], "wrong link to fork");
    assert_eq!(r["participants"], json!(["masylum", "jmorrell", "nbbaier"]));
    let refs = r["references"].as_array().unwrap();
    let commit = refs
        .iter()
        .find(|x| x["type"] == "commit")
        .expect("the commit reference");
    assert_eq!(commit["sha"], "cb4291db0f24cac0d0674d9e35fc0089338da2da");
    assert_eq!(commit["repo"], "kepano/defuddle");
    assert_eq!(commit["found_in"], "body");
    let file = refs
        .iter()
        .find(|x| x["type"] == "file")
        .expect("the permalink");
    assert_eq!(file["path"], "src/defuddle.ts");
    assert!(refs.iter().any(|x| x["type"] == "user"
        && x["login"] == "kepano"
        && x["found_in"] == "comment:2930021934"));
    assert!(
        refs.iter()
            .any(|x| x["type"] == "url" && x["url"] == "https://jsr.io/@paoramen/cheer-reader")
    );
}

async fn wikipedia(ctx: Ctx) {
    let t = &ctx.tools;
    let page = t
        .navigate_site(&ctx.url("en.wikipedia.org", "/wiki/Rust_(programming_language)"))
        .await
        .expect("navigate_site");
    assert_eq!(page.skills[0].id, "wikipedia");
    let r = t
        .run_site_browser_tool("wikipedia", "article", None)
        .await
        .expect("article");
    assert_eq!(r["title"], "Rust (programming language)");
    assert_eq!(
        r["url"],
        "https://en.wikipedia.org/wiki/Rust_(programming_language)"
    );
    assert_eq!(r["language"], "en");
    assert_eq!(r["revision_id"], 1346393842);
    assert!(r["lead"].as_str().unwrap().starts_with(
        "Rust is a general-purpose programming language. It is noted for its emphasis on performance"
    ));
    assert_eq!(r["lead"].as_str().unwrap().split("\n\n").count(), 4);
    let infobox: HashMap<&str, &str> = r["infobox"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row["key"].as_str().unwrap(), row["value"].as_str().unwrap()))
        .collect();
    assert_eq!(r["infobox_title"], "Rust");
    assert_eq!(infobox["Developer"], "The Rust Team");
    assert_eq!(infobox["First appeared"], "January 19, 2012 (2012-01-19)");
    assert_eq!(
        infobox["Paradigms"],
        "Concurrent, functional, generic, imperative, structured"
    );
    assert_eq!(infobox["Filename extensions"], ".rs, .rlib");
    assert_eq!(infobox["License"], "MIT, Apache 2.0");
    assert_eq!(infobox.len(), 11);
    assert_eq!(r["references_count"], 205);
    assert_eq!(r["notes_count"], 7);
    let sections = r["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 54);
    assert_eq!(
        sections[0],
        json!({"level": 2, "id": "History", "title": "History"})
    );
    assert!(
        sections
            .iter()
            .any(|s| s["title"] == "if expressions" && s["level"] == 4)
    );
    assert!(
        r["categories"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "Systems programming languages")
    );

    let cargo = t
        .run_site_browser_tool("wikipedia", "section", Some(&json!({"title": "cargo"})))
        .await
        .expect("section");
    assert_eq!(cargo["title"], "Cargo");
    assert_eq!(cargo["level"], 3);
    assert!(
        cargo["text"]
            .as_str()
            .unwrap()
            .starts_with("Cargo is Rust's build system and package manager.")
    );
    let (c, m) = code(
        t.run_site_browser_tool(
            "wikipedia",
            "section",
            Some(&json!({"title": "No such part"})),
        )
        .await,
    );
    assert_eq!(c, "tool_failed");
    assert!(
        m.contains("no section titled \"No such part\"") && m.contains("History"),
        "{m}"
    );
    assert!(
        !m.contains("    at "),
        "the stack is not part of the reason: {m}"
    );
}

async fn stackexchange(ctx: Ctx) {
    let t = &ctx.tools;
    let page = t
        .navigate_site(&ctx.url(
            "rpg.stackexchange.com",
            "/questions/69973/is-there-an-overview-of-rules-differences-between-various-editions-of-tunnels-an",
        ))
        .await
        .expect("navigate_site");
    assert_eq!(page.skills[0].id, "stackexchange");
    let r = t
        .run_site_browser_tool("stackexchange", "question", None)
        .await
        .unwrap();
    assert_eq!(r["question_id"], "69973");
    assert_eq!(
        r["title"],
        "Is there an overview of rules differences between various editions of Tunnels and Trolls?"
    );
    assert_eq!(
        (r["score"].as_i64(), r["author"].as_str()),
        (Some(19), Some("Sean McMillan"))
    );
    assert_eq!(r["time"], "2015-10-16T13:56:20Z");
    assert_eq!(r["views"], 2590);
    assert_eq!(
        r["tags"],
        json!(["edition-comparison", "tunnels-and-trolls"])
    );
    assert_eq!(r["answer_count"], 5);
    let answers = r["answers"].as_array().unwrap();
    let summary: Vec<(&str, i64, &str)> = answers
        .iter()
        .map(|a| {
            (
                a["answer_id"].as_str().unwrap(),
                a["score"].as_i64().unwrap(),
                a["author"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("70099", 13, "aramis"),
            ("148747", 5, "Jeff Thompson"),
            ("176571", 4, "MWDB"),
            ("70093", 4, "Corruption44"),
            ("218274", 2, "Greenonline")
        ]
    );
    assert!(answers.iter().all(|a| a["accepted"] == false));
    assert_eq!(answers[0]["time"], "2015-10-21T01:03:15Z");
    assert!(
        answers[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("I can only speak to editions 4 onward...\n\n4th Ed:")
    );
    assert_eq!(answers[0]["comments"][0]["author"], "KorvinStarmast");

    t.navigate_site(&ctx.url(
        "stackoverflow.com",
        "/questions/79924222/bridging-python-and-c-fatal-python-error-py-getconfig-the-function-must-be",
    ))
    .await
    .expect("navigate_site");
    let r = t
        .run_site_browser_tool(
            "stackexchange",
            "question",
            Some(&json!({"include_comments": false})),
        )
        .await
        .unwrap();
    assert_eq!(r["question_id"], "79924222");
    assert_eq!(r["answer_count"], 0);
    assert_eq!(r["answers"], json!([]));
    assert_eq!(r["tags"], json!(["c++", "python-3.x", "pybind11", "gil"]));
    assert_eq!(r["author"], "Lin Lin");
    assert!(r.get("comments").is_none());
}

async fn reddit(ctx: Ctx) {
    let t = &ctx.tools;
    t.navigate_site(&ctx.url(
        "www.reddit.com",
        "/r/announcements/comments/fo7p5b/introducing_reddit_polls_an_allnew_post_type/",
    ))
    .await
    .expect("navigate_site");
    let r = t
        .run_site_browser_tool("reddit", "thread", None)
        .await
        .expect("thread");
    assert_eq!(r["post_id"], "fo7p5b");
    assert_eq!(r["title"], "Introducing Reddit Polls, An All-New Post Type");
    assert_eq!(r["subreddit"], "announcements");
    assert_eq!(r["author"], "LanterneRougeOG");
    assert_eq!(r["reported_comments"], 3982);
    assert_eq!(r["comments_loaded"], 492);
    let comments = r["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 492);
    assert_eq!(comments[0]["comment_id"], "fldvw9o");
    assert_eq!(comments[0]["author"], "gold_tie");
    assert_eq!(comments[0]["time"], "2020-03-24T17:58:54.000Z");
    assert_eq!(
        (
            comments[1]["parent_id"].as_str(),
            comments[1]["depth"].as_u64()
        ),
        (Some("t1_fldvw9o"), Some(1))
    );
    let max_depth = comments
        .iter()
        .map(|c| c["depth"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(max_depth, 9);
    assert!(r["more_count"].as_u64().unwrap() > 2000);

    // Opening the JSON endpoint itself works too.
    t.navigate_site(&ctx.url(
        "www.reddit.com",
        "/r/announcements/comments/fo7p5b/introducing_reddit_polls_an_allnew_post_type/.json",
    ))
    .await
    .expect("navigate_site");
    let r = t
        .run_site_browser_tool("reddit", "thread", Some(&json!({"max_comments": 2})))
        .await
        .unwrap();
    assert_eq!(r["comments_loaded"], 492);
    assert_eq!(r["comments"].as_array().unwrap().len(), 2);
}

/// read_site_skills once the tab's URL contains `needle` (the document is
/// being replaced meanwhile, so reads may fail for a moment).
async fn wait_for_page(t: &SiteTools, needle: &str) -> ferret_site_skills::SiteContext {
    for _ in 0..100 {
        if let Ok(now) = t.read_site_skills().await
            && now.url.contains(needle)
        {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if let Ok(settled) = t.read_site_skills().await {
                return settled;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the tab never reached {needle}");
}

async fn rediscovery(ctx: Ctx) {
    let t = &ctx.tools;
    t.navigate_site(&ctx.url("news.ycombinator.com", "/item?id=39232976"))
        .await
        .unwrap();
    // The page moves on by itself (a script, a click): the tools follow the
    // tab's real URL, not the last navigate_site.
    let target = ctx.url("en.wikipedia.org", "/wiki/Rust_(programming_language)");
    t.runtime()
        .evaluate(
            t.space_name(),
            &format!("location.href = {}; true", json!(target)),
        )
        .await
        .unwrap();
    let now = wait_for_page(t, "en.wikipedia.org").await;
    let ids: Vec<&str> = now.skills.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["wikipedia"], "{}", now.url);
    let (c, m) = code(t.run_site_browser_tool("hackernews", "item", None).await);
    assert_eq!(c, "domain_mismatch", "{m}");
    assert!(m.contains("news.ycombinator.com"), "{m}");

    // A page no skill covers reads as an empty skill list.
    t.runtime()
        .evaluate(
            t.space_name(),
            &format!(
                "location.href = {}; true",
                json!(ctx.url("elsewhere.example", "/landing"))
            ),
        )
        .await
        .unwrap();
    let now = wait_for_page(t, "elsewhere.example").await;
    assert!(now.skills.is_empty(), "{now:?}");
}

async fn redirect_off(ctx: Ctx) {
    let t = &ctx.tools;
    let (c, m) = code(
        t.navigate_site(&ctx.url("github.com", "/redirect-away"))
            .await,
    );
    assert_eq!(c, "left_covered_domains", "{m}");
    assert!(m.contains("elsewhere.example"), "{m}");
    // Nothing may run there.
    assert_eq!(
        code(t.run_site_browser_tool("github", "thread", None).await).0,
        "domain_mismatch"
    );
}

async fn redirect_to_http(ctx: Ctx) {
    let t = &ctx.tools;
    let (c, m) = code(
        t.navigate_site(&ctx.url("feed.example", "/downgrade"))
            .await,
    );
    assert_eq!(c, "left_covered_domains", "{m}");
    assert!(m.contains("is not HTTPS"), "{m}");
    let (c, _) = code(
        t.run_site_browser_tool("feedtest", "echo", Some(&json!({"name": "x"})))
            .await,
    );
    assert_eq!(
        c, "domain_mismatch",
        "an http page of a covered domain is refused too"
    );
}

async fn undeclared(ctx: Ctx) {
    let t = &ctx.tools;
    let page = t
        .navigate_site(&ctx.url("feed.example", "/static"))
        .await
        .unwrap();
    assert_eq!(page.skills[0].id, "feedtest");
    assert_eq!(page.skills[0].knowledge[0].path, "notes/feed.md");
    assert_eq!(page.skills[0].knowledge[0].content, FEED_NOTE);
    let (c, m) = code(t.run_site_browser_tool("feedtest", "hidden", None).await);
    assert_eq!(c, "undeclared_tool");
    assert!(m.contains("echo") && m.contains("items"), "{m}");
    let ran = t
        .runtime()
        .evaluate(t.space_name(), "typeof window.__hiddenRan")
        .await
        .unwrap();
    assert_eq!(ran, "undefined", "the undeclared function never ran");
    let (c, _) = code(t.run_site_browser_tool("github", "thread_v2", None).await);
    assert_eq!(c, "undeclared_tool");
}

async fn results_and_failures(ctx: Ctx) {
    let t = &ctx.tools;
    t.navigate_site(&ctx.url("feed.example", "/static"))
        .await
        .unwrap();
    let (c, m) = code(t.run_site_browser_tool("feedtest", "wrongType", None).await);
    assert_eq!(c, "return_type");
    assert!(m.contains("returned string but declares object"), "{m}");
    let (c, m) = code(t.run_site_browser_tool("feedtest", "boom", None).await);
    assert_eq!(c, "tool_failed");
    assert!(m.ends_with("failed: the list is not loaded yet"), "{m}");
    let (c, m) = code(t.run_site_browser_tool("feedtest", "missingFn", None).await);
    assert_eq!(c, "tool_failed");
    assert!(
        m.contains("defines no function window.FeedTools.notThere"),
        "{m}"
    );
    // A declared tool of another site on this page is refused by domain.
    assert_eq!(
        code(t.run_site_browser_tool("wikipedia", "article", None).await).0,
        "domain_mismatch"
    );
}

async fn arguments(ctx: Ctx) {
    let t = &ctx.tools;
    t.navigate_site(&ctx.url("feed.example", "/static"))
        .await
        .unwrap();
    let args = json!({"name": "n", "count": 3, "ratio": 0.5, "flag": true, "tags": ["a"], "opts": {"k": 1}});
    let r = t
        .run_site_browser_tool("feedtest", "echo", Some(&args))
        .await
        .unwrap();
    assert_eq!(
        r,
        json!({"args": args, "host": "feed.example"}),
        "a single-function script gets exactly its args"
    );
    let r = t
        .run_site_browser_tool(
            "feedtest",
            "echo",
            Some(&json!({"name": "n", "count": null})),
        )
        .await
        .unwrap();
    assert_eq!(r["args"], json!({"name": "n"}));
    let (c, m) = code(t.run_site_browser_tool("feedtest", "echo", None).await);
    assert_eq!(c, "invalid_args");
    assert!(
        m.contains("the required argument \"name\" is missing"),
        "{m}"
    );
    let (c, m) = code(
        t.run_site_browser_tool(
            "feedtest",
            "echo",
            Some(&json!({"name": 1, "count": "3", "extra": 1})),
        )
        .await,
    );
    assert_eq!(c, "invalid_args");
    for part in [
        "\"extra\" is not declared",
        "\"name\" must be string, not number",
        "\"count\" must be integer, not string",
    ] {
        assert!(m.contains(part), "{part} in {m}");
    }
    let (c, _) = code(
        t.run_site_browser_tool("feedtest", "echo", Some(&json!("name")))
            .await,
    );
    assert_eq!(c, "invalid_args");
}

async fn pagination(ctx: Ctx) {
    let t = &ctx.tools;
    t.navigate_site(&ctx.url("feed.example", "/feed"))
        .await
        .unwrap();
    let got = t.collect("feedtest", "items", None).await.expect("collect");
    assert_eq!(got.stop, CollectStop::EndReached, "{got:?}");
    assert!(got.at_end);
    // 4 growing rounds and 2 stalled ones when each scroll's rows arrive
    // within the wait (200 ms of 900 ms); a slower page only adds rounds.
    assert!((6..=12).contains(&got.rounds), "{}", got.rounds);
    let texts: Vec<String> = got
        .items
        .iter()
        .map(|i| i["text"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (1..=35).map(|n| format!("comment {n}")).collect();
    assert_eq!(texts, expected, "every row once, in first-seen order");
    // Rows seen in two windows were merged, not dropped or duplicated.
    assert!(got.merged >= 15, "{}", got.merged);
    let c6 = &got.items[5];
    assert_eq!(c6["comment_id"], "c6");
    let views = |item: &Value| -> Vec<u64> {
        item["views"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect()
    };
    assert_eq!(views(c6)[..2], [1, 2], "both sightings are kept");
    assert_eq!(
        c6["likes"], 6,
        "a blank field is filled from the later copy"
    );
    assert_eq!(views(&got.items[0])[0], 1);
    let c10 = &got.items[9];
    assert!(c10.get("comment_id").is_none());
    assert_eq!(
        views(c10)[..2],
        [1, 2],
        "rows without ids merge by author + text + time"
    );

    // Through run_site_browser_tool the result is the bare array.
    t.navigate_site(&ctx.url("feed.example", "/feed"))
        .await
        .unwrap();
    let items = t
        .run_site_browser_tool("feedtest", "items", Some(&json!({"limit": 12})))
        .await
        .unwrap();
    assert_eq!(items.as_array().unwrap().len(), 12);
    assert_eq!(items[11]["comment_id"], "c12");
}

async fn pagination_limits(ctx: Ctx) {
    let fast = CollectorConfig {
        comments_wait: Duration::from_millis(50),
        other_wait: Duration::from_millis(50),
        ..CollectorConfig::default()
    };
    ctx.tools
        .navigate_site(&ctx.url("feed.example", "/feed"))
        .await
        .unwrap();
    let got = ctx
        .tools
        .collect("feedtest", "items", Some(&json!({"limit": 12})))
        .await
        .unwrap();
    assert_eq!(got.stop, CollectStop::LimitReached);
    assert_eq!(got.items.len(), 12);
    assert!(got.rounds >= 2, "{}", got.rounds);

    let t = ctx.tools.clone().collector(fast);

    t.navigate_site(&ctx.url("feed.example", "/static"))
        .await
        .unwrap();
    let got = t.collect("feedtest", "items", None).await.unwrap();
    assert_eq!(got.stop, CollectStop::Stalled);
    assert!(!got.at_end);
    assert_eq!(got.rounds, 5, "1 growing round, then 4 stalls");
    assert_eq!(got.items.len(), 3);
    assert_eq!(got.items[0]["views"], json!([1, 2, 3, 4, 5]));
}

async fn agent_and_cli(ctx: Ctx) {
    let t = &ctx.tools;
    let url = ctx.url("news.ycombinator.com", "/item?id=39232976");
    let out = t
        .call_tool("navigate_site", &json!({"url": url}))
        .await
        .unwrap();
    assert_eq!(out["skills"][0]["id"], "hackernews");
    assert_eq!(
        out["skills"][0]["browserTools"]["item"]["binding"],
        "window.FerretHackerNews"
    );
    assert_eq!(out["skills"][0]["knowledge"], json!([]));
    let out = t.call_tool("read_site_skills", &json!({})).await.unwrap();
    assert_eq!(out["skills"][0]["domains"], json!(["news.ycombinator.com"]));
    let out = t
        .call_tool(
            "run_site_browser_tool",
            &json!({"site_id": "hackernews", "tool_name": "item", "args": {"max_comments": 1}}),
        )
        .await
        .unwrap();
    assert_eq!(out["comments"][0]["author"], "dang");
    assert_eq!(out.get("ok"), None, "the bare record, no wrapper");
    let err = t
        .call_tool("run_site_browser_tool", &json!({"site_id": "hackernews"}))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    let err = t
        .call_tool("navigate_site", &json!({"url": url, "wait": 1}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("\"wait\""), "{err}");
    let err = t
        .call_tool("open_everything", &json!({}))
        .await
        .unwrap_err();
    assert_eq!(err.envelope().schema, "ferret.skills.error.v1");

    let nav = commands::navigate(t, &ctx.url("github.com", "/kepano/defuddle/issues/56"))
        .await
        .unwrap();
    assert_eq!(nav.schema, "ferret.skills.navigate.v1");
    assert_eq!(nav.skills[0].id, "github");
    assert_eq!(nav.provenance, Provenance::public(Runtime::ChromiumManaged));
    let run = commands::run(
        t,
        "wikipedia",
        "section",
        Some(&commands::parse_args_json(r#"{"title": "Cargo"}"#).unwrap()),
        Some(&ctx.url("en.wikipedia.org", "/wiki/Rust_(programming_language)")),
    )
    .await
    .unwrap();
    let json = serde_json::to_value(&run).unwrap();
    assert_eq!(json["schema"], "ferret.skills.run.v1");
    assert_eq!(json["site_id"], "wikipedia");
    assert!(json["url"].as_str().unwrap().contains("en.wikipedia.org"));
    assert_eq!(json["result"]["title"], "Cargo");
    assert_eq!(json["provenance"]["search_partition"], "public");
    assert_eq!(json["provenance"]["runtime"], "chromium-managed");
    let err = commands::run(t, "github", "thread", None, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "domain_mismatch");
}
