//! Quality signals of a fetched page: is it thin, behind a login wall, a
//! challenge page, a paywall, or does the login look fine. The word tables,
//! the [`Quality`] block and the judgement are
//! [`ferret_core::quality`]'s; this module only words the advice for a
//! browser user.

use ferret_core::quality::QualityHints;
pub use ferret_core::quality::{
    AUTH_WALL_WORDS as AUTH_MARKERS, CHALLENGE_WORDS as CHALLENGE_MARKERS, MARKER_MAX_CHARS,
    Quality, THIN_CHARS,
};

/// The browser's advice for each finding.
pub const BROWSER_HINTS: QualityHints = QualityHints {
    challenge: "a challenge or captcha page came back: retry later, let the page's script finish \
                (a longer wait), or have a person pass it in the login partition (`ferret browser login <url>`)",
    auth_wall: "the page asks to sign in: have a person sign in once with `ferret browser login <url>` \
                (needs pro mode), then fetch in the login partition",
    paywall: "the page is behind a paywall: do not claim what it hides; find another source",
    thin: "little or no text: the page may need a longer wait, a scroll, or an interaction",
};

/// Judge `content` (the extracted text) with the page's `title`.
pub fn assess(title: &str, content: &str) -> Quality {
    ferret_core::quality::assess(title, content, &BROWSER_HINTS)
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
