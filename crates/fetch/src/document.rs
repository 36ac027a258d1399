//! One reading of a page (what a ladder step produced: text, metadata and
//! the signals the verdict needs) and how it becomes a [`FetchedPage`].
//! Also [`from_html`] and [`fetch_from_file`], the same reading without a
//! network.

use std::path::Path;
use std::time::Instant;

use ferret_core::{Provenance, Runtime};
use url::Url;

use super::FetchOptions;
use super::error::FetchError;
use super::focus;
use super::http::ContentClass;
use super::page::{
    Attempt, Escalation, FETCH_SCHEMA, FetchedPage, FocusReport, Warning, WarningCode,
};
use super::pdf::{self, PdfInfo};
use super::quality::assess_quality;
use super::sniff::{Sniffed, sniff_body};
use crate::budget::{OutOfTime, PageBudget, too_complex_reason};
use crate::extract::{
    DecodeInfo, ExtractOptions, Extracted, decode_html, detect_language, extract_bounded,
};
use crate::highlights::{self, Highlight, HighlightOptions};
use crate::nesting::{Bounded, Cut, MarkupBounds, bound_markup};
use crate::safety::{self, SafetyFlag};
use crate::verdict::{Assessment, Source, Verdict, VerifyInput, assess};

/// What one ladder step read.
#[derive(Debug, Clone)]
pub(crate) struct Reading {
    pub(crate) source: Source,
    pub(crate) status: Option<u16>,
    pub(crate) final_url: String,
    pub(crate) content_type: Option<String>,
    pub(crate) redirects: Vec<String>,
    pub(crate) title: Option<String>,
    pub(crate) byline: Option<String>,
    pub(crate) published_at: Option<String>,
    pub(crate) modified_at: Option<String>,
    pub(crate) language: Option<String>,
    pub(crate) site_name: Option<String>,
    pub(crate) text: String,
    pub(crate) markdown: String,
    /// Characters of the raw document (density denominator); `None` for API
    /// text.
    pub(crate) raw_chars: Option<usize>,
    pub(crate) meta_count: u8,
    pub(crate) js_shell: bool,
    pub(crate) unsupported: bool,
    pub(crate) truncated: bool,
    pub(crate) charset: Option<DecodeInfo>,
    pub(crate) html: Option<String>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) safety: Vec<SafetyFlag>,
    pub(crate) provenance: Provenance,
    pub(crate) chrome_used: bool,
    /// Why reading the page was stopped (its time budget ran out); the
    /// reading then keeps no text.
    pub(crate) too_complex: Option<String>,
    /// A PDF's pages and problem.
    pub(crate) pdf: Option<PdfInfo>,
}

impl Reading {
    /// An empty reading from `source` at `final_url`.
    pub(crate) fn empty(source: Source, final_url: &str, provenance: Provenance) -> Self {
        Reading {
            source,
            status: None,
            final_url: final_url.to_string(),
            content_type: None,
            redirects: Vec::new(),
            title: None,
            byline: None,
            published_at: None,
            modified_at: None,
            language: None,
            site_name: None,
            text: String::new(),
            markdown: String::new(),
            raw_chars: None,
            meta_count: 0,
            js_shell: false,
            unsupported: false,
            truncated: false,
            charset: None,
            html: None,
            warnings: Vec::new(),
            safety: Vec::new(),
            provenance,
            chrome_used: false,
            too_complex: None,
            pdf: None,
        }
    }

    /// Reads an HTML document: the markup bounded before parsing, then
    /// extraction, signals and the safety scan within the options' page
    /// budget (past it, the reading is too complex and keeps no text).
    pub(crate) fn from_html(
        html: String,
        url: Option<&Url>,
        options: &FetchOptions,
        source: Source,
        provenance: Provenance,
    ) -> Self {
        let budget = &options.budget;
        // One-time matcher construction is not the page's cost.
        crate::extract::prepare();
        safety::prepare();
        let deadline = budget.stage_deadline();
        let mut r = Reading::empty(source, url.map(Url::as_str).unwrap_or_default(), provenance);
        r.raw_chars = Some(html.chars().count());
        let bounded = bound_markup(&html, &MarkupBounds::of(budget));
        let ex = extract_bounded(&bounded.html, url, &extract_options(options));
        r.note_bounds(&bounded);
        let read = deadline.check("extraction").and_then(|()| {
            r.safety = safety::scan_bounded(&ex.text, Some(&bounded.html), url);
            deadline.check("the safety scan")
        });
        drop(bounded);
        match read {
            Ok(()) => r.take_extracted(ex, options),
            Err(out) => r.stop(out, budget),
        }
        r.html = Some(html);
        r
    }

    /// Marks the reading too complex: it keeps no text.
    fn stop(&mut self, out: OutOfTime, budget: &PageBudget) {
        self.too_complex = Some(too_complex_reason(out, budget.time));
        self.safety.clear();
    }

    /// Warnings (and `truncated`) for the bounds the markup went past.
    fn note_bounds(&mut self, bounded: &Bounded<'_>) {
        for (cut, detail) in bounded.described() {
            let code = match cut {
                Cut::Deep | Cut::Elements => WarningCode::DomFlattened,
                Cut::Text => WarningCode::TextTruncated,
            };
            self.cut(code, detail);
        }
    }

    /// The reading holds only part of the page, for `detail`.
    fn cut(&mut self, code: WarningCode, detail: String) {
        self.truncated = true;
        self.warnings.push(Warning::new(code, detail));
    }

    /// Takes the text, metadata and signals of an extraction.
    fn take_extracted(&mut self, ex: Extracted, options: &FetchOptions) {
        self.title = ex.title;
        self.byline = ex.byline;
        self.published_at = ex.published;
        self.language = ex.language;
        self.site_name = ex.site_name;
        self.meta_count = ex.meta.count();
        self.js_shell = ex.shell.looks_like_js_shell;
        if ex.truncated {
            self.cut(
                WarningCode::TextTruncated,
                format!(
                    "the text was cut at {} characters",
                    options.max_text_chars.unwrap_or_default()
                ),
            );
        }
        self.text = ex.text;
        self.markdown = ex.markdown;
    }

    /// Reads a plain-text document (its text bound from the options' page
    /// budget).
    pub(crate) fn from_text(
        text: String,
        url: Option<&Url>,
        options: &FetchOptions,
        source: Source,
        provenance: Provenance,
    ) -> Self {
        let mut r = Reading::empty(source, url.map(Url::as_str).unwrap_or_default(), provenance);
        let mut text = text.trim().to_string();
        let bound = options.budget.text_bytes();
        if text.len() > bound {
            let mut cut = bound;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            r.cut(
                WarningCode::TextTruncated,
                format!("the page has more than {bound} bytes of text; the rest was not read"),
            );
        }
        if let Some(max) = options.max_text_chars
            && text.chars().count() > max
        {
            text = text.chars().take(max).collect();
            r.truncated = true;
            r.warnings.push(Warning::new(
                WarningCode::TextTruncated,
                format!("the text was cut at {max} characters"),
            ));
        }
        r.safety = safety::scan_text(&text);
        r.language = detect_language(&text).map(str::to_owned);
        if options.markdown {
            r.markdown = text.clone();
        }
        r.text = text;
        r
    }

    /// Reads a response body according to its content type, within the
    /// options' page budget.
    pub(crate) fn from_body(
        body: &[u8],
        content_type: Option<&str>,
        url: &Url,
        options: &FetchOptions,
        source: Source,
        provenance: Provenance,
    ) -> Self {
        let class = ContentClass::of(content_type);
        let declared = content_type.unwrap_or("(none)");
        let sniffed = sniff_body(body);
        if sniffed == Sniffed::Pdf {
            return pdf::read(body, content_type, url, options, source, provenance);
        }
        let unreadable = match (class, sniffed) {
            (_, Sniffed::Binary(what)) => Some(format!(
                "the body is {what} (served as {declared}), not text"
            )),
            (ContentClass::Unsupported, Sniffed::Text) => Some(format!(
                "content type {declared} cannot be read as text; use a format-specific reader"
            )),
            _ => None,
        };
        if let Some(detail) = unreadable {
            let mut r = Reading::empty(source, url.as_str(), provenance);
            r.unsupported = true;
            r.warnings
                .push(Warning::new(WarningCode::UnsupportedContentType, detail));
            r.content_type = content_type.map(str::to_owned);
            return r;
        }
        let decoded = decode_html(body, content_type);
        let info = DecodeInfo {
            encoding: decoded.encoding.clone(),
            source: decoded.source,
            had_errors: decoded.had_errors,
        };
        let mut r = match class {
            ContentClass::Html | ContentClass::Xml => {
                Reading::from_html(decoded.html, Some(url), options, source, provenance)
            }
            _ => Reading::from_text(decoded.html, Some(url), options, source, provenance),
        };
        if info.had_errors {
            r.warnings.push(Warning::new(
                WarningCode::CharsetErrors,
                format!(
                    "some bytes are not valid {} and were replaced with U+FFFD",
                    info.encoding
                ),
            ));
        }
        r.charset = Some(info);
        r.content_type = content_type.map(str::to_owned);
        r
    }

    /// The verdict of this reading. `unrendered_shell` is true when the
    /// reading is a JavaScript shell and no browser rendered the page.
    pub(crate) fn assess(&self, unrendered_shell: bool) -> Assessment {
        if let Some(reason) = &self.too_complex {
            return Assessment::failed(Verdict::TooComplex, reason.clone());
        }
        assess(&VerifyInput {
            status: self.status,
            title: self.title.as_deref(),
            text: &self.text,
            raw_chars: self.raw_chars,
            meta_count: self.meta_count,
            source: self.source,
            unrendered_js_shell: unrendered_shell && self.js_shell,
            unsupported_content: self.unsupported,
        })
    }

    /// The envelope.
    pub(crate) fn into_page(self, finish: Finish<'_>) -> FetchedPage {
        let Finish {
            url,
            mut assessment,
            escalation,
            attempts,
            mut warnings,
            options,
            started,
        } = finish;
        let quality = assess_quality(self.title.as_deref(), &self.text);
        warnings.extend(self.warnings);
        warnings.extend(self.safety.iter().map(safety_warning));
        let (text, markdown, focus) = focused(
            self.text,
            self.markdown,
            options.focus.as_deref(),
            &mut warnings,
        );
        let pdf = pdf_spans_kept(self.pdf, focus.is_some());
        let (text, markdown, highlights) = match highlighted(&text, options, &options.budget) {
            Ok(highlights) => (text, markdown, with_pages(highlights, pdf.as_ref())),
            Err(out) => {
                let reason = too_complex_reason(out, options.budget.time);
                assessment = Assessment::failed(Verdict::TooComplex, reason);
                (String::new(), String::new(), Vec::new())
            }
        };
        FetchedPage {
            schema: FETCH_SCHEMA.to_string(),
            url: url.to_string(),
            final_url: if self.final_url.is_empty() {
                url.to_string()
            } else {
                self.final_url
            },
            status: self.status,
            content_type: self.content_type,
            source: self.source,
            escalation,
            attempts,
            redirects: self.redirects,
            title: self.title,
            byline: self.byline,
            published_at: self.published_at,
            modified_at: self.modified_at,
            language: self.language,
            site_name: self.site_name,
            text,
            markdown: if options.markdown {
                markdown
            } else {
                String::new()
            },
            focus,
            highlights,
            quality,
            warnings,
            safety: self.safety,
            verdict: assessment.verdict,
            ok: assessment.ok,
            score: assessment.score,
            markers: assessment.markers,
            verdict_reason: assessment.reason,
            provenance: self.provenance,
            chrome_used: self.chrome_used,
            elapsed_ms: elapsed_ms(started),
            truncated: self.truncated,
            charset: self.charset,
            html: if options.include_html {
                self.html
            } else {
                None
            },
            cache: None,
            pdf,
        }
    }
}

/// A PDF's info for the envelope: its page spans dropped when a focus
/// keyword reshaped the text (they would point at the wrong bytes).
fn pdf_spans_kept(pdf: Option<PdfInfo>, focused: bool) -> Option<PdfInfo> {
    pdf.map(|mut pdf| {
        if focused {
            pdf.pages.clear();
        }
        pdf
    })
}

/// Highlights with the PDF page each one starts on.
fn with_pages(mut highlights: Vec<Highlight>, pdf: Option<&PdfInfo>) -> Vec<Highlight> {
    if let Some(pdf) = pdf {
        for h in &mut highlights {
            h.page = pdf.page_of(h.start);
        }
    }
    highlights
}

/// What extraction produces for a fetch.
fn extract_options(options: &FetchOptions) -> ExtractOptions {
    ExtractOptions {
        markdown: options.markdown,
        links: false,
        max_text_chars: options.max_text_chars,
    }
}

/// The highlights for the options' query (none without one), within a
/// stage of `budget`.
fn highlighted(
    text: &str,
    options: &FetchOptions,
    budget: &PageBudget,
) -> Result<Vec<Highlight>, OutOfTime> {
    match options.query.as_deref() {
        Some(query) if !query.trim().is_empty() => {
            let deadline = budget.stage_deadline();
            let options = HighlightOptions::default();
            Ok(highlights::highlights_within(text, query, &options, deadline)?.highlights)
        }
        _ => Ok(Vec::new()),
    }
}

/// A content-safety flag as a page warning.
fn safety_warning(flag: &SafetyFlag) -> Warning {
    Warning::new(
        WarningCode::ContentSafety,
        format!("{} ({:?}): {}", flag.kind, flag.severity, flag.detail),
    )
}

/// The text and Markdown kept under the `focus` keyword, with its report;
/// both unchanged without one. Too few matches keep the start instead,
/// with a warning.
fn focused(
    text: String,
    markdown: String,
    keyword: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> (String, String, Option<FocusReport>) {
    let Some(keyword) = keyword.filter(|k| !k.trim().is_empty()) else {
        return (text, markdown, None);
    };
    let (t, m, report) = focus::apply(&text, &markdown, keyword);
    if !report.matched {
        warnings.push(Warning::new(
            WarningCode::FocusFallback,
            format!(
                "too little text mentions {keyword:?}; the first {} characters are \
                 kept instead",
                highlights::FOCUS_FALLBACK_CHARS
            ),
        ));
    }
    (t, m, Some(report))
}

/// What [`Reading::into_page`] adds.
pub(crate) struct Finish<'a> {
    pub(crate) url: &'a str,
    pub(crate) assessment: Assessment,
    pub(crate) escalation: Option<Escalation>,
    pub(crate) attempts: Vec<Attempt>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) options: &'a FetchOptions,
    pub(crate) started: Instant,
}

pub(crate) fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Reads HTML you already have (no network): the same extraction, verdict
/// (source `reader`), quality and safety scan as a fetched page. `url` is
/// the page's address, used to resolve links and as the envelope's URL
/// (`about:blank` when absent). Within the options' [`PageBudget`]: a page
/// past its size bounds is read in part (`truncated`, with the warning), a
/// page past its time budget is `too_complex`.
pub fn from_html(html: &str, url: Option<&str>, options: &FetchOptions) -> FetchedPage {
    let started = Instant::now();
    let parsed = url.and_then(|u| Url::parse(u.trim()).ok());
    let reading = Reading::from_html(
        html.to_string(),
        parsed.as_ref(),
        options,
        Source::Reader,
        Provenance::public(Runtime::Local),
    );
    finish_local(reading, url.unwrap_or("about:blank"), options, started)
}

/// Reads a saved page from a file (no network): bytes decoded by BOM or
/// `<meta charset>` (UTF-8 / windows-1252 otherwise), then as
/// [`from_html`]. `url` is the page's original address, when known (the
/// envelope's URL is `file://<path>` otherwise). At most
/// [`DEFAULT_BODY_LIMIT`](super::DEFAULT_BODY_LIMIT) bytes are read, as on
/// the HTTP path (see [`fetch_from_file_limited`]), within the options'
/// [`PageBudget`]. A PDF (by its first bytes) is read as on the HTTP path
/// too, up to [`DEFAULT_PDF_BODY_LIMIT`](super::DEFAULT_PDF_BODY_LIMIT).
pub fn fetch_from_file(
    path: impl AsRef<Path>,
    url: Option<&str>,
    options: &FetchOptions,
) -> Result<FetchedPage, FetchError> {
    let limit = if pdf::file_has_pdf_magic(path.as_ref()) {
        super::DEFAULT_PDF_BODY_LIMIT
    } else {
        super::DEFAULT_BODY_LIMIT
    };
    fetch_from_file_limited(path, url, options, limit)
}

/// [`fetch_from_file`] with `limit` bytes as the cap on the body (the HTTP
/// path's cap by default): the file is read incrementally and at most
/// `limit` bytes are kept, the rest cut with a
/// [`WarningCode::BodyTruncated`] warning. Only regular files are read (a
/// device, a FIFO or a folder is a typed error), so `/dev/zero` or a pipe
/// never fills memory.
pub fn fetch_from_file_limited(
    path: impl AsRef<Path>,
    url: Option<&str>,
    options: &FetchOptions,
    limit: usize,
) -> Result<FetchedPage, FetchError> {
    read_file(path.as_ref(), url, options, limit)
}

/// Reads the file at `path`: at most `limit` bytes, within the options'
/// page budget.
fn read_file(
    path: &Path,
    url: Option<&str>,
    options: &FetchOptions,
    limit: usize,
) -> Result<FetchedPage, FetchError> {
    let started = Instant::now();
    let (bytes, cut) = read_bounded(path, limit)?;
    let file_url = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| Url::from_file_path(p).ok());
    let content_type = match path.extension().and_then(|e| e.to_str()) {
        Some("txt" | "md" | "markdown") => Some("text/plain"),
        Some("json") => Some("application/json"),
        Some("pdf") => Some("application/pdf"),
        _ => None,
    };
    let saved = Saved {
        label: path.display().to_string(),
        url,
        file_url,
        unnamed: path.display().to_string(),
        content_type,
    };
    Ok(saved.read(&bytes, cut, limit, options, started))
}

/// Where a saved page's bytes came from, as its reading names it.
pub(crate) struct Saved<'a> {
    /// What the body-cut warning calls the source.
    pub(crate) label: String,
    /// The page's original address, when known.
    pub(crate) url: Option<&'a str>,
    /// The file's own `file://` address, when it has one.
    pub(crate) file_url: Option<Url>,
    /// The envelope's URL when neither address is known.
    pub(crate) unnamed: String,
    /// The content type the source implies (a `.txt` file is text).
    pub(crate) content_type: Option<&'a str>,
}

impl Saved<'_> {
    /// Reads `bytes` (cut at `limit` when `cut`) as a saved page: decoded
    /// and extracted as an HTTP body, links resolved against the page's
    /// address (or the file's), and a cut body said so.
    pub(crate) fn read(
        self,
        bytes: &[u8],
        cut: bool,
        limit: usize,
        options: &FetchOptions,
        started: Instant,
    ) -> FetchedPage {
        let page_url = self.url.and_then(|u| Url::parse(u.trim()).ok());
        let base = page_url.as_ref().or(self.file_url.as_ref());
        let (content_type, provenance) = (self.content_type, Provenance::public(Runtime::Local));
        let mut reading = match base {
            Some(base) => Reading::from_body(
                bytes,
                content_type,
                base,
                options,
                Source::Reader,
                provenance,
            ),
            None if pdf::has_pdf_magic(bytes) => {
                let blank = Url::parse("about:blank").expect("about:blank is a URL");
                pdf::read(
                    bytes,
                    content_type,
                    &blank,
                    options,
                    Source::Reader,
                    provenance,
                )
            }
            None => {
                let html = decode_html(bytes, content_type).html;
                Reading::from_html(html, None, options, Source::Reader, provenance)
            }
        };
        reading.content_type = content_type.map(str::to_owned);
        let shown = self
            .url
            .map(str::to_owned)
            .or_else(|| self.file_url.as_ref().map(Url::to_string))
            .unwrap_or(self.unnamed);
        let mut page = finish_local(reading, &shown, options, started);
        if cut {
            page.truncated = true;
            page.warnings.push(Warning::new(
                WarningCode::BodyTruncated,
                format!(
                    "{} is larger than {limit} bytes; only the first {limit} were read",
                    self.label
                ),
            ));
        }
        page
    }
}

/// At most `limit` bytes of the regular file at `path`, and whether there
/// was more.
fn read_bounded(path: &Path, limit: usize) -> Result<(Vec<u8>, bool), FetchError> {
    let error = |detail: String| FetchError::File {
        path: path.to_path_buf(),
        detail,
    };
    let file = std::fs::File::open(path).map_err(|e| error(e.to_string()))?;
    let meta = file.metadata().map_err(|e| error(e.to_string()))?;
    if !meta.is_file() {
        return Err(error("not a regular file: give a saved page".into()));
    }
    let capacity = (meta.len() as usize).min(limit);
    read_limited(file, limit, capacity).map_err(|e| error(e.to_string()))
}

/// At most `limit` bytes of `reader`, read incrementally, and whether there
/// was more.
pub(crate) fn read_limited(
    reader: impl std::io::Read,
    limit: usize,
    capacity: usize,
) -> std::io::Result<(Vec<u8>, bool)> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(capacity);
    reader.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    let cut = bytes.len() > limit;
    bytes.truncate(limit);
    Ok((bytes, cut))
}

fn finish_local(
    reading: Reading,
    url: &str,
    options: &FetchOptions,
    started: Instant,
) -> FetchedPage {
    let assessment = reading.assess(true);
    reading.into_page(Finish {
        url,
        assessment,
        escalation: None,
        attempts: Vec::new(),
        warnings: Vec::new(),
        options,
        started,
    })
}
