//! `ferret plan "<q>"`: the `ferret.plan.v1` envelope.

use std::process::ExitCode;

use clap::Args;
use ferret::core::Intent;
use ferret::core::plan::{HeuristicPlanner, PlanOptions};

use crate::output::{CmdResult, print_json};

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The question or query.
    query: String,
    /// Use this intent instead of classifying (factual, status, comparison,
    /// tutorial, exploratory, news, resource).
    #[arg(long)]
    intent: Option<Intent>,
    /// The most sub-queries to plan.
    #[arg(long)]
    max_sub_queries: Option<usize>,
    /// Print the JSON envelope.
    #[arg(long)]
    json: bool,
}

pub async fn run(args: PlanArgs) -> CmdResult {
    let mut options = PlanOptions::new();
    if let Some(intent) = args.intent {
        options = options.with_intent(intent);
    }
    if let Some(n) = args.max_sub_queries {
        options = options.with_max_sub_queries(n);
    }
    let plan = HeuristicPlanner::new().plan_sync(&args.query, &options)?;
    if args.json {
        return print_json(&plan);
    }
    say!("query:      {}", plan.query);
    say!(
        "intent:     {} ({}; {})",
        plan.intent,
        match plan.intent_source {
            ferret::core::plan::IntentSource::Classified => "classified",
            ferret::core::plan::IntentSource::Override => "override",
        },
        plan.intent_reason
    );
    say!("mode:       {}", plan.mode);
    match plan.freshness {
        Some(f) => say!("freshness:  {f} ({})", plan.freshness_reason),
        None => say!("freshness:  none ({})", plan.freshness_reason),
    }
    say!(
        "weights:    keyword {:.2} · freshness {:.2} · authority {:.2}",
        plan.weights.keyword,
        plan.weights.freshness,
        plan.weights.authority
    );
    if !plan.domain_boost.is_empty() {
        say!("boost:      {}", plan.domain_boost.join(", "));
    }
    say!("sub-queries:");
    for s in &plan.sub_queries {
        say!("  - {}  [{}]", s.text, serde_plain(&s.purpose));
    }
    if !plan.constraints.is_empty() {
        say!("constraints:");
        for c in &plan.constraints {
            let m = if c.mandatory { "" } else { " (optional)" };
            say!("  {} {}{m}  terms: {}", c.id, c.text, c.terms.join(" "));
        }
    }
    if !plan.focused_queries.is_empty() {
        say!("focused queries:");
        for f in &plan.focused_queries {
            say!("  - {}  [{}]", f.text, f.purpose.as_str());
        }
    }
    for d in &plan.dropped {
        say!("dropped: {} ({})", d.text, d.reason);
    }
    Ok(ExitCode::SUCCESS)
}

/// The serde name of a unit enum value.
fn serde_plain<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
