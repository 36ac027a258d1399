//! The research loop (the `search` and `research` commands): given
//! a question, not just links but a decision about the evidence — what
//! fetched original pages support, what is still missing, and what to do
//! next. The `ferret.research.v1` envelope ([`ResearchReport`]).
//!
//! ```text
//! question ─► plan ─► search (engines, or the caller's rows) ─► enrich: fetch top candidates
//!          ─► ledger (fetched text only) ─► browse plan ─► deep escalation (only if not ready)
//!          ─► evidence_status: sufficient | partial | browse-needed | insufficient
//! ```
//!
//! Each step is also callable on its own, reading and writing the same
//! JSON, as the research subcommands do — so a host can run any
//! step itself:
//!
//! | step | function | in → out |
//! |---|---|---|
//! | `plan` | [`plan`] / [`Research::plan`] | question → `ferret.plan.v1` |
//! | `normalize-results` | [`normalize_results`] | rows JSON (+ backend label) → `ferret.results.v1` |
//! | `enrich-fetch` | [`enrich_fetch`] / [`Research::enrich`] | plan + results → `ferret.enrichment.v1` (browser `never` by default) |
//! | `browse-plan` | [`browse_plan`] | plan + enrichment → `ferret.browse-plan.v1` |
//! | decision | [`decide`] | ledger + deep + browse plan → [`EvidenceStatus`] |
//!
//! [`Research::run`] chains them: plan with the searcher's planner; search
//! the question and the plan's focused queries (discovery, verification,
//! disconfirm …) with the [`Searcher`]; fetch the top `max_results`
//! (default 5) candidates concurrently with the run's browser mode
//! (default `auto`); build the ledger; plan browser work; run deep
//! escalation only when the ledger is not ready and `deep` is on; decide.
//! [`Research::run_with_results`] does the same from the caller's rows
//! (`--stdin-results`), searching nothing.
//!
//! In the report, `enrichment.candidates` carries the candidate
//! fields (`rank, url, title, verdict, ok, source, text_excerpt`) and more;
//! `enrichment.ledger` is the full ledger with quotes, top-level `ledger`
//! its summary; `escalation` holds up to three browse actions,
//! `browse_plan` all of them (≤ 5); `deep` is `null` unless deep
//! escalation ran.

pub mod browse;
pub mod candidates;
mod copies;
pub mod decision;
pub mod deep;
pub mod enrich;
pub mod hints;
pub mod pages;
pub mod rounds;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::ledger::LedgerSummary;
use chrono::{DateTime, Utc};
use ferret_core::plan::{HeuristicPlanner, Plan, PlanError, PlanOptions};
use ferret_core::response::{DroppedRow, EngineReport};
use ferret_core::search::{SearchError, SearchOptions, Searcher};
use serde::{Deserialize, Serialize};

use crate::budget::{Deadline, PageBudget};
use crate::fetch::{BrowserMode, Fetcher};
use crate::scorer::{EvidenceScorer, SelectionAbsorption};

pub use browse::{
    BROWSE_PLAN_SCHEMA, BrowseAction, BrowsePlan, BrowsePlanOptions, BrowseReason, BrowseSummary,
    BrowseVerify, DEFAULT_MAX_ACTIONS, Priority, browse_plan,
};
pub use candidates::{NormalizedResults, RESULTS_SCHEMA, ResultRow, normalize_results};
pub use decision::{EvidenceStatus, caveats, decide};
pub use deep::{DeepEscalation, DeepResult, deep_prompt};
pub use enrich::{
    DEFAULT_CONCURRENCY, DEFAULT_MAX_RESULTS, DEFAULT_PAGE_TIMEOUT, ENRICHMENT_SCHEMA,
    EnrichOptions, EnrichedCandidate, Enrichment, FetchPolicy, LocalDocuments, NextStep,
    NextStepKind, ReadFrom, SkipReason, SkippedCandidate, enrich_fetch,
};
pub use hints::SourceHint;
pub use pages::PageSource;
pub use rounds::{
    ConstraintChange, DEFAULT_ROUNDS, FollowUp, MAX_ROUNDS, RoundReport, StopReason,
    follow_up_queries,
};

/// The schema name of [`ResearchReport`].
pub const RESEARCH_SCHEMA: &str = "ferret.research.v1";
/// Browse actions in the report's `escalation` (up to three).
pub const ESCALATION_ACTIONS: usize = 3;

/// Why a research run (or step) could not run. Fetch failures are never
/// errors: they are verdicts on candidates.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResearchError {
    /// The question could not be planned.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The search could not run (a bad search option, an unknown engine).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// An option is out of range or cannot be honoured.
    #[error("invalid research option {option}: {reason}")]
    InvalidOption {
        /// The option.
        option: &'static str,
        /// What is wrong and what to do.
        reason: String,
    },
    /// An input document does not fit its schema.
    #[error("invalid {what}: {reason}")]
    InvalidInput {
        /// Which input.
        what: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// [`Research::run`] was called without a searcher.
    #[error(
        "no searcher to find candidates with: build the research with Research::builder(..).searcher(..), or pass result rows with run_with_results"
    )]
    NoSearcher,
}

/// The `research plan` step: the question rewritten into constraints,
/// focused queries (with a disconfirm query when it has a claim), an
/// anchor and rivals, with the heuristic planner.
pub fn plan(question: &str) -> Result<Plan, ResearchError> {
    plan_with(question, &PlanOptions::default())
}

/// [`plan`] with planning options (e.g. a fixed "now").
pub fn plan_with(question: &str, options: &PlanOptions) -> Result<Plan, ResearchError> {
    Ok(HeuristicPlanner::new().plan_sync(question, options)?)
}

/// Options of a research run: the enrich-fetch step's options (with the
/// browser `auto` by default, where the step alone defaults to `never`),
/// plus what only a whole run has.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ResearchOptions {
    /// The enrich-fetch step: browser mode (default `auto`), candidates to
    /// fetch (1–50, default 5), fetches in flight (1–16, default 5), full
    /// text, highlight budget, citations, gap ledger and "now" (for
    /// planning, freshness and staleness).
    pub enrich: EnrichOptions,
    /// Run deep escalation when the ledger is not ready (needs
    /// [`ResearchBuilder::deep`]).
    pub deep: bool,
    /// The most browse actions (default 5).
    pub max_actions: usize,
    /// Options of the search step (engines, mode, deadline, goggle …); its
    /// sub-queries are set by the run.
    pub search: SearchOptions,
    /// Rounds of search → fetch → judge while the decision is not
    /// `sufficient` (1–[`MAX_ROUNDS`], default [`DEFAULT_ROUNDS`]; 1 is a
    /// single pass).
    pub rounds: usize,
    /// No round starts after this much time from the run's start, and no
    /// page read runs past it: a page still being read then is reported as
    /// a `timeout` and the decision is made about the others (`None`: only
    /// the rounds and the page timeout bound it).
    pub deadline: Option<Duration>,
}

impl Default for ResearchOptions {
    fn default() -> Self {
        ResearchOptions {
            enrich: EnrichOptions::default().with_browser(BrowserMode::Auto),
            deep: false,
            max_actions: DEFAULT_MAX_ACTIONS,
            search: SearchOptions::default(),
            rounds: DEFAULT_ROUNDS,
            deadline: None,
        }
    }
}

impl ResearchOptions {
    /// Default options (browser `auto`, 5 candidates, no deep escalation).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the browser mode.
    pub fn with_browser(mut self, mode: BrowserMode) -> Self {
        self.enrich.browser = mode;
        self
    }

    /// Sets how many candidates are fetched.
    pub fn with_max_results(mut self, n: usize) -> Self {
        self.enrich.max_results = n;
        self
    }

    /// Sets how many fetches run at once.
    pub fn with_concurrency(mut self, n: usize) -> Self {
        self.enrich.concurrency = n;
        self
    }

    /// Turns deep escalation on or off.
    pub fn with_deep(mut self, on: bool) -> Self {
        self.deep = on;
        self
    }

    /// Keeps readable pages' full text.
    pub fn with_text(mut self, include: bool) -> Self {
        self.enrich.include_text = include;
        self
    }

    /// Fixes "now".
    pub fn with_now(mut self, now: DateTime<Utc>) -> Self {
        self.enrich.now = Some(now);
        self
    }

    /// Sets the search step's options.
    pub fn with_search(mut self, search: SearchOptions) -> Self {
        self.search = search;
        self
    }

    /// Sets the number of rounds (1: one pass).
    pub fn with_rounds(mut self, rounds: usize) -> Self {
        self.rounds = rounds;
        self
    }

    /// Starts no round, and runs no page read, past `deadline` from the
    /// run's start.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Sets the wall-clock time one page read may take
    /// ([`EnrichOptions::page_timeout`]).
    pub fn with_page_timeout(mut self, timeout: Duration) -> Self {
        self.enrich.page_timeout = timeout;
        self
    }

    /// Sets what one page may cost to judge
    /// ([`EnrichOptions::page_budget`]).
    pub fn with_page_budget(mut self, budget: PageBudget) -> Self {
        self.enrich.page_budget = budget;
        self
    }
}

/// How the candidates were found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchSummary {
    /// `ferret-search`, or the rows' backend label (`rows` by default).
    pub backend: String,
    /// The queries sent to the engines (empty for rows).
    pub sub_queries: Vec<String>,
    /// One report per engine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<EngineReport>,
    /// Candidates found.
    pub results: usize,
    /// Rows that were not used, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<DroppedRow>,
    /// Things the caller should know.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Time spent searching.
    pub elapsed_ms: u64,
}

/// The report's `escalation`: `{needed, actions (≤ 3)}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowseEscalation {
    /// Browser work is planned.
    pub needed: bool,
    /// The most urgent actions (at most three).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<BrowseAction>,
    /// Actions planned in all (see `browse_plan`).
    pub total_actions: usize,
    /// Every reason among the planned actions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<BrowseReason>,
}

impl BrowseEscalation {
    /// The escalation section of `plan`.
    pub fn from_plan(plan: &BrowsePlan) -> Self {
        BrowseEscalation {
            needed: plan.needs_browse,
            actions: plan
                .actions
                .iter()
                .take(ESCALATION_ACTIONS)
                .cloned()
                .collect(),
            total_actions: plan.actions.len(),
            reasons: plan.summary.reasons.clone(),
        }
    }
}

/// The `ferret.research.v1` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResearchReport {
    /// Always [`RESEARCH_SCHEMA`].
    pub schema: String,
    /// The question.
    pub query: String,
    /// The plan (`ferret.plan.v1`).
    pub plan: Plan,
    /// How the candidates were found.
    pub search: SearchSummary,
    /// The fetched candidates, the full ledger, citations, gaps.
    pub enrichment: Enrichment,
    /// The ledger in brief.
    pub ledger: LedgerSummary,
    /// Browser work (up to three actions).
    pub escalation: BrowseEscalation,
    /// Every planned browser action (up to five).
    pub browse_plan: BrowsePlan,
    /// Deep escalation, when it ran.
    pub deep: Option<DeepResult>,
    /// The decision.
    pub evidence_status: EvidenceStatus,
    /// What the agent should do.
    pub agent_action: String,
    /// What an answer must disclose.
    #[serde(default)]
    pub caveats: Vec<String>,
    /// What each round did, first to last.
    #[serde(default)]
    pub rounds: Vec<RoundReport>,
    /// Why the run stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopReason>,
    /// Wall time of the run.
    pub elapsed_ms: u64,
}

/// Runs research: a page source (the fetcher), optionally a searcher, a
/// scorer, a local reader and deep escalation. Cheap to clone.
#[derive(Clone)]
pub struct Research {
    searcher: Option<Searcher>,
    pages: Arc<dyn PageSource>,
    scorer: Arc<dyn EvidenceScorer>,
    local: Option<Arc<dyn LocalDocuments>>,
    deep: Option<DeepEscalation>,
}

impl fmt::Debug for Research {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Research")
            .field("searcher", &self.searcher.is_some())
            .field("pages", &self.pages.name())
            .field("scorer", &self.scorer.name())
            .field("local", &self.local.is_some())
            .field("deep", &self.deep.as_ref().map(DeepEscalation::vendor))
            .finish()
    }
}

/// Builds a [`Research`].
#[derive(Clone)]
pub struct ResearchBuilder {
    inner: Research,
}

impl fmt::Debug for ResearchBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl ResearchBuilder {
    /// The searcher that finds candidates (e.g. `Ferret::searcher()`).
    pub fn searcher(mut self, searcher: Searcher) -> Self {
        self.inner.searcher = Some(searcher);
        self
    }

    /// The evidence scorer (default [`SelectionAbsorption`]).
    pub fn scorer(mut self, scorer: Arc<dyn EvidenceScorer>) -> Self {
        self.inner.scorer = scorer;
        self
    }

    /// Reads local-index hits from their indexed files.
    pub fn local_documents(mut self, local: Arc<dyn LocalDocuments>) -> Self {
        self.inner.local = Some(local);
        self
    }

    /// Deep escalation (used when a run asks for it and the ledger is not
    /// ready).
    pub fn deep(mut self, deep: DeepEscalation) -> Self {
        self.inner.deep = Some(deep);
        self
    }

    /// The research runner.
    pub fn build(self) -> Research {
        self.inner
    }
}

fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl Research {
    /// A builder around `fetcher` (its guard and browser runtime are the
    /// run's): no searcher, the default scorer, no local reader, no deep
    /// escalation.
    pub fn builder(fetcher: Fetcher) -> ResearchBuilder {
        Self::reading(Arc::new(fetcher))
    }

    /// A builder that reads pages from `pages` instead of a fetcher (see
    /// [`PageSource`]); otherwise as [`Research::builder`].
    pub fn reading(pages: Arc<dyn PageSource>) -> ResearchBuilder {
        ResearchBuilder {
            inner: Research {
                searcher: None,
                pages,
                scorer: Arc::new(SelectionAbsorption::new()),
                local: None,
                deep: None,
            },
        }
    }

    /// Where the run reads its pages.
    pub fn pages(&self) -> &Arc<dyn PageSource> {
        &self.pages
    }

    /// The scorer.
    pub fn scorer(&self) -> &Arc<dyn EvidenceScorer> {
        &self.scorer
    }

    /// Plans `question`: with the searcher's planner (and the search
    /// options' overrides) when there is a searcher, else the heuristic
    /// planner.
    pub async fn plan(
        &self,
        question: &str,
        options: &ResearchOptions,
    ) -> Result<Plan, ResearchError> {
        let mut search = options.search.clone();
        search.sub_queries = None;
        if let Some(now) = options.enrich.now {
            search = search.with_now(now);
        }
        match &self.searcher {
            Some(searcher) => Ok(searcher.plan(question, &search).await?),
            None => {
                let mut plan_options = PlanOptions::new();
                if let Some(now) = options.enrich.now {
                    plan_options = plan_options.with_now(now);
                }
                if let Some(intent) = options.search.intent {
                    plan_options = plan_options.with_intent(intent);
                }
                plan_with(question, &plan_options)
            }
        }
    }

    /// The queries a run sends: the question, then the plan's focused
    /// queries (discovery, verification, disconfirm …), without repeats.
    pub fn search_queries(plan: &Plan) -> Vec<String> {
        let mut out: Vec<String> = vec![plan.query.clone()];
        for q in &plan.focused_queries {
            if !out.iter().any(|o| o.eq_ignore_ascii_case(&q.text)) {
                out.push(q.text.clone());
            }
        }
        out
    }

    /// Searches for candidates with the searcher (see
    /// [`Self::search_queries`]).
    pub async fn search(
        &self,
        plan: &Plan,
        options: &ResearchOptions,
    ) -> Result<(NormalizedResults, SearchSummary), ResearchError> {
        let searcher = self.searcher.as_ref().ok_or(ResearchError::NoSearcher)?;
        let started = Instant::now();
        let queries = Self::search_queries(plan);
        let mut search = options.search.clone().with_sub_queries(queries.clone());
        if let Some(now) = options.enrich.now {
            search = search.with_now(now);
        }
        let response = searcher.search(&plan.query, &search).await?;
        let results = NormalizedResults::from_search(&response);
        let summary = SearchSummary {
            backend: "ferret-search".to_string(),
            sub_queries: response.sub_queries.clone(),
            engines: response.engines.clone(),
            results: results.results.len(),
            dropped: response.dropped.clone(),
            warnings: response.warnings.clone(),
            elapsed_ms: elapsed_ms(started),
        };
        Ok((results, summary))
    }

    /// The `research enrich-fetch` step with this runner's fetcher,
    /// scorer and local reader.
    pub async fn enrich(
        &self,
        plan: &Plan,
        results: &NormalizedResults,
        options: &EnrichOptions,
    ) -> Result<Enrichment, ResearchError> {
        self.enricher().enrich(plan, results, options).await
    }

    /// Deep escalation for `enrichment`: `None` when none is configured or
    /// the ledger is ready (it never runs then).
    pub async fn deep(&self, plan: &Plan, enrichment: &Enrichment) -> Option<DeepResult> {
        if enrichment.ledger.ready {
            return None;
        }
        Some(self.deep.as_ref()?.run(plan, enrichment).await)
    }

    fn check(&self, options: &ResearchOptions) -> Result<(), ResearchError> {
        options.enrich.validate()?;
        if !(1..=MAX_ROUNDS).contains(&options.rounds) {
            return Err(ResearchError::InvalidOption {
                option: "rounds",
                reason: format!("must be 1–{MAX_ROUNDS}, not {}", options.rounds),
            });
        }
        if options.deep && self.deep.is_none() {
            return Err(ResearchError::InvalidOption {
                option: "deep",
                reason: "deep escalation was asked for but no chat client is configured; build with Research::builder(..).deep(DeepEscalation::new(client, vendor))".to_string(),
            });
        }
        Ok(())
    }

    /// The whole loop: plan, search, enrich, browse plan, deep escalation
    /// (only when asked and the ledger is not ready), decision.
    pub async fn run(
        &self,
        question: &str,
        options: &ResearchOptions,
    ) -> Result<ResearchReport, ResearchError> {
        let started = Instant::now();
        self.check(options)?;
        if self.searcher.is_none() {
            return Err(ResearchError::NoSearcher);
        }
        let plan = self.plan(question, options).await?;
        let (results, summary) = self.search(&plan, options).await?;
        self.finish(plan, results, summary, options, started).await
    }

    /// The loop over the caller's candidates (`--stdin-results`): nothing
    /// is searched.
    pub async fn run_with_results(
        &self,
        question: &str,
        results: NormalizedResults,
        options: &ResearchOptions,
    ) -> Result<ResearchReport, ResearchError> {
        let started = Instant::now();
        self.check(options)?;
        let plan = self.plan(question, options).await?;
        let summary = SearchSummary {
            backend: results
                .backend
                .clone()
                .unwrap_or_else(|| ferret_core::rows::ROWS_ENGINE.to_string()),
            sub_queries: Vec::new(),
            engines: Vec::new(),
            results: results.results.len(),
            dropped: results.dropped.clone(),
            warnings: results.warnings.clone(),
            elapsed_ms: 0,
        };
        self.finish(plan, results, summary, options, started).await
    }

    fn enricher(&self) -> enrich::Enricher<'_> {
        enrich::Enricher {
            pages: &self.pages,
            scorer: self.scorer.as_ref(),
            local: self.local.as_ref(),
        }
    }

    /// Whether any engine of the searcher can restrict to a site.
    fn site_filter(&self) -> bool {
        self.searcher
            .as_ref()
            .is_some_and(|s| s.fanout().engines().any(|e| e.capabilities().site_filter))
    }

    /// Searches the follow-up queries (site queries one site at a time)
    /// and adds their unseen hits to `results` and `search`.
    async fn search_follow_ups(
        &self,
        plan: &Plan,
        follow: &[FollowUp],
        results: &mut NormalizedResults,
        search: &mut SearchSummary,
        options: &ResearchOptions,
    ) {
        let Some(searcher) = &self.searcher else {
            return;
        };
        let mut groups: Vec<(Option<&str>, Vec<String>)> = Vec::new();
        for f in follow {
            match groups
                .iter_mut()
                .find(|(site, _)| *site == f.site.as_deref())
            {
                Some((_, queries)) => queries.push(f.text.clone()),
                None => groups.push((f.site.as_deref(), vec![f.text.clone()])),
            }
        }
        for (site, queries) in groups {
            let started = Instant::now();
            let mut opts = options.search.clone().with_sub_queries(queries.clone());
            if let Some(now) = options.enrich.now {
                opts = opts.with_now(now);
            }
            if let Some(site) = site {
                opts = opts.with_site(site);
            }
            match searcher.search(&plan.query, &opts).await {
                Ok(response) => {
                    let found = NormalizedResults::from_search(&response);
                    results.append_new(found.results);
                    search.engines.extend(response.engines);
                    search.dropped.extend(response.dropped);
                    search.warnings.extend(response.warnings);
                }
                Err(e) => search
                    .warnings
                    .push(format!("follow-up search {queries:?} failed: {e}")),
            }
            search.sub_queries.extend(queries);
            search.elapsed_ms += elapsed_ms(started);
        }
        search.results = results.results.len();
    }

    fn out_of_time(options: &ResearchOptions, started: Instant) -> bool {
        options.deadline.is_some_and(|d| started.elapsed() >= d)
    }

    /// Round 1 over `results`, then rounds of follow-up queries while the
    /// decision is not `sufficient` and rounds and time remain (see
    /// [`rounds`]).
    async fn read_in_rounds(
        &self,
        plan: &Plan,
        results: &mut NormalizedResults,
        search: &mut SearchSummary,
        options: &ResearchOptions,
        started: Instant,
    ) -> Result<Rounds, ResearchError> {
        let enricher = self.enricher();
        let browse_options = BrowsePlanOptions {
            max_actions: options.max_actions,
        };
        let mut reads = enrich::Reads::default();
        // No page read runs past the run's deadline.
        let deadline = options
            .deadline
            .map_or(Deadline::none(), |d| Deadline::at(started + d));
        let mut enrichment = enricher
            .enrich_more(plan, results, &mut reads, &options.enrich, deadline)
            .await?;
        let mut browse = browse_plan(plan, &enrichment, &browse_options);
        let mut status = decide(&enrichment.ledger, None, &browse);
        let mut rounds = vec![RoundReport {
            round: 1,
            queries: search.sub_queries.clone(),
            pages_read: enrichment
                .candidates
                .iter()
                .map(|c| c.final_url.clone())
                .collect(),
            changed: rounds::changes(None, &enrichment.ledger),
            status,
        }];
        let stopped = loop {
            if status == EvidenceStatus::Sufficient {
                break StopReason::Sufficient;
            }
            if rounds.len() >= options.rounds {
                break StopReason::RoundsUsed;
            }
            if Self::out_of_time(options, started) {
                break StopReason::Deadline;
            }
            let follow = follow_up_queries(
                plan,
                &enrichment.ledger,
                self.site_filter(),
                &search.sub_queries,
            );
            let sent_before = search.sub_queries.len();
            self.search_follow_ups(plan, &follow, results, search, options)
                .await;
            if results.results.iter().all(|r| reads.has_seen(&r.url)) {
                break StopReason::NothingNew;
            }
            let read_before = enrichment.candidates.len();
            let next = enricher
                .enrich_more(plan, results, &mut reads, &options.enrich, deadline)
                .await?;
            browse = browse_plan(plan, &next, &browse_options);
            status = decide(&next.ledger, None, &browse);
            rounds.push(RoundReport {
                round: rounds.len() + 1,
                queries: search.sub_queries[sent_before..].to_vec(),
                pages_read: next.candidates[read_before..]
                    .iter()
                    .map(|c| c.final_url.clone())
                    .collect(),
                changed: rounds::changes(Some(&enrichment.ledger), &next.ledger),
                status,
            });
            enrichment = next;
        };
        Ok(Rounds {
            enrichment,
            browse,
            rounds,
            stopped,
        })
    }

    async fn finish(
        &self,
        plan: Plan,
        mut results: NormalizedResults,
        mut search: SearchSummary,
        options: &ResearchOptions,
        started: Instant,
    ) -> Result<ResearchReport, ResearchError> {
        let read = self
            .read_in_rounds(&plan, &mut results, &mut search, options, started)
            .await?;
        let Rounds {
            enrichment,
            browse,
            rounds,
            stopped,
        } = read;
        let deep = if options.deep {
            self.deep(&plan, &enrichment).await
        } else {
            None
        };
        let status = decide(&enrichment.ledger, deep.as_ref(), &browse);
        let caveats = caveats(&enrichment.ledger, deep.as_ref(), status);
        Ok(ResearchReport {
            schema: RESEARCH_SCHEMA.to_string(),
            query: plan.query.clone(),
            ledger: enrichment.ledger.summary(),
            escalation: BrowseEscalation::from_plan(&browse),
            browse_plan: browse,
            deep,
            evidence_status: status,
            agent_action: status.agent_action().to_string(),
            caveats,
            rounds,
            stopped: Some(stopped),
            elapsed_ms: elapsed_ms(started),
            plan,
            search,
            enrichment,
        })
    }
}

/// What the rounds of a run leave: the last enrichment (every page of
/// every round judged), its browse plan, each round's report, and why the
/// rounds stopped.
struct Rounds {
    enrichment: Enrichment,
    browse: BrowsePlan,
    rounds: Vec<RoundReport>,
    stopped: StopReason,
}
