//! Runs the extractor over a benchmark's `html/*.html.gz` pages (by default
//! the article-extraction benchmark) and writes
//! a predictions file for the benchmark's `eval.py`.
//!
//! ```text
//! cargo run --release -p ferret-extract --example bench_extraction -- \
//!     [--html-dir DIR] [--out preds/ferret.json] [--repeat 5]
//! ```
//!
//! All pages are read and decompressed first; then one untimed warm-up call,
//! then `--repeat` timed passes over the in-memory pages (the median pass is
//! written as `elapsed_s`), the same protocol as the Python baselines.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ferret_extract::{ExtractOptions, extract_bytes};

struct Args {
    html_dir: PathBuf,
    out: PathBuf,
    repeat: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut html_dir = None;
    let mut out = PathBuf::from("ferret.json");
    let mut repeat = 5usize;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--html-dir" => html_dir = Some(PathBuf::from(value()?)),
            "--out" => out = PathBuf::from(value()?),
            "--repeat" => {
                repeat = value()?
                    .parse()
                    .map_err(|e| format!("--repeat must be a positive number: {e}"))?;
            }
            "-h" | "--help" => {
                return Err(
                    "usage: bench_extraction [--html-dir DIR] [--out FILE] [--repeat N]".into(),
                );
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    let html_dir = match html_dir {
        Some(d) => d,
        None => {
            let shared = std::env::var_os("FERRET_SHARED")
                .map(PathBuf::from)
                .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
            shared.join("bench/article-extraction/html")
        }
    };
    Ok(Args {
        html_dir,
        out,
        repeat: repeat.max(1),
    })
}

/// Pages as raw bytes: some benchmark pages are not UTF-8, and the
/// extractor chooses the encoding itself.
fn load_pages(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut pages = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(id) = name.strip_suffix(".html.gz") else {
            continue;
        };
        let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut html = Vec::new();
        flate2::read::GzDecoder::new(file)
            .read_to_end(&mut html)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        pages.push((id.to_owned(), html));
    }
    pages.sort();
    Ok(pages)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench_extraction: {e}");
            std::process::exit(2);
        }
    };
    let pages = match load_pages(&args.html_dir) {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => {
            eprintln!(
                "bench_extraction: no *.html.gz pages in {}",
                args.html_dir.display()
            );
            std::process::exit(2);
        }
        Err(e) => {
            eprintln!("bench_extraction: {e}");
            std::process::exit(2);
        }
    };
    let options = ExtractOptions::default();
    let mb = pages.iter().map(|(_, h)| h.len()).sum::<usize>() as f64 / 1e6;
    let _ = extract_bytes(&pages[0].1, None, None, &options); // warm-up, untimed
    let mut passes = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    for _ in 0..args.repeat {
        texts.clear();
        let start = Instant::now();
        for (_, html) in &pages {
            texts.push(extract_bytes(html, None, None, &options).text);
        }
        passes.push(start.elapsed().as_secs_f64());
    }
    let mut sorted = passes.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    eprintln!(
        "ferret: {} pages, {mb:.1} MB; median {median:.3} s over {} pass(es) (min {:.3}, max {:.3}) = {:.1} pages/s",
        pages.len(),
        passes.len(),
        sorted[0],
        sorted[sorted.len() - 1],
        pages.len() as f64 / median
    );
    let output: serde_json::Map<String, serde_json::Value> = pages
        .iter()
        .zip(&texts)
        .map(|((id, _), text)| (id.clone(), serde_json::json!({ "articleBody": text })))
        .collect();
    let doc = serde_json::json!({
        "name": "ferret",
        "version": env!("CARGO_PKG_VERSION"),
        "elapsed_s": median,
        "output": output,
    });
    if let Some(parent) = args.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&args.out, doc.to_string()) {
        eprintln!("bench_extraction: cannot write {}: {e}", args.out.display());
        std::process::exit(1);
    }
}
