//! Language models over the OpenAI-compatible chat-completions API.
//!
//! - [`ChatClient`]: a reusable client (base URL, key, model, temperature
//!   0.1, `max_tokens` 2048, 30 s budget by default) whose
//!   [`ChatClient::complete`] returns the assistant's text, whether the
//!   server answered plain JSON or an SSE stream. Deep research reuses it.
//! - [`parse`]: the tolerant readers: SSE `data:` lines up to `[DONE]`,
//!   `<think>…</think>` blocks removed, JSON found inside code fences or
//!   prose, links kept only when they are http(s).
//! - [`GrokEngine`] (`grok`): a search engine that asks a model (default
//!   `grok-4.1-fast`) for JSON results, with the current time injected for
//!   time-sensitive queries (the time words of [`grok::TIME_WORDS`], an
//!   injectable clock).

pub mod chat;
pub mod grok;
pub mod parse;

pub use chat::{ChatClient, ChatClientBuilder, ChatMessage};
pub use grok::{GrokBuilder, GrokEngine};
