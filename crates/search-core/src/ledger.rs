//! The constraint ledger (seed 003, agbrowse's research ledger): which of a
//! plan's constraints fetched pages support, with the quote that supports
//! each, and whether the evidence is ready.
//!
//! **Only fetched page text is evidence.** A page enters the ledger as the
//! title and extracted text of a fetched page ([`PageEvidence`]); search
//! titles and snippets never do — the ledger has no way to receive them.
//!
//! ## The support rule ([`match_constraint`])
//!
//! 1. Text is normalised to letters and digits, lowercased, every other run
//!    of characters becoming one space ([`normalize_for_match`]; CJK is
//!    kept). The haystack is the page's title and text.
//! 2. A constraint's terms ([`match_terms`]) are its plan terms (tokens of
//!    ≥ 2 characters minus stopwords, CJK as bigrams — see
//!    [`crate::plan::constraints::terms`]), normalised the same way, without
//!    seed 003's Korean stopwords (그리고 또는 모두 동시에 확인 필요) and
//!    without duplicates.
//! 3. `hits` is the number of distinct terms found; the constraint is
//!    **supported** when `hits ≥ min(2, terms)` and **weak** when `hits`
//!    equals that threshold exactly.
//!
//! How a term is "found" is the one place this differs from agbrowse, which
//! tests `haystack.includes(term)` on the normalised text. Here a term in a
//! spaced script must match whole normalised words (a term of several
//! words, e.g. `node.js` → `node js`, matches consecutive words), so `go`
//! no longer matches inside `google` nor `java` inside `javascript`; an
//! alphabetic last word of ≥ 3 letters also matches its plural or singular
//! (`framework` ↔ `frameworks`, `release` ↔ `releases`). A CJK term
//! (a character bigram) is still matched as a substring, since CJK text has
//! no word boundaries.
//!
//! ## Quotes
//!
//! Every piece of support records the page URL and a verbatim quote
//! ([`Quote`]): a substring of the page's text (or, when only the title
//! holds the terms, of its title) of at most [`MAX_QUOTE_CHARS`] characters
//! around the window that holds the most distinct matched terms, widened
//! to the surrounding sentence as far as the limit allows and never cut
//! inside a word when it can be helped. `&field[start..end] == quote.text`
//! always holds (byte offsets).
//!
//! ## Readiness
//!
//! A constraint's status is `pending`, `supported`, or `weak` (supported,
//! but by borderline evidence only: every piece of its evidence is weak).
//! The ledger is **ready** when no mandatory constraint is pending (weak
//! support counts, as in agbrowse); its status is then `complete`, else
//! `insufficient-evidence`.
//!
//! ## Anchor, rivals, disconfirmation
//!
//! - The anchor is the longest mandatory constraint (the plan's
//!   [`Plan::anchor`], else [`crate::plan::constraints::anchor`]).
//! - Rivals are the entities that compete for the answer (the plan's
//!   comparison sides, plus any the caller registers). agbrowse requires
//!   considering at least [`MIN_RIVALS`] of them; [`RivalTracking::sufficient`]
//!   says whether that many are known, and each rival lists the fetched
//!   pages that name it. Rivals never change readiness.
//! - Disconfirmation: pages found by a disconfirm query are marked
//!   ([`PageEvidence::from_disconfirm`]); [`DisconfirmTracking::checked`]
//!   says whether any was read, and evidence whose quote negates what the
//!   constraint asserts (or asserts what a negated constraint denies) is
//!   flagged `contradicts` and listed in
//!   [`DisconfirmTracking::contradicting`]. The negation test is a small
//!   heuristic (negation words and CJK negation markers in the matched
//!   clause, [`NEGATION_WORDS`], [`CJK_NEGATION_MARKERS`]); it flags, it
//!   does not change support.
//!
//! ## Scores
//!
//! An evidence scorer (the `EvidenceScorer` trait of `ferret-evidence`)
//! may score each piece of support ([`Ledger::add_page_scored`]); its
//! [`EvidenceScore`] is reported alongside, never used to decide support.

use serde::{Deserialize, Serialize};

use crate::plan::constraints::{anchor as plan_anchor, terms as clause_terms};
use crate::plan::stopwords::is_stopword;
use crate::plan::{Constraint, Plan};
use crate::provenance::Provenance;
use crate::tokenize::is_cjk;

/// The schema name of [`Ledger`].
pub const LEDGER_SCHEMA: &str = "ferret.ledger.v1";

/// The longest quote, in characters.
pub const MAX_QUOTE_CHARS: usize = 200;

/// The support threshold is `min(SUPPORT_MIN_HITS, terms)`.
pub const SUPPORT_MIN_HITS: usize = 2;

/// Rivals agbrowse requires to have been considered.
pub const MIN_RIVALS: usize = 3;

/// Seed 003's stopwords, never counted as terms.
pub const SEED_STOPWORDS: &[&str] = &["그리고", "또는", "모두", "동시에", "확인", "필요"];

/// Words that negate a clause (whole normalised words).
pub const NEGATION_WORDS: &[&str] = &[
    "not",
    "no",
    "never",
    "none",
    "neither",
    "nor",
    "without",
    "cannot",
    "cant",
    "dont",
    "doesnt",
    "isnt",
    "arent",
    "wasnt",
    "werent",
    "wont",
    "didnt",
    "hasnt",
    "havent",
    "hadnt",
    "shouldnt",
    "couldnt",
    "wouldnt",
    "lacks",
    "lacking",
    "false",
    "incorrect",
    "myth",
];

/// CJK negation markers (substrings of the normalised clause).
pub const CJK_NEGATION_MARKERS: &[&str] = &[
    "不",
    "没有",
    "没",
    "无法",
    "并非",
    "未",
    "아니",
    "않",
    "없",
    "못",
    "ない",
    "ません",
];

/// Most occurrences of one term considered when choosing a quote.
const MAX_OCCURRENCES_PER_TERM: usize = 64;
/// Characters before the matched window searched for a negation.
const NEGATION_LOOKBACK_CHARS: usize = 24;

/// The ledger's overall status (seed 003's vocabulary, exactly).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LedgerStatus {
    /// No mandatory constraint is pending.
    Complete,
    /// Some mandatory constraint is pending.
    InsufficientEvidence,
}

impl LedgerStatus {
    /// `complete` or `insufficient-evidence`.
    pub fn as_str(self) -> &'static str {
        match self {
            LedgerStatus::Complete => "complete",
            LedgerStatus::InsufficientEvidence => "insufficient-evidence",
        }
    }
}

/// One constraint's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstraintStatus {
    /// No fetched page supports it.
    Pending,
    /// At least one fetched page supports it with more hits than the
    /// threshold, or several pages do.
    Supported,
    /// Supported, but every piece of its evidence is borderline (hits equal
    /// the threshold exactly).
    Weak,
}

impl ConstraintStatus {
    /// Whether the constraint counts as supported (`supported` or `weak`).
    pub fn is_supported(self) -> bool {
        !matches!(self, ConstraintStatus::Pending)
    }
}

/// Which part of the page a quote comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuoteField {
    /// The page's extracted text.
    Text,
    /// The page's title (only when the text holds fewer of the terms).
    Title,
}

/// A verbatim quote: `&field[start..end] == text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quote {
    /// The quote (at most [`MAX_QUOTE_CHARS`] characters).
    pub text: String,
    /// Where it comes from.
    pub field: QuoteField,
    /// Byte offset in the field.
    pub start: usize,
    /// Byte offset just past the quote.
    pub end: usize,
    /// The matched terms the quote itself contains.
    pub terms: Vec<String>,
}

/// How well one page's text matches one constraint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SupportMatch {
    /// The constraint's terms.
    pub terms: Vec<String>,
    /// The terms found, in term order.
    pub matched_terms: Vec<String>,
    /// Distinct terms found.
    pub hits: usize,
    /// `min(2, terms)`.
    pub threshold: usize,
    /// `hits ≥ threshold` (and there is at least one term).
    pub supported: bool,
    /// Supported with `hits == threshold`.
    pub weak: bool,
    /// The supporting quote, when supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<Quote>,
    /// Whether the quote's clause negates what the constraint asserts, or
    /// the reverse (a heuristic; see the module docs).
    #[serde(default)]
    pub contradicts: bool,
}

/// One component of an evidence score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreComponent {
    /// The component's name (`selection`, `absorption` …).
    pub name: String,
    /// Its value, usually 0–1.
    pub value: f64,
    /// Its weight in the final score, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// How it was reached.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl ScoreComponent {
    /// A weighted component.
    pub fn weighted(
        name: impl Into<String>,
        value: f64,
        weight: f64,
        detail: impl Into<String>,
    ) -> Self {
        ScoreComponent {
            name: name.into(),
            value,
            weight: Some(weight),
            detail: detail.into(),
        }
    }

    /// A component reported for explanation only.
    pub fn info(name: impl Into<String>, value: f64, detail: impl Into<String>) -> Self {
        ScoreComponent {
            name: name.into(),
            value,
            weight: None,
            detail: detail.into(),
        }
    }
}

/// A scorer's judgement of one piece of evidence, every component shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceScore {
    /// The scorer's name.
    pub scorer: String,
    /// The final score, 0–1.
    pub score: f64,
    /// Every component.
    pub components: Vec<ScoreComponent>,
}

impl EvidenceScore {
    /// The component called `name`.
    pub fn component(&self, name: &str) -> Option<&ScoreComponent> {
        self.components.iter().find(|c| c.name == name)
    }
}

/// How many independent sources agree on a constraint (argo's
/// cross-validation levels).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrossValidation {
    /// `strong`, `moderate`, `weak`, `minimal` or `insufficient`.
    pub level: String,
    /// The level's score.
    pub score: f64,
    /// Pages that match.
    pub matching: usize,
    /// Pages considered.
    pub total: usize,
    /// Distinct content domains among the matching pages.
    pub domains: Vec<String>,
    /// How it was reached.
    pub detail: String,
}

/// One fetched page supporting one constraint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerEvidence {
    /// The page's URL (the final URL after redirects).
    pub url: String,
    /// The fetched page's title.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Where the text came from (`fetch`, `browser`, `public_endpoint`,
    /// `reader` …).
    pub source: String,
    /// The candidate's search rank, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Distinct terms found on the page.
    pub hits: usize,
    /// The threshold it had to reach.
    pub threshold: usize,
    /// `hits == threshold`.
    pub weak: bool,
    /// The terms found.
    pub matched_terms: Vec<String>,
    /// The verbatim quote.
    pub quote: Quote,
    /// The page was found by a disconfirm query.
    #[serde(default)]
    pub from_disconfirm: bool,
    /// The quote's clause contradicts the constraint (heuristic).
    #[serde(default)]
    pub contradicts: bool,
    /// The evidence scorer's judgement, when a scorer ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<EvidenceScore>,
    /// Who read the page the quote comes from.
    pub provenance: Provenance,
    /// The page carries prompt-injection signals: its text is untrusted and
    /// it is never the sole support of a decision.
    #[serde(default)]
    pub untrusted: bool,
}

/// One constraint and its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerConstraint {
    /// `c1`, `c2`, ….
    pub id: String,
    /// The clause as written.
    pub text: String,
    /// The terms matched against fetched text ([`match_terms`]).
    pub terms: Vec<String>,
    /// Whether readiness needs it.
    pub mandatory: bool,
    /// Pending, supported or weak.
    pub status: ConstraintStatus,
    /// The pages that support it, in the order they were added.
    pub evidence: Vec<LedgerEvidence>,
    /// The best evidence score, when scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_score: Option<f64>,
    /// Agreement across sources, when computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_validation: Option<CrossValidation>,
    /// Some of its evidence contradicts it.
    #[serde(default)]
    pub contested: bool,
}

/// A rival and the pages that name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RivalMention {
    /// The rival's name.
    pub name: String,
    /// Fetched pages whose title or text names it.
    pub urls: Vec<String>,
}

/// Rival tracking (agbrowse: "enumerate 3+ rivals").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RivalTracking {
    /// The rivals, in registration order.
    pub names: Vec<String>,
    /// How many must be considered ([`MIN_RIVALS`]).
    pub required: usize,
    /// Whether at least `required` distinct rivals are known.
    pub sufficient: bool,
    /// Per rival, the pages that name it.
    pub mentions: Vec<RivalMention>,
}

/// A piece of evidence that contradicts its constraint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contradiction {
    /// The constraint.
    pub constraint_id: String,
    /// The page.
    pub url: String,
    /// The quote.
    pub quote: String,
}

/// Disconfirmation tracking: was anything looked for that could prove the
/// answer wrong, and did anything do so?
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DisconfirmTracking {
    /// The disconfirm queries planned.
    pub queries: Vec<String>,
    /// Fetched pages found by a disconfirm query.
    pub pages: Vec<String>,
    /// Whether any page from a disconfirm query was read.
    pub checked: bool,
    /// Evidence that contradicts its constraint.
    pub contradicting: Vec<Contradiction>,
}

/// The `ferret.ledger.v1` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Always [`LEDGER_SCHEMA`].
    pub schema: String,
    /// Every constraint with its evidence, in plan order.
    pub constraints: Vec<LedgerConstraint>,
    /// The anchor constraint's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// Supported constraints (including weak ones).
    pub supported: Vec<String>,
    /// Mandatory constraints without support.
    pub pending: Vec<String>,
    /// Optional constraints without support (never block readiness).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub optional_pending: Vec<String>,
    /// Whether any constraint is only weakly supported.
    pub weak: bool,
    /// The weakly supported constraints.
    pub weak_constraints: Vec<String>,
    /// No mandatory constraint is pending.
    pub ready: bool,
    /// `complete` or `insufficient-evidence`.
    pub status: LedgerStatus,
    /// Rival tracking.
    pub rivals: RivalTracking,
    /// Disconfirmation tracking.
    pub disconfirm: DisconfirmTracking,
    /// Pages added.
    pub pages_read: usize,
}

/// A fetched page as the ledger reads it: the fetched title and text only,
/// and who read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageEvidence<'a> {
    /// The page's URL.
    pub url: &'a str,
    /// The fetched title (empty when none).
    pub title: &'a str,
    /// The fetched, extracted text.
    pub text: &'a str,
    /// Where the text came from.
    pub source: &'a str,
    /// The candidate's search rank.
    pub rank: Option<u32>,
    /// Found by a disconfirm query.
    pub from_disconfirm: bool,
    /// Who read the page.
    pub provenance: &'a Provenance,
    /// The page carries prompt-injection signals.
    pub untrusted: bool,
}

impl<'a> PageEvidence<'a> {
    /// A page read as `provenance` says (source `fetch`, no rank, not from
    /// a disconfirm query).
    pub fn new(url: &'a str, title: &'a str, text: &'a str, provenance: &'a Provenance) -> Self {
        PageEvidence {
            url,
            title,
            text,
            source: "fetch",
            rank: None,
            from_disconfirm: false,
            provenance,
            untrusted: false,
        }
    }

    /// Marks the page's text as untrusted (prompt-injection signals).
    pub fn with_untrusted(mut self, untrusted: bool) -> Self {
        self.untrusted = untrusted;
        self
    }

    /// Sets the source.
    pub fn with_source(mut self, source: &'a str) -> Self {
        self.source = source;
        self
    }

    /// Sets the rank.
    pub fn with_rank(mut self, rank: u32) -> Self {
        self.rank = Some(rank);
        self
    }

    /// Marks the page as found by a disconfirm query.
    pub fn with_disconfirm(mut self, from_disconfirm: bool) -> Self {
        self.from_disconfirm = from_disconfirm;
        self
    }
}

/// What one page changed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PageOutcome {
    /// Constraints the page supports.
    pub supported: Vec<String>,
    /// Of those, the ones that were pending before.
    pub newly_supported: Vec<String>,
    /// Of those, the ones whose quote contradicts them.
    pub contradicting: Vec<String>,
}

/// What a scorer is shown for one piece of support.
#[derive(Debug, Clone, Copy)]
pub struct ScoreRequest<'a> {
    /// The constraint.
    pub constraint: &'a LedgerConstraint,
    /// The match.
    pub support: &'a SupportMatch,
    /// The quote.
    pub quote: &'a Quote,
    /// The page.
    pub page: &'a PageEvidence<'a>,
}

impl Ledger {
    /// An empty ledger for `plan`: its constraints, anchor, rivals and
    /// disconfirm queries.
    pub fn new(plan: &Plan) -> Self {
        let mut ledger = Self::from_constraints(&plan.constraints);
        if let Some(anchor) = &plan.anchor
            && ledger.constraints.iter().any(|c| &c.id == anchor)
        {
            ledger.anchor = Some(anchor.clone());
        }
        ledger.register_rivals(plan.rivals.iter().map(String::as_str));
        let mut queries: Vec<String> = Vec::new();
        for q in plan.disconfirm_queries.iter().cloned().chain(
            plan.focused_queries
                .iter()
                .filter(|f| f.purpose == crate::plan::FocusedPurpose::Disconfirm)
                .map(|f| f.text.clone()),
        ) {
            if !queries.contains(&q) {
                queries.push(q);
            }
        }
        ledger.disconfirm.queries = queries;
        ledger
    }

    /// An empty ledger for these constraints (anchor: the longest mandatory
    /// one).
    pub fn from_constraints(constraints: &[Constraint]) -> Self {
        let mut ledger = Ledger {
            schema: LEDGER_SCHEMA.to_string(),
            constraints: constraints
                .iter()
                .map(|c| LedgerConstraint {
                    id: c.id.clone(),
                    text: c.text.clone(),
                    terms: match_terms(c),
                    mandatory: c.mandatory,
                    status: ConstraintStatus::Pending,
                    evidence: Vec::new(),
                    best_score: None,
                    cross_validation: None,
                    contested: false,
                })
                .collect(),
            anchor: plan_anchor(constraints),
            supported: Vec::new(),
            pending: Vec::new(),
            optional_pending: Vec::new(),
            weak: false,
            weak_constraints: Vec::new(),
            ready: false,
            status: LedgerStatus::InsufficientEvidence,
            rivals: RivalTracking {
                names: Vec::new(),
                required: MIN_RIVALS,
                sufficient: false,
                mentions: Vec::new(),
            },
            disconfirm: DisconfirmTracking::default(),
            pages_read: 0,
        };
        ledger.refresh();
        ledger
    }

    /// Registers rival names (trimmed, deduplicated, blank ones ignored).
    pub fn register_rivals<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) {
        for name in names {
            let name = name.trim();
            if name.is_empty() || self.rivals.names.iter().any(|n| n == name) {
                continue;
            }
            self.rivals.names.push(name.to_string());
            self.rivals.mentions.push(RivalMention {
                name: name.to_string(),
                urls: Vec::new(),
            });
        }
        self.rivals.sufficient = self.rivals.names.len() >= self.rivals.required;
    }

    /// Mandatory supported constraints whose every piece of evidence comes
    /// from untrusted pages, with those pages' URLs.
    pub fn untrusted_only(&self) -> Vec<(&str, Vec<&str>)> {
        self.constraints
            .iter()
            .filter(|c| c.mandatory && c.status.is_supported())
            .filter(|c| !c.evidence.is_empty() && c.evidence.iter().all(|e| e.untrusted))
            .map(|c| {
                let mut urls: Vec<&str> = c.evidence.iter().map(|e| e.url.as_str()).collect();
                urls.dedup();
                (c.id.as_str(), urls)
            })
            .collect()
    }

    /// The constraint called `id`.
    pub fn constraint(&self, id: &str) -> Option<&LedgerConstraint> {
        self.constraints.iter().find(|c| c.id == id)
    }

    /// The constraint called `id`, mutably (e.g. to attach a
    /// cross-validation).
    pub fn constraint_mut(&mut self, id: &str) -> Option<&mut LedgerConstraint> {
        self.constraints.iter_mut().find(|c| c.id == id)
    }

    /// Adds a fetched page without scoring.
    pub fn add_page(&mut self, page: &PageEvidence<'_>) -> PageOutcome {
        self.add_page_scored(page, &mut |_| None)
    }

    /// Adds a fetched page; `score` is asked to score each piece of support
    /// it gives (return `None` to leave it unscored).
    pub fn add_page_scored(
        &mut self,
        page: &PageEvidence<'_>,
        score: &mut dyn FnMut(&ScoreRequest<'_>) -> Option<EvidenceScore>,
    ) -> PageOutcome {
        self.pages_read += 1;
        let mut outcome = PageOutcome::default();
        let readable = !page.title.trim().is_empty() || !page.text.trim().is_empty();
        if page.from_disconfirm && readable {
            self.disconfirm.checked = true;
            if !self.disconfirm.pages.iter().any(|u| u == page.url) {
                self.disconfirm.pages.push(page.url.to_string());
            }
        }
        if !readable {
            self.refresh();
            return outcome;
        }
        let haystack = MatchText::new(page.title, page.text);
        for i in 0..self.constraints.len() {
            let support =
                haystack.match_constraint(&self.constraints[i].terms, &self.constraints[i].text);
            let Some(quote) = support.quote.clone() else {
                continue;
            };
            let scored = score(&ScoreRequest {
                constraint: &self.constraints[i],
                support: &support,
                quote: &quote,
                page,
            });
            let constraint = &mut self.constraints[i];
            if !constraint.status.is_supported() {
                outcome.newly_supported.push(constraint.id.clone());
            }
            outcome.supported.push(constraint.id.clone());
            if support.contradicts {
                outcome.contradicting.push(constraint.id.clone());
                constraint.contested = true;
                self.disconfirm.contradicting.push(Contradiction {
                    constraint_id: constraint.id.clone(),
                    url: page.url.to_string(),
                    quote: quote.text.clone(),
                });
            }
            if let Some(s) = &scored {
                constraint.best_score =
                    Some(constraint.best_score.map_or(s.score, |b| b.max(s.score)));
            }
            constraint.evidence.push(LedgerEvidence {
                url: page.url.to_string(),
                title: page.title.to_string(),
                source: page.source.to_string(),
                rank: page.rank,
                hits: support.hits,
                threshold: support.threshold,
                weak: support.weak,
                matched_terms: support.matched_terms.clone(),
                quote,
                from_disconfirm: page.from_disconfirm,
                contradicts: support.contradicts,
                score: scored,
                provenance: page.provenance.clone(),
                untrusted: page.untrusted,
            });
        }
        for (rival, mention) in self
            .rivals
            .names
            .iter()
            .zip(self.rivals.mentions.iter_mut())
        {
            if haystack.names(rival) && !mention.urls.iter().any(|u| u == page.url) {
                mention.urls.push(page.url.to_string());
            }
        }
        self.refresh();
        outcome
    }

    /// Recomputes statuses, lists, readiness and the overall status.
    pub fn refresh(&mut self) {
        self.supported.clear();
        self.pending.clear();
        self.optional_pending.clear();
        self.weak_constraints.clear();
        for c in &mut self.constraints {
            c.status = if c.evidence.is_empty() {
                ConstraintStatus::Pending
            } else if c.evidence.iter().all(|e| e.weak) {
                ConstraintStatus::Weak
            } else {
                ConstraintStatus::Supported
            };
            match c.status {
                ConstraintStatus::Pending if c.mandatory => self.pending.push(c.id.clone()),
                ConstraintStatus::Pending => self.optional_pending.push(c.id.clone()),
                ConstraintStatus::Weak => {
                    self.supported.push(c.id.clone());
                    self.weak_constraints.push(c.id.clone());
                }
                ConstraintStatus::Supported => self.supported.push(c.id.clone()),
            }
        }
        self.weak = !self.weak_constraints.is_empty();
        self.ready = self.pending.is_empty();
        self.status = if self.ready {
            LedgerStatus::Complete
        } else {
            LedgerStatus::InsufficientEvidence
        };
        self.rivals.sufficient = self.rivals.names.len() >= self.rivals.required;
    }

    /// The compact summary (agbrowse's `summarizeLedger`).
    pub fn summary(&self) -> LedgerSummary {
        LedgerSummary {
            ready: self.ready,
            supported: self.supported.clone(),
            pending: self.pending.clone(),
            status: self.status,
            anchor: self.anchor.clone(),
            rivals: self.rivals.names.clone(),
            rivals_sufficient: self.rivals.sufficient,
            weak: self.weak,
            weak_constraints: self.weak_constraints.clone(),
            contested: self
                .constraints
                .iter()
                .filter(|c| c.contested)
                .map(|c| c.id.clone())
                .collect(),
            disconfirm_checked: self.disconfirm.checked,
        }
    }
}

/// The ledger in brief (agbrowse's summary, plus contested constraints and
/// the disconfirm check).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerSummary {
    /// No mandatory constraint is pending.
    pub ready: bool,
    /// Supported constraints (including weak ones).
    pub supported: Vec<String>,
    /// Mandatory constraints without support.
    pub pending: Vec<String>,
    /// `complete` or `insufficient-evidence`.
    pub status: LedgerStatus,
    /// The anchor constraint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// The rivals.
    pub rivals: Vec<String>,
    /// At least [`MIN_RIVALS`] rivals are known.
    pub rivals_sufficient: bool,
    /// Some constraint is only weakly supported.
    pub weak: bool,
    /// The weakly supported constraints.
    pub weak_constraints: Vec<String>,
    /// Constraints with contradicting evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contested: Vec<String>,
    /// A page from a disconfirm query was read.
    pub disconfirm_checked: bool,
}

/// `text` as letters and digits, lowercased; every other run of characters
/// becomes one space; no leading or trailing space.
pub fn normalize_for_match(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.extend(c.to_lowercase());
        } else {
            gap = true;
        }
    }
    out
}

fn is_seed_stopword(term: &str) -> bool {
    SEED_STOPWORDS.contains(&term)
}

/// The terms of `constraint` matched against fetched text: its plan terms
/// (or, when it has none, the terms of its text), normalised, at least 2
/// characters, without stopwords or duplicates.
pub fn match_terms(constraint: &Constraint) -> Vec<String> {
    let source: Vec<String> = if constraint.terms.is_empty() {
        clause_terms(&constraint.text)
    } else {
        constraint.terms.clone()
    };
    let mut out: Vec<String> = Vec::new();
    for term in source {
        let t = normalize_for_match(&term);
        if t.chars().filter(|c| !c.is_whitespace()).count() < 2
            || is_seed_stopword(&t)
            || is_stopword(&t)
            || out.contains(&t)
        {
            continue;
        }
        out.push(t);
    }
    out
}

/// Matches one constraint's `terms` (already [`match_terms`]-normalised)
/// against a fetched page's `title` and `text`; `constraint_text` is used
/// only for the negation check.
pub fn match_constraint(
    terms: &[String],
    constraint_text: &str,
    title: &str,
    text: &str,
) -> SupportMatch {
    MatchText::new(title, text).match_constraint(terms, constraint_text)
}

/// The page, indexed once for every constraint.
struct MatchText<'a> {
    title: Indexed<'a>,
    text: Indexed<'a>,
}

impl<'a> MatchText<'a> {
    fn new(title: &'a str, text: &'a str) -> Self {
        MatchText {
            title: Indexed::new(title),
            text: Indexed::new(text),
        }
    }

    fn match_constraint(&self, terms: &[String], constraint_text: &str) -> SupportMatch {
        let patterns: Vec<Pattern> = terms.iter().map(|t| Pattern::new(t)).collect();
        let in_text: Vec<Vec<Occurrence>> = patterns.iter().map(|p| self.text.find(p)).collect();
        let in_title: Vec<Vec<Occurrence>> = patterns.iter().map(|p| self.title.find(p)).collect();
        let matched: Vec<usize> = (0..terms.len())
            .filter(|&i| !in_text[i].is_empty() || !in_title[i].is_empty())
            .collect();
        let hits = matched.len();
        let threshold = SUPPORT_MIN_HITS.min(terms.len());
        let supported = threshold > 0 && hits >= threshold;
        let mut out = SupportMatch {
            terms: terms.to_vec(),
            matched_terms: matched.iter().map(|&i| terms[i].clone()).collect(),
            hits,
            threshold,
            supported,
            weak: supported && hits == threshold,
            quote: None,
            contradicts: false,
        };
        if !supported {
            return out;
        }
        let text_window = self.text.best_window(&in_text);
        let title_window = self.title.best_window(&in_title);
        let (indexed, window, field) = match (text_window, title_window) {
            (Some(t), Some(h)) if h.terms.len() > t.terms.len() => {
                (&self.title, h, QuoteField::Title)
            }
            (Some(t), _) => (&self.text, t, QuoteField::Text),
            (None, Some(h)) => (&self.title, h, QuoteField::Title),
            (None, None) => return out,
        };
        let (start, end) = indexed.widen(window.start, window.end);
        let quote_terms: Vec<String> = window.terms.iter().map(|&i| terms[i].clone()).collect();
        out.contradicts = negation_mismatch(constraint_text, indexed.src, window.start, window.end);
        out.quote = Some(Quote {
            text: indexed.src[start..end].to_string(),
            field,
            start,
            end,
            terms: quote_terms,
        });
        out
    }

    /// Whether the page names `rival`: every word of the rival's
    /// normalised name (CJK as a substring) in the title or text.
    fn names(&self, rival: &str) -> bool {
        let norm = normalize_for_match(rival);
        if norm.is_empty() {
            return false;
        }
        let pattern = Pattern::new(&norm);
        !self.text.find(&pattern).is_empty() || !self.title.find(&pattern).is_empty()
    }
}

/// A term ready to match.
enum Pattern {
    /// Contains CJK: a substring of the normalised text.
    Cjk(Vec<char>),
    /// Consecutive whole words (as characters).
    Words(Vec<Vec<char>>),
}

impl Pattern {
    fn new(term: &str) -> Self {
        let norm = normalize_for_match(term);
        if norm.chars().any(is_cjk) {
            Pattern::Cjk(norm.chars().collect())
        } else {
            Pattern::Words(
                norm.split(' ')
                    .filter(|w| !w.is_empty())
                    .map(|w| w.chars().collect())
                    .collect(),
            )
        }
    }
}

/// One place a term occurs, in source bytes and source characters.
#[derive(Debug, Clone, Copy)]
struct Occurrence {
    term: usize,
    start: usize,
    end: usize,
    char_start: usize,
    char_end: usize,
}

/// A chosen window of occurrences.
struct Window {
    start: usize,
    end: usize,
    terms: Vec<usize>,
}

/// A source text with its normalised form and the map back.
struct Indexed<'a> {
    src: &'a str,
    /// Normalised characters (separators are a single ' ').
    chars: Vec<char>,
    /// For each normalised character: source byte range and source char
    /// index range.
    spans: Vec<(usize, usize, usize, usize)>,
    /// Words of spaced scripts: ranges into `chars`.
    words: Vec<(usize, usize)>,
}

impl<'a> Indexed<'a> {
    fn new(src: &'a str) -> Self {
        let mut chars = Vec::with_capacity(src.len());
        let mut spans = Vec::with_capacity(src.len());
        let mut gap = false;
        for (char_index, (byte, c)) in src.char_indices().enumerate() {
            let end = byte + c.len_utf8();
            let alphanumeric = if c.is_ascii() {
                c.is_ascii_alphanumeric()
            } else {
                c.is_alphanumeric()
            };
            if alphanumeric {
                if gap && !chars.is_empty() {
                    chars.push(' ');
                    spans.push((byte, byte, char_index, char_index));
                }
                gap = false;
                if c.is_ascii() {
                    chars.push(c.to_ascii_lowercase());
                    spans.push((byte, end, char_index, char_index + 1));
                } else {
                    for l in c.to_lowercase() {
                        chars.push(l);
                        spans.push((byte, end, char_index, char_index + 1));
                    }
                }
            } else {
                gap = true;
            }
        }
        let mut words = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == ' ' || is_cjk(chars[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && chars[i] != ' ' && !is_cjk(chars[i]) {
                i += 1;
            }
            words.push((start, i));
        }
        Indexed {
            src,
            chars,
            spans,
            words,
        }
    }

    fn occurrence(&self, term: usize, from: usize, to: usize) -> Occurrence {
        let (start, _, char_start, _) = self.spans[from];
        let (_, end, _, char_end) = self.spans[to - 1];
        Occurrence {
            term,
            start,
            end,
            char_start,
            char_end,
        }
    }

    /// Occurrences of `pattern` (term index 0; callers re-tag), at most
    /// [`MAX_OCCURRENCES_PER_TERM`].
    fn find(&self, pattern: &Pattern) -> Vec<Occurrence> {
        let mut out = Vec::new();
        match pattern {
            Pattern::Cjk(needle) => {
                if needle.is_empty() || needle.len() > self.chars.len() {
                    return out;
                }
                let mut i = 0;
                while i + needle.len() <= self.chars.len() && out.len() < MAX_OCCURRENCES_PER_TERM {
                    if self.chars[i..i + needle.len()] == needle[..] {
                        out.push(self.occurrence(0, i, i + needle.len()));
                        i += needle.len();
                    } else {
                        i += 1;
                    }
                }
            }
            Pattern::Words(words) => {
                if words.is_empty() || words.len() > self.words.len() {
                    return out;
                }
                let last = words.len() - 1;
                for w in 0..=(self.words.len() - words.len()) {
                    if out.len() >= MAX_OCCURRENCES_PER_TERM {
                        break;
                    }
                    let fits = words.iter().enumerate().all(|(k, term_word)| {
                        let (s, e) = self.words[w + k];
                        let word = &self.chars[s..e];
                        if word.first() != term_word.first() {
                            return false;
                        }
                        if k == last {
                            word_matches(word, term_word)
                        } else {
                            word == term_word.as_slice()
                        }
                    });
                    // Consecutive words must be separated by a separator
                    // only (not by CJK text).
                    let adjacent = fits
                        && (0..last).all(|k| {
                            let (_, end) = self.words[w + k];
                            let (next, _) = self.words[w + k + 1];
                            next == end + 1 && self.chars[end] == ' '
                        });
                    if fits && adjacent {
                        out.push(self.occurrence(0, self.words[w].0, self.words[w + last].1));
                    }
                }
            }
        }
        out
    }

    /// The window of at most [`MAX_QUOTE_CHARS`] source characters holding
    /// the most distinct terms (ties: the shorter, then the earlier).
    fn best_window(&self, per_term: &[Vec<Occurrence>]) -> Option<Window> {
        let mut all: Vec<Occurrence> = per_term
            .iter()
            .enumerate()
            .flat_map(|(term, occ)| occ.iter().map(move |o| Occurrence { term, ..*o }))
            .collect();
        if all.is_empty() {
            return None;
        }
        all.sort_by_key(|o| (o.start, o.end));
        let mut best: Option<(usize, usize, usize, usize, Vec<usize>)> = None;
        for i in 0..all.len() {
            let mut terms: Vec<usize> = Vec::new();
            let mut end = all[i].end;
            let mut char_end = all[i].char_end;
            for o in &all[i..] {
                let span = o.char_end.max(char_end) - all[i].char_start;
                if span > MAX_QUOTE_CHARS {
                    break;
                }
                if o.end > end {
                    end = o.end;
                    char_end = o.char_end;
                }
                if !terms.contains(&o.term) {
                    terms.push(o.term);
                }
            }
            if terms.is_empty() {
                // A single occurrence longer than the limit.
                continue;
            }
            let len = char_end - all[i].char_start;
            let better = match &best {
                None => true,
                Some((_, _, _, best_len, best_terms)) => {
                    terms.len() > best_terms.len()
                        || (terms.len() == best_terms.len() && len < *best_len)
                }
            };
            if better {
                best = Some((all[i].start, end, all[i].char_start, len, terms));
            }
        }
        best.map(|(start, end, _, _, mut terms)| {
            terms.sort_unstable();
            Window { start, end, terms }
        })
    }

    /// Widens `[start, end)` towards the surrounding sentence while the
    /// quote stays within [`MAX_QUOTE_CHARS`] characters, avoiding cuts
    /// inside words; trims whitespace.
    fn widen(&self, start: usize, end: usize) -> (usize, usize) {
        let src = self.src;
        let core = src[start..end].chars().count();
        let mut budget = MAX_QUOTE_CHARS.saturating_sub(core);
        // Left: up to half the budget, stopping after a sentence end.
        let mut s = start;
        let mut left_budget = budget / 2;
        let mut left_stopped = false;
        for (i, c) in src[..start].char_indices().rev() {
            if left_budget == 0 {
                break;
            }
            if c == '\n'
                || is_sentence_end(c)
                    && src[i + c.len_utf8()..start].starts_with(char::is_whitespace)
            {
                left_stopped = true;
                break;
            }
            s = i;
            left_budget -= 1;
        }
        budget -= budget / 2 - left_budget;
        // Right: the rest, stopping after a sentence end.
        let mut e = end;
        let mut right_stopped = false;
        for (i, c) in src[end..].char_indices() {
            if budget == 0 {
                break;
            }
            if c == '\n' {
                right_stopped = true;
                break;
            }
            e = end + i + c.len_utf8();
            budget -= 1;
            if is_sentence_end(c) {
                right_stopped = true;
                break;
            }
        }
        // Left again with what the right side left over.
        if !left_stopped {
            for (i, c) in src[..s].char_indices().rev() {
                if budget == 0 {
                    break;
                }
                if c == '\n'
                    || is_sentence_end(c)
                        && src[i + c.len_utf8()..s].starts_with(char::is_whitespace)
                {
                    left_stopped = true;
                    break;
                }
                s = i;
                budget -= 1;
            }
        }
        // Never start or end inside a word (when the cut was the budget's).
        if !left_stopped && s > 0 && s < start {
            let before = src[..s].chars().next_back();
            let first = src[s..].chars().next();
            if before.is_some_and(char::is_alphanumeric) && first.is_some_and(char::is_alphanumeric)
            {
                if let Some(ws) = src[s..start].find(char::is_whitespace) {
                    s += ws;
                } else {
                    s = start;
                }
            }
        }
        if !right_stopped && e < src.len() && e > end {
            let last = src[..e].chars().next_back();
            let after = src[e..].chars().next();
            if last.is_some_and(char::is_alphanumeric) && after.is_some_and(char::is_alphanumeric) {
                e = match src[end..e].rfind(char::is_whitespace) {
                    Some(ws) => end + ws,
                    None => end,
                };
            }
        }
        // Trim whitespace at both ends.
        let trimmed_start = s + (src[s..e].len() - src[s..e].trim_start().len());
        let trimmed_end = trimmed_start + src[trimmed_start..e].trim_end().len();
        (trimmed_start, trimmed_end)
    }
}

fn is_sentence_end(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '；' | ';')
}

/// Whether a text word matches a term word: equal, or (for alphabetic terms
/// of ≥ 3 letters) its plural / singular.
fn word_matches(word: &[char], term: &[char]) -> bool {
    if word == term {
        return true;
    }
    if term.len() < 3 || !term.iter().all(|c| c.is_alphabetic()) {
        return false;
    }
    let plural = |w: &[char], t: &[char]| {
        w.strip_prefix(t)
            .is_some_and(|rest| rest == ['s'] || rest == ['e', 's'])
    };
    plural(word, term) || plural(term, word)
}

/// Whether a normalised clause contains a negation (a contraction such as
/// "don't", normalised to `don t`, counts as `dont`).
fn negated(normalised: &str) -> bool {
    let words: Vec<&str> = normalised.split(' ').collect();
    let word_negation = words.iter().enumerate().any(|(i, w)| {
        NEGATION_WORDS.contains(w)
            || (words.get(i + 1) == Some(&"t")
                && NEGATION_WORDS.contains(&format!("{w}t").as_str()))
    });
    word_negation || CJK_NEGATION_MARKERS.iter().any(|m| normalised.contains(m))
}

/// The negation heuristic: the matched window (with a little text before
/// it, from the start of its clause) and the constraint disagree on
/// whether they negate.
fn negation_mismatch(constraint_text: &str, src: &str, start: usize, end: usize) -> bool {
    let mut s = start;
    for (n, (i, c)) in src[..start].char_indices().rev().enumerate() {
        if n >= NEGATION_LOOKBACK_CHARS || c == '\n' || is_sentence_end(c) || c == ',' || c == '，'
        {
            break;
        }
        s = i;
    }
    negated(&normalize_for_match(&src[s..end])) != negated(&normalize_for_match(constraint_text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        match_terms(&Constraint {
            id: "c1".into(),
            text: text.into(),
            terms: Vec::new(),
            mandatory: true,
        })
    }

    #[test]
    fn normalisation_keeps_letters_digits_and_cjk() {
        assert_eq!(
            normalize_for_match("  Node.js — v22, 异步!! "),
            "node js v22 异步"
        );
    }

    #[test]
    fn whole_words_only() {
        let m = match_constraint(
            &["go".into(), "release".into()],
            "go release",
            "",
            "Google releases it",
        );
        assert_eq!(m.matched_terms, vec!["release".to_string()]);
        assert!(!m.supported);
    }

    #[test]
    fn plural_tolerance() {
        let w = |s: &str| s.chars().collect::<Vec<char>>();
        assert!(word_matches(&w("frameworks"), &w("framework")));
        assert!(word_matches(&w("framework"), &w("frameworks")));
        assert!(word_matches(&w("boxes"), &w("box")));
        assert!(!word_matches(&w("gos"), &w("go")));
    }

    #[test]
    fn threshold_and_weak() {
        let t = terms("Rust async runtime tokio");
        let m = match_constraint(&t, "", "", "The tokio runtime powers async Rust.");
        assert!(m.supported);
        assert!(!m.weak);
        let m = match_constraint(&t, "", "", "tokio is a runtime");
        assert!(m.supported && m.weak);
    }

    #[test]
    fn negation_flag() {
        assert!(negation_mismatch(
            "Rust has a garbage collector",
            "Rust does not have a garbage collector",
            0,
            38
        ));
        assert!(!negation_mismatch(
            "Rust has a garbage collector",
            "Rust has no garbage collector? Yes it has a garbage collector",
            36,
            61
        ));
    }
}
