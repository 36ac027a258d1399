//! The public-endpoint step: page URLs recognised, the APIs read from a
//! local server that answers with the real services' shapes (the recorded
//! Reddit thread and GitHub comments from the shared fixtures; small
//! hand-written bodies for the rest), and the fall-through to HTTP.

mod fetch_support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use ferret_core::guard::UrlGuard;
use ferret_fetch::endpoints::{Endpoints, Target};
use ferret_fetch::verify::Verdict;
use ferret_fetch::{
    AttemptOutcome, BrowserMode, EscalationReason, FetchOptions, Fetcher, FetcherBuilder, Source,
    WarningCode,
};
use fetch_support::*;
use url::Url;

// ---------------------------------------------------------------------------
// Recognising page URLs

fn target(url: &str) -> Option<Target> {
    Target::of(&Url::parse(url).unwrap())
}

#[test]
fn github_urls_map_to_repo_issue_and_file_targets() {
    assert_eq!(
        target("https://github.com/rust-lang/rust"),
        Some(Target::GithubRepo {
            owner: "rust-lang".into(),
            repo: "rust".into()
        })
    );
    assert_eq!(
        target("https://github.com/octokit/octokit.rb/issues/25#issuecomment-1"),
        Some(Target::GithubIssue {
            owner: "octokit".into(),
            repo: "octokit.rb".into(),
            number: 25
        })
    );
    assert_eq!(
        target("https://github.com/tokio-rs/tokio/pull/7000/files"),
        Some(Target::GithubIssue {
            owner: "tokio-rs".into(),
            repo: "tokio".into(),
            number: 7000
        })
    );
    assert_eq!(
        target("https://github.com/serde-rs/serde/blob/master/serde/src/lib.rs"),
        Some(Target::GithubFile {
            owner: "serde-rs".into(),
            repo: "serde".into(),
            rev: "master".into(),
            path: "serde/src/lib.rs".into()
        })
    );
    assert_eq!(target("https://github.com/settings/profile"), None);
    assert_eq!(target("https://github.com/rust-lang/rust/actions"), None);
    assert_eq!(target("https://github.com/rust-lang"), None);
}

#[test]
fn other_sites_map_to_their_targets() {
    assert_eq!(
        target("https://en.wikipedia.org/wiki/Rust_(programming_language)"),
        Some(Target::Wikipedia {
            lang: "en".into(),
            title: "Rust (programming language)".into()
        })
    );
    assert_eq!(
        target("https://zh.m.wikipedia.org/wiki/%E5%92%96%E5%95%A1%E5%9B%A0"),
        Some(Target::Wikipedia {
            lang: "zh".into(),
            title: "咖啡因".into()
        })
    );
    assert_eq!(
        target("https://arxiv.org/pdf/2401.01234v2.pdf"),
        Some(Target::Arxiv {
            id: "2401.01234v2".into()
        })
    );
    assert_eq!(
        target("https://arxiv.org/abs/hep-th/9901001"),
        Some(Target::Arxiv {
            id: "hep-th/9901001".into()
        })
    );
    assert_eq!(
        target("https://news.ycombinator.com/item?id=39232976"),
        Some(Target::HackerNews { id: 39232976 })
    );
    assert_eq!(target("https://news.ycombinator.com/news"), None);
    assert_eq!(
        target("https://old.reddit.com/r/rust/comments/abc123/some_title/"),
        Some(Target::Reddit {
            path: "/r/rust/comments/abc123/some_title".into()
        })
    );
    assert_eq!(
        target("https://redd.it/abc123"),
        Some(Target::Reddit {
            path: "/comments/abc123".into()
        })
    );
    assert_eq!(target("https://www.reddit.com/r/rust/"), None);
    assert_eq!(
        target("https://www.npmjs.com/package/@types/node/v/20.1.0"),
        Some(Target::Npm {
            name: "@types/node".into(),
            version: Some("20.1.0".into())
        })
    );
    assert_eq!(
        target("https://pypi.org/project/requests/2.31.0/"),
        Some(Target::Pypi {
            name: "requests".into(),
            version: Some("2.31.0".into())
        })
    );
    assert_eq!(
        target("https://crates.io/crates/serde"),
        Some(Target::Crates {
            name: "serde".into()
        })
    );
    assert_eq!(target("https://example.com/wiki/Thing"), None);
}

// ---------------------------------------------------------------------------
// A local server with the APIs' shapes

const API_HOST: &str = "api.example";
const RAW_HOST: &str = "raw.example";

/// The `Authorization` and `User-Agent` headers of a request.
type SeenHeaders = (Option<String>, Option<String>);

#[derive(Clone, Default)]
struct Seen {
    /// path?query → headers
    requests: Arc<Mutex<HashMap<String, SeenHeaders>>>,
}

impl Seen {
    fn get(&self, path: &str) -> Option<SeenHeaders> {
        self.requests.lock().unwrap().get(path).cloned()
    }

    fn any_starting(&self, prefix: &str) -> bool {
        self.requests
            .lock()
            .unwrap()
            .keys()
            .any(|k| k.starts_with(prefix))
    }
}

fn json(body: impl Into<String>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "{\"message\":\"Not Found\"}").into_response()
}

const ISSUE_25: &str = r#"{
  "url": "https://api.github.com/repos/octokit/octokit.rb/issues/25",
  "html_url": "https://github.com/octokit/octokit.rb/issues/25",
  "number": 25,
  "title": "Support the v3 API for issue comments",
  "user": {"login": "ctshryock", "id": 1},
  "state": "closed",
  "comments": 3,
  "created_at": "2011-05-17T21:03:20Z",
  "updated_at": "2011-06-02T15:27:51Z",
  "body": "The issue comments methods still talk to API v2. They should move to v3 so that comment bodies come back as Markdown and the new pagination works."
}"#;

const REPO: &str = r#"{
  "full_name": "rust-lang/rust",
  "description": "Empowering everyone to build reliable and efficient software.",
  "owner": {"login": "rust-lang"},
  "default_branch": "master",
  "stargazers_count": 100000,
  "forks_count": 13000,
  "open_issues_count": 10000,
  "language": "Rust",
  "license": {"spdx_id": "Apache-2.0"},
  "topics": ["compiler", "language", "rust"],
  "homepage": "https://www.rust-lang.org",
  "created_at": "2010-06-16T20:39:03Z",
  "pushed_at": "2026-11-28T10:00:00Z",
  "updated_at": "2026-11-28T10:00:00Z"
}"#;

const README: &str = "# The Rust Programming Language\n\nThis is the main source code repository for Rust. It contains the compiler, standard library, and documentation.\n\n## Why Rust?\n\n- Performance: Fast and memory-efficient, suitable for critical services, embedded devices, and easily integrated with other languages.\n- Reliability: Our rich type system and ownership model ensure memory and thread safety, reducing bugs at compile-time.\n- Productivity: Comprehensive documentation, a compiler committed to providing great diagnostics, and advanced tooling including package manager and build tool (Cargo), auto-formatter (rustfmt), linter (Clippy) and editor support (rust-analyzer).\n";

const WIKI: &str = r#"{"batchcomplete":true,"query":{"pages":[{"pageid":29414838,"ns":0,"title":"Rust (programming language)","extract":"Rust is a general-purpose programming language emphasizing performance, type safety, and concurrency. It enforces memory safety, meaning that all references point to valid memory.\n\n\n== History ==\nRust began as a personal project by Mozilla employee Graydon Hoare in 2006. Mozilla officially sponsored the project in 2009.\n\n\n=== Early years ===\nThe first numbered pre-alpha version of the Rust compiler was released in January 2012.\n\n\n== Syntax ==\nRust's syntax is similar to that of C and C++, although many of its features were influenced by functional programming languages such as OCaml.","revisions":[{"timestamp":"2026-04-08T12:00:00Z"}]}]}}"#;

const WIKI_SUMMARY: &str = r#"{"type":"standard","title":"Caffeine","description":"Central nervous system stimulant","extract":"Caffeine is a central nervous system (CNS) stimulant of the methylxanthine class and is the most commonly used psychoactive substance globally. It is mainly used for its eugeroic, ergogenic, or nootropic effects.","timestamp":"2026-10-01T08:00:00Z","lang":"en"}"#;

const ARXIV: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title>arXiv Query: id_list=2401.01234</title>
  <entry>
    <id>http://arxiv.org/abs/2401.01234v2</id>
    <updated>2024-02-10T18:00:00Z</updated>
    <published>2024-01-03T12:30:00Z</published>
    <title>Adenosine Signalling and Sleep Pressure:
      A Review</title>
    <summary>  We review how caffeine antagonises adenosine receptors and delays sleep pressure. Measurements from twelve studies show a consistent effect on sleep onset latency and slow-wave activity, with individual differences explained by genetic variation in metabolism.
    </summary>
    <author><name>Ada Lovelace</name></author>
    <author><name>Alan Turing</name></author>
    <arxiv:primary_category term="q-bio.NC"/>
    <category term="q-bio.NC" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>"#;

const HN: &str = r#"{"id":39232976,"created_at":"2024-02-02T16:40:44.000Z","type":"story","author":"dtech","title":"Pkl, a Programming Language for Configuration","url":"https://pkl-lang.org/blog/introducing-pkl.html","text":null,"points":843,"parent_id":null,
 "children":[
  {"id":1,"created_at":"2024-02-02T17:00:00.000Z","type":"comment","author":"alice","text":"<p>How does this compare to <a href=\"https://cuelang.org\">CUE</a>?<p>Second paragraph &amp; more.","children":[
     {"id":2,"created_at":"2024-02-02T17:10:00.000Z","type":"comment","author":"bob","text":"CUE is constraint-based; Pkl is more like a typed object language.","children":[]}
  ]},
  {"id":3,"created_at":"2024-02-02T18:00:00.000Z","type":"comment","author":null,"text":null,"children":[
     {"id":4,"created_at":"2024-02-02T18:05:00.000Z","type":"comment","author":"carol","text":"Reply under a deleted comment.","children":[]}
  ]}
 ]}"#;

const NPM: &str = r##"{"name":"left-pad","description":"String left pad","dist-tags":{"latest":"1.3.0"},
 "versions":{"1.3.0":{"name":"left-pad","version":"1.3.0","description":"String left pad","license":"WTFPL","repository":{"type":"git","url":"git+https://github.com/stevemao/left-pad.git"}}},
 "time":{"created":"2014-03-12T00:00:00.000Z","modified":"2022-06-19T00:00:00.000Z","1.3.0":"2018-04-09T01:47:54.000Z"},
 "readme":"# left-pad\n\nString left pad. Pads the left side of a string with a given character until it reaches a given length. This package is deprecated: use String.prototype.padStart instead, which every supported runtime provides natively.","license":"WTFPL"}"##;

const PYPI: &str = r##"{"info":{"name":"requests","version":"2.32.3","summary":"Python HTTP for Humans.","author":"Kenneth Reitz","license":"Apache-2.0","requires_python":">=3.8","home_page":"https://requests.readthedocs.io","project_urls":{"Source":"https://github.com/psf/requests"},
 "description":"# Requests\n\nRequests is a simple, yet elegant, HTTP library. It allows you to send HTTP/1.1 requests extremely easily. There is no need to manually add query strings to your URLs, or to form-encode your POST data."},
 "urls":[{"filename":"requests-2.32.3-py3-none-any.whl","upload_time_iso_8601":"2024-05-29T15:37:47.027Z"}],"releases":{}}"##;

const CRATE: &str = r#"{"crate":{"name":"serde","description":"A generic serialization/deserialization framework","max_version":"1.0.215","max_stable_version":"1.0.215","downloads":500000000,"created_at":"2014-12-05T20:20:39Z","updated_at":"2024-11-11T00:00:00Z","repository":"https://github.com/serde-rs/serde","documentation":"https://docs.rs/serde","homepage":"https://serde.rs"},
 "versions":[{"num":"1.0.215","created_at":"2024-11-11T00:00:00Z","license":"MIT OR Apache-2.0"}]}"#;

const CRATE_README: &str = "<html><body><article><h1>Serde</h1><p>Serde is a framework for serializing and deserializing Rust data structures efficiently and generically. The Serde ecosystem consists of data structures that know how to serialize and deserialize themselves along with data formats that know how to serialize and deserialize other things.</p></article></body></html>";

async fn api_server(seen: Seen, comments: Option<String>, reddit: Option<String>) -> SocketAddr {
    let comments = Arc::new(comments);
    let reddit = Arc::new(reddit);
    let router = Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
        let seen = seen.clone();
        let comments = comments.clone();
        let reddit = reddit.clone();
        async move {
            let key = uri
                .path_and_query()
                .map(|p| p.as_str().to_string())
                .unwrap_or_default();
            let h = |n: header::HeaderName| {
                headers
                    .get(n)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            seen.requests
                .lock()
                .unwrap()
                .insert(key, (h(header::AUTHORIZATION), h(header::USER_AGENT)));
            let query = uri.query().unwrap_or_default().to_string();
            match uri.path() {
                "/repos/octokit/octokit.rb/issues/25" => json(ISSUE_25),
                "/repos/octokit/octokit.rb/issues/25/comments" => match comments.as_ref() {
                    Some(c) => json(c.clone()),
                    None => not_found(),
                },
                "/repos/rust-lang/rust" => json(REPO),
                "/rust-lang/rust/master/README.md" => README.into_response(),
                "/repos/nobody/empty" => json(
                    r#"{"full_name":"nobody/empty","description":"An empty repository used to check that a missing README is reported rather than fatal.","default_branch":"main","stargazers_count":0,"created_at":"2020-01-01T00:00:00Z"}"#,
                ),
                "/repos/limited/repo" => (
                    StatusCode::FORBIDDEN,
                    "{\"message\":\"API rate limit exceeded\"}",
                )
                    .into_response(),
                "/limited/repo" => (
                    [(header::CONTENT_TYPE, "text/html")],
                    article("limited/repo on GitHub", 25),
                )
                    .into_response(),
                "/serde-rs/serde/master/serde/src/lib.rs" => {
                    "//! Serde is a framework for serializing and deserializing Rust data structures.\npub mod de;\npub mod ser;\n"
                        .into_response()
                }
                "/w/api.php" if query.contains("titles=Rust+%28programming+language%29") => {
                    json(WIKI)
                }
                "/w/api.php" => (StatusCode::INTERNAL_SERVER_ERROR, "oops").into_response(),
                "/api/rest_v1/page/summary/Caffeine" => json(WIKI_SUMMARY),
                "/api/query" if query == "id_list=2401.01234v2" => (
                    [(header::CONTENT_TYPE, "application/atom+xml")],
                    ARXIV,
                )
                    .into_response(),
                "/api/v1/items/39232976" => json(HN),
                "/r/announcements/comments/fo7p5b/introducing_reddit_polls.json"
                    if query == "limit=500&depth=4&raw_json=1" =>
                {
                    match reddit.as_ref() {
                        Some(r) => json(r.clone()),
                        None => not_found(),
                    }
                }
                "/left-pad" => json(NPM),
                "/pypi/requests/json" => json(PYPI),
                "/api/v1/crates/serde" => json(CRATE),
                "/api/v1/crates/serde/1.0.215/readme" => (
                    StatusCode::FOUND,
                    [(header::LOCATION, "/readmes/serde/serde-1.0.215.html")],
                )
                    .into_response(),
                "/readmes/serde/serde-1.0.215.html" => (
                    [(header::CONTENT_TYPE, "text/html")],
                    CRATE_README,
                )
                    .into_response(),
                _ => not_found(),
            }
        }
    });
    serve(router).await
}

/// A fetcher whose endpoints all live on the local server under
/// `api.example` (raw files under `raw.example`), with the default guard.
fn endpoint_fetcher(addr: SocketAddr) -> FetcherBuilder {
    let base = format!("http://{API_HOST}:{}", addr.port());
    let mut endpoints = Endpoints::all_at(&base);
    endpoints.github_raw = format!("http://{RAW_HOST}:{}", addr.port());
    Fetcher::builder()
        .guard(UrlGuard::new())
        .resolve(API_HOST, LOOPBACK)
        .resolve(RAW_HOST, LOOPBACK)
        .resolve("github.com", LOOPBACK)
        // Every other host (a page the ladder falls back to) is loopback
        // too: no test asks the DNS for a public name.
        .resolve("*", LOOPBACK)
        .endpoints(endpoints)
        .browser_mode(BrowserMode::Never)
}

#[tokio::test]
async fn a_github_issue_is_read_with_its_recorded_comments() {
    let Some(comments) = fixture("api/github-rest-issue-comments-octokit-rb-25-2016-10.json")
    else {
        return;
    };
    let seen = Seen::default();
    let addr = api_server(seen.clone(), Some(comments), None).await;
    let fetcher = endpoint_fetcher(addr)
        .github_token(Some("test-token".into()))
        .build()
        .unwrap();
    let url = "https://github.com/octokit/octokit.rb/issues/25";
    let page = fetcher.fetch(url, &FetchOptions::default()).await.unwrap();
    assert_eq!(page.source, Source::PublicEndpoint);
    assert_eq!(page.url, url);
    assert_eq!(page.final_url, url);
    assert!(
        page.title
            .as_deref()
            .unwrap()
            .starts_with("Support the v3 API")
    );
    assert_eq!(page.byline.as_deref(), Some("ctshryock"));
    assert_eq!(page.published_at.as_deref(), Some("2011-05-17T21:03:20Z"));
    assert!(page.text.contains("should move to v3"));
    assert_eq!(page.text.matches(" commented on ").count(), 3);
    assert!(
        page.text
            .contains("catsby commented on 2011-05-18T02:29:52Z")
    );
    assert!(page.ok, "{:?} {}", page.verdict, page.verdict_reason);
    assert_eq!(page.score.trust, 20);
    assert_eq!(page.attempts.len(), 1);
    assert!(
        page.attempts[0]
            .url
            .ends_with("/repos/octokit/octokit.rb/issues/25")
    );
    let (auth, ua) = seen.get("/repos/octokit/octokit.rb/issues/25").unwrap();
    assert_eq!(auth.as_deref(), Some("Bearer test-token"));
    assert!(ua.unwrap().starts_with("ferret/"));
    assert!(
        seen.get("/repos/octokit/octokit.rb/issues/25/comments?per_page=100&page=1")
            .is_some()
    );
}

#[tokio::test]
async fn a_github_repo_is_read_with_its_readme_and_the_token_stays_on_the_api_host() {
    let seen = Seen::default();
    let addr = api_server(seen.clone(), None, None).await;
    let fetcher = endpoint_fetcher(addr)
        .github_token(Some("test-token".into()))
        .build()
        .unwrap();
    let page = fetcher
        .fetch(
            "https://github.com/rust-lang/rust",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(page.source, Source::PublicEndpoint);
    assert_eq!(
        page.title.as_deref(),
        Some("rust-lang/rust: Empowering everyone to build reliable and efficient software.")
    );
    assert!(page.text.contains("Stars: 100000"));
    assert!(page.text.contains("Topics: compiler, language, rust"));
    assert!(page.text.contains("The Rust Programming Language"));
    assert_eq!(page.published_at.as_deref(), Some("2010-06-16T20:39:03Z"));
    assert_eq!(page.modified_at.as_deref(), Some("2026-11-28T10:00:00Z"));
    assert_eq!(page.verdict, Verdict::StrongOk);
    let (auth, _) = seen.get("/rust-lang/rust/master/README.md").unwrap();
    assert_eq!(auth, None, "the token is not sent to the raw host");
}

#[tokio::test]
async fn a_missing_readme_is_a_partial_warning_not_a_failure() {
    let addr = api_server(Seen::default(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let page = fetcher
        .fetch("https://github.com/nobody/empty", &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.source, Source::PublicEndpoint);
    assert!(page.has_warning(WarningCode::EndpointPartial));
    assert!(page.text.contains("An empty repository"));
}

#[tokio::test]
async fn a_github_file_is_read_raw() {
    let addr = api_server(Seen::default(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let page = fetcher
        .fetch(
            "https://github.com/serde-rs/serde/blob/master/serde/src/lib.rs",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(page.source, Source::PublicEndpoint);
    assert!(page.text.starts_with("//! Serde is a framework"));
    assert_eq!(
        page.title.as_deref(),
        Some("serde/src/lib.rs at master · serde-rs/serde")
    );
}

#[tokio::test]
async fn a_wikipedia_article_comes_whole_from_the_action_api() {
    let addr = api_server(Seen::default(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let page = fetcher
        .fetch(
            "https://en.wikipedia.org/wiki/Rust_(programming_language)",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(page.source, Source::PublicEndpoint);
    assert_eq!(page.title.as_deref(), Some("Rust (programming language)"));
    assert_eq!(page.language.as_deref(), Some("en"));
    assert!(
        page.text
            .contains("\n\nHistory\n\nRust began as a personal project")
    );
    assert!(page.markdown.contains("## History"));
    assert!(page.markdown.contains("### Early years"));
    assert!(!page.text.contains("=="));
    assert_eq!(page.published_at.as_deref(), Some("2026-04-08T12:00:00Z"));
    assert!(page.ok);
}

#[tokio::test]
async fn wikipedia_falls_back_to_the_summary() {
    let addr = api_server(Seen::default(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let page = fetcher
        .fetch(
            "https://en.wikipedia.org/wiki/Caffeine",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(page.source, Source::PublicEndpoint);
    assert!(page.text.starts_with("Central nervous system stimulant"));
    assert!(page.text.contains("methylxanthine"));
    assert!(page.has_warning(WarningCode::EndpointPartial));
}

#[tokio::test]
async fn an_arxiv_abstract_is_read_from_the_export_api() {
    let addr = api_server(Seen::default(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let page = fetcher
        .fetch(
            "https://arxiv.org/abs/2401.01234v2",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(page.source, Source::PublicEndpoint);
    assert_eq!(
        page.title.as_deref(),
        Some("Adenosine Signalling and Sleep Pressure: A Review")
    );
    assert_eq!(page.byline.as_deref(), Some("Ada Lovelace, Alan Turing"));
    assert_eq!(page.published_at.as_deref(), Some("2024-01-03T12:30:00Z"));
    assert_eq!(page.modified_at.as_deref(), Some("2024-02-10T18:00:00Z"));
    assert!(page.text.contains("Abstract: We review how caffeine"));
    assert!(page.text.contains("Categories: q-bio.NC"));
}

#[tokio::test]
async fn a_hacker_news_thread_is_flattened_depth_first() {
    let addr = api_server(Seen::default(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let page = fetcher
        .fetch(
            "https://news.ycombinator.com/item?id=39232976",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        page.title.as_deref(),
        Some("Pkl, a Programming Language for Configuration")
    );
    assert_eq!(page.byline.as_deref(), Some("dtech"));
    let alice = page.text.find("alice (").unwrap();
    let bob = page.text.find("bob (").unwrap();
    let carol = page.text.find("carol (").unwrap();
    assert!(alice < bob && bob < carol, "depth-first order");
    assert!(
        page.text
            .contains("How does this compare to CUE?\n\nSecond paragraph & more.")
    );
    assert!(page.text.contains("depth 2"));
    assert_eq!(
        page.text.matches("---").count(),
        3,
        "the deleted comment is skipped"
    );
}

#[tokio::test]
async fn a_reddit_thread_is_read_from_its_recorded_json_listing() {
    let Some(thread) = fixture("sites/reddit-thread-json-announcements-fo7p5b-2020-04.json") else {
        return;
    };
    let seen = Seen::default();
    let addr = api_server(seen.clone(), None, Some(thread)).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let page = fetcher
        .fetch(
            "https://www.reddit.com/r/announcements/comments/fo7p5b/introducing_reddit_polls/",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(page.source, Source::PublicEndpoint);
    assert_eq!(
        page.title.as_deref(),
        Some("Introducing Reddit Polls, An All-New Post Type")
    );
    assert_eq!(page.byline.as_deref(), Some("u/LanterneRougeOG"));
    assert_eq!(page.published_at.as_deref(), Some("2020-03-24T16:10:28Z"));
    assert!(page.text.contains("r/announcements"));
    assert_eq!(
        page.text.matches("\n---\n").count(),
        492,
        "every comment in the listing"
    );
    assert!(page.text.contains("u/gold_tie ("));
    assert!(
        page.has_warning(WarningCode::EndpointPartial),
        "the `more` stub is reported"
    );
    assert!(seen.any_starting(
        "/r/announcements/comments/fo7p5b/introducing_reddit_polls.json?limit=500&depth=4"
    ));
}

#[tokio::test]
async fn package_registries_are_read_from_their_apis() {
    let addr = api_server(Seen::default(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let npm = fetcher
        .fetch(
            "https://www.npmjs.com/package/left-pad",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(npm.title.as_deref(), Some("left-pad - npm"));
    assert_eq!(
        npm.published_at.as_deref(),
        Some("2018-04-09T01:47:54.000Z")
    );
    assert!(npm.text.contains("Version: 1.3.0 · License: WTFPL"));
    assert!(npm.text.contains("padStart"));

    let pypi = fetcher
        .fetch(
            "https://pypi.org/project/requests/",
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(pypi.title.as_deref(), Some("requests · PyPI"));
    assert_eq!(pypi.byline.as_deref(), Some("Kenneth Reitz"));
    assert_eq!(
        pypi.published_at.as_deref(),
        Some("2024-05-29T15:37:47.027Z")
    );
    assert!(pypi.text.contains("Requires Python: >=3.8"));
    assert!(
        pypi.text
            .contains("Source: https://github.com/psf/requests")
    );

    let krate = fetcher
        .fetch("https://crates.io/crates/serde", &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(krate.title.as_deref(), Some("serde - crates.io"));
    assert_eq!(krate.published_at.as_deref(), Some("2024-11-11T00:00:00Z"));
    assert!(krate.text.contains("License: MIT OR Apache-2.0"));
    assert!(
        krate.text.contains("Serde is a framework for serializing"),
        "the README behind the redirect: {}",
        krate.text
    );
    for page in [&npm, &pypi, &krate] {
        assert_eq!(page.source, Source::PublicEndpoint);
        assert!(page.ok, "{:?}", page.title);
    }
}

#[tokio::test]
async fn a_failing_endpoint_falls_through_to_http() {
    let addr = api_server(Seen::default(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let url = format!("http://github.com:{}/limited/repo", addr.port());
    let page = fetcher.fetch(&url, &FetchOptions::default()).await.unwrap();
    assert_eq!(page.source, Source::Fetch);
    assert_eq!(page.title.as_deref(), Some("limited/repo on GitHub"));
    let escalation = page.escalation.clone().unwrap();
    assert_eq!(escalation.from, Source::PublicEndpoint);
    assert_eq!(escalation.to, Source::Fetch);
    assert_eq!(escalation.reason, EscalationReason::EndpointFailed);
    assert!(escalation.detail.contains("403"));
    assert!(page.has_warning(WarningCode::PublicEndpointFailed));
    assert_eq!(page.attempts.len(), 2);
    assert_eq!(page.attempts[0].outcome, AttemptOutcome::Failed);
    assert_eq!(page.attempts[1].outcome, AttemptOutcome::Ok);
}

#[tokio::test]
async fn endpoint_calls_go_through_the_guard() {
    let addr = api_server(Seen::default(), None, None).await;
    // Endpoints on a loopback literal with a blocking guard: refused.
    let fetcher = Fetcher::builder()
        .guard(UrlGuard::new())
        .resolve("github.com", LOOPBACK)
        .endpoints(Endpoints::all_at(&loopback_url(addr, "")))
        .browser_mode(BrowserMode::Never)
        .build()
        .unwrap();
    let url = format!("http://github.com:{}/limited/repo", addr.port());
    let page = fetcher.fetch(&url, &FetchOptions::default()).await.unwrap();
    assert_eq!(page.attempts[0].outcome, AttemptOutcome::Failed);
    assert!(
        page.attempts[0]
            .detail
            .contains("private_or_local_host_blocked"),
        "{}",
        page.attempts[0].detail
    );
    assert_eq!(page.source, Source::Fetch);
}

#[tokio::test]
async fn endpoints_can_be_turned_off_per_call() {
    let seen = Seen::default();
    let addr = api_server(seen.clone(), None, None).await;
    let fetcher = endpoint_fetcher(addr).build().unwrap();
    let url = format!("http://github.com:{}/limited/repo", addr.port());
    let page = fetcher
        .fetch(&url, &FetchOptions::default().with_public_endpoints(false))
        .await
        .unwrap();
    assert_eq!(page.source, Source::Fetch);
    assert!(page.escalation.is_none());
    assert!(!seen.any_starting("/repos/"));
}
