//! Access-boundary words and a page's quality signals: is a page thin,
//! behind a login wall, a bot check or captcha, or a paywall?
//!
//! One home for every word table Ferret reads pages and error bodies with:
//!
//! | table | what it means | read by |
//! |---|---|---|
//! | [`CAPTCHA_WORDS`] | an explicit captcha a person must solve | page quality; engines (a hard block, `EngineError::Captcha`) |
//! | [`CHALLENGE_WORDS`] | an anomaly / bot-check page served instead of content | page quality; engines (a soft block, `EngineError::BotDetected`) |
//! | [`WEAK_CHALLENGE_WORDS`] | words a challenge page shows that ordinary pages also use (`cloudflare`, `access denied`) | page quality only |
//! | [`AUTH_WALL_WORDS`] | a login wall | page quality |
//! | [`PAYWALL_WORDS`] | a subscription wall | page quality |
//! | [`VERDICT_MARKERS`] | the verdict scorer's exact phrases (some whole-word only, each with a [`MarkerKind`]) | the evidence verdict |
//!
//! Every word is lowercase; matching is on lowercased text. An engine reads
//! only the captcha and challenge tables, because a results page that
//! mentions Cloudflare is still a results page; page quality reads every
//! table, but only on short pages ([`MARKER_MAX_CHARS`]) or in the title.
//!
//! [`assess`] is the one quality judgement: the browser's fetch output and
//! the evidence fetch envelope both carry its [`Quality`], each with its own
//! advice ([`QualityHints`]).

use serde::{Deserialize, Serialize};

/// Below this many characters of text a page is thin.
pub const THIN_CHARS: usize = 80;

/// Marker words only count in the text of short pages (a long article that
/// mentions "captcha" is not a challenge page); above this many characters
/// of text they must appear in the title.
pub const MARKER_MAX_CHARS: usize = 2000;

/// Phrases of an explicit captcha a person must solve (reCAPTCHA,
/// hCaptcha, Google's `/sorry` page, Chinese captcha prompts).
pub const CAPTCHA_WORDS: &[&str] = &[
    "g-recaptcha",
    "recaptcha",
    "hcaptcha",
    "h-captcha",
    "captcha",
    "/sorry/index",
    "验证码",
    "人机验证",
];

/// Phrases of anomaly and challenge pages served instead of content
/// (DuckDuckGo's anomaly modal, Cloudflare's browser check, Chinese
/// anti-bot notices). Precise enough to classify a whole response body.
pub const CHALLENGE_WORDS: &[&str] = &[
    "anomaly-modal",
    "anomaly.js",
    "challenge-form",
    "bots use duckduckgo too",
    "checking your browser",
    "verify you are human",
    "are you a robot",
    "unusual traffic",
    "cf-challenge",
    "challenge-platform",
    "attention required",
    "security check",
    "环境异常",
    "访问过于频繁",
];

/// Words challenge pages show that ordinary pages use too: they only count
/// on a short page or in its title, never in an engine's body check.
pub const WEAK_CHALLENGE_WORDS: &[&str] = &[
    "安全验证",
    "cloudflare",
    "access denied",
    "403 forbidden",
    "just a moment...",
];

/// Login-wall phrases (Chinese and English).
pub const AUTH_WALL_WORDS: &[&str] = &[
    "请先登录",
    "立即登录",
    "登录后查看",
    "扫码登录",
    "登录以继续",
    "登录后继续",
    "sign in to continue",
    "log in to continue",
    "login to continue",
    "sign in to view",
    "log in to view",
    "create an account",
    "authentication required",
];

/// Paywall phrases (Chinese and English).
pub const PAYWALL_WORDS: &[&str] = &[
    "subscribe to continue",
    "subscribe to read",
    "this article is for subscribers",
    "subscriber-only",
    "members only",
    "you've reached your free article limit",
    "付费阅读",
    "订阅后阅读",
    "开通会员",
];

/// The kind of an access-boundary marker of the verdict scorer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerKind {
    /// A bot check (captcha, Cloudflare …): −25.
    Challenge,
    /// A login prompt: −35.
    Auth,
    /// A subscription prompt: −25.
    Paywall,
}

impl MarkerKind {
    /// Points a marker of this kind takes off the verdict score.
    pub fn penalty(self) -> u32 {
        match self {
            MarkerKind::Challenge => 25,
            MarkerKind::Auth => 35,
            MarkerKind::Paywall => 25,
        }
    }
}

/// The verdict scorer's marker table: kind, the marker (lowercase; matched
/// ASCII case-insensitively) and whether it must stand as a whole word (an
/// ASCII word boundary on each side, so `sign in` next to CJK text still
/// matches). Narrower than the word tables on purpose: each match costs
/// score points.
pub const VERDICT_MARKERS: &[(MarkerKind, &str, bool)] = &[
    (MarkerKind::Challenge, "captcha", true),
    (MarkerKind::Challenge, "checking your browser", false),
    (MarkerKind::Challenge, "verify you are human", false),
    (MarkerKind::Challenge, "are you a robot", false),
    (MarkerKind::Challenge, "cloudflare", false),
    (MarkerKind::Challenge, "attention required", false),
    (MarkerKind::Challenge, "security check", false),
    (MarkerKind::Auth, "sign in", true),
    (MarkerKind::Auth, "log in", true),
    (MarkerKind::Auth, "create an account", false),
    (MarkerKind::Auth, "authentication required", false),
    (MarkerKind::Paywall, "subscribe", true),
    (MarkerKind::Paywall, "subscription", true),
    (MarkerKind::Paywall, "continue reading", false),
    (MarkerKind::Paywall, "members only", false),
];

/// Quality signals of a page's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quality {
    /// Characters of text.
    pub content_chars: usize,
    /// Fewer than [`THIN_CHARS`] characters.
    pub empty_or_thin: bool,
    /// Login-wall words were found.
    pub auth_wall_suspected: bool,
    /// Challenge / captcha / anti-bot words were found.
    pub challenge_suspected: bool,
    /// Paywall words were found.
    pub paywall_suspected: bool,
    /// Not thin, not walled, not a challenge, not a paywall.
    pub login_likely_ok: bool,
    /// The words that matched (auth, then challenge, then paywall).
    pub markers: Vec<String>,
    /// What to do next, for a person or an agent (`ok` when nothing is
    /// wrong).
    pub hint: String,
}

/// The advice [`assess`] gives for each finding; callers word it for what
/// they can do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QualityHints {
    /// A challenge or captcha page.
    pub challenge: &'static str,
    /// A login wall.
    pub auth_wall: &'static str,
    /// A paywall.
    pub paywall: &'static str,
    /// Little or no text.
    pub thin: &'static str,
}

/// The hint of a page with nothing wrong.
pub const HINT_OK: &str = "ok";

/// The words of `tables` found in `scope` (already lowercased), table by
/// table, in table order.
pub fn found_words(scope: &str, tables: &[&[&str]]) -> Vec<String> {
    tables
        .iter()
        .flat_map(|t| t.iter())
        .filter(|w| scope.contains(**w))
        .map(|w| (*w).to_string())
        .collect()
}

/// The lowercased text markers are searched in: title and text on a short
/// page, the title alone on a long one.
fn marker_scope(title: &str, text: &str, content_chars: usize) -> String {
    let title = title.to_lowercase();
    if content_chars <= MARKER_MAX_CHARS {
        format!("{title}\n{}", text.to_lowercase())
    } else {
        title
    }
}

/// Judges a page's `text` with its `title` (see the [module docs](self)).
pub fn assess(title: &str, text: &str, hints: &QualityHints) -> Quality {
    let content_chars = text.trim().chars().count();
    let empty_or_thin = content_chars < THIN_CHARS;
    let scope = marker_scope(title, text, content_chars);
    let auth = found_words(&scope, &[AUTH_WALL_WORDS]);
    let challenge = found_words(
        &scope,
        &[CAPTCHA_WORDS, CHALLENGE_WORDS, WEAK_CHALLENGE_WORDS],
    );
    let paywall = found_words(&scope, &[PAYWALL_WORDS]);
    let auth_wall_suspected = !auth.is_empty();
    let challenge_suspected = !challenge.is_empty();
    let paywall_suspected = !paywall.is_empty();
    let login_likely_ok =
        !empty_or_thin && !auth_wall_suspected && !challenge_suspected && !paywall_suspected;
    // Worst finding first: a challenge hides whatever else the page is.
    let hint = if challenge_suspected {
        hints.challenge
    } else if auth_wall_suspected {
        hints.auth_wall
    } else if paywall_suspected {
        hints.paywall
    } else if empty_or_thin {
        hints.thin
    } else {
        HINT_OK
    };
    let mut markers = auth;
    markers.extend(challenge);
    markers.extend(paywall);
    Quality {
        content_chars,
        empty_or_thin,
        auth_wall_suspected,
        challenge_suspected,
        paywall_suspected,
        login_likely_ok,
        markers,
        hint: hint.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HINTS: QualityHints = QualityHints {
        challenge: "challenge",
        auth_wall: "auth",
        paywall: "paywall",
        thin: "thin",
    };

    #[test]
    fn every_word_is_lowercase_and_listed_once() {
        let tables: &[&[&str]] = &[
            CAPTCHA_WORDS,
            CHALLENGE_WORDS,
            WEAK_CHALLENGE_WORDS,
            AUTH_WALL_WORDS,
            PAYWALL_WORDS,
        ];
        let mut seen = std::collections::HashSet::new();
        for word in tables.iter().flat_map(|t| t.iter()) {
            assert_eq!(*word, word.to_lowercase(), "{word}");
            assert!(seen.insert(*word), "{word} is listed twice");
        }
    }

    #[test]
    fn thin_wall_challenge_paywall_ok() {
        let q = assess("", "hi", &HINTS);
        assert!(q.empty_or_thin && !q.login_likely_ok && q.hint == "thin");
        let q = assess(
            "知乎",
            &"内容很多但是请先登录后查看全文。".repeat(10),
            &HINTS,
        );
        assert!(q.auth_wall_suspected && q.hint == "auth", "{q:?}");
        let q = assess(
            "Just a moment...",
            &"Checking your browser before accessing. ".repeat(3),
            &HINTS,
        );
        assert!(q.challenge_suspected && !q.auth_wall_suspected && q.hint == "challenge");
        let q = assess("News", &"Subscribe to read the rest. ".repeat(5), &HINTS);
        assert!(q.paywall_suspected && !q.login_likely_ok && q.hint == "paywall");
        let q = assess(
            "An article",
            &"Plain useful words about sleep and caffeine. ".repeat(5),
            &HINTS,
        );
        assert!(q.login_likely_ok && q.markers.is_empty() && q.hint == HINT_OK);
    }

    #[test]
    fn markers_in_long_articles_count_only_in_the_title() {
        let long = format!("{} captcha {}", "word ".repeat(500), "word ".repeat(500));
        assert!(assess("How captchas work", &long, &HINTS).challenge_suspected);
        assert!(!assess("Essay", &long, &HINTS).challenge_suspected);
        assert!(assess("Attention Required! | Cloudflare", &long, &HINTS).challenge_suspected);
    }
}
