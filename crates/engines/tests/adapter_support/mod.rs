//! Shared pieces of the adapter tests: the real captures under
//! `$FERRET_SHARED` (or `<workspace>/../shared`), and the status → error
//! table every HTTP adapter must wire.

#![allow(dead_code)] // each test binary uses a subset

use std::path::PathBuf;
use std::time::Duration;

use ferret_core::{Engine, EngineError, EngineRequest, ErrorKind};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The shared folder, if present.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("FERRET_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    dir.is_dir().then_some(dir)
}

/// A capture's bytes, or `None` (with the skip note on stderr) when the
/// shared folder is absent. A missing file inside a present folder fails.
pub fn fixture(relative: &str) -> Option<Vec<u8>> {
    let Some(dir) = shared_dir() else {
        eprintln!("skipped: ../shared not present");
        return None;
    };
    let path = dir.join("fixtures").join(relative);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display())))
}

/// `fixture(...)` or return from the test.
#[macro_export]
macro_rules! fixture_or_skip {
    ($rel:expr) => {
        match $crate::adapter_support::fixture($rel) {
            Some(bytes) => bytes,
            None => return,
        }
    };
}

/// The error of a call that must fail.
pub async fn search_err(engine: &dyn Engine, request: &EngineRequest) -> EngineError {
    match engine.search(request).await {
        Ok(r) => panic!(
            "{}: expected an error, got {} hits",
            engine.name(),
            r.hits.len()
        ),
        Err(e) => e,
    }
}

/// One row of the status → error table.
pub struct StatusCase {
    pub status: u16,
    pub headers: &'static [(&'static str, &'static str)],
    pub content_type: &'static str,
    pub body: &'static str,
    pub kind: ErrorKind,
    pub temporary: bool,
}

/// The mapping every HTTP adapter shares (see `ferret_engines::http::status`).
pub const STATUS_CASES: &[StatusCase] = &[
    StatusCase {
        status: 429,
        headers: &[("retry-after", "3")],
        content_type: "application/json",
        body: r#"{"error":"too many requests"}"#,
        kind: ErrorKind::RateLimited,
        temporary: true,
    },
    StatusCase {
        status: 401,
        headers: &[],
        content_type: "application/json",
        body: r#"{"error":"invalid token"}"#,
        kind: ErrorKind::Auth,
        temporary: false,
    },
    StatusCase {
        status: 402,
        headers: &[],
        content_type: "application/json",
        body: r#"{"error":"payment required"}"#,
        kind: ErrorKind::Quota,
        temporary: false,
    },
    StatusCase {
        status: 403,
        headers: &[],
        content_type: "application/json",
        body: r#"{"error":"forbidden for this plan"}"#,
        kind: ErrorKind::AccessDenied,
        temporary: false,
    },
    StatusCase {
        status: 403,
        headers: &[],
        content_type: "text/html",
        body: "<html><title>Attention Required! | Cloudflare</title><p>Checking your browser</p></html>",
        kind: ErrorKind::BotDetected,
        temporary: false,
    },
    StatusCase {
        status: 500,
        headers: &[],
        content_type: "text/plain",
        body: "internal error",
        kind: ErrorKind::Transport,
        temporary: true,
    },
    StatusCase {
        status: 503,
        headers: &[],
        content_type: "text/plain",
        body: "unavailable",
        kind: ErrorKind::Transport,
        temporary: true,
    },
];

/// Serve each row of [`STATUS_CASES`] in turn (any path) and check the
/// engine `make(base_url)` maps it; `skip` lists statuses an adapter maps
/// on purpose differently (tested separately). A 429's `retry_after` must
/// be the header's 3 s.
pub async fn check_status_mapping<E, F>(make: F, skip: &[u16])
where
    E: Engine,
    F: Fn(&str) -> E,
{
    let server = MockServer::start().await;
    let engine = make(&server.uri());
    for case in STATUS_CASES.iter().filter(|c| !skip.contains(&c.status)) {
        server.reset().await;
        let mut template = ResponseTemplate::new(case.status)
            .set_body_raw(case.body.as_bytes().to_vec(), case.content_type);
        for (k, v) in case.headers {
            template = template.insert_header(*k, *v);
        }
        Mock::given(any())
            .respond_with(template)
            .mount(&server)
            .await;
        let e = search_err(&engine, &EngineRequest::new("rust async runtime")).await;
        assert_eq!(
            e.kind(),
            case.kind,
            "{}: HTTP {} ({}) gave {e}",
            engine.name(),
            case.status,
            case.body
        );
        assert_eq!(e.is_temporary(), case.temporary, "{}: {e}", engine.name());
        if case.status == 429 {
            assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
        }
        assert!(!e.to_string().is_empty());
    }
}

/// The requests a server received, as (path, query pairs, JSON body).
pub async fn received(server: &MockServer) -> Vec<wiremock::Request> {
    server.received_requests().await.unwrap_or_default()
}

/// A query parameter of a received request.
pub fn query_param(request: &wiremock::Request, name: &str) -> Option<String> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}
