//! # ferret-evidence
//!
//! Turns a URL into trustworthy text: fetched safely, extracted well, judged
//! honestly.
//!
//! - [`extract`](mod@extract): main-content extraction from HTML (title, byline, date,
//!   main text with paragraph structure, language, links, JSON-LD; text and
//!   Markdown output).
//! - [`fetch`]: the adaptive fetch ladder — public endpoints (GitHub,
//!   Wikipedia, arXiv, HN, Reddit, npm, PyPI, crates.io), plain HTTP behind
//!   the URL guard (manual redirects, 1 MiB cap, charset), then a browser
//!   when the page needs one; `ferret.fetch.v1` ([`fetch::FetchedPage`]).
//! - [`verify`]: the page verdicts and score (`strong_ok` … `error`) and
//!   the `ferret.verify.v1` report ([`verify::VerifyReport`]).
//! - [`budget`]: what one page may cost — size bounds before the HTML
//!   parser runs (nesting, elements, text) and a time budget per stage of
//!   reading, past which a page is `too_complex` and the call goes on.
//! - [`ledger`]: the constraint ledger — each fetched page judged
//!   supports / refutes / unrelated per constraint (facts co-located in a
//!   sentence, numbers, dates and names equal, polarity), verbatim quotes,
//!   readiness (`ferret.ledger.v1`).
//! - [`safety`]: content-safety flags — prompt injection aimed at agents,
//!   hidden text, link farms, invisible characters.
//! - [`highlights`]: BM25 passage selection within a token budget, the
//!   `--focus` keyword filter and the top-20-paragraph trim; every highlight
//!   is a verbatim slice of the extracted text.
//! - [`structured`]: fail-closed extraction to a JSON Schema from JSON-LD
//!   and HTML tables (`ferret.extract.v1`).
//! - [`refs`]: typed references of a GitHub issue or pull request (issues,
//!   PRs, commits, duplicates, related, URLs) from its API JSON or page
//!   HTML (`ferret.refs.v1`).
//! - [`evidence_item`]: [`evidence_item::EvidenceItem`], one page as
//!   evidence (URL, canonical URL, domain, source tier T1–T4, fetched text,
//!   date, query lane) — the common input of the three modules below.
//! - [`citations`]: claims bound to verbatim quotes (≤ 80 characters) or
//!   marked `[无法引证]`, citation tiers A/B/C, the verbatim checker,
//!   evidence labels 实测 > 源码 > 文档 > 社区 > 推测 and the `[推测]` cap
//!   (`ferret.citations.v1`).
//! - [`gaps`]: the gap ledger before synthesis — 缺反证, 无直接对比,
//!   单一来源, 证据过时 (freshness by topic), 范围外推 (`ferret.gaps.v1`).
//! - [`evidence_dedup`]: same-source reprints merged (canonical URL, text
//!   SimHash, title shingles, text containment) with `[same source merged]`, nothing
//!   lost.
//! - [`scorer`]: the [`scorer::EvidenceScorer`] trait and its default,
//!   the weighted Selection × Absorption ([`scorer::SelectionAbsorption`]),
//!   every component reported; SERP / jump-URL detection.
//! - [`research`]: the research loop — plan, search (or the caller's
//!   rows), adaptive fetch of the top candidates, the constraint ledger
//!   (fetched text only), browse plan, deep escalation, and the decision
//!   `sufficient | partial | browse-needed | insufficient`
//!   (`ferret.research.v1`); each step callable on its own.
//! - [`presentation`]: a search response shown by size — a list (≤ 5),
//!   themes (6–15), or themes plus the top 5 — with conflicting sources
//!   flagged (`[conflict]`, `[T1 vs community]`); `ferret.presentation.v1` and
//!   Markdown.

pub mod citations;
pub mod evidence_dedup;
pub mod evidence_item;
pub mod fetch;
pub mod gaps;
pub mod ledger;
pub mod option_error;
pub mod presentation;
pub mod refs;
pub mod research;
pub mod scorer;
pub mod structured;
pub mod verify;

pub use ferret_extract::{self as extract, budget, highlights, safety};
use ferret_extract::{nesting, pool};

pub use evidence_item::EvidenceItem;
pub use extract::{ExtractOptions, Extracted, extract};
pub use fetch::{FetchError, FetchOptions, FetchedPage, Fetcher};
pub use ledger::Ledger;
pub use option_error::OptionError;
pub use presentation::Presentation;
pub use research::{Research, ResearchOptions, ResearchReport};
pub use verify::{Verdict, VerifyReport};
