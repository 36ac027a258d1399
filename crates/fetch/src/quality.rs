//! Quality signals of a page's text: thin, login wall, challenge, paywall.
//! The word tables and the judgement are [`ferret_core::quality`]'s (also
//! read by the browser and the engines); this module words the advice for
//! the fetch ladder. Broader than the verdict's marker table on purpose:
//! these steer escalation and tell a person what to do.

use ferret_core::quality::QualityHints;
pub use ferret_core::quality::{AUTH_WALL_WORDS, CHALLENGE_WORDS, MARKER_MAX_CHARS, PAYWALL_WORDS};

use super::page::Quality;

/// The fetch ladder's advice for each finding.
pub const FETCH_HINTS: QualityHints = QualityHints {
    challenge: "a challenge or anti-bot page came back: retry later, fetch with a browser \
                (browser mode auto or required), or have a person pass it in the login partition",
    auth_wall: "the page asks to sign in: only a browser with the user's session (login partition, \
                pro mode) can read it",
    paywall: "the page is behind a paywall: do not claim what it hides; find another source",
    thin: "little or no text: the page may need a browser (JavaScript), a longer wait, or an \
           interaction",
};

/// Judges `text` with its `title`.
pub fn assess_quality(title: Option<&str>, text: &str) -> Quality {
    ferret_core::quality::assess(title.unwrap_or_default(), text, &FETCH_HINTS)
}
