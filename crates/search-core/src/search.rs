//! The whole search path: plan → fanout → fuse → [`SearchResponse`]
//! (`ferret.search.v1`).
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use ferret_core::fanout::Fanout;
//! use ferret_core::search::{SearchOptions, Searcher};
//! use ferret_core::testing::StaticEngine;
//! use ferret_core::Mode;
//!
//! let fanout = Fanout::builder()
//!     .engine(StaticEngine::new("brave", 5))
//!     .engine(StaticEngine::new("searxng", 5))
//!     .build()
//!     .unwrap();
//! let searcher = Searcher::builder().fanout(fanout).build();
//! let response = searcher
//!     .search("rust async runtime", &SearchOptions::new().with_mode(Mode::Fast))
//!     .await
//!     .unwrap();
//! assert_eq!(response.schema, "ferret.search.v1");
//! assert!(!response.results.is_empty());
//! # });
//! ```
//!
//! [`Searcher::search`] runs these steps:
//!
//! 1. **Plan** with the [`Planner`] (default [`HeuristicPlanner`]): intent
//!    (or [`SearchOptions::intent`]), mode, freshness, weights, domain
//!    boosts and sub-queries. [`SearchOptions`] can override the mode, the
//!    freshness window (or turn it off), the weights and the sub-queries.
//! 2. **Fan out** one [`EngineRequest`] per sub-query (intent, mode,
//!    freshness, language, `max_results` per engine) to the engines the mode
//!    matrix or [`SearchOptions::engines`] selects; see [`crate::fanout`].
//! 3. **Fuse** the successful calls — plus any calls the caller brings
//!    ([`Searcher::search_with_calls`], e.g. rows read by
//!    `ferret search --stdin-results`) — with [`fusion::fuse`], using the
//!    plan's weights, the plan's and the caller's domain boosts, and the
//!    searcher's fusion options.
//! 4. **Filter** by the caller's controls ([`crate::controls`]): results on
//!    an excluded domain, on none of the included domains, or published
//!    outside `since`/`until` are removed and reported in
//!    [`SearchResponse::dropped`] with their reason (a result without a date
//!    is kept, and a warning counts them), whatever each engine pushed down.
//!    Each engine's report names the requested controls it ignored
//!    ([`EngineReport::unsupported`]).
//! 5. **Re-rank** with [`SearchOptions::goggle`], when given
//!    ([`goggles::apply`]): FinalScore order, discarded results moved to
//!    [`SearchResponse::discarded`], conflict flags. `limit` applies after.
//! 6. **Answer** with the envelope: results, one report per engine (the
//!    configured engines in order, then one per external engine name),
//!    dropped rows (the caller's and the hits without a usable URL), AI
//!    answers, warnings, `deadline_hit` and the elapsed time.
//!
//! The fanout spawns tokio tasks and uses tokio's timer, so searches run
//! on a tokio runtime.
//!
//! A search fails only when it cannot run at all: the query cannot be
//! planned, an option is out of range (a control included:
//! [`SearchError::Control`]), or an engine name is unknown.
//! Engine failures are reports, never errors.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use tokio::time::Instant;
use tracing::Instrument;

use crate::controls::{
    Control, ControlError, ControlSet, ResultFilters, SafeSearch, check_page, normalize_region,
};
use crate::engine::EngineRequest;
use crate::fanout::{Fanout, FanoutError, FanoutOutcome, FanoutRequest, Progress, ProgressEvent};
use crate::fusion::{self, FusionOptions};
use crate::goggles::{self, Goggle};
use crate::plan::{
    HeuristicPlanner, Plan, PlanError, PlanOptions, Planner, SubQuery, SubQueryPurpose,
};
use crate::query::{Freshness, Intent, Mode, Weights};
use crate::response::{
    DroppedRow, EVIDENCE_POLICY, EngineCall, EngineReport, EngineStatus, SEARCH_SCHEMA,
    SearchResponse,
};
use crate::result::SearchResult;

/// The most hits one engine may be asked for per sub-query.
pub const MAX_RESULTS_PER_ENGINE: usize = 100;

/// Why a search could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The query could not be planned (empty, too long, no searchable text,
    /// a bad plan option, a failing planner).
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The fanout could not run (an unknown engine name, no sub-queries).
    #[error(transparent)]
    Fanout(#[from] FanoutError),
    /// A search option is out of range.
    #[error("invalid search option {option}: {reason}")]
    InvalidOption {
        /// The option's name.
        option: &'static str,
        /// What is wrong and what to use instead.
        reason: String,
    },
    /// A control cannot be used (a domain that is not a host name, since
    /// after until, page 0, …).
    #[error("invalid search control: {0}")]
    Control(#[from] ControlError),
}

/// Options of one search. Everything is optional: the default is "let the
/// plan decide".
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Use this intent instead of classifying the query.
    pub intent: Option<Intent>,
    /// Use this mode instead of the intent's.
    pub mode: Option<Mode>,
    /// `None`: the plan's freshness window; `Some(None)`: no window;
    /// `Some(Some(f))`: window `f`.
    pub freshness: Option<Option<Freshness>>,
    /// Use these score weights instead of the intent's.
    pub weights: Option<Weights>,
    /// Send these sub-queries instead of the planned ones (the plan still
    /// decides intent, mode, freshness and weights).
    pub sub_queries: Option<Vec<String>>,
    /// The most sub-queries to plan (1–16; default the planner's, 4).
    pub max_sub_queries: Option<usize>,
    /// Hits to ask each engine for, per sub-query (1–100; default 10).
    pub max_results: Option<usize>,
    /// Return at most this many fused results (default: all).
    pub limit: Option<usize>,
    /// Domains whose authority gets the domain boost, on top of the plan's
    /// recommended ones for the intent.
    pub domain_boosts: Vec<String>,
    /// Run only these engines, whatever the mode (`--engines a,b`); an
    /// empty list runs none (e.g. to fuse only the caller's rows).
    pub engines: Option<Vec<String>>,
    /// A global deadline for this search's fanout instead of the fanout's.
    pub deadline: Option<Duration>,
    /// A preferred language for every request, instead of each
    /// sub-query's detected one.
    pub language: Option<String>,
    /// Only results from these domains (host names; their subdomains
    /// count too). Pushed down to the engines that can; always applied to
    /// the fused results.
    pub include_domains: Vec<String>,
    /// No results from these domains (or their subdomains). Pushed down to
    /// the engines that can; always applied to the fused results.
    pub exclude_domains: Vec<String>,
    /// Only results published on or after this day. Pushed down to the
    /// engines that can; applied to the fused results that have a date.
    /// With `since` or `until` and no [`Self::freshness`], the plan's own
    /// freshness window is not used.
    pub since: Option<NaiveDate>,
    /// Only results published on or before this day (as for `since`).
    pub until: Option<NaiveDate>,
    /// Results for this country (a two-letter code: `US`, `de`), for the
    /// engines that can localise.
    pub region: Option<String>,
    /// A safe-search level for the engines that take one (default: each
    /// service's own).
    pub safe_search: Option<SafeSearch>,
    /// The 1-based result page to ask each engine for (default 1).
    pub page: Option<u32>,
    /// "Now", for the year in planned sub-queries and for freshness
    /// scores; `None`: the system clock.
    pub now: Option<DateTime<Utc>>,
    /// Where progress events go.
    pub progress: Progress,
    /// A goggle applied after fusion: FinalScore order, discarded results
    /// moved to [`SearchResponse::discarded`], conflict flags (see
    /// [`crate::goggles::final_score`]).
    pub goggle: Option<Arc<Goggle>>,
}

impl SearchOptions {
    /// Default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Use `intent` instead of classifying.
    pub fn with_intent(mut self, intent: Intent) -> Self {
        self.intent = Some(intent);
        self
    }

    /// Use `mode` instead of the intent's.
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// Use this freshness window (`None`: no window) instead of the plan's.
    pub fn with_freshness(mut self, freshness: Option<Freshness>) -> Self {
        self.freshness = Some(freshness);
        self
    }

    /// Use these weights instead of the intent's.
    pub fn with_weights(mut self, weights: Weights) -> Self {
        self.weights = Some(weights);
        self
    }

    /// Send these sub-queries instead of the planned ones.
    pub fn with_sub_queries<I, S>(mut self, queries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.sub_queries = Some(queries.into_iter().map(Into::into).collect());
        self
    }

    /// Plan at most `n` sub-queries.
    pub fn with_max_sub_queries(mut self, n: usize) -> Self {
        self.max_sub_queries = Some(n);
        self
    }

    /// Ask each engine for `n` hits per sub-query.
    pub fn with_max_results(mut self, n: usize) -> Self {
        self.max_results = Some(n);
        self
    }

    /// Return at most `n` fused results.
    pub fn with_limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Boost these domains (on top of the plan's).
    pub fn with_domain_boosts<I, S>(mut self, domains: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.domain_boosts = domains.into_iter().map(Into::into).collect();
        self
    }

    /// Run only these engines, whatever the mode.
    pub fn with_engines<I, S>(mut self, engines: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.engines = Some(engines.into_iter().map(Into::into).collect());
        self
    }

    /// Run no engine: fuse only the calls given to
    /// [`Searcher::search_with_calls`].
    pub fn without_engines(mut self) -> Self {
        self.engines = Some(Vec::new());
        self
    }

    /// Use this global deadline.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Ask every engine for results in `language`.
    pub fn with_language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// Restrict every request to `site`: include this one domain (and its
    /// subdomains), replacing any domains included before.
    pub fn with_site(mut self, site: impl Into<String>) -> Self {
        self.include_domains = vec![site.into()];
        self
    }

    /// Only results from these domains (host names such as `docs.rs`;
    /// subdomains count too).
    pub fn with_include_domains<I, S>(mut self, domains: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.include_domains = domains.into_iter().map(Into::into).collect();
        self
    }

    /// No results from these domains (or their subdomains).
    pub fn with_exclude_domains<I, S>(mut self, domains: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude_domains = domains.into_iter().map(Into::into).collect();
        self
    }

    /// Only results published on or after `day`.
    pub fn with_since(mut self, day: NaiveDate) -> Self {
        self.since = Some(day);
        self
    }

    /// Only results published on or before `day`.
    pub fn with_until(mut self, day: NaiveDate) -> Self {
        self.until = Some(day);
        self
    }

    /// Results for this country (a two-letter code such as `US`).
    pub fn with_region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// Use this safe-search level.
    pub fn with_safe_search(mut self, level: SafeSearch) -> Self {
        self.safe_search = Some(level);
        self
    }

    /// Ask each engine for this 1-based result page.
    pub fn with_page(mut self, page: u32) -> Self {
        self.page = Some(page);
        self
    }

    /// The domain and date filters these options ask for, normalised and
    /// checked.
    pub fn result_filters(&self) -> Result<ResultFilters, ControlError> {
        ResultFilters::new(
            &self.include_domains,
            &self.exclude_domains,
            self.since,
            self.until,
        )
    }

    /// The controls the caller set (the plan's own freshness window and a
    /// first page do not count): what engine reports name when ignored.
    pub fn requested_controls(&self) -> ControlSet {
        let set = [
            (Control::IncludeDomains, !self.include_domains.is_empty()),
            (Control::ExcludeDomains, !self.exclude_domains.is_empty()),
            (Control::Freshness, matches!(self.freshness, Some(Some(_)))),
            (Control::Since, self.since.is_some()),
            (Control::Until, self.until.is_some()),
            (Control::Language, self.language.is_some()),
            (Control::Region, self.region.is_some()),
            (Control::SafeSearch, self.safe_search.is_some()),
            (Control::Page, self.page.is_some_and(|p| p > 1)),
        ];
        set.into_iter()
            .filter(|(_, on)| *on)
            .map(|(c, _)| c)
            .collect()
    }

    /// Check the controls: domains, the date range, region and page.
    fn validate_controls(&self) -> Result<(), ControlError> {
        self.result_filters()?;
        if let Some(region) = &self.region {
            normalize_region(region)?;
        }
        check_page(self.page)
    }

    /// Fix "now" (for reproducible plans and scores).
    pub fn with_now(mut self, now: DateTime<Utc>) -> Self {
        self.now = Some(now);
        self
    }

    /// Send progress events to `progress`.
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = progress;
        self
    }

    /// Re-rank with `goggle` after fusion (`ferret search --goggle`; load
    /// one with [`Goggle::resolve`]).
    pub fn with_goggle(mut self, goggle: impl Into<Arc<Goggle>>) -> Self {
        self.goggle = Some(goggle.into());
        self
    }

    fn validate(&self) -> Result<(), SearchError> {
        if let Some(n) = self.max_results
            && !(1..=MAX_RESULTS_PER_ENGINE).contains(&n)
        {
            return Err(SearchError::InvalidOption {
                option: "max_results",
                reason: format!("{n} is out of range; use 1 to {MAX_RESULTS_PER_ENGINE}"),
            });
        }
        if self.limit == Some(0) {
            return Err(SearchError::InvalidOption {
                option: "limit",
                reason: "0 would return nothing; use at least 1, or no limit".into(),
            });
        }
        if let Some(queries) = &self.sub_queries
            && queries.iter().all(|q| q.trim().is_empty())
        {
            return Err(SearchError::InvalidOption {
                option: "sub_queries",
                reason: "no non-empty sub-query was given; pass at least one, or let the \
                         planner choose"
                    .into(),
            });
        }
        if self.deadline.is_some_and(|d| d.is_zero()) {
            return Err(SearchError::InvalidOption {
                option: "deadline",
                reason: "0 would cancel every engine call; give a positive duration".into(),
            });
        }
        Ok(self.validate_controls()?)
    }
}

/// Builds a [`Searcher`]; see [`Searcher::builder`].
pub struct SearcherBuilder {
    planner: Arc<dyn Planner>,
    fanout: Option<Fanout>,
    fusion: FusionOptions,
}

impl Default for SearcherBuilder {
    fn default() -> Self {
        SearcherBuilder {
            planner: Arc::new(HeuristicPlanner::new()),
            fanout: None,
            fusion: FusionOptions::default(),
        }
    }
}

impl fmt::Debug for SearcherBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearcherBuilder")
            .field("fanout", &self.fanout)
            .field("fusion", &self.fusion)
            .finish_non_exhaustive()
    }
}

impl SearcherBuilder {
    /// Plan with `planner` instead of the [`HeuristicPlanner`].
    pub fn planner(mut self, planner: impl Planner + 'static) -> Self {
        self.planner = Arc::new(planner);
        self
    }

    /// Plan with a shared planner.
    pub fn shared_planner(mut self, planner: Arc<dyn Planner>) -> Self {
        self.planner = planner;
        self
    }

    /// Fan out with `fanout` (default: one with no engines, so only the
    /// caller's calls are fused).
    pub fn fanout(mut self, fanout: Fanout) -> Self {
        self.fanout = Some(fanout);
        self
    }

    /// Fusion options: engine weights, RRF `k`, rank share, canonical URL
    /// and near-duplicate options. Per search, the query, weights, domain
    /// boosts and "now" are replaced by the plan's and the options'; domain
    /// boosts given here are kept and added to.
    pub fn fusion(mut self, options: FusionOptions) -> Self {
        self.fusion = options;
        self
    }

    /// Build the searcher.
    pub fn build(self) -> Searcher {
        Searcher {
            planner: self.planner,
            fanout: self.fanout.unwrap_or_default(),
            fusion: self.fusion,
        }
    }
}

/// Plans, fans out and fuses; see the [module docs](self).
///
/// Cheap to clone (the planner and engines are shared).
#[derive(Clone)]
pub struct Searcher {
    planner: Arc<dyn Planner>,
    fanout: Fanout,
    fusion: FusionOptions,
}

impl fmt::Debug for Searcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Searcher")
            .field("fanout", &self.fanout)
            .field("fusion", &self.fusion)
            .finish_non_exhaustive()
    }
}

impl Searcher {
    /// A builder: the heuristic planner, no engines, default fusion options.
    pub fn builder() -> SearcherBuilder {
        SearcherBuilder::default()
    }

    /// The fanout this searcher runs.
    pub fn fanout(&self) -> &Fanout {
        &self.fanout
    }

    /// The fusion options this searcher starts from.
    pub fn fusion_options(&self) -> &FusionOptions {
        &self.fusion
    }

    /// Plan `query` as [`Self::search`] would, with the options' overrides
    /// applied (intent, mode, freshness, weights, sub-queries).
    pub async fn plan(&self, query: &str, options: &SearchOptions) -> Result<Plan, SearchError> {
        options.validate()?;
        let mut plan_options = PlanOptions::new();
        if let Some(intent) = options.intent {
            plan_options = plan_options.with_intent(intent);
        }
        if let Some(now) = options.now {
            plan_options = plan_options.with_now(now);
        }
        if let Some(n) = options.max_sub_queries {
            plan_options = plan_options.with_max_sub_queries(n);
        }
        let mut plan = self
            .planner
            .plan(query, &plan_options)
            .instrument(tracing::debug_span!("plan"))
            .await?;
        if let Some(mode) = options.mode {
            plan.mode = mode;
        }
        if let Some(freshness) = options.freshness {
            plan.freshness = freshness;
            plan.freshness_reason = match freshness {
                Some(f) => format!("set by the caller to {f}"),
                None => "turned off by the caller".to_string(),
            };
        } else if (options.since.is_some() || options.until.is_some()) && plan.freshness.is_some() {
            plan.freshness = None;
            plan.freshness_reason = "replaced by the caller's since/until dates".to_string();
        }
        if let Some(weights) = options.weights {
            plan.weights = weights;
        }
        if let Some(queries) = &options.sub_queries {
            plan.sub_queries = queries
                .iter()
                .map(|q| q.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|q| !q.is_empty())
                .map(|text| SubQuery {
                    text,
                    purpose: SubQueryPurpose::Original,
                    lang: None,
                })
                .collect();
        }
        Ok(plan)
    }

    /// Search: plan, fan out, fuse.
    pub async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<SearchResponse, SearchError> {
        self.search_with_calls(query, Vec::new(), Vec::new(), options)
            .await
    }

    /// Search, fusing `extra_calls` (e.g. the caller's own result rows, see
    /// [`crate::rows`]) with the engines' results through the same fusion
    /// and envelope. `dropped` (rows the caller could not use) is carried
    /// into the response. With [`SearchOptions::without_engines`] only the
    /// extra calls are fused.
    ///
    /// Each distinct engine name among `extra_calls` gets an `ok` report
    /// after the configured engines' reports.
    pub async fn search_with_calls(
        &self,
        query: &str,
        extra_calls: Vec<EngineCall>,
        dropped: Vec<DroppedRow>,
        options: &SearchOptions,
    ) -> Result<SearchResponse, SearchError> {
        let span = tracing::info_span!("search", query = %query);
        self.run(query, extra_calls, dropped, options)
            .instrument(span)
            .await
    }

    async fn run(
        &self,
        query: &str,
        extra_calls: Vec<EngineCall>,
        mut dropped: Vec<DroppedRow>,
        options: &SearchOptions,
    ) -> Result<SearchResponse, SearchError> {
        let started = Instant::now();
        let plan = self.plan(query, options).await?;
        let filters = options.result_filters()?;
        let progress = &options.progress;
        progress.emit(ProgressEvent::Planned {
            intent: plan.intent,
            mode: plan.mode,
            sub_queries: plan.sub_queries.iter().map(|s| s.text.clone()).collect(),
        });
        let outcome = self
            .fan_out(&plan, options, &filters, !extra_calls.is_empty())
            .await?;

        let mut warnings = outcome.warnings;
        let mut reports = outcome.reports;
        self.name_ignored_controls(&mut reports, options, &filters);
        let mut calls = outcome.calls;
        add_extra_calls(extra_calls, &mut calls, &mut reports, &mut warnings);

        let fusion_options = self.fusion_options_for(&plan, options);
        let fused = {
            let _span = tracing::info_span!("fuse", calls = calls.len()).entered();
            fusion::fuse(&calls, &fusion_options)
        };
        dropped.extend(fused.unresolvable.iter().map(|u| u.to_dropped_row()));
        warnings.extend(fused.warnings);
        warnings.extend(planner_cut_warning(&plan));
        let results = apply_filters(
            &filters,
            fused.results,
            options,
            &mut dropped,
            &mut warnings,
        );

        let (mut results, discarded) = self.apply_goggle(results, options, started, &mut warnings);
        if let Some(limit) = options.limit {
            results.truncate(limit);
        }
        let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        finished(progress, results.len(), outcome.deadline_hit, elapsed_ms);

        Ok(SearchResponse {
            schema: SEARCH_SCHEMA.to_string(),
            query: query.to_string(),
            intent: plan.intent,
            mode: plan.mode,
            freshness: plan.freshness,
            sub_queries: plan.sub_queries.iter().map(|s| s.text.clone()).collect(),
            results,
            engines: reports,
            dropped,
            goggle: options.goggle.as_ref().map(|g| g.name().to_string()),
            discarded,
            answers: outcome.answers,
            warnings,
            evidence_policy: EVIDENCE_POLICY.to_string(),
            deadline_hit: outcome.deadline_hit,
            elapsed_ms,
        })
    }

    /// Name in each engine's report the requested controls it does not
    /// push down (engines that made no call are left alone).
    fn name_ignored_controls(
        &self,
        reports: &mut [EngineReport],
        options: &SearchOptions,
        filters: &ResultFilters,
    ) {
        let requested = options.requested_controls();
        if requested.is_empty() {
            return;
        }
        let includes = filters.include_domains().len();
        for report in reports.iter_mut().filter(|r| r.calls > 0) {
            if let Some(engine) = self.fanout.engines().find(|e| e.name() == report.name) {
                report.unsupported = engine.capabilities().ignored(requested, includes).names();
            }
        }
    }

    /// Run the plan's sub-queries on the chosen engines.
    async fn fan_out(
        &self,
        plan: &Plan,
        options: &SearchOptions,
        filters: &ResultFilters,
        has_extra_calls: bool,
    ) -> Result<FanoutOutcome, SearchError> {
        let progress = &options.progress;
        let requests = self.requests(plan, options, filters);
        let mut fanout_request = FanoutRequest::new(plan.mode, requests);
        fanout_request.engines = options.engines.clone();
        fanout_request.deadline = options.deadline;

        let decisions = self
            .fanout
            .decide(plan.mode, fanout_request.engines.as_deref())?;
        if decisions.iter().all(|d| !d.runs) && has_extra_calls {
            // Only the caller's calls: say why each engine did not run, but
            // do not warn that nothing was searched.
            return Ok(skipped_outcome(&decisions, progress));
        }
        Ok(self
            .fanout
            .run_with_progress(&fanout_request, progress)
            .await?)
    }

    /// Apply the options' goggle (if any) within the search's deadline;
    /// returns the kept results and the discarded ones.
    fn apply_goggle(
        &self,
        results: Vec<SearchResult>,
        options: &SearchOptions,
        started: Instant,
        warnings: &mut Vec<String>,
    ) -> (Vec<SearchResult>, Vec<goggles::Discarded>) {
        let Some(goggle) = &options.goggle else {
            return (results, Vec::new());
        };
        let budget = options.deadline.unwrap_or(self.fanout.deadline_budget());
        let deadline = (started + budget).into_std();
        let applied = goggles::apply_until(goggle, results, Some(deadline));
        warnings.extend(applied.warnings);
        (applied.results, applied.discarded)
    }

    /// One engine request per sub-query, with the options applied.
    fn requests(
        &self,
        plan: &Plan,
        options: &SearchOptions,
        filters: &ResultFilters,
    ) -> Vec<EngineRequest> {
        plan.sub_queries
            .iter()
            .map(|s| {
                let mut request = plan.request_for(s);
                if let Some(n) = options.max_results {
                    request.max_results = n;
                }
                if let Some(lang) = &options.language {
                    request.language = Some(lang.clone());
                }
                with_controls(request, options, filters)
            })
            .collect()
    }

    /// The searcher's fusion options with this search's query, weights,
    /// domain boosts and "now".
    fn fusion_options_for(&self, plan: &Plan, options: &SearchOptions) -> FusionOptions {
        let mut boosts = self.fusion.domain_boosts.clone();
        for domain in plan.domain_boost.iter().chain(&options.domain_boosts) {
            let domain = domain.trim().to_ascii_lowercase();
            if !domain.is_empty() && !boosts.iter().any(|b| b.eq_ignore_ascii_case(&domain)) {
                boosts.push(domain);
            }
        }
        let mut fusion_options = self.fusion.clone();
        fusion_options.query = plan.query.clone();
        fusion_options.weights = plan.weights;
        fusion_options.domain_boosts = boosts;
        fusion_options.now = options.now.unwrap_or_else(Utc::now);
        fusion_options
    }
}

/// `request` with the options' controls: the filters' normalised domains
/// and dates, the region (normalised), the safe-search level and the page.
fn with_controls(
    mut request: EngineRequest,
    options: &SearchOptions,
    filters: &ResultFilters,
) -> EngineRequest {
    if !filters.include_domains().is_empty() {
        request = request.with_include_domains(filters.include_domains().iter().cloned());
    }
    request.exclude_domains = filters.exclude_domains().to_vec();
    request.since = filters.since();
    request.until = filters.until();
    request.region = options
        .region
        .as_deref()
        .and_then(|r| normalize_region(r).ok());
    request.safe_search = options.safe_search;
    request.page = options.page.filter(|p| *p > 1);
    request
}

/// The fused results the filters keep; the others go to `dropped`, and a
/// warning counts the kept results that had no date to check.
fn apply_filters(
    filters: &ResultFilters,
    results: Vec<SearchResult>,
    options: &SearchOptions,
    dropped: &mut Vec<DroppedRow>,
    warnings: &mut Vec<String>,
) -> Vec<SearchResult> {
    let filtered = filters.apply(results, options.now);
    dropped.extend(filtered.dropped);
    if filtered.undated > 0 {
        warnings.push(format!(
            "{} result{} had no publication date and {} kept although since/until were given",
            filtered.undated,
            if filtered.undated == 1 { "" } else { "s" },
            if filtered.undated == 1 { "was" } else { "were" },
        ));
    }
    filtered.results
}

/// Say the search is over: a progress event and a trace line.
fn finished(progress: &Progress, results: usize, deadline_hit: bool, elapsed_ms: u64) {
    progress.emit(ProgressEvent::Fused {
        results,
        elapsed_ms,
    });
    tracing::info!(results, deadline_hit, elapsed_ms, "search finished");
}

/// Add the caller's calls: one `ok` report per new engine name, a warning
/// where a name is also a configured engine's.
fn add_extra_calls(
    extra_calls: Vec<EngineCall>,
    calls: &mut Vec<EngineCall>,
    reports: &mut Vec<EngineReport>,
    warnings: &mut Vec<String>,
) {
    for report in external_reports(&extra_calls) {
        if reports.iter().any(|r| r.name == report.name) {
            warnings.push(format!(
                "the given rows named `{}` were fused with the results of the configured \
                 engine of that name",
                report.name
            ));
        } else {
            reports.push(report);
        }
    }
    calls.extend(extra_calls);
}

/// The warning listing planned queries the planner cut over its caps.
fn planner_cut_warning(plan: &Plan) -> Option<String> {
    if plan.dropped.is_empty() {
        return None;
    }
    let cut: Vec<&str> = plan.dropped.iter().map(|d| d.text.as_str()).collect();
    Some(format!(
        "the planner left out {} planned quer{} over its caps: {}",
        cut.len(),
        if cut.len() == 1 { "y" } else { "ies" },
        cut.join("; ")
    ))
}

/// The outcome of a fanout in which no engine runs, without running it.
fn skipped_outcome(
    decisions: &[crate::fanout::EngineDecision],
    progress: &Progress,
) -> FanoutOutcome {
    let reports = decisions
        .iter()
        .map(|d| {
            let reason = d.reason.clone().unwrap_or_default();
            progress.emit(ProgressEvent::EngineSkipped {
                engine: d.engine.clone(),
                reason: reason.clone(),
            });
            EngineReport::skipped(d.engine.clone(), reason)
        })
        .collect();
    progress.emit(ProgressEvent::FanoutFinished {
        elapsed_ms: 0,
        ok_calls: 0,
        failed_calls: 0,
        deadline_hit: false,
    });
    FanoutOutcome {
        calls: Vec::new(),
        reports,
        failures: Vec::new(),
        answers: Vec::new(),
        warnings: Vec::new(),
        deadline_hit: false,
        elapsed_ms: 0,
    }
}

/// One `ok` report per distinct engine name among the caller's calls, in
/// order of first appearance.
fn external_reports(calls: &[EngineCall]) -> Vec<EngineReport> {
    let mut reports: Vec<EngineReport> = Vec::new();
    for call in calls {
        let hits = call.response.hits.len();
        match reports.iter_mut().find(|r| r.name == call.engine) {
            Some(r) => {
                r.count += hits;
                r.calls += 1;
            }
            None => reports.push(EngineReport {
                name: call.engine.clone(),
                status: EngineStatus::Ok,
                error_kind: None,
                message: Some("results supplied by the caller".to_string()),
                elapsed_ms: 0,
                count: hits,
                calls: 1,
                failed_calls: 0,
                unsupported: Vec::new(),
            }),
        }
    }
    reports
}
