//! # ferret-evidence
//!
//! Judges fetched pages honestly and runs the research loop over them.
//! Reading a page is two crates below this one, re-exported here so their
//! paths stay: [`fetch`], [`verify`], [`refs`] and [`structured`] are
//! `ferret-fetch` (the ladder, verdicts, thread references, structured
//! extraction from a URL); [`extract`](mod@extract), [`budget`],
//! [`highlights`] and [`safety`] are `ferret-extract` (reading bytes).
//!
//! - [`ledger`]: the constraint ledger — each fetched page judged
//!   supports / refutes / unrelated per constraint (facts co-located in a
//!   sentence, numbers, dates and names equal, polarity), verbatim quotes,
//!   readiness (`ferret.ledger.v1`).
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
pub mod gaps;
pub mod ledger;
pub mod option_error;
pub mod presentation;
pub mod research;
pub mod scorer;

pub use ferret_extract::{self as extract, budget, highlights, safety};
pub use ferret_fetch::{self as fetch, refs, structured, verify};

pub use evidence_item::EvidenceItem;
pub use extract::{ExtractOptions, Extracted, extract};
pub use fetch::{FetchError, FetchOptions, FetchedPage, Fetcher};
pub use ledger::Ledger;
pub use option_error::OptionError;
pub use presentation::Presentation;
pub use research::{Research, ResearchOptions, ResearchReport};
pub use verify::{Verdict, VerifyReport};
