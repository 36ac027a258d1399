//! Page cache latency: a page fetched from a loopback server, then read
//! again from the cache (a hit), and again past its freshness (a `304`
//! revalidation), against the same fetch with the cache off.
//!
//!   cargo run -p ferret-fetch --features page-cache --example bench_page_cache [-- ROUNDS]
//!
//! With feature `page-cache-redis` and `FERRET_BENCH_REDIS_URL` set to a
//! loopback redis-server, the pages are kept there instead of in SQLite.
//!
//! Prints the mean wall time of each case in milliseconds. Nothing leaves
//! loopback.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use ferret_core::guard::UrlGuard;
use ferret_fetch::cache::PageKey;
use ferret_fetch::{BrowserMode, CacheMode, FetchOptions, Fetcher, PageCache};

/// A loopback server: `/fresh` (max-age 600) and `/stale` (no-cache with an
/// ETag; a matching `If-None-Match` gets `304`).
fn serve() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let body: String = (0..200)
        .map(|i| format!("<p>Paragraph {i} of a page long enough to be worth caching.</p>"))
        .collect();
    let page = format!(
        "<html><head><title>Bench</title></head><body><article>{body}</article></body></html>"
    );
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            answer(stream, &page);
        }
    });
    port
}

fn answer(mut stream: std::net::TcpStream, page: &str) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let (mut path, mut conditional) = (String::new(), false);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if line.starts_with("GET ") {
            path = line.split(' ').nth(1).unwrap_or_default().to_string();
        }
        conditional |= line.to_ascii_lowercase().starts_with("if-none-match:");
    }
    let cc = if path == "/fresh" {
        "max-age=600"
    } else {
        "no-cache"
    };
    let _ = if conditional {
        write!(
            stream,
            "HTTP/1.1 304 Not Modified\r\netag: \"b\"\r\ncache-control: {cc}\r\nconnection: close\r\n\r\n"
        )
    } else {
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\netag: \"b\"\r\ncache-control: {cc}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
            page.len()
        )
    };
}

/// Mean ms of `rounds` fetches of `url` with `options`.
async fn mean_ms(fetcher: &Fetcher, url: &str, options: &FetchOptions, rounds: u32) -> f64 {
    let mut total = Duration::ZERO;
    for _ in 0..rounds {
        let t = Instant::now();
        fetcher.fetch(url, options).await.expect("fetch");
        total += t.elapsed();
    }
    total.as_secs_f64() * 1000.0 / f64::from(rounds)
}

/// The cache under test: Redis when `FERRET_BENCH_REDIS_URL` is set
/// (feature `page-cache-redis`), else a SQLite file in `dir`.
fn open_cache(dir: &std::path::Path) -> PageCache {
    #[cfg(feature = "page-cache-redis")]
    if let Ok(url) = std::env::var("FERRET_BENCH_REDIS_URL") {
        let ns = format!("ferret-bench-{}", std::process::id());
        return PageCache::redis(&url)
            .expect("redis URL")
            .with_namespace(ns);
    }
    PageCache::open(dir.join("pages.db")).expect("open the page cache")
}

#[tokio::main]
async fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let port = serve();
    let dir = std::env::temp_dir().join(format!("ferret-bench-page-cache-{}", std::process::id()));
    let cache = open_cache(&dir);
    println!("backend: {} ({})", cache.backend_name(), cache.location());
    let fetcher = Fetcher::builder()
        .guard(UrlGuard::new().allow_private(true))
        .browser_mode(BrowserMode::Never)
        .public_endpoints(false)
        .page_cache(cache)
        .build()
        .expect("fetcher");
    let fresh = format!("http://127.0.0.1:{port}/fresh");
    let stale = format!("http://127.0.0.1:{port}/stale");
    let on = FetchOptions::default();
    let off = FetchOptions::default().with_cache_mode(CacheMode::Off);
    fetcher.fetch(&fresh, &on).await.expect("warm");
    fetcher.fetch(&stale, &on).await.expect("warm");
    println!("{:<28} {:>10}", "case", "mean ms");
    for (name, url, options) in [
        ("no cache (off)", &fresh, &off),
        ("cache hit", &fresh, &on),
        ("revalidated (304)", &stale, &on),
    ] {
        println!(
            "{name:<28} {:>10.2}",
            mean_ms(&fetcher, url, options, rounds).await
        );
    }
    // The cache's own share of a hit: one lookup of the kept page.
    let lookup = open_cache(&dir);
    let key = PageKey::new(
        &url::Url::parse(&fresh).expect("url"),
        ferret_fetch::DEFAULT_USER_AGENT,
        ferret_fetch::DEFAULT_BODY_LIMIT,
    );
    let t = Instant::now();
    for _ in 0..rounds {
        assert!(lookup.get(&key).await.expect("get").is_some());
    }
    let ms = t.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds);
    println!("{:<28} {ms:>10.2}", "lookup only (no reading)");
    let _ = std::fs::remove_dir_all(dir);
}
