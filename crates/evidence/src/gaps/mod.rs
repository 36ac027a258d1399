//! The gap ledger: before an answer is written, every gap in the evidence
//! is listed by type, each citing the evidence ids (or claim ids) it
//! concerns — the `ferret.gaps.v1` envelope.
//!
//! ## Subjects and support
//!
//! Gaps are found per *subject*: a claim, sub-question or constraint
//! ([`Claim`]; with none given, the question itself, id `question`). An
//! item is *about* a subject when it is evidence (fetched text) and either
//! names the subject in [`EvidenceItem::subjects`] or its text contains at
//! least `min(support_min_terms, n)` of the subject's `n` content terms and
//! at least [`GapOptions::support_min_coverage`] of them (default 2 terms
//! and 50 %). Unfetched items are never evidence; they are listed in
//! [`GapLedger::unfetched_evidence`].
//!
//! ## Gap types
//!
//! | kind | label | when |
//! |---|---|---|
//! | `missing_counter_evidence` | 缺反证 | no item from a counter-evidence (disconfirm) query is about the subject; tagged `[no counter-evidence found]` |
//! | `no_direct_comparison` | 无直接对比 | the question compares sides (given, or found by [`ferret_core::plan::comparison::sides`]) and no item mentions every side |
//! | `single_source` | 单一来源 | every item about the subject comes from one registrable domain |
//! | `stale_evidence` | 证据过时 | an item is older than the topic's limit ([`Topic`]); tagged `[age: N years]` (or `N months`) and `[stale evidence]` |
//! | `out_of_scope_extrapolation` | 范围外推 | less than [`GapOptions::scope_min_coverage`] (default 75 %) of the subject's terms occur in any fetched text; the missing terms are listed |
//! | `no_evidence` | 无证据 | no item is about the subject at all (then the subject's other gaps are not listed: they would all say the same) |
//!
//! `no_evidence` exists so that a subject without any support is never
//! silent.
//!
//! A side "is mentioned" when its first content term (the name, as in
//! "Deno JavaScript runtime") and at least half of its content terms occur
//! (all of them for a one- or two-term side). Dates are read with
//! [`ferret_core::freshness::parse_date`]; items without a readable date are
//! listed in [`GapLedger::undated_evidence`] and never called stale. The
//! topic is [`classify_topic`]'s (strictest matching limit) unless given;
//! [`Topic::General`] has no limit.
//!
//! Gap order is deterministic: per subject (no evidence, single source,
//! missing counter-evidence, out-of-scope), then the comparison gap, then
//! stale items in item order; ids are `g1`, `g2`, ….

use crate::option_error::OptionError;
use std::collections::{BTreeSet, HashSet};

use chrono::{DateTime, Utc};
use ferret_core::freshness::{age_in_days, parse_date};
use ferret_core::intent::classify;
use ferret_core::plan::comparison::sides as comparison_sides;
use serde::{Deserialize, Serialize};

use crate::evidence_item::terms::{TextTerms, content_terms};
use crate::evidence_item::{Claim, EvidenceItem, EvidenceItemError, QueryRole, check_ids};

mod topic;

pub use topic::{
    MAX_AGE_MONTHS, TOPIC_KEYWORDS, Topic, TopicChoice, TopicSource, age_tag, classify_topic,
};

/// The schema name of [`GapLedger`].
pub const GAPS_SCHEMA: &str = "ferret.gaps.v1";

/// The tag of a subject without counter-evidence.
pub const NO_COUNTER_EVIDENCE_TAG: &str = "[no counter-evidence found]";

/// The tag of stale evidence.
pub const STALE_TAG: &str = "[stale evidence]";

/// The subject id used when no subjects are given.
pub const QUESTION_SUBJECT_ID: &str = "question";

/// The kind of a gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapKind {
    /// 缺反证.
    MissingCounterEvidence,
    /// 无直接对比.
    NoDirectComparison,
    /// 单一来源.
    SingleSource,
    /// 证据过时.
    StaleEvidence,
    /// 范围外推.
    OutOfScopeExtrapolation,
    /// 无证据.
    NoEvidence,
}

impl GapKind {
    /// Every kind.
    pub const ALL: [GapKind; 6] = [
        GapKind::MissingCounterEvidence,
        GapKind::NoDirectComparison,
        GapKind::SingleSource,
        GapKind::StaleEvidence,
        GapKind::OutOfScopeExtrapolation,
        GapKind::NoEvidence,
    ];

    /// The Chinese label (`缺反证`, `无直接对比`, …).
    pub const fn zh(self) -> &'static str {
        match self {
            GapKind::MissingCounterEvidence => "缺反证",
            GapKind::NoDirectComparison => "无直接对比",
            GapKind::SingleSource => "单一来源",
            GapKind::StaleEvidence => "证据过时",
            GapKind::OutOfScopeExtrapolation => "范围外推",
            GapKind::NoEvidence => "无证据",
        }
    }

    /// The JSON name (`missing_counter_evidence`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            GapKind::MissingCounterEvidence => "missing_counter_evidence",
            GapKind::NoDirectComparison => "no_direct_comparison",
            GapKind::SingleSource => "single_source",
            GapKind::StaleEvidence => "stale_evidence",
            GapKind::OutOfScopeExtrapolation => "out_of_scope_extrapolation",
            GapKind::NoEvidence => "no_evidence",
        }
    }
}

/// The items that mention one side of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideMentions {
    /// The side.
    pub side: String,
    /// Items mentioning it.
    pub evidence_ids: Vec<String>,
}

/// What each kind of gap records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GapDetail {
    /// No counter-evidence item is about the subject.
    MissingCounterEvidence {},
    /// No item mentions every side.
    NoDirectComparison {
        /// Which items mention which side.
        sides: Vec<SideMentions>,
    },
    /// All support comes from one domain.
    SingleSource {
        /// The domain.
        domain: String,
    },
    /// An item is older than the limit.
    StaleEvidence {
        /// The topic whose limit applies.
        topic: Topic,
        /// The date as the item gave it.
        published_at: String,
        /// Its age in whole days.
        age_days: i64,
        /// The limit in months.
        max_age_months: u32,
    },
    /// Part of the subject is in no fetched text.
    OutOfScopeExtrapolation {
        /// The subject's terms found in no fetched text.
        uncovered_terms: Vec<String>,
        /// The share of its terms that were found (0–1).
        coverage: f64,
    },
    /// Nothing is about the subject.
    NoEvidence {},
}

impl GapDetail {
    /// The kind.
    pub fn kind(&self) -> GapKind {
        match self {
            GapDetail::MissingCounterEvidence {} => GapKind::MissingCounterEvidence,
            GapDetail::NoDirectComparison { .. } => GapKind::NoDirectComparison,
            GapDetail::SingleSource { .. } => GapKind::SingleSource,
            GapDetail::StaleEvidence { .. } => GapKind::StaleEvidence,
            GapDetail::OutOfScopeExtrapolation { .. } => GapKind::OutOfScopeExtrapolation,
            GapDetail::NoEvidence {} => GapKind::NoEvidence,
        }
    }
}

/// One gap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gap {
    /// `g1`, `g2`, … in ledger order.
    pub id: String,
    /// The kind and its specifics (`kind` in JSON).
    #[serde(flatten)]
    pub detail: GapDetail,
    /// The Chinese label (`缺反证` …).
    pub label: String,
    /// What is missing, in a sentence.
    pub message: String,
    /// The subjects (claims, sub-questions, constraints) concerned.
    pub subject_ids: Vec<String>,
    /// The evidence items concerned.
    pub evidence_ids: Vec<String>,
    /// Tags for the answer (`[no counter-evidence found]`, `[age: 2 years]`, `[stale evidence]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

impl Gap {
    /// The kind.
    pub fn kind(&self) -> GapKind {
        self.detail.kind()
    }
}

/// What supports one subject.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectSupport {
    /// The subject's id.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Its content terms.
    pub terms: Vec<String>,
    /// Items about it.
    pub evidence_ids: Vec<String>,
    /// Their distinct registrable domains, sorted.
    pub domains: Vec<String>,
    /// Of those, the items from counter-evidence queries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counter_evidence_ids: Vec<String>,
}

/// The `ferret.gaps.v1` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GapLedger {
    /// Always [`GAPS_SCHEMA`].
    pub schema: String,
    /// The question.
    pub question: String,
    /// The topic and its age limit.
    pub topic: TopicChoice,
    /// The sides of a comparison question (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sides: Vec<String>,
    /// Support per subject, in subject order.
    pub subjects: Vec<SubjectSupport>,
    /// The gaps.
    pub gaps: Vec<Gap>,
    /// Fetched items without a readable date (never judged stale).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undated_evidence: Vec<String>,
    /// Items that were not fetched (never evidence).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unfetched_evidence: Vec<String>,
}

impl GapLedger {
    /// The gaps of one kind.
    pub fn of_kind(&self, kind: GapKind) -> impl Iterator<Item = &Gap> {
        self.gaps.iter().filter(move |g| g.kind() == kind)
    }

    /// Whether any gap of `kind` exists.
    pub fn has(&self, kind: GapKind) -> bool {
        self.of_kind(kind).next().is_some()
    }
}

/// Thresholds of the gap checks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GapOptions {
    /// Share of a subject's terms an item must contain to be about it
    /// (default 0.5).
    pub support_min_coverage: f64,
    /// Fewest terms an item must contain, capped by the subject's term
    /// count (default 2).
    pub support_min_terms: usize,
    /// Share of a subject's terms that must occur in some fetched text, or
    /// the subject is extrapolated (default 0.75).
    pub scope_min_coverage: f64,
}

impl Default for GapOptions {
    fn default() -> Self {
        GapOptions {
            support_min_coverage: 0.5,
            support_min_terms: 2,
            scope_min_coverage: 0.75,
        }
    }
}

/// Why a ledger could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GapError {
    /// The evidence items are unusable.
    #[error(transparent)]
    Items(#[from] EvidenceItemError),
    /// Two subjects share an id.
    #[error("subject id {0:?} is used twice; give every claim or sub-question its own id")]
    DuplicateSubject(String),
    /// An option is out of range.
    #[error(transparent)]
    Option(#[from] OptionError),
}

/// A gap check over one question's evidence; [`GapCheck::run`] builds the
/// ledger.
#[derive(Debug, Clone)]
pub struct GapCheck<'a> {
    question: &'a str,
    subjects: &'a [Claim],
    items: &'a [EvidenceItem],
    sides: Option<Vec<String>>,
    topic: Option<Topic>,
    options: GapOptions,
}

impl<'a> GapCheck<'a> {
    /// A check of `items` against `subjects` (claims, sub-questions or
    /// constraints; empty: the question itself).
    pub fn new(question: &'a str, subjects: &'a [Claim], items: &'a [EvidenceItem]) -> Self {
        GapCheck {
            question,
            subjects,
            items,
            sides: None,
            topic: None,
            options: GapOptions::default(),
        }
    }

    /// The sides of the comparison (e.g. a plan's `rivals`) instead of
    /// finding them in the question. An empty list means "not a
    /// comparison".
    pub fn with_sides<S: Into<String>>(mut self, sides: impl IntoIterator<Item = S>) -> Self {
        self.sides = Some(sides.into_iter().map(Into::into).collect());
        self
    }

    /// The topic instead of classifying the question.
    pub fn with_topic(mut self, topic: Topic) -> Self {
        self.topic = Some(topic);
        self
    }

    /// Other thresholds.
    pub fn with_options(mut self, options: GapOptions) -> Self {
        self.options = options;
        self
    }

    /// Builds the ledger as of `now`.
    pub fn run(&self, now: DateTime<Utc>) -> Result<GapLedger, GapError> {
        for (name, value) in [
            ("support_min_coverage", self.options.support_min_coverage),
            ("scope_min_coverage", self.options.scope_min_coverage),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(OptionError::new("gap", name, value, "0 to 1").into());
            }
        }
        check_ids(self.items)?;
        let mut seen = HashSet::new();
        for s in self.subjects {
            if !seen.insert(s.id.as_str()) {
                return Err(GapError::DuplicateSubject(s.id.clone()));
            }
        }
        let question_subject = [Claim::new(QUESTION_SUBJECT_ID, self.question)];
        let subjects: &[Claim] = if self.subjects.is_empty() {
            &question_subject
        } else {
            self.subjects
        };
        let evidence: Vec<(&EvidenceItem, TextTerms)> = self
            .items
            .iter()
            .filter(|i| i.is_evidence())
            .map(|i| (i, TextTerms::of(&format!("{}\n{}", i.title, i.text))))
            .collect();
        let topic = self
            .topic
            .map_or_else(|| classify_topic(self.question), TopicChoice::given);
        let sides = self
            .sides
            .clone()
            .unwrap_or_else(|| comparison_sides(self.question, &classify(self.question)));

        let mut gaps: Vec<Gap> = Vec::new();
        let mut supports = Vec::with_capacity(subjects.len());
        for subject in subjects {
            let support = self.subject_support(subject, &evidence);
            self.subject_gaps(&support, &evidence, &mut gaps);
            supports.push(support);
        }
        if sides.len() >= 2 {
            comparison_gap(&sides, &evidence, &mut gaps);
        }
        let undated = stale_gaps(&topic, &evidence, &supports, now, &mut gaps);
        for (n, gap) in gaps.iter_mut().enumerate() {
            gap.id = format!("g{}", n + 1);
        }
        Ok(GapLedger {
            schema: GAPS_SCHEMA.to_string(),
            question: self.question.to_string(),
            topic,
            sides,
            subjects: supports,
            gaps,
            undated_evidence: undated,
            unfetched_evidence: self
                .items
                .iter()
                .filter(|i| !i.is_evidence())
                .map(|i| i.id.clone())
                .collect(),
        })
    }

    fn is_about(
        &self,
        subject: &Claim,
        terms: &[String],
        item: &EvidenceItem,
        found: &TextTerms,
    ) -> bool {
        if item.subjects.contains(&subject.id) {
            return true;
        }
        if terms.is_empty() {
            return false;
        }
        let matched = found.matched(terms).len();
        let needed = self.options.support_min_terms.min(terms.len()).max(1);
        matched >= needed
            && matched as f64 / terms.len() as f64 >= self.options.support_min_coverage
    }

    fn subject_support(
        &self,
        subject: &Claim,
        evidence: &[(&EvidenceItem, TextTerms)],
    ) -> SubjectSupport {
        let terms = content_terms(&subject.text);
        let about: Vec<&EvidenceItem> = evidence
            .iter()
            .filter(|(item, found)| self.is_about(subject, &terms, item, found))
            .map(|(item, _)| *item)
            .collect();
        let domains: BTreeSet<String> = about.iter().map(|i| i.domain.clone()).collect();
        SubjectSupport {
            id: subject.id.clone(),
            text: subject.text.clone(),
            evidence_ids: about.iter().map(|i| i.id.clone()).collect(),
            domains: domains.into_iter().collect(),
            counter_evidence_ids: about
                .iter()
                .filter(|i| i.role == QueryRole::Counter)
                .map(|i| i.id.clone())
                .collect(),
            terms,
        }
    }

    fn subject_gaps(
        &self,
        support: &SubjectSupport,
        evidence: &[(&EvidenceItem, TextTerms)],
        gaps: &mut Vec<Gap>,
    ) {
        let subject_ids = vec![support.id.clone()];
        if support.evidence_ids.is_empty() {
            gaps.push(gap(
                GapDetail::NoEvidence {},
                format!("no fetched evidence is about {:?}", support.text),
                subject_ids,
                Vec::new(),
                Vec::new(),
            ));
            return;
        }
        if let [domain] = support.domains.as_slice() {
            gaps.push(gap(
                GapDetail::SingleSource {
                    domain: domain.clone(),
                },
                format!(
                    "{:?} rests on one source ({domain}); find an independent one",
                    support.text
                ),
                subject_ids.clone(),
                support.evidence_ids.clone(),
                Vec::new(),
            ));
        }
        if support.counter_evidence_ids.is_empty() {
            gaps.push(gap(
                GapDetail::MissingCounterEvidence {},
                format!(
                    "no counter-evidence query found anything about {:?}",
                    support.text
                ),
                subject_ids.clone(),
                support.evidence_ids.clone(),
                vec![NO_COUNTER_EVIDENCE_TAG.to_string()],
            ));
        }
        if !support.terms.is_empty() {
            let uncovered: Vec<String> = support
                .terms
                .iter()
                .filter(|t| !evidence.iter().any(|(_, found)| found.contains(t)))
                .cloned()
                .collect();
            let coverage = 1.0 - uncovered.len() as f64 / support.terms.len() as f64;
            if coverage < self.options.scope_min_coverage {
                gaps.push(gap(
                    GapDetail::OutOfScopeExtrapolation {
                        uncovered_terms: uncovered.clone(),
                        coverage,
                    },
                    format!(
                        "{:?} goes beyond the evidence: no fetched text mentions {}",
                        support.text,
                        uncovered.join(", ")
                    ),
                    subject_ids,
                    support.evidence_ids.clone(),
                    Vec::new(),
                ));
            }
        }
    }
}

fn gap(
    detail: GapDetail,
    message: String,
    subject_ids: Vec<String>,
    evidence_ids: Vec<String>,
    tags: Vec<String>,
) -> Gap {
    Gap {
        id: String::new(),
        label: detail.kind().zh().to_string(),
        detail,
        message,
        subject_ids,
        evidence_ids,
        tags,
    }
}

/// Whether `found` mentions a side: its first term (the side's name, as in
/// "Deno JavaScript runtime") and at least half of its terms (all of a one-
/// or two-term side).
fn mentions(found: &TextTerms, side_terms: &[String]) -> bool {
    let Some(first) = side_terms.first() else {
        return false;
    };
    let matched = found.matched(side_terms).len();
    let needed = if side_terms.len() <= 2 {
        side_terms.len()
    } else {
        side_terms.len().div_ceil(2)
    };
    found.contains(first) && matched >= needed
}

fn comparison_gap(sides: &[String], evidence: &[(&EvidenceItem, TextTerms)], gaps: &mut Vec<Gap>) {
    let side_terms: Vec<Vec<String>> = sides.iter().map(|s| content_terms(s)).collect();
    let direct = evidence
        .iter()
        .any(|(_, found)| side_terms.iter().all(|t| mentions(found, t)));
    if direct {
        return;
    }
    let mentions_per_side: Vec<SideMentions> = sides
        .iter()
        .zip(&side_terms)
        .map(|(side, terms)| SideMentions {
            side: side.clone(),
            evidence_ids: evidence
                .iter()
                .filter(|(_, found)| mentions(found, terms))
                .map(|(item, _)| item.id.clone())
                .collect(),
        })
        .collect();
    let mut cited: Vec<String> = Vec::new();
    for m in &mentions_per_side {
        for id in &m.evidence_ids {
            if !cited.contains(id) {
                cited.push(id.clone());
            }
        }
    }
    gaps.push(gap(
        GapDetail::NoDirectComparison {
            sides: mentions_per_side,
        },
        format!(
            "no fetched page compares {} directly; each side is only described on its own",
            sides.join(" and ")
        ),
        Vec::new(),
        cited,
        Vec::new(),
    ));
}

/// Adds a gap per stale item; returns the ids of items without a readable
/// date.
fn stale_gaps(
    topic: &TopicChoice,
    evidence: &[(&EvidenceItem, TextTerms)],
    supports: &[SubjectSupport],
    now: DateTime<Utc>,
    gaps: &mut Vec<Gap>,
) -> Vec<String> {
    let mut undated = Vec::new();
    for (item, _) in evidence {
        let date = item
            .published_at
            .as_deref()
            .and_then(|raw| parse_date(raw, now).map(|d| (raw, d)));
        let Some((raw, date)) = date else {
            undated.push(item.id.clone());
            continue;
        };
        let (Some(months), Some(age_days)) = (topic.max_age_months, age_in_days(date, now)) else {
            continue;
        };
        if !topic.topic.is_stale(date, now) {
            continue;
        }
        let subject_ids: Vec<String> = supports
            .iter()
            .filter(|s| s.evidence_ids.contains(&item.id))
            .map(|s| s.id.clone())
            .collect();
        gaps.push(gap(
            GapDetail::StaleEvidence {
                topic: topic.topic,
                published_at: raw.to_string(),
                age_days,
                max_age_months: months,
            },
            format!(
                "{} was published {age_days} days ago; {} evidence is stale after {months} months",
                item.id,
                topic.topic.as_str()
            ),
            subject_ids,
            vec![item.id.clone()],
            vec![age_tag(age_days), STALE_TAG.to_string()],
        ));
    }
    undated
}

/// [`GapCheck::new`]`(question, subjects, items).run(now)`.
pub fn gap_ledger(
    question: &str,
    subjects: &[Claim],
    items: &[EvidenceItem],
    now: DateTime<Utc>,
) -> Result<GapLedger, GapError> {
    GapCheck::new(question, subjects, items).run(now)
}
