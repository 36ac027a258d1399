//! [`SourceTier`]: how much Ferret trusts a result's host, T1 (most) to T4.
//!
//! One tier per host, read from [`crate::authority`]:
//!
//! - an explicit tier rule of the domain table gives its tier: tier 1 → T1,
//!   tier 2 → T2, tier 3 → T3;
//! - every other host goes by its base authority score:
//!
//! | base score | tier | e.g. |
//! |---|---|---|
//! | ≥ 0.9 | T1 | `docs.*`, `*.docs.*` |
//! | ≥ 0.8 | T2 | `*.edu`, `*.gov`, `*.ac.xx` |
//! | ≥ 0.6 | T3 | `*.github.io` (0.7), `blog.*` (0.6) |
//! | below | T4 | no rule (0.4) |
//!
//! Tier scores line up with the thresholds (tier 1 = 1.0, tier 2 = 0.8,
//! tier 3 = 0.6), so both ways agree on every table entry; the rule only
//! makes the intent explicit. The caller's domain boosts never change a
//! tier: only the tables do.
//!
//! The goggles' FinalScore weighs tiers by [`SourceTier::weight`]
//! (10 / 3 / 1 / 0.1); evidence items, citations and presentations carry
//! them. Serialised as `"T1"` … `"T4"` (the same as [`SourceTier::as_str`]).

use serde::{Deserialize, Serialize};

use crate::authority::{Authority, AuthorityRule, Tier, authority, normalised_host_of};

/// How much a host is trusted (see the [module docs](self)).
///
/// Ordered best first: `T1 < T2 < T3 < T4`, so the minimum of a set is its
/// best tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SourceTier {
    /// Official docs, RFCs, specs, papers, vendor advisories (weight 10).
    T1,
    /// Major project READMEs, reference works, government (weight 3).
    T2,
    /// Accepted answers, maintainer-confirmed issues, respected blogs (1).
    T3,
    /// Unverified blogs, forums, everything unknown (0.1).
    T4,
}

/// `(lowest base authority score, tier)`, first match wins; below the last
/// is T4.
pub const TIER_BY_SCORE: &[(f64, SourceTier)] = &[
    (0.9, SourceTier::T1),
    (0.8, SourceTier::T2),
    (0.6, SourceTier::T3),
];

impl SourceTier {
    /// Every tier, best first.
    pub const ALL: [SourceTier; 4] = [
        SourceTier::T1,
        SourceTier::T2,
        SourceTier::T3,
        SourceTier::T4,
    ];

    /// The FinalScore weight: T1 10, T2 3, T3 1, T4 0.1.
    pub const fn weight(self) -> f64 {
        match self {
            SourceTier::T1 => 10.0,
            SourceTier::T2 => 3.0,
            SourceTier::T3 => 1.0,
            SourceTier::T4 => 0.1,
        }
    }

    /// `T1` … `T4`.
    pub const fn as_str(self) -> &'static str {
        match self {
            SourceTier::T1 => "T1",
            SourceTier::T2 => "T2",
            SourceTier::T3 => "T3",
            SourceTier::T4 => "T4",
        }
    }

    /// The tier of a base authority score ([`TIER_BY_SCORE`]).
    pub fn from_authority_score(score: f64) -> Self {
        TIER_BY_SCORE
            .iter()
            .find(|(min, _)| score >= *min)
            .map_or(SourceTier::T4, |&(_, tier)| tier)
    }

    /// The tier of an authority rule and the base score it gave: a tier
    /// rule's own tier, otherwise by score.
    pub fn of_rule(rule: &AuthorityRule, base_score: f64) -> Self {
        match rule {
            AuthorityRule::Tier { tier, .. } => match tier {
                Tier::Tier1 => SourceTier::T1,
                Tier::Tier2 => SourceTier::T2,
                Tier::Tier3 => SourceTier::T3,
            },
            AuthorityRule::Pattern { .. } | AuthorityRule::Default => {
                Self::from_authority_score(base_score)
            }
        }
    }

    /// The tier of an [`Authority`] (its rule and base score; boosts are
    /// ignored).
    pub fn of_authority(a: &Authority) -> Self {
        Self::of_rule(&a.rule, a.base)
    }

    /// The tier of a host.
    pub fn from_host(host: &str) -> Self {
        Self::of_authority(&authority(host))
    }

    /// The tier of a URL's host; T4 when it is not an absolute URL.
    pub fn from_url(url: &str) -> Self {
        if !url.contains("://") {
            return SourceTier::T4;
        }
        Self::from_host(&normalised_host_of(url))
    }

    /// Same as [`SourceTier::from_url`].
    pub fn of_url(url: &str) -> Self {
        Self::from_url(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_rules_and_thresholds_agree() {
        for &(domain, tier) in crate::authority::TIER_DOMAINS {
            let by_rule = SourceTier::from_host(domain);
            assert_eq!(
                by_rule,
                SourceTier::from_authority_score(tier.score()),
                "{domain}"
            );
        }
    }

    #[test]
    fn hosts_map_to_tiers() {
        for (url, tier) in [
            ("https://github.com/x", SourceTier::T1),
            ("https://docs.example.org/", SourceTier::T1),
            ("https://cs.mit.edu/x", SourceTier::T2),
            ("https://me.github.io/x", SourceTier::T3),
            ("https://blog.example.org/x", SourceTier::T3),
            ("https://example.com/x", SourceTier::T4),
            ("not a url", SourceTier::T4),
        ] {
            assert_eq!(SourceTier::from_url(url), tier, "{url}");
        }
    }

    #[test]
    fn serialises_as_its_name() {
        for tier in SourceTier::ALL {
            let json = serde_json::to_string(&tier).unwrap();
            assert_eq!(json, format!("\"{}\"", tier.as_str()));
        }
    }
}
