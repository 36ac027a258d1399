//! A whole research run over the caller's rows on a loopback web: five
//! result rows whose pages each answer after 200 ms, one round, the
//! browser off — the pages are read concurrently, so the run costs about
//! one page's latency plus the judgement.
//!
//! - `research/run/5_rows_200ms`: `run_with_results` with `rounds = 1`.
//!
//! `cargo bench -p ferret-evidence --bench research_run`. Loopback only:
//! the page host is pinned to 127.0.0.1.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use criterion::{Criterion, criterion_group, criterion_main};
use ferret_core::guard::UrlGuard;
use ferret_evidence::fetch::{BrowserMode, Fetcher};
use ferret_evidence::research::{Research, ResearchOptions, normalize_results};

const HOST: &str = "slow.example";
const QUESTION: &str =
    "Is the Lumen 3 telescope mirror made of beryllium and cooled below 40 kelvin?";

async fn page() -> impl IntoResponse {
    tokio::time::sleep(Duration::from_millis(200)).await;
    let body = "<!doctype html><html lang=\"en\"><head><title>Lumen 3</title></head><body><article>\
        <h1>Lumen 3</h1><p>The Lumen 3 telescope has a primary mirror made of beryllium segments.</p>\
        <p>A cryocooler keeps the Lumen 3 instruments cooled below 40 kelvin during every run.</p>\
        <p>The observatory newsletter covers staffing changes and the public outreach programme.</p>\
        </article></body></html>";
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body)
}

async fn serve() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let router = Router::new().route("/p/{n}", get(page));
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

fn bench_run(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let addr = rt.block_on(serve());
    let fetcher = Fetcher::builder()
        .guard(UrlGuard::new())
        .browser_mode(BrowserMode::Never)
        .public_endpoints(false)
        .resolve(HOST, IpAddr::V4(Ipv4Addr::LOCALHOST))
        .build()
        .expect("fetcher");
    let research = Research::builder(fetcher).build();
    let rows: Vec<serde_json::Value> = (1..=5)
        .map(|i| serde_json::json!({"url": format!("http://{HOST}:{}/p/{i}", addr.port())}))
        .collect();
    let rows = serde_json::Value::Array(rows).to_string();
    let options = ResearchOptions::new()
        .with_browser(BrowserMode::Never)
        .with_rounds(1);
    let mut group = c.benchmark_group("research/run");
    group.sample_size(10);
    group.bench_function("5_rows_200ms", |b| {
        b.to_async(&rt).iter(|| async {
            let results = normalize_results(&rows, QUESTION, None);
            research
                .run_with_results(QUESTION, results, &options)
                .await
                .expect("research runs")
        })
    });
    group.finish();
}

criterion_group!(benches, bench_run);
criterion_main!(benches);
