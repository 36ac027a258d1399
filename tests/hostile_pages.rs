//! Hostile input through the `ferret` command line: every page of the
//! hostile web (`support/hostile.rs` — a million nested or sibling
//! elements, bodies past the cap, binary bytes, lying charsets, gzip and
//! brotli bombs, a drip, a hang, framing errors, redirects the guard
//! refuses) fed to `ferret fetch`, `verify` and `extract`, and a research
//! over rows pointing at them beside a normal page. Each run must end with
//! a typed verdict or error of the expected kind and exit code, never a
//! panic, and within the fetch timeout plus a generous slack. Then the
//! bounds of the other inputs: saved pages that are huge or not regular
//! files, a goggle that is a device, more rows than are read, and a
//! redirect to a private address refused by the default guard.
//!
//! Outcomes only, never timings beyond one generous upper bound per run.
//! Runs are offline (the keyless engines at a closed port) with the guard
//! told to let loopback through, as the other CLI tests do.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use ferret::evidence::fetch::DEFAULT_TIMEOUT;
use serde_json::{Value, json};

#[path = "support/hostile.rs"]
mod hostile;
#[path = "support/process.rs"]
mod process;

use hostile::{HostileWeb, Scale};

/// How long past the fetch timeout a run may take: the debug build on a
/// busy two-core machine, many runs side by side.
const SLACK: Duration = Duration::from_secs(20);

/// Runs side by side of the pages that make the reader work (the slow
/// pages, which only wait, each get a thread of their own).
const WORKERS: usize = 3;

const QUESTION: &str =
    "Does the Harbor 9 ferry run on hydrogen fuel cells and carry 300 passengers?";

/// The hostile web, generated once for every test.
fn web() -> &'static HostileWeb {
    static WEB: OnceLock<HostileWeb> = OnceLock::new();
    WEB.get_or_init(|| HostileWeb::start(Scale::TESTS))
}

/// A scratch folder holding the extraction schema, made once.
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = process::temp_dir("hostile");
        let schema = json!({
            "type": "object",
            "properties": {"headline": {"type": "string"}},
            "required": ["headline"],
        });
        std::fs::write(dir.join("schema.json"), schema.to_string()).unwrap();
        dir
    })
}

/// A hermetic, offline `ferret` that may reach loopback.
fn ferret(args: &[&str]) -> Command {
    let mut cmd = process::hermetic_command(&process::temp_dir("hostile-home"));
    cmd.env("FERRET_OFFLINE", "1")
        .env("FERRET_NO_CACHE", "1")
        .env("FERRET_ALLOW_PRIVATE_URLS", "1")
        .env_remove("RUST_LOG")
        .env_remove("FERRET_CHROMIUM")
        .args(args);
    cmd
}

/// What a run ended with.
#[derive(Debug)]
struct Outcome {
    code: i32,
    /// The verdict, or the `ferret.error.v1` kind.
    label: String,
    /// Warning codes and the reason, to look for a detail in.
    details: Vec<String>,
    elapsed: Duration,
    stderr: String,
}

/// Run `cmd` (stdin: `input`) and read its JSON answer.
fn run(cmd: Command, input: Option<&str>) -> (Outcome, Value) {
    let started = Instant::now();
    let out: Output = process::output_with_stdin(cmd, input);
    let elapsed = started.elapsed();
    let value: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let label = value["verdict"]
        .as_str()
        .or(value["kind"].as_str())
        .unwrap_or("<no JSON>")
        .to_string();
    let mut details: Vec<String> = value["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w["code"].as_str().or(w.as_str()).map(str::to_string))
        .collect();
    for key in ["reason", "message"] {
        if let Some(text) = value[key].as_str() {
            details.push(text.to_string());
        }
    }
    let outcome = Outcome {
        code: out.status.code().unwrap_or(-1),
        label,
        details,
        elapsed,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    (outcome, value)
}

/// What a command must end with on a page.
#[derive(Debug, Clone, Copy)]
struct Want {
    codes: &'static [i32],
    labels: &'static [&'static str],
    /// A warning code or a piece of the reason that must be there.
    detail: Option<&'static str>,
}

const fn want(
    codes: &'static [i32],
    labels: &'static [&'static str],
    detail: Option<&'static str>,
) -> Want {
    Want {
        codes,
        labels,
        detail,
    }
}

/// A usable page.
const OK: &[&str] = &["strong_ok", "weak_ok"];
/// A page too poor or too costly to read.
const POOR: &[&str] = &["thin", "too_complex"];
/// Any typed verdict.
const ANY: &[&str] = &[
    "strong_ok",
    "weak_ok",
    "thin",
    "too_complex",
    "blocked",
    "unsupported",
    "error",
];
/// What `extract` says of a page it could read but not map.
const NOT_MAPPED: &[&str] = &["no_mappable_structure", "fetch_blocked"];

/// One page and what `fetch`, `verify` and `extract` must say of it.
struct Expect {
    path: &'static str,
    fetch: Want,
    verify: Want,
    extract: Want,
}

const fn page(path: &'static str, fetch: Want, verify: Want, extract: Want) -> Expect {
    Expect {
        path,
        fetch,
        verify,
        extract,
    }
}

/// A page the reader gives up on in time: the fetch timeout.
const fn stalls(path: &'static str) -> Expect {
    page(
        path,
        want(&[1], &["timeout"], None),
        want(&[3], &["error"], Some("timeout")),
        want(&[1], &["fetch_failed"], Some("took longer than")),
    )
}

/// A body that breaks HTTP framing: a transport error.
const fn broken(path: &'static str) -> Expect {
    page(
        path,
        want(&[1], &["network"], None),
        want(&[3], &["error"], Some("transport")),
        want(&[1], &["fetch_failed"], None),
    )
}

/// A page read past the cap: cut, and judged as what was read.
const fn capped(path: &'static str, verdicts: &'static [&'static str]) -> Expect {
    page(
        path,
        want(&[0], verdicts, Some("body_truncated")),
        want(&[0, 3], verdicts, Some("body_truncated")),
        want(&[1], NOT_MAPPED, None),
    )
}

/// A compression bomb (HTML, then zeros): inflated only up to the cap,
/// and never read as text.
const fn bomb(path: &'static str) -> Expect {
    page(
        path,
        want(&[0], &["unsupported"], Some("body_truncated")),
        want(&[3], &["unsupported"], Some("body_truncated")),
        want(&[1], &["fetch_blocked"], None),
    )
}

/// The pages that hold a connection until the fetch timeout.
const SLOW: &[&str] = &["/drip", "/hang"];

const EXPECTED: &[Expect] = &[
    stalls("/drip"),
    stalls("/hang"),
    page(
        "/normal",
        want(&[0], OK, None),
        want(&[0], OK, None),
        want(&[0], &["extracted"], None),
    ),
    capped("/deep", POOR),
    capped("/wide", POOR),
    capped("/wide-lists", OK),
    capped("/wide-cards", OK),
    capped("/open-formatting", OK),
    capped("/huge", OK),
    bomb("/gzip-bomb"),
    bomb("/brotli-bomb"),
    page(
        "/binary",
        want(&[0], &["unsupported"], Some("unsupported_content_type")),
        want(&[3], &["unsupported"], None),
        want(&[1], &["fetch_blocked"], None),
    ),
    page(
        "/charset-bogus",
        want(&[0], ANY, None),
        want(&[0, 3], ANY, None),
        want(
            &[0, 1],
            &["extracted", "no_mappable_structure", "fetch_blocked"],
            None,
        ),
    ),
    page(
        "/charset-wrong",
        want(&[0], ANY, None),
        want(&[0, 3], ANY, None),
        want(
            &[0, 1],
            &["extracted", "no_mappable_structure", "fetch_blocked"],
            None,
        ),
    ),
    broken("/short-body"),
    broken("/bad-chunked"),
    page(
        "/redirect-file",
        want(&[1], &["guard"], Some("scheme_not_allowed")),
        want(&[3], &["unsupported"], Some("redirect_blocked_by_guard")),
        want(&[1], &["fetch_failed"], Some("scheme_not_allowed")),
    ),
    page(
        "/redirect-credentials",
        want(&[1], &["guard"], Some("credentials_in_url")),
        want(&[3], &["blocked"], Some("redirect_blocked_by_guard")),
        want(&[1], &["fetch_failed"], Some("credentials_in_url")),
    ),
];

/// The command line of `command` on `url`.
fn command_for(command: &str, url: &str) -> Command {
    let schema = scratch().join("schema.json");
    let schema = schema.to_str().unwrap();
    match command {
        "fetch" => ferret(&["fetch", url, "--browser", "never", "--json"]),
        "verify" => ferret(&["verify", url, "--browser", "never", "--json"]),
        _ => ferret(&[
            "extract",
            url,
            "--schema",
            schema,
            "--browser",
            "never",
            "--json",
        ]),
    }
}

/// Every way `outcome` differs from `want` (empty when it does not).
fn mismatches(what: &str, outcome: &Outcome, want: Want, limit: Duration) -> Vec<String> {
    let mut problems = Vec::new();
    if outcome.stderr.contains("panicked") || outcome.code == 101 {
        problems.push(format!("{what}: panicked: {}", outcome.stderr));
    }
    if !want.codes.contains(&outcome.code) {
        problems.push(format!(
            "{what}: exit {} (want {:?})",
            outcome.code, want.codes
        ));
    }
    if !want.labels.contains(&outcome.label.as_str()) {
        problems.push(format!(
            "{what}: {} (want one of {:?})",
            outcome.label, want.labels
        ));
    }
    if let Some(detail) = want.detail
        && !outcome.details.iter().any(|d| d.contains(detail))
    {
        problems.push(format!("{what}: no {detail:?} in {:?}", outcome.details));
    }
    if outcome.elapsed > limit {
        problems.push(format!(
            "{what}: took {:?} (limit {limit:?})",
            outcome.elapsed
        ));
    }
    problems
}

/// One run to make: what it is, the command, what it must end with.
type Job = (String, Command, Want);

/// Run `jobs` on `workers` threads, in order, collecting every problem.
fn run_all(jobs: Vec<Job>, workers: usize) -> Vec<String> {
    let queue = Arc::new(Mutex::new(VecDeque::from(jobs)));
    let problems = Arc::new(Mutex::new(Vec::new()));
    let limit = DEFAULT_TIMEOUT + SLACK;
    let workers: Vec<_> = (0..workers)
        .map(|_| {
            let (queue, problems) = (queue.clone(), problems.clone());
            std::thread::spawn(move || {
                loop {
                    let Some((what, cmd, want)) = queue.lock().unwrap().pop_front() else {
                        break;
                    };
                    let (outcome, _) = run(cmd, None);
                    let found = mismatches(&what, &outcome, want, limit);
                    problems.lock().unwrap().extend(found);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("a worker panicked");
    }
    Arc::try_unwrap(problems).unwrap().into_inner().unwrap()
}

#[test]
fn every_hostile_page_gives_fetch_verify_and_extract_a_typed_outcome_in_time() {
    let web = web();
    let (mut waiting, mut working): (Vec<Job>, Vec<Job>) = (Vec::new(), Vec::new());
    for e in EXPECTED {
        let url = web.url(e.path);
        let jobs = if SLOW.contains(&e.path) {
            &mut waiting
        } else {
            &mut working
        };
        for (command, want) in [
            ("fetch", e.fetch),
            ("verify", e.verify),
            ("extract", e.extract),
        ] {
            jobs.push((
                format!("{command} {}", e.path),
                command_for(command, &url),
                want,
            ));
        }
    }
    let slow = waiting.len();
    let waited = std::thread::spawn(move || run_all(waiting, slow));
    let mut problems = run_all(working, WORKERS);
    problems.extend(waited.join().expect("the slow runs"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn research_reads_the_normal_page_beside_hostile_ones() {
    let web = web();
    let paths = [
        "/normal",
        "/hang",
        "/deep",
        "/binary",
        "/short-body",
        "/redirect-file",
    ];
    let rows: Vec<Value> = paths
        .iter()
        .map(|p| json!({"url": web.url(p), "title": "Harbor 9 ferry", "snippet": "the ferry"}))
        .collect();
    let cmd = ferret(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--browser",
        "never",
        "--json",
    ]);
    let (outcome, report) = run(cmd, Some(&Value::Array(rows).to_string()));
    let limit = DEFAULT_TIMEOUT + SLACK;
    assert_eq!(outcome.code, 0, "{outcome:?}");
    assert!(!outcome.stderr.contains("panicked"), "{}", outcome.stderr);
    assert!(outcome.elapsed < limit, "took {:?}", outcome.elapsed);
    assert_eq!(report["schema"], "ferret.research.v1");
    assert_eq!(
        report["evidence_status"], "sufficient",
        "{:#}",
        report["ledger"]
    );
    let candidates = report["enrichment"]["candidates"].as_array().unwrap();
    for c in candidates {
        let verdict = c["verdict"].as_str().unwrap_or_default();
        assert!(ANY.contains(&verdict), "{c:#}");
        let normal = c["url"] == web.url("/normal").as_str();
        assert_eq!(c["ok"], normal, "only the normal page is usable: {c:#}");
    }
    assert!(candidates.len() >= 5, "{candidates:#?}");
}

/// `fetch --from-file` on `path`.
fn from_file(path: &Path) -> (Outcome, Value) {
    run(
        ferret(&["fetch", "--from-file", path.to_str().unwrap(), "--json"]),
        None,
    )
}

#[test]
fn saved_pages_are_bounded_and_only_regular_files_are_read() {
    let limit = DEFAULT_TIMEOUT + SLACK;
    let (zero, _) = from_file(Path::new("/dev/zero"));
    let mut problems = mismatches(
        "from-file /dev/zero",
        &zero,
        want(&[1], &["input"], Some("not a regular file")),
        limit,
    );
    let dir = scratch();
    let cases: [(&str, Vec<u8>, Want); 3] = [
        (
            "lt.html",
            vec![b'<'; 8 << 20],
            want(&[0], ANY, Some("body_truncated")),
        ),
        (
            "deep.html",
            hostile::deep(1_000_000),
            want(&[0], POOR, Some("body_truncated")),
        ),
        (
            "noise.bin",
            hostile::noise(4 << 20),
            want(&[0], &["unsupported"], None),
        ),
    ];
    for (name, body, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        let (outcome, _) = from_file(&path);
        problems.extend(mismatches(
            &format!("from-file {name}"),
            &outcome,
            want,
            limit,
        ));
        let _ = std::fs::remove_file(path);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_goggle_that_is_a_device_is_refused_not_read() {
    let rows = json!([{"url": "https://a.example/", "title": "A"}]).to_string();
    let cmd = ferret(&[
        "search",
        "a",
        "--stdin-results",
        "--goggle",
        "/dev/zero",
        "--json",
    ]);
    let started = Instant::now();
    let out = process::output_with_stdin(cmd, Some(&rows));
    assert!(
        started.elapsed() < DEFAULT_TIMEOUT,
        "took {:?}",
        started.elapsed()
    );
    // A refused goggle is the caller's mistake: a typed error, exit 1 or 2.
    assert!(matches!(out.status.code(), Some(1 | 2)), "{:?}", out.status);
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["schema"], "ferret.error.v1");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("not a regular file"), "{message}");
}

#[test]
fn rows_past_the_row_limit_are_counted_and_said_not_read() {
    let rows: Vec<Value> = (0..1_500)
        .map(|i| json!({"url": format!("https://site{}.example/{i}", i % 40), "title": "t"}))
        .collect();
    let cmd = ferret(&["search", "anything", "--stdin-results", "--json"]);
    let started = Instant::now();
    let out = process::output_with_stdin(cmd, Some(&Value::Array(rows).to_string()));
    assert!(
        started.elapsed() < DEFAULT_TIMEOUT,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("500 rows past the first 1000 were not read"),
        "{text}"
    );
}

#[tokio::test]
async fn a_redirect_to_a_private_address_is_refused_by_the_default_guard() {
    use ferret::core::guard::{GuardReason, UrlGuard};
    use ferret::evidence::fetch::{BrowserMode, FetchOptions, Fetcher};
    let web = web();
    // A public-looking name pinned to the loopback server: the default
    // guard lets the name through and must refuse the hop to 127.0.0.1.
    let host = "hostile-pages.example.com";
    let fetcher = Fetcher::builder()
        .guard(UrlGuard::default())
        .browser_mode(BrowserMode::Never)
        .resolve(host, std::net::Ipv4Addr::LOCALHOST.into())
        .build()
        .unwrap();
    let url = |path: &str| format!("http://{host}:{}{path}", web.port);
    let options = FetchOptions::default();
    let page = fetcher.fetch(&url("/normal"), &options).await;
    assert!(page.is_ok(), "the control page is reachable: {page:?}");
    let err = fetcher
        .fetch(&url("/redirect-private"), &options)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "redirect_blocked_by_guard", "{err}");
    assert_eq!(
        err.guard_error().map(|g| g.reason),
        Some(GuardReason::PrivateOrLocalHostBlocked),
        "{err}"
    );
}
