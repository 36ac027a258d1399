//! Talking to a language model, as the rest of Ferret sees it: a
//! [`ChatMessage`], the [`ChatModel`] trait (send messages, get the
//! assistant's text), and [`strip_reasoning`] for the `<think>` blocks some
//! models put before their answer.
//!
//! `ferret-engines`' OpenAI-compatible `ChatClient` implements
//! [`ChatModel`]; crates that only need to ask a model (deep escalation in
//! `ferret-evidence`) depend on this trait, not on the HTTP client.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::EngineError;

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

impl ChatMessage {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage {
            role: "system".into(),
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage {
            role: "user".into(),
            content: content.into(),
        }
    }
}

/// A language model that answers a conversation.
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// Sends `messages` and returns the assistant's text. Transport, HTTP
    /// status and body failures are typed [`EngineError`]s.
    async fn complete(&self, messages: &[ChatMessage]) -> Result<String, EngineError>;

    /// The model's name (reported with its answers).
    fn model(&self) -> &str;
}

/// `text` without `<think>…</think>` reasoning blocks (an unclosed
/// `<think>` drops everything after it), trimmed.
pub fn strip_reasoning(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        // ASCII lowercasing keeps byte offsets, so they index `rest`.
        let lower = rest.to_ascii_lowercase();
        let Some(start) = lower.find("<think>") else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..start]);
        match lower[start..].find("</think>") {
            Some(end) => rest = &rest[start + end + "</think>".len()..],
            None => break,
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_blocks_are_removed() {
        assert_eq!(strip_reasoning("<think>hmm</think> answer "), "answer");
        assert_eq!(strip_reasoning("a <THINK>x</Think> b"), "a  b");
        assert_eq!(strip_reasoning("answer <think>never closed"), "answer");
        assert_eq!(strip_reasoning("plain"), "plain");
    }
}
