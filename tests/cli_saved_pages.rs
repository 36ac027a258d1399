//! `ferret fetch --from-file` for saved pages: several files at once (read
//! in parallel, printed in order), `-` for stdin, `--url` for a page's
//! original address, and a page with no main text never reported ok.
//! Everything is offline: no network is touched.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

#[path = "support/process.rs"]
mod process;

const ARTICLE: &str = "<html><head><title>Ferret habits</title></head><body><article><h1>Ferret habits</h1><p>Ferrets sleep for up to eighteen hours a day and are most active at dawn and dusk, when they explore, play and hunt in short bursts of energy, as the <a href=\"/care\">care guide</a> explains.</p></article></body></html>";
const NAV_ONLY: &str =
    "<html><body><nav><a href=\"/a\">Home</a> <a href=\"/b\">About</a></nav></body></html>";

fn ferret(home: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = process::hermetic_command(home);
    cmd.env("FERRET_OFFLINE", "1")
        .env_remove("RUST_LOG")
        .args(args);
    process::output_with_stdin(cmd, stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh folder with the two saved pages.
fn pages() -> std::path::PathBuf {
    let dir = process::temp_dir("saved-pages");
    std::fs::write(dir.join("article.html"), ARTICLE).unwrap();
    std::fs::write(dir.join("nav.html"), NAV_ONLY).unwrap();
    dir
}

#[test]
fn several_files_print_in_order_and_a_missing_one_fails_the_run_only() {
    let dir = pages();
    let (a, n, missing) = (
        dir.join("article.html"),
        dir.join("nav.html"),
        dir.join("gone.html"),
    );
    let args = [
        "fetch",
        "--from-file",
        a.to_str().unwrap(),
        missing.to_str().unwrap(),
        n.to_str().unwrap(),
    ];
    let out = ferret(&dir, &args, None);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let first = stdout
        .find("article.html <==")
        .expect("the article's header");
    let second = stdout.find("nav.html <==").expect("the nav page's header");
    assert!(first < second, "{stdout}");
    assert!(stdout.contains("eighteen hours a day"), "{stdout}");
    assert!(
        text(&out.stderr).contains("gone.html"),
        "the missing file is named"
    );
}

#[test]
fn several_files_with_json_give_one_envelope_per_line() {
    let dir = pages();
    let (a, n) = (dir.join("article.html"), dir.join("nav.html"));
    let out = ferret(
        &dir,
        &[
            "fetch",
            "--json",
            "--from-file",
            a.to_str().unwrap(),
            n.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON envelope"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0]["text"]
            .as_str()
            .unwrap()
            .contains("eighteen hours")
    );
    // No main text is never ok: the nav-only page is `thin`, with a reason.
    assert_eq!(lines[1]["verdict"], "thin");
    assert_eq!(lines[1]["ok"], false);
    assert!(!lines[1]["verdict_reason"].as_str().unwrap().is_empty());
}

#[test]
fn stdin_with_its_original_url_resolves_links_against_it() {
    let dir = pages();
    let args = [
        "fetch",
        "--json",
        "--from-file",
        "-",
        "--url",
        "https://ferrets.example/guide/habits",
    ];
    let out = ferret(&dir, &args, Some(ARTICLE));
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let page: Value = serde_json::from_slice(&out.stdout).expect("one envelope");
    assert_eq!(page["url"], "https://ferrets.example/guide/habits");
    let markdown = page["markdown"].as_str().unwrap();
    assert!(
        markdown.contains("(https://ferrets.example/care)"),
        "{markdown}"
    );
}

#[test]
fn url_with_several_files_is_a_usage_error() {
    let dir = pages();
    let a = dir.join("article.html");
    let a = a.to_str().unwrap();
    let out = ferret(
        &dir,
        &[
            "fetch",
            "--from-file",
            a,
            a,
            "--url",
            "https://ferrets.example/",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "stderr: {}", text(&out.stderr));
}

#[test]
fn markup_the_parser_repairs_prints_no_parser_log_lines() {
    // Text inside a table but outside its cells is moved before the table
    // (the HTML standard's foster parenting); the parser logs that as a
    // warning, which is its own news, not the user's.
    let page = "<html><body><article><table>Ferrets are fostered out of tables.<tr><td>cell</td></tr></table><p>Ferrets sleep for up to eighteen hours a day and are most active at dawn and dusk, when they explore, play and hunt.</p></article></body></html>";
    let dir = pages();
    let out = ferret(&dir, &["fetch", "--from-file", "-"], Some(page));
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Ferrets are fostered out of tables."),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(text(&out.stderr), "", "no log lines on stderr");
}
