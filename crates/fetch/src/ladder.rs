//! [`Fetcher::fetch`]: the ladder itself — which step runs, when to
//! escalate, which reading wins.

use std::time::Instant;

use ferret_core::{Provenance, Runtime};
use tracing::Instrument;
use url::Url;

use super::cache::CacheStatus;
use super::document::{Finish, Reading, elapsed_ms};
use super::endpoints::{self, Api, EndpointError, EndpointPage, Target};
use super::error::FetchError;
use super::http::{ACCEPT_HTML, Request};
use super::page::{
    Attempt, AttemptOutcome, Escalation, EscalationReason, FetchedPage, Quality, Warning,
    WarningCode,
};
use super::quality::assess_quality;
use super::{BrowserMode, FetchOptions, Fetcher};
use crate::verdict::{Assessment, Source, Verdict};

/// What the HTTP step reads as: public, over plain HTTP.
const HTTP_READ: Provenance = Provenance::public(Runtime::Http);
/// What a public endpoint reads as: public, through the site's API.
const ENDPOINT_READ: Provenance = Provenance::public(Runtime::PublicEndpoint);

/// One candidate reading with how the ladder got to it.
struct Candidate {
    reading: Reading,
    assessment: Assessment,
    escalation: Option<Escalation>,
}

/// The ladder's running record.
struct Run<'a> {
    url: &'a str,
    options: &'a FetchOptions,
    started: Instant,
    attempts: Vec<Attempt>,
    warnings: Vec<Warning>,
    /// Readings so far that may still win.
    candidates: Vec<Candidate>,
    /// Why the ladder left the public endpoint, for the HTTP reading.
    next_escalation: Option<Escalation>,
}

impl<'a> Run<'a> {
    fn new(url: &'a str, options: &'a FetchOptions) -> Self {
        Run {
            url,
            options,
            started: Instant::now(),
            attempts: Vec::new(),
            warnings: Vec::new(),
            candidates: Vec::new(),
            next_escalation: None,
        }
    }

    /// Takes the best candidate so far (see [`choose`]).
    fn best(&mut self) -> Option<Candidate> {
        choose(std::mem::take(&mut self.candidates))
    }

    /// The endpoint read a page: `Some` when it is ok, else it stays as a
    /// candidate and the ladder escalates to plain HTTP.
    fn endpoint_read(
        &mut self,
        ep: EndpointPage,
        page_url: &Url,
        target: &Target,
        t0: Instant,
    ) -> Option<Candidate> {
        let api_url = ep.api_url.clone();
        let reading = endpoint_reading(ep, page_url, self.options);
        let candidate = self.record_read(reading, &api_url, target.label(), t0, None);
        if candidate.assessment.ok {
            return Some(candidate);
        }
        let detail = format!(
            "{} endpoint text reads as {} (score {})",
            target.label(),
            candidate.assessment.verdict,
            candidate.assessment.score.total
        );
        self.escalate_from_endpoint(
            WarningCode::PublicEndpointNotOk,
            EscalationReason::EndpointNotOk,
            detail,
        );
        self.candidates.push(candidate);
        None
    }

    /// The endpoint failed: record it and escalate to plain HTTP.
    fn endpoint_failed(&mut self, e: &EndpointError, target: &Target, t0: Instant) {
        let api_url = match e {
            EndpointError::Status { url, .. } | EndpointError::Parse { url, .. } => url.clone(),
            EndpointError::Fetch(_) => target.label().to_string(),
        };
        let detail = format!("{} endpoint: {e}", target.label());
        tracing::debug!(%detail, "public endpoint failed; trying plain HTTP");
        self.attempt(
            Source::PublicEndpoint,
            &api_url,
            None,
            AttemptOutcome::Failed,
            detail.clone(),
            t0,
            &ENDPOINT_READ,
        );
        self.escalate_from_endpoint(
            WarningCode::PublicEndpointFailed,
            EscalationReason::EndpointFailed,
            detail,
        );
    }

    /// Warn with `code` and escalate from the public endpoint to plain
    /// HTTP for `reason`.
    fn escalate_from_endpoint(
        &mut self,
        code: WarningCode,
        reason: EscalationReason,
        detail: String,
    ) {
        self.warnings.push(Warning::new(code, detail.clone()));
        self.next_escalation = Some(Escalation {
            from: Source::PublicEndpoint,
            to: Source::Fetch,
            reason,
            detail,
        });
    }

    /// Records a step: `provenance` is its reading's, or for a step that
    /// failed, the one it would have read with.
    #[allow(clippy::too_many_arguments)]
    fn attempt(
        &mut self,
        source: Source,
        url: &str,
        verdict: Option<Verdict>,
        outcome: AttemptOutcome,
        detail: impl Into<String>,
        since: Instant,
        provenance: &Provenance,
    ) {
        self.attempts.push(Attempt {
            source,
            url: url.to_string(),
            outcome,
            verdict,
            detail: detail.into(),
            elapsed_ms: elapsed_ms(since),
            provenance: provenance.clone(),
        });
    }

    /// A finished reading assessed strictly, recorded as an attempt at
    /// `url` (by the reading's source) and made a candidate.
    fn record_read(
        &mut self,
        reading: Reading,
        url: &str,
        detail: impl Into<String>,
        since: Instant,
        escalation: Option<Escalation>,
    ) -> Candidate {
        let assessment = reading.assess(false);
        self.attempt(
            reading.source,
            url,
            Some(assessment.verdict),
            outcome_of(&assessment),
            detail,
            since,
            &reading.provenance,
        );
        Candidate {
            reading,
            assessment,
            escalation,
        }
    }

    /// The envelope for the chosen candidate; an error status becomes
    /// [`FetchError::HttpStatus`] carrying it.
    fn finish(self, chosen: Candidate) -> Result<FetchedPage, FetchError> {
        let page = chosen.reading.into_page(Finish {
            url: self.url,
            assessment: chosen.assessment,
            escalation: chosen.escalation,
            attempts: self.attempts,
            warnings: self.warnings,
            options: self.options,
            started: self.started,
        });
        match page.status {
            Some(status) if status >= 400 => Err(FetchError::HttpStatus {
                url: page.final_url.clone(),
                status,
                page: Box::new(page),
            }),
            _ => Ok(page),
        }
    }
}

fn outcome_of(a: &Assessment) -> AttemptOutcome {
    if a.ok {
        AttemptOutcome::Ok
    } else {
        AttemptOutcome::NotOk
    }
}

/// Whether a failed HTTP fetch may be retried in a browser. Guard refusals
/// and redirect problems never are: the browser must not route around the
/// guard.
fn browser_may_retry(e: &FetchError) -> bool {
    matches!(e, FetchError::Timeout { .. } | FetchError::Transport { .. })
}

/// Why an HTTP reading should go to the browser, if it should.
fn escalation_reason(
    reading: &Reading,
    assessment: &Assessment,
    quality: &Quality,
    browser_has_login: bool,
) -> Option<(EscalationReason, String)> {
    // A browser renders neither an unreadable body nor a PDF any better.
    if reading.unsupported || reading.pdf.is_some() {
        return None;
    }
    let challenge_signs = assessment.verdict == Verdict::Challenge || quality.challenge_suspected;
    if let Some(status) = reading.status.filter(|s| *s >= 400) {
        return match status {
            403 => Some((
                EscalationReason::Challenge,
                format!("HTTP 403 (verdict {})", assessment.verdict),
            )),
            429 | 503 if challenge_signs => Some((
                EscalationReason::Challenge,
                format!("HTTP {status} with a challenge page"),
            )),
            401 if browser_has_login => Some((
                EscalationReason::AuthWall,
                "HTTP 401; the browser has the user's session".to_string(),
            )),
            _ => None,
        };
    }
    if reading.js_shell {
        return Some((
            EscalationReason::JsShell,
            "the page is an empty JavaScript application shell".to_string(),
        ));
    }
    if challenge_signs && !assessment.ok {
        return Some((
            EscalationReason::Challenge,
            format!(
                "challenge markers: {}",
                if quality.markers.is_empty() {
                    assessment
                        .markers
                        .iter()
                        .map(|m| m.pattern.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                } else {
                    quality.markers.join(", ")
                }
            ),
        ));
    }
    match assessment.verdict {
        Verdict::AuthRequired if browser_has_login => Some((
            EscalationReason::AuthWall,
            "a login wall; the browser has the user's session".to_string(),
        )),
        // A page past its time budget is no better rendered.
        Verdict::AuthRequired | Verdict::Paywall | Verdict::TooComplex => None,
        v if !v.is_ok() => Some((
            EscalationReason::LowQuality,
            format!(
                "verdict {v} (score {}, {} characters of text)",
                assessment.score.total, assessment.score.text_chars
            ),
        )),
        _ => None,
    }
}

/// Picks the best candidate: an ok verdict first, then the higher score;
/// on a tie the later step (it saw more of the page).
fn choose(candidates: Vec<Candidate>) -> Option<Candidate> {
    let mut best: Option<Candidate> = None;
    for c in candidates {
        best = match best {
            Some(b) if b.assessment.better_than(&c.assessment) => Some(b),
            _ => Some(c),
        };
    }
    best
}

fn endpoint_reading(ep: EndpointPage, page_url: &Url, options: &FetchOptions) -> Reading {
    let EndpointPage {
        api_url: _,
        title,
        text,
        markdown,
        byline,
        published_at,
        modified_at,
        language,
        site_name,
        partial,
    } = ep;
    let mut r = Reading::from_text(
        text,
        Some(page_url),
        options,
        Source::PublicEndpoint,
        ENDPOINT_READ,
    );
    if options.markdown
        && let Some(md) = markdown
    {
        r.markdown = match options.max_text_chars {
            Some(max) => md.chars().take(max).collect(),
            None => md,
        };
    }
    r.status = Some(200);
    r.title = title;
    r.byline = byline;
    r.published_at = published_at;
    r.modified_at = modified_at;
    r.site_name = site_name;
    if language.is_some() {
        r.language = language;
    }
    for p in partial {
        r.warnings
            .push(Warning::new(WarningCode::EndpointPartial, p));
    }
    r
}

impl Fetcher {
    /// Fetches `url` through the ladder (see the [module docs](super)).
    ///
    /// Errors: the guard refused the URL or a redirect hop, too many
    /// redirects, a timeout or transport failure with nothing else to fall
    /// back on, an HTTP error status (the error carries the page and its
    /// verdict), or — in `required` mode — no browser or a failed render. A
    /// body over the size cap is not an error (it is cut, with a warning).
    pub async fn fetch(
        &self,
        url: &str,
        options: &FetchOptions,
    ) -> Result<FetchedPage, FetchError> {
        let input = url.trim();
        let parsed = self
            .guard()
            .check(input)
            .map_err(|error| FetchError::Blocked { error })?;
        let mode = options.browser.unwrap_or(self.config().browser_mode);
        let span = tracing::info_span!("fetch", url = %parsed, mode = %mode);
        self.climb(input, parsed, mode, options)
            .instrument(span)
            .await
    }

    async fn climb(
        &self,
        input: &str,
        url: Url,
        mode: BrowserMode,
        options: &FetchOptions,
    ) -> Result<FetchedPage, FetchError> {
        let mut run = Run::new(input, options);
        if mode == BrowserMode::Required {
            self.robots_allow(&url).await?;
            return self.browser_only(&url, run).await;
        }
        // 1. Public endpoint.
        if let Some(target) = self.endpoint_target(&url, options)
            && let Some(done) = self.endpoint_rung(&url, &target, &mut run).await
        {
            return run.finish(done);
        }
        // 2. Plain HTTP, then the browser when the reading calls for it —
        // when the site's robots.txt allows the page.
        let t0 = Instant::now();
        if let Err(e) = self.robots_allow(&url).await {
            // A host that cannot be reached for robots.txt fails the HTTP
            // step with that error, as the page itself would.
            if browser_may_retry(&e) {
                return self.http_failed(e, &url, mode, t0, run).await;
            }
            return robots_refused(e, &url, t0, run);
        }
        match self.http_step(&url, options).await {
            Err(e) => self.http_failed(e, &url, mode, t0, run).await,
            Ok((reading, cache)) => self
                .http_read(reading, &url, mode, t0, run)
                .await
                .map(|page| with_cache_status(page, cache)),
        }
    }

    /// Browser mode `required`: the browser is the only rung.
    async fn browser_only(&self, url: &Url, mut run: Run<'_>) -> Result<FetchedPage, FetchError> {
        let t0 = Instant::now();
        let reading = self
            .browser_step(url, run.options)
            .await
            .inspect_err(|e| tracing::debug!(error = %e, "browser step failed"))?;
        let candidate = run.record_read(reading, url.as_str(), "browser mode required", t0, None);
        run.finish(candidate)
    }

    /// The site API that serves `url`, when both the options and the
    /// configuration allow public endpoints.
    fn endpoint_target(&self, url: &Url, options: &FetchOptions) -> Option<Target> {
        (options.public_endpoints && self.config().public_endpoints)
            .then(|| Target::of(url))
            .flatten()
    }

    /// The public-endpoint rung. `Some` when its reading is good enough to
    /// stop at; otherwise `run` keeps its reading (if any) as a candidate
    /// and the escalation to plain HTTP.
    async fn endpoint_rung(
        &self,
        url: &Url,
        target: &Target,
        run: &mut Run<'_>,
    ) -> Option<Candidate> {
        let t0 = Instant::now();
        match endpoints::read(&Api::new(self), target).await {
            Ok(ep) => run.endpoint_read(ep, url, target, t0),
            Err(e) => {
                run.endpoint_failed(&e, target, t0);
                None
            }
        }
    }

    /// Whether this fetch may escalate to a browser at all.
    fn can_browse(&self, mode: BrowserMode) -> bool {
        mode == BrowserMode::Auto && self.has_browser()
    }

    /// Plain HTTP failed. A timeout or transport failure may still be saved
    /// by the browser or an endpoint candidate; any other error is final.
    async fn http_failed(
        &self,
        e: FetchError,
        url: &Url,
        mode: BrowserMode,
        t0: Instant,
        mut run: Run<'_>,
    ) -> Result<FetchedPage, FetchError> {
        run.attempt(
            Source::Fetch,
            url.as_str(),
            None,
            AttemptOutcome::Failed,
            e.to_string(),
            t0,
            &HTTP_READ,
        );
        if !browser_may_retry(&e) {
            return Err(e);
        }
        run.warnings
            .push(Warning::new(WarningCode::HttpFailed, e.to_string()));
        if self.can_browse(mode) {
            let escalation = Escalation {
                from: Source::Fetch,
                to: self.browser_source(),
                reason: EscalationReason::HttpFailed,
                detail: e.to_string(),
            };
            if let Some(c) = self.browser_candidate(url, &mut run, escalation).await {
                run.candidates.push(c);
            }
        }
        match run.best() {
            Some(best) => run.finish(best),
            None => Err(e),
        }
    }

    /// Plain HTTP read a page: record it, let the browser try when the
    /// reading calls for it, and keep the best reading.
    async fn http_read(
        &self,
        reading: Reading,
        url: &Url,
        mode: BrowserMode,
        t0: Instant,
        mut run: Run<'_>,
    ) -> Result<FetchedPage, FetchError> {
        let provisional = reading.assess(true);
        run.attempt(
            Source::Fetch,
            &reading.final_url,
            Some(provisional.verdict),
            outcome_of(&provisional),
            reading
                .status
                .map(|s| format!("HTTP {s}"))
                .unwrap_or_default(),
            t0,
            &reading.provenance,
        );
        let browser = self
            .browser_after_http(&reading, &provisional, url, mode, &mut run)
            .await;
        // The final verdict is lenient only when no browser reading exists.
        let assessment = reading.assess(browser.is_none());
        let escalation = run.next_escalation.take();
        run.candidates.push(Candidate {
            reading,
            assessment,
            escalation,
        });
        run.candidates.extend(browser);
        match run.best() {
            Some(best) => run.finish(best),
            None => unreachable_candidate(run.url),
        }
    }

    /// The browser rung after an HTTP reading: runs it when the reading
    /// should go to a browser and one can run, else warns why it could not.
    async fn browser_after_http(
        &self,
        reading: &Reading,
        provisional: &Assessment,
        url: &Url,
        mode: BrowserMode,
        run: &mut Run<'_>,
    ) -> Option<Candidate> {
        let quality = assess_quality(reading.title.as_deref(), &reading.text);
        let (reason, detail) =
            escalation_reason(reading, provisional, &quality, self.browser_has_login())?;
        if self.can_browse(mode) {
            let escalation = Escalation {
                from: Source::Fetch,
                to: self.browser_source(),
                reason,
                detail,
            };
            return self.browser_candidate(url, run, escalation).await;
        }
        let why = match mode {
            BrowserMode::Never => "browser mode is never".to_string(),
            _ => self.browser_unavailable_reason(),
        };
        run.warnings.push(Warning::new(
            WarningCode::BrowserUnavailable,
            format!("the page should go to a browser ({reason}: {detail}) but {why}"),
        ));
        None
    }

    /// The HTTP reading, and how the page cache served it.
    async fn http_step(
        &self,
        url: &Url,
        options: &FetchOptions,
    ) -> Result<(Reading, Option<CacheStatus>), FetchError> {
        let config = self.config();
        let request = Request {
            url: url.clone(),
            accept: ACCEPT_HTML,
            user_agent: &config.user_agent,
            bearer: None,
            body_limit: config.body_limit,
            extra_headers: &[],
        };
        let mode = options.cache_mode.unwrap_or(config.cache_mode);
        let served = super::cache::get(self, request, mode).await?;
        let response = served.response;
        let mut r = Reading::from_body(
            &response.body,
            response.content_type.as_deref(),
            &response.final_url,
            options,
            Source::Fetch,
            HTTP_READ,
        );
        r.status = Some(response.status);
        r.final_url = response.final_url.to_string();
        r.redirects = response.redirects;
        if let Some(pause) = response.retry_after {
            r.warnings.push(Warning::new(
                WarningCode::RetryAfter,
                format!(
                    "HTTP {} with Retry-After: requests to this host wait {} ms",
                    response.status,
                    pause.as_millis()
                ),
            ));
        }
        if response.truncated {
            r.truncated = true;
            r.warnings.push(Warning::new(
                WarningCode::BodyTruncated,
                format!(
                    "the body is longer than {} bytes; only the first {} bytes were read",
                    response.limit, response.limit
                ),
            ));
        }
        for w in served.warnings {
            r.warnings.push(Warning::new(
                WarningCode::CacheFailed,
                format!("{w}; the page was fetched without the cache"),
            ));
        }
        Ok((r, served.status))
    }

    /// Runs the browser step as an escalation and records it. `None` when
    /// it failed (a warning says why).
    async fn browser_candidate(
        &self,
        url: &Url,
        run: &mut Run<'_>,
        escalation: Escalation,
    ) -> Option<Candidate> {
        let t0 = Instant::now();
        tracing::info!(
            reason = %escalation.reason,
            detail = %escalation.detail,
            "escalating to the browser"
        );
        match self.browser_step(url, run.options).await {
            Ok(reading) => {
                let detail = format!("escalated: {}", escalation.reason);
                Some(run.record_read(reading, url.as_str(), detail, t0, Some(escalation)))
            }
            Err(e) => {
                run.attempt(
                    self.browser_source(),
                    url.as_str(),
                    None,
                    AttemptOutcome::Failed,
                    e.to_string(),
                    t0,
                    &self.browser_provenance(),
                );
                run.warnings.push(Warning::new(
                    WarningCode::BrowserFailed,
                    format!("escalation ({}) failed: {e}", escalation.reason),
                ));
                None
            }
        }
    }

    /// `browser_user` for a login-partition runtime, `browser` otherwise.
    fn browser_source(&self) -> Source {
        if self.browser_has_login() {
            Source::BrowserUser
        } else {
            Source::Browser
        }
    }

    fn browser_unavailable_reason(&self) -> String {
        if cfg!(feature = "browser") {
            "no browser runtime was given (FetcherBuilder::browser)".to_string()
        } else {
            "ferret-evidence was built without the `browser` feature".to_string()
        }
    }

    #[cfg(feature = "browser")]
    fn browser_has_login(&self) -> bool {
        self.runtime()
            .is_some_and(|rt| rt.partition() == ferret_core::Partition::Login)
    }

    #[cfg(not(feature = "browser"))]
    fn browser_has_login(&self) -> bool {
        false
    }

    /// What the ladder's first step reads as: the browser's when the
    /// browser is required, else plain HTTP's.
    pub(crate) fn first_step_provenance(&self, options: &FetchOptions) -> Provenance {
        match options.browser.unwrap_or(self.config().browser_mode) {
            BrowserMode::Required => self.browser_provenance(),
            BrowserMode::Auto | BrowserMode::Never => HTTP_READ,
        }
    }

    /// What the browser step reads as (the runtime's provenance now; a
    /// render reports the one of the browser that actually served it).
    #[cfg(feature = "browser")]
    fn browser_provenance(&self) -> Provenance {
        match self.runtime() {
            Some(rt) => rt.provenance(),
            None => Provenance::public(Runtime::ChromiumManaged),
        }
    }

    #[cfg(not(feature = "browser"))]
    fn browser_provenance(&self) -> Provenance {
        Provenance::public(Runtime::ChromiumManaged)
    }

    #[cfg(feature = "browser")]
    async fn browser_step(&self, url: &Url, options: &FetchOptions) -> Result<Reading, FetchError> {
        let Some(runtime) = self.runtime() else {
            return Err(FetchError::BrowserUnavailable {
                url: url.to_string(),
                reason: self.browser_unavailable_reason(),
            });
        };
        let config = self.config();
        super::browser::render(
            runtime.as_ref(),
            &config.browser_space,
            url,
            config.browser_timeout,
            options,
        )
        .await
    }

    #[cfg(not(feature = "browser"))]
    async fn browser_step(
        &self,
        url: &Url,
        _options: &FetchOptions,
    ) -> Result<Reading, FetchError> {
        Err(FetchError::BrowserUnavailable {
            url: url.to_string(),
            reason: self.browser_unavailable_reason(),
        })
    }
}

/// `page` with how the cache served the HTTP reading, when that reading
/// is the one returned.
fn with_cache_status(mut page: FetchedPage, cache: Option<CacheStatus>) -> FetchedPage {
    if page.source == Source::Fetch {
        page.cache = cache;
    }
    page
}

/// robots.txt refused the page (or could not be read): recorded as the
/// HTTP step's failure; a public endpoint's reading, if any, is returned
/// with a warning, otherwise the error.
fn robots_refused(
    e: FetchError,
    url: &Url,
    t0: Instant,
    mut run: Run<'_>,
) -> Result<FetchedPage, FetchError> {
    let detail = e.to_string();
    run.attempt(
        Source::Fetch,
        url.as_str(),
        None,
        AttemptOutcome::Failed,
        detail.clone(),
        t0,
        &HTTP_READ,
    );
    match run.best() {
        Some(best) => {
            let code = match e {
                FetchError::RobotsDisallowed { .. } => WarningCode::RobotsDisallowed,
                _ => WarningCode::HttpFailed,
            };
            run.warnings.push(Warning::new(code, detail));
            run.finish(best)
        }
        None => Err(e),
    }
}

/// The HTTP branch always pushes its reading, so there is a candidate; this
/// keeps the ladder total without a panic if that ever changes.
fn unreachable_candidate(url: &str) -> Result<FetchedPage, FetchError> {
    Err(FetchError::Transport {
        url: url.to_string(),
        detail: "no step produced a reading".to_string(),
    })
}
