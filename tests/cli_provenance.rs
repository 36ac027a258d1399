//! Provenance through the command line, end to end, with a real Chromium
//! started by the test as "the user's browser" (its own profile, a DevTools
//! port on loopback, signed in to a members page by a session cookie) and
//! pro mode on.
//!
//! Every path that reads the members page through that browser — the
//! fetch ladder, verify, extract, research, and what is fed back in (rows
//! on stdin, `normalize-results`, `merge`, Ferret's own envelopes) — must
//! label the read `login`, not cache eligible, runtime `chromium-attached`.
//! The same paths through the managed ephemeral browser are public (and
//! see the sign-in wall: no cookie). Pro mode off refuses the attached
//! browser and names `ferret pro enable`; an attached endpoint declared a
//! public pool (`FERRET_CDP_PARTITION=public`) reads public data without
//! pro mode; `auto` falling back to the attached browser labels the read
//! by the browser that served it.
//!
//! One user browser serves the whole binary (`harness = false`): the
//! scenarios run in order and the browser is killed at the end.

#[path = "support/process.rs"]
mod process;
#[path = "support/web.rs"]
mod web;

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use web::{LocalWeb, Request, Response};

const SECRET: &str = "MEMBERS-ONLY-7f3a";

const MEMBERS: &str = r#"<!doctype html><html><head><title>Larkspur Members Bulletin</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article",
"headline":"Larkspur Members Bulletin","author":{"@type":"Person","name":"Ada Quill"}}</script>
</head><body><main><article><h1>Larkspur Members Bulletin</h1>
<p>The Larkspur cooperative pays a quarterly dividend of 42 credits to every member, the board
confirmed on 3 March 2026. This page is only for signed-in members: MEMBERS-ONLY-7f3a.</p>
<p>Members can read the full minutes of the board meeting, the budget for the coming season and
the list of projects the cooperative will fund. Each project has a sponsor among the members and a
short report that explains what it will deliver and when.</p></article></main></body></html>"#;

const WALL: &str = r#"<!doctype html><html><head><title>Sign in</title></head><body><main>
<h1>Sign in</h1><p>Please sign in to continue reading this members-only page.</p>
<form method="post" action="/login"><input name="user"><input name="pass" type="password">
<button>Sign in</button></form></main></body></html>"#;

fn site(req: &Request) -> Response {
    match req.path.as_str() {
        "/members" if req.cookie.contains("session=ok") => Response::html(MEMBERS),
        "/members" => Response::html(WALL),
        "/sign-in" => Response::html("<html><body><p>signed in</p></body></html>")
            .header("Set-Cookie: session=ok; Path=/; Max-Age=3600"),
        _ => Response::not_found(),
    }
}

/// The user's own Chromium: headless, its own profile, a DevTools port,
/// opened on the sign-in page so its profile holds the session cookie.
struct UserBrowser {
    child: Child,
    endpoint: String,
    _profile: PathBuf,
}

impl UserBrowser {
    fn start(web: &LocalWeb) -> Self {
        let profile = process::temp_dir("user-browser");
        let chromium =
            std::env::var("FERRET_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let child = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(web.url("/sign-in"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the user's chromium");
        let port_file = profile.join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(30);
        let endpoint = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|t| t.lines().next().map(str::to_string))
                .filter(|p| !p.is_empty())
            {
                break format!("http://127.0.0.1:{port}");
            }
            assert!(Instant::now() < deadline, "the user's browser gave no port");
            std::thread::sleep(Duration::from_millis(50));
        };
        while !web.requests().iter().any(|r| r.path == "/sign-in") {
            assert!(
                Instant::now() < deadline,
                "the user's browser never signed in"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        UserBrowser {
            child,
            endpoint,
            _profile: profile,
        }
    }
}

impl Drop for UserBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One Ferret home and the environment a run gets.
struct Env {
    home: PathBuf,
    endpoint: String,
    extra: Vec<(String, String)>,
}

impl Env {
    fn new(endpoint: &str) -> Self {
        Env {
            home: process::temp_dir("provenance"),
            endpoint: endpoint.to_string(),
            extra: Vec::new(),
        }
    }

    fn with(mut self, key: &str, value: &str) -> Self {
        self.extra.push((key.into(), value.into()));
        self
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = process::hermetic_command(&self.home);
        cmd.env("FERRET_CDP_URL", &self.endpoint)
            .env("FERRET_ALLOW_PRIVATE_URLS", "1")
            .env("FERRET_NO_CACHE", "1")
            .args(args);
        for (k, v) in &self.extra {
            cmd.env(k, v);
        }
        process::output_with_stdin(cmd, stdin)
    }

    fn json(&self, args: &[&str], stdin: Option<&str>) -> Value {
        let out = self.run(args, stdin);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "`ferret {}` printed no JSON ({e}; exit {:?}):\n{}\nstderr:\n{}",
                args.join(" "),
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    fn pro(&self, on: bool) {
        let out = self.run(&["pro", if on { "enable" } else { "disable" }], None);
        assert!(out.status.success(), "{out:?}");
    }

    fn write(&self, name: &str, value: &Value) -> String {
        let path = self.home.join(name);
        std::fs::write(&path, value.to_string()).unwrap();
        path.display().to_string()
    }
}

fn assert_login(p: &Value, runtime: &str, what: &str) {
    assert_eq!(p["search_partition"], "login", "{what}: {p}");
    assert_eq!(p["login_state_used"], true, "{what}: {p}");
    assert_eq!(p["cache_eligible"], false, "{what}: {p}");
    assert_eq!(p["runtime"], runtime, "{what}: {p}");
}

fn assert_public(p: &Value, runtime: &str, what: &str) {
    assert_eq!(p["search_partition"], "public", "{what}: {p}");
    assert_eq!(p["login_state_used"], false, "{what}: {p}");
    assert_eq!(p["cache_eligible"], true, "{what}: {p}");
    assert_eq!(p["runtime"], runtime, "{what}: {p}");
}

const ATTACHED: &[&str] = &["--browser", "required", "--runtime", "attached"];
const MANAGED: &[&str] = &["--browser", "required", "--runtime", "managed"];

fn args<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(tail).copied().collect()
}

const CLAIM: &str = "The Larkspur cooperative pays a quarterly dividend of 42 credits";

fn research_rows(web: &LocalWeb) -> String {
    json!([{"url": web.url("/members"), "title": "Larkspur bulletin"}]).to_string()
}

fn fetch_ladder_labels_the_users_browser_login(env: &Env, web: &LocalWeb) {
    let url = web.url("/members");
    let page = env.json(&args(&["fetch", &url, "--json"], ATTACHED), None);
    assert!(page["text"].as_str().unwrap().contains(SECRET), "{page}");
    assert_login(&page["provenance"], "chromium-attached", "fetch");
    assert_eq!(page["source"], "browser_user", "{page}");
    for a in page["attempts"].as_array().unwrap() {
        assert_login(&a["provenance"], "chromium-attached", "fetch attempt");
    }
}

fn verify_and_extract_label_the_read_login(env: &Env, web: &LocalWeb) {
    let url = web.url("/members");
    let report = env.json(&args(&["verify", &url, "--json"], ATTACHED), None);
    assert!(report["text_excerpt"].as_str().unwrap().contains(SECRET));
    assert_login(&report["provenance"], "chromium-attached", "verify");

    let schema = env.write(
        "schema.json",
        &json!({"type": "object", "properties": {"headline": {"type": "string"}},
                "required": ["headline"]}),
    );
    let out = env.json(
        &args(&["extract", &url, "--schema", &schema, "--json"], ATTACHED),
        None,
    );
    assert_eq!(out["verdict"], "extracted", "{out}");
    assert_eq!(out["data"]["headline"], "Larkspur Members Bulletin");
    assert_login(&out["provenance"], "chromium-attached", "extract");
}

fn research_labels_candidates_and_quotes_login(env: &Env, web: &LocalWeb) {
    let report = env.json(
        &args(&["research", CLAIM, "--stdin-results", "--json"], ATTACHED),
        Some(&research_rows(web)),
    );
    let candidate = &report["enrichment"]["candidates"][0];
    assert!(candidate["text_excerpt"].as_str().unwrap().contains(SECRET));
    assert_login(&candidate["provenance"], "chromium-attached", "candidate");
    let mut quotes = 0;
    for c in report["enrichment"]["ledger"]["constraints"]
        .as_array()
        .unwrap()
    {
        for e in c["evidence"].as_array().unwrap() {
            assert_login(&e["provenance"], "chromium-attached", "ledger quote");
            quotes += 1;
        }
    }
    assert!(quotes > 0, "no quote in the ledger: {report}");
    for c in report["enrichment"]["citations"]["citations"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if !c["quote"].is_null() {
            assert_login(&c["quote"]["provenance"], "chromium-attached", "citation");
        }
    }
    // The report fed back as rows stays login.
    let text = report.to_string();
    let back = env.json(
        &["search", "larkspur", "--stdin-results", "--json"],
        Some(&text),
    );
    let result = &back["results"][0];
    assert_login(
        &result["provenance"],
        "chromium-attached",
        "research fed back",
    );
}

fn login_rows_keep_their_labels_and_engine(env: &Env, web: &LocalWeb) {
    let rows = json!([
        {"url": web.url("/members"), "title": "Larkspur bulletin", "snippet": "members",
         "engine": "browser_bing", "search_partition": "login", "cache_eligible": false,
         "runtime": "chromium-attached"},
        {"url": web.url("/other"), "title": "Other", "snippet": "claims public",
         "search_partition": "public", "login_state_used": true},
    ])
    .to_string();
    let out = env.json(
        &["search", "larkspur", "--stdin-results", "--json"],
        Some(&rows),
    );
    let results = out["results"].as_array().unwrap();
    let members = results
        .iter()
        .find(|r| r["original_url"] == web.url("/members"))
        .expect("the members row");
    assert_login(&members["provenance"], "chromium-attached", "row");
    assert_eq!(members["sources"][0]["engine"], "browser_bing");
    assert_login(
        &members["sources"][0]["provenance"],
        "chromium-attached",
        "source hit",
    );
    let other = results
        .iter()
        .find(|r| r["original_url"] == web.url("/other"))
        .expect("the other row");
    assert_eq!(other["provenance"]["search_partition"], "login", "{other}");
    let warnings = out["warnings"].to_string();
    assert!(warnings.contains("login_state_used"), "{warnings}");

    // Ferret's own search envelope round-trips.
    let again = env.json(
        &["search", "larkspur", "--stdin-results", "--json"],
        Some(&out.to_string()),
    );
    let members = again["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["original_url"] == web.url("/members"))
        .expect("the members row, fed back");
    assert_eq!(members["sources"][0]["engine"], "browser_bing");
    assert_login(
        &members["provenance"],
        "chromium-attached",
        "search fed back",
    );

    let normalized = env.json(
        &["research", "normalize-results", "--query", "larkspur"],
        Some(&rows),
    );
    assert_login(
        &normalized["results"][0]["provenance"],
        "chromium-attached",
        "normalize-results",
    );
    assert_eq!(
        normalized["results"][1]["provenance"]["search_partition"],
        "login"
    );
}

fn merge_keeps_each_side(env: &Env, web: &LocalWeb) {
    let url = web.url("/members");
    let login = env.json(&args(&["fetch", &url, "--json"], ATTACHED), None);
    let public = env.json(&args(&["fetch", &url, "--json"], MANAGED), None);
    let (l, p) = (
        env.write("login.json", &login),
        env.write("public.json", &public),
    );
    let report = env.json(&["merge", "--public", &p, "--login", &l, "--json"], None);
    for item in report["items"].as_array().unwrap() {
        match item["side"].as_str().unwrap() {
            "login" => assert_login(&item["provenance"], "chromium-attached", "merge login"),
            _ => assert_public(&item["provenance"], "chromium-managed", "merge public"),
        }
    }
}

fn the_managed_ephemeral_browser_is_public(env: &Env, web: &LocalWeb) {
    let url = web.url("/members");
    let page = env.json(&args(&["fetch", &url, "--json"], MANAGED), None);
    assert!(!page["text"].as_str().unwrap().contains(SECRET), "{page}");
    assert_public(&page["provenance"], "chromium-managed", "managed fetch");
    assert_eq!(page["source"], "browser");
    let report = env.json(&args(&["verify", &url, "--json"], MANAGED), None);
    assert_public(&report["provenance"], "chromium-managed", "managed verify");
    let research = env.json(
        &args(&["research", CLAIM, "--stdin-results", "--json"], MANAGED),
        Some(&research_rows(web)),
    );
    assert_public(
        &research["enrichment"]["candidates"][0]["provenance"],
        "chromium-managed",
        "managed research",
    );
    let plain = env.json(&["fetch", &url, "--browser", "never", "--json"], None);
    assert_public(&plain["provenance"], "http", "http fetch");
}

fn pro_mode_off_refuses_the_attached_browser(web: &LocalWeb, endpoint: &str) {
    let env = Env::new(endpoint);
    let out = env.run(
        &args(&["fetch", &web.url("/members"), "--json"], ATTACHED),
        None,
    );
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ferret pro enable"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(SECRET));
}

fn a_declared_public_pool_is_public_without_pro_mode(web: &LocalWeb, endpoint: &str) {
    let env = Env::new(endpoint).with("FERRET_CDP_PARTITION", "public");
    let page = env.json(
        &args(&["fetch", &web.url("/members"), "--json"], ATTACHED),
        None,
    );
    assert_public(&page["provenance"], "chromium-attached", "public pool");
}

fn auto_falling_back_is_labelled_by_the_browser_that_served(env: &Env, web: &LocalWeb) {
    let env = Env {
        home: env.home.clone(),
        endpoint: env.endpoint.clone(),
        extra: vec![("FERRET_CHROMIUM".into(), "/nonexistent/chromium".into())],
    };
    let page = env.json(
        &[
            "fetch",
            &web.url("/members"),
            "--browser",
            "required",
            "--runtime",
            "auto",
            "--json",
        ],
        None,
    );
    assert!(page["text"].as_str().unwrap().contains(SECRET), "{page}");
    assert_login(&page["provenance"], "chromium-attached", "auto fallback");
}

fn browser_status_probes_both_runtimes(env: &Env) {
    let out = env.json(&["browser", "status", "--json"], None);
    assert_eq!(out["runtimes"]["managed"]["usable"], true, "{out}");
    assert_eq!(out["runtimes"]["attached"]["usable"], true, "{out}");
    assert_eq!(out["runtimes"]["attached"]["partition"], "login");
    assert_eq!(out["pro_mode"]["enabled"], true);
    assert!(
        out["runtimes"]["attached"]["version"]
            .as_str()
            .is_some_and(|v| !v.is_empty()),
        "{out}"
    );
    let off = Env::new(&env.endpoint);
    let out = off.json(&["browser", "status", "--json"], None);
    assert_eq!(out["runtimes"]["attached"]["usable"], false, "{out}");
    assert!(
        out["runtimes"]["attached"]["reason"]
            .as_str()
            .unwrap()
            .contains("ferret pro enable")
    );
}

/// A named check, run in order.
type Scenario<'a> = Box<dyn Fn() + 'a>;

fn main() {
    if std::env::var("FERRET_SKIP_BROWSER_TESTS").is_ok_and(|v| v == "1") {
        eprintln!("skipped: FERRET_SKIP_BROWSER_TESTS=1");
        return;
    }
    let web = LocalWeb::start(site);
    let user = UserBrowser::start(&web);
    let env = Env::new(&user.endpoint);
    env.pro(true);
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let scenarios: Vec<(&str, Scenario<'_>)> = vec![
        (
            "fetch_ladder_labels_the_users_browser_login",
            Box::new(|| fetch_ladder_labels_the_users_browser_login(&env, &web)),
        ),
        (
            "verify_and_extract_label_the_read_login",
            Box::new(|| verify_and_extract_label_the_read_login(&env, &web)),
        ),
        (
            "research_labels_candidates_and_quotes_login",
            Box::new(|| research_labels_candidates_and_quotes_login(&env, &web)),
        ),
        (
            "login_rows_keep_their_labels_and_engine",
            Box::new(|| login_rows_keep_their_labels_and_engine(&env, &web)),
        ),
        (
            "merge_keeps_each_side",
            Box::new(|| merge_keeps_each_side(&env, &web)),
        ),
        (
            "the_managed_ephemeral_browser_is_public",
            Box::new(|| the_managed_ephemeral_browser_is_public(&env, &web)),
        ),
        (
            "pro_mode_off_refuses_the_attached_browser",
            Box::new(|| pro_mode_off_refuses_the_attached_browser(&web, &user.endpoint)),
        ),
        (
            "a_declared_public_pool_is_public_without_pro_mode",
            Box::new(|| a_declared_public_pool_is_public_without_pro_mode(&web, &user.endpoint)),
        ),
        (
            "auto_falling_back_is_labelled_by_the_browser_that_served",
            Box::new(|| auto_falling_back_is_labelled_by_the_browser_that_served(&env, &web)),
        ),
        (
            "browser_status_probes_both_runtimes",
            Box::new(|| browser_status_probes_both_runtimes(&env)),
        ),
    ];
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, scenario) in &scenarios {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        ran += 1;
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(scenario));
        let ms = started.elapsed().as_millis();
        match outcome {
            Ok(()) => println!("test {name} ... ok ({ms} ms)"),
            Err(_) => {
                println!("test {name} ... FAILED ({ms} ms)");
                failed.push(*name);
            }
        }
    }
    drop(scenarios);
    drop(user);
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        ran - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(1);
    }
}
