//! Shared pieces of the site-skills tests: package folders written into temp
//! dirs, the shared fixtures folder, a self-signed HTTPS server on loopback,
//! and (from ferret-browser's tests) the harness for the one-browser test
//! binary.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

/// The runner shared with ferret-browser's browser tests: the scenario
/// harness, the Chromium path, the skip switch and a plain-HTTP loopback
/// server.
#[path = "../../../browser/tests/support/harness.rs"]
mod harness;
#[allow(unused_imports)] // each test binary uses its own subset
pub use harness::{Harness, chromium, serve as serve_http, skip_requested};

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
