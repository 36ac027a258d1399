//! [`EngineError`]: the typed failure of one engine call.
//!
//! Policy (retry, circuit breaking, reporting) reads the variant and
//! [`EngineError::is_temporary`], never the message text.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Why an engine call failed. Each variant carries a message for people; the
/// variant itself is what code matches on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// The service asked us to slow down (HTTP 429 or an equivalent body).
    #[error("rate limited{}: {message}", fmt_retry(.retry_after))]
    RateLimited {
        /// How long the service asked us to wait, when it said (`Retry-After`).
        retry_after: Option<Duration>,
        /// What the service said.
        message: String,
    },
    /// A captcha, anomaly or challenge page came back instead of results.
    #[error("bot detection / challenge page: {message}")]
    BotDetected {
        /// What was recognised.
        message: String,
    },
    /// An explicit captcha a person must solve (a hard block, as opposed to
    /// the softer anomaly / challenge pages of [`EngineError::BotDetected`]).
    /// Circuit breakers suspend the engine for longer on this kind.
    #[error("captcha required: {message}")]
    Captcha {
        /// What was recognised.
        message: String,
    },
    /// The service refused access (HTTP 403 without a challenge body).
    #[error("access denied: {message}")]
    AccessDenied {
        /// What the service said.
        message: String,
    },
    /// Missing or wrong credentials (HTTP 401, no API key configured).
    #[error("authentication failed: {message}")]
    Auth {
        /// What was wrong and which key or variable to set.
        message: String,
    },
    /// The account's quota or credit is used up (HTTP 402 or a quota body).
    #[error("quota exhausted: {message}")]
    Quota {
        /// What the service said.
        message: String,
    },
    /// The call did not finish within its time budget.
    #[error("timed out after {} ms", .after.as_millis())]
    Timeout {
        /// The budget that ran out.
        after: Duration,
    },
    /// The request could not be delivered or the service failed (connect
    /// errors, 5xx, truncated bodies).
    #[error("transport error: {message}")]
    Transport {
        /// What failed.
        message: String,
        /// Whether trying again later may succeed.
        temporary: bool,
    },
    /// The response could not be understood (malformed or unexpected body).
    #[error("could not parse the response: {message}")]
    Parse {
        /// What was malformed.
        message: String,
    },
    /// The request itself is unacceptable (empty query, bad option).
    #[error("invalid query: {message}")]
    InvalidQuery {
        /// What is wrong with the request.
        message: String,
    },
    /// The engine cannot serve this kind of request.
    #[error("unsupported: {message}")]
    Unsupported {
        /// What is unsupported.
        message: String,
    },
    /// A circuit breaker is open for this engine; no call was made.
    #[error("circuit open{}: {message}", fmt_retry(.retry_after))]
    CircuitOpen {
        /// Time until the breaker lets a probe through.
        retry_after: Option<Duration>,
        /// Why the breaker opened.
        message: String,
    },
}

fn fmt_retry(retry_after: &Option<Duration>) -> String {
    match retry_after {
        Some(d) => format!(" (retry after {} s)", d.as_secs_f64()),
        None => String::new(),
    }
}

/// The variant of an [`EngineError`] without its data: what reports and JSON
/// carry (`error_kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// See [`EngineError::RateLimited`].
    RateLimited,
    /// See [`EngineError::BotDetected`].
    BotDetected,
    /// See [`EngineError::Captcha`].
    Captcha,
    /// See [`EngineError::AccessDenied`].
    AccessDenied,
    /// See [`EngineError::Auth`].
    Auth,
    /// See [`EngineError::Quota`].
    Quota,
    /// See [`EngineError::Timeout`].
    Timeout,
    /// See [`EngineError::Transport`].
    Transport,
    /// See [`EngineError::Parse`].
    Parse,
    /// See [`EngineError::InvalidQuery`].
    InvalidQuery,
    /// See [`EngineError::Unsupported`].
    Unsupported,
    /// See [`EngineError::CircuitOpen`].
    CircuitOpen,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::RateLimited,
        ErrorKind::BotDetected,
        ErrorKind::Captcha,
        ErrorKind::AccessDenied,
        ErrorKind::Auth,
        ErrorKind::Quota,
        ErrorKind::Timeout,
        ErrorKind::Transport,
        ErrorKind::Parse,
        ErrorKind::InvalidQuery,
        ErrorKind::Unsupported,
        ErrorKind::CircuitOpen,
    ];

    /// The snake_case name used in JSON and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::BotDetected => "bot_detected",
            ErrorKind::Captcha => "captcha",
            ErrorKind::AccessDenied => "access_denied",
            ErrorKind::Auth => "auth",
            ErrorKind::Quota => "quota",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Transport => "transport",
            ErrorKind::Parse => "parse",
            ErrorKind::InvalidQuery => "invalid_query",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::CircuitOpen => "circuit_open",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl EngineError {
    /// The variant without its data.
    pub fn kind(&self) -> ErrorKind {
        match self {
            EngineError::RateLimited { .. } => ErrorKind::RateLimited,
            EngineError::BotDetected { .. } => ErrorKind::BotDetected,
            EngineError::Captcha { .. } => ErrorKind::Captcha,
            EngineError::AccessDenied { .. } => ErrorKind::AccessDenied,
            EngineError::Auth { .. } => ErrorKind::Auth,
            EngineError::Quota { .. } => ErrorKind::Quota,
            EngineError::Timeout { .. } => ErrorKind::Timeout,
            EngineError::Transport { .. } => ErrorKind::Transport,
            EngineError::Parse { .. } => ErrorKind::Parse,
            EngineError::InvalidQuery { .. } => ErrorKind::InvalidQuery,
            EngineError::Unsupported { .. } => ErrorKind::Unsupported,
            EngineError::CircuitOpen { .. } => ErrorKind::CircuitOpen,
        }
    }

    /// Whether the same call may succeed if tried again soon: rate limits,
    /// timeouts and temporary transport failures. A retry layer retries only
    /// these; everything else is persistent.
    pub fn is_temporary(&self) -> bool {
        match self {
            EngineError::RateLimited { .. } | EngineError::Timeout { .. } => true,
            EngineError::Transport { temporary, .. } => *temporary,
            _ => false,
        }
    }

    /// The wait the service asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            EngineError::RateLimited { retry_after, .. }
            | EngineError::CircuitOpen { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The same error with a temporary transport failure made persistent: a
    /// retry layer uses this on its final failure so that an outer retry does
    /// not multiply the attempts. Rate limits and timeouts keep their kind,
    /// because circuit breakers and reports depend on it.
    pub fn into_persistent(self) -> Self {
        match self {
            EngineError::Transport { message, .. } => EngineError::Transport {
                message,
                temporary: false,
            },
            other => other,
        }
    }

    /// Shorthand for [`EngineError::Parse`].
    pub fn parse(message: impl Into<String>) -> Self {
        EngineError::Parse {
            message: message.into(),
        }
    }

    /// Shorthand for [`EngineError::InvalidQuery`].
    pub fn invalid_query(message: impl Into<String>) -> Self {
        EngineError::InvalidQuery {
            message: message.into(),
        }
    }

    /// Shorthand for a temporary [`EngineError::Transport`].
    pub fn transport(message: impl Into<String>) -> Self {
        EngineError::Transport {
            message: message.into(),
            temporary: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_serialise_snake_case() {
        for kind in ErrorKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            let back: ErrorKind = serde_json::from_str(&json).unwrap();
            assert_eq!(back, kind);
        }
    }

    #[test]
    fn only_rate_limits_timeouts_and_temporary_transport_are_temporary() {
        assert!(
            EngineError::RateLimited {
                retry_after: None,
                message: String::new()
            }
            .is_temporary()
        );
        assert!(
            EngineError::Timeout {
                after: Duration::from_secs(1)
            }
            .is_temporary()
        );
        assert!(EngineError::transport("x").is_temporary());
        assert!(
            !EngineError::Transport {
                message: String::new(),
                temporary: false
            }
            .is_temporary()
        );
        assert!(
            !EngineError::BotDetected {
                message: String::new()
            }
            .is_temporary()
        );
        assert!(!EngineError::parse("x").is_temporary());
    }

    #[test]
    fn into_persistent_keeps_kind_and_ends_transport_retries() {
        let e = EngineError::transport("x").into_persistent();
        assert_eq!(e.kind(), ErrorKind::Transport);
        assert!(!e.is_temporary());
        let rl = EngineError::RateLimited {
            retry_after: Some(Duration::from_secs(2)),
            message: "slow down".into(),
        };
        assert_eq!(rl.clone().into_persistent(), rl);
    }
}
