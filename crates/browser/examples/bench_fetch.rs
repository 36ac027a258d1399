//! Browser fetch benchmark, the same workload a Playwright script can run
//! for comparison: a local page of ≈25 KB
//! boilerplate whose `#article` JavaScript fills with ≈6 KB of text 300 ms
//! after `load` (then sets `data-ready`). Measures cold launch, warm
//! single-tab fetch latency, pages/s with N tabs, and peak PSS of the
//! browser's processes. Prints one JSON object on stdout.
//!
//! ```text
//! cargo run --release -p ferret-browser --example bench_fetch -- \
//!     [--cold 5] [--warm 20] [--tp-runs 5] [--tp-n 60] [--conc 4] [--background-tabs]
//! ```
//! `--background-tabs` runs the throughput phase with the tabs as
//! background tabs of one window ([`TaskSpaceSpec::background_tabs`])
//! instead of one window per tab.
//! Chromium: `FERRET_CHROMIUM` or `/usr/bin/chromium`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Query;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use ferret_browser::{
    BrowserRuntime, ChromiumConfig, ChromiumRuntime, RenderOptions, TaskSpaceSpec, WaitFor, procs,
};
use serde_json::{Value, json};

const WORDS: &[&str] = &[
    "the",
    "runtime",
    "schedules",
    "tasks",
    "on",
    "worker",
    "threads",
    "and",
    "parks",
    "idle",
    "workers",
    "while",
    "reactor",
    "polls",
    "sockets",
    "for",
    "readiness",
    "events",
    "which",
    "wake",
    "that",
    "were",
    "waiting",
    "input",
    "or",
    "output",
    "so",
    "they",
    "can",
    "make",
    "progress",
];

/// A small deterministic generator (xorshift) for the page text.
struct Rng(u64);
impl Rng {
    fn word(&mut self) -> &'static str {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        WORDS[(self.0 % WORDS.len() as u64) as usize]
    }
    fn words(&mut self, n: usize) -> String {
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
}

/// The peer's page, rebuilt: nav of 120 links, 40 side paragraphs, an empty
/// `#article` filled 300 ms after `load` with 12 paragraphs of 80 words and
/// an end marker.
fn page(i: u64) -> String {
    let mut rng = Rng(i.wrapping_mul(2_654_435_761).wrapping_add(0x9E37_79B9) | 1);
    let nav: String = (0..120)
        .map(|k| format!(r#"<li><a href="/section/{k}">Section {k} link text</a></li>"#))
        .collect();
    let side: String = (0..40)
        .map(|k| format!("<p class=side>Related story {k}: {}</p>", rng.words(12)))
        .collect();
    let paras: Vec<String> = (0..12).map(|_| format!("{}.", rng.words(80))).collect();
    let article = format!("{} END-OF-ARTICLE-{i}", paras.join("\\n\\n"));
    format!(
        r#"<!doctype html><html><head><meta charset=utf-8><title>Article {i}</title>
<style>body{{font-family:sans-serif}} .side{{color:#555}} nav li{{display:inline}}</style></head>
<body><header><nav><ul>{nav}</ul></nav></header>
<main><h1>Article number {i}</h1><div id="article"></div></main>
<aside>{side}</aside><footer>Copyright footer text</footer>
<script>
window.addEventListener('load', function () {{
  setTimeout(function () {{
    var el = document.getElementById('article');
    el.innerText = "{article}";
    el.setAttribute('data-ready', '1');
  }}, 300);
}});
</script></body></html>"#
    )
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    if s.is_empty() {
        return 0.0;
    }
    let m = s.len() / 2;
    if s.len().is_multiple_of(2) {
        (s[m - 1] + s[m]) / 2.0
    } else {
        s[m]
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Samples the PSS of the browser's process group every 100 ms; peaks per
/// phase.
#[derive(Clone, Default)]
struct Sampler {
    pgid: Arc<AtomicU32>,
    phase: Arc<Mutex<String>>,
    peaks: Arc<Mutex<HashMap<String, (u64, usize)>>>,
    stop: Arc<AtomicBool>,
}

impl Sampler {
    fn start(&self) -> std::thread::JoinHandle<()> {
        let s = self.clone();
        std::thread::spawn(move || {
            while !s.stop.load(Ordering::Relaxed) {
                let pgid = s.pgid.load(Ordering::Relaxed);
                if pgid != 0 {
                    let members = procs::live_in_group(pgid);
                    let pss: u64 = members.iter().filter_map(|p| procs::pss_kib(p.pid)).sum();
                    let phase = s.phase.lock().map(|p| p.clone()).unwrap_or_default();
                    if let Ok(mut peaks) = s.peaks.lock() {
                        let e = peaks.entry(phase).or_insert((0, 0));
                        if pss > e.0 {
                            *e = (pss, members.len());
                        }
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    }

    fn set(&self, phase: &str, pgid: Option<u32>) {
        if let Ok(mut p) = self.phase.lock() {
            *p = phase.to_string();
        }
        self.pgid.store(pgid.unwrap_or(0), Ordering::Relaxed);
    }
}

/// CPU seconds (user + system) of one process, from `/proc/PID/stat`.
fn cpu_s(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|st| {
            let rest = st
                .get(st.rfind(')')? + 2..)?
                .split_whitespace()
                .collect::<Vec<_>>();
            let ticks: f64 =
                rest.get(11)?.parse::<f64>().ok()? + rest.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(0.0)
}

/// CPU seconds used so far by the live processes of the browser's group.
fn group_cpu_s(pgid: Option<u32>) -> f64 {
    pgid.map(|g| procs::live_in_group(g).iter().map(|p| cpu_s(p.pid)).sum())
        .unwrap_or(0.0)
}

fn config() -> ChromiumConfig {
    let exe = std::env::var("FERRET_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    // The page is on 127.0.0.1: the guard must allow private addresses here.
    let mut c =
        ChromiumConfig::managed(exe).guard(ferret_core::guard::UrlGuard::new().allow_private(true));
    // Extra switches for experiments (space-separated, without dashes).
    if let Ok(extra) = std::env::var("BENCH_EXTRA_ARGS") {
        c.extra_args = extra.split_whitespace().map(str::to_string).collect();
    }
    c
}

fn options() -> RenderOptions {
    RenderOptions {
        wait: WaitFor::selector("#article[data-ready]"),
        timeout: Some(Duration::from_secs(30)),
        include_html: false,
    }
}

async fn fetch(rt: &ChromiumRuntime, space: &str, base: &str, i: u64) -> Result<(), String> {
    let page = rt
        .render(space, &format!("{base}/page?i={i}"), &options())
        .await
        .map_err(|e| e.to_string())?;
    if !page.body_text.contains(&format!("END-OF-ARTICLE-{i}")) {
        return Err(format!("page {i}: article text missing"));
    }
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cold_n = arg("--cold", 5);
    let warm_n = arg("--warm", 20);
    let tp_runs = arg("--tp-runs", 5);
    let tp_n = arg("--tp-n", 60) as u64;
    let conc = arg("--conc", 4);
    let background_tabs = std::env::args().any(|a| a == "--background-tabs");

    // The server runs on its own thread, as the peer's runs in a child.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("server runtime");
        rt.block_on(async move {
            let cache: Arc<Mutex<HashMap<u64, String>>> = Arc::default();
            let app = Router::new().route(
                "/page",
                get(move |Query(q): Query<HashMap<String, String>>| {
                    let cache = cache.clone();
                    async move {
                        let i: u64 = q.get("i").and_then(|v| v.parse().ok()).unwrap_or(0);
                        let body = cache
                            .lock()
                            .map(|mut c| c.entry(i).or_insert_with(|| page(i)).clone())
                            .unwrap_or_else(|_| page(i));
                        (
                            [
                                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                                (header::CACHE_CONTROL, "no-store"),
                            ],
                            body,
                        )
                            .into_response()
                    }
                }),
            );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            tx.send(listener.local_addr().expect("addr")).expect("send");
            axum::serve(listener, app).await.expect("serve");
        });
    });
    let addr = rx.recv()?;
    let base = format!("http://127.0.0.1:{}", addr.port());
    eprintln!("page size: {} bytes", page(1).len());

    let sampler = Sampler::default();
    let sampler_thread = sampler.start();
    let mut out = serde_json::Map::new();
    let mut ctr: u64 = 10_000;

    // ---- cold launches
    let (mut launch, mut ready, mut first) = (Vec::new(), Vec::new(), Vec::new());
    let mut version = String::new();
    for _ in 0..cold_n {
        let t0 = Instant::now();
        let rt = ChromiumRuntime::new(config())?;
        let status = rt.status().await?; // launch + connect + version
        let t1 = Instant::now();
        sampler.set("cold", rt.browser_pid());
        rt.open_space(&TaskSpaceSpec::new("bench").max_tabs(1))
            .await?;
        ctr += 1;
        fetch(&rt, "bench", &base, ctr).await?;
        let t3 = Instant::now();
        version = status.browser_version.unwrap_or_default();
        rt.shutdown().await?;
        launch.push((t1 - t0).as_secs_f64() * 1e3);
        ready.push((t1 - t0).as_secs_f64() * 1e3);
        first.push((t3 - t0).as_secs_f64() * 1e3);
    }
    let _ = &ready;
    out.insert("browser_version".into(), json!(version));
    out.insert(
        "cold_launch_ms".into(),
        json!({"median": round1(median(&launch)), "first": launch.first().map(|x| round1(*x)),
               "all": launch.iter().map(|x| round1(*x)).collect::<Vec<_>>()}),
    );
    out.insert(
        "cold_launch_to_first_text_ms".into(),
        json!({"median": round1(median(&first)), "all": first.iter().map(|x| round1(*x)).collect::<Vec<_>>()}),
    );
    eprintln!(
        "cold launch median {:.1} ms, to first text {:.1} ms",
        median(&launch),
        median(&first)
    );

    // ---- warm single tab
    let rt = ChromiumRuntime::new(config())?;
    rt.open_space(&TaskSpaceSpec::new("warm").max_tabs(1))
        .await?;
    sampler.set("warm_single_tab", None);
    for _ in 0..3 {
        ctr += 1;
        fetch(&rt, "warm", &base, ctr).await?;
    }
    sampler.set("warm_single_tab", rt.browser_pid());
    let mut lat = Vec::new();
    for _ in 0..warm_n {
        ctr += 1;
        let t0 = Instant::now();
        fetch(&rt, "warm", &base, ctr).await?;
        lat.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let mut sorted = lat.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    if sorted.is_empty() {
        sorted.push(0.0);
    }
    let p90 = sorted[((sorted.len() as f64 * 0.9) as usize).saturating_sub(1)];
    out.insert(
        "warm_fetch_ms".into(),
        json!({"n": lat.len(), "median": round1(median(&lat)), "min": round1(sorted[0]),
               "p90": round1(p90), "max": round1(*sorted.last().unwrap_or(&0.0)),
               "median_minus_300ms_timer": round1(median(&lat) - 300.0)}),
    );
    eprintln!(
        "warm fetch median {:.1} ms ({:.1} over the timer)",
        median(&lat),
        median(&lat) - 300.0
    );
    rt.close_space("warm").await?;

    // ---- throughput: conc tabs in one space pulling from a queue
    sampler.set("throughput", rt.browser_pid());
    rt.open_space(
        &TaskSpaceSpec::new("tp")
            .max_tabs(conc)
            .background_tabs(background_tabs),
    )
    .await?;
    let warmup: Vec<_> = (0..conc as u64)
        .map(|k| {
            let rt = rt.clone();
            let base = base.clone();
            async move { fetch(&rt, "tp", &base, ctr + 1 + k).await }
        })
        .collect();
    for r in futures::future::join_all(warmup).await {
        r?;
    }
    ctr += conc as u64;
    let mut runs = Vec::new();
    let (cpu0, self0) = (group_cpu_s(rt.browser_pid()), cpu_s(std::process::id()));
    for _ in 0..tp_runs {
        let next = Arc::new(std::sync::atomic::AtomicU64::new(ctr + 1));
        let end = ctr + tp_n;
        ctr = end;
        let t0 = Instant::now();
        let workers: Vec<_> = (0..conc)
            .map(|_| {
                let rt = rt.clone();
                let base = base.clone();
                let next = next.clone();
                tokio::spawn(async move {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i > end {
                            return Ok::<(), String>(());
                        }
                        fetch(&rt, "tp", &base, i).await?;
                    }
                })
            })
            .collect();
        for w in workers {
            w.await??;
        }
        runs.push(tp_n as f64 / t0.elapsed().as_secs_f64());
    }
    let pages = (tp_runs as f64 * tp_n as f64).max(1.0);
    let browser_cpu_ms = (group_cpu_s(rt.browser_pid()) - cpu0) * 1e3 / pages;
    let self_cpu_ms = (cpu_s(std::process::id()) - self0) * 1e3 / pages;
    out.insert(
        "throughput_cpu_ms_per_page".into(),
        json!({"browser": round1(browser_cpu_ms), "driver_incl_sampler": round1(self_cpu_ms)}),
    );
    eprintln!("CPU per page: browser {browser_cpu_ms:.1} ms, driver {self_cpu_ms:.1} ms");
    out.insert(
        "throughput_pages_per_s".into(),
        json!({"concurrency": conc, "background_tabs": background_tabs, "fetches_per_run": tp_n, "median": (median(&runs) * 100.0).round() / 100.0,
               "all": runs.iter().map(|x| (x * 100.0).round() / 100.0).collect::<Vec<_>>(),
               "ideal_if_only_300ms_timer": ((conc as f64 / 0.3) * 100.0).round() / 100.0}),
    );
    eprintln!(
        "throughput median {:.2} pages/s with {conc} tabs",
        median(&runs)
    );
    sampler.set("closing", None);
    rt.shutdown().await?;

    sampler.stop.store(true, Ordering::Relaxed);
    let _ = sampler_thread.join();
    let peaks: Value = sampler
        .peaks
        .lock()
        .map(|p| {
            p.iter()
                .map(|(k, (pss, n))| {
                    (
                        k.clone(),
                        json!({"chromium_pss_kb": pss, "chromium_procs": n}),
                    )
                })
                .collect::<serde_json::Map<_, _>>()
                .into()
        })
        .unwrap_or(Value::Null);
    out.insert("peak_memory_kb_by_phase".into(), peaks);
    // CPU seconds this process (the CDP client) used, from /proc/self/stat.
    let cpu = cpu_s(std::process::id());
    out.insert("self_cpu_s".into(), json!(cpu));
    eprintln!("driver CPU: {cpu:.2} s");
    out.insert(
        "self_pss_kb".into(),
        json!(procs::pss_kib(std::process::id()).unwrap_or(0)),
    );
    println!("{}", serde_json::to_string_pretty(&Value::Object(out))?);
    Ok(())
}
