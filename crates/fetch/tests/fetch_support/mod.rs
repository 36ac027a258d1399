//! Shared helpers of the fetch / verify / safety tests: a local axum server,
//! the shared fixtures folder, and fetchers wired to the local server.
#![allow(dead_code)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ferret_core::guard::UrlGuard;
use ferret_fetch::{BrowserMode, FetcherBuilder};

/// The loopback address.
pub const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// A public-looking name the fetchers resolve to the local server.
pub const PUBLIC_HOST: &str = "public.example";

/// Serves `router` on 127.0.0.1 (random port).
pub async fn serve(router: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a local port");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

/// A URL on the local server under the public-looking name.
pub fn public_url(addr: SocketAddr, path: &str) -> String {
    format!("http://{PUBLIC_HOST}:{}{path}", addr.port())
}

/// A URL on the local server by its loopback address.
pub fn loopback_url(addr: SocketAddr, path: &str) -> String {
    format!("http://127.0.0.1:{}{path}", addr.port())
}

/// A builder with the default (blocking) guard, `public.example` pinned to
/// loopback, browser mode never, public endpoints off.
pub fn public_fetcher() -> FetcherBuilder {
    ferret_fetch::Fetcher::builder()
        .guard(UrlGuard::new())
        .resolve(PUBLIC_HOST, LOOPBACK)
        .browser_mode(BrowserMode::Never)
        .public_endpoints(false)
}

/// A builder whose guard allows private addresses (for loopback URLs).
pub fn private_fetcher() -> FetcherBuilder {
    ferret_fetch::Fetcher::builder()
        .guard(UrlGuard::new().allow_private(true))
        .browser_mode(BrowserMode::Never)
        .public_endpoints(false)
}

/// The shared fixtures folder: `$FERRET_SHARED`, else `<workspace>/../shared`.
/// `None` (with a note on stderr) when absent.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join("../shared")
        });
    if dir.join("fixtures").is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared not present");
        None
    }
}

/// Reads a fixture file, `None` (with a note) when the shared folder is
/// absent.
pub fn fixture(relative: &str) -> Option<String> {
    let dir = shared_dir()?;
    let path = dir.join("fixtures").join(relative);
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("skipped: {} not readable: {e}", path.display());
            None
        }
    }
}

/// A request counter for handlers.
#[derive(Clone, Default)]
pub struct Hits(pub Arc<AtomicUsize>);

impl Hits {
    /// Counts one.
    pub fn hit(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    /// The count.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// A readable article page: `paragraphs` paragraphs of distinct prose.
pub fn article(title: &str, paragraphs: usize) -> String {
    let mut body = String::new();
    for i in 0..paragraphs {
        body.push_str(&format!(
            "<p>Paragraph {i} explains how the caffeine molecule binds to adenosine receptors \
             in the brain, delaying the feeling of sleep pressure for several hours after a \
             cup of coffee, according to measurements made in study number {i}.</p>\n"
        ));
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <meta name=\"description\" content=\"An article about caffeine and sleep.\">\
         <link rel=\"canonical\" href=\"https://public.example/article\">\
         <meta property=\"og:title\" content=\"{title}\"></head>\
         <body><article><h1>{title}</h1>{body}</article></body></html>"
    )
}
