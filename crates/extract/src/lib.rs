//! # ferret-extract
//!
//! HTML in, what the page says out: main-content extraction from bytes,
//! with no network and no async runtime, usable alone the way trafilatura is
//! (`examples/extract_file.rs` is its command line).
//!
//! The crate, by module:
//! - the extractor (this page): [`extract`], [`extract_bytes`],
//!   [`extract_many`], [`decode_html`] and the [`Extracted`] they return;
//! - [`budget`]: what one page may cost, the size bounds before the parser
//!   runs and the time budget per stage ([`budget::PageBudget`]);
//! - [`nesting`]: the bounds themselves (depth, elements, text), applied
//!   to markup in one linear pass;
//! - [`highlights`]: BM25 passage selection within a token budget, every
//!   highlight a verbatim slice of the extracted text;
//! - [`hidden`]: the one rule for whether an element is hidden from a
//!   person (removed, concealed, or from assistive technology only);
//! - [`safety`]: content-safety flags (prompt injection aimed at agents,
//!   hidden text, link farms, invisible characters);
//! - `structured` (feature `schema`, on by default): fail-closed extraction
//!   to a JSON Schema from JSON-LD and HTML tables (`ferret.extract.v1`);
//! - [`pool`]: the scoped thread pool batch calls run on.
//!
//! Text is read through `ferret-text` (tokens, dates, stopwords).
//!
//! [`extract`] turns a page into an [`Extracted`]: the article text with its
//! paragraph structure (as plain text, Markdown and [`Block`]s), the title,
//! byline, publication date (ISO 8601), language, the links inside the
//! article, every JSON-LD block (invalid ones reported in
//! [`Extracted::json_ld_errors`]), and the signals later steps need: text
//! size, link density, whether the page is an empty JavaScript shell
//! ([`ShellSignals`]) and which meta tags it has ([`MetaSignals`]).
//! [`extract_bytes`] does the same for raw bytes, choosing the character
//! encoding first ([`decode_html`]); [`extract_many`] extracts many pages on
//! a pool of threads.
//!
//! How it works, in order:
//! 1. The markup is bounded (`crate::nesting`: depth, elements, text) so
//!    pathological markup parses in linear time; then `prescan`, a
//!    byte-level pass, drops the contents of scripts, styles, SVG, noscript
//!    blocks and comments (keeping JSON-LD), so the HTML5 parser has half
//!    the bytes to read.
//! 2. The page is parsed with `scraper` (html5ever) and flattened into a
//!    pre-order vector (`dom`); hidden elements, form controls and embeds are
//!    left out. Every later walk is iterative: nesting depth cannot overflow
//!    the stack.
//! 3. `vocabulary` tags elements by class/id words, ARIA roles and microdata
//!    (boilerplate, article body, captions…). `content` measures the text
//!    each block owns, recognises teaser lists (cards of headline links with
//!    short summaries) and picks the container that maximises prose minus
//!    junk (preferring one in the headline's section), widens a lone
//!    paragraph to the run it belongs to, then moves to a named article
//!    body just above it or to the `<article>` holding the page's `<h1>`
//!    inside it.
//! 4. `render` walks that container, with the short lines between it and
//!    the headline before it (the headline itself is the title), skipping
//!    boilerplate subtrees, teaser lists and link-list paragraphs, and stops
//!    at a heading that opens the comments.
//!    When the container yields too little, prose paragraphs of the whole
//!    body are the fallback; then prose inside elements named as chrome;
//!    for pages with almost no text of their own (a thread under a link),
//!    prose in the comments; last, prose in captions (a slideshow).
//! 5. `metadata`, `json_ld`, `date` and `language` fill in the rest.
//!
//! Quality and speed: F1 0.973 on the 181-page article-extraction benchmark
//! and 0.932 / 0.931 on the Dragnet train / test splits (token 4-grams;
//! trafilatura 2.3.1 fast: 0.962 and 0.920 / 0.909) at 6–8 times
//! trafilatura's fast mode; `scripts/bench-extraction --peers` measures
//! them all on the current machine.
//!
//! Extraction never fails and never panics: on empty or broken input the
//! result simply has empty text ([`Strategy::Empty`]).

pub mod budget;
pub mod hidden;
pub mod highlights;
mod html_lex;
pub mod nesting;
pub mod pool;
pub mod safety;
#[cfg(feature = "schema")]
pub mod structured;

mod charset;
mod content;
mod date;
mod dom;
mod json_ld;
mod language;
mod metadata;
mod prescan;
mod render;
mod shell;
mod vocabulary;

use scraper::Html;
use serde::{Deserialize, Serialize};
use url::Url;

pub use charset::{CharsetSource, Decoded, decode_html};
pub use date::normalize_date;
pub use json_ld::JsonLdError;
pub use language::{LanguageSource, detect_language, normalize_language_tag};
pub use shell::ShellSignals;

use content::{Analysis, squash};
use dom::{Dom, Tag, text_weight};
use metadata::PageMeta;
use prescan::Hidden;
use render::{RenderOptions, Rendered};

/// Below this many characters the chosen container is compared with the
/// prose-only pass over the whole body.
const THIN_CONTENT_CHARS: usize = 250;

/// What to produce besides the plain text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractOptions {
    /// Render Markdown (`Extracted::markdown`). Default `true`.
    pub markdown: bool,
    /// Collect the links found in the main content. Default `true`.
    pub links: bool,
    /// Stop adding blocks once the text reaches this many characters
    /// (`Extracted::truncated` is then set). Default: no limit.
    pub max_text_chars: Option<usize>,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            markdown: true,
            links: true,
            max_text_chars: None,
        }
    }
}

impl ExtractOptions {
    /// Sets [`ExtractOptions::max_text_chars`].
    pub fn with_max_text_chars(mut self, max: usize) -> Self {
        self.max_text_chars = Some(max);
        self
    }
}

/// The kind of a paragraph-level block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BlockKind {
    /// Running text.
    Paragraph,
    /// A heading.
    Heading {
        /// Level 1–6.
        level: u8,
    },
    /// A list item; `number` is set for ordered lists.
    ListItem {
        /// Nesting depth (1 = top level).
        depth: u8,
        /// Position in an ordered list.
        number: Option<u32>,
    },
    /// Preformatted text or code.
    Code,
    /// A table row (cells separated by `" | "`).
    TableRow,
}

/// One paragraph-level block of the main content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// What kind of block it is.
    pub kind: BlockKind,
    /// Blockquote nesting (0 = not quoted).
    pub quote_depth: u8,
    /// Plain text (whitespace collapsed, except in code).
    pub text: String,
    /// Inline Markdown (links, emphasis, code spans), without block prefix.
    pub markdown: String,
}

/// A link in the main content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// Absolute http(s) URL.
    pub url: String,
    /// Anchor text.
    pub text: String,
}

/// Meta tags the fetch verdict score counts (canonical, description,
/// OpenGraph, JSON-LD).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaSignals {
    /// `<link rel="canonical">` target (absolute when a base URL is known).
    pub canonical: Option<String>,
    /// Meta description (or OpenGraph/Twitter description).
    pub description: Option<String>,
    /// Any `og:*` meta tag is present.
    pub open_graph: bool,
    /// At least one JSON-LD block is present (valid or not).
    pub json_ld: bool,
}

impl MetaSignals {
    /// How many of the four signals are present (0–4).
    pub fn count(&self) -> u8 {
        u8::from(self.canonical.is_some())
            + u8::from(self.description.is_some())
            + u8::from(self.open_graph)
            + u8::from(self.json_ld)
    }
}

/// Which path produced the main text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// The best-scoring container, cleaned.
    Container,
    /// The container was too thin; prose paragraphs of the whole body.
    ProseFallback,
    /// No prose anywhere; the cleaned body as it is.
    WholeBody,
    /// Nothing but the headline: the text is the page's title.
    Headline,
    /// The page has no text.
    Empty,
}

/// Everything extracted from one page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Extracted {
    /// Headline, cleaned of site-name suffixes.
    pub title: Option<String>,
    /// Author name(s).
    pub byline: Option<String>,
    /// Publication date, ISO 8601 (`2019-11-19` or an RFC 3339 timestamp).
    pub published: Option<String>,
    /// Language tag (`en`, `en-US`, `zh-Hant`), declared or detected.
    pub language: Option<String>,
    /// Where [`Extracted::language`] came from.
    pub language_source: Option<LanguageSource>,
    /// Site name (`og:site_name`, JSON-LD publisher).
    pub site_name: Option<String>,
    /// Main text: blocks separated by blank lines, list items and table rows
    /// by single newlines: the article's body after its headline (the
    /// headline is [`title`](Self::title)), opening with the lines between
    /// them (a dateline, a standfirst). A page that is only its headline
    /// keeps it.
    pub text: String,
    /// Main text as Markdown.
    pub markdown: String,
    /// The main content's blocks.
    pub blocks: Vec<Block>,
    /// Characters (Unicode scalar values) in [`Extracted::text`].
    pub text_chars: usize,
    /// Share of the main content's characters that are link text (0–1).
    pub link_density: f64,
    /// Links in the main content (absolute http(s), deduplicated).
    pub links: Vec<Link>,
    /// Parsed JSON-LD blocks, in page order.
    pub json_ld: Vec<serde_json::Value>,
    /// JSON-LD blocks that could not be parsed.
    pub json_ld_errors: Vec<JsonLdError>,
    /// Meta signals for the verdict score.
    pub meta: MetaSignals,
    /// JavaScript-shell signals for the fetch ladder.
    pub shell: ShellSignals,
    /// Which path produced the text.
    pub strategy: Strategy,
    /// The text was cut at `ExtractOptions::max_text_chars`.
    pub truncated: bool,
    /// The page went past one of the parser's bounds (depth, elements,
    /// text): what lay past it was flattened into text or dropped.
    #[serde(default)]
    pub flattened: bool,
    /// How the bytes were decoded (set by [`extract_bytes`] only).
    pub decoded: Option<DecodeInfo>,
}

/// How [`extract_bytes`] decoded the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodeInfo {
    /// WHATWG encoding name.
    pub encoding: String,
    /// Where it came from.
    pub source: CharsetSource,
    /// Malformed bytes were replaced.
    pub had_errors: bool,
}

/// Builds the extractor's matchers now (once per process): a page's time
/// budget is then spent on the page alone.
pub fn prepare() {
    vocabulary::prepare();
}

/// Extracts the main content and metadata of an HTML page. `url` is the
/// page's address, used to resolve relative links and to recognise the site
/// name in titles.
pub fn extract(html: &str, url: Option<&Url>, options: &ExtractOptions) -> Extracted {
    // A bound on the parser's work, first, so that every later pass is
    // linear too: elements nested past the cap are flattened into their
    // ancestor's text.
    let capped = crate::nesting::cap_nesting(html);
    Extracted {
        flattened: matches!(capped, std::borrow::Cow::Owned(_)),
        ..extract_bounded(&capped, url, options)
    }
}

/// [`extract`] of markup already within the bounds of [`crate::nesting`]
/// (the fetch path bounds a page with its own budget first).
pub fn extract_bounded(html: &str, url: Option<&Url>, options: &ExtractOptions) -> Extracted {
    let (seen, pre) = extract_pass(html, url, options, Hidden::Drop);
    if seen.text_chars >= THIN_CONTENT_CHARS
        || !pre.hidden_markup
        || pre.noscript_mentions_javascript
    {
        return seen;
    }
    // Nearly nothing visible, but markup kept out of sight (a `<noscript>`
    // fallback, a template): when that is where the page's text is, it is
    // the content. The shell signals stay those of the visible page, so the
    // fetch ladder still knows a browser would render something else.
    let (unwrapped, _) = extract_pass(html, url, options, Hidden::Unwrap);
    if unwrapped.text_chars > seen.text_chars * 2 {
        Extracted {
            shell: seen.shell,
            ..unwrapped
        }
    } else {
        seen
    }
}

/// One extraction of `html`, with hidden markup dropped or unwrapped.
fn extract_pass(
    html: &str,
    url: Option<&Url>,
    options: &ExtractOptions,
    hidden: Hidden,
) -> (Extracted, prescan::Prescan) {
    let (stripped, pre) = prescan::strip_inert(html, hidden);
    let parsed = Html::parse_document(&stripped);
    let dom = Dom::build(&parsed);
    let meta = PageMeta::collect(&dom);
    let (json_ld, json_ld_errors) = json_ld::parse_blocks(&dom.json_ld);
    let facts = json_ld::article_facts(&json_ld);
    let title = meta.title(&facts, url);
    let analysis = Analysis::new(&dom, title.as_deref());

    let base = base_url(meta.base_href.as_deref(), url);
    let body = dom.first(Tag::Body).unwrap_or(0);
    let body_chars = analysis.stats.get(body as usize).map_or(0, |s| s.len);
    let main = main_text(&dom, &analysis, base.as_ref(), body, &title, &meta, options);

    let (language, language_source) = language_of(&meta, &main.text);
    let canonical = meta.canonical.as_deref().and_then(|c| match &base {
        Some(b) => b.join(c).ok().map(String::from),
        None => Some(c.to_owned()),
    });
    let shell = shell::signals(
        &dom,
        body_chars,
        main.text_chars,
        pre.script_count,
        pre.script_bytes,
        pre.noscript_mentions_javascript,
    );
    let extracted = Extracted {
        byline: meta.byline(&facts),
        published: meta.published(&facts, url),
        site_name: meta.site_name.clone().or_else(|| facts.publisher.clone()),
        meta: MetaSignals {
            canonical,
            description: meta.description(),
            open_graph: meta.has_open_graph,
            json_ld: !dom.json_ld.is_empty(),
        },
        title,
        language,
        language_source,
        text: main.text,
        markdown: main.markdown,
        blocks: main.blocks,
        text_chars: main.text_chars,
        link_density: main.link_density,
        links: main.links,
        json_ld,
        json_ld_errors,
        shell,
        strategy: main.strategy,
        truncated: main.truncated,
        flattened: false,
        decoded: None,
    };
    (extracted, pre)
}

/// The address relative links resolve against: the page's `<base href>`
/// joined to its URL, or either alone.
fn base_url(base_href: Option<&str>, url: Option<&Url>) -> Option<Url> {
    match (base_href, url) {
        (Some(b), Some(u)) => u.join(b).ok().or_else(|| Some(u.clone())),
        (Some(b), None) => Url::parse(b).ok(),
        (None, u) => u.cloned(),
    }
}

/// The main content as the page's result carries it.
struct MainText {
    blocks: Vec<Block>,
    text: String,
    markdown: String,
    text_chars: usize,
    link_density: f64,
    links: Vec<Link>,
    strategy: Strategy,
    truncated: bool,
}

/// Renders the main content and cuts it to the options: the headline
/// removed, at most `max_text_chars`, Markdown and links only when asked.
fn main_text(
    dom: &Dom<'_>,
    analysis: &Analysis,
    base: Option<&Url>,
    body: dom::NodeIx,
    title: &Option<String>,
    meta: &PageMeta,
    options: &ExtractOptions,
) -> MainText {
    let (rendered, strategy) = main_content(dom, analysis, base, body);
    let blocks = tidy_blocks(rendered.blocks, title.as_deref(), meta.first_h1.as_deref());
    // Nothing rendered: a page that shows some text is its headline (a
    // photo page, a one-line post); a script shell stays empty.
    let shows_text = analysis.stats.get(body as usize).is_some_and(|s| s.len > 0);
    let (blocks, headline_only) = match title {
        Some(title) if blocks.is_empty() && shows_text => (vec![headline_block(title)], true),
        _ => (blocks, false),
    };
    let (blocks, truncated) = cap_blocks(blocks, options.max_text_chars);
    let text = join_text(&blocks);
    let markdown = if options.markdown {
        join_markdown(&blocks)
    } else {
        String::new()
    };
    let text_chars = text.chars().count();
    let link_density = if text_chars == 0 {
        0.0
    } else {
        let link_chars: usize = rendered.links.iter().map(|l| l.text.chars().count()).sum();
        (link_chars as f64 / text_chars as f64).min(1.0)
    };
    let links = if options.links {
        dedup_links(rendered.links)
    } else {
        Vec::new()
    };
    let strategy = if text.is_empty() {
        Strategy::Empty
    } else if headline_only {
        Strategy::Headline
    } else {
        strategy
    };
    MainText {
        blocks,
        text,
        markdown,
        text_chars,
        link_density,
        links,
        strategy,
        truncated,
    }
}

/// Decodes `bytes` (see [`decode_html`]) and extracts from the text.
/// `content_type` is the HTTP `Content-Type` header, if known.
pub fn extract_bytes(
    bytes: &[u8],
    content_type: Option<&str>,
    url: Option<&Url>,
    options: &ExtractOptions,
) -> Extracted {
    let decoded = decode_html(bytes, content_type);
    let mut out = extract(&decoded.html, url, options);
    out.decoded = Some(DecodeInfo {
        encoding: decoded.encoding,
        source: decoded.source,
        had_errors: decoded.had_errors,
    });
    out
}

/// Extracts many pages at once on a pool of threads (one per core): each
/// item is a page's bytes with its URL, if known. Results come back in input
/// order, each as [`extract_bytes`] would give it.
pub fn extract_many<B>(pages: &[(B, Option<Url>)], options: &ExtractOptions) -> Vec<Extracted>
where
    B: AsRef<[u8]> + Sync,
{
    crate::pool::par_map(pages, |(bytes, url)| {
        extract_bytes(bytes.as_ref(), None, url.as_ref(), options)
    })
}

/// Chooses and renders the main content.
fn main_content(
    dom: &Dom<'_>,
    analysis: &Analysis,
    base: Option<&Url>,
    body: dom::NodeIx,
) -> (Rendered, Strategy) {
    if dom.len() == 0 {
        return (Rendered::default(), Strategy::Empty);
    }
    let normal = RenderOptions {
        base,
        prose_only: false,
        keep_link_paragraphs: false,
        keep_boilerplate: false,
        keep_comments: false,
        keep_minor: false,
    };
    let links_too = RenderOptions {
        keep_link_paragraphs: true,
        ..normal
    };
    let container = analysis.best_container(dom).map(|(ix, _)| ix);
    let chosen = match container.map(|ix| with_header(dom, analysis, ix, &normal)) {
        // The usual case: enough text, so no fallback (nor the landmark
        // they need) is looked at.
        Some(rendered) if chars_of(&rendered) >= THIN_CONTENT_CHARS => {
            return (rendered, Strategy::Container);
        }
        other => other,
    };
    let landmark = analysis.landmark(dom);
    let (best, mut strategy) = match chosen {
        Some(rendered) => (rendered, Strategy::Container),
        // No prose anywhere: the page's content landmark, or else the
        // visible text as it is, links included.
        None => (
            render::render(dom, analysis, landmark.unwrap_or(body), &links_too),
            Strategy::WholeBody,
        ),
    };
    let anchored = container.is_some_and(|ix| analysis.anchored(dom, ix, landmark));
    let (best, taken) = fallback(dom, analysis, (body, landmark), anchored, &normal, best);
    if taken {
        strategy = Strategy::ProseFallback;
    }
    let empty = chars_of(&best) == 0;
    match empty.then(|| headline_area_text(dom, analysis, &normal)) {
        Some(Some(area)) => (area, Strategy::WholeBody),
        _ => (best, strategy),
    }
}

/// A page with at most this many characters of its own may be read from
/// its comments: a thread under a link, not a short post with replies.
const DISCUSSION_ONLY_MAX_CHARS: usize = 50;

/// Too little text in `best`: prose paragraphs anywhere in the body; then
/// the page's content landmark with its links (a link roundup, a list of
/// items); then prose inside elements named as chrome (an article whose
/// wrapper's class mentions chrome); then, for a page with almost no text
/// of its own (a thread under a link), prose in its comments too; last (a
/// slideshow or a photo page, whose text is its captions) prose in caption-
/// and credit-like elements. Each step is taken when it gives more than
/// twice the text, and none once the text is enough, or is not empty in
/// an `anchored` container (a short article where the page puts its
/// article). Returns the text and whether a step was taken.
fn fallback(
    dom: &Dom<'_>,
    analysis: &Analysis,
    (body, landmark): (dom::NodeIx, Option<dom::NodeIx>),
    anchored: bool,
    normal: &RenderOptions<'_>,
    mut best: Rendered,
) -> (Rendered, bool) {
    let prose = RenderOptions {
        prose_only: true,
        ..*normal
    };
    let chrome = RenderOptions {
        keep_boilerplate: true,
        ..prose
    };
    let steps = [
        (Some(body), prose),
        (
            landmark,
            RenderOptions {
                keep_link_paragraphs: true,
                ..*normal
            },
        ),
        (Some(body), chrome),
        (
            Some(body),
            RenderOptions {
                keep_comments: true,
                ..chrome
            },
        ),
        (
            Some(body),
            RenderOptions {
                keep_minor: true,
                ..prose
            },
        ),
    ];
    let mut taken = false;
    for (root, opts) in &steps {
        let have = chars_of(&best);
        if have >= THIN_CONTENT_CHARS || (anchored && have > 0) {
            break;
        }
        let Some(root) = *root else { continue };
        if opts.keep_comments && have > DISCUSSION_ONLY_MAX_CHARS {
            continue;
        }
        let alt = render::render(dom, analysis, root, opts);
        if chars_of(&alt) > have * 2 {
            best = alt;
            taken = true;
        }
    }
    (best, taken)
}

/// Most characters of the header (headline, byline, date) put before a
/// container that follows it.
const HEADER_MAX_CHARS: usize = 600;

/// The container `ix` rendered, after its header: when the page's headline
/// comes before the container in the headline's own section, the headline
/// and the short lines between them (byline, date) open the text.
fn with_header(
    dom: &Dom<'_>,
    analysis: &Analysis,
    ix: dom::NodeIx,
    normal: &RenderOptions<'_>,
) -> Rendered {
    let mut body = render::render(dom, analysis, ix, normal);
    let (Some(h), Some(section)) = (analysis.headline, analysis.section) else {
        return body;
    };
    if h >= ix || !dom.holds(section, ix) {
        return body;
    }
    let mut header = render::render_span(dom, analysis, h..ix, normal);
    if chars_of(&header) > HEADER_MAX_CHARS {
        return body;
    }
    header.blocks.append(&mut body.blocks);
    header.links.append(&mut body.links);
    header
}

/// For a page with nothing readable as content: the visible text around
/// the page's headline, chrome included, rather than nothing (with no such
/// area, the headline alone: see `main_text`).
fn headline_area_text(
    dom: &Dom<'_>,
    analysis: &Analysis,
    normal: &RenderOptions<'_>,
) -> Option<Rendered> {
    let around = analysis.headline_area(dom)?;
    let everything = RenderOptions {
        keep_boilerplate: true,
        keep_comments: true,
        keep_link_paragraphs: true,
        ..*normal
    };
    Some(render::render(dom, analysis, around, &everything))
}

fn chars_of(r: &Rendered) -> usize {
    r.blocks.iter().map(|b| b.text.len()).sum()
}

/// The page's title as its only block.
fn headline_block(title: &str) -> Block {
    Block {
        kind: BlockKind::Heading { level: 1 },
        quote_depth: 0,
        text: title.to_owned(),
        markdown: title.to_owned(),
    }
}

/// Starts the text after the headline, which is the page's `title` (short
/// kicker lines before it, such as a section label, go too): the text is
/// the article's body, as schema.org's `articleBody` is. Ends it before a
/// heading that opens the comment section, and removes headings left
/// dangling at the end; a list that would be left empty (a page that is
/// only its headline) is kept as it is.
fn tidy_blocks(mut blocks: Vec<Block>, title: Option<&str>, h1: Option<&str>) -> Vec<Block> {
    let same = |a: &str, b: &str| {
        let (a, b) = (squash(a), squash(b));
        !a.is_empty() && !b.is_empty() && (a == b || (a.len() > 20 && b.contains(&a)))
    };
    let headline = blocks.iter().take(6).position(|b| {
        matches!(b.kind, BlockKind::Heading { .. })
            && (title.is_some_and(|t| same(&b.text, t)) || h1.is_some_and(|h| same(&b.text, h)))
    });
    // The body starts after the headline (the headline is `title`), and
    // short kicker lines before it, such as a section label, go with it.
    let start = match headline {
        Some(k) if blocks[..k].iter().all(|b| text_weight(&b.text) < 80) => k + 1,
        _ => 0,
    };
    // A heading that opens the comment section ends the article; the
    // page's first block never does.
    let mut end = blocks
        .iter()
        .enumerate()
        .skip(start.max(1))
        .find(|(_, b)| {
            matches!(b.kind, BlockKind::Heading { .. }) && vocabulary::is_comment_heading(&b.text)
        })
        .map_or(blocks.len(), |(k, _)| k);
    while end > start && matches!(blocks[end - 1].kind, BlockKind::Heading { .. }) {
        end -= 1;
    }
    // A page whose content is its headline keeps it rather than coming out
    // empty.
    if start < end {
        blocks.truncate(end);
        blocks.drain(..start);
    }
    blocks
}

fn cap_blocks(mut blocks: Vec<Block>, max: Option<usize>) -> (Vec<Block>, bool) {
    let Some(max) = max else {
        return (blocks, false);
    };
    let mut total = 0usize;
    for (k, b) in blocks.iter().enumerate() {
        // The joined text also carries list markers and separators.
        let marker = list_marker_chars(b.kind);
        total += marker + b.text.chars().count() + 2;
        if total > max {
            blocks.truncate(k.max(1).min(blocks.len()));
            if k == 0 {
                let room = max.saturating_sub(marker);
                let cut: String = blocks[0].text.chars().take(room).collect();
                blocks[0].markdown = cut.clone();
                blocks[0].text = cut;
            }
            return (blocks, true);
        }
    }
    (blocks, false)
}

/// Whether two consecutive blocks are separated by a single newline.
fn tight(a: &Block, b: &Block) -> bool {
    a.quote_depth == b.quote_depth
        && matches!(
            (a.kind, b.kind),
            (BlockKind::ListItem { .. }, BlockKind::ListItem { .. })
                | (BlockKind::TableRow, BlockKind::TableRow)
        )
}

fn join_text(blocks: &[Block]) -> String {
    let mut out = String::with_capacity(blocks.iter().map(|b| b.text.len() + 2).sum());
    for (k, b) in blocks.iter().enumerate() {
        if k > 0 {
            out.push_str(if tight(&blocks[k - 1], b) {
                "\n"
            } else {
                "\n\n"
            });
        }
        if let BlockKind::ListItem { depth, number } = b.kind {
            push_list_marker(&mut out, depth, number);
        }
        out.push_str(&b.text);
    }
    out
}

/// How many characters [`push_list_marker`] writes before a block's text
/// (ASCII, so bytes are characters).
fn list_marker_chars(kind: BlockKind) -> usize {
    match kind {
        BlockKind::ListItem { depth, number } => {
            let mut marker = String::new();
            push_list_marker(&mut marker, depth, number);
            marker.len()
        }
        _ => 0,
    }
}

fn push_list_marker(out: &mut String, depth: u8, number: Option<u32>) {
    for _ in 1..depth.min(8) {
        out.push_str("  ");
    }
    match number {
        Some(n) => {
            out.push_str(&n.to_string());
            out.push_str(". ");
        }
        None => out.push_str("- "),
    }
}

fn join_markdown(blocks: &[Block]) -> String {
    let mut out = String::with_capacity(blocks.iter().map(|b| b.markdown.len() + 8).sum());
    let mut header_row_pending = true;
    for (k, b) in blocks.iter().enumerate() {
        if k > 0 {
            out.push_str(if tight(&blocks[k - 1], b) {
                "\n"
            } else {
                "\n\n"
            });
        }
        let mut line = String::new();
        match b.kind {
            BlockKind::Paragraph => line.push_str(&b.markdown),
            BlockKind::Heading { level } => {
                for _ in 0..level.clamp(1, 6) {
                    line.push('#');
                }
                line.push(' ');
                line.push_str(&b.markdown);
            }
            BlockKind::ListItem { depth, number } => {
                push_list_marker(&mut line, depth, number);
                line.push_str(&b.markdown);
            }
            BlockKind::Code => {
                let fence = if b.text.contains("```") {
                    "~~~~"
                } else {
                    "```"
                };
                line.push_str(fence);
                line.push('\n');
                line.push_str(&b.text);
                line.push('\n');
                line.push_str(fence);
            }
            BlockKind::TableRow => {
                let cells = b.markdown.split(" | ").count();
                line.push_str("| ");
                line.push_str(&b.markdown);
                line.push_str(" |");
                let first_row = k == 0 || !matches!(blocks[k - 1].kind, BlockKind::TableRow);
                if first_row {
                    header_row_pending = true;
                }
                if header_row_pending {
                    line.push_str("\n|");
                    for _ in 0..cells {
                        line.push_str(" --- |");
                    }
                    header_row_pending = false;
                }
            }
        }
        if b.quote_depth > 0 {
            let prefix = "> ".repeat(b.quote_depth as usize);
            let quoted: Vec<String> = line.lines().map(|l| format!("{prefix}{l}")).collect();
            out.push_str(&quoted.join("\n"));
        } else {
            out.push_str(&line);
        }
    }
    out
}

fn dedup_links(links: Vec<Link>) -> Vec<Link> {
    let mut seen = std::collections::HashSet::new();
    links
        .into_iter()
        .filter(|l| seen.insert(l.url.clone()))
        .collect()
}

fn language_of(meta: &PageMeta, text: &str) -> (Option<String>, Option<LanguageSource>) {
    let declared = [
        (meta.html_lang.as_deref(), LanguageSource::HtmlLang),
        (
            meta.content_language.as_deref(),
            LanguageSource::ContentLanguage,
        ),
        (meta.og_locale.as_deref(), LanguageSource::OgLocale),
    ];
    for (value, source) in declared {
        if let Some(tag) = value.and_then(normalize_language_tag) {
            return (Some(tag), Some(source));
        }
    }
    match detect_language(text) {
        Some(code) => (Some(code.to_owned()), Some(LanguageSource::Detected)),
        None => (None, None),
    }
}
