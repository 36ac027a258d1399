//! Rounds of a research run: what a round did, and the follow-up queries
//! the next round sends.
//!
//! A run reads in rounds. Round 1 searches the question and the plan's
//! focused queries (or takes the caller's rows) and fetches the top
//! candidates. While the decision is not `sufficient`, rounds remain
//! ([`super::ResearchOptions::rounds`], default 3) and the run's deadline
//! has not passed, the next round asks again — but only about what is
//! missing: for every mandatory constraint still pending or contested, a
//! *focused* query (the anchor with the constraint's facts, quoted), for a
//! contested one a *disconfirm* query too, and, when an engine can filter
//! by site, a *site* query to each source the question points at (Naver
//! for Naver cues, the plan's boosted domains for official sources). Rows
//! the run has already read or passed over are never read again; a round
//! with nothing new to read ends the run. Every page read in any round is
//! judged again into one ledger, so the last round's ledger is the run's.

use ferret_core::plan::focused::DISCONFIRM_CLAIM;
use ferret_core::plan::{FocusedPurpose, Plan};
use serde::{Deserialize, Serialize};

use super::decision::EvidenceStatus;
use super::hints::{SourceHint, plan_hints};
use crate::ledger::{ConstraintStatus, Ledger};

/// The default number of rounds of a run.
pub const DEFAULT_ROUNDS: usize = 3;
/// The most rounds a run may ask for.
pub const MAX_ROUNDS: usize = 10;
/// The most follow-up queries one round sends.
pub const MAX_FOLLOW_UPS: usize = 6;

/// The host searched for questions that point at Naver.
const NAVER_SITE: &str = "blog.naver.com";

/// A query a later round sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FollowUp {
    /// The query text.
    pub text: String,
    /// `verification` (focused on the constraint), `disconfirm`, or
    /// `source-restricted-discovery` (a site query).
    pub purpose: FocusedPurpose,
    /// The constraint it looks for.
    pub constraint: String,
    /// The site it is restricted to (a `site` query).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
}

/// A constraint whose status a round changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintChange {
    /// The constraint id.
    pub id: String,
    /// Its status before the round (`None` in round 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<ConstraintStatus>,
    /// Its status after the round.
    pub to: ConstraintStatus,
}

/// What one round did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundReport {
    /// 1 for the first round.
    pub round: usize,
    /// The queries it sent (none for the caller's rows).
    #[serde(default)]
    pub queries: Vec<String>,
    /// The pages it fetched (final URLs), in read order.
    #[serde(default)]
    pub pages_read: Vec<String>,
    /// Constraints whose status it changed.
    #[serde(default)]
    pub changed: Vec<ConstraintChange>,
    /// The decision after it.
    pub status: EvidenceStatus,
}

/// Why the run stopped before its last round, when it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The decision is `sufficient`.
    Sufficient,
    /// Every round asked for ran.
    RoundsUsed,
    /// The run's deadline passed.
    Deadline,
    /// The next round had no row it had not read and no query left to send.
    NothingNew,
}

/// The statuses that changed between two ledgers (`before` `None`: every
/// constraint that is not pending).
pub fn changes(before: Option<&Ledger>, after: &Ledger) -> Vec<ConstraintChange> {
    after
        .constraints
        .iter()
        .filter_map(|c| {
            let from = before.and_then(|b| b.constraints.iter().find(|o| o.id == c.id));
            let from = from.map(|o| o.status);
            let changed = match from {
                Some(old) => old != c.status,
                None => c.status != ConstraintStatus::Pending,
            };
            changed.then(|| ConstraintChange {
                id: c.id.clone(),
                from,
                to: c.status,
            })
        })
        .collect()
}

/// The next round's queries for what `ledger` still lacks, leaving out
/// any in `sent` (case-insensitively) and site queries unless
/// `site_filter` (an engine can restrict to a site). At most
/// [`MAX_FOLLOW_UPS`], contested constraints first.
pub fn follow_up_queries(
    plan: &Plan,
    ledger: &Ledger,
    site_filter: bool,
    sent: &[String],
) -> Vec<FollowUp> {
    let sites = if site_filter {
        source_sites(plan)
    } else {
        Vec::new()
    };
    let lang = plan.language.as_deref().unwrap_or("en");
    let mut open: Vec<_> = ledger
        .constraints
        .iter()
        .filter(|c| c.mandatory && !c.status.is_supported())
        .collect();
    open.sort_by_key(|c| c.status != ConstraintStatus::Contested);
    let mut out: Vec<FollowUp> = Vec::new();
    for c in open {
        let focused = focused_text(plan.anchor.as_deref(), &c.text, &c.facts);
        let mut push = |text: String, purpose, site: Option<String>| {
            let repeat = sent
                .iter()
                .chain(out.iter().filter(|f| f.site == site).map(|f| &f.text))
                .any(|s| s.eq_ignore_ascii_case(&text));
            if !repeat && !text.trim().is_empty() {
                out.push(FollowUp {
                    text,
                    purpose,
                    constraint: c.id.clone(),
                    site,
                });
            }
        };
        push(focused.clone(), FocusedPurpose::Verification, None);
        if c.status == ConstraintStatus::Contested {
            let word = DISCONFIRM_CLAIM
                .pick(lang)
                .first()
                .copied()
                .unwrap_or("false");
            push(
                format!("{focused} {word}"),
                FocusedPurpose::Disconfirm,
                None,
            );
        }
        for site in &sites {
            push(
                focused.clone(),
                FocusedPurpose::SourceRestrictedDiscovery,
                Some(site.clone()),
            );
        }
    }
    out.truncate(MAX_FOLLOW_UPS);
    out
}

/// The anchor, then the constraint's text with its multi-word facts
/// quoted (so an engine keeps "J.J. Abrams" or "30,000 km" whole).
fn focused_text(anchor: Option<&str>, text: &str, facts: &[String]) -> String {
    let mut body = text.to_string();
    for fact in facts.iter().filter(|f| f.contains(' ')) {
        if body.contains(fact.as_str()) && !body.contains(&format!("\"{fact}\"")) {
            body = body.replacen(fact.as_str(), &format!("\"{fact}\""), 1);
        }
    }
    match anchor.filter(|a| !a.is_empty() && !text.to_lowercase().contains(&a.to_lowercase())) {
        Some(anchor) => format!("{anchor} {body}"),
        None => body,
    }
}

/// The hosts a question's source hints point at.
fn source_sites(plan: &Plan) -> Vec<String> {
    let mut sites = Vec::new();
    for hint in plan_hints(plan) {
        match hint {
            SourceHint::Naver => sites.push(NAVER_SITE.to_string()),
            SourceHint::Official => sites.extend(plan.domain_boost.iter().take(2).cloned()),
            SourceHint::Structured | SourceHint::Dynamic => {}
        }
    }
    sites.dedup();
    sites
}
