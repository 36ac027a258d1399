//! PDF reading: a PDF body (by `Content-Type: application/pdf` or by its
//! `%PDF-` magic bytes) becomes a page whose text is the pages' texts
//! joined by a blank line, with [`PdfInfo`] saying where each page starts
//! and ends in that text, so a quote can cite `p. N`.
//!
//! **The reader.** Text comes from `pdf-extract` (font encodings,
//! `ToUnicode` maps, ligatures normalised), the structure (page tree,
//! `Info` dictionary, encryption) from `lopdf`, the parser `pdf-extract`
//! is built on. Measured on PDFs from pdfTeX, gropdf, Ghostscript and
//! `lopdf` itself, `lopdf`'s own `extract_text` read no text at all from
//! gropdf's output and garbled pdfTeX's dot leaders and ligatures, where
//! `pdf-extract` read all of them (2–6× slower, still 17–140 pages/s in a
//! debug build). `pdf-extract` panics on malformed input (it unwraps
//! missing entries), so every page is read under
//! [`std::panic::catch_unwind`]: a page that panics is a page that could
//! not be read, never a crash.
//!
//! **Bounds.** Before parsing, every non-image Flate stream is inflated
//! into nothing with a cap ([`MAX_INFLATED_STREAM`]): a decompression bomb
//! is refused without being held in memory. After parsing, the page tree's
//! `Parent` chains and the form XObjects pages draw are walked with depth
//! and count bounds, so a cycle or a deep nest (which the text reader
//! would follow until its stack overflows) is refused too. At most
//! [`MAX_PDF_PAGES`] pages are read (a warning says how many were
//! dropped), the text stops at the page budget's text bound and
//! `max_text_chars`, and the reading runs on its own thread under the page
//! budget's time: past it the page is `too_complex`.
//!
//! **Verdicts.** Encrypted (a password is needed), image-only (no page has
//! text: a scan), truncated, damaged and past-bounds PDFs are `unsupported`
//! with [`PdfInfo::problem`] saying which and an
//! [`UnsupportedContentType`](super::WarningCode::UnsupportedContentType)
//! warning saying why. A PDF encrypted with an empty user password (only
//! permissions set) is decrypted and read.

mod bounds;
mod info;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::time::Duration;

use ferret_core::Provenance;
use serde::{Deserialize, Serialize};
use url::Url;

use super::FetchOptions;
use super::document::Reading;
use super::page::{Warning, WarningCode};
use crate::budget::{Deadline, OutOfTime, too_complex_reason};
use crate::extract::detect_language;
use crate::safety;
use crate::verdict::Source;

pub use bounds::MAX_INFLATED_STREAM;

/// Default cap on a PDF body in bytes (20 MiB): PDFs are larger than pages,
/// so they have a cap of their own ([`FetcherBuilder::pdf_body_limit`](super::FetcherBuilder::pdf_body_limit)).
pub const DEFAULT_PDF_BODY_LIMIT: usize = 20 * 1024 * 1024;
/// Pages read from one PDF; the rest are dropped with a warning.
pub const MAX_PDF_PAGES: usize = 500;
/// What separates two pages in the text.
pub const PAGE_SEPARATOR: &str = "\n\n";
/// The reading thread's stack: room for the text reader's recursion within
/// the nesting bounds.
const READER_STACK: usize = 32 * 1024 * 1024;
/// The stage name a PDF past its time budget reports.
const STAGE: &str = "PDF text extraction";

/// What a PDF page carries besides its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PdfInfo {
    /// Pages in the document (read or not).
    pub page_count: u32,
    /// The pages read, in order: where each one's text lies in the page's
    /// text (byte offsets, as highlights and quotes count them). Empty when
    /// the text was reshaped afterwards (a focus keyword).
    pub pages: Vec<PageSpan>,
    /// The program that wrote the PDF (`Producer` in its `Info`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<String>,
    /// Why the PDF could not be read, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<PdfProblem>,
}

impl PdfInfo {
    /// The page (1-based) holding byte `offset` of the page's text; `None`
    /// past the text or between two pages (in the separator).
    pub fn page_of(&self, offset: usize) -> Option<u32> {
        let at = self.pages.partition_point(|p| p.end <= offset);
        self.pages
            .get(at)
            .filter(|p| p.start <= offset && offset < p.end)
            .map(|p| p.number)
    }
}

/// One page's text in the page's text: `&text[start..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PageSpan {
    /// The page number (1-based, as the PDF counts its pages).
    pub number: u32,
    /// Byte offset of the page's first byte.
    pub start: usize,
    /// Byte offset one past the page's last byte.
    pub end: usize,
}

/// Why a PDF could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum PdfProblem {
    /// It is encrypted and needs a password.
    Encrypted,
    /// No page has text: a scan or images only (OCR is not done).
    ImageOnly,
    /// The body stops before the PDF ends (cut at the byte cap or broken
    /// off).
    Truncated,
    /// It does not parse as a PDF.
    Damaged,
    /// It is past the reader's bounds: a decompression bomb, or objects
    /// nested too deep or in a cycle.
    PastBounds,
}

/// Whether `content_type` names a PDF.
pub(crate) fn is_pdf_type(content_type: Option<&str>) -> bool {
    let mime = mime_of(content_type);
    matches!(mime.as_str(), "application/pdf" | "application/x-pdf")
}

/// Whether `content_type` says nothing about the body (so its first bytes
/// decide whether it is a PDF).
pub(crate) fn is_opaque_type(content_type: Option<&str>) -> bool {
    let mime = mime_of(content_type);
    matches!(
        mime.as_str(),
        "" | "application/octet-stream" | "binary/octet-stream" | "application/download"
    )
}

fn mime_of(content_type: Option<&str>) -> String {
    content_type
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether `bytes` start (after whitespace) with the PDF magic `%PDF-`.
pub(crate) fn has_pdf_magic(bytes: &[u8]) -> bool {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    bytes[start..].starts_with(b"%PDF-")
}

/// Whether the file at `path` starts with the PDF magic (false when it
/// cannot be read: the reader then says why).
pub(crate) fn file_has_pdf_magic(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(1024);
    // Only regular files: opening a FIFO would wait for a writer.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    std::fs::File::open(path)
        .and_then(|f| f.take(1024).read_to_end(&mut head))
        .is_ok_and(|_| has_pdf_magic(&head))
}

/// The limits one reading works within.
#[derive(Debug, Clone, Copy)]
struct Limits {
    text_bytes: usize,
    text_chars: Option<usize>,
    deadline: Deadline,
}

/// What the reading thread produced.
#[derive(Debug, Default)]
struct Outcome {
    texts: Vec<(u32, String)>,
    page_count: u32,
    meta: info::Meta,
    problem: Option<(PdfProblem, String)>,
    warnings: Vec<Warning>,
    out_of_time: bool,
}

/// Reads a PDF body into a [`Reading`]: text with page spans, the `Info`
/// metadata, a problem as `unsupported`, past the time budget
/// `too_complex`.
pub(crate) fn read(
    body: &[u8],
    content_type: Option<&str>,
    url: &Url,
    options: &FetchOptions,
    source: Source,
    provenance: Provenance,
) -> Reading {
    let mut r = Reading::empty(source, url.as_str(), provenance);
    r.content_type = content_type.map(str::to_owned);
    r.raw_chars = None;
    let limits = Limits {
        text_bytes: options.budget.text_bytes(),
        text_chars: options.max_text_chars,
        deadline: options.budget.stage_deadline(),
    };
    let outcome = run_reader(body, limits);
    if outcome.out_of_time {
        let reason = too_complex_reason(OutOfTime { stage: STAGE }, options.budget.time);
        r.too_complex = Some(reason);
        return r;
    }
    take_outcome(&mut r, outcome, limits, options.markdown);
    r
}

/// Runs [`read_document`] on its own thread (a stack sized for the reader,
/// the caller's deadline kept even when one page runs long).
fn run_reader(body: &[u8], limits: Limits) -> Outcome {
    if let Err(detail) = bounds::check_streams(body) {
        return problem(PdfProblem::PastBounds, detail);
    }
    let bytes = body.to_vec();
    let (tx, rx) = mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name("ferret-pdf".into())
        .stack_size(READER_STACK)
        .spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| read_document(&bytes, limits)))
                .unwrap_or_else(|_| {
                    problem(PdfProblem::Damaged, "the PDF reader failed on it".into())
                });
            let _ = tx.send(outcome);
        });
    if let Err(e) = spawned {
        return problem(PdfProblem::Damaged, format!("no thread to read it: {e}"));
    }
    let waited = match limits.deadline.remaining() {
        Some(left) => rx.recv_timeout(left + Duration::from_millis(50)),
        None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
    };
    match waited {
        Ok(outcome) => outcome,
        Err(mpsc::RecvTimeoutError::Timeout) => Outcome {
            out_of_time: true,
            ..Outcome::default()
        },
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            problem(PdfProblem::Damaged, "the PDF reader failed on it".into())
        }
    }
}

/// An outcome that is only a problem.
fn problem(kind: PdfProblem, detail: String) -> Outcome {
    Outcome {
        problem: Some((kind, detail)),
        ..Outcome::default()
    }
}

/// Parses the PDF, checks its structure and reads its pages' text.
fn read_document(bytes: &[u8], limits: Limits) -> Outcome {
    let doc = match lopdf::Document::load_mem(bytes) {
        Ok(doc) => doc,
        Err(e) => return unparsable(bytes, &e),
    };
    if doc.is_encrypted() {
        return problem(
            PdfProblem::Encrypted,
            "the PDF is encrypted and needs a password; its text cannot be read".into(),
        );
    }
    let pages = doc.get_pages();
    let mut outcome = Outcome {
        page_count: u32::try_from(pages.len()).unwrap_or(u32::MAX),
        meta: info::Meta::of(&doc),
        ..Outcome::default()
    };
    let read: Vec<(u32, lopdf::ObjectId)> = pages.into_iter().take(MAX_PDF_PAGES).collect();
    if let Err(detail) = bounds::check_structure(&doc, &read) {
        outcome.problem = Some((PdfProblem::PastBounds, detail));
        return outcome;
    }
    if outcome.page_count as usize > MAX_PDF_PAGES {
        outcome.warnings.push(Warning::new(
            WarningCode::TextTruncated,
            format!(
                "the PDF has {} pages; only the first {MAX_PDF_PAGES} were read ({} dropped)",
                outcome.page_count,
                outcome.page_count as usize - MAX_PDF_PAGES
            ),
        ));
    }
    read_pages(&doc, &read, limits, &mut outcome);
    outcome
}

/// Why a PDF that does not parse does not: cut short, or damaged.
fn unparsable(bytes: &[u8], error: &lopdf::Error) -> Outcome {
    let tail = &bytes[bytes.len().saturating_sub(1024)..];
    if memchr::memmem::find(tail, b"%%EOF").is_none() {
        return problem(
            PdfProblem::Truncated,
            format!("the PDF stops before its end (no %%EOF marker): {error}"),
        );
    }
    problem(
        PdfProblem::Damaged,
        format!("the PDF does not parse: {error}"),
    )
}

/// Reads each page's text within the deadline and the text bounds.
fn read_pages(
    doc: &lopdf::Document,
    pages: &[(u32, lopdf::ObjectId)],
    limits: Limits,
    outcome: &mut Outcome,
) {
    let (mut bytes, mut failed) = (0usize, 0usize);
    for (number, _) in pages {
        if limits.deadline.expired() {
            outcome.out_of_time = true;
            return;
        }
        if bytes >= limits.text_bytes {
            break;
        }
        match page_text(doc, *number) {
            Some(text) => {
                bytes += text.len() + PAGE_SEPARATOR.len();
                outcome.texts.push((*number, text));
            }
            None => failed += 1,
        }
    }
    if failed > 0 {
        outcome.warnings.push(Warning::new(
            WarningCode::UnsupportedContentType,
            format!("{failed} of the PDF's pages could not be read and were left out"),
        ));
    }
}

/// One page's text, tidied; `None` when the reader fails or panics on it.
fn page_text(doc: &lopdf::Document, number: u32) -> Option<String> {
    let read = catch_unwind(AssertUnwindSafe(|| {
        let mut text = String::new();
        let mut output = pdf_extract::PlainTextOutput::new(&mut text);
        pdf_extract::output_doc_page(doc, &mut output, number).map(|()| text)
    }));
    match read {
        Ok(Ok(text)) => Some(tidy(&text)),
        _ => None,
    }
}

/// A page's text without trailing spaces, with at most one blank line in a
/// row, trimmed.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

/// Moves the outcome into the reading: text and spans, metadata,
/// warnings, and the verdict's signals.
fn take_outcome(r: &mut Reading, outcome: Outcome, limits: Limits, markdown: bool) {
    r.warnings.extend(outcome.warnings);
    r.title = outcome.meta.title.clone();
    r.byline = outcome.meta.author.clone();
    r.published_at = outcome.meta.created.clone();
    r.modified_at = outcome.meta.modified.clone();
    let mut info = PdfInfo {
        page_count: outcome.page_count,
        pages: Vec::new(),
        producer: outcome.meta.producer,
        problem: None,
    };
    let problem = outcome.problem.or_else(|| image_only(&outcome.texts));
    if let Some((kind, detail)) = problem {
        info.problem = Some(kind);
        r.unsupported = true;
        r.warnings
            .push(Warning::new(WarningCode::UnsupportedContentType, detail));
        r.pdf = Some(info);
        return;
    }
    let (text, pages, cut) = assemble(outcome.texts, limits);
    if let Some(detail) = cut {
        r.truncated = true;
        r.warnings
            .push(Warning::new(WarningCode::TextTruncated, detail));
    }
    info.pages = pages;
    r.safety = safety::scan_text(&text);
    r.language = detect_language(&text).map(str::to_owned);
    r.meta_count = u8::from(r.title.is_some()) + u8::from(r.byline.is_some());
    if markdown {
        r.markdown = text.clone();
    }
    r.text = text;
    r.pdf = Some(info);
}

/// The image-only problem, when no page read has any text.
fn image_only(texts: &[(u32, String)]) -> Option<(PdfProblem, String)> {
    texts.iter().all(|(_, t)| t.trim().is_empty()).then(|| {
        (
            PdfProblem::ImageOnly,
            "no page of the PDF has text (a scan or images only; text in images is not read)"
                .to_string(),
        )
    })
}

/// The pages' texts joined by [`PAGE_SEPARATOR`], cut at the limits, with
/// each page's span and why the text was cut, if it was.
fn assemble(texts: Vec<(u32, String)>, limits: Limits) -> (String, Vec<PageSpan>, Option<String>) {
    let mut text = String::new();
    let mut spans = Vec::with_capacity(texts.len());
    let mut chars = 0usize;
    let total = texts.len();
    for (i, (number, page)) in texts.into_iter().enumerate() {
        if page.is_empty() {
            continue;
        }
        let sep = if text.is_empty() {
            0
        } else {
            PAGE_SEPARATOR.len()
        };
        let (kept, cut) = fit(&page, text.len() + sep, chars + sep, limits);
        if !kept.is_empty() {
            text.push_str(&PAGE_SEPARATOR[..sep]);
            let start = text.len();
            text.push_str(kept);
            chars += sep + kept.chars().count();
            spans.push(PageSpan {
                number,
                start,
                end: text.len(),
            });
        }
        let full = text.len() >= limits.text_bytes && i + 1 < total;
        if let Some(why) = cut.or_else(|| full.then(|| text_bytes_cut(limits))) {
            return (text, spans, Some(why));
        }
    }
    (text, spans, None)
}

/// The part of `page` that fits after `bytes` bytes and `chars`
/// characters of text, and why it was cut, if it was.
fn fit(page: &str, bytes: usize, chars: usize, limits: Limits) -> (&str, Option<String>) {
    let mut end = page.len();
    let mut why = None;
    if bytes + page.len() > limits.text_bytes {
        end = floor_char_boundary(page, limits.text_bytes.saturating_sub(bytes));
        why = Some(text_bytes_cut(limits));
    }
    if let Some(max) = limits.text_chars {
        let room = max.saturating_sub(chars);
        if let Some((at, _)) = page[..end].char_indices().nth(room) {
            end = at;
            why = Some(format!("the text was cut at {max} characters"));
        }
    }
    (&page[..end], why)
}

fn text_bytes_cut(limits: Limits) -> String {
    format!(
        "the PDF has more than {} bytes of text; the rest was not read",
        limits.text_bytes
    )
}

/// The largest char boundary of `s` at or before `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(text_bytes: usize, text_chars: Option<usize>) -> Limits {
        Limits {
            text_bytes,
            text_chars,
            deadline: Deadline::none(),
        }
    }

    #[test]
    fn pages_are_joined_with_their_spans() {
        let texts = vec![
            (1, "one".to_string()),
            (2, String::new()),
            (3, "three".into()),
        ];
        let (text, spans, cut) = assemble(texts, limits(1000, None));
        assert_eq!(text, "one\n\nthree");
        assert_eq!(cut, None);
        let info = PdfInfo {
            page_count: 3,
            pages: spans,
            producer: None,
            problem: None,
        };
        assert_eq!(info.page_of(0), Some(1));
        assert_eq!(info.page_of(3), None);
        assert_eq!(info.page_of(5), Some(3));
        assert_eq!(info.page_of(10), None);
    }

    #[test]
    fn text_is_cut_at_the_limits() {
        let texts = vec![(1, "abcdef".to_string()), (2, "ghijkl".into())];
        let (text, spans, cut) = assemble(texts.clone(), limits(1000, Some(8)));
        assert_eq!(text, "abcdef");
        assert!(cut.unwrap().contains("8 characters"));
        assert_eq!(spans.len(), 1);
        let (text, _, cut) = assemble(texts, limits(4, None));
        assert_eq!(text, "abcd");
        assert!(cut.is_some());
    }

    #[test]
    fn tidy_keeps_one_blank_line() {
        assert_eq!(tidy("\n\n a  \n\n\n\nb\n"), "a\n\nb");
    }

    #[test]
    fn types_and_magic() {
        assert!(is_pdf_type(Some("application/pdf; charset=binary")));
        assert!(is_opaque_type(Some("application/octet-stream")));
        assert!(is_opaque_type(None));
        assert!(!is_opaque_type(Some("text/html")));
        assert!(has_pdf_magic(b"\r\n%PDF-1.7"));
        assert!(!has_pdf_magic(b"<html>%PDF-"));
    }
}
