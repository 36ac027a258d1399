//! Word tables that classify error and challenge bodies. Matching is on the
//! lowercased body text; the tables are data so they can grow without
//! touching the mapping code. The captcha and challenge tables are shared
//! with page quality ([`ferret_core::quality`]); quota and bad-key phrases
//! are the engines' own.

/// Phrases of an explicit captcha a person must solve: a hard block,
/// [`EngineError::Captcha`](ferret_core::EngineError::Captcha). The shared
/// table [`ferret_core::quality::CAPTCHA_WORDS`].
pub use ferret_core::quality::CAPTCHA_WORDS as CAPTCHA;

/// Phrases of anomaly and challenge pages served instead of results: a
/// softer block,
/// [`EngineError::BotDetected`](ferret_core::EngineError::BotDetected). The
/// shared table [`ferret_core::quality::CHALLENGE_WORDS`] (its weak words,
/// such as `cloudflare`, are left out: a results page may mention them).
pub use ferret_core::quality::CHALLENGE_WORDS as CHALLENGE;

/// A page that blocks automated clients, and the phrase that showed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// An explicit captcha ([`CAPTCHA`]).
    Captcha(&'static str),
    /// An anomaly or challenge page ([`CHALLENGE`]).
    Challenge(&'static str),
}

impl Block {
    /// The typed error, with `context` (who answered what) in the message.
    pub fn into_error(self, context: &str) -> ferret_core::EngineError {
        match self {
            Block::Captcha(marker) => ferret_core::EngineError::Captcha {
                message: format!(
                    "{context}: a captcha page ({marker:?}) came back instead of results; a \
                     person would have to solve it, so use another engine for a while"
                ),
            },
            Block::Challenge(marker) => ferret_core::EngineError::BotDetected {
                message: format!(
                    "{context}: an anomaly/challenge page ({marker:?}) came back instead of \
                     results; the service is blocking automated requests from this address"
                ),
            },
        }
    }
}

/// Whether `body` is a block page: captcha phrases are checked first, then
/// challenge phrases.
pub fn block_page(body: &[u8]) -> Option<Block> {
    find(CAPTCHA, body)
        .map(Block::Captcha)
        .or_else(|| find(CHALLENGE, body).map(Block::Challenge))
}

/// Phrases of bodies saying the account's quota or credit is used up.
pub const QUOTA: &[&str] = &[
    "quota",
    "credit",
    "insufficient balance",
    "billing",
    "plan limit",
    "usage limit",
    "payment required",
    "upgrade your plan",
    "exceeded your plan",
];

/// Phrases of 400/422 bodies that are really about the API key (Brave, for
/// one, answers a bad key with 422 `SUBSCRIPTION_TOKEN_INVALID`).
pub const BAD_KEY: &[&str] = &[
    "subscription_token_invalid",
    "invalid api key",
    "invalid_api_key",
    "invalid x-api-key",
    "api key is invalid",
    "api key not",
    "missing api key",
    "bad credentials",
    "unauthorized",
];

/// The first phrase of `table` found in `body` (case-insensitive), if any.
/// Only the first 256 KiB are searched.
pub fn find(table: &[&'static str], body: &[u8]) -> Option<&'static str> {
    let head = &body[..body.len().min(256 * 1024)];
    let lower = String::from_utf8_lossy(head).to_lowercase();
    table.iter().copied().find(|m| lower.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_markers_case_insensitively() {
        assert_eq!(
            find(
                CHALLENGE,
                b"<div>Unfortunately, bots use DuckDuckGo too.</div>"
            ),
            Some("bots use duckduckgo too")
        );
        assert_eq!(
            find(QUOTA, br#"{"detail":"Monthly Quota exceeded"}"#),
            Some("quota")
        );
        assert_eq!(find(CHALLENGE, b"<html>ten blue links</html>"), None);
    }

    #[test]
    fn explicit_captchas_are_hard_blocks_and_anomaly_pages_soft_ones() {
        assert_eq!(
            block_page(b"<div class='g-recaptcha'></div> unusual traffic"),
            Some(Block::Captcha("g-recaptcha"))
        );
        assert_eq!(
            block_page(b"<div class='anomaly-modal__title'>x</div>"),
            Some(Block::Challenge("anomaly-modal"))
        );
        assert_eq!(block_page(b"<p>results</p>"), None);
    }
}
