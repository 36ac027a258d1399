//! PDF reading speed: pages per second of `fetch_from_reader` on PDFs
//! written here with `lopdf` (short and long pages), on PDFs made by groff
//! and Ghostscript when they are installed, and on the PDFs Debian ships
//! in /usr/share/doc when present. Prints one row per document.
//!
//! ```text
//! cargo run --release -p ferret-fetch --example bench_pdf [-- --rounds N]
//! ```
//!
//! (`scripts/bench-pdf` runs it.) Nothing leaves the machine.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ferret_extract::budget::PageBudget;
use ferret_fetch::{FetchOptions, fetch_from_reader};
use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, Stream, dictionary};

/// Debian's own PDFs, read when present.
const SHIPPED: &[&str] = &[
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
];

const PROSE: &str = "The kestrel population in the northern valley grew by 18 percent \
between 2022 and 2024, while the number of nesting sites stayed the same. Milder winters \
and more voles explain most of the growth.";

fn main() {
    let rounds = rounds_arg();
    let mut docs: Vec<(String, Vec<u8>)> = vec![
        ("lopdf, 50 short pages".into(), lopdf_pdf(50, 2)),
        ("lopdf, 200 long pages".into(), lopdf_pdf(200, 12)),
    ];
    docs.extend(made_by_tools());
    for path in SHIPPED {
        if let Ok(bytes) = std::fs::read(path) {
            docs.push((format!("shipped {}", short(path)), bytes));
        }
    }
    println!(
        "{:<44} {:>6} {:>10} {:>10} {:>9}",
        "document", "pages", "bytes", "ms/read", "pages/s"
    );
    for (name, bytes) in &docs {
        report(name, bytes, rounds);
    }
}

/// `--rounds N` (default 3).
fn rounds_arg() -> u32 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(3)
        .max(1)
}

fn short(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Reads `bytes` `rounds` times and prints the best round.
fn report(name: &str, bytes: &[u8], rounds: u32) {
    let options = FetchOptions::default()
        .with_budget(PageBudget::default().with_time(Duration::from_secs(600)));
    let mut best = Duration::MAX;
    let mut pages = 0;
    for _ in 0..rounds {
        let started = Instant::now();
        let page = fetch_from_reader(bytes, None, &options, 64 << 20).expect("a page");
        best = best.min(started.elapsed());
        pages = page.pdf.as_ref().map_or(0, |p| p.pages.len());
        if !page.ok {
            eprintln!("{name}: verdict {} ({})", page.verdict, page.verdict_reason);
        }
    }
    let per_s = pages as f64 / best.as_secs_f64();
    println!(
        "{name:<44} {pages:>6} {:>10} {:>10.1} {per_s:>9.1}",
        bytes.len(),
        best.as_secs_f64() * 1000.0
    );
}

/// PDFs from groff (`-Tpdf`) and Ghostscript (`ps2pdf`), when installed.
fn made_by_tools() -> Vec<(String, Vec<u8>)> {
    let dir = std::env::temp_dir().join(format!("ferret-bench-pdf-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return Vec::new();
    }
    let ms: String = (0..40)
        .map(|i| format!(".NH\nSection {i}\n.PP\n{PROSE} {PROSE}\n.bp\n"))
        .collect();
    let _ = std::fs::write(dir.join("doc.ms"), ms);
    let mut out = Vec::new();
    if let Some(pdf) = tool(&dir, "groff", &["-ms", "-Tpdf", "doc.ms"], None) {
        out.push(("groff -Tpdf, 40 pages".to_string(), pdf));
    }
    let ps = tool(&dir, "groff", &["-ms", "-Tps", "doc.ms"], None);
    if let Some(ps) = ps
        && std::fs::write(dir.join("doc.ps"), ps).is_ok()
        && let Some(pdf) = tool(
            &dir,
            "ps2pdf",
            &["doc.ps", "gs.pdf"],
            Some(&dir.join("gs.pdf")),
        )
    {
        out.push(("ps2pdf (Ghostscript), 40 pages".to_string(), pdf));
    }
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// What `program` writes to stdout (or to `output`), `None` when it is
/// missing or fails.
fn tool(dir: &Path, program: &str, args: &[&str], output: Option<&PathBuf>) -> Option<Vec<u8>> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("{program} failed; its row is left out");
        return None;
    }
    match output {
        Some(path) => std::fs::read(path).ok(),
        None => Some(out.stdout),
    }
}

/// A `lopdf` PDF of `pages` pages, each `paragraphs` copies of the prose.
fn lopdf_pdf(pages: usize, paragraphs: usize) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let kids: Vec<Object> = (0..pages)
        .map(|_| {
            let content = doc.add_object(Stream::new(dictionary! {}, content(paragraphs)));
            doc.add_object(dictionary! {
                "Type" => "Page", "Parent" => pages_id, "Contents" => content,
            })
            .into()
        })
        .collect();
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => count,
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    doc.compress();
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save");
    bytes
}

/// One page's drawing: the prose in lines of about 70 characters.
fn content(paragraphs: usize) -> Vec<u8> {
    let mut ops = vec![
        Operation::new("BT", vec![]),
        Operation::new("Tf", vec!["F1".into(), 9.into()]),
        Operation::new("TL", vec![11.into()]),
        Operation::new("Td", vec![40.into(), 800.into()]),
    ];
    let words: Vec<&str> = PROSE.split_whitespace().collect();
    for _ in 0..paragraphs {
        for line in words.chunks(11) {
            ops.push(Operation::new(
                "Tj",
                vec![Object::string_literal(line.join(" "))],
            ));
            ops.push(Operation::new("T*", vec![]));
        }
    }
    ops.push(Operation::new("ET", vec![]));
    Content { operations: ops }.encode().expect("content")
}
