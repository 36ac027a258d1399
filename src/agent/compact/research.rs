//! The compact `research` answer: the decision, each constraint with its
//! quote and URL, what is still missing, and the next action.

use ferret_evidence::research::ResearchReport;
use serde::Serialize;

use super::{Page, clip_chars};

/// One constraint as the compact answer shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactConstraint {
    /// The constraint's id (`c1`, …).
    pub id: String,
    /// supported, weak, pending, refuted, …
    pub status: String,
    /// What must be true.
    pub text: String,
    /// The verbatim quote that supports it, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// Where the quote is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// The compact `research` answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactResearch {
    /// The question.
    pub question: String,
    /// sufficient, insufficient, …
    pub status: String,
    /// What the agent should do next.
    pub next_action: String,
    /// The constraints shown.
    pub constraints: Vec<CompactConstraint>,
    /// Mandatory constraints no fetched page supports yet.
    pub missing: Vec<String>,
    /// Constraints left out for the budget.
    pub omitted: usize,
    /// The rendering.
    pub text: String,
}

/// Render `report` within `budget` estimated tokens.
pub fn render(report: &ResearchReport, budget: usize) -> CompactResearch {
    let ledger = &report.enrichment.ledger;
    let missing: Vec<String> = ledger
        .constraints
        .iter()
        .filter(|c| c.mandatory && !c.status.is_supported())
        .map(|c| format!("{} {}", c.id, clip_chars(&c.text, 120)))
        .collect();
    let mut page = Page::new(budget);
    page.push(&format!("research: {}", clip_chars(&report.query, 200)));
    page.push(&format!(
        "status: {} ({} page(s) read)",
        report.evidence_status.as_str(),
        ledger.pages_read
    ));
    page.push(&format!("next: {}", clip_chars(&report.agent_action, 300)));
    // What is missing comes before the details: it decides the next step.
    page.push(&clip_chars(&missing_line(&missing), 400));
    let constraints = push_constraints(&mut page, report);
    let omitted = ledger.constraints.len() - constraints.len();
    if omitted > 0 {
        page.push(&format!(
            "{omitted} constraint(s) left out for the budget (detail: \"full\")"
        ));
    }
    for caveat in &report.caveats {
        if !page.push(&format!("caveat: {}", clip_chars(caveat, 200))) {
            break;
        }
    }
    CompactResearch {
        question: report.query.clone(),
        status: report.evidence_status.as_str().to_string(),
        next_action: report.agent_action.clone(),
        constraints,
        missing,
        omitted,
        text: page.into_text(),
    }
}

fn missing_line(missing: &[String]) -> String {
    if missing.is_empty() {
        "missing: nothing (every mandatory constraint is supported by a fetched page)".into()
    } else {
        format!("missing: {}", missing.join("; "))
    }
}

/// Each constraint with its first quote and URL, while they fit.
fn push_constraints(page: &mut Page, report: &ResearchReport) -> Vec<CompactConstraint> {
    let mut shown = Vec::new();
    for c in &report.enrichment.ledger.constraints {
        let evidence = c.evidence.first().or(c.refutations.first());
        let entry = CompactConstraint {
            id: c.id.clone(),
            status: c.status.as_str().to_string(),
            text: clip_chars(&c.text, 160),
            quote: evidence.map(|e| clip_chars(&e.quote.text, 300)),
            url: evidence.map(|e| e.url.clone()),
        };
        let mut block = format!("- [{}] {} {}", entry.status, entry.id, entry.text);
        if let (Some(q), Some(u)) = (&entry.quote, &entry.url) {
            block.push_str(&format!("\n  \"{q}\"\n  — {u}"));
        }
        if !page.push(&block) {
            break;
        }
        shown.push(entry);
    }
    shown
}
