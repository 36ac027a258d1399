//! The per-intent profile table: search
//! mode, default recency window, score weights and suggested domain boosts.

use crate::query::{Freshness, Intent, Mode, Weights};

/// How to search for one intent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntentProfile {
    /// The intent this row describes.
    pub intent: Intent,
    /// Which engines take part (`fast`, `deep`, `answer`).
    pub mode: Mode,
    /// The default recency window, if any.
    pub freshness: Option<Freshness>,
    /// The intent's other window ("pw/pm", "pd/pw"), chosen when the
    /// query names it: Status takes `pm` on "this month / 本月", News takes
    /// `pd` on "today / 今日 / 24h". `None` when the intent has one window.
    pub alternate_freshness: Option<Freshness>,
    /// Score weights `keyword / freshness / authority`.
    pub weights: Weights,
    /// Domains whose results deserve an authority boost (+0.2) for this intent.
    pub domain_boost: &'static [&'static str],
}

/// The profile of every intent, in [`Intent::ALL`] order.
pub const PROFILES: [IntentProfile; 7] = [
    IntentProfile {
        intent: Intent::Factual,
        mode: Mode::Answer,
        freshness: None,
        alternate_freshness: None,
        weights: Weights::new(0.4, 0.1, 0.5),
        domain_boost: &[],
    },
    IntentProfile {
        intent: Intent::Status,
        mode: Mode::Deep,
        freshness: Some(Freshness::Pw),
        alternate_freshness: Some(Freshness::Pm),
        weights: Weights::new(0.3, 0.5, 0.2),
        domain_boost: &[],
    },
    IntentProfile {
        intent: Intent::Comparison,
        mode: Mode::Deep,
        freshness: Some(Freshness::Py),
        alternate_freshness: None,
        weights: Weights::new(0.4, 0.2, 0.4),
        domain_boost: &[],
    },
    IntentProfile {
        intent: Intent::Tutorial,
        mode: Mode::Answer,
        freshness: Some(Freshness::Py),
        alternate_freshness: None,
        weights: Weights::new(0.4, 0.1, 0.5),
        domain_boost: &[
            "dev.to",
            "freecodecamp.org",
            "realpython.com",
            "baeldung.com",
        ],
    },
    IntentProfile {
        intent: Intent::Exploratory,
        mode: Mode::Deep,
        freshness: None,
        alternate_freshness: None,
        weights: Weights::new(0.3, 0.2, 0.5),
        domain_boost: &[],
    },
    IntentProfile {
        intent: Intent::News,
        mode: Mode::Deep,
        freshness: Some(Freshness::Pw),
        alternate_freshness: Some(Freshness::Pd),
        weights: Weights::new(0.3, 0.6, 0.1),
        domain_boost: &["techcrunch.com", "arstechnica.com", "theverge.com"],
    },
    IntentProfile {
        intent: Intent::Resource,
        mode: Mode::Fast,
        freshness: None,
        alternate_freshness: None,
        weights: Weights::new(0.5, 0.1, 0.4),
        domain_boost: &["github.com"],
    },
];

/// The profile row of `intent`.
pub fn profile(intent: Intent) -> &'static IntentProfile {
    // PROFILES is in Intent::ALL order; the find is over 7 rows.
    PROFILES
        .iter()
        .find(|p| p.intent == intent)
        .unwrap_or(&PROFILES[4])
}
