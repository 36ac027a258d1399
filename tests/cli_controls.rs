//! `ferret search` controls on the command line, run as a process with no
//! network: `--exclude-site` and `--since` filter the rows given on stdin,
//! and `--json` reports each removed row with its reason.

use std::process::Output;

use serde_json::Value;

#[path = "support/process.rs"]
mod process;

fn search(args: &[&str], rows: &str) -> Output {
    let home = process::temp_dir("cli-controls");
    let mut cmd = process::hermetic_command(&home);
    cmd.env("FERRET_OFFLINE", "1")
        .args(["search", "tokio runtime", "--stdin-results", "--json"])
        .args(args);
    process::output_with_stdin(cmd, Some(rows))
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

const ROWS: &str = r#"[
    {"url": "https://docs.rs/tokio", "title": "tokio runtime docs", "snippet": "The tokio runtime API", "engine": "brave", "rank": 1, "published_at": "2025-03-01"},
    {"url": "https://www.reddit.com/r/rust/tokio", "title": "tokio runtime thread", "snippet": "People on the tokio runtime", "engine": "brave", "rank": 2, "published_at": "2025-04-01"},
    {"url": "https://tokio.rs/blog/2019", "title": "tokio runtime, 2019", "snippet": "An old post on the tokio runtime", "engine": "brave", "rank": 3, "published_at": "2019-11-26"},
    {"url": "https://tokio.rs/tokio/tutorial", "title": "tokio runtime tutorial", "snippet": "Learn the tokio runtime", "engine": "brave", "rank": 4}
]"#;

#[test]
fn exclude_site_and_since_filter_rows_and_report_them_in_json() {
    let v = json(&search(
        &["--exclude-site", "reddit.com", "--since", "2025-01-01"],
        ROWS,
    ));
    let mut urls: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["original_url"].as_str().unwrap())
        .collect();
    urls.sort();
    assert_eq!(
        urls,
        ["https://docs.rs/tokio", "https://tokio.rs/tokio/tutorial"],
        "{v}"
    );
    let mut dropped: Vec<(&str, &str)> = v["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["url"].as_str().unwrap(), d["reason"].as_str().unwrap()))
        .collect();
    dropped.sort();
    assert_eq!(
        dropped,
        [
            ("https://tokio.rs/blog/2019", "published-before-since"),
            ("https://www.reddit.com/r/rust/tokio", "excluded-domain"),
        ]
    );
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("had no publication date")),
        "the undated tutorial is kept and counted: {warnings:?}"
    );
}

#[test]
fn site_keeps_only_the_listed_domains() {
    let v = json(&search(&["--site", "docs.rs,example.org"], ROWS));
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{v}");
    assert_eq!(results[0]["original_url"], "https://docs.rs/tokio");
    assert!(
        v["dropped"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["reason"] == "outside-included-domains")
    );
}

#[test]
fn a_bad_control_fails_the_search_and_says_why() {
    for (args, words) in [
        (
            &["--since", "2025-02-01", "--until", "2025-01-01"][..],
            "since",
        ),
        (&["--page", "0"][..], "page 0"),
        (&["--exclude-site", "https://reddit.com/r"][..], "host name"),
        (&["--safe", "maybe"][..], "maybe"),
    ] {
        let out = search(args, ROWS);
        assert!(!out.status.success(), "{args:?} should fail");
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(all.contains(words), "{args:?}: {all}");
    }
}
