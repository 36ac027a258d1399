//! [`ChatClient`]: an OpenAI-compatible `POST …/chat/completions` client,
//! the network [`ChatModel`] of Ferret.

use std::time::Duration;

use async_trait::async_trait;
use ferret_core::EngineError;
use ferret_core::chat::ChatModel;
use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde_json::json;
use url::Url;

use super::parse;
use crate::http::config::{ServiceDefaults, common_setters};
use crate::http::{ConfigError, HttpClient, Service, ServiceConfig, status};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: ChatClient::DEFAULT_BASE_URL,
    timeout: Duration::from_secs(30),
    body_limit: HttpClient::DEFAULT_BODY_LIMIT,
    user_agent: HttpClient::DEFAULT_USER_AGENT,
};

const GENERIC: Service = Service {
    display: "chat-completions API",
    credential_hint: Some("configure the API key"),
};

/// One chat message (the shared [`ferret_core::chat::ChatMessage`]).
pub use ferret_core::chat::ChatMessage;

/// A chat-completions client: base URL, optional key, model and sampling
/// options. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ChatClient {
    http: HttpClient,
    endpoint: Url,
    api_key: Option<String>,
    model: String,
    temperature: f32,
    max_tokens: u32,
    service: Service,
}

/// Builder for [`ChatClient`].
#[derive(Debug, Clone)]
pub struct ChatClientBuilder {
    service: ServiceConfig,
    model: String,
    temperature: f32,
    max_tokens: u32,
    names: Service,
}

impl Default for ChatClientBuilder {
    fn default() -> Self {
        ChatClientBuilder {
            service: ServiceConfig::new(),
            model: String::new(),
            temperature: ChatClient::DEFAULT_TEMPERATURE,
            max_tokens: ChatClient::DEFAULT_MAX_TOKENS,
            names: GENERIC,
        }
    }
}

impl ChatClientBuilder {
    common_setters!();

    /// The API key, sent as `Authorization: Bearer …` (none: no header, for
    /// local servers that need no key).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.service = self.service.api_key(key);
        self
    }

    /// The model name.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Sampling temperature (default 0.1).
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = temperature;
        self
    }

    /// `max_tokens` (default 2048).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens.max(1);
        self
    }

    /// How the service is named in errors and which key to set.
    pub fn service(mut self, service: Service) -> Self {
        self.names = service;
        self
    }

    /// Build the client. The base URL may end at the API root
    /// (`https://api.x.ai/v1`) or include `/chat/completions`.
    pub fn build(self) -> Result<ChatClient, ConfigError> {
        if self.model.trim().is_empty() {
            return Err(ConfigError::InvalidOption(
                "the chat model name is empty; set a model (e.g. GROK_MODEL)".into(),
            ));
        }
        if !(0.0..=2.0).contains(&self.temperature) {
            return Err(ConfigError::InvalidOption(format!(
                "temperature {} is outside 0.0..=2.0",
                self.temperature
            )));
        }
        Ok(ChatClient {
            http: self.service.client(&DEFAULTS)?,
            endpoint: self.service.endpoint(&DEFAULTS, "/chat/completions")?,
            api_key: self.service.key().map(str::to_string),
            model: self.model.trim().to_string(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            service: self.names,
        })
    }
}

impl ChatClient {
    /// Default API root (OpenAI's).
    pub const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    /// Default temperature.
    pub const DEFAULT_TEMPERATURE: f32 = 0.1;
    /// Default `max_tokens`.
    pub const DEFAULT_MAX_TOKENS: u32 = 2048;
    /// Default budget of one completion.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

    /// A builder with the defaults (a model must be set).
    pub fn builder() -> ChatClientBuilder {
        ChatClientBuilder::default()
    }

    /// The completions URL.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    /// The model name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Whether a key is configured.
    pub fn has_api_key(&self) -> bool {
        self.api_key.is_some()
    }

    /// How the service is named in errors.
    pub fn service(&self) -> &Service {
        &self.service
    }

    /// The budget of one completion.
    pub fn timeout(&self) -> Duration {
        self.http.timeout()
    }

    /// The JSON body sent for `messages`.
    pub fn request_body(&self, messages: &[ChatMessage]) -> serde_json::Value {
        json!({
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stream": false,
        })
    }

    /// Send `messages` and return the assistant's text (`<think>` blocks
    /// kept; see [`parse::strip_reasoning`]). Plain JSON and SSE answers
    /// are both understood.
    pub async fn complete(&self, messages: &[ChatMessage]) -> Result<String, EngineError> {
        let mut call = self
            .http
            .post(self.endpoint.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .json(&self.request_body(messages));
        if let Some(key) = &self.api_key {
            call = call.header(AUTHORIZATION, format!("Bearer {key}"));
        }
        let fetched = self.http.send(call).await?;
        status::check(&fetched, &self.service)?;
        if fetched.truncated {
            return Err(fetched.cap_error(&self.service));
        }
        parse::completion_text(&fetched.body).map_err(|e| match e {
            EngineError::Parse { message } => {
                EngineError::parse(format!("{}: {message}", self.service.display))
            }
            other => other,
        })
    }
}

#[async_trait]
impl ChatModel for ChatClient {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<String, EngineError> {
        ChatClient::complete(self, messages).await
    }

    fn model(&self) -> &str {
        ChatClient::model(self)
    }
}
