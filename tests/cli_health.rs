//! Engine health across runs of the `ferret` command line: an engine that
//! served a bot-detection page is skipped by the next run (`circuit_open`
//! with `until`), and a machine where no engine host answers gets its
//! answer from the local index at once, naming every engine it skipped.
//! Every engine points at loopback: nothing leaves the machine.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/process.rs"]
mod process;

/// A loopback HTTP server answering every request with a DuckDuckGo
/// anomaly page; counts requests.
fn bot_page_server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            answer(stream);
        }
    });
    (base, hits)
}

/// Read one request (headers and a Content-Length body) and send the page.
fn answer(mut stream: std::net::TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let page =
        "<html><body><div class=\"anomaly-modal\">bots use DuckDuckGo too</div></body></html>";
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
        page.len()
    );
}

/// A loopback port nobody listens on.
fn closed_port() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", l.local_addr().unwrap());
    drop(l);
    base
}

fn search(home: &Path, env: &[(&str, &str)]) -> (Value, Output) {
    let mut cmd = process::hermetic_command(home);
    cmd.envs(env.iter().copied())
        .args(["search", "canonical URL tracking parameters", "--json"]);
    let out = process::output_with_stdin(cmd, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    (v, out)
}

fn engine<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no report for {name}: {v}"))
}

#[test]
fn an_engine_that_served_a_bot_page_is_skipped_by_the_next_run_until_a_time() {
    let home = process::temp_dir("cli-health-bot");
    let (ddg, hits) = bot_page_server();
    let env = [("DUCKDUCKGO_API_BASE", ddg.as_str())];
    let (first, _) = search(&home, &env);
    let report = engine(&first, "duckduckgo");
    assert_eq!(report["error_kind"], "bot_detected", "{report}");
    let served = hits.load(Ordering::SeqCst);
    assert!(served >= 1);
    // The other engines' hosts refused the probe: unreachable, not called.
    for name in ["bing", "wikipedia", "github"] {
        let e = engine(&first, name);
        assert!(
            e["message"].as_str().unwrap().contains("unreachable"),
            "{e}"
        );
    }

    let (second, _) = search(&home, &env);
    let report = engine(&second, "duckduckgo");
    assert_eq!(report["status"], "circuit_open", "{report}");
    let until = report["until"].as_str().expect("until");
    assert!(
        chrono::DateTime::parse_from_rfc3339(until).is_ok(),
        "{until}"
    );
    assert_eq!(
        hits.load(Ordering::SeqCst),
        served,
        "the second run did not call the blocked engine"
    );
    assert!(home.join("health.db").exists());
}

#[test]
fn an_offline_first_search_answers_from_the_local_index_and_names_every_skipped_engine() {
    let home = process::temp_dir("cli-health-offline");
    let closed: Vec<String> = (0..4).map(|_| closed_port()).collect();
    let env = [
        ("DUCKDUCKGO_API_BASE", closed[0].as_str()),
        ("BING_API_BASE", closed[1].as_str()),
        ("WIKIPEDIA_API_BASE", closed[2].as_str()),
        ("GITHUB_API_BASE", closed[3].as_str()),
    ];
    for run in ["first", "second"] {
        let started = Instant::now();
        let (v, _) = search(&home, &env);
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "{run} run took {took:?}");
        assert!(!v["results"].as_array().unwrap().is_empty(), "{v}");
        assert_eq!(engine(&v, "local")["status"], "ok");
        for name in ["duckduckgo", "bing", "wikipedia", "github"] {
            let e = engine(&v, name);
            assert_eq!(e["error_kind"], "transport", "{run} {name}: {e}");
            let message = e["message"].as_str().unwrap();
            assert!(message.contains("offline:"), "{run} {name}: {message}");
            assert!(e["until"].is_string(), "{run} {name}: {e}");
        }
    }
}
