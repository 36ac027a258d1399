//! Domain authority: a 0–1 score for a result's host, and the rule that gave
//! it, so that every authority number can be explained.
//!
//! The facts are two tables, [`TIER_DOMAINS`] and [`PATTERN_RULES`]:
//!
//! | rule | score |
//! |---|---|
//! | tier 1 (official docs, primary sources, major platforms) | 1.0 |
//! | tier 2 (high-quality community and reference sites) | 0.8 |
//! | tier 3 (quality blogs and content platforms) | 0.6 |
//! | `docs.*`, `*.docs.*` | 0.9 |
//! | `*.edu`, `*.gov`, `*.edu.xx`, `*.gov.xx`, `*.ac.xx` | 0.8 |
//! | `*.github.io` | 0.7 |
//! | `blog.*` | 0.6 |
//! | anything else | 0.4 |
//!
//! How a host is matched ([`authority`]):
//!
//! 1. A leading `www.` and a trailing dot are ignored; the host is lowercased.
//! 2. **Tiers, longest host suffix first**: `en.wikipedia.org` tries
//!    `en.wikipedia.org`, then `wikipedia.org` (tier 1); `docs.aws.amazon.com`
//!    is tier 1 although `aws.amazon.com` is tier 2. Suffixes are tried only
//!    down to the registrable domain (Public Suffix List, the `psl` crate), so
//!    a bare public suffix such as `co.uk` never matches.
//! 3. **Patterns**, when no tier matched. Every matching pattern is
//!    considered and the highest score wins (ties: table order), so the
//!    result does not depend on the order of the table. `docs.*`/`blog.*`
//!    match a first label that lies left of the registrable domain
//!    (`docs.example.co.uk` matches; the registrable domain `blog.com` does
//!    not); `*.docs.*` matches such a label anywhere left of the registrable
//!    domain (`api.docs.example.com`); `*.github.io` and `*.edu` match a
//!    suffix; `xx` stands for any two-letter country code (`*.edu.cn`,
//!    `*.ac.uk`, `*.gov.au`).
//! 4. Otherwise the default, 0.4.
//!
//! A caller's domain boosts (`--domain-boost` on the CLI) add
//! [`DOMAIN_BOOST`] to the score, capped at 1.0 ([`AuthorityScorer`]).
//!
//! Each domain is listed once (`cloud.google.com`, which hosts Google
//! Cloud's official documentation, is tier 1) — a unit test checks that no
//! domain is listed twice — and each pattern form is parsed on its own, so
//! every rule is reachable (tested). Hosts are matched without `www.`, so
//! the tables list none.

use std::borrow::Cow;
use std::fmt;
use std::net::IpAddr;
use std::sync::LazyLock;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// An authority tier of the domain table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Official docs, primary sources, major platforms (1.0).
    Tier1,
    /// High-quality community and reference sites (0.8).
    Tier2,
    /// Quality blogs and content platforms (0.6).
    Tier3,
}

impl Tier {
    /// The tier's score.
    pub const fn score(self) -> f64 {
        match self {
            Tier::Tier1 => 1.0,
            Tier::Tier2 => 0.8,
            Tier::Tier3 => 0.6,
        }
    }

    /// `tier1`, `tier2` or `tier3`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Tier::Tier1 => "tier1",
            Tier::Tier2 => "tier2",
            Tier::Tier3 => "tier3",
        }
    }
}

/// The score of a host no rule matches.
pub const DEFAULT_SCORE: f64 = 0.4;

/// What a domain boost adds to the authority score (capped at 1.0).
pub const DOMAIN_BOOST: f64 = 0.2;

/// The tiered domains, each matching itself and its subdomains.
pub const TIER_DOMAINS: &[(&str, Tier)] = &[
    // Tier 1: official docs, primary sources, major platforms.
    ("github.com", Tier::Tier1),
    ("gitlab.com", Tier::Tier1),
    ("stackoverflow.com", Tier::Tier1),
    ("wikipedia.org", Tier::Tier1),
    ("arxiv.org", Tier::Tier1),
    ("docs.python.org", Tier::Tier1),
    ("docs.rs", Tier::Tier1),
    ("doc.rust-lang.org", Tier::Tier1),
    ("developer.mozilla.org", Tier::Tier1),
    ("developer.apple.com", Tier::Tier1),
    ("developer.android.com", Tier::Tier1),
    // Listed once, in tier 1 (module docs).
    ("cloud.google.com", Tier::Tier1),
    ("docs.aws.amazon.com", Tier::Tier1),
    ("learn.microsoft.com", Tier::Tier1),
    ("react.dev", Tier::Tier1),
    ("vuejs.org", Tier::Tier1),
    ("nodejs.org", Tier::Tier1),
    ("go.dev", Tier::Tier1),
    ("kotlinlang.org", Tier::Tier1),
    ("typescriptlang.org", Tier::Tier1),
    ("swift.org", Tier::Tier1),
    ("docs.docker.com", Tier::Tier1),
    ("kubernetes.io", Tier::Tier1),
    ("rust-lang.org", Tier::Tier1),
    ("tc39.es", Tier::Tier1),
    ("w3.org", Tier::Tier1),
    ("datatracker.ietf.org", Tier::Tier1),
    ("peps.python.org", Tier::Tier1),
    ("crates.io", Tier::Tier1),
    ("pypi.org", Tier::Tier1),
    ("npmjs.com", Tier::Tier1),
    ("pkg.go.dev", Tier::Tier1),
    // Tier 2: high-quality community and reference sites.
    ("news.ycombinator.com", Tier::Tier2),
    ("lobste.rs", Tier::Tier2),
    ("stackexchange.com", Tier::Tier2),
    ("serverfault.com", Tier::Tier2),
    ("superuser.com", Tier::Tier2),
    ("askubuntu.com", Tier::Tier2),
    ("reddit.com", Tier::Tier2),
    ("dev.to", Tier::Tier2),
    ("css-tricks.com", Tier::Tier2),
    ("smashingmagazine.com", Tier::Tier2),
    ("web.dev", Tier::Tier2),
    ("blog.cloudflare.com", Tier::Tier2),
    ("engineering.fb.com", Tier::Tier2),
    ("netflixtechblog.com", Tier::Tier2),
    ("aws.amazon.com", Tier::Tier2),
    ("openai.com", Tier::Tier2),
    ("anthropic.com", Tier::Tier2),
    ("huggingface.co", Tier::Tier2),
    ("papers.nips.cc", Tier::Tier2),
    ("aclanthology.org", Tier::Tier2),
    ("distill.pub", Tier::Tier2),
    // Tier 3: quality blogs and content platforms.
    ("medium.com", Tier::Tier3),
    ("towardsdatascience.com", Tier::Tier3),
    ("freecodecamp.org", Tier::Tier3),
    ("baeldung.com", Tier::Tier3),
    ("digitalocean.com", Tier::Tier3),
    ("tutorialspoint.com", Tier::Tier3),
    ("geeksforgeeks.org", Tier::Tier3),
    ("realpython.com", Tier::Tier3),
    ("hackernoon.com", Tier::Tier3),
    ("infoq.com", Tier::Tier3),
    ("thenewstack.io", Tier::Tier3),
    ("techcrunch.com", Tier::Tier3),
    ("arstechnica.com", Tier::Tier3),
    ("theverge.com", Tier::Tier3),
    ("wired.com", Tier::Tier3),
    ("36kr.com", Tier::Tier3),
    ("sspai.com", Tier::Tier3),
    ("juejin.cn", Tier::Tier3),
    ("segmentfault.com", Tier::Tier3),
    ("cnblogs.com", Tier::Tier3),
    ("zhihu.com", Tier::Tier3),
];

/// A host pattern and its score. Forms: `label.*` (first label, left of the
/// registrable domain), `*.label.*` (any label left of the registrable
/// domain), `*.suffix` (host ends with `.suffix`; a `xx` label in the suffix
/// stands for any two-letter country code).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PatternRule {
    /// The pattern as written.
    pub pattern: &'static str,
    /// Its score.
    pub score: f64,
}

/// The pattern rules, tried when no tier matched; the highest matching score
/// wins.
pub const PATTERN_RULES: &[PatternRule] = &[
    PatternRule {
        pattern: "docs.*",
        score: 0.9,
    },
    PatternRule {
        pattern: "*.docs.*",
        score: 0.9,
    },
    PatternRule {
        pattern: "*.github.io",
        score: 0.7,
    },
    PatternRule {
        pattern: "blog.*",
        score: 0.6,
    },
    PatternRule {
        pattern: "*.edu",
        score: 0.8,
    },
    PatternRule {
        pattern: "*.gov",
        score: 0.8,
    },
    PatternRule {
        pattern: "*.edu.xx",
        score: 0.8,
    },
    PatternRule {
        pattern: "*.gov.xx",
        score: 0.8,
    },
    PatternRule {
        pattern: "*.ac.xx",
        score: 0.8,
    },
];

/// Which rule gave a host its authority score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum AuthorityRule {
    /// The host is, or is a subdomain of, a tiered domain.
    Tier {
        /// The tier.
        tier: Tier,
        /// The table entry that matched (the longest suffix of the host).
        domain: Cow<'static, str>,
    },
    /// A pattern rule matched.
    Pattern {
        /// The pattern, as in [`PATTERN_RULES`].
        pattern: Cow<'static, str>,
    },
    /// No rule matched.
    Default,
}

impl fmt::Display for AuthorityRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthorityRule::Tier { tier, domain } => write!(f, "{} ({domain})", tier.as_str()),
            AuthorityRule::Pattern { pattern } => write!(f, "pattern {pattern}"),
            AuthorityRule::Default => f.write_str("default"),
        }
    }
}

/// A host's authority and how it was reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Authority {
    /// The final score, 0–1 (base plus any boost, capped at 1.0).
    pub score: f64,
    /// The score from the tables alone.
    pub base: f64,
    /// The rule that gave the base score.
    pub rule: AuthorityRule,
    /// The domain-boost entry that matched, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boosted_by: Option<String>,
}

static TIER_INDEX: LazyLock<FxHashMap<&'static str, (Tier, &'static str)>> = LazyLock::new(|| {
    TIER_DOMAINS
        .iter()
        .map(|&(domain, tier)| (domain, (tier, domain)))
        .collect()
});

/// `host` trimmed, lowercased, without a trailing dot or a leading `www.`
/// (when a dot remains after it). Borrows when nothing changes.
fn normalise_host(host: &str) -> Cow<'_, str> {
    let trimmed = host.trim().trim_end_matches('.');
    let h: Cow<'_, str> = if trimmed.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(trimmed.to_ascii_lowercase())
    } else {
        Cow::Borrowed(trimmed)
    };
    match h.strip_prefix("www.") {
        Some(rest) if rest.contains('.') => Cow::Owned(rest.to_string()),
        _ => h,
    }
}

fn is_ip(host: &str) -> bool {
    // A DNS name ends in a letter (its top-level label); only then skip
    // the parse.
    if host.as_bytes().last().is_some_and(u8::is_ascii_alphabetic) && !host.contains(':') {
        return false;
    }
    host.starts_with('[') || host.parse::<IpAddr>().is_ok()
}

/// The registrable domain of `host` by the Public Suffix List
/// (`en.wikipedia.org` → `wikipedia.org`, `a.b.example.co.uk` →
/// `example.co.uk`). An IP address is its own registrable domain; a host
/// that is itself a public suffix (or has no dot) is returned as is.
pub fn registrable_domain(host: &str) -> String {
    let h = host.trim().trim_end_matches('.').to_ascii_lowercase();
    registrable_domain_of_normalised(&h).to_string()
}

/// [`registrable_domain`] of a host already trimmed and lowercased, as a
/// slice of it.
pub(crate) fn registrable_domain_of_normalised(host: &str) -> &str {
    if is_ip(host) {
        return host;
    }
    let Some(domain) = psl::domain(host.as_bytes()) else {
        return host;
    };
    let domain = domain.trim().as_bytes();
    // The domain is the host's tail: slice it instead of checking its
    // UTF-8 again.
    if host.as_bytes().ends_with(domain)
        && let Some(tail) = host.get(host.len() - domain.len()..)
    {
        return tail;
    }
    std::str::from_utf8(domain).unwrap_or(host)
}

/// Whether the last labels of `host` are those of `suffix` (`github.io`,
/// `edu`, `edu.xx`). The suffix itself matches too: `www.gov.uk` is
/// canonicalised to `gov.uk`, which `*.gov.xx` should still cover.
fn suffix_matches(host: &str, suffix: &str) -> bool {
    let mut labels = host.rsplit('.');
    suffix
        .rsplit('.')
        .all(|want| labels.next().is_some_and(|label| label_fits(label, want)))
}

/// Whether one of the dot-separated labels of `name` is `label`.
fn has_label(name: &str, label: &str) -> bool {
    name.split('.').any(|l| l == label)
}

/// The label after the last dot of `name` (all of it without one).
fn last_label(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Whether a host label fits a pattern label (`xx`: any two-letter
/// country code).
fn label_fits(label: &str, want: &str) -> bool {
    if want == "xx" {
        label.len() == 2 && label.bytes().all(|b| b.is_ascii_alphabetic())
    } else {
        label == want
    }
}

/// The forms a [`PatternRule`] pattern can take.
enum PatternForm {
    /// `label.*`
    FirstLabel(&'static str),
    /// `*.label.*`
    AnyLabel(&'static str),
    /// `*.suffix`, with the suffix's last label (a host whose last label
    /// does not fit it cannot match, and most hosts are turned away by
    /// that one comparison).
    Suffix {
        suffix: &'static str,
        last: &'static str,
    },
    /// No wildcard.
    Exact(&'static str),
}

impl PatternForm {
    fn parse(pattern: &'static str) -> Self {
        if let Some(inner) = pattern
            .strip_prefix("*.")
            .and_then(|p| p.strip_suffix(".*"))
        {
            PatternForm::AnyLabel(inner)
        } else if let Some(suffix) = pattern.strip_prefix("*.") {
            PatternForm::Suffix {
                suffix,
                last: last_label(suffix),
            }
        } else if let Some(first) = pattern.strip_suffix(".*") {
            PatternForm::FirstLabel(first)
        } else {
            PatternForm::Exact(pattern)
        }
    }
}

static PARSED_PATTERNS: LazyLock<Vec<(PatternForm, &'static PatternRule)>> = LazyLock::new(|| {
    PATTERN_RULES
        .iter()
        .map(|rule| (PatternForm::parse(rule.pattern), rule))
        .collect()
});

/// The part of `host` left of its registrable domain, without the joining
/// dot (`a.docs.example.com` → `a.docs`; empty when there is none).
fn subdomain_part<'h>(host: &'h str, registrable: &str) -> &'h str {
    if host.len() > registrable.len() + 1 && host.ends_with(registrable) {
        &host[..host.len() - registrable.len() - 1]
    } else {
        ""
    }
}

/// Whether `pattern` (see [`PatternRule`]) matches `host`, whose registrable
/// domain is `registrable`.
pub fn pattern_matches(pattern: &'static str, host: &str, registrable: &str) -> bool {
    HostParts::new(host, registrable).matches(&PatternForm::parse(pattern))
}

/// The parts of a host that patterns look at, each found once for all the
/// patterns tried on it.
struct HostParts<'h> {
    host: &'h str,
    /// [`subdomain_part`].
    sub: &'h str,
    /// The subdomain's first label (a byte loop: it is short).
    sub_first: &'h str,
    /// The host's last label: a suffix pattern whose last label differs
    /// cannot match.
    host_last: &'h str,
}

impl<'h> HostParts<'h> {
    fn new(host: &'h str, registrable: &str) -> Self {
        let sub = subdomain_part(host, registrable);
        HostParts {
            host,
            sub,
            sub_first: &sub[..sub.bytes().position(|b| b == b'.').unwrap_or(sub.len())],
            host_last: last_label(host),
        }
    }

    /// Whether a pattern of this form matches the host. Always inlined:
    /// as a call per pattern, the scan of a new host in fusion took about
    /// a fifth more instructions (callgrind).
    #[inline(always)]
    fn matches(&self, form: &PatternForm) -> bool {
        match *form {
            PatternForm::FirstLabel(label) => self.sub_first == label,
            PatternForm::AnyLabel(label) => has_label(self.sub, label),
            PatternForm::Suffix { suffix, last } => {
                label_fits(self.host_last, last) && suffix_matches(self.host, suffix)
            }
            PatternForm::Exact(exact) => self.host == exact,
        }
    }
}

/// The authority of `host` from the tables alone (no boost). See the module
/// docs for the matching order.
pub fn authority(host: &str) -> Authority {
    let host = normalise_host(host);
    let registrable = registrable_domain_of_normalised(&host);
    let (base, rule) = base_authority(&host, registrable);
    Authority {
        score: base,
        base,
        rule,
        boosted_by: None,
    }
}

fn base_authority(host: &str, registrable: &str) -> (f64, AuthorityRule) {
    // Longest suffix first, down to the registrable domain.
    let mut candidate = host;
    loop {
        if let Some(&(tier, domain)) = TIER_INDEX.get(candidate) {
            return (
                tier.score(),
                AuthorityRule::Tier {
                    tier,
                    domain: Cow::Borrowed(domain),
                },
            );
        }
        if candidate.len() <= registrable.len() {
            break;
        }
        // The first dot is near the start: a byte loop finds it sooner
        // than a vectorised search gets going.
        match candidate.bytes().position(|b| b == b'.') {
            Some(i) => candidate = &candidate[i + 1..],
            None => break,
        }
    }
    if is_ip(host) {
        return (DEFAULT_SCORE, AuthorityRule::Default);
    }
    let parts = HostParts::new(host, registrable);
    let mut best: Option<&PatternRule> = None;
    for (form, rule) in PARSED_PATTERNS.iter() {
        let matched = parts.matches(form);
        if matched && best.is_none_or(|b| rule.score > b.score) {
            best = Some(rule);
        }
    }
    match best {
        Some(rule) => (
            rule.score,
            AuthorityRule::Pattern {
                pattern: Cow::Borrowed(rule.pattern),
            },
        ),
        None => (DEFAULT_SCORE, AuthorityRule::Default),
    }
}

/// Normalise one `--domain-boost` entry: lowercased, without a scheme, path,
/// port, leading `*.`/`.`/`www.` or trailing dot. `None` when nothing is left.
fn normalise_boost(entry: &str) -> Option<String> {
    let mut e = entry.trim().to_ascii_lowercase();
    if let Some((_, rest)) = e.split_once("://") {
        e = rest.to_string();
    }
    if let Some(end) = e.find(['/', '?', '#']) {
        e.truncate(end);
    }
    if let Some(colon) = e.rfind(':')
        && e[colon + 1..].bytes().all(|b| b.is_ascii_digit())
        && !e.contains(']')
    {
        e.truncate(colon);
    }
    let e = e.trim_start_matches("*.").trim_start_matches('.');
    let e = normalise_host(e);
    (!e.is_empty()).then(|| e.into_owned())
}

/// Authority scoring with a caller's domain boosts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorityScorer {
    boosts: Vec<String>,
}

impl AuthorityScorer {
    /// A scorer boosting `domains` (`--domain-boost` on the CLI): a host
    /// that is a boosted domain or one of its subdomains gets
    /// [`DOMAIN_BOOST`] added, capped at 1.0. Entries are normalised
    /// (`https://www.dev.to/` → `dev.to`); blank entries are ignored.
    pub fn new<S: AsRef<str>>(domains: &[S]) -> Self {
        let mut boosts: Vec<String> = domains
            .iter()
            .filter_map(|d| normalise_boost(d.as_ref()))
            .collect();
        boosts.sort();
        boosts.dedup();
        AuthorityScorer { boosts }
    }

    /// The normalised boost domains.
    pub fn boosts(&self) -> &[String] {
        &self.boosts
    }

    /// The authority of `host`, boosted when it matches a boost domain.
    pub fn score(&self, host: &str) -> Authority {
        let host = normalise_host(host);
        let registrable = registrable_domain_of_normalised(&host);
        self.score_normalised(&host, registrable)
    }

    /// [`Self::score`] for a host already lowercased, without `www.`, whose
    /// registrable domain is known.
    pub(crate) fn score_normalised(&self, host: &str, registrable: &str) -> Authority {
        let (base, rule) = base_authority(host, registrable);
        let boosted_by = self
            .boosts
            .iter()
            .find(|b| {
                host == b.as_str()
                    || registrable == b.as_str()
                    || host
                        .strip_suffix(b.as_str())
                        .is_some_and(|p| p.ends_with('.'))
            })
            .cloned();
        let score = if boosted_by.is_some() {
            (base + DOMAIN_BOOST).min(1.0)
        } else {
            base
        };
        Authority {
            score,
            base,
            rule,
            boosted_by,
        }
    }
}

/// The host of a URL (`scheme://[user@]host[:port]/…`).
pub(crate) fn host_of(url: &str) -> &str {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or_else(|| match url.find("://") {
            Some(i) => &url[i + 3..],
            None => url,
        });
    let end = rest
        .bytes()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let authority = &rest[..end];
    let authority = match authority.rfind('@') {
        Some(i) => &authority[i + 1..],
        None => authority,
    };
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(i) => &authority[..=i],
            None => authority,
        };
    }
    match authority.find(':') {
        Some(i) => &authority[..i],
        None => authority,
    }
}

/// The host of a URL, normalised as the tables expect (borrowed for a
/// canonical URL, whose host is already normal).
pub(crate) fn normalised_host_of(url: &str) -> Cow<'_, str> {
    normalise_host(host_of(url))
}

#[cfg(test)]
mod tests {
    use super::pattern_matches;

    #[test]
    fn each_pattern_form_matches_its_hosts() {
        for (pattern, host, registrable, want) in [
            ("docs.*", "docs.example.com", "example.com", true),
            ("docs.*", "api.docs.example.com", "example.com", false),
            ("docs.*", "docs.com", "docs.com", false),
            ("*.docs.*", "api.docs.example.com", "example.com", true),
            ("*.docs.*", "example.com", "example.com", false),
            ("*.edu", "cs.stanford.edu", "stanford.edu", true),
            ("*.edu", "edu.com", "edu.com", false),
            ("*.gov.xx", "service.gov.uk", "service.gov.uk", true),
            ("*.gov.xx", "service.gov.com", "gov.com", false),
            ("example.com", "example.com", "example.com", true),
            ("example.com", "a.example.com", "example.com", false),
        ] {
            assert_eq!(
                pattern_matches(pattern, host, registrable),
                want,
                "{pattern} {host}"
            );
        }
    }
}
