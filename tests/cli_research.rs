//! `ferret research` (examples/ferret.rs) run as a process against a small
//! local web on 127.0.0.1: the evidence decision from the caller's rows
//! (`--stdin-results`), verbatim quotes, snippets that never support a
//! constraint, the step subcommands chained through files, deep escalation
//! through a local OpenAI-compatible server, the full loop over the local
//! index, and one-line errors for bad input.
//!
//! Hermetic: network engine variables are removed, keyless engines point at
//! a closed loopback port, `FERRET_HOME` is a fresh folder, and the URL
//! guard is told to let loopback through (`FERRET_ALLOW_PRIVATE_URLS=1`)
//! only where a test fetches the local web. The browser is never used
//! (`--browser never`; real Chromium runs are in ferret-evidence's
//! `research_browser` tests).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

const QUESTION: &str =
    "Does the Harbor 9 ferry run on hydrogen fuel cells and carry 300 passengers?";

// ------------------------------------------------------------ the binary

#[path = "support/process.rs"]
mod process;

/// One invocation: arguments, stdin, extra environment.
struct Run<'a> {
    args: Vec<&'a str>,
    stdin: Option<String>,
    env: Vec<(&'a str, String)>,
    home: PathBuf,
}

impl<'a> Run<'a> {
    fn new(args: &[&'a str]) -> Self {
        Run {
            args: args.to_vec(),
            stdin: None,
            env: Vec::new(),
            home: temp_dir(),
        }
    }

    fn stdin(mut self, text: impl Into<String>) -> Self {
        self.stdin = Some(text.into());
        self
    }

    fn env(mut self, key: &'a str, value: impl Into<String>) -> Self {
        self.env.push((key, value.into()));
        self
    }

    /// Let the URL guard pass loopback (the local web).
    fn loopback(self) -> Self {
        self.env("FERRET_ALLOW_PRIVATE_URLS", "1")
    }

    fn home(mut self, home: &Path) -> Self {
        self.home = home.to_path_buf();
        self
    }

    fn output(self) -> Output {
        let mut cmd = process::hermetic_command(&self.home);
        cmd.env("FERRET_NO_CACHE", "1")
            .envs(self.env.iter().map(|(k, v)| (*k, v.as_str())))
            .args(&self.args);
        process::output_with_stdin(cmd, self.stdin.as_deref())
    }
}

fn temp_dir() -> PathBuf {
    process::temp_dir("cli-research")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_of(out: &Output) -> Value {
    assert!(out.status.success(), "ferret failed: {}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            stdout(out),
            stderr(out)
        )
    })
}

/// A failure: exit 1 and exactly one `ferret: error:` line on stderr.
fn one_line_error(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(1),
        "expected a failure, got {:?}; stdout: {}",
        out.status,
        stdout(out)
    );
    let err = stderr(out);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("ferret: error:"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(stdout(out).is_empty(), "{}", stdout(out));
    lines[0].to_string()
}

// ------------------------------------------------------------ the local web

/// Paragraphs that mention none of the question's terms, to give pages a
/// realistic length.
const FILLER: &[&str] = &[
    "The port authority publishes its timetable every season, with extra sailings during the summer festival and reduced service on public holidays.",
    "Tickets are sold at the terminal kiosk and online; season passes are available for commuters who cross the bay every working day.",
    "The terminal café opens an hour before the first departure and serves coffee, pastries and a small selection of local cheeses.",
    "Bicycles travel free of charge outside rush hour, and a covered waiting area shelters travellers from the wind on stormy mornings.",
    "The authority's annual report covers punctuality, maintenance spending and the results of the customer satisfaction survey.",
    "Harbour pilots board incoming cargo vessels at the outer buoy, and the pilot boat returns to the marina after each job.",
    "A volunteer group cleans the beaches near the terminal every month and reports what it finds to the environmental office.",
];

/// An article page with the paragraphs and the filler.
fn article(title: &str, published: &str, paragraphs: &[&str]) -> String {
    let mut body = String::new();
    for p in paragraphs.iter().chain(FILLER) {
        body.push_str(&format!("<p>{p}</p>\n"));
    }
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="description" content="{title}">
<meta property="og:title" content="{title}">
<meta property="article:published_time" content="{published}">
<link rel="canonical" href="/canonical">
</head><body><nav><a href="/">Home</a></nav>
<article><h1>{title}</h1>
{body}</article>
<footer>© Port authority</footer></body></html>"#
    )
}

/// The pages: two support the question's constraints, one never mentions
/// the passenger count.
fn pages() -> Vec<(&'static str, String)> {
    vec![
        (
            "/harbor/ferry",
            article(
                "Harbor 9 ferry propulsion",
                "2026-03-10",
                &[
                    "The Harbor 9 ferry runs on hydrogen fuel cells that feed two electric motors, so the crossing emits only water vapour.",
                    "Refuelling takes place overnight at the depot, where the hydrogen is produced by electrolysis from wind power.",
                ],
            ),
        ),
        (
            "/harbor/capacity",
            article(
                "Harbor 9 capacity",
                "2026-04-02",
                &[
                    "On each crossing the vessel can carry 300 passengers and forty bicycles, with seating on two enclosed decks.",
                    "Wheelchair spaces are marked near the lifts on both decks.",
                ],
            ),
        ),
        (
            "/harbor/press",
            article(
                "Harbor 9 press kit",
                "2025-11-20",
                &[
                    "The Harbor 9 naming ceremony takes place in the spring, and the press office will stream it from the quay.",
                    "Accredited journalists can book interviews with the shipyard engineers through the press office.",
                ],
            ),
        ),
    ]
}

/// The visible text of a served page (tags removed, whitespace collapsed).
fn page_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    collapse(&out)
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A small HTTP/1.1 server on 127.0.0.1: the pages, a 404 for anything
/// else, and an OpenAI-compatible `POST /v1/chat/completions` that answers
/// `chat_answer` and counts its calls.
struct LocalWeb {
    port: u16,
    chat_calls: Arc<AtomicUsize>,
}

impl LocalWeb {
    fn start(chat_answer: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        let port = listener.local_addr().unwrap().port();
        let chat_calls = Arc::new(AtomicUsize::new(0));
        let pages = Arc::new(pages());
        let answer = Arc::new(chat_answer.to_string());
        let calls = chat_calls.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (pages, answer, calls) = (pages.clone(), answer.clone(), calls.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &pages, &answer, &calls);
                });
            }
        });
        LocalWeb { port, chat_calls }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn chat_calls(&self) -> usize {
        self.chat_calls.load(Ordering::SeqCst)
    }
}

fn serve(
    stream: TcpStream,
    pages: &[(&'static str, String)],
    answer: &str,
    calls: &AtomicUsize,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut content_length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            content_length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; content_length];
    reader.read_exact(&mut body)?;

    let (status, content_type, payload) = if method == "POST" && path == "/v1/chat/completions" {
        calls.fetch_add(1, Ordering::SeqCst);
        let reply = json!({
            "id": "chatcmpl-local",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]
        });
        ("200 OK", "application/json", reply.to_string())
    } else if let Some((_, html)) = pages.iter().find(|(p, _)| *p == path) {
        ("200 OK", "text/html; charset=utf-8", html.clone())
    } else {
        ("404 Not Found", "text/plain", "not found".to_string())
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    )?;
    if method != "HEAD" {
        stream.write_all(payload.as_bytes())?;
    }
    stream.flush()
}

/// Result rows as an agent's own search would give them.
fn rows(items: &[(&str, &str, &str)]) -> String {
    let rows: Vec<Value> = items
        .iter()
        .map(|(url, title, snippet)| json!({"url": url, "title": title, "snippet": snippet}))
        .collect();
    Value::Array(rows).to_string()
}

fn constraint<'v>(report: &'v Value, id: &str) -> &'v Value {
    report["enrichment"]["ledger"]["constraints"]
        .as_array()
        .expect("ledger constraints")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no constraint {id}"))
}

fn supporting_urls(report: &Value, id: &str) -> Vec<String> {
    constraint(report, id)["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["url"].as_str().unwrap().to_string())
        .collect()
}

/// Every quote in the ledger is verbatim text of the page it names, as
/// served.
fn assert_quotes_served_verbatim(report: &Value, web: &LocalWeb) {
    let served: Vec<(String, String)> = pages()
        .into_iter()
        .map(|(path, html)| (web.url(path), page_text(&html)))
        .collect();
    let mut checked = 0;
    for c in report["enrichment"]["ledger"]["constraints"]
        .as_array()
        .unwrap()
    {
        for e in c["evidence"].as_array().unwrap() {
            let url = e["url"].as_str().unwrap();
            let quote = e["quote"]["text"].as_str().unwrap();
            assert!(!quote.trim().is_empty());
            let (_, text) = served
                .iter()
                .find(|(u, _)| u == url)
                .unwrap_or_else(|| panic!("evidence from an unknown page {url}"));
            assert!(
                text.contains(&collapse(quote)),
                "quote {quote:?} is not in the page served at {url}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no quotes to check");
}

// ------------------------------------------------------------ the loop

#[test]
fn constraints_supported_by_fetched_pages_are_sufficient_with_verbatim_quotes() {
    let web = LocalWeb::start("unused");
    let ferry = web.url("/harbor/ferry");
    let capacity = web.url("/harbor/capacity");
    let input = rows(&[
        (&ferry, "Harbor 9 ferry", "about the ferry"),
        (&capacity, "Capacity", "about the decks"),
    ]);
    let out = Run::new(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--browser",
        "never",
        "--json",
    ])
    .loopback()
    .stdin(input)
    .output();
    let v = json_of(&out);

    assert_eq!(v["schema"], "ferret.research.v1");
    assert_eq!(v["query"], QUESTION);
    assert_eq!(v["evidence_status"], "sufficient", "{:#}", v["ledger"]);
    assert_eq!(v["agent_action"], "answer from fetched evidence");
    assert_eq!(v["ledger"]["ready"], true);
    assert_eq!(v["ledger"]["status"], "complete");
    assert_eq!(v["ledger"]["supported"], json!(["c1", "c2"]));
    assert_eq!(v["ledger"]["pending"], json!([]));
    assert_eq!(
        v["escalation"]["needed"], false,
        "{:#} {:#}",
        v["browse_plan"], v["enrichment"]["candidates"]
    );
    assert_eq!(v["deep"], Value::Null);
    assert_eq!(v["plan"]["schema"], "ferret.plan.v1");
    assert_eq!(v["search"]["results"], 2);

    assert_eq!(supporting_urls(&v, "c1"), vec![ferry.clone()]);
    assert_eq!(supporting_urls(&v, "c2"), vec![capacity.clone()]);
    let c1_quote = constraint(&v, "c1")["evidence"][0]["quote"]["text"]
        .as_str()
        .unwrap();
    assert!(
        c1_quote.contains("runs on hydrogen fuel cells"),
        "{c1_quote}"
    );
    let c2_quote = constraint(&v, "c2")["evidence"][0]["quote"]["text"]
        .as_str()
        .unwrap();
    assert!(c2_quote.contains("carry 300 passengers"), "{c2_quote}");
    assert_quotes_served_verbatim(&v, &web);

    // The candidates carry the fields a browsing agent reads, in the caller's order.
    let candidates = v["enrichment"]["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 2);
    for (i, (c, url)) in candidates.iter().zip([&ferry, &capacity]).enumerate() {
        assert_eq!(c["rank"], i + 1);
        assert_eq!(c["url"], url.as_str());
        assert_eq!(c["verdict"], "strong_ok", "{c:#}");
        assert_eq!(c["ok"], true);
        assert_eq!(c["source"], "fetch");
        assert!(c["text_excerpt"].as_str().unwrap().contains("Harbor 9") || i == 1);
    }
}

#[test]
fn the_report_reads_for_people_by_default() {
    let web = LocalWeb::start("unused");
    let ferry = web.url("/harbor/ferry");
    let capacity = web.url("/harbor/capacity");
    let out = Run::new(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--browser",
        "never",
    ])
    .loopback()
    .stdin(rows(&[(&ferry, "", ""), (&capacity, "", "")]))
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("evidence: sufficient — answer from fetched evidence"),
        "{text}"
    );
    assert!(text.contains("c1  supported"), "{text}");
    assert!(text.contains("c2  supported"), "{text}");
    assert!(text.contains("carry 300 passengers"), "{text}");
    assert!(text.contains(&format!("— {capacity}")), "{text}");
    assert!(text.contains("rank  verdict"), "{text}");
    let ferry_row = text
        .lines()
        .find(|l| l.trim_start().starts_with("1 ") && l.ends_with(&ferry))
        .unwrap_or_else(|| panic!("no candidate row for {ferry}: {text}"));
    let cells: Vec<&str> = ferry_row.split_whitespace().collect();
    assert_eq!(cells, vec!["1", "strong_ok", "fetch", "c1", ferry.as_str()]);
    assert!(text.contains("escalation: none needed"), "{text}");
}

#[test]
fn a_constraint_only_a_search_snippet_mentions_is_not_supported() {
    let web = LocalWeb::start("unused");
    let ferry = web.url("/harbor/ferry");
    let press = web.url("/harbor/press");
    // The press page's title and snippet claim the passenger count; the page
    // itself never mentions it.
    let input = rows(&[
        (&ferry, "Harbor 9 ferry", ""),
        (
            &press,
            "Harbor 9 can carry 300 passengers",
            "The Harbor 9 ferry will carry 300 passengers on every crossing.",
        ),
    ]);
    let out = Run::new(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--browser",
        "never",
        "--json",
    ])
    .loopback()
    .stdin(input)
    .output();
    let v = json_of(&out);
    assert_eq!(v["ledger"]["ready"], false);
    assert_eq!(v["ledger"]["status"], "insufficient-evidence");
    assert_eq!(v["ledger"]["pending"], json!(["c2"]));
    assert_eq!(constraint(&v, "c2")["status"], "pending");
    assert!(supporting_urls(&v, "c2").is_empty());
    let status = v["evidence_status"].as_str().unwrap();
    assert!(
        status == "insufficient" || status == "browse-needed",
        "{status}"
    );
    assert_ne!(status, "sufficient");
    // The press page was read, and is not evidence for c2.
    let press_candidate = v["enrichment"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["url"] == press.as_str())
        .expect("the press page was fetched");
    assert_eq!(press_candidate["ok"], true);
    assert!(
        !press_candidate["constraint_ids"]
            .as_array()
            .unwrap()
            .contains(&json!("c2"))
    );
    assert_quotes_served_verbatim(&v, &web);
}

#[test]
fn the_url_guard_still_blocks_loopback_unless_allowed() {
    let web = LocalWeb::start("unused");
    let ferry = web.url("/harbor/ferry");
    let capacity = web.url("/harbor/capacity");
    let out = Run::new(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--browser",
        "never",
        "--json",
    ])
    .stdin(rows(&[(&ferry, "", ""), (&capacity, "", "")]))
    .output();
    let v = json_of(&out);
    assert_ne!(v["evidence_status"], "sufficient");
    assert_eq!(v["ledger"]["supported"], json!([]));
    for c in v["enrichment"]["candidates"].as_array().unwrap() {
        assert_eq!(c["ok"], false, "{c:#}");
    }
}

#[test]
fn search_json_is_accepted_as_stdin_results() {
    let web = LocalWeb::start("unused");
    let ferry = web.url("/harbor/ferry");
    let capacity = web.url("/harbor/capacity");
    // `ferret search --stdin-results --json` output piped into research.
    let search = Run::new(&["search", QUESTION, "--stdin-results", "--json"])
        .stdin(rows(&[(&ferry, "ferry", ""), (&capacity, "capacity", "")]))
        .output();
    let search_json = json_of(&search);
    assert_eq!(search_json["schema"], "ferret.search.v1");
    let out = Run::new(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--browser",
        "never",
        "--json",
    ])
    .loopback()
    .stdin(search_json.to_string())
    .output();
    let v = json_of(&out);
    assert_eq!(v["search"]["backend"], "ferret-search");
    assert_eq!(v["evidence_status"], "sufficient", "{:#}", v["ledger"]);
}

// ------------------------------------------------------------ deep escalation

#[test]
fn deep_without_an_endpoint_is_a_one_line_error() {
    let out = Run::new(&["research", QUESTION, "--stdin-results", "--deep"])
        .stdin("[]")
        .output();
    let line = one_line_error(&out);
    assert!(line.contains("GROK_API_URL"), "{line}");
    let out = Run::new(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--deep",
        "--vendor",
        "chatgpt",
    ])
    .stdin("[]")
    .output();
    let line = one_line_error(&out);
    assert!(line.contains("CHATGPT_API_URL"), "{line}");
}

#[test]
fn deep_escalation_runs_only_when_the_ledger_is_not_ready() {
    let answer = "The Harbor 9 carries 300 passengers according to https://port.example/fleet.";
    let web = LocalWeb::start(answer);
    let ferry = web.url("/harbor/ferry");
    let press = web.url("/harbor/press");
    let capacity = web.url("/harbor/capacity");
    let deep_run = |items: &[(&str, &str, &str)]| {
        Run::new(&[
            "research",
            QUESTION,
            "--stdin-results",
            "--browser",
            "never",
            "--deep",
            "--vendor",
            "grok",
            "--json",
        ])
        .loopback()
        .env("GROK_API_URL", web.url("/v1"))
        .env("GROK_API_KEY", "local-test-key")
        .env("GROK_MODEL", "local-model")
        .stdin(rows(items))
        .output()
    };

    // c2 pending: the model is asked, its text is partial, never evidence.
    let v = json_of(&deep_run(&[(&ferry, "", ""), (&press, "", "")]));
    assert_eq!(web.chat_calls(), 1);
    assert_eq!(v["evidence_status"], "partial");
    assert_eq!(v["deep"]["vendor"], "grok");
    assert_eq!(v["deep"]["model"], "local-model");
    assert_eq!(v["deep"]["text"], answer);
    assert_eq!(v["deep"]["urls"], json!(["https://port.example/fleet"]));
    assert_eq!(v["deep"]["asked_about"], json!(["c2"]));
    assert_eq!(v["ledger"]["pending"], json!(["c2"]));
    assert!(
        v["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_str().unwrap().contains("not fetched evidence")),
        "{:#}",
        v["caveats"]
    );

    // Everything supported: the model is not asked.
    let v = json_of(&deep_run(&[(&ferry, "", ""), (&capacity, "", "")]));
    assert_eq!(v["evidence_status"], "sufficient");
    assert_eq!(v["deep"], Value::Null);
    assert_eq!(web.chat_calls(), 1);
}

// ------------------------------------------------------------ the full loop

#[test]
fn the_full_loop_searches_the_local_index_and_reads_its_files() {
    let home = temp_dir();
    let notes = temp_dir();
    let filler = FILLER.join("\n\n");
    std::fs::write(
        notes.join("harbor-ferry.md"),
        format!(
            "# Harbor 9 ferry\n\nThe Harbor 9 ferry runs on hydrogen fuel cells and two electric motors.\n\n{filler}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        notes.join("harbor-capacity.md"),
        format!(
            "# Harbor 9 capacity\n\nThe Harbor 9 can carry 300 passengers on two decks.\n\n{filler}\n"
        ),
    )
    .unwrap();
    let added = Run::new(&["index", "add", notes.to_str().unwrap(), "--json"])
        .home(&home)
        .output();
    assert!(added.status.success(), "{}", stderr(&added));

    let out = Run::new(&[
        "research",
        QUESTION,
        "--engines",
        "local",
        "--browser",
        "never",
        "--timeout",
        "15",
        "--json",
    ])
    .home(&home)
    .output();
    let v = json_of(&out);
    assert_eq!(v["search"]["backend"], "ferret-search");
    assert!(
        v["search"]["sub_queries"].as_array().unwrap().len() > 1,
        "the plan's focused queries are searched too: {:#}",
        v["search"]
    );
    let local: Vec<&Value> = v["enrichment"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["read_from"] == "local_file")
        .collect();
    assert!(local.len() >= 2, "{:#}", v["enrichment"]["candidates"]);
    assert_eq!(v["evidence_status"], "sufficient", "{:#}", v["ledger"]);
    for id in ["c1", "c2"] {
        let urls = supporting_urls(&v, id);
        assert!(
            urls.iter().all(|u| u.starts_with("https://local.invalid/")),
            "{id}: {urls:?}"
        );
    }
    let quote = constraint(&v, "c2")["evidence"][0]["quote"]["text"]
        .as_str()
        .unwrap();
    let file = std::fs::read_to_string(notes.join("harbor-capacity.md")).unwrap();
    assert!(file.contains(quote), "{quote:?}");
}

// ------------------------------------------------------------ the steps

#[test]
fn the_steps_chain_through_files() {
    let web = LocalWeb::start("unused");
    let ferry = web.url("/harbor/ferry");
    let press = web.url("/harbor/press");
    let dir = temp_dir();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();

    // research plan
    let plan = json_of(&Run::new(&["research", "plan", QUESTION]).output());
    assert_eq!(plan["schema"], "ferret.plan.v1");
    assert_eq!(plan["query"], QUESTION);
    let ids: Vec<&str> = plan["constraints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["c1", "c2"]);
    std::fs::write(path("plan.json"), plan.to_string()).unwrap();

    // research normalize-results --backend brave < rows (a Brave-shaped body)
    let raw = json!({"web": {"results": [
        {"url": ferry, "title": "Harbor 9 ferry", "description": "hydrogen"},
        {"url": press, "title": "Harbor 9 can carry 300 passengers", "description": "press"},
        {"url": "ftp://nope.example/file", "title": "dropped"}
    ]}});
    let results = json_of(
        &Run::new(&[
            "research",
            "normalize-results",
            "--query",
            QUESTION,
            "--backend",
            "brave",
        ])
        .stdin(raw.to_string())
        .output(),
    );
    assert_eq!(results["schema"], "ferret.results.v1");
    assert_eq!(results["backend"], "brave");
    assert_eq!(
        results["evidence_policy"],
        "snippets-are-not-final-evidence"
    );
    assert_eq!(results["results"].as_array().unwrap().len(), 2);
    assert_eq!(results["results"][0]["engines"], json!(["brave"]));
    assert_eq!(results["dropped"].as_array().unwrap().len(), 1);
    std::fs::write(path("results.json"), results.to_string()).unwrap();

    // research enrich-fetch --plan plan.json --results - (stdin)
    let enrichment = json_of(
        &Run::new(&[
            "research",
            "enrich-fetch",
            "--plan",
            &path("plan.json"),
            "--results",
            "-",
        ])
        .loopback()
        .stdin(results.to_string())
        .output(),
    );
    assert_eq!(enrichment["schema"], "ferret.enrichment.v1");
    assert_eq!(enrichment["fetch_policy"]["browser"], "never");
    assert_eq!(enrichment["ledger"]["supported"], json!(["c1"]));
    assert_eq!(enrichment["ledger"]["pending"], json!(["c2"]));
    assert_eq!(enrichment["next_step"]["type"], "browse-candidates");
    let report_like = json!({"enrichment": enrichment.clone()});
    assert_quotes_served_verbatim(&report_like, &web);
    std::fs::write(path("enrichment.json"), enrichment.to_string()).unwrap();

    // research browse-plan --plan plan.json --enrichment enrichment.json
    let browse = json_of(
        &Run::new(&[
            "research",
            "browse-plan",
            "--plan",
            &path("plan.json"),
            "--enrichment",
            &path("enrichment.json"),
        ])
        .output(),
    );
    assert_eq!(browse["schema"], "ferret.browse-plan.v1");
    assert_eq!(browse["summary"]["pending"], json!(["c2"]));
    assert_eq!(
        browse["summary"]["ledger_status_before_browse"],
        "insufficient-evidence"
    );
    assert_eq!(
        browse["needs_browse"].as_bool().unwrap(),
        !browse["actions"].as_array().unwrap().is_empty()
    );
    assert!(browse["actions"].as_array().unwrap().len() <= 5);

    // A full report is accepted where a plan or an enrichment is expected.
    let report = json_of(
        &Run::new(&[
            "research",
            QUESTION,
            "--stdin-results",
            "--browser",
            "never",
            "--json",
        ])
        .loopback()
        .stdin(rows(&[(&ferry, "", ""), (&press, "", "")]))
        .output(),
    );
    std::fs::write(path("report.json"), report.to_string()).unwrap();
    let again = json_of(
        &Run::new(&[
            "research",
            "browse-plan",
            "--plan",
            &path("report.json"),
            "--enrichment",
            &path("report.json"),
        ])
        .output(),
    );
    assert_eq!(again["schema"], "ferret.browse-plan.v1");
    assert_eq!(again, report["browse_plan"]);
}

// ------------------------------------------------------------ bad input

#[test]
fn bad_input_is_a_one_line_error_naming_the_input() {
    let dir = temp_dir();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let bad = bad.to_str().unwrap();
    let results = dir.join("results.json");
    std::fs::write(
        &results,
        json!({"schema": "ferret.results.v1", "query": "q", "evidence_policy": "snippets-are-not-final-evidence", "results": []}).to_string(),
    )
    .unwrap();
    let results = results.to_str().unwrap();
    let plan_json = json_of(&Run::new(&["research", "plan", QUESTION]).output()).to_string();

    // Not JSON.
    let out = Run::new(&[
        "research",
        "enrich-fetch",
        "--plan",
        bad,
        "--results",
        results,
    ])
    .output();
    let line = one_line_error(&out);
    assert!(line.contains(bad) && line.contains("is not JSON"), "{line}");

    // Another schema where a plan is expected.
    let out = Run::new(&[
        "research",
        "browse-plan",
        "--plan",
        results,
        "--enrichment",
        results,
    ])
    .output();
    let line = one_line_error(&out);
    assert!(
        line.contains(results)
            && line.contains("is a ferret.results.v1 document; expected ferret.plan.v1"),
        "{line}"
    );

    // A document that claims its schema but does not fit it.
    let broken = dir.join("broken.json");
    std::fs::write(
        &broken,
        r#"{"schema": "ferret.enrichment.v1", "candidates": 3}"#,
    )
    .unwrap();
    let broken = broken.to_str().unwrap();
    let out = Run::new(&[
        "research",
        "browse-plan",
        "--plan",
        "-",
        "--enrichment",
        broken,
    ])
    .stdin(plan_json.clone())
    .output();
    let line = one_line_error(&out);
    assert!(
        line.contains(broken) && line.contains("does not fit ferret.enrichment.v1"),
        "{line}"
    );

    // Rows that are not JSON on stdin.
    let out = Run::new(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--browser",
        "never",
    ])
    .stdin("this is not json")
    .output();
    let line = one_line_error(&out);
    assert!(line.contains("stdin is not JSON"), "{line}");
    let out = Run::new(&["research", "normalize-results"])
        .stdin("[{\"url\": ")
        .output();
    let line = one_line_error(&out);
    assert!(line.contains("stdin is not JSON"), "{line}");

    // A plan given as the rows.
    let out = Run::new(&["research", QUESTION, "--stdin-results"])
        .stdin(plan_json)
        .output();
    let line = one_line_error(&out);
    assert!(
        line.contains("stdin is a ferret.plan.v1 document"),
        "{line}"
    );

    // Two inputs from stdin, a missing file.
    let out = Run::new(&[
        "research",
        "browse-plan",
        "--plan",
        "-",
        "--enrichment",
        "-",
    ])
    .stdin("{}")
    .output();
    assert!(one_line_error(&out).contains("only one input"));
    let out = Run::new(&[
        "research",
        "browse-plan",
        "--plan",
        "/no/such/plan.json",
        "--enrichment",
        results,
    ])
    .output();
    assert!(one_line_error(&out).contains("cannot read /no/such/plan.json"));
}

#[test]
fn an_empty_candidate_set_is_an_insufficient_report_not_an_error() {
    let out = Run::new(&[
        "research",
        QUESTION,
        "--stdin-results",
        "--browser",
        "never",
        "--json",
    ])
    .stdin("")
    .output();
    let v = json_of(&out);
    assert_eq!(v["evidence_status"], "insufficient");
    assert_eq!(
        v["agent_action"],
        "find better candidates or use justified deep escalation"
    );
    assert_eq!(v["enrichment"]["candidates"], json!([]));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["research", QUESTION, "--max-results", "0"],
        vec!["research", QUESTION, "--browser", "sometimes"],
        vec!["research", QUESTION, "--vendor", "grok"],
        vec![
            "research",
            QUESTION,
            "--stdin-results",
            "--engines",
            "brave",
        ],
        vec!["research"],
    ] {
        let out = Run::new(&args).output();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).lines().count(),
            1,
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

// ------------------------------------------------------------ the library API

/// The code docs/research.md shows, run against the local web: the facade's
/// `Ferret::research` over a searcher, and `run_with_results` over rows.
#[tokio::test]
async fn the_library_api_of_the_guide_runs_the_loop() {
    use ferret::Ferret;
    use ferret::core::EngineHit;
    use ferret::core::guard::UrlGuard;
    use ferret::core::testing::StaticEngine;
    use ferret::evidence::fetch::{BrowserMode, Fetcher};
    use ferret::evidence::research::{
        EvidenceStatus, Research, ResearchOptions, normalize_results,
    };

    let web = LocalWeb::start("unused");
    let (ferry, capacity) = (web.url("/harbor/ferry"), web.url("/harbor/capacity"));
    // The guide's engines come from the environment; here, one static engine.
    let engine = StaticEngine::with_hits(
        "static",
        vec![
            EngineHit::new(1, ferry.clone(), "Harbor 9 ferry", "propulsion"),
            EngineHit::new(2, capacity.clone(), "Harbor 9 capacity", "decks"),
        ],
    );
    let ferret = Ferret::builder().engine(engine).build().unwrap();
    // The guide's guard is the default one; loopback must be allowed here.
    let fetcher = Fetcher::builder()
        .guard(UrlGuard::default().allow_private(true))
        .browser_mode(BrowserMode::Never)
        .build()
        .unwrap();

    // From the guide: search, fetch, ledger, decision.
    let research = ferret.research(fetcher.clone()).build();
    let options = ResearchOptions::new()
        .with_browser(BrowserMode::Never)
        .with_max_results(5);
    let report = research.run(QUESTION, &options).await.unwrap();
    assert_eq!(report.evidence_status, EvidenceStatus::Sufficient);
    assert_eq!(report.search.backend, "ferret-search");
    let mut quoted = 0;
    for c in &report.enrichment.ledger.constraints {
        for e in &c.evidence {
            assert!(e.url == ferry || e.url == capacity, "{}", e.url);
            quoted += 1;
        }
    }
    assert!(quoted >= 2);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["schema"], "ferret.research.v1");

    // From the guide: the caller's own rows, nothing searched.
    let rows_json = rows(&[(&ferry, "", ""), (&capacity, "", "")]);
    let results = normalize_results(&rows_json, QUESTION, Some("my-search"));
    let report = Research::builder(fetcher)
        .build()
        .run_with_results(QUESTION, results, &options)
        .await
        .unwrap();
    assert_eq!(report.evidence_status, EvidenceStatus::Sufficient);
    assert_eq!(report.search.backend, "my-search");
}
