//! The evidence decision on labelled claims: each case of
//! `benches/evidence/claims.jsonl` (a claim, its label, the real article
//! page(s) it is judged against — an edited copy for conflicting pairs) is
//! run through `research` with the pages served on loopback, one result
//! row per page, the browser off; the decision is compared with the label.
//!
//! ```text
//! cargo run --release -p ferret-evidence --example bench_evidence -- \
//!     [--split dev|check|all] [--claims FILE] [--html-dir DIR] [--show-misses]
//!     [--case ID]   (one case, every verdict of every constraint shown)
//! ```
//!
//! Prints the confusion table (label × decision), the precision of
//! `sufficient`, the recall of supported claims, how many refuted and
//! conflicting claims were accepted, and the median time per case.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use ferret_core::guard::UrlGuard;
use ferret_evidence::fetch::{BrowserMode, Fetcher};
use ferret_evidence::research::{EvidenceStatus, Research, ResearchOptions, normalize_results};
use serde_json::{Value, json};

const HOST: &str = "bench.example";

struct Args {
    split: String,
    claims: PathBuf,
    html_dir: PathBuf,
    show_misses: bool,
    /// Judge each claim against its deciding sentence only (no fetch).
    sentences: bool,
    /// Run one case and show every verdict.
    case: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared"));
    let mut args = Args {
        split: "all".into(),
        claims: root.join("benches/evidence/claims.jsonl"),
        html_dir: shared.join("bench/article-extraction/html"),
        show_misses: false,
        sentences: false,
        case: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--split" => args.split = value()?,
            "--claims" => args.claims = PathBuf::from(value()?),
            "--html-dir" => args.html_dir = PathBuf::from(value()?),
            "--show-misses" => args.show_misses = true,
            "--sentences" => args.sentences = true,
            "--case" => args.case = Some(value()?),
            "-h" | "--help" => {
                return Err(
                    "usage: bench_evidence [--split dev|check|all] [--claims FILE] \
                            [--html-dir DIR] [--show-misses]"
                        .into(),
                );
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(args)
}

/// One labelled case.
struct Case {
    id: String,
    claim: String,
    label: String,
    kind: String,
    lang: String,
    pages: Vec<String>,
}

fn read_page(dir: &Path, id: &str) -> Result<String, String> {
    let path = dir.join(format!("{id}.html.gz"));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_end(&mut out)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The page as the case wants it: the original, or with its edit applied
/// (the text as written, or HTML-escaped the way the page may spell it).
fn edited(html: &str, replace: Option<&Value>) -> Option<String> {
    let Some(pairs) = replace.and_then(Value::as_array) else {
        return Some(html.to_string());
    };
    let mut page = html.to_string();
    for pair in pairs {
        let from = pair.get(0)?.as_str()?;
        let to = pair.get(1)?.as_str()?;
        let escaped = from
            .replace('&', "&amp;")
            .replace('’', "&#8217;")
            .replace('“', "&#8220;")
            .replace('”', "&#8221;");
        if page.contains(from) {
            page = page.replace(from, to);
        } else if page.contains(&escaped) {
            page = page.replace(&escaped, to);
        } else {
            return None;
        }
    }
    Some(page)
}

/// The cases of the split, the pages they use (name → HTML), and how many
/// cases were skipped.
type Loaded = (Vec<Case>, BTreeMap<String, String>, usize);

fn load(args: &Args) -> Result<Loaded, String> {
    let text = std::fs::read_to_string(&args.claims)
        .map_err(|e| format!("{}: {e}", args.claims.display()))?;
    let mut cases = Vec::new();
    let mut pages = BTreeMap::new();
    let mut skipped = 0;
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let field = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        let wanted = match &args.case {
            Some(id) => field("id") == *id,
            None => args.split == "all" || field("split") == args.split,
        };
        if !wanted {
            continue;
        }
        let id = field("id");
        let mut urls = Vec::new();
        let mut ok = true;
        for (i, p) in v["pages"].as_array().into_iter().flatten().enumerate() {
            let html = read_page(&args.html_dir, p["id"].as_str().unwrap_or_default())?;
            match edited(&html, p.get("replace")) {
                Some(page) => {
                    let key = format!("{id}/{i}");
                    urls.push(format!("/p/{key}"));
                    pages.insert(key, page);
                }
                None => ok = false,
            }
        }
        if !ok {
            skipped += 1;
            continue;
        }
        cases.push(Case {
            id,
            claim: field("claim"),
            label: field("label"),
            kind: field("kind"),
            lang: field("lang"),
            pages: urls,
        });
    }
    Ok((cases, pages, skipped))
}

async fn page(
    State(pages): State<Arc<BTreeMap<String, String>>>,
    UrlPath((case, n)): UrlPath<(String, String)>,
) -> Response {
    match pages.get(&format!("{case}/{n}")) {
        Some(html) => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            html.clone(),
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn serve(pages: BTreeMap<String, String>) -> Result<SocketAddr, String> {
    let app = Router::new()
        .route("/p/{case}/{n}", get(page))
        .with_state(Arc::new(pages));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(addr)
}

fn decision(status: EvidenceStatus) -> &'static str {
    status.as_str()
}

struct Tally {
    table: BTreeMap<(String, String), usize>,
    times: Vec<Duration>,
    misses: Vec<String>,
}

async fn run_case(
    research: &Research,
    port: u16,
    case: &Case,
    tally: &mut Tally,
    show: bool,
    verbose: bool,
) {
    let rows: Vec<Value> = case
        .pages
        .iter()
        .map(|p| json!({"url": format!("http://{HOST}:{port}{p}"), "title": ""}))
        .collect();
    let results = normalize_results(&Value::Array(rows).to_string(), &case.claim, None);
    let options = ResearchOptions::new()
        .with_browser(BrowserMode::Never)
        .with_max_results(5)
        .with_text(verbose);
    let started = Instant::now();
    let report = research
        .run_with_results(&case.claim, results, &options)
        .await;
    tally.times.push(started.elapsed());
    let (status, why) = match &report {
        Ok(r) if verbose => (decision(r.evidence_status), every_verdict(r)),
        Ok(r) => (decision(r.evidence_status), explain(r)),
        Err(e) => ("error", e.to_string()),
    };
    *tally
        .table
        .entry((case.label.clone(), status.to_string()))
        .or_default() += 1;
    let expected_sufficient = case.label == "supported";
    let miss = (status == "sufficient") != expected_sufficient;
    if show && (miss || verbose) {
        tally.misses.push(format!(
            "{} [{} {} {}] {status}: {}\n    {why}",
            case.id, case.label, case.kind, case.lang, case.claim
        ));
    }
}

/// Every verdict of every constraint (`--case`).
fn every_verdict(r: &ferret_evidence::research::ResearchReport) -> String {
    let mut out = String::new();
    for c in &r.enrichment.ledger.constraints {
        let facts: Vec<String> = ferret_evidence::ledger::Claim::new(&c.text)
            .facts()
            .iter()
            .map(|f| f.text().to_string())
            .collect();
        out += &format!(
            "\n  {} {:?} {} facts {facts:?}",
            c.id,
            c.text,
            c.status.as_str()
        );
        for e in c.evidence.iter().chain(&c.refutations) {
            out += &format!("\n    {} {} «{}»", e.url, e.reason, e.quote.text);
        }
        let claim = ferret_evidence::ledger::Claim::new(&c.text);
        for page in &r.enrichment.candidates {
            let text = page.text.as_deref().unwrap_or_default();
            let title = page.fetched_title.as_deref().unwrap_or_default();
            let j = ferret_evidence::ledger::judge::judge(
                &claim,
                &ferret_evidence::ledger::PageText { title, text },
            );
            let window = j.window.map(|w| &text[w]).unwrap_or_default();
            out += &format!(
                "\n    judged {}: {:?} {} {:?} «{window}»",
                page.url, j.judgement, j.reason, j.matched
            );
        }
    }
    out
}

/// Each constraint's status and the reasons of its first verdicts.
fn explain(r: &ferret_evidence::research::ResearchReport) -> String {
    r.enrichment
        .ledger
        .constraints
        .iter()
        .map(|c| {
            let first = c
                .refutations
                .first()
                .or(c.evidence.first())
                .map(|e| format!("{} «{}»", e.reason, e.quote.text))
                .unwrap_or_default();
            let facts: Vec<String> = ferret_evidence::ledger::Claim::new(&c.text)
                .facts()
                .iter()
                .map(|f| f.text().to_string())
                .collect();
            format!("{}={} {facts:?} {first}", c.id, c.status.as_str())
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

fn print(tally: &Tally, skipped: usize) {
    let labels = ["supported", "refuted", "nei", "conflict"];
    let statuses = [
        "sufficient",
        "partial",
        "browse-needed",
        "insufficient",
        "error",
    ];
    println!("| label | {} |", statuses.join(" | "));
    println!("|---|{}|", statuses.map(|_| "---").join("|"));
    for l in labels {
        let row: Vec<String> = statuses
            .iter()
            .map(|s| {
                tally
                    .table
                    .get(&(l.to_string(), s.to_string()))
                    .copied()
                    .unwrap_or(0)
                    .to_string()
            })
            .collect();
        println!("| {l} | {} |", row.join(" | "));
    }
    let get = |l: &str, s: &str| {
        tally
            .table
            .get(&(l.to_string(), s.to_string()))
            .copied()
            .unwrap_or(0)
    };
    let sufficient: usize = labels.iter().map(|l| get(l, "sufficient")).sum();
    let supported: usize = statuses.iter().map(|s| get("supported", s)).sum();
    let tp = get("supported", "sufficient");
    let precision = if sufficient == 0 {
        1.0
    } else {
        tp as f64 / sufficient as f64
    };
    let recall = if supported == 0 {
        0.0
    } else {
        tp as f64 / supported as f64
    };
    let mut times = tally.times.clone();
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    println!();
    println!("precision of sufficient: {precision:.3} ({tp} of {sufficient})");
    println!("recall of supported:     {recall:.3} ({tp} of {supported})");
    println!("refuted accepted:        {}", get("refuted", "sufficient"));
    println!("conflicts accepted:      {}", get("conflict", "sufficient"));
    println!("not-stated accepted:     {}", get("nei", "sufficient"));
    println!(
        "median time per case:    {:.1} ms",
        median.as_secs_f64() * 1e3
    );
    if skipped > 0 {
        println!("cases skipped (edit not found in the HTML): {skipped}");
    }
}

/// `--sentences`: each claim judged against its deciding sentence alone.
fn judge_sentences(args: &Args) {
    use ferret_evidence::ledger::{Claim, PageText, judge::judge};
    let text = std::fs::read_to_string(&args.claims).unwrap_or_default();
    let mut table: BTreeMap<(String, String), usize> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let field = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        if args.split != "all" && field("split") != args.split {
            continue;
        }
        let claim = Claim::new(&field("claim"));
        let sentence = field("sentence");
        let judged = judge(&claim, &PageText::text(&sentence));
        let verdict = format!("{:?}", judged.judgement).to_lowercase();
        *table.entry((field("label"), verdict.clone())).or_default() += 1;
        let expected = match field("label").as_str() {
            "supported" => "supports",
            "refuted" | "conflict" => "refutes",
            _ => "unrelated",
        };
        if args.show_misses && verdict != expected {
            println!(
                "{} [{} {}] {verdict} ({}): {}\n    facts {:?}\n    «{}»",
                field("id"),
                field("label"),
                field("kind"),
                judged.reason,
                field("claim"),
                claim.facts().iter().map(|f| f.text()).collect::<Vec<_>>(),
                field("sentence")
            );
        }
    }
    for ((label, verdict), n) in &table {
        println!("{label:>10} {verdict:>10} {n}");
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if args.sentences {
        judge_sentences(&args);
        return;
    }
    let (cases, pages, skipped) = match load(&args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("bench_evidence: {e}");
            std::process::exit(1);
        }
    };
    let addr = match serve(pages).await {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench_evidence: cannot serve the pages: {e}");
            std::process::exit(1);
        }
    };
    let fetcher = Fetcher::builder()
        .guard(UrlGuard::new())
        .browser_mode(BrowserMode::Never)
        .public_endpoints(false)
        .resolve(HOST, IpAddr::V4(Ipv4Addr::LOCALHOST))
        .build()
        .expect("a fetcher");
    let research = Research::builder(fetcher).build();
    let mut tally = Tally {
        table: BTreeMap::new(),
        times: Vec::new(),
        misses: Vec::new(),
    };
    let verbose = args.case.is_some();
    for case in &cases {
        run_case(
            &research,
            addr.port(),
            case,
            &mut tally,
            args.show_misses || verbose,
            verbose,
        )
        .await;
    }
    println!("{} cases (split {})\n", cases.len(), args.split);
    print(&tally, skipped);
    for m in &tally.misses {
        println!("{m}");
    }
}
