//! A small local web for the research tests: pages about the (fictional)
//! Lumen 3 telescope served on 127.0.0.1 under public-looking host names,
//! a JavaScript-only page, an empty page, slow pages that count how many
//! requests are in flight, and a fetcher wired to all of it.
#![allow(dead_code)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, TimeZone, Utc};
use ferret_core::guard::UrlGuard;
use ferret_evidence::fetch::{BrowserMode, Fetcher, FetcherBuilder};

#[path = "../../../fetch/tests/fetch_support/mod.rs"]
mod fetch_support;

/// Serve a router on loopback (the fetch tests' server).
#[allow(unused_imports)] // only some test binaries serve their own router
pub use fetch_support::serve as serve_router;

/// The loopback address.
pub const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// The question every test asks.
pub const QUESTION: &str =
    "Is the Lumen 3 telescope mirror made of beryllium and cooled below 40 kelvin?";

/// Host names pinned to the local server.
pub const HOSTS: &[&str] = &[
    "lang.example",
    "news.example",
    "blog.example",
    "spa.example",
    "myth.example",
    "slow.example",
    "empty.example",
];

/// A fixed "now".
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap()
}

/// Paragraphs that mention none of the question's terms, to give pages a
/// realistic length.
const FILLER: &[&str] = &[
    "The observatory newsletter covers staffing changes, budget planning and the public outreach programme that runs every spring in the visitor centre.",
    "Volunteers guide school groups through the exhibition hall, where models of earlier instruments and archive photographs show how the site grew over the decades.",
    "The cafeteria reopened after renovation with a wider menu, longer opening hours on weekends and a quiet corner reserved for night-shift staff.",
    "Road access to the summit is limited during winter storms, so the operations team publishes closures on the notice board and the staff mailing list.",
    "A new data archive lets researchers request observation logs online; requests are reviewed weekly and answered by the archive office.",
];

/// An article page: title, description, canonical link, OpenGraph tags,
/// the given paragraphs and the filler.
pub fn article(title: &str, published: &str, paragraphs: &[&str]) -> String {
    let mut body = String::new();
    for p in paragraphs.iter().chain(FILLER) {
        body.push_str(&format!("<p>{p}</p>\n"));
    }
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="description" content="{title}">
<meta property="og:title" content="{title}">
<meta property="article:published_time" content="{published}">
<link rel="canonical" href="/canonical">
</head><body><nav><a href="/">Home</a></nav>
<article><h1>{title}</h1>
{body}</article>
<footer>© Observatory</footer></body></html>"#
    )
}

/// The JavaScript-only page: the text exists only after a script runs.
pub const SPA: &str = r#"<!doctype html><html lang="en"><head><title>Lumen 3 cryogenics</title></head>
<body><div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
<script>
  document.addEventListener('DOMContentLoaded', function () {
    setTimeout(function () {
      var root = document.getElementById('root');
      var article = document.createElement('article');
      var h = document.createElement('h1');
      h.textContent = 'Lumen 3 cryogenics';
      article.appendChild(h);
      var lines = [
        'A closed-cycle cryocooler keeps the Lumen 3 detectors cooled below 40 kelvin for the whole night.',
        'Engineers check the cooling loop before every observation and log the temperatures in the control room.',
        'The cooling plant sits in a separate building so that its vibrations never reach the instruments.',
        'Spare compressors are kept on site, and the maintenance crew rehearses a swap twice a year.',
        'Temperature data is published with each observation log so that researchers can judge detector noise.',
        'The control software raises an alarm long before the detectors warm up enough to matter.'
      ];
      for (var i = 0; i < lines.length; i++) {
        var p = document.createElement('p');
        p.textContent = lines[i] + ' ' + lines[(i + 1) % lines.length];
        article.appendChild(p);
      }
      root.appendChild(article);
    }, 50);
  });
</script></body></html>"#;

/// Counts requests in flight on the slow pages.
#[derive(Debug, Default)]
pub struct InFlight {
    now: AtomicUsize,
    max: AtomicUsize,
    total: AtomicUsize,
}

impl InFlight {
    /// The most requests that were in flight at once.
    pub fn max(&self) -> usize {
        self.max.load(Ordering::SeqCst)
    }

    /// Requests served.
    pub fn total(&self) -> usize {
        self.total.load(Ordering::SeqCst)
    }
}

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

async fn slow(State(counter): State<Arc<InFlight>>) -> Response {
    let now = counter.now.fetch_add(1, Ordering::SeqCst) + 1;
    counter.max.fetch_max(now, Ordering::SeqCst);
    counter.total.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(250)).await;
    counter.now.fetch_sub(1, Ordering::SeqCst);
    html(article(
        "Lumen 3 telescope mirror",
        "2026-05-01",
        &["The Lumen 3 telescope mirror is made of beryllium."],
    ))
}

/// The local web, and its slow-page counter.
pub struct LocalWeb {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The slow pages' counter.
    pub in_flight: Arc<InFlight>,
}

impl LocalWeb {
    /// Serves the pages.
    pub async fn start() -> Self {
        let in_flight = Arc::new(InFlight::default());
        let router = Router::new()
            .route(
                "/lumen/mirror",
                get(|| async {
                    html(article(
                        "Lumen 3 primary mirror design",
                        "2026-03-10",
                        &[
                            "The Lumen 3 telescope has a primary mirror made of beryllium segments, chosen for stiffness at low mass.",
                            "Each segment is polished to a precision of a few nanometres and coated with gold for infrared work.",
                        ],
                    ))
                }),
            )
            .route(
                "/lumen/cryo",
                get(|| async {
                    html(article(
                        "Keeping Lumen 3 cold",
                        "2026-04-02",
                        &[
                            "A cryocooler keeps the Lumen 3 instruments cooled below 40 kelvin during every observation run.",
                            "The cooling system was tested for six months before first light.",
                        ],
                    ))
                }),
            )
            .route(
                "/lumen/press",
                get(|| async {
                    html(article(
                        "Lumen 3 launch press kit",
                        "2025-11-20",
                        &[
                            "The Lumen 3 launch window opens in the autumn, and the press centre will stream the countdown.",
                            "Accredited journalists can book interviews with the mission scientists through the press office.",
                        ],
                    ))
                }),
            )
            .route(
                "/lumen/myth",
                get(|| async {
                    html(article(
                        "Lumen 3 myths",
                        "2026-02-01",
                        &[
                            "Contrary to some reports, the Lumen 3 mirror is not made of beryllium; the segments are a glass ceramic.",
                        ],
                    ))
                }),
            )
            .route(
                "/spa/lumen",
                get(|| async { html(SPA.to_string()) }),
            )
            .route(
                "/empty",
                get(|| async { html("<!doctype html><html><head></head><body></body></html>".to_string()) }),
            )
            .route(
                "/forbidden",
                get(|| async { (StatusCode::FORBIDDEN, "Forbidden").into_response() }),
            )
            .route("/slow/{n}", get(slow))
            .with_state(in_flight.clone());
        let addr = fetch_support::serve(router).await;
        LocalWeb { addr, in_flight }
    }

    /// `http://<host>:<port><path>`.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.addr.port())
    }
}

/// A fetcher builder with the default (blocking) guard and every test host
/// pinned to loopback; public endpoints off; browser mode never.
pub fn fetcher_builder() -> FetcherBuilder {
    let mut builder = Fetcher::builder()
        .guard(UrlGuard::new())
        .browser_mode(BrowserMode::Never)
        .public_endpoints(false)
        .timeout(Duration::from_secs(10));
    for host in HOSTS {
        builder = builder.resolve(host, LOOPBACK);
    }
    builder
}

/// The fetcher of [`fetcher_builder`].
pub fn fetcher() -> Fetcher {
    fetcher_builder().build().expect("fetcher")
}

/// Result rows as an agent's own search would give them.
pub fn rows(items: &[(&str, &str, &str)]) -> String {
    let rows: Vec<serde_json::Value> = items
        .iter()
        .map(|(url, title, snippet)| serde_json::json!({"url": url, "title": title, "snippet": snippet}))
        .collect();
    serde_json::Value::Array(rows).to_string()
}
