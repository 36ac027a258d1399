//! HTTP status → [`EngineError`], shared by every adapter.
//!
//! | Status | Error |
//! |---|---|
//! | 2xx | none ([`check`] returns `Ok`) |
//! | 429 | [`RateLimited`](EngineError::RateLimited) with `Retry-After` (seconds or HTTP-date), else the `x-ratelimit-reset` wait; without a wait: [`Captcha`](EngineError::Captcha) / [`BotDetected`](EngineError::BotDetected) for an HTML captcha / challenge page ([`markers::block_page`]), [`Quota`](EngineError::Quota) when the body talks about quota or credit |
//! | 401 | [`Auth`](EngineError::Auth), saying which key to set |
//! | 402, 432, 433 | `Quota` (432/433 are Tavily's plan and pay-as-you-go limits) |
//! | 403 | `RateLimited` when `x-ratelimit-remaining: 0` or `Retry-After` (GitHub); `Captcha` / `BotDetected` for a captcha / challenge page; `Quota` for a quota body; else [`AccessDenied`](EngineError::AccessDenied) |
//! | 400, 422 | `Auth` when the body is about the key; else [`InvalidQuery`](EngineError::InvalidQuery) |
//! | 404 | persistent [`Transport`](EngineError::Transport): the endpoint is wrong |
//! | 408 | temporary `Transport` |
//! | 5xx | temporary `Transport` |
//! | anything else | persistent `Transport` |

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ferret_core::EngineError;
use reqwest::header::HeaderMap;

use super::client::Fetched;
use super::markers;

/// Who is being called, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Service {
    /// The service's name in messages (`"Brave Search API"`).
    pub display: &'static str,
    /// What to do about credentials (`"set BRAVE_API_KEY"`); `None` for
    /// keyless services.
    pub credential_hint: Option<&'static str>,
}

impl Service {
    /// The error for a call made without a configured key.
    pub fn missing_key(&self) -> EngineError {
        EngineError::Auth {
            message: format!(
                "no API key is configured for {}; {}",
                self.display,
                self.credential_hint.unwrap_or("configure one")
            ),
        }
    }

    fn key_advice(&self) -> String {
        match self.credential_hint {
            Some(hint) => format!("check the key ({hint})"),
            None => "this service needs no key; check the base URL points at it".to_string(),
        }
    }
}

/// `Ok` for a 2xx answer, otherwise the typed error (see the module table).
pub fn check(fetched: &Fetched, service: &Service) -> Result<(), EngineError> {
    if fetched.is_success() {
        Ok(())
    } else {
        Err(error_for(fetched, service, SystemTime::now()))
    }
}

/// The typed error for a non-2xx answer received at `now`.
pub fn error_for(fetched: &Fetched, service: &Service, now: SystemTime) -> EngineError {
    let reply = Reply::read(fetched, service, now);
    match fetched.status {
        429 => reply.too_many_requests(),
        401 => reply.unauthorized(),
        402 | 432 | 433 => reply.out_of_credit(),
        403 => reply.forbidden(),
        400 | 422 => reply.bad_request(),
        404 => reply.not_found(),
        408 => EngineError::transport(format!("{} timed out the request (HTTP 408)", reply.name)),
        500..=599 => reply.server_error(),
        _ => reply.unexpected(),
    }
}

/// What a non-2xx answer says, read once for every status arm of [`error_for`].
struct Reply<'a> {
    fetched: &'a Fetched,
    service: &'a Service,
    status: u16,
    name: &'static str,
    /// The start of the body, quoted in messages.
    said: String,
    /// The `Retry-After` wait.
    wait: Option<Duration>,
    /// `Some` when the rate-limit headers say the budget is spent (with the
    /// reset wait when they give one).
    exhausted: Option<Option<Duration>>,
    /// A captcha or challenge page, for HTML answers.
    block: Option<markers::Block>,
    /// The body talks about quota or credit.
    quota: bool,
}

impl<'a> Reply<'a> {
    fn read(fetched: &'a Fetched, service: &'a Service, now: SystemTime) -> Self {
        let block = if fetched.is_html() {
            markers::block_page(&fetched.body)
        } else {
            None
        };
        Reply {
            fetched,
            service,
            status: fetched.status,
            name: service.display,
            said: excerpt(&fetched.body, 200),
            wait: retry_after(&fetched.headers, now),
            exhausted: rate_limit_exhausted(&fetched.headers, now),
            block,
            quota: markers::find(markers::QUOTA, &fetched.body).is_some(),
        }
    }

    /// The headers ask the caller to wait (or say the budget is spent).
    fn asks_to_wait(&self) -> bool {
        self.wait.is_some() || self.exhausted.is_some()
    }

    fn rate_limited(&self, retry_after: Option<Duration>) -> EngineError {
        EngineError::RateLimited {
            retry_after,
            message: format!("{} answered HTTP {}: {}", self.name, self.status, self.said),
        }
    }

    /// The wait to report: `Retry-After` first, else the rate-limit reset.
    fn rate_limited_with_wait(&self) -> EngineError {
        self.rate_limited(self.wait.or(self.exhausted.flatten()))
    }

    /// 429: a wait, else a block page, else a quota body, else a plain rate limit.
    fn too_many_requests(self) -> EngineError {
        let name = self.name;
        if self.asks_to_wait() {
            self.rate_limited_with_wait()
        } else if let Some(block) = self.block {
            block.into_error(&format!("{name} answered HTTP 429"))
        } else if self.quota {
            EngineError::Quota {
                message: format!(
                    "{name} says the quota is used up (HTTP 429): {}; check the plan",
                    self.said
                ),
            }
        } else {
            self.rate_limited(None)
        }
    }

    fn unauthorized(&self) -> EngineError {
        EngineError::Auth {
            message: format!(
                "{} rejected the credentials (HTTP 401): {}; {}",
                self.name,
                self.said,
                self.service.key_advice()
            ),
        }
    }

    fn out_of_credit(&self) -> EngineError {
        EngineError::Quota {
            message: format!(
                "{} says the quota or credit is used up (HTTP {}): {}; top up or upgrade the plan",
                self.name, self.status, self.said
            ),
        }
    }

    /// 403: GitHub signals rate limits with it, so a wait comes first.
    fn forbidden(self) -> EngineError {
        let name = self.name;
        if self.asks_to_wait() {
            self.rate_limited_with_wait()
        } else if let Some(block) = self.block {
            block.into_error(&format!("{name} answered HTTP 403"))
        } else if self.quota {
            EngineError::Quota {
                message: format!(
                    "{name} refused the call because of quota or credit (HTTP 403): {}",
                    self.said
                ),
            }
        } else {
            EngineError::AccessDenied {
                message: format!(
                    "{name} refused access (HTTP 403): {}; {}",
                    self.said,
                    self.service.key_advice()
                ),
            }
        }
    }

    /// 400/422: some services answer a bad key this way.
    fn bad_request(&self) -> EngineError {
        if markers::find(markers::BAD_KEY, &self.fetched.body).is_some() {
            EngineError::Auth {
                message: format!(
                    "{} rejected the API key (HTTP {}): {}; {}",
                    self.name,
                    self.status,
                    self.said,
                    self.service.key_advice()
                ),
            }
        } else {
            EngineError::invalid_query(format!(
                "{} rejected the request (HTTP {}): {}",
                self.name, self.status, self.said
            ))
        }
    }

    fn not_found(&self) -> EngineError {
        EngineError::Transport {
            message: format!(
                "{} has no such endpoint (HTTP 404 for {}); check the base URL",
                self.name, self.fetched.url
            ),
            temporary: false,
        }
    }

    fn server_error(&self) -> EngineError {
        let retry = match self.wait {
            Some(d) => format!(" (it asks to retry after {} s)", d.as_secs()),
            None => String::new(),
        };
        EngineError::transport(format!(
            "{} failed with HTTP {}{retry}: {}",
            self.name, self.status, self.said
        ))
    }

    fn unexpected(&self) -> EngineError {
        EngineError::Transport {
            message: format!(
                "{} answered an unexpected HTTP {}: {}",
                self.name, self.status, self.said
            ),
            temporary: false,
        }
    }
}

/// The wait a `Retry-After` header asks for: delta seconds, or an HTTP-date
/// (a date in the past is a zero wait).
/// See [`ferret_core::politeness::parse_retry_after`].
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get("retry-after")?.to_str().ok()?;
    ferret_core::politeness::parse_retry_after(value, now)
}

/// `Some(wait)` when `x-ratelimit-remaining` is 0 (GitHub and others):
/// the wait until `x-ratelimit-reset` (epoch seconds; epoch milliseconds
/// are recognised too), or `Some(None)` when no reset time is given.
pub fn rate_limit_exhausted(headers: &HeaderMap, now: SystemTime) -> Option<Option<Duration>> {
    let remaining = headers
        .get("x-ratelimit-remaining")?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()?;
    if remaining != 0 {
        return None;
    }
    let reset = headers
        .get("x-ratelimit-reset")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let wait = reset.map(|r| {
        let at = if r > 100_000_000_000 {
            UNIX_EPOCH + Duration::from_millis(r)
        } else {
            UNIX_EPOCH + Duration::from_secs(r)
        };
        at.duration_since(now).unwrap_or(Duration::ZERO)
    });
    Some(wait)
}

/// A short, single-line rendering of a body for error messages: tags
/// removed, whitespace collapsed, at most `max` characters.
pub fn excerpt(body: &[u8], max: usize) -> String {
    let head = &body[..body.len().min(64 * 1024)];
    let text = String::from_utf8_lossy(head);
    let mut out = String::new();
    let mut in_tag = false;
    let mut last_space = true;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                if !last_space {
                    out.push(' ');
                    last_space = true;
                }
            }
            _ if in_tag => {}
            c if c.is_whitespace() => {
                if !last_space {
                    out.push(' ');
                    last_space = true;
                }
            }
            c => {
                out.push(c);
                last_space = false;
            }
        }
        if out.chars().count() > max {
            break;
        }
    }
    let trimmed = out.trim();
    if trimmed.is_empty() {
        return "(empty body)".to_string();
    }
    if trimmed.chars().count() > max {
        let cut: String = trimmed.chars().take(max).collect();
        format!("{cut}…")
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::ErrorKind;
    use reqwest::header::HeaderValue;
    use url::Url;

    const SVC: Service = Service {
        display: "Test API",
        credential_hint: Some("set TEST_API_KEY"),
    };

    fn fetched(status: u16, headers: &[(&'static str, &str)], body: &str) -> Fetched {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        Fetched {
            status,
            headers: map,
            url: Url::parse("http://127.0.0.1/x").unwrap(),
            body: body.as_bytes().to_vec(),
            truncated: false,
            limit: 1 << 20,
        }
    }

    fn kind(status: u16, headers: &[(&'static str, &str)], body: &str) -> ErrorKind {
        error_for(&fetched(status, headers, body), &SVC, SystemTime::now()).kind()
    }

    #[test]
    fn statuses_map_to_kinds() {
        assert_eq!(kind(429, &[], "slow down"), ErrorKind::RateLimited);
        assert_eq!(kind(401, &[], "nope"), ErrorKind::Auth);
        assert_eq!(kind(402, &[], ""), ErrorKind::Quota);
        assert_eq!(kind(432, &[], ""), ErrorKind::Quota);
        assert_eq!(kind(403, &[], "forbidden"), ErrorKind::AccessDenied);
        assert_eq!(
            kind(422, &[], r#"{"error":"bad field"}"#),
            ErrorKind::InvalidQuery
        );
        assert_eq!(kind(500, &[], ""), ErrorKind::Transport);
        assert_eq!(kind(503, &[], ""), ErrorKind::Transport);
        assert_eq!(kind(404, &[], ""), ErrorKind::Transport);
    }

    #[test]
    fn server_errors_are_temporary_and_404_is_not() {
        let e = error_for(&fetched(502, &[], ""), &SVC, SystemTime::now());
        assert!(e.is_temporary());
        let e = error_for(&fetched(404, &[], ""), &SVC, SystemTime::now());
        assert!(!e.is_temporary());
        assert!(e.to_string().contains("base URL"), "{e}");
    }

    #[test]
    fn brave_style_bad_token_on_422_is_auth_with_the_variable() {
        let e = error_for(
            &fetched(
                422,
                &[],
                r#"{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}"#,
            ),
            &SVC,
            SystemTime::now(),
        );
        assert_eq!(e.kind(), ErrorKind::Auth);
        assert!(e.to_string().contains("TEST_API_KEY"), "{e}");
    }

    #[test]
    fn challenge_pages_are_bot_detection_and_quota_bodies_are_quota() {
        let html = [("content-type", "text/html")];
        assert_eq!(
            kind(
                403,
                &html,
                "<title>Attention Required! | Cloudflare</title>"
            ),
            ErrorKind::BotDetected
        );
        assert_eq!(
            kind(403, &[], r#"{"error":"credits exhausted"}"#),
            ErrorKind::Quota
        );
        assert_eq!(
            kind(429, &[], r#"{"error":"monthly quota exceeded"}"#),
            ErrorKind::Quota
        );
        assert_eq!(
            kind(
                429,
                &html,
                "<html>Our systems have detected unusual traffic</html>"
            ),
            ErrorKind::BotDetected
        );
    }

    #[test]
    fn retry_after_in_seconds_and_http_date() {
        let now = SystemTime::now();
        let e = error_for(&fetched(429, &[("retry-after", "7")], ""), &SVC, now);
        assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
        let at = httpdate::fmt_http_date(now + Duration::from_secs(120));
        let e = error_for(&fetched(429, &[("retry-after", &at)], ""), &SVC, now);
        let wait = e.retry_after().unwrap();
        assert!(
            wait <= Duration::from_secs(120) && wait >= Duration::from_secs(118),
            "{wait:?}"
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(60));
        let e = error_for(&fetched(429, &[("retry-after", &past)], ""), &SVC, now);
        assert_eq!(e.retry_after(), Some(Duration::ZERO));
    }

    #[test]
    fn github_style_exhausted_rate_limit_on_403() {
        let now = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let e = error_for(
            &fetched(
                403,
                &[
                    ("x-ratelimit-remaining", "0"),
                    ("x-ratelimit-reset", "1700000042"),
                ],
                r#"{"message":"API rate limit exceeded"}"#,
            ),
            &SVC,
            now,
        );
        assert_eq!(e.kind(), ErrorKind::RateLimited);
        assert_eq!(e.retry_after(), Some(Duration::from_secs(42)));
        // octokit's fixtures normalise reset to milliseconds
        let e = error_for(
            &fetched(
                403,
                &[
                    ("x-ratelimit-remaining", "0"),
                    ("x-ratelimit-reset", "1700000042000"),
                ],
                "",
            ),
            &SVC,
            now,
        );
        assert_eq!(e.retry_after(), Some(Duration::from_secs(42)));
    }

    #[test]
    fn excerpt_strips_tags_and_caps_length() {
        assert_eq!(
            excerpt(b"<html><b>Hello</b>\n\n   world</html>", 50),
            "Hello world"
        );
        assert_eq!(excerpt(b"", 10), "(empty body)");
        let long = "x".repeat(500);
        assert_eq!(excerpt(long.as_bytes(), 10).chars().count(), 11);
    }
}
