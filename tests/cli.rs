//! The `ferret` command line (examples/ferret.rs), run as a process.
//!
//! `cargo test` builds the examples before running tests; these tests find
//! the binary next to their own (`target/<profile>/examples/ferret`).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

#[path = "support/process.rs"]
mod process;

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    run_in(&tempfile_dir(), args, stdin)
}

fn run_in(home: &std::path::Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = process::hermetic_command(home);
    cmd.args(args);
    process::output_with_stdin(cmd, stdin)
}

fn tempfile_dir() -> PathBuf {
    process::temp_dir("cli-test")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn plan_prints_the_plan_envelope_with_a_lowercase_intent() {
    let out = run(&["plan", "Bun vs Deno 区别", "--json"], None);
    assert!(out.status.success());
    let v = json(&out);
    assert_eq!(v["schema"], "ferret.plan.v1");
    assert_eq!(v["intent"], "comparison");
    assert_eq!(v["mode"], "deep");
    assert_eq!(v["freshness"], "py");
    assert_eq!(v["weights"]["keyword"], 0.4);
    let subs: Vec<&str> = v["sub_queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert!(subs.len() >= 3, "{subs:?}");
    assert!(v["constraints"].is_array());
}

#[test]
fn plan_intent_override_is_used_and_reported() {
    let out = run(
        &["plan", "what is rust", "--intent", "news", "--json"],
        None,
    );
    assert!(out.status.success());
    let v = json(&out);
    assert_eq!(v["intent"], "news");
    assert_eq!(v["intent_source"], "override");
}

#[test]
fn plan_prints_for_people_by_default() {
    let out = run(&["plan", "how to install rust"], None);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("intent:     tutorial"), "{text}");
    assert!(text.contains("sub-queries:"), "{text}");
}

#[test]
fn a_bad_argument_is_one_line_on_stderr_and_a_nonzero_exit() {
    for args in [
        vec!["plan", "x", "--intent", "gossip"],
        vec!["search"],
        vec!["no-such-command"],
        vec!["search", "x", "--mode", "warp"],
    ] {
        let out = run(&args, None);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("ferret: error: "), "{err}");
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    }
}

#[test]
fn check_url_reports_the_guard_reason() {
    let cases = [
        (
            "http://127.0.0.1/",
            false,
            Some("private_or_local_host_blocked"),
        ),
        (
            "http://2130706433/",
            false,
            Some("private_or_local_host_blocked"),
        ),
        (
            "http://[::ffff:10.0.0.1]/",
            false,
            Some("private_or_local_host_blocked"),
        ),
        (
            "http://169.254.169.254/latest/meta-data",
            false,
            Some("private_or_local_host_blocked"),
        ),
        ("file:///etc/passwd", false, Some("scheme_not_allowed")),
        (
            "https://user:pw@example.com/",
            false,
            Some("credentials_in_url"),
        ),
        ("https://example.com/page", true, None),
    ];
    for (url, allowed, reason) in cases {
        let out = run(&["check-url", url, "--json"], None);
        let v = json(&out);
        assert_eq!(v["allowed"], allowed, "{url}: {v}");
        assert_eq!(out.status.success(), allowed, "{url}: exit status");
        match reason {
            Some(r) => assert_eq!(v["reason"], r, "{url}"),
            None => assert!(v["reason"].is_null(), "{url}"),
        }
    }
}

#[test]
fn search_fuses_stdin_rows_and_reports_dropped_rows() {
    let rows = r#"{"results": [
        {"url": "https://docs.rs/tokio", "title": "tokio - Rust async runtime", "snippet": "An async runtime for Rust", "engine": "brave", "rank": 1},
        {"url": "https://tokio.rs/#intro", "title": "Tokio", "snippet": "Build reliable network applications", "engine": "brave", "rank": 2},
        {"url": "https://docs.rs/tokio/", "title": "tokio", "snippet": "docs", "engine": "exa", "rank": 1},
        {"url": "javascript:alert(1)", "title": "bad", "engine": "exa", "rank": 2},
        {"url": "https://tokio.rs/", "title": "Tokio again", "engine": "brave", "rank": 3}
    ]}"#;
    let out = run(
        &["search", "rust async runtime", "--stdin-results", "--json"],
        Some(rows),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["schema"], "ferret.search.v1");
    assert_eq!(v["evidence_policy"], "snippets-are-not-final-evidence");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{v}");
    // docs.rs/tokio came from two engines: consensus ranks it first.
    assert_eq!(results[0]["url"], "https://docs.rs/tokio");
    assert_eq!(results[0]["sources"].as_array().unwrap().len(), 2);
    for key in ["rrf", "keyword", "freshness", "authority", "final"] {
        assert!(results[0]["scores"][key].is_number(), "score {key}");
    }
    let dropped = v["dropped"].as_array().unwrap();
    let reasons: Vec<&str> = dropped
        .iter()
        .map(|d| d["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, vec!["missing-or-invalid-url", "duplicate-url"]);
}

#[test]
fn search_with_stdin_rows_that_are_not_json_is_an_input_error() {
    // Rows that are not JSON fail (exit 1, kind input) instead of fusing
    // nothing; empty stdin is still an empty set with a warning.
    let out = run(
        &["search", "anything", "--stdin-results", "--json"],
        Some("{not json"),
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["schema"], "ferret.error.v1");
    assert_eq!(v["kind"], "input");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ferret: error: stdin is not JSON"), "{err}");

    let out = run(
        &["search", "anything", "--stdin-results", "--json"],
        Some(""),
    );
    assert!(out.status.success());
    let v = json(&out);
    assert_eq!(v["results"].as_array().unwrap().len(), 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning"), "{err}");
}

#[test]
fn offline_search_answers_from_the_seeded_local_index_and_reports_unreachable_engines() {
    let home = tempfile_dir();
    let out = run_in(
        &home,
        &[
            "search",
            "canonical URL tracking parameters",
            "--json",
            "--timeout",
            "15",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let results = v["results"].as_array().unwrap();
    assert!(!results.is_empty(), "no results from the local index: {v}");
    assert!(
        results[0]["sources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["engine"] == "local"),
        "{}",
        results[0]
    );
    let engines = v["engines"].as_array().unwrap();
    let local = engines.iter().find(|e| e["name"] == "local").unwrap();
    assert_eq!(local["status"], "ok");
    for name in ["duckduckgo", "bing", "wikipedia", "github"] {
        let e = engines.iter().find(|e| e["name"] == name).unwrap();
        assert_eq!(e["status"], "error", "{name}: {e}");
        assert_eq!(e["error_kind"], "transport", "{name}: {e}");
    }
    for key in ["name", "status", "elapsed_ms", "count"] {
        assert!(engines[0].get(key).is_some(), "report lacks {key}");
    }

    // The seeding message is said once, in the human-readable mode.
    let home2 = tempfile_dir();
    let out = run_in(&home2, &["search", "pro mode", "--engines", "local"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("seeded it with Ferret's user guide"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("engine local"), "{text}");
    let again = run_in(&home2, &["search", "pro mode", "--engines", "local"], None);
    assert!(!String::from_utf8_lossy(&again.stderr).contains("seeded"));
}

#[test]
fn index_add_indexes_a_folder_incrementally() {
    let home = tempfile_dir();
    let notes = tempfile_dir();
    std::fs::write(
        notes.join("zebra.md"),
        "# Zebra migration\n\nZebras cross the Mara river every July.",
    )
    .unwrap();
    let out = run_in(
        &home,
        &["index", "add", notes.to_str().unwrap(), "--json"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["added"].as_array().unwrap().len(), 1);
    let again = json(&run_in(
        &home,
        &["index", "add", notes.to_str().unwrap(), "--json"],
        None,
    ));
    assert_eq!(again["added"].as_array().unwrap().len(), 0);
    assert_eq!(again["unchanged"], 1);

    let out = run_in(
        &home,
        &[
            "search",
            "zebra migration mara",
            "--engines",
            "local",
            "--json",
        ],
        None,
    );
    let v = json(&out);
    assert_eq!(v["results"][0]["title"], "Zebra migration", "{v}");
}

#[test]
fn index_add_of_a_missing_folder_is_a_one_line_error() {
    let out = run(&["index", "add", "/no/such/folder"], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn search_with_a_builtin_goggle_discards_and_boosts() {
    let rows = r#"[
        {"url": "https://www.toutiao.com/article/1", "title": "Rust async explained", "snippet": "rust async"},
        {"url": "https://example.org/rust-async", "title": "Rust async notes", "snippet": "rust async"},
        {"url": "https://github.com/tokio-rs/tokio", "title": "tokio: Rust async runtime", "snippet": "rust async"}
    ]"#;
    let out = run(
        &[
            "search",
            "rust async",
            "--stdin-results",
            "--goggle",
            "general-tech",
            "--json",
        ],
        Some(rows),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["goggle"], "general-tech");
    let urls: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls[0], "https://github.com/tokio-rs/tokio", "{urls:?}");
    assert!(!urls.iter().any(|u| u.contains("toutiao")), "{urls:?}");
    assert_eq!(v["discarded"].as_array().unwrap().len(), 1);
}

#[test]
fn an_unknown_goggle_is_a_one_line_error() {
    let out = run(
        &[
            "search",
            "x",
            "--stdin-results",
            "--goggle",
            "no-such-goggle",
        ],
        Some("[]"),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("general-tech"),
        "the error lists the built-ins: {err}"
    );
}

#[test]
fn pro_mode_is_off_by_default_and_a_person_turns_it_on_and_off() {
    let home = tempfile_dir();
    let v = json(&run_in(&home, &["pro", "status", "--json"], None));
    assert_eq!(v["enabled"], false);
    assert_eq!(v["enable_command"], "ferret pro enable");
    let v = json(&run_in(&home, &["pro", "enable", "--json"], None));
    assert_eq!(v["enabled"], true);
    assert!(v["enabled_at"].is_string());
    assert!(home.join("pro-mode.json").exists());
    let v = json(&run_in(&home, &["pro", "disable", "--json"], None));
    assert_eq!(v["enabled"], false);
    // A corrupt state file counts as off, with a warning.
    std::fs::write(home.join("pro-mode.json"), "{not json").unwrap();
    let v = json(&run_in(&home, &["pro", "status", "--json"], None));
    assert_eq!(v["enabled"], false);
    assert!(v["warning"].is_string());
}

#[test]
fn the_persistent_profile_is_refused_while_pro_mode_is_off() {
    let home = tempfile_dir();
    let out = run_in(
        &home,
        &["browser", "fetch", "https://example.com/", "--persistent"],
        None,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("ferret pro enable"), "{err}");
}

/// A one-page HTTP server on 127.0.0.1 (a thread answering every request
/// with `body`).
fn serve_once_forever(body: &'static str) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                use std::io::{BufRead, BufReader};
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes());
            });
        }
    });
    port
}

#[test]
fn browser_fetch_renders_text_that_javascript_inserts() {
    if std::env::var("FERRET_SKIP_BROWSER_TESTS").is_ok_and(|v| v == "1") {
        eprintln!("skipped: FERRET_SKIP_BROWSER_TESTS=1");
        return;
    }
    let port = serve_once_forever(
        "<html><head><title>Rendered page</title></head><body><main id=m></main>\
         <script>setTimeout(function(){document.getElementById('m').innerHTML=\
         '<p>Text that only JavaScript writes, long enough to be the main content of the page.</p>'},150)</script>\
         </body></html>",
    );
    let url = format!("http://127.0.0.1:{port}/");
    let home = tempfile_dir();
    let mut cmd = Command::new(process::ferret_bin());
    let out = cmd
        .args(["browser", "fetch", &url, "--json"])
        .env("FERRET_HOME", &home)
        .env("FERRET_ALLOW_PRIVATE_URLS", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["title"], "Rendered page");
    assert!(
        v["content"]
            .as_str()
            .unwrap()
            .contains("only JavaScript writes"),
        "{v}"
    );
    assert_eq!(v["search_partition"], "public");
    assert_eq!(v["runtime"], "chromium-managed");

    // Without the allow-private switch the guard refuses the same page.
    let out = Command::new(process::ferret_bin())
        .args(["browser", "fetch", &url])
        .env("FERRET_HOME", &home)
        .env_remove("FERRET_ALLOW_PRIVATE_URLS")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("private_or_local_host_blocked"));
}

#[test]
fn skills_list_tools_and_validate() {
    let v = json(&run(&["skills", "list", "--json"], None));
    let ids: Vec<&str> = v["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    for id in ["github", "hackernews", "wikipedia"] {
        assert!(ids.contains(&id), "{ids:?}");
    }
    let tools = json(&run(&["skills", "tools"], None));
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["navigate_site", "read_site_skills", "run_site_browser_tool"]
    );

    // A package whose id differs from its folder and whose tool path escapes.
    let root = tempfile_dir();
    let pkg = root.join("my-site");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("manifest.json"),
        r#"{"id": "other-id", "name": "X", "domains": ["example.com"], "notes": [],
            "browserTools": {"read": {"description": "d", "path": "../escape.js",
            "args": {}, "returns": {"type": "object", "description": "r"}}}}"#,
    )
    .unwrap();
    let out = run(
        &["skills", "validate", pkg.to_str().unwrap(), "--json"],
        None,
    );
    assert!(!out.status.success());
    let v = json(&out);
    assert_eq!(v["valid"], false);
    let text = v["violations"].to_string();
    assert!(text.contains("id"), "{text}");
    assert!(text.contains("path"), "{text}");
}

#[test]
fn skills_navigate_refuses_plain_http_in_one_line() {
    let out = run(&["skills", "navigate", "http://github.com/rust-lang"], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("HTTPS"), "{err}");
}

const ARTICLE: &str = r#"<html lang="en"><head><title>Caffeine and sleep | Example News</title>
<meta name="author" content="Ada Writer"><meta property="article:published_time" content="2025-03-05T10:00:00Z">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Ferret Mug","sku":"FM-1","offers":{"@type":"Offer","price":"12.50","priceCurrency":"EUR"}}</script>
</head><body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Caffeine and sleep</h1>
<p>Caffeine taken six hours before bed reduced total sleep time by more than one hour in a controlled study.</p>
<p>Researchers measured sleep with wrist monitors and sleep diaries over four nights for every participant.</p>
<p>The effect was strongest for participants who rarely drink coffee, according to the authors of the study.</p>
</article><footer>Copyright Example News. Subscribe to our newsletter.</footer></body></html>"#;

#[test]
fn fetch_from_file_prints_only_the_main_text() {
    let dir = tempfile_dir();
    let page = dir.join("page.html");
    std::fs::write(&page, ARTICLE).unwrap();
    let out = run(
        &[
            "fetch",
            "--from-file",
            page.to_str().unwrap(),
            "--format",
            "text",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("reduced total sleep time"), "{text}");
    assert!(!text.contains("Subscribe to our newsletter"), "{text}");
    assert!(!text.contains("Home"), "{text}");

    let v = json(&run(
        &["fetch", "--from-file", page.to_str().unwrap(), "--json"],
        None,
    ));
    assert_eq!(v["schema"], "ferret.fetch.v1");
    assert_eq!(v["title"], "Caffeine and sleep");
    assert_eq!(
        v["published_at"].as_str().unwrap().get(..10),
        Some("2025-03-05")
    );
    for key in ["text", "source", "highlights", "quality", "warnings"] {
        assert!(v.get(key).is_some(), "ferret.fetch.v1 lacks {key}");
    }
}

#[test]
fn verify_judges_a_local_page_and_the_guard_blocks_it_without_the_switch() {
    let port = serve_once_forever(ARTICLE);
    let url = format!("http://127.0.0.1:{port}/article");
    let home = tempfile_dir();
    let out = Command::new(process::ferret_bin())
        .args(["verify", &url, "--browser", "never", "--json"])
        .env("FERRET_HOME", &home)
        .env("FERRET_ALLOW_PRIVATE_URLS", "1")
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(v["schema"], "ferret.verify.v1");
    assert_eq!(v["ok"], true, "{v}");
    assert!(matches!(
        v["verdict"].as_str(),
        Some("strong_ok" | "weak_ok")
    ));
    assert_eq!(v["source"], "fetch");
    assert_eq!(v["chrome_used"], false);
    assert!(v["text_excerpt"].as_str().unwrap().chars().count() <= 1200);

    let out = Command::new(process::ferret_bin())
        .args(["verify", &url, "--browser", "never", "--json"])
        .env("FERRET_HOME", &home)
        .env_remove("FERRET_ALLOW_PRIVATE_URLS")
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(v["ok"], false);
    assert!(!out.status.success());
}

#[test]
fn extract_maps_json_ld_onto_a_schema_and_fails_closed() {
    let dir = tempfile_dir();
    let page = dir.join("product.html");
    std::fs::write(&page, ARTICLE).unwrap();
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"type":"object","required":["name","price"],
            "properties":{"name":{"type":"string"},"price":{"type":"number"},"priceCurrency":{"type":"string"}}}"#,
    )
    .unwrap();
    let out = run(
        &[
            "extract",
            "--from-file",
            page.to_str().unwrap(),
            "--schema",
            schema.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v = json(&out);
    assert_eq!(v["verdict"], "extracted");
    assert_eq!(v["data"]["name"], "Ferret Mug");
    assert_eq!(v["data"]["price"], 12.5);

    let strict = dir.join("strict.json");
    std::fs::write(
        &strict,
        r#"{"type":"object","required":["gtin13"],"properties":{"gtin13":{"type":"string"}}}"#,
    )
    .unwrap();
    let out = run(
        &[
            "extract",
            "--from-file",
            page.to_str().unwrap(),
            "--schema",
            strict.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert!(!out.status.success());
    let v = json(&out);
    assert_eq!(v["verdict"], "no_mappable_structure");
    assert!(v["data"].is_null());

    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{nope").unwrap();
    let out = run(
        &[
            "extract",
            "--from-file",
            page.to_str().unwrap(),
            "--schema",
            bad.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert!(!out.status.success());
    assert_eq!(json(&out)["verdict"], "input_unreadable");
}

/// An HTTP server on 127.0.0.1 answering each request with `route(path)`
/// (status, content type, body).
fn serve_routes(route: fn(&str) -> (u16, &'static str, String)) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                use std::io::{BufRead, BufReader};
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                let _ = reader.read_line(&mut request_line);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let path = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .to_string();
                let (status, ctype, body) = route(&path);
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes());
            });
        }
    });
    port
}

#[test]
fn refs_reads_a_thread_from_the_github_api() {
    fn github(path: &str) -> (u16, &'static str, String) {
        let json = "application/json";
        if path.starts_with("/repos/acme/widgets/issues/7/comments") {
            let body = r#"[{"id": 1, "body": "Duplicate of #3. The fix landed in commit 9fceb02d0ae598e95dc970b74767f19372d61af8.", "html_url": "https://github.com/acme/widgets/issues/7#issuecomment-1", "user": {"login": "bob"}}]"#;
            (200, json, body.to_string())
        } else if path.starts_with("/repos/acme/widgets/issues/7/timeline") {
            (404, json, r#"{"message": "Not Found"}"#.to_string())
        } else if path.starts_with("/repos/acme/widgets/issues/7") {
            let body = r#"{"number": 7, "title": "Crash on start", "html_url": "https://github.com/acme/widgets/issues/7",
                "body": "Related to rust-lang/rust#12345; see https://example.org/report for details.", "user": {"login": "ann"}}"#;
            (200, json, body.to_string())
        } else {
            (404, json, "{}".to_string())
        }
    }
    let port = serve_routes(github);
    let home = tempfile_dir();
    let out = Command::new(process::ferret_bin())
        .args(["refs", "https://github.com/acme/widgets/issues/7", "--json"])
        .env("FERRET_HOME", &home)
        .env("FERRET_ALLOW_PRIVATE_URLS", "1")
        .env("GITHUB_API_BASE", format!("http://127.0.0.1:{port}"))
        .env_remove("GITHUB_TOKEN")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["schema"], "ferret.refs.v1");
    assert_eq!(v["number"], 7);
    let refs = v["refs"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = refs
        .iter()
        .map(|r| (r["type"].as_str().unwrap(), r["target"].as_str().unwrap()))
        .collect();
    assert!(kinds.iter().any(|(k, _)| *k == "duplicate"), "{kinds:?}");
    assert!(kinds.iter().any(|(k, _)| *k == "commit"), "{kinds:?}");
    assert!(
        kinds
            .iter()
            .any(|(_, t)| t.contains("rust-lang/rust#12345")),
        "{kinds:?}"
    );
    assert!(kinds.iter().any(|(k, _)| *k == "url"), "{kinds:?}");
    for r in refs {
        assert!(r["context"].as_str().unwrap().chars().count() <= 120, "{r}");
    }
    assert!(v["warnings"].to_string().contains("timeline"), "{v}");
}

#[test]
fn merge_keeps_public_and_login_results_apart_and_flags_conflicts() {
    // The public side is what `ferret search --json` prints.
    let rows = r#"{"results": [
        {"url": "https://docs.rs/tokio?utm_source=x#top", "title": "tokio - Rust", "snippet": "An async runtime", "engine": "brave", "rank": 1},
        {"url": "https://tokio.rs/", "title": "Tokio", "snippet": "Reliable network applications", "engine": "brave", "rank": 2}
    ]}"#;
    let home = tempfile_dir();
    let searched = run_in(
        &home,
        &["search", "tokio", "--stdin-results", "--json"],
        Some(rows),
    );
    assert!(searched.status.success());
    let public = home.join("public.json");
    std::fs::write(&public, &searched.stdout).unwrap();
    // The login side: a bare array, read as the login partition.
    let login = home.join("login.json");
    std::fs::write(
        &login,
        r#"[{"url": "https://docs.rs/tokio", "title": "tokio (members only)", "snippet": "Seen while signed in"},
            {"url": "https://intranet.example.com/wiki/tokio", "title": "Team notes", "snippet": "internal"}]"#,
    )
    .unwrap();
    let (p, l) = (public.to_str().unwrap(), login.to_str().unwrap());

    let out = run_in(
        &home,
        &["merge", "--public", p, "--login", l, "--json"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["schema"], "ferret.merge.v1");
    assert_eq!(v["isolation"]["login_cache_eligible"], false);
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 4, "every item of both sides is kept: {v}");
    let dual: Vec<&Value> = items.iter().filter(|i| i["dual_sourced"] == true).collect();
    assert_eq!(dual.len(), 2, "docs.rs/tokio from both sides: {v}");
    assert_eq!(v["conflicts"].as_array().unwrap().len(), 1);
    for item in items {
        let login_item = item["side"] == "login";
        assert_eq!(item["provenance"]["cache_eligible"], !login_item, "{item}");
    }

    // People get a readable summary; a missing file is one line and exit 1.
    let human = run_in(&home, &["merge", "--public", p, "--login", l], None);
    assert!(human.status.success());
    assert!(String::from_utf8_lossy(&human.stdout).contains("on both sides"));
    let missing = run_in(
        &home,
        &["merge", "--public", p, "--login", "/nonexistent.json"],
        None,
    );
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("nonexistent.json"), "{err}");
}

#[test]
fn search_present_lists_few_results_and_groups_many_by_theme() {
    // Three results: listed, each with its sources and score.
    let few = r#"[
        {"url": "https://docs.rs/tokio", "title": "tokio async runtime", "snippet": "Rust async runtime", "engine": "brave", "rank": 1},
        {"url": "https://tokio.rs/", "title": "Tokio", "snippet": "Reliable async apps", "engine": "brave", "rank": 2},
        {"url": "https://github.com/tokio-rs/tokio", "title": "tokio-rs/tokio", "snippet": "A runtime for async Rust", "engine": "exa", "rank": 1}
    ]"#;
    let out = run(
        &["search", "tokio", "--stdin-results", "--present", "--json"],
        Some(few),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["schema"], "ferret.presentation.v1");
    assert_eq!(v["layout"], "list", "{v}");
    assert_eq!(v["results"].as_array().unwrap().len(), 3);

    // Ten results on two topics: grouped by theme, nothing dropped.
    let mut rows = Vec::new();
    for i in 0..5 {
        rows.push(format!(
            r#"{{"url": "https://bench{i}.example.com/a", "title": "Tokio benchmark throughput latency {i}", "snippet": "throughput latency benchmark numbers", "engine": "brave", "rank": {}}}"#,
            i + 1
        ));
        rows.push(format!(
            r#"{{"url": "https://guide{i}.example.org/b", "title": "Tokio tutorial spawning tasks {i}", "snippet": "tutorial spawning tasks channels", "engine": "exa", "rank": {}}}"#,
            i + 1
        ));
    }
    let many = format!("[{}]", rows.join(","));
    let out = run(
        &["search", "tokio", "--stdin-results", "--present", "--json"],
        Some(&many),
    );
    let v = json(&out);
    assert_eq!(v["layout"], "themes", "{v}");
    assert_eq!(v["results"].as_array().unwrap().len(), 10);
    assert!(v["themes"].as_array().unwrap().len() >= 2, "{v}");
    // People get the Markdown sources block.
    let human = run(
        &["search", "tokio", "--stdin-results", "--present"],
        Some(&many),
    );
    assert!(human.status.success());
    assert!(String::from_utf8_lossy(&human.stdout).contains("https://bench0.example.com/a"));
}

#[test]
fn fifty_concurrent_first_runs_all_answer_from_the_index() {
    // One empty FERRET_HOME, fifty processes at once: the one that seeds
    // the local index holds a lock, the others wait for it and then read
    // the seeded index — none fails, none answers from an empty index.
    let home = tempfile_dir();
    let children: Vec<std::process::Child> = (0..50)
        .map(|_| {
            let mut cmd = process::hermetic_command(&home);
            cmd.env("FERRET_OFFLINE", "1")
                .args(["search", "URL guard", "--engines", "local", "--json"])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().expect("spawn ferret")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("ferret output");
        assert!(
            out.status.success(),
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&out);
        assert!(
            !v["results"].as_array().unwrap().is_empty(),
            "no results: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn browser_api_refused_by_the_guard_exits_non_zero() {
    let out = run(
        &["browser", "api", "http://127.0.0.1:9/secret", "--json"],
        None,
    );
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("private_or_local_host_blocked") || stderr.contains("blocked"),
        "{stderr}"
    );
}
