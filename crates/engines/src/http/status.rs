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
    let status = fetched.status;
    let name = service.display;
    let said = excerpt(&fetched.body, 200);
    let wait = retry_after(&fetched.headers, now);
    let exhausted = rate_limit_exhausted(&fetched.headers, now);
    let block = if fetched.is_html() {
        markers::block_page(&fetched.body)
    } else {
        None
    };
    let quota = markers::find(markers::QUOTA, &fetched.body);
    let rate_limited = |retry_after: Option<Duration>| EngineError::RateLimited {
        retry_after,
        message: format!("{name} answered HTTP {status}: {said}"),
    };
    match status {
        429 => {
            if wait.is_some() || exhausted.is_some() {
                rate_limited(wait.or(exhausted.flatten()))
            } else if let Some(block) = block {
                block.into_error(&format!("{name} answered HTTP 429"))
            } else if quota.is_some() {
                EngineError::Quota {
                    message: format!(
                        "{name} says the quota is used up (HTTP 429): {said}; check the plan"
                    ),
                }
            } else {
                rate_limited(None)
            }
        }
        401 => EngineError::Auth {
            message: format!(
                "{name} rejected the credentials (HTTP 401): {said}; {}",
                service.key_advice()
            ),
        },
        402 | 432 | 433 => EngineError::Quota {
            message: format!(
                "{name} says the quota or credit is used up (HTTP {status}): {said}; top up or \
                 upgrade the plan"
            ),
        },
        403 => {
            if exhausted.is_some() || wait.is_some() {
                rate_limited(wait.or(exhausted.flatten()))
            } else if let Some(block) = block {
                block.into_error(&format!("{name} answered HTTP 403"))
            } else if quota.is_some() {
                EngineError::Quota {
                    message: format!(
                        "{name} refused the call because of quota or credit (HTTP 403): {said}"
                    ),
                }
            } else {
                EngineError::AccessDenied {
                    message: format!(
                        "{name} refused access (HTTP 403): {said}; {}",
                        service.key_advice()
                    ),
                }
            }
        }
        400 | 422 => {
            if markers::find(markers::BAD_KEY, &fetched.body).is_some() {
                EngineError::Auth {
                    message: format!(
                        "{name} rejected the API key (HTTP {status}): {said}; {}",
                        service.key_advice()
                    ),
                }
            } else {
                EngineError::invalid_query(format!(
                    "{name} rejected the request (HTTP {status}): {said}"
                ))
            }
        }
        404 => EngineError::Transport {
            message: format!(
                "{name} has no such endpoint (HTTP 404 for {}); check the base URL",
                fetched.url
            ),
            temporary: false,
        },
        408 => EngineError::transport(format!("{name} timed out the request (HTTP 408)")),
        500..=599 => EngineError::transport(format!(
            "{name} failed with HTTP {status}{}: {said}",
            match wait {
                Some(d) => format!(" (it asks to retry after {} s)", d.as_secs()),
                None => String::new(),
            }
        )),
        _ => EngineError::Transport {
            message: format!("{name} answered an unexpected HTTP {status}: {said}"),
            temporary: false,
        },
    }
}

/// The wait a `Retry-After` header asks for: delta seconds, or an HTTP-date
/// (a date in the past is a zero wait).
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get("retry-after")?.to_str().ok()?.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>()
        && secs.is_finite()
        && secs >= 0.0
    {
        return Some(Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
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
