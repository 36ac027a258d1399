//! Special-purpose IP ranges the guard refuses, as data.
//!
//! The tables follow the IANA IPv4 and IPv6 special-purpose address
//! registries (RFC 6890 and successors), keeping every block that is not
//! globally reachable, plus multicast and the cloud metadata addresses
//! (including Azure's wireserver 168.63.129.16, public but platform-only).
//! IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:0:0/96`,
//! NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the address they
//! embed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One IPv4 block: network, prefix length, what it is.
struct V4Block(Ipv4Addr, u8, &'static str);

/// One IPv6 block: network, prefix length, what it is.
struct V6Block(Ipv6Addr, u8, &'static str);

/// Addresses inside a blocked range that the IANA registries mark globally
/// reachable: PCP and TURN anycast (192.0.0.9, 192.0.0.10; RFC 7723, 8155).
const IPV4_GLOBAL: &[Ipv4Addr] = &[Ipv4Addr::new(192, 0, 0, 9), Ipv4Addr::new(192, 0, 0, 10)];

/// Blocks inside 2001::/23 that the IANA IPv6 registry marks globally
/// reachable: PCP and TURN anycast, AMT, AS112-v6 and ORCHIDv2.
const IPV6_GLOBAL: &[(Ipv6Addr, u8)] = &[
    (Ipv6Addr::new(0x2001, 1, 0, 0, 0, 0, 0, 1), 128),
    (Ipv6Addr::new(0x2001, 1, 0, 0, 0, 0, 0, 2), 128),
    (Ipv6Addr::new(0x2001, 3, 0, 0, 0, 0, 0, 0), 32),
    (Ipv6Addr::new(0x2001, 4, 0x112, 0, 0, 0, 0, 0), 48),
    (Ipv6Addr::new(0x2001, 0x20, 0, 0, 0, 0, 0, 0), 28),
];

/// IPv4 blocks that are never fetched. More specific entries come first so
/// the detail names the most precise range.
const IPV4_BLOCKED: &[V4Block] = &[
    V4Block(
        Ipv4Addr::new(169, 254, 169, 254),
        32,
        "cloud metadata service",
    ),
    V4Block(
        Ipv4Addr::new(168, 63, 129, 16),
        32,
        "Azure platform endpoint (wireserver)",
    ),
    V4Block(Ipv4Addr::new(255, 255, 255, 255), 32, "limited broadcast"),
    V4Block(Ipv4Addr::new(0, 0, 0, 0), 8, "\"this network\" (0.0.0.0/8)"),
    V4Block(
        Ipv4Addr::new(10, 0, 0, 0),
        8,
        "private network (10.0.0.0/8)",
    ),
    V4Block(
        Ipv4Addr::new(100, 64, 0, 0),
        10,
        "carrier-grade NAT (100.64.0.0/10)",
    ),
    V4Block(Ipv4Addr::new(127, 0, 0, 0), 8, "loopback (127.0.0.0/8)"),
    V4Block(
        Ipv4Addr::new(169, 254, 0, 0),
        16,
        "link-local (169.254.0.0/16)",
    ),
    V4Block(
        Ipv4Addr::new(172, 16, 0, 0),
        12,
        "private network (172.16.0.0/12)",
    ),
    V4Block(
        Ipv4Addr::new(192, 0, 0, 0),
        24,
        "IETF protocol assignments (192.0.0.0/24)",
    ),
    V4Block(
        Ipv4Addr::new(192, 0, 2, 0),
        24,
        "documentation TEST-NET-1 (192.0.2.0/24)",
    ),
    V4Block(
        Ipv4Addr::new(192, 88, 99, 0),
        24,
        "deprecated 6to4 relay anycast (192.88.99.0/24)",
    ),
    V4Block(
        Ipv4Addr::new(192, 168, 0, 0),
        16,
        "private network (192.168.0.0/16)",
    ),
    V4Block(
        Ipv4Addr::new(198, 18, 0, 0),
        15,
        "benchmarking (198.18.0.0/15)",
    ),
    V4Block(
        Ipv4Addr::new(198, 51, 100, 0),
        24,
        "documentation TEST-NET-2 (198.51.100.0/24)",
    ),
    V4Block(
        Ipv4Addr::new(203, 0, 113, 0),
        24,
        "documentation TEST-NET-3 (203.0.113.0/24)",
    ),
    V4Block(Ipv4Addr::new(224, 0, 0, 0), 4, "multicast (224.0.0.0/4)"),
    V4Block(Ipv4Addr::new(240, 0, 0, 0), 4, "reserved (240.0.0.0/4)"),
];

/// IPv6 blocks that are never fetched (after the embedded-IPv4 forms have
/// been handled). More specific entries come first.
const IPV6_BLOCKED: &[V6Block] = &[
    V6Block(Ipv6Addr::UNSPECIFIED, 128, "unspecified address (::)"),
    V6Block(Ipv6Addr::LOCALHOST, 128, "loopback (::1)"),
    V6Block(
        Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0),
        96,
        "deprecated IPv4-compatible address (::/96)",
    ),
    V6Block(
        Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0),
        8,
        "reserved by the IETF (::/8)",
    ),
    V6Block(
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "local-use NAT64 (64:ff9b:1::/48)",
    ),
    V6Block(
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        "discard-only (100::/64)",
    ),
    V6Block(
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "documentation (2001:db8::/32)",
    ),
    V6Block(
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        "IETF protocol assignments incl. Teredo (2001::/23)",
    ),
    V6Block(
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "documentation (3fff::/20)",
    ),
    V6Block(
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "segment routing SIDs (5f00::/16)",
    ),
    V6Block(
        Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254),
        128,
        "cloud metadata service (fd00:ec2::254)",
    ),
    V6Block(
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        "unique local address (fc00::/7)",
    ),
    V6Block(
        Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0),
        10,
        "link-local (fe80::/10)",
    ),
    V6Block(
        Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0),
        10,
        "deprecated site-local (fec0::/10)",
    ),
    V6Block(
        Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0),
        8,
        "multicast (ff00::/8)",
    ),
];

/// The fake-ip range that proxy tools (Clash, sing-box, Surge) answer every
/// DNS query with; see [`is_fake_ip`].
const FAKE_IP: (Ipv4Addr, u8) = (Ipv4Addr::new(198, 18, 0, 0), 15);

fn v4_in(ip: Ipv4Addr, net: Ipv4Addr, prefix: u8) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(prefix))
    };
    u32::from(ip) & mask == u32::from(net) & mask
}

fn v6_in(ip: Ipv6Addr, net: Ipv6Addr, prefix: u8) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u128::MAX << (128 - u32::from(prefix))
    };
    u128::from(ip) & mask == u128::from(net) & mask
}

/// Why `ip` must not be fetched (the range it falls in), or `None` for a
/// globally reachable address.
pub(crate) fn blocked_v4(ip: Ipv4Addr) -> Option<&'static str> {
    if IPV4_GLOBAL.contains(&ip) {
        return None;
    }
    IPV4_BLOCKED
        .iter()
        .find(|b| v4_in(ip, b.0, b.1))
        .map(|b| b.2)
}

/// The IPv4 address an IPv6 address carries, for the forms that are routed
/// to that IPv4 address: IPv4-mapped (`::ffff:a.b.c.d`), NAT64
/// (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::/48`) and the deprecated
/// IPv4-compatible form (`::a.b.c.d`, not `::` or `::1`).
pub(crate) fn embedded_v4(ip: Ipv6Addr) -> Option<(Ipv4Addr, &'static str)> {
    let bits = u128::from(ip);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some((v4, "IPv4-mapped"));
    }
    if v6_in(ip, Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96) {
        return Some((Ipv4Addr::from(bits as u32), "NAT64"));
    }
    if v6_in(ip, Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16) {
        return Some((Ipv4Addr::from((bits >> 80) as u32), "6to4"));
    }
    if v6_in(ip, Ipv6Addr::UNSPECIFIED, 96) && bits > 1 {
        return Some((Ipv4Addr::from(bits as u32), "IPv4-compatible"));
    }
    None
}

/// Why `ip` must not be fetched, or `None` for a globally reachable address.
pub(crate) fn blocked_v6(ip: Ipv6Addr) -> Option<String> {
    if let Some((v4, form)) = embedded_v4(ip) {
        if let Some(why) = blocked_v4(v4) {
            return Some(format!("{form} form of {v4}, {why}"));
        }
        if form == "IPv4-mapped" || form == "NAT64" || form == "6to4" {
            return None;
        }
    }
    if IPV6_GLOBAL
        .iter()
        .any(|&(net, prefix)| v6_in(ip, net, prefix))
    {
        return None;
    }
    IPV6_BLOCKED
        .iter()
        .find(|b| v6_in(ip, b.0, b.1))
        .map(|b| b.2.to_string())
}

/// Why `ip` must not be fetched, or `None` for a globally reachable address.
pub(crate) fn blocked_ip(ip: IpAddr) -> Option<String> {
    match ip {
        IpAddr::V4(v4) => blocked_v4(v4).map(str::to_string),
        IpAddr::V6(v6) => blocked_v6(v6),
    }
}

/// Whether `ip` is in 198.18.0.0/15, the range fake-ip proxies answer DNS
/// queries with (also via its IPv4-mapped form).
pub(crate) fn is_fake_ip(ip: IpAddr) -> bool {
    let v4 = match ip {
        IpAddr::V4(v4) => v4,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4,
            None => return false,
        },
    };
    v4_in(v4, FAKE_IP.0, FAKE_IP.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_addresses_pass() {
        for ip in ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111"] {
            assert_eq!(blocked_ip(ip.parse().unwrap()), None, "{ip}");
        }
    }

    #[test]
    fn range_edges_are_exact() {
        assert!(blocked_v4(Ipv4Addr::new(100, 64, 0, 0)).is_some());
        assert!(blocked_v4(Ipv4Addr::new(100, 127, 255, 255)).is_some());
        assert!(blocked_v4(Ipv4Addr::new(100, 128, 0, 0)).is_none());
        assert!(blocked_v4(Ipv4Addr::new(100, 63, 255, 255)).is_none());
        assert!(blocked_v4(Ipv4Addr::new(172, 31, 255, 255)).is_some());
        assert!(blocked_v4(Ipv4Addr::new(172, 32, 0, 0)).is_none());
        assert!(blocked_v4(Ipv4Addr::new(198, 19, 255, 255)).is_some());
        assert!(blocked_v4(Ipv4Addr::new(198, 20, 0, 0)).is_none());
    }

    #[test]
    fn embedded_public_v4_in_mapped_form_passes() {
        assert_eq!(blocked_ip("::ffff:8.8.8.8".parse().unwrap()), None);
        assert_eq!(blocked_ip("64:ff9b::8.8.8.8".parse().unwrap()), None);
        assert_eq!(blocked_ip("2002:808:808::1".parse().unwrap()), None);
    }

    #[test]
    fn metadata_addresses_are_named() {
        assert_eq!(
            blocked_ip("169.254.169.254".parse().unwrap()).as_deref(),
            Some("cloud metadata service")
        );
        assert!(
            blocked_ip("fd00:ec2::254".parse().unwrap())
                .unwrap()
                .contains("metadata")
        );
    }
}
