//! The page cache through `ferret fetch`: a second fetch of a page is served
//! from `$FERRET_HOME/pages.db` without a request, `--cache refresh` and
//! `--cache off` go to the server. Loopback only.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

#[path = "support/process.rs"]
mod process;

/// A loopback server answering every page GET with one article (max-age
/// 600) and robots.txt with 404; counts the page requests.
fn server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let body: String = (0..20)
        .map(|i| format!("<p>Paragraph {i}: kept pages are read again without a request.</p>"))
        .collect();
    let page = format!(
        "<html><head><title>Kept page</title></head><body><article>{body}</article></body></html>"
    );
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let robots = line.starts_with("GET /robots.txt ");
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                line.clear();
            }
            if robots {
                // No robots.txt: everything allowed (read once per process).
                let _ = write!(
                    stream,
                    "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                );
                continue;
            }
            counted.fetch_add(1, Ordering::SeqCst);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncache-control: max-age=600\r\n\
                 content-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    (base, hits)
}

fn fetch(home: &std::path::Path, url: &str, extra: &[&str]) -> Value {
    let mut cmd = process::hermetic_command(home);
    cmd.env("FERRET_ALLOW_PRIVATE_URLS", "1")
        .args(["fetch", url, "--json", "--browser", "never"])
        .args(extra);
    let out = process::output_with_stdin(cmd, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn a_second_fetch_is_served_from_the_page_cache_and_the_flags_choose() {
    let home = process::temp_dir("cli-page-cache");
    let (base, hits) = server();
    let url = format!("{base}/article");
    let first = fetch(&home, &url, &[]);
    assert_eq!(first["cache"], "miss", "{first}");
    assert_eq!(first["title"], "Kept page");
    let second = fetch(&home, &url, &[]);
    assert_eq!(second["cache"], "hit");
    assert_eq!(second["text"], first["text"]);
    assert_eq!(hits.load(Ordering::SeqCst), 1, "the hit made no request");
    assert!(home.join("pages.db").exists());

    let refreshed = fetch(&home, &url, &["--cache", "refresh"]);
    assert_eq!(refreshed["cache"], "refreshed");
    let off = fetch(&home, &url, &["--cache", "off"]);
    assert_eq!(off["cache"], "bypass");
    assert_eq!(hits.load(Ordering::SeqCst), 3);
}

/// With `FERRET_REDIS_URL`, two processes with different homes share one
/// page cache on the server (the test run's redis-server, in
/// `FERRET_TEST_REDIS_URL`).
#[cfg(feature = "redis")]
#[test]
fn with_a_redis_url_processes_share_the_page_cache() {
    let Some(redis) = std::env::var("FERRET_TEST_REDIS_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
    else {
        eprintln!("skipped: FERRET_TEST_REDIS_URL not set (scripts/test starts a redis-server)");
        return;
    };
    let (base, hits) = server();
    let url = format!("{base}/shared");
    let mut seen = Vec::new();
    for run in 0..2 {
        let home = process::temp_dir(&format!("cli-page-cache-redis-{run}"));
        let mut cmd = process::hermetic_command(&home);
        cmd.env("FERRET_ALLOW_PRIVATE_URLS", "1")
            .env("FERRET_REDIS_URL", &redis)
            .args(["fetch", &url, "--json", "--browser", "never"]);
        let out = process::output_with_stdin(cmd, None);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let page: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        assert!(!home.join("pages.db").exists(), "the pages went to Redis");
        seen.push(page["cache"].clone());
    }
    assert_eq!(seen, ["miss", "hit"]);
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "the second process made no request"
    );
}
