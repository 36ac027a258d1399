//! Quality signals of a fetched page (seed 000's `quality{…}` plus
//! agbrowse's challenge words): is it thin, behind a login wall, a
//! challenge page, or does the login look fine.

use serde::{Deserialize, Serialize};

/// Below this many characters a page is thin (seed 000).
pub const THIN_CHARS: usize = 80;

/// Marker words only count on short pages (agbrowse: a long article that
/// mentions "captcha" is not a challenge page). Above this many characters
/// of content a marker must appear in the title to count.
pub const MARKER_MAX_CHARS: usize = 2000;

/// Login-wall words (Chinese and English; case-insensitive).
pub const AUTH_MARKERS: &[&str] = &[
    "请先登录",
    "立即登录",
    "登录后查看",
    "扫码登录",
    "登录以继续",
    "sign in to continue",
    "log in to continue",
    "login to continue",
    "sign in to view",
    "create an account",
    "authentication required",
];

/// Challenge / bot-check words (seed 000's and agbrowse's).
pub const CHALLENGE_MARKERS: &[&str] = &[
    "验证码",
    "请完成人机验证",
    "安全验证",
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
];

/// The quality block of a fetch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quality {
    /// Characters of content.
    pub content_chars: usize,
    /// Fewer than [`THIN_CHARS`] characters.
    pub empty_or_thin: bool,
    /// A login wall's words were found.
    pub auth_wall_suspected: bool,
    /// A challenge / captcha page's words were found.
    pub challenge_suspected: bool,
    /// Not thin, not walled, not a challenge.
    pub login_likely_ok: bool,
    /// The marker words that matched.
    pub markers: Vec<String>,
    /// What to do next, for a person or an agent.
    pub hint: String,
}

fn matches(haystack: &str, markers: &[&str]) -> Vec<String> {
    markers
        .iter()
        .filter(|m| haystack.contains(&m.to_lowercase()))
        .map(|m| m.to_string())
        .collect()
}

/// Judge `content` (the extracted text) with the page's `title`.
pub fn assess(title: &str, content: &str) -> Quality {
    let content_chars = content.trim().chars().count();
    let empty_or_thin = content_chars < THIN_CHARS;
    let title_l = title.to_lowercase();
    let scope = if content_chars <= MARKER_MAX_CHARS {
        format!("{title_l}\n{}", content.to_lowercase())
    } else {
        title_l
    };
    let auth = matches(&scope, AUTH_MARKERS);
    let challenge = matches(&scope, CHALLENGE_MARKERS);
    let auth_wall_suspected = !auth.is_empty();
    let challenge_suspected = !challenge.is_empty();
    let login_likely_ok = !empty_or_thin && !auth_wall_suspected && !challenge_suspected;
    let hint = if challenge_suspected {
        "a challenge or captcha page came back: retry later, let the page's script finish \
         (a longer wait), or have a person pass it in the login partition (`ferret browser login <url>`)"
    } else if auth_wall_suspected {
        "the page asks to sign in: have a person sign in once with `ferret browser login <url>` \
         (needs pro mode), then fetch in the login partition"
    } else if empty_or_thin {
        "little or no text: the page may need a longer wait, a scroll, or an interaction"
    } else {
        "ok"
    }
    .to_string();
    let mut markers = auth;
    markers.extend(challenge);
    Quality {
        content_chars,
        empty_or_thin,
        auth_wall_suspected,
        challenge_suspected,
        login_likely_ok,
        markers,
        hint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thin_wall_challenge_ok() {
        let q = assess("", "hi");
        assert!(q.empty_or_thin && !q.login_likely_ok);
        let q = assess(
            "知乎",
            "内容很多但是请先登录后查看全文。".repeat(10).as_str(),
        );
        assert!(q.auth_wall_suspected && !q.login_likely_ok, "{q:?}");
        let q = assess(
            "Just a moment...",
            &"Checking your browser before accessing. ".repeat(3),
        );
        assert!(q.challenge_suspected && !q.auth_wall_suspected);
        let q = assess(
            "An article",
            &"Plain useful words about sleep and caffeine. ".repeat(5),
        );
        assert!(q.login_likely_ok && q.markers.is_empty() && q.hint == "ok");
    }

    #[test]
    fn markers_in_long_articles_do_not_count_unless_in_title() {
        let long = format!("{} captcha {}", "word ".repeat(500), "word ".repeat(500));
        // "captcha" in the title of a long page still counts.
        assert!(assess("How captchas work", &long).challenge_suspected);
        let q = assess("Essay", &long);
        assert!(!q.challenge_suspected);
        let q = assess("Attention Required! | Cloudflare", &long);
        assert!(q.challenge_suspected);
    }
}
