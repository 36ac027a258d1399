//! Evidence-bound citations: every claim is bound to a verbatim quote of
//! at most 80 characters from a fetched page, or marked unciteable — never
//! paraphrased, never taken from a snippet.
//!
//! ## Binding ([`bind_citations`])
//!
//! 1. The claim's content terms are taken
//!    ([`crate::evidence_item::terms::content_terms`]: words without
//!    stopwords, stemmed; CJK character bigrams).
//! 2. Every fetched item's text is cut into sentences by the one splitter
//!    ([`ferret_text::sentences`]: `. ! ?` before whitespace unless an
//!    abbreviation, `。！？．` and line breaks). Each term is weighted
//!    `ln(1 + N/df)` over all N candidate sentences, so rare terms count
//!    more than ones every sentence has.
//! 3. A sentence longer than the cap is narrowed to its best window of at
//!    most [`CitationOptions::max_quote_chars`] characters (default 80),
//!    starting and ending on whole words (each CJK character is a word), so
//!    the quote stays a verbatim slice of the text.
//! 4. The window whose matched terms weigh most wins (ties: the better
//!    source tier, then the earlier item, then the shorter quote). It is
//!    used when it matches at least `min(min_matched_terms, terms)` terms
//!    and at least [`CitationOptions::min_term_coverage`] of them (default
//!    2 terms and 50 %); otherwise the claim is unciteable (`[无法引证]`)
//!    with the reason.
//!
//! ## Tier ([`CitationTier`])
//!
//! The fetch success rate (fetched items / items given) sets the mode:
//! A ≥ 60 %, B 20–60 %, C < 20 % — and tier C carries `[Coverage Low]`.
//!
//! ## Checking ([`check_citations`], [`check_quote`])
//!
//! A citation passes only if its evidence id names a fetched item, its
//! quote is non-empty, at most the cap, and found verbatim in that item's
//! text (and, for bound citations, sits at the recorded byte offsets). Each
//! failure is a typed [`CitationError`]; quotes an agent wrote itself are
//! checked the same way with [`check_quote`].
//!
//! ## Labels and speculation
//!
//! [`EvidenceLabel`] ranks what a conclusion rests on, 实测 > 源码 > 文档 >
//! 社区 > 推测, classified from a kind hint or the URL;
//! [`check_speculation_cap`] enforces that at most 30 % of conclusions are
//! `[推测]`.

use crate::option_error::OptionError;
use ferret_core::Provenance;
use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::evidence_item::terms::{TextTerms, content_terms};
use crate::evidence_item::{Claim, EvidenceItem, EvidenceItemError, SourceTier, check_ids};

mod label;
mod quote;
mod speculation;

pub use label::EvidenceLabel;
pub use speculation::{
    MAX_SPECULATION_SHARE, SPECULATION_TAG, SPECULATION_TAG_EN, SpeculationCapExceeded,
    SpeculationShare, check_label_cap, check_speculation_cap, is_speculative,
};

/// The schema name of [`CitationReport`].
pub const CITATIONS_SCHEMA: &str = "ferret.citations.v1";

/// The flag on a claim no fetched evidence supports.
pub const UNCITEABLE_FLAG: &str = "[无法引证]";

/// The English label of [`UNCITEABLE_FLAG`].
pub const UNCITEABLE_LABEL: &str = "unciteable";

/// The flag of a tier-C report.
pub const COVERAGE_LOW_FLAG: &str = "[Coverage Low]";

/// The longest quote (characters).
pub const MAX_QUOTE_CHARS: usize = 80;

/// Tier A needs at least this fetch success rate.
pub const TIER_A_MIN_RATE: f64 = 0.60;

/// Tier B needs at least this fetch success rate (below: tier C).
pub const TIER_B_MIN_RATE: f64 = 0.20;

/// The citation mode, from the fetch success rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum CitationTier {
    /// ≥ 60 % of pages fetched: every claim as Claim / Quote / Source.
    A,
    /// 20–60 %: claims without a fetched page are `[无法引证]`.
    B,
    /// < 20 %: as B, and the report carries `[Coverage Low]`.
    C,
}

impl CitationTier {
    /// The tier of a fetch success rate (0–1).
    pub fn from_fetch_rate(rate: f64) -> Self {
        if rate >= TIER_A_MIN_RATE {
            CitationTier::A
        } else if rate >= TIER_B_MIN_RATE {
            CitationTier::B
        } else {
            CitationTier::C
        }
    }

    /// The flags a report of this tier carries.
    pub fn flags(self) -> Vec<String> {
        match self {
            CitationTier::C => vec![COVERAGE_LOW_FLAG.to_string()],
            CitationTier::A | CitationTier::B => Vec::new(),
        }
    }
}

/// Options of [`bind_citations`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CitationOptions {
    /// The longest quote, in characters (default and most 80; at least 10).
    pub max_quote_chars: usize,
    /// The share of a claim's terms a quote must contain (default 0.5).
    pub min_term_coverage: f64,
    /// The fewest terms a quote must contain, capped by the claim's own
    /// term count (default 2).
    pub min_matched_terms: usize,
}

impl Default for CitationOptions {
    fn default() -> Self {
        CitationOptions {
            max_quote_chars: MAX_QUOTE_CHARS,
            min_term_coverage: 0.5,
            min_matched_terms: 2,
        }
    }
}

/// Why citations could not be bound.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BindError {
    /// The evidence items are unusable (empty or repeated ids).
    #[error(transparent)]
    Items(#[from] EvidenceItemError),
    /// Two claims share an id.
    #[error("claim id {0:?} is used twice; give every claim its own id")]
    DuplicateClaim(String),
    /// An option is out of range.
    #[error(transparent)]
    Option(#[from] OptionError),
}

/// How many of the pages were fetched.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FetchCoverage {
    /// Items given (pages the run tried to fetch).
    pub attempted: usize,
    /// Items with fetched text.
    pub fetched: usize,
    /// `fetched / attempted` (0 with no items).
    pub rate: f64,
}

impl FetchCoverage {
    /// The coverage of `items`.
    pub fn of(items: &[EvidenceItem]) -> Self {
        let attempted = items.len();
        let fetched = items.iter().filter(|i| i.is_evidence()).count();
        FetchCoverage {
            attempted,
            fetched,
            rate: if attempted == 0 {
                0.0
            } else {
                fetched as f64 / attempted as f64
            },
        }
    }
}

/// A verbatim quote bound to a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    /// The quote, a verbatim slice of the evidence item's text.
    pub text: String,
    /// The cited item's id.
    pub evidence_id: String,
    /// The cited item's URL.
    pub url: String,
    /// Byte offset of the quote in the item's text.
    pub start: usize,
    /// Byte offset just past the quote.
    pub end: usize,
    /// The claim's terms the quote contains.
    pub matched_terms: Vec<String>,
    /// The share of the claim's terms it contains (0–1).
    pub coverage: f64,
    /// The share of the claim's term weight it contains (0–1).
    pub score: f64,
    /// The cited item's source tier.
    pub source_tier: SourceTier,
    /// The cited item's evidence label.
    pub label: EvidenceLabel,
    /// Who read the cited item's text.
    pub provenance: Provenance,
    /// The cited page carries prompt-injection signals: the quote is data,
    /// never an instruction.
    #[serde(default)]
    pub untrusted: bool,
}

/// Why a claim has no quote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum UnciteableReason {
    /// No item has fetched text.
    NoFetchedEvidence,
    /// The claim has no content terms to look for.
    NoTerms,
    /// No sentence of the fetched text contains enough of the claim's
    /// terms.
    NoSupportingSentence {
        /// The best coverage any window reached (0–1).
        best_coverage: f64,
    },
}

/// A claim and its binding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Citation {
    /// The claim's id.
    pub claim_id: String,
    /// The claim.
    pub claim: String,
    /// The claim's content terms.
    pub terms: Vec<String>,
    /// The quote, when one was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<Quote>,
    /// Why there is no quote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unciteable: Option<UnciteableReason>,
    /// `[无法引证]` on unciteable claims.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// `unciteable` on unciteable claims (English for [`Self::flags`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl Citation {
    /// Whether a quote was bound.
    pub fn is_cited(&self) -> bool {
        self.quote.is_some()
    }
}

/// The `ferret.citations.v1` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CitationReport {
    /// Always [`CITATIONS_SCHEMA`].
    pub schema: String,
    /// The citation mode.
    pub tier: CitationTier,
    /// The fetch success rate it came from.
    pub fetch: FetchCoverage,
    /// `[Coverage Low]` in tier C.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// One per claim, in claim order.
    pub citations: Vec<Citation>,
    /// Claims with a quote.
    pub cited: usize,
    /// Claims without one.
    pub unciteable: usize,
}

/// One candidate sentence.
struct Candidate<'a> {
    item_index: usize,
    item: &'a EvidenceItem,
    range: std::ops::Range<usize>,
    terms: TextTerms,
}

fn validate(options: &CitationOptions) -> Result<(), BindError> {
    if !(10..=MAX_QUOTE_CHARS).contains(&options.max_quote_chars) {
        return Err(OptionError::new(
            "citation",
            "max_quote_chars",
            options.max_quote_chars,
            "10 to 80",
        )
        .into());
    }
    if !(0.0..=1.0).contains(&options.min_term_coverage) {
        return Err(OptionError::new(
            "citation",
            "min_term_coverage",
            options.min_term_coverage,
            "0 to 1",
        )
        .into());
    }
    Ok(())
}

/// Binds each claim to a verbatim quote from the fetched items, or marks
/// it unciteable (see the module docs). Claims keep their order.
pub fn bind_citations(
    claims: &[Claim],
    items: &[EvidenceItem],
    options: &CitationOptions,
) -> Result<CitationReport, BindError> {
    validate(options)?;
    check_ids(items)?;
    let mut claim_ids = std::collections::HashSet::new();
    for c in claims {
        if !claim_ids.insert(c.id.as_str()) {
            return Err(BindError::DuplicateClaim(c.id.clone()));
        }
    }
    let candidates: Vec<Candidate<'_>> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.is_evidence())
        .flat_map(|(item_index, item)| {
            ferret_text::sentences::sentences(&item.text)
                .into_iter()
                .map(move |range| Candidate {
                    item_index,
                    item,
                    terms: TextTerms::of(&item.text[range.clone()]),
                    range,
                })
        })
        .collect();
    let fetch = FetchCoverage::of(items);
    let tier = CitationTier::from_fetch_rate(fetch.rate);
    let citations: Vec<Citation> = claims
        .iter()
        .map(|claim| bind_one(claim, &candidates, fetch.fetched > 0, options))
        .collect();
    let cited = citations.iter().filter(|c| c.is_cited()).count();
    Ok(CitationReport {
        schema: CITATIONS_SCHEMA.to_string(),
        tier,
        flags: tier.flags(),
        unciteable: citations.len() - cited,
        cited,
        fetch,
        citations,
    })
}

/// [`bind_citations`] for plain claim texts, named `claim1`, `claim2`, ….
pub fn bind_claims<S: AsRef<str>>(
    claims: &[S],
    items: &[EvidenceItem],
    options: &CitationOptions,
) -> Result<CitationReport, BindError> {
    bind_citations(&Claim::numbered(claims), items, options)
}

fn unciteable(claim: &Claim, terms: Vec<String>, reason: UnciteableReason) -> Citation {
    Citation {
        claim_id: claim.id.clone(),
        claim: claim.text.clone(),
        terms,
        quote: None,
        unciteable: Some(reason),
        flags: vec![UNCITEABLE_FLAG.to_string()],
        label: Some(UNCITEABLE_LABEL.to_string()),
    }
}

struct Best<'a> {
    candidate: &'a Candidate<'a>,
    window: quote::Window,
}

/// Orders two bindings: higher score, then better tier, earlier item,
/// shorter quote, earlier position.
fn better(a: &Best<'_>, b: &Best<'_>) -> bool {
    let key = |x: &Best<'_>| {
        (
            x.candidate.item.source_tier,
            x.candidate.item_index,
            x.window.range.len(),
            x.window.range.start,
        )
    };
    match a.window.score.partial_cmp(&b.window.score) {
        Some(Ordering::Greater) => true,
        Some(Ordering::Less) => false,
        _ => key(a) < key(b),
    }
}

/// Binds one claim: the best window among all candidate sentences, used
/// when it matches enough of the claim's terms.
fn bind_one(
    claim: &Claim,
    candidates: &[Candidate<'_>],
    any_fetched: bool,
    options: &CitationOptions,
) -> Citation {
    let terms = content_terms(&claim.text);
    if !any_fetched {
        return unciteable(claim, terms, UnciteableReason::NoFetchedEvidence);
    }
    if terms.is_empty() {
        return unciteable(claim, terms, UnciteableReason::NoTerms);
    }
    let needed = options.min_matched_terms.min(terms.len()).max(1);
    let Some(best) = best_binding(candidates, &terms, options.max_quote_chars) else {
        return unciteable(
            claim,
            terms,
            UnciteableReason::NoSupportingSentence { best_coverage: 0.0 },
        );
    };
    let coverage = best.window.matched.len() as f64 / terms.len() as f64;
    if best.window.matched.len() < needed || coverage < options.min_term_coverage {
        return unciteable(
            claim,
            terms,
            UnciteableReason::NoSupportingSentence {
                best_coverage: coverage,
            },
        );
    }
    Citation {
        claim_id: claim.id.clone(),
        claim: claim.text.clone(),
        quote: Some(quote_of(best, coverage)),
        terms,
        unciteable: None,
        flags: Vec::new(),
        label: None,
    }
}

/// The best window for `terms` over all candidate sentences, if any
/// sentence holds one of them.
fn best_binding<'a>(
    candidates: &'a [Candidate<'a>],
    terms: &[String],
    max_quote_chars: usize,
) -> Option<Best<'a>> {
    let sentence_terms: Vec<&TextTerms> = candidates.iter().map(|c| &c.terms).collect();
    let weights = quote::TermWeights::new(terms, &sentence_terms);
    let total = weights.total(terms);
    // Sentence scores bound their windows' scores from above: visit the
    // sentences best first and stop once none can beat the best window.
    let mut order: Vec<(usize, f64)> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| (i, quote::score_terms(&c.terms, terms, &weights, total).1))
        .filter(|&(_, s)| s > 0.0)
        .collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut best: Option<Best<'_>> = None;
    for (i, bound) in order {
        if best.as_ref().is_some_and(|b| bound < b.window.score) {
            break;
        }
        let c = &candidates[i];
        let window = quote::best_window(
            &c.item.text,
            c.range.clone(),
            terms,
            &weights,
            max_quote_chars,
        );
        let cand = Best {
            candidate: c,
            window,
        };
        if best.as_ref().is_none_or(|b| better(&cand, b)) {
            best = Some(cand);
        }
    }
    best
}

/// The quote of a binding: its verbatim text and where it sits in its item.
fn quote_of(best: Best<'_>, coverage: f64) -> Quote {
    let item = best.candidate.item;
    let range = best.window.range.clone();
    Quote {
        text: item.text[range.clone()].to_string(),
        evidence_id: item.id.clone(),
        url: item.url.clone(),
        start: range.start,
        end: range.end,
        matched_terms: best.window.matched,
        coverage,
        score: best.window.score,
        source_tier: item.source_tier,
        label: item.label(),
        provenance: item.provenance.clone(),
        untrusted: item.untrusted,
    }
}

/// A citation that failed the check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CitationError {
    /// The cited id names no item.
    #[error("claim {claim_id}: cites {evidence_id:?}, which is not among the evidence items")]
    UnknownEvidence {
        /// The claim.
        claim_id: String,
        /// The id cited.
        evidence_id: String,
    },
    /// The cited item has no fetched text, so nothing can be quoted from it.
    #[error(
        "claim {claim_id}: cites {evidence_id}, which was not fetched; only fetched text is evidence"
    )]
    NotFetched {
        /// The claim.
        claim_id: String,
        /// The id cited.
        evidence_id: String,
    },
    /// The quote is empty.
    #[error("claim {claim_id}: the quote from {evidence_id} is empty")]
    EmptyQuote {
        /// The claim.
        claim_id: String,
        /// The id cited.
        evidence_id: String,
    },
    /// The quote is longer than the cap.
    #[error(
        "claim {claim_id}: the quote from {evidence_id} has {chars} characters; at most {max} are allowed"
    )]
    QuoteTooLong {
        /// The claim.
        claim_id: String,
        /// The id cited.
        evidence_id: String,
        /// Its length in characters.
        chars: usize,
        /// The cap.
        max: usize,
    },
    /// The quote does not occur verbatim in the cited text.
    #[error(
        "claim {claim_id}: the quote {quote:?} is not found verbatim in {evidence_id}'s fetched text"
    )]
    NotVerbatim {
        /// The claim.
        claim_id: String,
        /// The id cited.
        evidence_id: String,
        /// The quote.
        quote: String,
    },
    /// The quote occurs, but not at the recorded offsets.
    #[error(
        "claim {claim_id}: the quote from {evidence_id} is not at bytes {start}..{end} of its text"
    )]
    WrongOffsets {
        /// The claim.
        claim_id: String,
        /// The id cited.
        evidence_id: String,
        /// Recorded start.
        start: usize,
        /// Recorded end.
        end: usize,
    },
}

/// Every citation that failed [`check_citations`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} citation(s) failed the verbatim check: {}", .errors.len(), summary(.errors))]
pub struct CitationCheckError {
    /// One error per failing citation, in citation order.
    pub errors: Vec<CitationError>,
}

fn summary(errors: &[CitationError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Checks one quote an agent attributes to `evidence_id` (see the module
/// docs), with the default cap of 80 characters.
pub fn check_quote(
    claim_id: &str,
    evidence_id: &str,
    quote: &str,
    items: &[EvidenceItem],
) -> Result<(), CitationError> {
    check_quote_with(claim_id, evidence_id, quote, items, MAX_QUOTE_CHARS).map(|_| ())
}

fn check_quote_with<'a>(
    claim_id: &str,
    evidence_id: &str,
    quote: &str,
    items: &'a [EvidenceItem],
    max_chars: usize,
) -> Result<&'a EvidenceItem, CitationError> {
    let ids = || (claim_id.to_string(), evidence_id.to_string());
    let Some(item) = items.iter().find(|i| i.id == evidence_id) else {
        let (claim_id, evidence_id) = ids();
        return Err(CitationError::UnknownEvidence {
            claim_id,
            evidence_id,
        });
    };
    if !item.is_evidence() {
        let (claim_id, evidence_id) = ids();
        return Err(CitationError::NotFetched {
            claim_id,
            evidence_id,
        });
    }
    if quote.trim().is_empty() {
        let (claim_id, evidence_id) = ids();
        return Err(CitationError::EmptyQuote {
            claim_id,
            evidence_id,
        });
    }
    let chars = quote.chars().count();
    if chars > max_chars {
        let (claim_id, evidence_id) = ids();
        return Err(CitationError::QuoteTooLong {
            claim_id,
            evidence_id,
            chars,
            max: max_chars,
        });
    }
    if !item.text.contains(quote) {
        let (claim_id, evidence_id) = ids();
        return Err(CitationError::NotVerbatim {
            claim_id,
            evidence_id,
            quote: quote.to_string(),
        });
    }
    Ok(item)
}

/// Checks every bound citation against the items (unciteable ones have
/// nothing to check). Returns how many quotes passed, or every failure.
pub fn check_citations(
    citations: &[Citation],
    items: &[EvidenceItem],
) -> Result<usize, CitationCheckError> {
    let mut errors = Vec::new();
    let mut passed = 0;
    for c in citations {
        let Some(q) = &c.quote else { continue };
        match check_quote_with(&c.claim_id, &q.evidence_id, &q.text, items, MAX_QUOTE_CHARS) {
            Ok(item) if item.text.get(q.start..q.end) == Some(q.text.as_str()) => passed += 1,
            Ok(_) => errors.push(CitationError::WrongOffsets {
                claim_id: c.claim_id.clone(),
                evidence_id: q.evidence_id.clone(),
                start: q.start,
                end: q.end,
            }),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(passed)
    } else {
        Err(CitationCheckError { errors })
    }
}
