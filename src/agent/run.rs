//! Running each tool: parse the input, call the library, shape the answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ferret_core::fanout::{Progress, ProgressEvent};
use ferret_core::{EngineStatus, SearchResponse};
use ferret_evidence::research::{NormalizedResults, Research, ResearchOptions};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::compact::{self, clip_to_tokens};
use super::error::{ErrorKind, ToolError};
use super::inputs::{
    self, Detail, ExtractInput, FetchInput, PlanInput, ResearchInput, SearchInput, VerifyInput,
};
use super::{CallContext, ProgressUpdate, ToolOutput, Toolbox};

impl Toolbox {
    /// Route a call to its tool.
    pub(super) async fn dispatch(
        &self,
        name: &str,
        input: Value,
        context: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        match name {
            "search" => self.search(parse(input)?, context).await,
            "fetch" => self.fetch(parse(input)?).await,
            "verify" => self.verify(parse(input)?).await,
            "extract" => self.extract(parse(input)?).await,
            "research" => self.research(parse(input)?, context).await,
            "plan" => self.plan(parse(input)?).await,
            other => self.site_tool(other, input).await,
        }
    }

    async fn search(
        &self,
        input: SearchInput,
        context: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let budget = inputs::budget(input.max_tokens)?;
        let options = input.options()?.with_progress(progress(context));
        let response = self.ferret.search(&input.query, &options).await?;
        every_engine_failed(&response)?;
        let digest = compact::search::render(&response, budget);
        answer(input.detail, &response, &digest, digest.text.clone())
    }

    async fn fetch(&self, input: FetchInput) -> Result<ToolOutput, ToolError> {
        let budget = inputs::budget(input.max_tokens)?;
        let page = self
            .fetch
            .fetcher
            .fetch(&input.url, &input.options())
            .await?;
        let digest = compact::fetch::render(&page, budget);
        answer(input.detail, &page, &digest, digest.text.clone())
    }

    async fn verify(&self, input: VerifyInput) -> Result<ToolOutput, ToolError> {
        let report = self
            .fetch
            .fetcher
            .verify_with(&input.url, &input.options())
            .await;
        if let Some(kind) = refused(&report.reason) {
            return Err(ToolError::new(kind, &report.reason));
        }
        let text = format!(
            "{} — {} (ok: {}, score {}): {}",
            report.final_url,
            report.verdict.as_str(),
            report.ok,
            report.score.total,
            compact::clip_chars(&report.reason, 300)
        );
        full(&report, text)
    }

    async fn extract(&self, input: ExtractInput) -> Result<ToolOutput, ToolError> {
        if !input.schema.is_object() {
            return Err(ToolError::invalid("schema must be a JSON Schema object"));
        }
        let outcome = ferret_evidence::structured::extract_from_url(
            &self.fetch.fetcher,
            &input.url,
            &input.schema,
            input.browser,
        )
        .await;
        let mut text = format!("extract: {}", json_name(&outcome.verdict));
        if let Some(reason) = &outcome.reason {
            text.push_str(&format!(" — {}", compact::clip_chars(reason, 300)));
        }
        if outcome.is_extracted() {
            let data = serde_json::to_string(&outcome.data).unwrap_or_default();
            text.push_str(&format!(
                "\n{}",
                clip_to_tokens(&data, inputs::DEFAULT_MAX_TOKENS)
            ));
        }
        full(&outcome, text)
    }

    async fn research(
        &self,
        input: ResearchInput,
        context: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let budget = inputs::budget(input.max_tokens)?;
        let options = input.options(progress(context))?;
        step(context, 0.0, "planning and searching");
        let report = match &input.results {
            Some(rows) => self.research_rows(&input.question, rows, &options).await?,
            None => self.research_engines(&input.question, &options).await?,
        };
        step(context, 1.0, "decided");
        let digest = compact::research::render(&report, budget);
        answer(input.detail, &report, &digest, digest.text.clone())
    }

    async fn research_rows(
        &self,
        question: &str,
        rows: &Value,
        options: &ResearchOptions,
    ) -> Result<ferret_evidence::research::ResearchReport, ToolError> {
        let results = NormalizedResults::from_json(&rows.to_string(), question)
            .map_err(|e| ToolError::invalid(format!("results: {e}")))?;
        Research::builder(self.fetch.fetcher.clone())
            .build()
            .run_with_results(question, results, options)
            .await
            .map_err(|e| ToolError::new(ErrorKind::Internal, e.to_string()))
    }

    async fn research_engines(
        &self,
        question: &str,
        options: &ResearchOptions,
    ) -> Result<ferret_evidence::research::ResearchReport, ToolError> {
        #[allow(unused_mut)]
        let mut builder = self.ferret.research(self.fetch.fetcher.clone());
        #[cfg(feature = "local-index")]
        if let Some(index) = &self.local {
            builder = builder.local_documents(Arc::new(crate::setup::IndexedFiles(index.clone())));
        }
        builder
            .build()
            .run(question, options)
            .await
            .map_err(|e| ToolError::new(ErrorKind::Engine, e.to_string()))
    }

    async fn plan(&self, input: PlanInput) -> Result<ToolOutput, ToolError> {
        let plan = self.ferret.plan(&input.query, &input.options()?).await?;
        let mut text = format!(
            "plan: {} — intent {}, mode {}",
            compact::clip_chars(&plan.query, 200),
            plan.intent,
            plan.mode
        );
        for q in &plan.sub_queries {
            text.push_str(&format!("\n- query: {}", compact::clip_chars(&q.text, 200)));
        }
        for c in &plan.constraints {
            text.push_str(&format!(
                "\n- must hold: {} {}",
                c.id,
                compact::clip_chars(&c.text, 200)
            ));
        }
        full(&plan, text)
    }

    /// The site-skill tools (feature `browser`).
    async fn site_tool(&self, name: &str, input: Value) -> Result<ToolOutput, ToolError> {
        #[cfg(feature = "browser")]
        if super::tools::definition(name).is_some() {
            let Some(site) = &self.site else {
                return Err(ToolError::new(
                    ErrorKind::Browser,
                    "no browser is configured",
                ));
            };
            let value = site
                .call_tool(name, &input)
                .await
                .map_err(|e| ToolError::new(site_error_kind(&e), e.to_string()))?;
            let text = clip_to_tokens(&value.to_string(), inputs::DEFAULT_MAX_TOKENS);
            return Ok(ToolOutput {
                structured: value,
                text,
            });
        }
        let _ = input;
        let names: Vec<&str> = super::tools::definitions().iter().map(|d| d.name).collect();
        Err(ToolError::new(
            ErrorKind::UnknownTool,
            format!("no tool {name:?}; the tools are {}", names.join(", ")),
        ))
    }
}

#[cfg(feature = "browser")]
fn site_error_kind(e: &ferret_site_skills::SkillError) -> ErrorKind {
    use ferret_site_skills::SkillError;
    let text = e.to_string();
    match e {
        SkillError::InvalidInput { .. } => ErrorKind::InvalidInput,
        _ if text.contains("blocked") || text.contains("guard") => ErrorKind::Guard,
        _ => super::error::browser_kind(&text),
    }
}

/// The input of a tool, parsed strictly; no arguments count as `{}`.
fn parse<T: DeserializeOwned>(input: Value) -> Result<T, ToolError> {
    let input = if input.is_null() {
        Value::Object(Default::default())
    } else {
        input
    };
    serde_json::from_value(input).map_err(|e| ToolError::invalid(format!("invalid arguments: {e}")))
}

/// The answer at the detail asked for: the digest and its text, or the
/// whole envelope.
fn answer<F: Serialize, D: Serialize>(
    detail: Detail,
    envelope: &F,
    digest: &D,
    text: String,
) -> Result<ToolOutput, ToolError> {
    match detail {
        Detail::Compact => Ok(ToolOutput {
            structured: to_json(digest)?,
            text,
        }),
        Detail::Full => full(envelope, String::new()),
    }
}

/// The whole envelope; the text is `text`, or the envelope as JSON.
fn full<T: Serialize>(envelope: &T, text: String) -> Result<ToolOutput, ToolError> {
    let structured = to_json(envelope)?;
    let text = if text.is_empty() {
        structured.to_string()
    } else {
        text
    };
    Ok(ToolOutput { structured, text })
}

fn to_json<T: Serialize>(value: &T) -> Result<Value, ToolError> {
    serde_json::to_value(value)
        .map_err(|e| ToolError::new(ErrorKind::Internal, format!("cannot write the answer: {e}")))
}

/// The serde name of a unit enum value.
fn json_name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A search where no engine answered is a failed call, naming each engine's
/// reason; engines that failed beside one that answered are in the answer.
fn every_engine_failed(r: &SearchResponse) -> Result<(), ToolError> {
    let ran: Vec<_> = r
        .engines
        .iter()
        .filter(|e| e.status != EngineStatus::Skipped)
        .collect();
    if !r.results.is_empty() || ran.is_empty() || ran.iter().any(|e| e.status == EngineStatus::Ok) {
        return Ok(());
    }
    let kind = if ran.iter().all(|e| e.status == EngineStatus::Timeout) {
        ErrorKind::Timeout
    } else {
        ErrorKind::Engine
    };
    let reasons: Vec<String> = ran
        .iter()
        .map(|e| format!("{} ({})", e.name, e.message.as_deref().unwrap_or("failed")))
        .collect();
    Err(ToolError::new(
        kind,
        format!("every engine failed: {}", reasons.join("; ")),
    ))
}

/// A verify verdict that is really a refusal (the URL guard, pro mode).
fn refused(reason: &str) -> Option<ErrorKind> {
    if reason.contains("pro mode is off") {
        Some(ErrorKind::ProModeRequired)
    } else {
        None
    }
}

fn step(context: &CallContext, progress: f64, message: &str) {
    if let Some(sink) = &context.progress {
        sink(ProgressUpdate {
            progress,
            message: message.to_string(),
        });
    }
}

/// The search's progress events as progress updates.
fn progress(context: &CallContext) -> Progress {
    let Some(sink) = context.progress.clone() else {
        return Progress::default();
    };
    let count = Arc::new(AtomicU64::new(0));
    Progress::callback(move |event| {
        let message = match event {
            ProgressEvent::Planned { sub_queries, .. } => {
                format!(
                    "planned {} sub-quer{}",
                    sub_queries.len(),
                    if sub_queries.len() == 1 { "y" } else { "ies" }
                )
            }
            ProgressEvent::EngineFinished { engine, count, .. } => {
                format!("{engine}: {count} hit(s)")
            }
            ProgressEvent::EngineFailed {
                engine, message, ..
            } => {
                format!("{engine} failed: {}", compact::clip_chars(message, 120))
            }
            _ => return,
        };
        let n = count.fetch_add(1, Ordering::Relaxed) + 1;
        sink(ProgressUpdate {
            progress: n as f64,
            message,
        });
    })
}
