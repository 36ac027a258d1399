//! Quality signals of a page's text: thin, login wall, challenge, paywall
//! (seed 000's `quality{…}` words in Chinese and English, search-layer's
//! anti-bot words, and agbrowse's markers). Broader than the verdict's
//! marker table on purpose: these steer escalation and tell a person what
//! to do; the verdict keeps agbrowse's exact lists.

use super::page::{Quality, THIN_CHARS};

/// Marker words only count in the text of short pages (a long article that
/// mentions "captcha" is not a challenge page); above this many characters
/// they must appear in the title.
pub const MARKER_MAX_CHARS: usize = 2000;

/// Login-wall words (matched case-insensitively).
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

/// Challenge and anti-bot words.
pub const CHALLENGE_WORDS: &[&str] = &[
    "验证码",
    "请完成人机验证",
    "人机验证",
    "安全验证",
    "环境异常",
    "访问过于频繁",
    "captcha",
    "cloudflare",
    "access denied",
    "403 forbidden",
    "checking your browser",
    "verify you are human",
    "are you a robot",
    "attention required",
    "security check",
    "unusual traffic",
    "just a moment...",
];

/// Paywall words.
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

fn found(scope: &str, words: &[&str]) -> Vec<String> {
    words
        .iter()
        .filter(|w| scope.contains(&w.to_lowercase()))
        .map(|w| (*w).to_string())
        .collect()
}

/// Judges `text` with its `title`.
pub fn assess_quality(title: Option<&str>, text: &str) -> Quality {
    let content_chars = text.trim().chars().count();
    let empty_or_thin = content_chars < THIN_CHARS;
    let title_l = title.unwrap_or_default().to_lowercase();
    let scope = if content_chars <= MARKER_MAX_CHARS {
        format!("{title_l}\n{}", text.to_lowercase())
    } else {
        title_l
    };
    let auth = found(&scope, AUTH_WALL_WORDS);
    let challenge = found(&scope, CHALLENGE_WORDS);
    let paywall = found(&scope, PAYWALL_WORDS);
    let auth_wall_suspected = !auth.is_empty();
    let challenge_suspected = !challenge.is_empty();
    let paywall_suspected = !paywall.is_empty();
    let login_likely_ok =
        !empty_or_thin && !auth_wall_suspected && !challenge_suspected && !paywall_suspected;
    let hint = if challenge_suspected {
        "a challenge or anti-bot page came back: retry later, fetch with a browser \
         (browser mode auto or required), or have a person pass it in the login partition"
    } else if auth_wall_suspected {
        "the page asks to sign in: only a browser with the user's session (login partition, \
         pro mode) can read it"
    } else if paywall_suspected {
        "the page is behind a paywall: do not claim what it hides; find another source"
    } else if empty_or_thin {
        "little or no text: the page may need a browser (JavaScript), a longer wait, or an \
         interaction"
    } else {
        "ok"
    }
    .to_string();
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
        hint,
    }
}
