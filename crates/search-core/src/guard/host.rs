//! Host-name rules and the defensive numeric-host parser.
//!
//! The `url` crate already turns every numeric IPv4 spelling of an http(s)
//! host into an IPv4 address (WHATWG host parsing). The guard does not rely
//! on that alone: it also reads the raw authority of the input and parses
//! any all-numeric host itself with the classic `inet_aton` rules
//! (decimal, `0`-prefixed octal, `0x` hex, 1–4 parts, trailing dots), so a
//! spelling one parser misses is still caught by the other.

use std::net::Ipv4Addr;

/// Host names that always mean "this machine", a cloud metadata service or
/// a cluster's own API, with why.
pub(crate) const LOCAL_NAMES: &[(&str, &str)] = &[
    ("localhost", "is this machine"),
    ("metadata", "is a cloud metadata service name"),
    (
        "metadata.google.internal",
        "is a cloud metadata service name",
    ),
    ("instance-data", "is a cloud metadata service name"),
    (
        "instance-data.ec2.internal",
        "is a cloud metadata service name",
    ),
    (
        "kubernetes.default",
        "is a Kubernetes cluster's own API service",
    ),
    (
        "kubernetes.default.svc",
        "is a Kubernetes cluster's own API service",
    ),
];

/// Name suffixes that are never public (matched on whole labels: `x.local`
/// but not `xlocal`), with why: the special-use domain names of RFC 6761 and
/// the IANA registry that are not resolved in the public DNS, and the
/// suffixes of local, internal, home and cluster networks.
pub(crate) const LOCAL_SUFFIXES: &[(&str, &str)] = &[
    ("localhost", "a name of this machine (RFC 6761)"),
    (
        "local",
        "a multicast-DNS name of the local network (RFC 6762)",
    ),
    (
        "test",
        "a special-use name for testing, never public (RFC 6761)",
    ),
    (
        "invalid",
        "a special-use name that never resolves (RFC 6761)",
    ),
    (
        "onion",
        "a Tor onion-service name, not in the public DNS (RFC 7686)",
    ),
    ("alt", "a special-use name outside the DNS (RFC 9476)"),
    (
        "arpa",
        "infrastructure names: reverse lookups (in-addr.arpa, ip6.arpa) and home networks (home.arpa)",
    ),
    ("internal", "a private-use network suffix"),
    ("lan", "a local network suffix"),
    ("corp", "an internal network suffix"),
    ("intranet", "an internal network suffix"),
    ("localdomain", "a local network suffix"),
    ("home", "a home network suffix"),
    ("svc", "a cluster-internal service name"),
];

/// Why a (lowercase, IDNA-mapped) domain name can never be a public site,
/// or `None`: a local, metadata or cluster name, a special-use or internal
/// suffix, or a single label. The guard refuses such hosts; site-skill
/// packages may not claim them.
pub fn local_name_reason(domain: &str) -> Option<String> {
    let name = domain.trim_end_matches('.');
    if let Some((known, why)) = LOCAL_NAMES.iter().find(|(n, _)| *n == name) {
        return Some(format!("{known:?} {why}"));
    }
    let label_suffix = |s: &str| {
        name == s
            || (name.len() > s.len() + 1
                && name.ends_with(s)
                && name.as_bytes()[name.len() - s.len() - 1] == b'.')
    };
    if let Some((suffix, why)) = LOCAL_SUFFIXES.iter().find(|(s, _)| label_suffix(s)) {
        return Some(format!("{name:?} ends in \".{suffix}\": {why}"));
    }
    if !name.contains('.') {
        return Some(format!(
            "{name:?} has no dot: single-label names resolve on the local network"
        ));
    }
    None
}

/// Parse `host` as a numeric IPv4 address the way `inet_aton` and the
/// WHATWG URL standard do: one to four dot-separated parts, each decimal,
/// octal (leading `0`) or hex (`0x`), the last part filling the remaining
/// bytes; trailing dots are ignored. `None` when it is not numeric.
pub(crate) fn parse_numeric_v4(host: &str) -> Option<Ipv4Addr> {
    let host = host.trim_end_matches('.');
    if host.is_empty() {
        return None;
    }
    let parts: Vec<&str> = host.split('.').collect();
    if parts.len() > 4 {
        return None;
    }
    let mut values = Vec::with_capacity(parts.len());
    for part in &parts {
        values.push(parse_part(part)?);
    }
    let (last, init) = values.split_last()?;
    let mut out: u64 = 0;
    for (i, v) in init.iter().enumerate() {
        if *v > 255 {
            return None;
        }
        out |= v << (8 * (3 - i));
    }
    let remaining_bits = 8 * (4 - init.len() as u32);
    if remaining_bits < 64 && *last >= 1u64 << remaining_bits {
        return None;
    }
    out |= last;
    u32::try_from(out).ok().map(Ipv4Addr::from)
}

fn parse_part(part: &str) -> Option<u64> {
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() {
        // "0x" alone is zero; an empty part is not a number.
        return (radix == 16).then_some(0);
    }
    if digits.len() > 20 || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// The raw authority of an http(s)-looking input (what sits between the
/// scheme and the path), before any parser normalised it. Special schemes
/// accept any run of `/` and `\` after the colon, and `\` ends the
/// authority.
pub(crate) fn raw_authority(raw: &str) -> Option<&str> {
    let colon = raw.find(':')?;
    let rest = raw[colon + 1..].trim_start_matches(['/', '\\']);
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The host part of a raw authority: userinfo and port removed, brackets
/// kept off, percent-escapes decoded, lowercased.
pub(crate) fn raw_host(authority: &str) -> String {
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let host = if let Some(inner) = host_port.strip_prefix('[') {
        inner.split(']').next().unwrap_or(inner)
    } else {
        host_port.split(':').next().unwrap_or(host_port)
    };
    percent_decode(host).to_ascii_lowercase()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex_val(bytes[i + 1]), hex_val(bytes[i + 2]))
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_spellings_parse_like_inet_aton() {
        let lo = Some(Ipv4Addr::new(127, 0, 0, 1));
        for s in [
            "127.0.0.1",
            "2130706433",
            "0177.0.0.1",
            "0x7f.0.0.1",
            "0x7f000001",
            "127.1",
            "0x7f.1",
            "127.0.1",
            "017700000001",
            "127.0.0.1.",
            "127.0.0.1..",
        ] {
            assert_eq!(parse_numeric_v4(s), lo, "{s}");
        }
        assert_eq!(parse_numeric_v4("10.1"), Some(Ipv4Addr::new(10, 0, 0, 1)));
        for s in [
            "example.com",
            "1.2.3.4.5",
            "256.0.0.1",
            "09.1.1.1",
            "",
            "4294967296",
        ] {
            assert_eq!(parse_numeric_v4(s), None, "{s}");
        }
    }

    #[test]
    fn raw_authority_sees_the_unnormalised_host() {
        assert_eq!(raw_authority("http://a@b:1/x"), Some("a@b:1"));
        assert_eq!(raw_authority("http:\\\\127.1\\x"), Some("127.1"));
        assert_eq!(raw_host("u:p@%31%32%37.0.0.1:80"), "127.0.0.1");
        assert_eq!(raw_host("[::1]:80"), "::1");
    }

    #[test]
    fn suffixes_match_whole_labels() {
        assert!(local_name_reason("printer.local").is_some());
        assert!(local_name_reason("a.b.home.arpa").is_some());
        assert!(local_name_reason("nonlocal.com").is_none());
        assert!(local_name_reason("xlocal").is_some()); // dot-less
        assert!(local_name_reason("example.lan.com").is_none());
        assert!(local_name_reason("localhost.").is_some());
    }

    #[test]
    fn special_use_and_cluster_names_are_never_public() {
        for name in [
            "shop.test",
            "x.invalid",
            "abcdefghijklmnop.onion",
            "1.0.0.127.in-addr.arpa",
            "b.a.ip6.arpa",
            "router.home.arpa",
            "kubernetes.default",
            "kubernetes.default.svc",
            "api.prod.svc",
            "web.ns.svc.cluster.local",
            "db.internal",
            "name.alt",
        ] {
            assert!(local_name_reason(name).is_some(), "{name}");
        }
        for name in [
            "example.com",
            "testing.com",
            "invalid.org",
            "svc.example.com",
            "arpa.io",
        ] {
            assert!(local_name_reason(name).is_none(), "{name}");
        }
    }
}
