//! The constraint ledger: which of a plan's constraints fetched pages
//! support, which they refute, with the verbatim quote behind each
//! verdict, and whether the evidence is ready (`ferret.ledger.v1`).
//!
//! **Only fetched page text is evidence.** A page enters the ledger as the
//! text of a fetched page ([`PageEvidence`]); search titles and snippets
//! never do — the ledger has no way to receive them.
//!
//! **The judgement** is the evidence scorer's
//! ([`crate::scorer::EvidenceScorer::judge`]); its default,
//! [`judge::judge`], reads the page sentence by sentence: a constraint is
//! **supported** when one sentence (or two adjacent ones) states every fact
//! of it — numbers, dates and names normalised and in their place — with
//! enough of its words and the same polarity; **refuted** when such a
//! sentence states a different number, date, name, polarity or direction;
//! otherwise the page is **unrelated** and does not count. See [`judge`]
//! for every rule and the reasons it gives.
//!
//! **Status.** A constraint is `pending` (nothing supports it),
//! `supported`, `weak` (supported only by windows of two sentences), or
//! `contested` (some fetched page refutes it — whatever supports it too).
//! The ledger is **ready** when no mandatory constraint is pending or
//! contested; its status is then `complete`, else `insufficient-evidence`.
//! Every refutation is also listed in [`DisconfirmTracking::contradicting`]
//! with its quote.
//!
//! **Quotes.** Every verdict records the page URL and a verbatim quote
//! ([`Quote`]): the window the verdict rests on, cut to at most
//! [`MAX_QUOTE_CHARS`] characters around the claim's facts, never inside a
//! word when it can be helped. `&text[start..end] == quote.text` always
//! holds (byte offsets).
//!
//! **Anchor, rivals, disconfirmation.** The anchor is the longest mandatory
//! constraint (the plan's, else [`ferret_core::plan::constraints::anchor`]).
//! Rivals are the entities that compete for the answer; at least
//! [`MIN_RIVALS`] should be considered ([`RivalTracking::sufficient`]);
//! each rival lists the pages that name it. Pages found by a disconfirm
//! query are marked.
//!
//! **Scores.** The scorer also grades each piece of support
//! ([`EvidenceScore`]), reported beside it, never used to decide support.

pub mod judge;

use serde::{Deserialize, Serialize};

use crate::budget::{Deadline, OutOfTime};
use ferret_core::Provenance;
use ferret_core::plan::constraints::anchor as plan_anchor;
use ferret_core::plan::{Constraint, FocusedPurpose, Plan};

pub use judge::{Claim, Judged, Judgement, PageText, ReadText};

/// The schema name of [`Ledger`].
pub const LEDGER_SCHEMA: &str = "ferret.ledger.v1";

/// The longest quote, in characters.
pub const MAX_QUOTE_CHARS: usize = 200;

/// Rivals that should have been considered.
pub const MIN_RIVALS: usize = 3;

/// The ledger's overall status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LedgerStatus {
    /// No mandatory constraint is pending or contested.
    Complete,
    /// Some mandatory constraint is pending or contested.
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
    /// A fetched page states it.
    Supported,
    /// Supported, but only across two adjacent sentences.
    Weak,
    /// A fetched page refutes it (whatever supports it too).
    Contested,
}

impl ConstraintStatus {
    /// Whether the constraint counts as supported (`supported` or `weak`).
    pub fn is_supported(self) -> bool {
        matches!(self, ConstraintStatus::Supported | ConstraintStatus::Weak)
    }

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ConstraintStatus::Pending => "pending",
            ConstraintStatus::Supported => "supported",
            ConstraintStatus::Weak => "weak",
            ConstraintStatus::Contested => "contested",
        }
    }
}

/// A verbatim quote of a page's text: `&text[start..end] == text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quote {
    /// The quote (at most [`MAX_QUOTE_CHARS`] characters).
    pub text: String,
    /// Byte offset in the page text.
    pub start: usize,
    /// Byte offset just past the quote.
    pub end: usize,
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

/// A scorer's grade of one piece of evidence, every component shown.
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

/// How many independent sources agree on a constraint.
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

/// One fetched page's verdict on one constraint (support or refutation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerEvidence {
    /// The page's URL (the final URL after redirects).
    pub url: String,
    /// Copies of the same page (reprints, identical pages) that count as
    /// this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_at: Vec<String>,
    /// The fetched page's title.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Where the text came from (`fetch`, `browser`, `public_endpoint` …).
    pub source: String,
    /// The candidate's search rank, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Supports or refutes.
    pub judgement: Judgement,
    /// Why (`facts_colocated`, `number_mismatch: 46 vs 64`, `negated: …`,
    /// `entity_mismatch: …`, `reversed: …`).
    pub reason: String,
    /// The claim's facts and words the quote holds.
    pub matched: Vec<String>,
    /// The verbatim quote.
    pub quote: Quote,
    /// The page was found by a disconfirm query.
    #[serde(default)]
    pub from_disconfirm: bool,
    /// The evidence scorer's grade of a supporting quote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<EvidenceScore>,
    /// Who read the page the quote comes from.
    pub provenance: Provenance,
    /// The page carries prompt-injection signals: its text is untrusted and
    /// it is never the sole support of a decision.
    #[serde(default)]
    pub untrusted: bool,
}

/// One constraint and what the pages say of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerConstraint {
    /// `c1`, `c2`, ….
    pub id: String,
    /// The clause as written.
    pub text: String,
    /// Its planned terms (numbers and dates whole, then content words).
    #[serde(default)]
    pub terms: Vec<String>,
    /// Its facts (numbers, dates, times, names), as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    /// Whether readiness needs it.
    pub mandatory: bool,
    /// Pending, supported, weak or contested.
    pub status: ConstraintStatus,
    /// The pages that support it, in the order they were read.
    pub evidence: Vec<LedgerEvidence>,
    /// The pages that refute it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refutations: Vec<LedgerEvidence>,
    /// The best evidence score, when scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_score: Option<f64>,
    /// Agreement across sources, when computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_validation: Option<CrossValidation>,
    /// Some fetched page refutes it.
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

/// Rival tracking ("enumerate 3+ rivals").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RivalTracking {
    /// The rivals, in registration order.
    pub names: Vec<String>,
    /// How many should be considered ([`MIN_RIVALS`]).
    pub required: usize,
    /// Whether at least `required` distinct rivals are known.
    pub sufficient: bool,
    /// Per rival, the pages that name it.
    pub mentions: Vec<RivalMention>,
}

/// A refutation of a constraint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contradiction {
    /// The constraint.
    pub constraint_id: String,
    /// The page.
    pub url: String,
    /// The quote.
    pub quote: String,
    /// Why it refutes.
    pub reason: String,
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
    /// Every refutation of a constraint.
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
    /// Constraints some fetched page refutes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contested: Vec<String>,
    /// Whether any constraint is only weakly supported.
    pub weak: bool,
    /// The weakly supported constraints.
    pub weak_constraints: Vec<String>,
    /// No mandatory constraint is pending or contested.
    pub ready: bool,
    /// `complete` or `insufficient-evidence`.
    pub status: LedgerStatus,
    /// Rival tracking.
    pub rivals: RivalTracking,
    /// Disconfirmation tracking.
    pub disconfirm: DisconfirmTracking,
    /// Pages read.
    pub pages_read: usize,
}

/// A fetched page as the ledger reads it: its text only, and who read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageEvidence<'a> {
    /// The page's URL.
    pub url: &'a str,
    /// The fetched title (empty when none); names rivals, never evidence.
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
    /// The page this one is a copy of (a reprint, a mirror, the same page
    /// under another URL): when both support a constraint they count once,
    /// this URL listed in the other's [`LedgerEvidence::also_at`].
    pub copy_of: Option<&'a str>,
}

impl<'a> PageEvidence<'a> {
    /// A page read as `provenance` says (source `fetch`, no rank, not from
    /// a disconfirm query, trusted, not a copy).
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
            copy_of: None,
        }
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

    /// Marks the page's text as untrusted (prompt-injection signals).
    pub fn with_untrusted(mut self, untrusted: bool) -> Self {
        self.untrusted = untrusted;
        self
    }

    /// Marks the page as a copy of the page at `url` (read that one first).
    pub fn with_copy_of(mut self, url: &'a str) -> Self {
        self.copy_of = Some(url);
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
    /// Constraints the page refutes.
    pub contradicting: Vec<String>,
}

/// What a scorer is shown for one piece of support.
#[derive(Debug, Clone, Copy)]
pub struct ScoreRequest<'a> {
    /// The constraint.
    pub constraint: &'a LedgerConstraint,
    /// The verdict.
    pub judged: &'a Judged,
    /// The quote.
    pub quote: &'a Quote,
    /// The page.
    pub page: &'a PageEvidence<'a>,
}

/// Judges a page for a constraint; [`crate::scorer::EvidenceScorer`]
/// implements it (its default is [`judge::judge`]).
pub trait Judge {
    /// The verdict of `page` (read once for every constraint) on `claim`.
    fn judge(&self, claim: &Claim, page: &ReadText<'_>) -> Judged;
}

/// The default judgement, for callers without a scorer.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultJudge;

impl Judge for DefaultJudge {
    fn judge(&self, claim: &Claim, page: &ReadText<'_>) -> Judged {
        judge::judge_read(claim, page)
    }
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
                .filter(|f| f.purpose == FocusedPurpose::Disconfirm)
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
                    terms: c.terms.clone(),
                    facts: Claim::new(&c.text)
                        .facts()
                        .into_iter()
                        .map(|f| f.text().to_string())
                        .collect(),
                    mandatory: c.mandatory,
                    status: ConstraintStatus::Pending,
                    evidence: Vec::new(),
                    refutations: Vec::new(),
                    best_score: None,
                    cross_validation: None,
                    contested: false,
                })
                .collect(),
            anchor: plan_anchor(constraints),
            supported: Vec::new(),
            pending: Vec::new(),
            optional_pending: Vec::new(),
            contested: Vec::new(),
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

    /// The constraint called `id`.
    pub fn constraint(&self, id: &str) -> Option<&LedgerConstraint> {
        self.constraints.iter().find(|c| c.id == id)
    }

    /// The constraint called `id`, mutably.
    pub fn constraint_mut(&mut self, id: &str) -> Option<&mut LedgerConstraint> {
        self.constraints.iter_mut().find(|c| c.id == id)
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

    /// Reads a page with the default judgement and no scoring.
    pub fn add_page(&mut self, page: &PageEvidence<'_>) -> PageOutcome {
        self.add_page_scored(page, &DefaultJudge, &mut |_| None)
    }

    /// Reads a page: `judge` gives each constraint's verdict, `score` grades
    /// each piece of support (return `None` to leave it unscored).
    pub fn add_page_scored(
        &mut self,
        page: &PageEvidence<'_>,
        judge: &dyn Judge,
        score: &mut dyn FnMut(&ScoreRequest<'_>) -> Option<EvidenceScore>,
    ) -> PageOutcome {
        // Without a deadline the page is always read.
        self.add_page_within(page, judge, score, Deadline::none())
            .unwrap_or_default()
    }

    /// [`Self::add_page_scored`] within `deadline` (the page's time budget,
    /// [`crate::budget`]): every constraint is judged first, and only when
    /// all were judged in time is anything recorded. Past the deadline the
    /// ledger is left as it was and the page is `Err` (`too_complex` for
    /// the caller).
    pub fn add_page_within(
        &mut self,
        page: &PageEvidence<'_>,
        judge: &dyn Judge,
        score: &mut dyn FnMut(&ScoreRequest<'_>) -> Option<EvidenceScore>,
        deadline: Deadline,
    ) -> Result<PageOutcome, OutOfTime> {
        let readable = !page.text.trim().is_empty();
        let judged = if readable {
            self.judge_page(page, judge, deadline)?
        } else {
            Vec::new()
        };
        self.pages_read += 1;
        let mut outcome = PageOutcome::default();
        if page.from_disconfirm && readable {
            self.disconfirm.checked = true;
            if !self.disconfirm.pages.iter().any(|u| u == page.url) {
                self.disconfirm.pages.push(page.url.to_string());
            }
        }
        if readable {
            for (i, judged) in judged.into_iter().enumerate() {
                self.record(i, page, judged, score, &mut outcome);
            }
            self.note_rivals(page);
        }
        self.refresh();
        Ok(outcome)
    }

    /// Every constraint's verdict on `page`, all within `deadline`.
    fn judge_page(
        &self,
        page: &PageEvidence<'_>,
        judge: &dyn Judge,
        deadline: Deadline,
    ) -> Result<Vec<Judged>, OutOfTime> {
        let claims: Vec<Claim> = self
            .constraints
            .iter()
            .map(|c| Claim::new(&c.text))
            .collect();
        let text = PageText {
            title: page.title,
            text: page.text,
        };
        let read = ReadText::for_claims_within(&text, &claims, deadline);
        let mut judged = Vec::with_capacity(claims.len());
        for claim in &claims {
            deadline.check("the ledger")?;
            judged.push(judge.judge(claim, &read));
        }
        // A judge cut short by the deadline gave no verdict to keep.
        deadline.check("the ledger")?;
        Ok(judged)
    }

    /// Records constraint `i`'s verdict on `page`.
    fn record(
        &mut self,
        i: usize,
        page: &PageEvidence<'_>,
        judged: Judged,
        score: &mut dyn FnMut(&ScoreRequest<'_>) -> Option<EvidenceScore>,
        outcome: &mut PageOutcome,
    ) {
        let Some(window) = judged.window.clone() else {
            return;
        };
        if judged.judgement == Judgement::Unrelated {
            return;
        }
        let quote = quote_of(page.text, window, &judged.matched);
        let scored = if judged.judgement == Judgement::Supports {
            score(&ScoreRequest {
                constraint: &self.constraints[i],
                judged: &judged,
                quote: &quote,
                page,
            })
        } else {
            None
        };
        let evidence = LedgerEvidence {
            url: page.url.to_string(),
            also_at: Vec::new(),
            title: page.title.to_string(),
            source: page.source.to_string(),
            rank: page.rank,
            judgement: judged.judgement,
            reason: judged.reason.clone(),
            matched: judged.matched.clone(),
            quote,
            from_disconfirm: page.from_disconfirm,
            score: scored,
            provenance: page.provenance.clone(),
            untrusted: page.untrusted,
        };
        let constraint = &mut self.constraints[i];
        match judged.judgement {
            Judgement::Supports => {
                if !constraint.status.is_supported() {
                    outcome.newly_supported.push(constraint.id.clone());
                }
                outcome.supported.push(constraint.id.clone());
                // A copy that agrees with its original counts as it.
                let original = page
                    .copy_of
                    .and_then(|url| constraint.evidence.iter_mut().find(|e| e.url == url));
                if let Some(original) = original {
                    original.also_at.push(evidence.url);
                    return;
                }
                if let Some(s) = &evidence.score {
                    constraint.best_score =
                        Some(constraint.best_score.map_or(s.score, |b| b.max(s.score)));
                }
                constraint.evidence.push(evidence);
            }
            _ => {
                outcome.contradicting.push(constraint.id.clone());
                self.disconfirm.contradicting.push(Contradiction {
                    constraint_id: constraint.id.clone(),
                    url: evidence.url.clone(),
                    quote: evidence.quote.text.clone(),
                    reason: evidence.reason.clone(),
                });
                constraint.refutations.push(evidence);
            }
        }
    }

    fn note_rivals(&mut self, page: &PageEvidence<'_>) {
        let haystack = format!("{}\n{}", page.title, page.text).to_lowercase();
        for (rival, mention) in self
            .rivals
            .names
            .iter()
            .zip(self.rivals.mentions.iter_mut())
        {
            let named = rival
                .to_lowercase()
                .split_whitespace()
                .all(|w| haystack.contains(w));
            if named && !mention.urls.iter().any(|u| u == page.url) {
                mention.urls.push(page.url.to_string());
            }
        }
    }

    /// Recomputes statuses, lists, readiness and the overall status.
    pub fn refresh(&mut self) {
        self.supported.clear();
        self.pending.clear();
        self.optional_pending.clear();
        self.contested.clear();
        self.weak_constraints.clear();
        for c in &mut self.constraints {
            c.contested = !c.refutations.is_empty();
            c.status = if c.contested {
                ConstraintStatus::Contested
            } else if c.evidence.is_empty() {
                ConstraintStatus::Pending
            } else if c
                .evidence
                .iter()
                .all(|e| e.quote.text.matches(['.', '。']).count() > 1)
            {
                ConstraintStatus::Weak
            } else {
                ConstraintStatus::Supported
            };
            match c.status {
                ConstraintStatus::Pending if c.mandatory => self.pending.push(c.id.clone()),
                ConstraintStatus::Pending => self.optional_pending.push(c.id.clone()),
                ConstraintStatus::Contested => self.contested.push(c.id.clone()),
                ConstraintStatus::Weak => {
                    self.supported.push(c.id.clone());
                    self.weak_constraints.push(c.id.clone());
                }
                ConstraintStatus::Supported => self.supported.push(c.id.clone()),
            }
        }
        self.weak = !self.weak_constraints.is_empty();
        let contested_mandatory = self.constraints.iter().any(|c| c.mandatory && c.contested);
        self.ready = self.pending.is_empty() && !contested_mandatory;
        self.status = if self.ready {
            LedgerStatus::Complete
        } else {
            LedgerStatus::InsufficientEvidence
        };
        self.rivals.sufficient = self.rivals.names.len() >= self.rivals.required;
    }

    /// The compact summary.
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
            contested: self.contested.clone(),
            disconfirm_checked: self.disconfirm.checked,
        }
    }
}

/// The ledger in brief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerSummary {
    /// No mandatory constraint is pending or contested.
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
    /// Constraints some fetched page refutes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contested: Vec<String>,
    /// A page from a disconfirm query was read.
    pub disconfirm_checked: bool,
}

/// The quote for a verdict resting on `window` of `text`: the window when
/// it fits [`MAX_QUOTE_CHARS`], else that many characters around the first
/// matched fact or word, cut on word boundaries when possible.
fn quote_of(text: &str, window: std::ops::Range<usize>, matched: &[String]) -> Quote {
    let slice = &text[window.clone()];
    if slice.chars().count() <= MAX_QUOTE_CHARS {
        return Quote {
            text: slice.to_string(),
            start: window.start,
            end: window.end,
        };
    }
    let lower = slice.to_lowercase();
    let focus = matched
        .iter()
        .filter_map(|m| lower.find(&m.to_lowercase()))
        .min()
        .filter(|at| slice.is_char_boundary(*at))
        .unwrap_or(0);
    // Start a little before the focus, end MAX_QUOTE_CHARS characters on.
    let lead: usize = slice[..focus]
        .char_indices()
        .rev()
        .nth(40)
        .map_or(0, |(i, _)| i);
    let start = slice[lead..]
        .find(' ')
        .filter(|s| *s < 30 && lead > 0)
        .map_or(lead, |s| lead + s + 1);
    let mut end = slice[start..]
        .char_indices()
        .nth(MAX_QUOTE_CHARS)
        .map_or(slice.len(), |(i, _)| start + i);
    if end < slice.len()
        && let Some(space) = slice[start..end].rfind(' ')
        && space > (end - start) / 2
    {
        end = start + space;
    }
    let text_out = slice[start..end].trim_end().to_string();
    Quote {
        start: window.start + start,
        end: window.start + start + text_out.len(),
        text: text_out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::Runtime;

    const PUBLIC: Provenance = Provenance::public(Runtime::Http);

    fn constraint(id: &str, text: &str) -> Constraint {
        Constraint::new(id, text, true)
    }

    #[test]
    fn a_refuting_page_contests_the_constraint_and_the_ledger_is_not_ready() {
        let mut ledger =
            Ledger::from_constraints(&[constraint("c1", "There were 64 animal cases")]);
        let support = "Officials counted 64 animal cases this year.";
        ledger.add_page(&PageEvidence::new(
            "https://a.example/",
            "",
            support,
            &PUBLIC,
        ));
        assert!(ledger.ready);
        let refute = "Officials counted 46 animal cases this year.";
        ledger.add_page(&PageEvidence::new(
            "https://b.example/",
            "",
            refute,
            &PUBLIC,
        ));
        let c = ledger.constraint("c1").unwrap();
        assert_eq!(c.status, ConstraintStatus::Contested);
        assert!(!ledger.ready);
        assert_eq!(ledger.contested, vec!["c1".to_string()]);
        assert_eq!(ledger.disconfirm.contradicting[0].url, "https://b.example/");
    }

    #[test]
    fn quotes_are_verbatim_and_bounded() {
        let text = format!(
            "{} The Larkspur cooperative pays a quarterly dividend of 42 credits {}.",
            "Filler words go here. ".repeat(3),
            "and more words that make this sentence far longer than two hundred characters "
                .repeat(4)
        );
        let mut ledger = Ledger::from_constraints(&[constraint(
            "c1",
            "The Larkspur cooperative pays a quarterly dividend of 42 credits",
        )]);
        ledger.add_page(&PageEvidence::new("https://a.example/", "", &text, &PUBLIC));
        let e = &ledger.constraint("c1").unwrap().evidence[0];
        assert_eq!(&text[e.quote.start..e.quote.end], e.quote.text);
        assert!(e.quote.text.chars().count() <= MAX_QUOTE_CHARS);
        assert!(e.quote.text.contains("42 credits"), "{}", e.quote.text);
    }
}
