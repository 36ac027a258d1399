//! Deep escalation (`--deep`): when the ledger is **not** ready, ask a
//! language model about the unresolved constraints, giving it the readable
//! candidate context — through any [`ChatModel`] (the OpenAI-compatible
//! `ChatClient` of `ferret-engines` in the CLI).
//!
//! The prompt: the research question; what is already
//! confirmed (the readable candidates, each with its title, URL and the
//! first 200 characters of its text, and the supported constraints with
//! their verbatim quotes); what is still unresolved (the pending
//! constraints); and the instruction to find authoritative evidence,
//! cite primary sources with URLs, and keep confirmed facts apart from
//! inference.
//!
//! The answer is model output, **not** fetched evidence: it never enters
//! the ledger. `<think>` blocks are removed; an empty answer counts as no
//! text. A failure (transport, HTTP status, bad body) is reported in
//! [`DeepResult::error`], never raised. The http(s) URLs the text cites are
//! listed in [`DeepResult::urls`] so that a host can fetch them as the next
//! candidates.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use ferret_core::chat::{ChatMessage, ChatModel, strip_reasoning};
use ferret_core::plan::Plan;
use serde::{Deserialize, Serialize};
use url::Url;

use super::enrich::Enrichment;

/// Characters of each candidate's text in the prompt.
pub const CONTEXT_EXCERPT_CHARS: usize = 200;
/// The most candidates in the prompt's context.
pub const MAX_CONTEXT_CANDIDATES: usize = 8;
/// The most cited URLs kept from the answer.
pub const MAX_CITED_URLS: usize = 20;

/// The system message.
pub const SYSTEM_PROMPT: &str = "You are a careful research assistant. Answer only with facts you can attribute to a source, cite primary sources with their URLs, and mark anything you infer as inference.";

/// What deep escalation returned: the vendor, the text or the error, the
/// model, the URLs cited and the time taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeepResult {
    /// The vendor label (`grok`, `chatgpt`, `gemini` …).
    pub vendor: String,
    /// The model asked.
    pub model: String,
    /// The answer (`None` when the call failed or the answer was empty).
    pub text: Option<String>,
    /// Why there is no text.
    pub error: Option<String>,
    /// The http(s) URLs the answer cites, in order, without repeats.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub urls: Vec<String>,
    /// The constraints the model was asked about.
    pub asked_about: Vec<String>,
    /// How long the call took.
    pub elapsed_ms: u64,
}

impl DeepResult {
    /// Whether the answer has text (what makes the status `partial`).
    pub fn has_text(&self) -> bool {
        self.text.as_deref().is_some_and(|t| !t.trim().is_empty())
    }
}

/// A configured deep escalation: a chat model and the vendor label it
/// stands for (the CLI picks the base URL, key and model from the
/// environment for `--vendor`).
#[derive(Clone)]
pub struct DeepEscalation {
    client: Arc<dyn ChatModel>,
    vendor: String,
}

impl fmt::Debug for DeepEscalation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeepEscalation")
            .field("vendor", &self.vendor)
            .field("model", &self.client.model())
            .finish()
    }
}

impl DeepEscalation {
    /// Deep escalation through `client` (any [`ChatModel`], such as
    /// `ferret_engines::llm::ChatClient`), reported as `vendor`.
    pub fn new(client: impl ChatModel + 'static, vendor: impl Into<String>) -> Self {
        Self::shared(Arc::new(client), vendor)
    }

    /// Deep escalation through a shared chat model.
    pub fn shared(client: Arc<dyn ChatModel>, vendor: impl Into<String>) -> Self {
        DeepEscalation {
            client,
            vendor: vendor.into(),
        }
    }

    /// The vendor label.
    pub fn vendor(&self) -> &str {
        &self.vendor
    }

    /// The chat model.
    pub fn client(&self) -> &dyn ChatModel {
        self.client.as_ref()
    }

    /// Asks about the pending constraints of `enrichment` (see the module
    /// docs). Callers run it only when the ledger is not ready.
    pub async fn run(&self, plan: &Plan, enrichment: &Enrichment) -> DeepResult {
        let started = Instant::now();
        let messages = deep_prompt(plan, enrichment);
        let asked_about = enrichment.ledger.pending.clone();
        let outcome = self.client.complete(&messages).await;
        let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (text, error) = match outcome {
            Ok(raw) => {
                let text = strip_reasoning(&raw);
                if text.trim().is_empty() {
                    (None, Some("the model returned no text".to_string()))
                } else {
                    (Some(text), None)
                }
            }
            Err(e) => (None, Some(e.to_string())),
        };
        DeepResult {
            vendor: self.vendor.clone(),
            model: self.client.model().to_string(),
            urls: text.as_deref().map(cited_urls).unwrap_or_default(),
            text,
            error,
            asked_about,
            elapsed_ms,
        }
    }
}

/// The messages sent for `enrichment` (see the module docs).
pub fn deep_prompt(plan: &Plan, enrichment: &Enrichment) -> Vec<ChatMessage> {
    let mut confirmed: Vec<String> = enrichment
        .candidates
        .iter()
        .filter(|c| c.ok)
        .take(MAX_CONTEXT_CANDIDATES)
        .map(|c| {
            let excerpt: String = c
                .text_excerpt
                .as_deref()
                .unwrap_or("(no text)")
                .chars()
                .take(CONTEXT_EXCERPT_CHARS)
                .collect();
            let title = if c.title.is_empty() { &c.url } else { &c.title };
            format!("- [{title}]({}): {excerpt}", c.final_url)
        })
        .collect();
    for constraint in enrichment
        .ledger
        .constraints
        .iter()
        .filter(|c| c.status.is_supported())
    {
        if let Some(e) = constraint.evidence.first() {
            confirmed.push(format!(
                "- Supported: {} — \"{}\" ({})",
                constraint.text, e.quote.text, e.url
            ));
        }
    }
    let unresolved: Vec<String> = enrichment
        .ledger
        .constraints
        .iter()
        .filter(|c| enrichment.ledger.pending.contains(&c.id))
        .enumerate()
        .map(|(i, c)| format!("{}. {}", i + 1, c.text))
        .collect();
    let mut user = vec![
        "## Research Question".to_string(),
        plan.query.clone(),
        String::new(),
        "## Already Confirmed".to_string(),
    ];
    if confirmed.is_empty() {
        user.push("(no confirmed evidence yet)".to_string());
    } else {
        user.extend(confirmed);
    }
    user.push(String::new());
    user.push("## Still Unresolved".to_string());
    user.extend(unresolved);
    user.push(String::new());
    user.push("## Instructions".to_string());
    user.push("Find authoritative evidence for the unresolved points above.".to_string());
    user.push(
        "Cite primary sources with URLs. Distinguish confirmed facts from inference.".to_string(),
    );
    vec![
        ChatMessage::system(SYSTEM_PROMPT),
        ChatMessage::user(user.join("\n")),
    ]
}

/// The http(s) URLs in `text`, in order, without repeats (trailing
/// punctuation and closing brackets trimmed).
pub fn cited_urls(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, _) in text.match_indices("http") {
        if out.len() >= MAX_CITED_URLS {
            break;
        }
        let rest = &text[i..];
        if !(rest.starts_with("http://") || rest.starts_with("https://")) {
            continue;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\'' | '`' | '|'))
            .unwrap_or(rest.len());
        let candidate = rest[..end].trim_end_matches(|c: char| {
            matches!(c, '.' | ',' | ';' | ':' | ')' | ']' | '}' | '!' | '?')
        });
        if let Ok(url) = Url::parse(candidate)
            && url.host_str().is_some()
            && !out.iter().any(|u| u == candidate)
        {
            out.push(candidate.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_in_prose_and_markdown() {
        let text = "See [the docs](https://example.com/docs/a). Also https://example.org/x?y=1, and https://example.com/docs/a again.";
        assert_eq!(
            cited_urls(text),
            vec![
                "https://example.com/docs/a".to_string(),
                "https://example.org/x?y=1".to_string()
            ]
        );
    }
}
