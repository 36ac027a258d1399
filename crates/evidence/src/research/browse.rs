//! `ferret research browse-plan`: explicit browser actions for the
//! candidates fetching could not fully verify — the `ferret.browse-plan.v1`
//! envelope.
//!
//! No action is planned when the ledger is ready and every candidate was a
//! strong plain fetch. Otherwise each candidate gets the reasons that apply
//! to it (none: no action):
//!
//! | reason | when |
//! |---|---|
//! | `naver-shell-or-iframe-risk` | the URL is on `naver.com`, or the question points at Naver |
//! | `dynamic-page-state` | the page needs a browser (empty JavaScript shell, `browser_required`, a challenge the browser had to pass), or the question names dynamic state (JavaScript, tabs, filters, pagination) |
//! | `table-list-ordinal-requires-dom` | the question asks for a table, list, ranking or ordinal and constraints are pending |
//! | `official-page-fetch-empty` | the question asks for official sources and the fetch was weak or empty |
//! | `fetch-insufficient-or-constraints-pending` | the next step is browsing (or constraints are pending) and the fetch was weak or empty |
//!
//! "Weak or empty" means: not ok, a verdict other than `strong_ok`,
//! a page that needs a browser, or no text. An action's priority is `high`
//! for Naver, dynamic-state and empty-official reasons, `medium` for
//! tables, else `low`; actions are ordered by priority, then rank, and at
//! most [`DEFAULT_MAX_ACTIONS`] (5) are kept — how many were cut is
//! reported. Each action carries the `ferret` commands that perform it and
//! what to verify afterwards (the pending constraints).

use serde::{Deserialize, Serialize};
use url::Url;

use super::enrich::{EnrichedCandidate, Enrichment, NextStepKind};
use super::hints::{SourceHint, plan_hints};
use crate::ledger::LedgerStatus;
use ferret_core::plan::Plan;

/// The schema name of [`BrowsePlan`].
pub const BROWSE_PLAN_SCHEMA: &str = "ferret.browse-plan.v1";
/// The most actions planned by default.
pub const DEFAULT_MAX_ACTIONS: usize = 5;

/// Why a candidate needs browser work (the reason names are part of the
/// envelope).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BrowseReason {
    /// A Naver page: content sits in iframes behind a shell.
    NaverShellOrIframeRisk,
    /// The page's content depends on script or interaction.
    DynamicPageState,
    /// The answer is a table row, list item or ordinal position.
    TableListOrdinalRequiresDom,
    /// An official page fetched weak or empty.
    OfficialPageFetchEmpty,
    /// The fetch was weak or empty while constraints are pending.
    FetchInsufficientOrConstraintsPending,
}

impl BrowseReason {
    /// The name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            BrowseReason::NaverShellOrIframeRisk => "naver-shell-or-iframe-risk",
            BrowseReason::DynamicPageState => "dynamic-page-state",
            BrowseReason::TableListOrdinalRequiresDom => "table-list-ordinal-requires-dom",
            BrowseReason::OfficialPageFetchEmpty => "official-page-fetch-empty",
            BrowseReason::FetchInsufficientOrConstraintsPending => {
                "fetch-insufficient-or-constraints-pending"
            }
        }
    }
}

/// How urgent an action is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Naver shells, dynamic state, empty official pages.
    High,
    /// Tables, lists, ordinals.
    Medium,
    /// Anything else.
    Low,
}

/// What to check after the browser work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowseVerify {
    /// Mandatory constraints still pending.
    pub pending_constraint_ids: Vec<String>,
    /// Constraints this candidate already supports.
    pub supported_constraint_ids: Vec<String>,
    /// The ledger's status before browsing.
    pub ledger_status_before_browse: LedgerStatus,
}

/// One browser action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowseAction {
    /// The candidate's rank.
    pub rank: u32,
    /// The page to open.
    pub url: String,
    /// Its title.
    pub title: String,
    /// How urgent.
    pub priority: Priority,
    /// Why.
    pub reasons: Vec<BrowseReason>,
    /// `ferret` commands that perform it.
    pub commands: Vec<String>,
    /// What to check afterwards.
    pub verify: BrowseVerify,
}

/// The plan in brief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowseSummary {
    /// Actions planned.
    pub action_count: usize,
    /// Actions cut by the cap.
    pub omitted_actions: usize,
    /// Every reason among the actions.
    pub reasons: Vec<BrowseReason>,
    /// Pending mandatory constraints.
    pub pending: Vec<String>,
    /// The ledger's status before browsing.
    pub ledger_status_before_browse: LedgerStatus,
    /// The question's source hints.
    pub source_hints: Vec<SourceHint>,
}

/// The `ferret.browse-plan.v1` envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowsePlan {
    /// Always [`BROWSE_PLAN_SCHEMA`].
    pub schema: String,
    /// Whether any browser work is needed.
    pub needs_browse: bool,
    /// The plan in brief.
    pub summary: BrowseSummary,
    /// The actions, most urgent first.
    pub actions: Vec<BrowseAction>,
}

/// Options of [`browse_plan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowsePlanOptions {
    /// The most actions (default 5).
    pub max_actions: usize,
}

impl Default for BrowsePlanOptions {
    fn default() -> Self {
        BrowsePlanOptions {
            max_actions: DEFAULT_MAX_ACTIONS,
        }
    }
}

fn is_naver(url: &str) -> bool {
    Url::parse(url).is_ok_and(|u| {
        u.host_str().is_some_and(|h| {
            let h = h.to_ascii_lowercase();
            h == "naver.com" || h.ends_with(".naver.com")
        })
    })
}

fn reasons_for(
    hints: &[SourceHint],
    enrichment: &Enrichment,
    candidate: &EnrichedCandidate,
    pending: &[String],
) -> Vec<BrowseReason> {
    let mut reasons = Vec::new();
    let weak = candidate.is_weak_or_empty();
    if is_naver(&candidate.url)
        || is_naver(&candidate.final_url)
        || hints.contains(&SourceHint::Naver)
    {
        reasons.push(BrowseReason::NaverShellOrIframeRisk);
    }
    if candidate.chrome_required || hints.contains(&SourceHint::Dynamic) {
        reasons.push(BrowseReason::DynamicPageState);
    }
    if hints.contains(&SourceHint::Structured) && !pending.is_empty() {
        reasons.push(BrowseReason::TableListOrdinalRequiresDom);
    }
    if hints.contains(&SourceHint::Official) && weak {
        reasons.push(BrowseReason::OfficialPageFetchEmpty);
    }
    if (enrichment.next_step.kind == NextStepKind::BrowseCandidates || !pending.is_empty()) && weak
    {
        reasons.push(BrowseReason::FetchInsufficientOrConstraintsPending);
    }
    reasons
}

fn priority(reasons: &[BrowseReason]) -> Priority {
    if reasons.iter().any(|r| {
        matches!(
            r,
            BrowseReason::NaverShellOrIframeRisk
                | BrowseReason::DynamicPageState
                | BrowseReason::OfficialPageFetchEmpty
        )
    }) {
        Priority::High
    } else if reasons.contains(&BrowseReason::TableListOrdinalRequiresDom) {
        Priority::Medium
    } else {
        Priority::Low
    }
}

/// A URL as one shell word (double-quoted, with `"`, `\`, `$` and `` ` ``
/// escaped).
fn shell_quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The commands for `url` and `reasons`, without repeats.
fn commands(url: &str, reasons: &[BrowseReason]) -> Vec<String> {
    let u = shell_quote(url);
    let mut out: Vec<String> = vec![format!("ferret browser fetch {u} --json")];
    for reason in reasons {
        let extra: Vec<String> = match reason {
            BrowseReason::NaverShellOrIframeRisk => {
                vec![format!("ferret browser fetch {u} --html --json")]
            }
            BrowseReason::DynamicPageState => vec![format!("ferret browser api {u} --json")],
            BrowseReason::TableListOrdinalRequiresDom => vec![
                format!("ferret browser fetch {u} --html --json"),
                format!("ferret extract {u} --schema SCHEMA.json --json"),
            ],
            BrowseReason::OfficialPageFetchEmpty => {
                vec![format!("ferret verify {u} --browser required --json")]
            }
            BrowseReason::FetchInsufficientOrConstraintsPending => {
                vec![format!("ferret fetch {u} --browser required --json")]
            }
        };
        for c in extra {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// Whether `url` names a local-index document (`https://local.invalid/…`).
fn is_local_document(url: &str) -> bool {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(|h| h == super::enrich::LOCAL_HOST))
        .unwrap_or(false)
}

/// `ferret research browse-plan`: the browser actions `enrichment`
/// calls for (see the module docs).
pub fn browse_plan(
    plan: &Plan,
    enrichment: &Enrichment,
    options: &BrowsePlanOptions,
) -> BrowsePlan {
    let hints = plan_hints(plan);
    let ledger = &enrichment.ledger;
    let pending = ledger.pending.clone();
    let complete_with_strong_fetch = ledger.ready
        && enrichment
            .candidates
            .iter()
            .all(EnrichedCandidate::is_strong_fetch);
    let mut actions: Vec<BrowseAction> = if complete_with_strong_fetch {
        Vec::new()
    } else {
        enrichment
            .candidates
            .iter()
            // A local-index document is read from disk: a browser cannot
            // fetch it any better.
            .filter(|candidate| !is_local_document(&candidate.url))
            .filter_map(|candidate| {
                let reasons = reasons_for(&hints, enrichment, candidate, &pending);
                if reasons.is_empty() {
                    return None;
                }
                let url = candidate.url.clone();
                Some(BrowseAction {
                    rank: candidate.rank,
                    title: candidate.title.clone(),
                    priority: priority(&reasons),
                    commands: commands(&url, &reasons),
                    verify: BrowseVerify {
                        pending_constraint_ids: pending.clone(),
                        supported_constraint_ids: candidate.constraint_ids.clone(),
                        ledger_status_before_browse: ledger.status,
                    },
                    reasons,
                    url,
                })
            })
            .collect()
    };
    actions.sort_by_key(|a| (a.priority, a.rank));
    let total = actions.len();
    actions.truncate(options.max_actions);
    let mut reasons: Vec<BrowseReason> = Vec::new();
    for r in actions.iter().flat_map(|a| a.reasons.iter()) {
        if !reasons.contains(r) {
            reasons.push(*r);
        }
    }
    BrowsePlan {
        schema: BROWSE_PLAN_SCHEMA.to_string(),
        needs_browse: !actions.is_empty(),
        summary: BrowseSummary {
            action_count: actions.len(),
            omitted_actions: total - actions.len(),
            reasons,
            pending,
            ledger_status_before_browse: ledger.status,
            source_hints: hints,
        },
        actions,
    }
}
