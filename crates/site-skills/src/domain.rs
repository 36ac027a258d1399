//! Domains: the patterns a manifest declares and the hostnames they match.
//!
//! A manifest declares plain hostnames (`github.com`) and wildcards
//! (`*.wikipedia.org`), apex and subdomains separately: `*.x` matches every
//! subdomain of `x` at any depth but never `x` itself. Patterns are
//! lowercase; a pattern may be written in Unicode (`bücher.example`) or in
//! punycode (`xn--bcher-kva.example`): both are stored in their ASCII
//! (punycode) form, so either spelling of a hostname matches either spelling
//! of a pattern. Hostnames looked up are normalised the same way: case
//! folded, one trailing dot dropped, IDNA-mapped to ASCII.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::violation::Rule;

/// The longest hostname (RFC 1035).
pub const MAX_DOMAIN_LEN: usize = 253;
/// The longest label.
pub const MAX_LABEL_LEN: usize = 63;

/// A parsed `domains` entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DomainPattern {
    /// Exactly this hostname (ASCII).
    Exact(String),
    /// Any subdomain of this hostname (ASCII), not the hostname itself.
    Wildcard(String),
}

/// Why a `domains` entry was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainPatternError {
    /// The rule it broke.
    pub rule: Rule,
    /// What is wrong, with the fix.
    pub message: String,
}

impl DomainPattern {
    /// Parse one `domains` entry as written in a manifest.
    pub fn parse(raw: &str) -> Result<Self, DomainPatternError> {
        let fail = |rule: Rule, message: String| Err(DomainPatternError { rule, message });
        if raw.is_empty() {
            return fail(Rule::DomainFormat, "a domain must not be empty".into());
        }
        if raw != raw.to_lowercase() {
            return fail(
                Rule::DomainUppercase,
                format!(
                    "{raw:?} has uppercase letters; write domains in lowercase ({:?})",
                    raw.to_lowercase()
                ),
            );
        }
        let (wildcard, host) = match raw.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, raw),
        };
        if host.contains('*') {
            return fail(
                Rule::DomainFormat,
                format!(
                    "{raw:?}: a wildcard is only allowed as a leading \"*.\" (\"*.example.com\")"
                ),
            );
        }
        if host.ends_with('.') {
            return fail(
                Rule::DomainFormat,
                format!("{raw:?}: write the hostname without a trailing dot"),
            );
        }
        if host.contains([':', '/', '@', '?', '#', ' ']) {
            return fail(
                Rule::DomainFormat,
                format!(
                    "{raw:?} is not a hostname: declare only the host, without scheme, port or path"
                ),
            );
        }
        let ascii = if host.is_ascii() {
            host.to_string()
        } else {
            match url::Host::parse(host) {
                Ok(url::Host::Domain(d)) => d,
                _ => {
                    return fail(
                        Rule::DomainFormat,
                        format!("{raw:?} is not a valid internationalised hostname"),
                    );
                }
            }
        };
        check_ascii_hostname(raw, &ascii)?;
        let not_public = || match ferret_core::guard::local_name_reason(&ascii) {
            Some(why) => Err(DomainPatternError {
                rule: Rule::DomainNotPublic,
                message: format!("{raw:?} is never a public site: {why}"),
            }),
            None => Ok(()),
        };
        if wildcard {
            let known_suffix =
                psl::suffix(ascii.as_bytes()).is_some_and(|s| s.is_known() && s == ascii.as_str());
            if known_suffix || !ascii.contains('.') {
                return fail(
                    Rule::DomainPublicSuffix,
                    format!(
                        "{raw:?} would cover every site under the public suffix {ascii:?}; \
                         declare the sites' own domains instead"
                    ),
                );
            }
            not_public()?;
            Ok(DomainPattern::Wildcard(ascii))
        } else {
            not_public()?;
            Ok(DomainPattern::Exact(ascii))
        }
    }

    /// Whether `host` (already normalised with [`normalize_host`]) matches.
    pub fn matches(&self, host: &str) -> bool {
        match self {
            DomainPattern::Exact(d) => host == d,
            DomainPattern::Wildcard(suffix) => host
                .strip_suffix(suffix.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
        }
    }

    /// The pattern as declared in ASCII (`*.wikipedia.org`).
    pub fn as_ascii(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for DomainPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DomainPattern::Exact(d) => f.write_str(d),
            DomainPattern::Wildcard(d) => write!(f, "*.{d}"),
        }
    }
}

impl Serialize for DomainPattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

fn check_ascii_hostname(raw: &str, ascii: &str) -> Result<(), DomainPatternError> {
    let fail = |rule: Rule, message: String| Err(DomainPatternError { rule, message });
    if ascii.len() > MAX_DOMAIN_LEN {
        return fail(
            Rule::DomainLength,
            format!(
                "{raw:?} is {} characters long; a hostname has at most {MAX_DOMAIN_LEN}",
                ascii.len()
            ),
        );
    }
    if ascii.parse::<std::net::Ipv4Addr>().is_ok() || ascii.split('.').all(is_numeric_label) {
        return fail(
            Rule::DomainFormat,
            format!("{raw:?} is an IP address; site skills cover hostnames only"),
        );
    }
    for label in ascii.split('.') {
        if label.is_empty() {
            return fail(
                Rule::DomainFormat,
                format!("{raw:?} has an empty label (two dots in a row or a leading dot)"),
            );
        }
        if label.len() > MAX_LABEL_LEN {
            return fail(
                Rule::DomainLabelLength,
                format!(
                    "{raw:?}: the label {label:?} is {} characters long; a label has at most \
                     {MAX_LABEL_LEN}",
                    label.len()
                ),
            );
        }
        let ok_chars = label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !ok_chars || label.starts_with('-') || label.ends_with('-') {
            return fail(
                Rule::DomainFormat,
                format!(
                    "{raw:?}: the label {label:?} must be letters, digits and inner hyphens \
                     (a-z, 0-9, -)"
                ),
            );
        }
    }
    Ok(())
}

fn is_numeric_label(label: &str) -> bool {
    !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit())
}

/// Normalise a hostname for matching: trim, drop one trailing dot, fold
/// case, map IDNA (Unicode) to ASCII punycode. `None` when it is not a
/// domain name (empty, an IP address, invalid characters).
pub fn normalize_host(host: &str) -> Option<String> {
    let host = host.trim();
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty() || host.ends_with('.') {
        return None;
    }
    match url::Host::parse(host) {
        Ok(url::Host::Domain(d)) if !d.is_empty() && !d.split('.').any(str::is_empty) => Some(d),
        _ => None,
    }
}

/// The normalised hostname of an absolute URL (`None` for a URL without a
/// domain host, such as `about:blank`, `file:///…` or an IP address).
pub fn host_of_url(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    match parsed.host()? {
        url::Host::Domain(d) => normalize_host(d),
        _ => None,
    }
}
