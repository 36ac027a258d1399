//! Evidence scorers: how good a piece of fetched evidence is for the
//! constraint it supports.
//!
//! A scorer first *judges* each fetched page for each constraint —
//! supports, refutes or unrelated, with a reason
//! ([`EvidenceScorer::judge`]; the default is [`crate::ledger::judge`]) —
//! then *grades* each piece of support, so that an agent can prefer the
//! best-sourced quote. Its [`EvidenceScore`] is reported next to the
//! support in the ledger.
//!
//! - [`EvidenceScorer`] is the trait; anything that can grade a
//!   [`ScoreInput`] plugs in (`Research::builder().scorer(…)`).
//! - [`SelectionAbsorption`] is the default: a two-stage weighted model,
//!   selection × absorption (see [`selection_absorption`] for every number).
//! - [`serp`] recognises search-result pages and redirect ("jump") URLs,
//!   which are never evidence.
//! - [`signals`] holds the absorption signal patterns.

pub mod selection_absorption;
pub mod serp;
pub mod signals;

use std::fmt;

use crate::ledger::{
    Claim, CrossValidation, EvidenceScore, Judge, Judged, LedgerConstraint, ReadText, ScoreRequest,
};
use chrono::{DateTime, Utc};

pub use selection_absorption::SelectionAbsorption;

/// What a scorer sees for one piece of support: the constraint, the page,
/// and the passage (the ledger's verbatim quote) that supports it.
#[derive(Debug, Clone, Copy)]
pub struct ScoreInput<'a> {
    /// The constraint's id.
    pub constraint_id: &'a str,
    /// The constraint's text.
    pub constraint_text: &'a str,
    /// The constraint's match terms.
    pub terms: &'a [String],
    /// The terms the page contains.
    pub matched_terms: &'a [String],
    /// The supporting passage (the ledger's quote).
    pub passage: &'a str,
    /// The page's URL.
    pub url: &'a str,
    /// The fetched page's title.
    pub title: &'a str,
    /// The fetched page's text.
    pub text: &'a str,
    /// The page's publication date, when known.
    pub published_at: Option<&'a str>,
    /// The search's own 0–1 relevance for the page, when known.
    pub original_score: Option<f64>,
    /// "Now", for freshness.
    pub now: DateTime<Utc>,
}

impl<'a> ScoreInput<'a> {
    /// The input for one of the ledger's support requests
    /// ([`crate::ledger::Ledger::add_page_scored`]): the constraint,
    /// its match and quote, and the page the ledger read, with what the
    /// ledger does not know about the page.
    pub fn from_request(
        request: &ScoreRequest<'a>,
        published_at: Option<&'a str>,
        original_score: Option<f64>,
        now: DateTime<Utc>,
    ) -> Self {
        ScoreInput {
            constraint_id: &request.constraint.id,
            constraint_text: &request.constraint.text,
            terms: &request.constraint.terms,
            matched_terms: &request.judged.matched,
            passage: &request.quote.text,
            url: request.page.url,
            title: request.page.title,
            text: request.page.text,
            published_at,
            original_score,
            now,
        }
    }
}

/// A scorer as the ledger's [`Judge`].
#[derive(Debug, Clone, Copy)]
pub struct ScorerJudge<'a>(pub &'a dyn EvidenceScorer);

impl Judge for ScorerJudge<'_> {
    fn judge(&self, claim: &Claim, page: &ReadText<'_>) -> Judged {
        self.0.judge(claim, page)
    }
}

/// One page as cross-validation sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSupport<'a> {
    /// The page's URL.
    pub url: &'a str,
    /// Whether it supports the constraint.
    pub supports: bool,
}

/// Judges and grades evidence: the plug-in point of the research loop.
/// Implementations must be deterministic for a given input (`now`
/// included) and must explain themselves: a verdict carries its reason,
/// a grade every component that went into [`EvidenceScore::score`].
pub trait EvidenceScorer: Send + Sync + fmt::Debug {
    /// The scorer's name, reported with every score.
    fn name(&self) -> &str;

    /// Whether `page_text` supports, refutes or says nothing of `claim`.
    /// The default is [`crate::ledger::judge::judge`] (facts co-located in
    /// a sentence, numbers, dates and names equal and in place, polarity
    /// and direction): see its module docs for every rule.
    fn judge(&self, claim: &Claim, page: &ReadText<'_>) -> Judged {
        crate::ledger::judge::judge_read(claim, page)
    }

    /// Grades one piece of support.
    fn score(&self, input: &ScoreInput<'_>) -> EvidenceScore;

    /// How well independent sources agree on `constraint`, given every
    /// readable page of the run; `None` when the scorer has no such notion.
    fn cross_validate(
        &self,
        constraint: &LedgerConstraint,
        pages: &[PageSupport<'_>],
    ) -> Option<CrossValidation> {
        let _ = (constraint, pages);
        None
    }

    /// A final adjustment of an evidence score once the cross-validation
    /// of its constraint is known (the default scorer's high-stakes
    /// consensus boost);
    /// the default leaves the score as it is.
    fn adjust(&self, score: &mut EvidenceScore, url: &str, cross: &CrossValidation) {
        let _ = (score, url, cross);
    }
}
