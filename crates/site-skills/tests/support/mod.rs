//! Shared pieces of the site-skills tests: package folders written into temp
//! dirs, the shared fixtures folder, a self-signed HTTPS server on loopback,
//! and a tiny harness for the one-browser test binary.

#![allow(dead_code)]

use std::future::Future;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;
use serde_json::Value;

/// The shared folder (`$FERRET_SHARED` or `<workspace>/../shared`), or
/// `None` (with the skip line printed) when absent.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join("../shared")
        });
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared not present");
        None
    }
}

/// Write a package folder `root/<folder>` with `manifest` and `files`.
pub fn write_package(
    root: &Path,
    folder: &str,
    manifest: &Value,
    files: &[(&str, &[u8])],
) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).expect("create the package folder");
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec_pretty(manifest).expect("manifest JSON"),
    )
    .expect("write manifest.json");
    for (path, bytes) in files {
        let p = dir.join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create a resource folder");
        }
        std::fs::write(p, bytes).expect("write a resource");
    }
    dir
}

/// A valid manifest for package `id` covering `domains`, with one bundle tool
/// `readPage` in `page.js`.
pub fn minimal_manifest(id: &str, domains: &[&str]) -> Value {
    serde_json::json!({
        "id": id,
        "name": "Example",
        "domains": domains,
        "notes": [],
        "browserTools": {
            "readPage": {
                "description": "Read the active page.",
                "path": "page.js",
                "binding": "window.ExampleTools",
                "callable": "readPage",
                "args": {},
                "returns": {"type": "object", "description": "Page state."}
            }
        }
    })
}

/// The script for [`minimal_manifest`].
pub const MINIMAL_SCRIPT: &[u8] =
    b"window.ExampleTools = { readPage: () => ({ title: document.title }) };";

/// Serve `router` over HTTPS on 127.0.0.1 (random port) with a self-signed
/// certificate for `names` (ring backend).
pub async fn serve_tls(router: axum::Router, names: &[&str]) -> SocketAddr {
    use tokio_rustls::TlsAcceptor;
    use tokio_rustls::rustls::ServerConfig;
    use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

    let certified =
        rcgen::generate_simple_self_signed(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
            .expect("a self-signed certificate");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .expect("a TLS server config");
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a local port");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                continue;
            };
            let acceptor = acceptor.clone();
            let router = router.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper_util::service::TowerToHyperService::new(router);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    addr
}

/// Serve `router` over plain HTTP on 127.0.0.1 (random port).
pub async fn serve_http(router: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a local port");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

/// The Chromium the tests launch: `FERRET_CHROMIUM` or `/usr/bin/chromium`.
pub fn chromium() -> PathBuf {
    std::env::var_os("FERRET_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// Whether browser tests must be skipped (only when asked with
/// `FERRET_SKIP_BROWSER_TESTS=1`; a missing Chromium is a failure).
pub fn skip_requested() -> bool {
    if std::env::var("FERRET_SKIP_BROWSER_TESTS").is_ok_and(|v| v == "1") {
        eprintln!("skipped: FERRET_SKIP_BROWSER_TESTS=1");
        return true;
    }
    false
}

/// Runs named scenarios in order, catches panics, prints cargo-style lines.
pub struct Harness {
    filter: Option<String>,
    passed: usize,
    failed: Vec<String>,
    filtered: usize,
    start: Instant,
}

impl Harness {
    pub fn new() -> Self {
        let filter = std::env::args()
            .skip(1)
            .find(|a| !a.starts_with('-'))
            .filter(|a| !a.is_empty());
        Harness {
            filter,
            passed: 0,
            failed: Vec::new(),
            filtered: 0,
            start: Instant::now(),
        }
    }

    pub async fn run<F: Future<Output = ()>>(&mut self, name: &str, scenario: F) {
        if self.filter.as_deref().is_some_and(|f| !name.contains(f)) {
            self.filtered += 1;
            return;
        }
        let t = Instant::now();
        match AssertUnwindSafe(scenario).catch_unwind().await {
            Ok(()) => {
                println!("test {name} ... ok ({} ms)", t.elapsed().as_millis());
                self.passed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED");
                self.failed.push(name.to_string());
            }
        }
    }

    pub fn finish(self) -> i32 {
        let ok = self.failed.is_empty();
        if !ok {
            println!("\nfailures:");
            for f in &self.failed {
                println!("    {f}");
            }
        }
        println!(
            "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
            if ok { "ok" } else { "FAILED" },
            self.passed,
            self.failed.len(),
            self.filtered,
            self.start.elapsed().as_secs_f64()
        );
        i32::from(!ok)
    }
}
