//! PDF reading through the public API: PDFs written here with `lopdf`, by
//! groff (`groff -Tpdf`), by Ghostscript (`ps2pdf`) and encrypted by qpdf,
//! PDFs shipped in Debian packages, served by a loopback server or read
//! from files; page spans and page numbers of quotes, the `Info`
//! metadata, and typed outcomes for encrypted, image-only, truncated,
//! damaged, oversized and hostile PDFs.
//!
//! Needs the Debian packages `groff`, `ghostscript`, `qpdf`,
//! `libtasn1-doc` and `shared-mime-info` (nothing is skipped).

mod fetch_support;
mod pdf_support;

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use ferret_extract::budget::PageBudget;
use ferret_fetch::verify::Verdict;
use ferret_fetch::{
    FetchOptions, FetchedPage, PdfProblem, WarningCode, fetch_from_file, fetch_from_reader,
};
use fetch_support::*;
use pdf_support::*;

use lopdf::{Dictionary, Document, Object, Stream, dictionary};

/// Every test's outcome must come well within this.
const QUICK: Duration = Duration::from_secs(20);

fn pdf_response(content_type: &'static str, bytes: Vec<u8>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, content_type)], bytes)
}

async fn fetch(path: &str, router: Router) -> FetchedPage {
    let addr = serve(router).await;
    let fetcher = public_fetcher().build().expect("fetcher");
    let started = Instant::now();
    let page = tokio::time::timeout(
        QUICK,
        fetcher.fetch(&public_url(addr, path), &FetchOptions::default()),
    )
    .await
    .expect("within the timeout")
    .expect("a page");
    assert!(started.elapsed() < QUICK);
    page
}

/// The page of the first occurrence of `needle` in the page's text.
fn page_of(page: &FetchedPage, needle: &str) -> Option<u32> {
    let at = page.text.find(needle).unwrap_or_else(|| {
        panic!("{needle:?} is not in the text: {:?}", page.text);
    });
    page.page_of(at)
}

fn problem(page: &FetchedPage) -> Option<PdfProblem> {
    page.pdf.as_ref().and_then(|p| p.problem)
}

#[tokio::test]
async fn a_pdf_is_read_page_by_page_with_its_info() {
    let bytes = lopdf_pdf(&PAGES);
    let router = Router::new().route(
        "/survey.pdf",
        get(move || async move { pdf_response("application/pdf", bytes) }),
    );
    let page = fetch("/survey.pdf", router).await;
    assert!(page.ok, "{:?}: {}", page.verdict, page.verdict_reason);
    let pdf = page.pdf.as_ref().expect("pdf info");
    assert_eq!(pdf.page_count, 3);
    assert_eq!(pdf.pages.len(), 3);
    assert_eq!(pdf.producer.as_deref(), Some("ferret pdf test"));
    assert_eq!(
        page.title.as_deref(),
        Some("Kestrels of the Northern Valley")
    );
    assert_eq!(page.byline.as_deref(), Some("R. Falco"));
    assert_eq!(
        page.published_at.as_deref(),
        Some("2024-01-15T09:30:00+01:00")
    );
    assert_eq!(page_of(&page, "Kestrel survey"), Some(1));
    assert_eq!(page_of(&page, "Results. The kestrel"), Some(2));
    assert_eq!(page_of(&page, "Milder winters"), Some(3));
    for span in &pdf.pages {
        assert!(page.text.is_char_boundary(span.start) && page.text.is_char_boundary(span.end));
    }
    let json = serde_json::to_value(&page).expect("json");
    assert_eq!(json["pdf"]["pages"][1]["number"], 2);
}

#[tokio::test]
async fn magic_bytes_make_a_pdf_of_an_opaque_or_wrong_type() {
    for served_as in ["application/octet-stream", "text/html"] {
        let bytes = lopdf_pdf(&PAGES);
        let router = Router::new().route(
            "/download",
            get(move || async move { pdf_response(served_as, bytes) }),
        );
        let page = fetch("/download", router).await;
        assert!(page.ok, "{served_as}: {:?}", page.verdict);
        assert_eq!(page.pdf.as_ref().map(|p| p.page_count), Some(3));
    }
}

#[tokio::test]
async fn highlights_carry_the_page_they_start_on() {
    let bytes = lopdf_pdf(&PAGES);
    let router = Router::new().route(
        "/survey.pdf",
        get(move || async move { pdf_response("application/pdf", bytes) }),
    );
    let addr = serve(router).await;
    let fetcher = public_fetcher().build().expect("fetcher");
    let options = FetchOptions::default().with_query("voles milder winters growth");
    let page = fetcher
        .fetch(&public_url(addr, "/survey.pdf"), &options)
        .await
        .expect("page");
    let best = page.highlights.first().expect("a highlight");
    assert_eq!(best.page, Some(page.page_of(best.start).expect("a page")));
    assert!(
        page.highlights.iter().any(|h| h.page == Some(3)),
        "{:?}",
        page.highlights
    );
    let json = serde_json::to_value(best).expect("json");
    assert!(json.get("page").is_some());
    let report = fetcher.verify(&public_url(addr, "/survey.pdf")).await;
    assert!(report.ok, "{:?}", report.verdict);
    assert_eq!(
        report.title.as_deref(),
        Some("Kestrels of the Northern Valley")
    );
}

#[test]
fn saved_pdfs_are_read_from_files_and_readers() {
    let bytes = lopdf_pdf(&PAGES);
    let dir = tempfile::tempdir().expect("temp dir");
    // No extension: the first bytes decide.
    let path = dir.path().join("download");
    std::fs::write(&path, &bytes).expect("write");
    let page = fetch_from_file(
        &path,
        Some("https://example.org/survey"),
        &FetchOptions::default(),
    )
    .expect("page");
    assert!(page.ok);
    assert_eq!(page_of(&page, "Results. The kestrel"), Some(2));
    let page =
        fetch_from_reader(&bytes[..], None, &FetchOptions::default(), 1 << 22).expect("page");
    assert!(page.ok, "{:?}", page.verdict);
    assert_eq!(page_of(&page, "Milder winters"), Some(3));
}

/// Runs `program` with `args` in `dir`, failing the test with its output.
fn run(dir: &Path, program: &str, args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} must be installed (Debian package): {e}"));
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

const MS: &str = ".TL\nKestrels of the Northern Valley\n.AU\nR. Falco\n.na\n.PP\nThe kestrel \
population in the northern valley grew by 18 percent between 2022 and 2024.\n.bp\n.PP\nMilder \
winters and more voles explain most of the growth.\n";

/// Options with time for a debug build to read a long PDF.
fn patient() -> FetchOptions {
    FetchOptions::default().with_budget(PageBudget::default().with_time(QUICK))
}

fn read_file(path: &Path) -> FetchedPage {
    let started = Instant::now();
    let page = fetch_from_file(path, None, &patient()).expect("page");
    assert!(started.elapsed() < QUICK);
    page
}

#[test]
fn groff_and_ghostscript_pdfs_are_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let groff = run(dir.path(), "groff", &["-ms", "-Tpdf"], Some(MS.as_bytes()));
    std::fs::write(dir.path().join("groff.pdf"), &groff).expect("write");
    let ps = run(dir.path(), "groff", &["-ms", "-Tps"], Some(MS.as_bytes()));
    std::fs::write(dir.path().join("doc.ps"), &ps).expect("write");
    run(dir.path(), "ps2pdf", &["doc.ps", "gs.pdf"], None);
    for name in ["groff.pdf", "gs.pdf"] {
        let page = read_file(&dir.path().join(name));
        assert!(
            page.ok,
            "{name}: {:?} {}",
            page.verdict, page.verdict_reason
        );
        assert_eq!(page.pdf.as_ref().map(|p| p.page_count), Some(2), "{name}");
        assert!(page.text.contains("Kestrels"), "{name}: {}", page.text);
        assert_eq!(page_of(&page, "Milder"), Some(2), "{name}: {}", page.text);
        assert_eq!(page_of(&page, "Kestrels"), Some(1), "{name}");
    }
}

#[test]
fn pdfs_shipped_in_debian_packages_are_read() {
    let shipped = [
        (
            "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
            "Abstract Syntax Notation One",
        ),
        (
            "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
            "Shared MIME-info Database",
        ),
    ];
    for (path, phrase) in shipped {
        let page = read_file(Path::new(path));
        // On failure, the markers found again in the returned text tell a
        // wrong reading from a wrong assessment.
        assert!(
            page.ok,
            "{path}: {:?} {} {:?} {:?}; markers in the text now: {:?}",
            page.verdict,
            page.verdict_reason,
            page.markers,
            page.warnings,
            ferret_fetch::verify::find_markers(&page.text)
        );
        assert!(page.text.contains(phrase), "{path}");
        assert_eq!(page_of(&page, phrase), Some(1), "{path}");
        let pdf = page.pdf.as_ref().expect("pdf");
        assert!(pdf.page_count > 10 && pdf.pages.len() > 10, "{path}");
        assert!(
            pdf.producer.as_deref().unwrap_or("").contains("pdfTeX"),
            "{path}"
        );
    }
}

#[test]
fn encrypted_pdfs_need_a_password_unless_it_is_empty() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("plain.pdf"), lopdf_pdf(&PAGES)).expect("write");
    let encrypt = |user: &str, out: &str| {
        let args = ["--encrypt", user, "owner", "256", "--", "plain.pdf", out];
        run(dir.path(), "qpdf", &args, None);
    };
    encrypt("secret", "locked.pdf");
    encrypt("", "open.pdf");
    let locked = read_file(&dir.path().join("locked.pdf"));
    assert_eq!(locked.verdict, Verdict::Unsupported);
    assert_eq!(problem(&locked), Some(PdfProblem::Encrypted));
    assert!(locked.has_warning(WarningCode::UnsupportedContentType));
    let open = read_file(&dir.path().join("open.pdf"));
    assert!(open.ok, "{:?}", open.verdict);
    assert_eq!(page_of(&open, "Results. The kestrel"), Some(2));
}

#[test]
fn an_image_only_pdf_is_unsupported() {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let image = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => 2, "Height" => 2,
            "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
        },
        vec![0, 255, 255, 0],
    ));
    let draw = b"q 200 0 0 200 100 500 cm /Im1 Do Q".to_vec();
    let kids: Vec<Object> = (0..2)
        .map(|_| {
            let content = doc.add_object(Stream::new(dictionary! {}, draw.clone()));
            doc.add_object(dictionary! {
                "Type" => "Page", "Parent" => pages_id, "Contents" => content,
            })
            .into()
        })
        .collect();
    let res = dictionary! { "XObject" => dictionary! { "Im1" => image } };
    let bytes = finish(&mut doc, pages_id, kids, res.into());
    let page =
        fetch_from_reader(&bytes[..], None, &FetchOptions::default(), 1 << 20).expect("page");
    assert_eq!(page.verdict, Verdict::Unsupported);
    assert_eq!(problem(&page), Some(PdfProblem::ImageOnly));
}

#[test]
fn truncated_and_damaged_pdfs_are_typed() {
    let bytes = lopdf_pdf(&PAGES);
    let cut = &bytes[..bytes.len() / 2];
    let page = fetch_from_reader(cut, None, &FetchOptions::default(), 1 << 20).expect("page");
    assert_eq!(page.verdict, Verdict::Unsupported);
    assert_eq!(problem(&page), Some(PdfProblem::Truncated));
    let damaged = b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> garbage\n%%EOF\n";
    let page =
        fetch_from_reader(&damaged[..], None, &FetchOptions::default(), 1 << 20).expect("page");
    assert_eq!(page.verdict, Verdict::Unsupported);
    assert!(
        matches!(
            problem(&page),
            Some(PdfProblem::Damaged | PdfProblem::Truncated)
        ),
        "{:?}",
        page.pdf
    );
    assert!(page.warnings.iter().any(|w| w.detail.contains("PDF")));
}

#[tokio::test]
async fn a_200_mb_pdf_stops_at_the_pdf_cap() {
    const TOTAL: usize = 200 * 1024 * 1024;
    const CHUNK: usize = 256 * 1024;
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let router = Router::new().route(
        "/huge.pdf",
        get(move || {
            let counter = counter.clone();
            async move {
                let chunks = (0..TOTAL / CHUNK).map(move |i| {
                    counter.fetch_add(CHUNK, Ordering::Relaxed);
                    let mut chunk = vec![b' '; CHUNK];
                    if i == 0 {
                        chunk[..9].copy_from_slice(b"%PDF-1.7\n");
                    }
                    Ok::<_, std::io::Error>(chunk)
                });
                let body = Body::from_stream(futures::stream::iter(chunks));
                ([(header::CONTENT_TYPE, "application/pdf")], body)
            }
        }),
    );
    let addr = serve(router).await;
    let fetcher = public_fetcher()
        .pdf_body_limit(8 * 1024 * 1024)
        .build()
        .expect("fetcher");
    let started = Instant::now();
    let page = fetcher
        .fetch(&public_url(addr, "/huge.pdf"), &FetchOptions::default())
        .await
        .expect("a page");
    assert!(started.elapsed() < QUICK);
    assert!(page.truncated);
    assert!(page.has_warning(WarningCode::BodyTruncated));
    assert!(
        page.warnings.iter().any(|w| w.detail.contains("8388608")),
        "{:?}",
        page.warnings
    );
    assert_eq!(page.verdict, Verdict::Unsupported);
    assert_eq!(problem(&page), Some(PdfProblem::Truncated));
    assert!(
        sent.load(Ordering::Relaxed) < 64 * 1024 * 1024,
        "the server was read to the end"
    );
}

#[test]
fn a_form_that_draws_itself_is_refused() {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let form_id = doc.new_object_id();
    let mut form = Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Form",
            "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
            "Resources" => dictionary! { "XObject" => dictionary! { "X" => form_id } },
        },
        b"/X Do".to_vec(),
    );
    form.allows_compression = false;
    doc.objects.insert(form_id, Object::Stream(form));
    let content = doc.add_object(Stream::new(dictionary! {}, b"/X Do".to_vec()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
    });
    let res = dictionary! { "XObject" => dictionary! { "X" => form_id } };
    let bytes = finish(&mut doc, pages_id, vec![page.into()], res.into());
    let page =
        fetch_from_reader(&bytes[..], None, &FetchOptions::default(), 1 << 20).expect("page");
    assert_eq!(page.verdict, Verdict::Unsupported);
    assert_eq!(problem(&page), Some(PdfProblem::PastBounds));
}

#[test]
fn deeply_nested_objects_and_inflation_bombs_stay_bounded() {
    // 100 000 nested arrays in the page dictionary.
    let mut nested = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Page /Parent 2 0 R /Deep ".to_vec();
    nested.extend(std::iter::repeat_n(b'[', 100_000));
    nested.extend(std::iter::repeat_n(b']', 100_000));
    nested.extend(b" >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
    let started = Instant::now();
    let page =
        fetch_from_reader(&nested[..], None, &FetchOptions::default(), 1 << 20).expect("page");
    assert!(started.elapsed() < QUICK);
    assert!(!page.ok);
    assert_eq!(page.verdict, Verdict::Unsupported);
    // A content stream that inflates to 48 MiB of spaces.
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let spaces = vec![b' '; 1024 * 1024];
    for _ in 0..48 {
        encoder.write_all(&spaces).expect("deflate");
    }
    let bomb = encoder.finish().expect("deflate");
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut stream = Stream::new(dictionary! { "Filter" => "FlateDecode" }, bomb);
    stream.allows_compression = false;
    let content = doc.add_object(stream);
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
    });
    let bytes = finish(
        &mut doc,
        pages_id,
        vec![page.into()],
        Dictionary::new().into(),
    );
    let started = Instant::now();
    let page =
        fetch_from_reader(&bytes[..], None, &FetchOptions::default(), 1 << 22).expect("page");
    assert!(started.elapsed() < QUICK);
    assert_eq!(page.verdict, Verdict::Unsupported);
    assert_eq!(problem(&page), Some(PdfProblem::PastBounds));
}

#[test]
fn pages_past_the_cap_are_dropped_with_a_warning() {
    let texts: Vec<String> = (1..=505)
        .map(|n| format!("Page number {n} of the long report."))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let bytes = lopdf_pdf(&refs);
    let page = fetch_from_reader(&bytes[..], None, &patient(), 1 << 24).expect("page");
    let pdf = page.pdf.as_ref().expect("pdf");
    assert_eq!(pdf.page_count, 505);
    assert_eq!(pdf.pages.len(), 500);
    assert!(
        page.warnings.iter().any(|w| w.detail.contains("5 dropped")),
        "{:?}",
        page.warnings
    );
    assert_eq!(page_of(&page, "Page number 500 "), Some(500));
}

#[test]
fn the_text_caps_and_the_time_budget_hold() {
    let bytes = lopdf_pdf(&PAGES);
    let options = FetchOptions::default().with_max_text_chars(200);
    let page = fetch_from_reader(&bytes[..], None, &options, 1 << 20).expect("page");
    assert!(page.truncated);
    assert!(page.text.chars().count() <= 200);
    assert!(page.has_warning(WarningCode::TextTruncated));
    let budget = PageBudget::default().with_time(Duration::ZERO);
    let options = FetchOptions::default().with_budget(budget);
    let page = fetch_from_reader(&bytes[..], None, &options, 1 << 20).expect("page");
    assert_eq!(page.verdict, Verdict::TooComplex);
    assert!(page.text.is_empty());
}
