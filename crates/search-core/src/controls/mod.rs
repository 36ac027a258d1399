//! Search controls: the restrictions an agent puts on a search — domains
//! to include or exclude, a date range, a region, a safe-search level, a
//! result page — and what each engine does with them.
//!
//! - [`Control`] names one control and [`ControlSet`] a set of them: an
//!   engine declares the set it pushes down to its service in
//!   [`EngineCapabilities::controls`](crate::EngineCapabilities::controls),
//!   and a search names the requested controls an engine ignored in its
//!   report ([`EngineReport::unsupported`](crate::EngineReport::unsupported)).
//! - [`ResultFilters`] applies the domain and date controls to the fused
//!   results, whatever each engine did with them: every removed result is
//!   reported as a [`DroppedRow`](crate::DroppedRow) with its reason, and
//!   results without a publication date are kept and counted.
//! - [`normalize_domain`] and [`normalize_region`] check and normalise what
//!   a caller typed; bad values are [`ControlError`]s.
//!
//! Domains match by host suffix at a label boundary, so `example.com`
//! matches `example.com`, `www.example.com` and `docs.example.com` but not
//! `badexample.com`; a leading `www.` is ignored on both sides. An
//! exclusion always wins over an inclusion.

mod filter;

use std::fmt;
use std::str::FromStr;

use chrono::NaiveDate;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use filter::{DateVerdict, Filtered, ResultFilters};

/// How strictly adult content is filtered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum SafeSearch {
    /// No filtering.
    Off,
    /// The service's default filtering of explicit images and video.
    Moderate,
    /// Filter explicit text, images and video.
    Strict,
}

impl SafeSearch {
    /// Every level, loosest first.
    pub const ALL: [SafeSearch; 3] = [SafeSearch::Off, SafeSearch::Moderate, SafeSearch::Strict];

    /// The name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            SafeSearch::Off => "off",
            SafeSearch::Moderate => "moderate",
            SafeSearch::Strict => "strict",
        }
    }
}

impl fmt::Display for SafeSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SafeSearch {
    type Err = ControlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        SafeSearch::ALL
            .into_iter()
            .find(|level| level.as_str().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| ControlError::InvalidSafeSearch {
                value: s.to_string(),
            })
    }
}

/// One search control an engine may push down to its service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// Only results from these domains.
    IncludeDomains,
    /// No results from these domains.
    ExcludeDomains,
    /// A recency window (`pd`/`pw`/`pm`/`py`).
    Freshness,
    /// Only results published on or after a date.
    Since,
    /// Only results published on or before a date.
    Until,
    /// Results in a language.
    Language,
    /// Results for a country.
    Region,
    /// A safe-search level.
    SafeSearch,
    /// A result page after the first.
    Page,
}

impl Control {
    /// Every control, in the order reports name them.
    pub const ALL: [Control; 9] = [
        Control::IncludeDomains,
        Control::ExcludeDomains,
        Control::Freshness,
        Control::Since,
        Control::Until,
        Control::Language,
        Control::Region,
        Control::SafeSearch,
        Control::Page,
    ];

    /// The name used in JSON and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Control::IncludeDomains => "include_domains",
            Control::ExcludeDomains => "exclude_domains",
            Control::Freshness => "freshness",
            Control::Since => "since",
            Control::Until => "until",
            Control::Language => "language",
            Control::Region => "region",
            Control::SafeSearch => "safe_search",
            Control::Page => "page",
        }
    }

    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

impl fmt::Display for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of [`Control`]s; serialised as a list of their names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ControlSet(u16);

impl ControlSet {
    /// No control.
    pub const EMPTY: ControlSet = ControlSet(0);

    /// The set of `controls`.
    pub const fn of(controls: &[Control]) -> ControlSet {
        let mut bits = 0;
        let mut i = 0;
        while i < controls.len() {
            bits |= controls[i].bit();
            i += 1;
        }
        ControlSet(bits)
    }

    /// Whether `control` is in the set.
    pub const fn contains(self, control: Control) -> bool {
        self.0 & control.bit() != 0
    }

    /// The set with `control` added.
    pub const fn with(self, control: Control) -> ControlSet {
        ControlSet(self.0 | control.bit())
    }

    /// The set without `control`.
    pub const fn without(self, control: Control) -> ControlSet {
        ControlSet(self.0 & !control.bit())
    }

    /// Add `control`.
    pub fn insert(&mut self, control: Control) {
        *self = self.with(control);
    }

    /// Whether the set is empty.
    pub const fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The controls of `self` that are not in `other`.
    pub const fn difference(self, other: ControlSet) -> ControlSet {
        ControlSet(self.0 & !other.0)
    }

    /// The controls in the set, in [`Control::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Control> {
        Control::ALL.into_iter().filter(move |c| self.contains(*c))
    }

    /// The controls' names, in [`Control::ALL`] order.
    pub fn names(self) -> Vec<String> {
        self.iter().map(|c| c.as_str().to_string()).collect()
    }
}

impl FromIterator<Control> for ControlSet {
    fn from_iter<I: IntoIterator<Item = Control>>(iter: I) -> Self {
        iter.into_iter().fold(ControlSet::EMPTY, ControlSet::with)
    }
}

impl Serialize for ControlSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for ControlSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Vec::<Control>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

/// A control value a search cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ControlError {
    /// A domain to include or exclude that is not a host name.
    #[error("{domain:?} is not a host name: {reason}")]
    InvalidDomain {
        /// The domain as given.
        domain: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The same domain is both included and excluded.
    #[error("{domain} is both included and excluded; leave it in only one of the two lists")]
    IncludedAndExcluded {
        /// The domain (normalised).
        domain: String,
    },
    /// The date range ends before it starts.
    #[error("since {since} is after until {until}; give a since on or before the until")]
    SinceAfterUntil {
        /// The first day asked for.
        since: NaiveDate,
        /// The last day asked for.
        until: NaiveDate,
    },
    /// Page 0 was asked for.
    #[error("page 0 does not exist; pages count from 1")]
    PageZero,
    /// A region that is not a two-letter country code.
    #[error("{region:?} is not a region; give a two-letter country code such as US, DE or JP")]
    InvalidRegion {
        /// The region as given.
        region: String,
    },
    /// A safe-search level that does not exist.
    #[error("{value:?} is not a safe-search level; use off, moderate or strict")]
    InvalidSafeSearch {
        /// The level as given.
        value: String,
    },
}

/// The longest host name DNS allows.
const MAX_HOST_LEN: usize = 253;
/// The longest label DNS allows.
const MAX_LABEL_LEN: usize = 63;

/// `domain` checked and normalised: trimmed, lowercased, a trailing dot
/// and a leading `www.` removed, an internationalised name in its ASCII
/// (punycode) form. Anything but a bare host name (a scheme, a path, a
/// port, a wildcard, an empty label) is [`ControlError::InvalidDomain`].
pub fn normalize_domain(domain: &str) -> Result<String, ControlError> {
    let invalid = |reason: &str| ControlError::InvalidDomain {
        domain: domain.to_string(),
        reason: reason.to_string(),
    };
    let trimmed = domain.trim().trim_end_matches('.');
    if trimmed.is_empty() {
        return Err(invalid("it is empty"));
    }
    if trimmed.contains(['/', ':', '@', '?', '#', '*', ' ', '\\']) {
        return Err(invalid(
            "give only the host name, such as example.com, without a scheme, path, port or \
             wildcard",
        ));
    }
    let ascii = ascii_host(trimmed).ok_or_else(|| invalid("it is not a valid host name"))?;
    if ascii.len() > MAX_HOST_LEN {
        return Err(invalid("it is longer than 253 characters"));
    }
    if let Some(label) = ascii.split('.').find(|l| !is_label(l)) {
        return Err(invalid(&format!(
            "the label {label:?} is not made of letters, digits and inner hyphens (1 to 63)"
        )));
    }
    Ok(strip_www(&ascii).to_string())
}

/// The lowercase ASCII form of a host name (punycode for a Unicode one).
fn ascii_host(host: &str) -> Option<String> {
    if host.is_ascii() {
        return Some(host.to_ascii_lowercase());
    }
    match url::Host::parse(host).ok()? {
        url::Host::Domain(ascii) => Some(ascii),
        _ => None,
    }
}

/// Whether `label` is a DNS label: 1–63 letters, digits and inner hyphens.
fn is_label(label: &str) -> bool {
    (1..=MAX_LABEL_LEN).contains(&label.len())
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !label.starts_with('-')
        && !label.ends_with('-')
}

/// `host` without one leading `www.` (when something is left after it).
fn strip_www(host: &str) -> &str {
    match host.strip_prefix("www.") {
        Some(rest) if !rest.is_empty() => rest,
        _ => host,
    }
}

/// Whether `host` is `domain` or a subdomain of it. Both are compared
/// lowercased, without a trailing dot or a leading `www.`; `domain` is
/// expected normalised by [`normalize_domain`].
pub fn host_matches(host: &str, domain: &str) -> bool {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    let host = strip_www(&host);
    let domain = strip_www(domain);
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|head| head.ends_with('.'))
}

/// Regions spelled other than their ISO 3166-1 code.
const REGION_ALIASES: &[(&str, &str)] = &[("UK", "GB")];

/// `region` checked and normalised to an uppercase ISO 3166-1 alpha-2
/// code (`us` → `US`; `UK` → `GB`).
pub fn normalize_region(region: &str) -> Result<String, ControlError> {
    let code = region.trim().to_ascii_uppercase();
    if code.len() != 2 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(ControlError::InvalidRegion {
            region: region.to_string(),
        });
    }
    Ok(REGION_ALIASES
        .iter()
        .find(|(alias, _)| *alias == code)
        .map_or(code, |(_, iso)| (*iso).to_string()))
}

/// Check a date range: `since` must not be after `until`.
pub fn check_dates(since: Option<NaiveDate>, until: Option<NaiveDate>) -> Result<(), ControlError> {
    match (since, until) {
        (Some(since), Some(until)) if since > until => {
            Err(ControlError::SinceAfterUntil { since, until })
        }
        _ => Ok(()),
    }
}

/// Check a page number: pages count from 1.
pub fn check_page(page: Option<u32>) -> Result<(), ControlError> {
    match page {
        Some(0) => Err(ControlError::PageZero),
        _ => Ok(()),
    }
}

/// Each domain normalised, duplicates removed (first kept).
pub fn normalize_domains<S: AsRef<str>>(domains: &[S]) -> Result<Vec<String>, ControlError> {
    let mut out: Vec<String> = Vec::with_capacity(domains.len());
    for domain in domains {
        let domain = normalize_domain(domain.as_ref())?;
        if !out.contains(&domain) {
            out.push(domain);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_are_normalised_host_names() {
        assert_eq!(normalize_domain(" Docs.RS. ").unwrap(), "docs.rs");
        assert_eq!(normalize_domain("www.reddit.com").unwrap(), "reddit.com");
        assert_eq!(
            normalize_domain("例子.测试").unwrap(),
            "xn--fsqu00a.xn--0zwm56d"
        );
        for bad in [
            "",
            "https://example.com",
            "example.com/path",
            "example.com:443",
            "*.example.com",
            "exa mple.com",
            "a..b",
            "-a.com",
        ] {
            let e = normalize_domain(bad).unwrap_err();
            assert!(
                matches!(e, ControlError::InvalidDomain { .. }),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn hosts_match_their_domain_and_its_subdomains_only() {
        assert!(host_matches("example.com", "example.com"));
        assert!(host_matches("www.example.com", "example.com"));
        assert!(host_matches("docs.example.com", "example.com"));
        assert!(host_matches("EXAMPLE.com.", "example.com"));
        assert!(!host_matches("badexample.com", "example.com"));
        assert!(!host_matches("example.com.evil.org", "example.com"));
        assert!(!host_matches("example.com", "docs.example.com"));
    }

    #[test]
    fn regions_are_two_letter_codes() {
        assert_eq!(normalize_region("us").unwrap(), "US");
        assert_eq!(normalize_region("uk").unwrap(), "GB");
        assert!(normalize_region("USA").is_err());
        assert!(normalize_region("1a").is_err());
    }

    #[test]
    fn dates_and_pages_are_checked() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert!(check_dates(Some(d("2024-01-01")), Some(d("2024-01-01"))).is_ok());
        assert_eq!(
            check_dates(Some(d("2024-02-01")), Some(d("2024-01-01"))),
            Err(ControlError::SinceAfterUntil {
                since: d("2024-02-01"),
                until: d("2024-01-01")
            })
        );
        assert_eq!(check_page(Some(0)), Err(ControlError::PageZero));
        assert!(check_page(Some(1)).is_ok() && check_page(None).is_ok());
    }

    #[test]
    fn safe_search_levels_parse_and_print() {
        for level in SafeSearch::ALL {
            assert_eq!(level.as_str().parse::<SafeSearch>().unwrap(), level);
        }
        assert_eq!("STRICT".parse::<SafeSearch>().unwrap(), SafeSearch::Strict);
        assert!("on".parse::<SafeSearch>().is_err());
    }

    #[test]
    fn control_sets_serialise_as_names() {
        let set = ControlSet::of(&[Control::Region, Control::IncludeDomains]);
        assert_eq!(
            serde_json::to_value(set).unwrap(),
            serde_json::json!(["include_domains", "region"])
        );
        let back: ControlSet = serde_json::from_value(serde_json::json!(["region"])).unwrap();
        assert_eq!(back, ControlSet::of(&[Control::Region]));
        assert_eq!(
            set.difference(ControlSet::of(&[Control::Region])).names(),
            ["include_domains"]
        );
    }
}
