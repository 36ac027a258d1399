//! [`SelectionAbsorption`]: the default weighted evidence scorer — *being
//! retrieved (selection) is not the same as being usable as evidence
//! (absorption)*.
//!
//! ```text
//! final = 0.40 · selection + 0.35 · absorption + 0.15 · freshness + 0.10 · original
//! ```
//!
//! **Selection** is the source's citability: the domain's authority ([`ferret_core::authority::authority`]: tier table,
//! patterns, default 0.4), plus 0.05 for a documentation path (`/docs/`,
//! `/documentation/`) and 0.05 for a paper path (`/paper/`, `/arxiv/`,
//! `/abs/`), capped at 1. A search-result page or jump URL
//! ([`super::serp`]) has authority 0.12 and selection at most 0.15. We
//! considered multiplying selection by the share of the constraint's terms
//! the page contains, and decided against it: selection is about *who*
//! says it, the ledger's term rule already decides *whether* the page
//! says it, and mixing the two would hide which one was weak. The term
//! coverage is reported as its own (unweighted) component.
//!
//! **Absorption** is [`super::signals::absorption`] over the fetched
//! title and the supporting passage (the ledger's quote, ≤ 200
//! characters — the scale of the search snippets the signals were designed
//! for): figures,
//! definitions, comparisons, steps and disclosed sources raise it; a Q&A
//! format lowers it.
//!
//! **Freshness** is a ladder by age in whole years (`now` year minus
//! the evidence year):
//!
//! | age | exact date | year only |
//! |---|---|---|
//! | in the future | 0.4 | 0.4 |
//! | 0 | 0.9 | 0.85 |
//! | 1 | 0.8 | 0.8 |
//! | 2 | 0.65 | 0.65 |
//! | 3–5 | 0.45 | 0.45 |
//! | older | 0.25 | 0.25 |
//! | no date | 0.5 | 0.5 |
//!
//! The year comes from the page's publication date (an exact date), else a
//! full date (`2024-03-05`, `2024年3月5日`) in the title or passage (exact),
//! else the years 1990…now+1 in the title, passage and URL path (year
//! only; a year of this or last year wins, else the latest), ignoring
//! historical mentions ("since 2015", "2015年以来", "自2015年起"). Recency
//! words (latest, recent, breaking, today, 最新, 刚刚, 今日, 本周, 本月 …)
//! add 0.1, capped at 1.
//!
//! **Original** is the search's own 0–1 relevance for the page (fusion's
//! intent score), 0.5 when unknown.
//!
//! **Cross-validation** ([`SelectionAbsorption::cross_validate`]) grades
//! how far the run's pages agree: over the run's readable fetched pages,
//! `match` is the share that support the constraint and `domains` the
//! distinct non-SERP registrable domains among those supporting pages:
//!
//! | level | match | domains | score |
//! |---|---|---|---|
//! | strong | ≥ 0.8 | ≥ 3 | 0.9 |
//! | moderate | ≥ 0.6 | ≥ 2 | 0.7 |
//! | weak | ≥ 0.4 | any | 0.5 |
//! | minimal | below | any | 0.3 |
//! | insufficient | fewer than 2 pages | | 0.3 |
//!
//! (Counting pages that pass the ledger's support rule, rather than result
//! snippets that share any query word, and only their domains, keeps a
//! constraint that one site alone backs from reading as corroborated.) In
//! high-stakes mode ([`SelectionAbsorption::high_stakes`]) a strong level
//! adds 0.05 and a moderate one 0.02 to each non-SERP piece of evidence
//! (the consensus boost).

use std::sync::LazyLock;

use crate::ledger::{CrossValidation, EvidenceScore, LedgerConstraint, ScoreComponent};
use chrono::Datelike;
use ferret_core::authority::{authority, registrable_domain};
use ferret_core::freshness::parse_date;
use regex::Regex;
use url::Url;

use super::serp::is_serp_or_jump_url;
use super::signals::{Absorption, absorption, round3};
use super::{EvidenceScorer, PageSupport, ScoreInput};

/// The scorer's name.
pub const NAME: &str = "selection_x_absorption_v2.2";

/// Weight of selection.
pub const SELECTION_WEIGHT: f64 = 0.40;
/// Weight of absorption.
pub const ABSORPTION_WEIGHT: f64 = 0.35;
/// Weight of freshness.
pub const FRESHNESS_WEIGHT: f64 = 0.15;
/// Weight of the search's own score.
pub const ORIGINAL_WEIGHT: f64 = 0.10;
/// The search's score when unknown.
pub const DEFAULT_ORIGINAL: f64 = 0.5;

/// Authority of a SERP or jump URL.
pub const SERP_AUTHORITY: f64 = 0.12;
/// Selection cap of a SERP or jump URL.
pub const SERP_SELECTION_CAP: f64 = 0.15;
/// Bonus per path kind.
pub const PATH_BONUS: f64 = 0.05;
/// Path fragments that earn [`PATH_BONUS`]: documentation, then papers.
pub const PATH_BONUSES: &[(&str, &[&str])] = &[
    ("documentation path", &["/docs/", "/documentation/"]),
    ("paper path", &["/paper/", "/arxiv/", "/abs/"]),
];

/// Freshness by age in years: `(max age, exact-date score, year-only score)`.
pub const FRESHNESS_LADDER: &[(i32, f64, f64)] = &[
    (0, 0.9, 0.85),
    (1, 0.8, 0.8),
    (2, 0.65, 0.65),
    (5, 0.45, 0.45),
];
/// Freshness of evidence older than the ladder.
pub const FRESHNESS_OLDER: f64 = 0.25;
/// Freshness of a year in the future.
pub const FRESHNESS_FUTURE: f64 = 0.4;
/// Freshness without any date.
pub const FRESHNESS_UNKNOWN: f64 = 0.5;
/// What recency words add.
pub const RECENCY_BONUS: f64 = 0.1;
/// Recency words (case-insensitive; English as whole words).
pub const RECENCY_WORDS: &str =
    r"最新|刚刚|今日|本周|本月|\b(?:latest|recent|recently|breaking|just now|today)\b";

/// Cross-validation levels: `(level, min match share, min domains, score)`.
pub const CROSS_LEVELS: &[(&str, f64, usize, f64)] = &[
    ("strong", 0.8, 3, 0.9),
    ("moderate", 0.6, 2, 0.7),
    ("weak", 0.4, 0, 0.5),
    ("minimal", 0.0, 0, 0.3),
];
/// Score when fewer than two pages were read.
pub const CROSS_INSUFFICIENT: f64 = 0.3;
/// High-stakes boosts: strong, moderate.
pub const HIGH_STAKES_BOOST: (f64, f64) = (0.05, 0.02);

static FULL_DATE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(20\d{2})[年/\-.](\d{1,2})[月/\-.](\d{1,2})").ok());
static HISTORICAL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:自|从)?(?:19|20)\d{2}\s*年?\s*(?:以来|起|至今|至|到现在|之前|以前)|\bsince\s+(?:19|20)\d{2}\b",
    )
    .ok()
});
static YEAR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?:^|[^0-9])((?:19|20)\d{2})(?:[^0-9]|$)").ok());
static URL_YEAR: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"/(20\d{2})(?:/|-)").ok());
static RECENCY: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!("(?i){RECENCY_WORDS}")).ok());

/// The Selection × Absorption scorer (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SelectionAbsorption {
    high_stakes: bool,
}

/// The authority part of selection.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceAuthority {
    /// The authority, 0–1.
    pub score: f64,
    /// Whether the URL is a SERP or jump URL.
    pub serp: bool,
    /// How it was reached.
    pub reason: String,
}

/// A freshness judgement.
#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceFreshness {
    /// 0–1.
    pub score: f64,
    /// How it was reached.
    pub reason: String,
}

impl SelectionAbsorption {
    /// The default scorer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Turns the high-stakes consensus boost on or off.
    pub fn high_stakes(mut self, on: bool) -> Self {
        self.high_stakes = on;
        self
    }

    /// Whether the high-stakes boost is on.
    pub fn is_high_stakes(&self) -> bool {
        self.high_stakes
    }
}

/// The authority part of selection for `url` (see the module docs).
pub fn source_authority(url: &str) -> SourceAuthority {
    if is_serp_or_jump_url(url) {
        return SourceAuthority {
            score: SERP_AUTHORITY,
            serp: true,
            reason: "search-result page or jump URL (never evidence)".to_string(),
        };
    }
    let parsed = Url::parse(url).ok();
    let host = parsed.as_ref().and_then(|u| u.host_str()).unwrap_or("");
    let base = authority(host);
    let mut score = base.score;
    let mut reason = format!("{} {}", base.rule, base.score);
    let path = parsed
        .as_ref()
        .map(|u| u.path().to_ascii_lowercase())
        .unwrap_or_default();
    for (label, fragments) in PATH_BONUSES {
        if fragments.iter().any(|f| path.contains(f)) {
            score = (score + PATH_BONUS).min(1.0);
            reason.push_str(&format!(" + {PATH_BONUS} {label}"));
        }
    }
    SourceAuthority {
        score: round3(score),
        serp: false,
        reason,
    }
}

fn ladder(age: i32, exact: bool) -> f64 {
    if age < 0 {
        return FRESHNESS_FUTURE;
    }
    FRESHNESS_LADDER
        .iter()
        .find(|(max, _, _)| age <= *max)
        .map_or(FRESHNESS_OLDER, |&(_, e, y)| if exact { e } else { y })
}

/// The freshness of evidence with `published_at`, `title`, `passage`
/// and `url`, as of year `now_year` (see the module docs).
pub fn evidence_freshness(
    published_at: Option<&str>,
    title: &str,
    passage: &str,
    url: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> EvidenceFreshness {
    let now_year = now.year();
    let combined = format!("{title} {passage}");
    let (mut score, mut reason) = if let Some(date) = published_at.and_then(|p| parse_date(p, now))
    {
        let year = date.year();
        (
            ladder(now_year - year, true),
            format!(
                "published {} ({} years old)",
                date.format("%Y-%m-%d"),
                now_year - year
            ),
        )
    } else if let Some(year) = FULL_DATE.as_ref().and_then(|r| {
        r.captures_iter(&combined)
            .filter_map(|c| c.get(1)?.as_str().parse::<i32>().ok())
            .filter(|y| (1990..=now_year + 1).contains(y))
            .max()
    }) {
        (
            ladder(now_year - year, true),
            format!("full date in the text, {year}"),
        )
    } else {
        let cleaned = HISTORICAL.as_ref().map_or_else(
            || combined.clone(),
            |r| r.replace_all(&combined, " ").into_owned(),
        );
        let mut years: Vec<i32> = YEAR
            .as_ref()
            .map(|r| {
                r.captures_iter(&cleaned)
                    .filter_map(|c| c.get(1)?.as_str().parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        let path = Url::parse(url)
            .map(|u| u.path().to_string())
            .unwrap_or_default();
        let url_year: Option<i32> = URL_YEAR
            .as_ref()
            .and_then(|r| r.captures(&path))
            .and_then(|c| c.get(1)?.as_str().parse().ok());
        years.extend(url_year);
        years.retain(|y| (1990..=now_year + 1).contains(y));
        let recent = years.iter().copied().filter(|y| *y >= now_year - 1).max();
        match recent.or_else(|| years.iter().copied().max()) {
            Some(year) => {
                let mut reason = format!("year {year} mentioned");
                if url_year == Some(year) {
                    reason.push_str(" (URL year)");
                }
                (ladder(now_year - year, false), reason)
            }
            None => (FRESHNESS_UNKNOWN, "no date".to_string()),
        }
    };
    if RECENCY.as_ref().is_some_and(|r| r.is_match(&combined)) {
        score = (score + RECENCY_BONUS).min(1.0);
        reason.push_str(" + recency words");
    }
    EvidenceFreshness {
        score: round3(score),
        reason,
    }
}

/// The search's own score, clamped to 0–1 ([`DEFAULT_ORIGINAL`] when
/// unknown), with how it was reached.
fn original_part(original_score: Option<f64>) -> (f64, String) {
    match original_score {
        Some(s) if s.is_finite() => (
            s.clamp(0.0, 1.0),
            "the search's relevance score".to_string(),
        ),
        _ => (DEFAULT_ORIGINAL, "unknown (default)".to_string()),
    }
}

/// The absorption component's detail: the signals found, the length bonus
/// and the Q&A penalty, or "base only".
fn absorption_detail(absorbed: &Absorption) -> String {
    let mut parts: Vec<&str> = absorbed.signals.iter().map(String::as_str).collect();
    if absorbed.long_enough {
        parts.push("length");
    }
    if absorbed.qa_format {
        parts.push("Q&A format (−0.08)");
    }
    if parts.is_empty() {
        "base only".to_string()
    } else {
        parts.join(", ")
    }
}

/// The share of `terms` in `matched`, 0 with no terms.
fn coverage(terms: &[String], matched: &[String]) -> f64 {
    if terms.is_empty() {
        0.0
    } else {
        matched.len() as f64 / terms.len() as f64
    }
}

impl EvidenceScorer for SelectionAbsorption {
    fn name(&self) -> &str {
        NAME
    }

    fn score(&self, input: &ScoreInput<'_>) -> EvidenceScore {
        let auth = source_authority(input.url);
        let selection = if auth.serp {
            auth.score.min(SERP_SELECTION_CAP)
        } else {
            auth.score
        };
        let absorbed = absorption(input.passage, input.title);
        let fresh = evidence_freshness(
            input.published_at,
            input.title,
            input.passage,
            input.url,
            input.now,
        );
        let (original, original_detail) = original_part(input.original_score);
        let final_score = SELECTION_WEIGHT * selection
            + ABSORPTION_WEIGHT * absorbed.score
            + FRESHNESS_WEIGHT * fresh.score
            + ORIGINAL_WEIGHT * original;
        let signals = absorption_detail(&absorbed);
        EvidenceScore {
            scorer: NAME.to_string(),
            score: round3(final_score.clamp(0.0, 1.0)),
            components: vec![
                ScoreComponent::weighted(
                    "selection",
                    round3(selection),
                    SELECTION_WEIGHT,
                    auth.reason.clone(),
                ),
                ScoreComponent::weighted("absorption", absorbed.score, ABSORPTION_WEIGHT, signals),
                ScoreComponent::weighted("freshness", fresh.score, FRESHNESS_WEIGHT, fresh.reason),
                ScoreComponent::weighted(
                    "original",
                    round3(original),
                    ORIGINAL_WEIGHT,
                    original_detail,
                ),
                ScoreComponent::info("authority", auth.score, auth.reason),
                ScoreComponent::info(
                    "term_coverage",
                    round3(coverage(input.terms, input.matched_terms)),
                    format!(
                        "{} of {} terms on the page",
                        input.matched_terms.len(),
                        input.terms.len()
                    ),
                ),
            ],
        }
    }

    fn cross_validate(
        &self,
        constraint: &LedgerConstraint,
        pages: &[PageSupport<'_>],
    ) -> Option<CrossValidation> {
        let total = pages.len();
        let matching: Vec<&PageSupport<'_>> = pages.iter().filter(|p| p.supports).collect();
        let mut domains: Vec<String> = Vec::new();
        for p in &matching {
            if is_serp_or_jump_url(p.url) {
                continue;
            }
            let host = Url::parse(p.url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_default();
            let domain = registrable_domain(&host);
            if !domain.is_empty() && !domains.contains(&domain) {
                domains.push(domain);
            }
        }
        if total < 2 {
            return Some(CrossValidation {
                level: "insufficient".to_string(),
                score: CROSS_INSUFFICIENT,
                matching: matching.len(),
                total,
                detail: format!(
                    "only {total} readable page(s); {} cannot be cross-validated",
                    constraint.id
                ),
                domains,
            });
        }
        let share = matching.len() as f64 / total as f64;
        let (level, score) = CROSS_LEVELS
            .iter()
            .find(|(_, min_share, min_domains, _)| {
                share >= *min_share && domains.len() >= *min_domains
            })
            .map_or(("minimal", 0.3), |&(l, _, _, s)| (l, s));
        Some(CrossValidation {
            level: level.to_string(),
            score,
            matching: matching.len(),
            total,
            detail: format!(
                "{} of {total} readable pages support {}, from {} content domain(s)",
                matching.len(),
                constraint.id,
                domains.len()
            ),
            domains,
        })
    }

    fn adjust(&self, score: &mut EvidenceScore, url: &str, cross: &CrossValidation) {
        if !self.high_stakes || is_serp_or_jump_url(url) {
            return;
        }
        let boost = match cross.level.as_str() {
            "strong" => HIGH_STAKES_BOOST.0,
            "moderate" => HIGH_STAKES_BOOST.1,
            _ => 0.0,
        };
        score.score = round3((score.score + boost).min(1.0));
        score.components.push(ScoreComponent::info(
            "consensus_boost",
            boost,
            format!("high stakes: cross-validation {}", cross.level),
        ));
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;

    #[test]
    fn ladder_matches_the_freshness_table() {
        assert_eq!(ladder(0, true), 0.9);
        assert_eq!(ladder(0, false), 0.85);
        assert_eq!(ladder(1, false), 0.8);
        assert_eq!(ladder(2, true), 0.65);
        assert_eq!(ladder(5, true), 0.45);
        assert_eq!(ladder(6, true), 0.25);
        assert_eq!(ladder(-1, true), 0.4);
    }

    #[test]
    fn since_year_is_ignored() {
        let now = Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).unwrap();
        let f = evidence_freshness(
            None,
            "",
            "Prices have doubled since 2015.",
            "https://example.com/a",
            now,
        );
        assert_eq!(f.score, FRESHNESS_UNKNOWN);
        let f = evidence_freshness(
            None,
            "",
            "In 2025 prices doubled since 2015.",
            "https://example.com/a",
            now,
        );
        assert_eq!(f.score, 0.8);
        let f = evidence_freshness(None, "", "nothing", "https://example.com/2026/05/post", now);
        assert_eq!(f.score, 0.85);
    }

    #[test]
    fn path_bonus_and_serp() {
        let docs = source_authority("https://example.com/docs/intro");
        assert!((docs.score - 0.45).abs() < 1e-9, "{docs:?}");
        let serp = source_authority("https://www.google.com/search?q=x");
        assert!(serp.serp);
        assert_eq!(serp.score, SERP_AUTHORITY);
    }
}
