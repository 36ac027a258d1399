//! The URL guard, through its public API: one test per reason and per
//! spelling, strict-mode address checks, redirects, verdicts, and property
//! tests over generated private addresses and arbitrary strings.

use std::net::SocketAddr;
use std::time::Duration;

use ferret_core::guard::{GuardError, GuardReason, GuardVerdict, UrlGuard};
use proptest::prelude::*;
use url::Url;

fn reason(url: &str) -> Option<GuardReason> {
    UrlGuard::default().check(url).err().map(|e| e.reason)
}

fn assert_blocked(urls: &[&str], expected: GuardReason) {
    for url in urls {
        assert_eq!(reason(url), Some(expected), "{url}");
    }
}

fn assert_allowed(urls: &[&str]) {
    for url in urls {
        if let Err(e) = UrlGuard::default().check(url) {
            panic!("{url} should pass: {e}");
        }
    }
}

#[test]
fn public_http_and_https_urls_pass() {
    assert_allowed(&[
        "https://example.com/",
        "http://example.com/path?q=1#frag",
        "https://sub.example.co.uk:8443/x",
        "  https://example.com/padded  ",
        "http://8.8.8.8/",
        "https://1.1.1.1/dns-query",
        "https://[2606:4700:4700::1111]/",
        "http://[::ffff:8.8.8.8]/",
        "http://[64:ff9b::808:808]/",
        "https://xn--bcher-kva.example/",
        "https://bücher.example/",
        "https://example.com./",
        "https://localhost.example.com/",
        "https://local.example.com/",
    ]);
}

#[test]
fn check_returns_the_parsed_url() {
    let url = UrlGuard::default()
        .check(" HTTPS://Example.COM/a ")
        .unwrap();
    assert_eq!(url.as_str(), "https://example.com/a");
}

#[test]
fn non_http_schemes_are_scheme_not_allowed() {
    assert_blocked(
        &[
            "file:///etc/passwd",
            "ftp://example.com/x",
            "javascript:alert(1)",
            "data:text/html,<b>x</b>",
            "gopher://example.com/",
            "ws://example.com/socket",
            "chrome://settings",
            "about:blank",
            "mailto:a@example.com",
        ],
        GuardReason::SchemeNotAllowed,
    );
}

#[test]
fn user_names_and_passwords_are_credentials_in_url() {
    assert_blocked(
        &[
            "http://user:pass@example.com/",
            "https://user@example.com/",
            "https://:secret@example.com/",
            "http://example.com:@evil.example/",
            "http://127.0.0.1:80@evil.example/",
        ],
        GuardReason::CredentialsInUrl,
    );
}

#[test]
fn an_empty_user_info_is_normalised_away_not_refused() {
    let guard = UrlGuard::default();
    for raw in ["http://@example.com/", "http://:@example.com/a"] {
        let url = guard.check(raw).expect(raw);
        assert_eq!(url.host_str(), Some("example.com"), "{raw}");
        assert!(!url.as_str().contains('@'), "{url}");
    }
}

#[test]
fn globally_reachable_special_purpose_addresses_are_allowed() {
    let guard = UrlGuard::default();
    for raw in [
        "http://192.0.0.9/",
        "http://192.0.0.10/",
        "http://[2001:1::1]/",
        "http://[2001:1::2]/",
        "http://[2001:3::1]/",
        "http://[2001:4:112::1]/",
        "http://[2001:20::1]/",
    ] {
        assert!(guard.check(raw).is_ok(), "{raw}");
    }
    for raw in [
        "http://192.0.0.8/",
        "http://192.0.0.11/",
        "http://[2001:2::1]/",
    ] {
        assert!(guard.check(raw).is_err(), "{raw}");
    }
}

#[test]
fn special_use_and_cluster_names_are_refused() {
    let guard = UrlGuard::default();
    for raw in [
        "http://shop.test/",
        "http://x.invalid/",
        "http://duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion/",
        "http://1.0.0.127.in-addr.arpa/",
        "http://kubernetes.default/",
        "https://kubernetes.default.svc/api",
        "http://web.ns.svc.cluster.local/",
        "http://db.internal/",
    ] {
        let err = guard.check(raw).expect_err(raw);
        assert_eq!(err.reason, GuardReason::PrivateOrLocalHostBlocked, "{raw}");
    }
}

#[test]
fn credentials_are_refused_even_when_private_urls_are_allowed() {
    let guard = UrlGuard::default().allow_private(true);
    let err = guard.check("http://admin:pw@127.0.0.1:8080/").unwrap_err();
    assert_eq!(err.reason, GuardReason::CredentialsInUrl);
    let err = guard.check("file:///etc/passwd").unwrap_err();
    assert_eq!(err.reason, GuardReason::SchemeNotAllowed);
}

#[test]
fn hostless_urls_are_missing_host() {
    assert_blocked(
        &["http://", "https://:443/", "http://./", "http://../x"],
        GuardReason::MissingHost,
    );
}

#[test]
fn unparseable_input_is_invalid_url() {
    assert_blocked(
        &[
            "",
            "   ",
            "not a url",
            "example.com/no-scheme",
            "//example.com/protocol-relative",
            "http://exa mple.com/",
            "http://1.2.3.4.5/",
            "http://4294967296/",
            "http://example.com:99999/",
            "http://[::1/",
            // Zone ids are not part of URL syntax.
            "http://[fe80::1%25eth0]/",
        ],
        GuardReason::InvalidUrl,
    );
}

#[test]
fn loopback_in_every_spelling_is_blocked() {
    assert_blocked(
        &[
            "http://127.0.0.1/",
            "http://127.0.0.1:8080/admin",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://00000177.0.0.1/",
            "http://017700000001/",
            "http://0x7f.0.0.1/",
            "http://0X7F.0x0.0x0.0x1/",
            "http://0x7f000001/",
            "http://127.1/",
            "http://127.0.1/",
            "http://0x7f.1/",
            "http://0177.0x0.1/",
            "http://127.0.0.1./",
            "http://127.0.0.1../",
            "http://127.255.255.254/",
            "http://%31%32%37.0.0.1/",
            "http://127%2E0%2E0%2E1/",
            "http://１２７.０.０.１/",
            "http://127。0。0。1/",
            "http:127.0.0.1/",
            "http:\\\\127.0.0.1\\x",
            "http://[::1]/",
            "http://[0:0:0:0:0:0:0:1]:8080/",
        ],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn private_short_forms_are_blocked() {
    assert_blocked(
        &[
            "http://10.1/",
            "http://10.0.0.1/",
            "http://167772161/",
            "http://012.0.0.1/",
            "http://0xa.1/",
            "http://192.168.1.1/",
            "http://192.168.257/",
            "http://0xc0a80101/",
            "http://172.16.0.1/",
            "http://172.31.255.255/",
        ],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn special_ipv4_ranges_are_blocked() {
    assert_blocked(
        &[
            "http://0.0.0.0/",
            "http://0/",
            "http://0.1.2.3/",
            "http://100.64.0.1/",
            "http://100.127.255.254/",
            "http://100.100.100.200/",
            "http://169.254.1.1/",
            "http://192.0.0.192/",
            "http://192.0.2.10/",
            "http://192.88.99.1/",
            "http://198.18.0.1/",
            "http://198.19.255.1/",
            "http://198.51.100.7/",
            "http://203.0.113.9/",
            "http://224.0.0.1/",
            "http://239.255.255.250/",
            "http://240.0.0.1/",
            "http://255.255.255.255/",
            "http://4294967295/",
        ],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn range_neighbours_stay_public() {
    assert_allowed(&[
        "http://100.63.255.255/",
        "http://100.128.0.1/",
        "http://172.15.255.255/",
        "http://172.32.0.1/",
        "http://198.17.255.255/",
        "http://198.20.0.1/",
        "http://223.255.255.254/",
        "http://11.0.0.1/",
        "http://126.255.255.255/",
        "http://128.0.0.1/",
    ]);
}

#[test]
fn metadata_addresses_and_names_are_blocked() {
    assert_blocked(
        &[
            "http://169.254.169.254/latest/meta-data/",
            "http://168.63.129.16/machine?comp=goalstate",
            "http://0xa9fea9fe/",
            "http://2852039166/",
            "http://0251.0376.0251.0376/",
            "http://169.254.43518/",
            "http://[fd00:ec2::254]/latest/meta-data/",
            "http://[::ffff:169.254.169.254]/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA.GOOGLE.INTERNAL./",
            "http://metadata/computeMetadata/v1/",
            "http://instance-data/latest/",
            "http://instance-data.ec2.internal/",
        ],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn ipv6_forms_carrying_private_ipv4_are_blocked() {
    assert_blocked(
        &[
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::ffff:10.0.0.1]:8080/",
            "http://[0:0:0:0:0:ffff:c0a8:0101]/",
            "http://[::127.0.0.1]/",
            "http://[::7f00:1]/",
            "http://[64:ff9b::127.0.0.1]/",
            "http://[64:ff9b::a00:1]/",
            "http://[2002:7f00:1::]/",
            "http://[2002:a9fe:a9fe::1]/",
            "http://[::ffff:0:7f00:1]/",
        ],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn special_ipv6_ranges_are_blocked() {
    assert_blocked(
        &[
            "http://[::]/",
            "http://[::1]/",
            "http://[fc00::1]/",
            "http://[fd12:3456:789a::1]/",
            "http://[fe80::1]/",
            "http://[fec0::1]/",
            "http://[ff02::1]/",
            "http://[2001:db8::1]/",
            "http://[2001::1]/",
            "http://[100::1]/",
            "http://[64:ff9b:1::1]/",
            "http://[3fff::1]/",
        ],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn localhost_names_are_blocked() {
    assert_blocked(
        &[
            "http://localhost/",
            "http://LOCALHOST:3000/",
            "http://localhost./",
            "http://ｌｏｃａｌｈｏｓｔ/",
            "http://app.localhost/",
            "http://a.b.localhost:8080/",
        ],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn internal_suffixes_are_blocked() {
    assert_blocked(
        &[
            "http://printer.local/",
            "http://db.internal/",
            "http://nas.lan/",
            "http://router.home.arpa/",
            "http://wiki.corp/",
            "http://portal.intranet/",
            "http://box.localdomain/",
            "http://host.LOCAL./",
        ],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn dotless_hosts_are_blocked() {
    assert_blocked(
        &["http://intranet/", "http://router:8080/", "https://x/"],
        GuardReason::PrivateOrLocalHostBlocked,
    );
}

#[test]
fn allow_private_lifts_private_and_local_checks() {
    let guard = UrlGuard::default().allow_private(true);
    for url in [
        "http://127.0.0.1:8080/",
        "http://localhost:3000/",
        "http://0x7f000001/",
        "http://[::1]/",
        "http://printer.local/",
        "http://169.254.169.254/",
        "http://router/",
    ] {
        assert!(guard.check(url).is_ok(), "{url}");
    }
    assert!(guard.allows_private());
}

#[test]
fn the_error_says_what_was_blocked_and_how_to_lift_it() {
    let err = UrlGuard::default()
        .check("http://0x7f000001/admin")
        .unwrap_err();
    assert_eq!(err.reason, GuardReason::PrivateOrLocalHostBlocked);
    assert_eq!(err.url, "http://0x7f000001/admin");
    assert!(err.detail.contains("127.0.0.1"), "{}", err.detail);
    assert!(err.detail.contains("loopback"), "{}", err.detail);
    let text = err.to_string();
    assert!(text.contains("http://0x7f000001/admin"), "{text}");
    assert!(text.contains("private_or_local_host_blocked"), "{text}");
    assert!(text.contains("FERRET_ALLOW_PRIVATE_URLS=1"), "{text}");
    assert!(text.contains("allow_private(true)"), "{text}");

    let scheme = UrlGuard::default().check("file:///etc/passwd").unwrap_err();
    assert!(scheme.to_string().contains("cannot be lifted"), "{scheme}");
}

#[test]
fn reasons_serialise_as_snake_case() {
    let cases = [
        (GuardReason::InvalidUrl, "invalid_url"),
        (GuardReason::SchemeNotAllowed, "scheme_not_allowed"),
        (GuardReason::CredentialsInUrl, "credentials_in_url"),
        (GuardReason::MissingHost, "missing_host"),
        (
            GuardReason::PrivateOrLocalHostBlocked,
            "private_or_local_host_blocked",
        ),
        (GuardReason::BlockedByStrictSsrf, "blocked_by_strict_ssrf"),
        (GuardReason::UnresolvableHost, "unresolvable_host"),
    ];
    for (reason, name) in cases {
        assert_eq!(serde_json::to_value(reason).unwrap(), name);
        assert_eq!(reason.as_str(), name);
        assert_eq!(reason.to_string(), name);
        let back: GuardReason = serde_json::from_value(name.into()).unwrap();
        assert_eq!(back, reason);
    }
}

#[test]
fn guard_errors_round_trip_through_json() {
    let err = UrlGuard::default().check("http://10.1/").unwrap_err();
    let json = serde_json::to_string(&err).unwrap();
    let back: GuardError = serde_json::from_str(&json).unwrap();
    assert_eq!(back, err);
}

#[test]
fn verdicts_serialise_allowed_and_reason() {
    let blocked = UrlGuard::default().verdict("http://localhost/");
    let json = serde_json::to_value(&blocked).unwrap();
    assert_eq!(json["allowed"], false);
    assert_eq!(json["reason"], "private_or_local_host_blocked");
    assert_eq!(json["url"], "http://localhost/");

    let ok = UrlGuard::default().verdict("HTTPS://Example.com");
    let json = serde_json::to_value(&ok).unwrap();
    assert_eq!(json["allowed"], true);
    assert!(json["reason"].is_null());
    assert_eq!(json["url"], "https://example.com/");
    let back: GuardVerdict = serde_json::from_value(json).unwrap();
    assert_eq!(back, ok);
}

#[test]
fn from_env_reads_both_switches() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    };
    let guard = UrlGuard::from_env_with(env(&[]));
    assert_eq!(guard, UrlGuard::default());
    let guard = UrlGuard::from_env_with(env(&[("FERRET_ALLOW_PRIVATE_URLS", "1")]));
    assert!(guard.allows_private() && !guard.is_strict());
    let guard = UrlGuard::from_env_with(env(&[
        ("FERRET_STRICT_SSRF", "true"),
        ("FERRET_ALLOW_PRIVATE_URLS", "0"),
    ]));
    assert!(guard.is_strict() && !guard.allows_private());
    assert!(guard.check("http://127.0.0.1/").is_err());
}

#[test]
fn the_default_guard_checks_and_is_not_strict() {
    let guard = UrlGuard::default();
    assert!(!guard.allows_private());
    assert!(!guard.is_strict());
    assert_eq!(UrlGuard::new(), guard);
}

// ---- redirects ------------------------------------------------------------

#[test]
fn redirect_hops_are_resolved_then_checked() {
    let guard = UrlGuard::default();
    let from = Url::parse("https://example.com/a/b").unwrap();
    assert_eq!(
        guard
            .check_redirect(&from, "/login?next=1")
            .unwrap()
            .as_str(),
        "https://example.com/login?next=1"
    );
    assert_eq!(
        guard.check_redirect(&from, "c").unwrap().as_str(),
        "https://example.com/a/c"
    );
    assert_eq!(
        guard
            .check_redirect(&from, "https://other.example/x")
            .unwrap()
            .as_str(),
        "https://other.example/x"
    );
    for bad in [
        "http://127.0.0.1/admin",
        "//169.254.169.254/latest/meta-data/",
        "http://0x7f000001/",
        "http://localhost:8080/",
        "http://[::ffff:10.0.0.1]/",
    ] {
        let err = guard.check_redirect(&from, bad).unwrap_err();
        assert_eq!(err.reason, GuardReason::PrivateOrLocalHostBlocked, "{bad}");
    }
    let err = guard
        .check_redirect(&from, "file:///etc/passwd")
        .unwrap_err();
    assert_eq!(err.reason, GuardReason::SchemeNotAllowed);
    let err = guard
        .check_redirect(&from, "https://u:p@example.com/")
        .unwrap_err();
    assert_eq!(err.reason, GuardReason::CredentialsInUrl);
    let err = guard.check_redirect(&from, "http://[::1").unwrap_err();
    assert_eq!(err.reason, GuardReason::InvalidUrl);
}

#[test]
fn a_relative_redirect_from_a_private_origin_is_judged_like_its_target() {
    let from = Url::parse("http://127.0.0.1:8080/start").unwrap();
    let err = UrlGuard::default()
        .check_redirect(&from, "/next")
        .unwrap_err();
    assert_eq!(err.reason, GuardReason::PrivateOrLocalHostBlocked);
    let ok = UrlGuard::default()
        .allow_private(true)
        .check_redirect(&from, "/next")
        .unwrap();
    assert_eq!(ok.as_str(), "http://127.0.0.1:8080/next");
}

// ---- strict mode ----------------------------------------------------------

fn addrs(list: &[&str]) -> Vec<SocketAddr> {
    list.iter()
        .map(|ip| SocketAddr::new(ip.parse().unwrap(), 443))
        .collect()
}

fn strict() -> UrlGuard {
    UrlGuard::default().strict(true)
}

#[test]
fn strict_mode_blocks_a_name_if_any_address_is_private() {
    let url = Url::parse("https://rebind.example/").unwrap();
    assert!(
        strict()
            .check_addrs(&url, &addrs(&["93.184.216.34"]))
            .is_ok()
    );
    for bad in [
        &["10.0.0.5"][..],
        &["93.184.216.34", "127.0.0.1"],
        &["2606:4700::1111", "fd00::1"],
        &["::ffff:192.168.0.1"],
        &["169.254.169.254"],
    ] {
        let err = strict().check_addrs(&url, &addrs(bad)).unwrap_err();
        assert_eq!(err.reason, GuardReason::BlockedByStrictSsrf, "{bad:?}");
        assert!(err.detail.contains("rebind.example"), "{}", err.detail);
    }
}

#[test]
fn strict_mode_allows_names_that_resolve_only_to_fake_ip() {
    let url = Url::parse("https://github.com/").unwrap();
    assert!(
        strict()
            .check_addrs(&url, &addrs(&["198.18.0.7", "198.19.3.4"]))
            .is_ok()
    );
    let err = strict()
        .check_addrs(&url, &addrs(&["198.18.0.7", "10.0.0.1"]))
        .unwrap_err();
    assert_eq!(err.reason, GuardReason::BlockedByStrictSsrf);
    // An IP literal in the fake-ip range gets no exception.
    let literal = Url::parse("http://198.18.0.7/").unwrap();
    assert!(
        strict()
            .check_addrs(&literal, &addrs(&["198.18.0.7"]))
            .is_err()
    );
}

#[test]
fn strict_mode_refuses_an_empty_resolution() {
    let url = Url::parse("https://example.com/").unwrap();
    let err = strict().check_addrs(&url, &[]).unwrap_err();
    assert_eq!(err.reason, GuardReason::UnresolvableHost);
}

#[test]
fn allow_private_accepts_private_resolutions() {
    let url = Url::parse("https://svc.example/").unwrap();
    let guard = strict().allow_private(true);
    assert!(guard.check_addrs(&url, &addrs(&["10.0.0.5"])).is_ok());
}

#[tokio::test]
async fn non_strict_check_resolved_does_no_dns() {
    let checked = UrlGuard::default()
        .check_resolved("https://never-resolved.example/x")
        .await
        .unwrap();
    assert_eq!(checked.url.as_str(), "https://never-resolved.example/x");
    assert!(checked.addrs.is_empty());
    assert_eq!(checked.host(), "never-resolved.example");
}

#[tokio::test]
async fn strict_check_resolved_pins_ip_literals_without_dns() {
    let checked = strict().check_resolved("http://8.8.8.8/x").await.unwrap();
    assert_eq!(checked.addrs, vec!["8.8.8.8:80".parse().unwrap()]);
    let checked = strict()
        .check_resolved("https://[2606:4700:4700::1111]:8443/")
        .await
        .unwrap();
    assert_eq!(
        checked.addrs,
        vec!["[2606:4700:4700::1111]:8443".parse().unwrap()]
    );
}

#[tokio::test]
async fn strict_check_resolved_runs_the_syntactic_check_first() {
    let err = strict()
        .check_resolved("http://0x7f000001/")
        .await
        .unwrap_err();
    assert_eq!(err.reason, GuardReason::PrivateOrLocalHostBlocked);
}

#[tokio::test]
async fn strict_mode_resolves_names_and_returns_every_address() {
    // localhost resolves from /etc/hosts without a network; allow_private
    // lets the name through the syntactic check so the DNS step runs.
    let guard = strict().allow_private(true);
    let checked = guard
        .check_resolved("http://localhost:8081/health")
        .await
        .unwrap();
    assert!(!checked.addrs.is_empty());
    assert!(checked.addrs.iter().all(|a| a.port() == 8081));
    assert!(checked.addrs.iter().all(|a| a.ip().is_loopback()));
    let verdict = guard.verdict_resolved("http://localhost:8081/").await;
    assert!(verdict.allowed && verdict.strict);
    assert!(!verdict.resolved.is_empty());
}

#[tokio::test]
async fn strict_mode_reports_names_that_do_not_resolve() {
    // `.invalid` never resolves (RFC 6761); the guard refuses it by name, so
    // allow_private lets it through to the DNS step, where it fails or
    // times out (offline).
    let guard = strict()
        .allow_private(true)
        .dns_timeout(Duration::from_secs(3));
    let err = guard
        .check_resolved("https://no-such-host.invalid/")
        .await
        .unwrap_err();
    assert_eq!(err.reason, GuardReason::UnresolvableHost);
    assert!(
        err.detail.contains("no-such-host.invalid"),
        "{}",
        err.detail
    );
    let verdict = guard
        .verdict_resolved("https://no-such-host.invalid/")
        .await;
    assert!(!verdict.allowed);
    assert_eq!(verdict.reason, Some(GuardReason::UnresolvableHost));
}

#[tokio::test]
async fn strict_redirect_hops_are_checked_and_pinned() {
    let from = Url::parse("https://example.com/").unwrap();
    let checked = strict()
        .check_redirect_resolved(&from, "http://1.1.1.1/next")
        .await
        .unwrap();
    assert_eq!(checked.addrs, vec!["1.1.1.1:80".parse().unwrap()]);
    let err = strict()
        .check_redirect_resolved(&from, "http://[::ffff:127.0.0.1]/")
        .await
        .unwrap_err();
    assert_eq!(err.reason, GuardReason::PrivateOrLocalHostBlocked);
}

// ---- properties -----------------------------------------------------------

/// Blocked IPv4 networks (network, prefix length) to draw addresses from.
const PRIVATE_V4: &[(u32, u32)] = &[
    (0x0000_0000, 8),  // 0.0.0.0/8
    (0x0a00_0000, 8),  // 10/8
    (0x6440_0000, 10), // 100.64/10
    (0x7f00_0000, 8),  // 127/8
    (0xa9fe_0000, 16), // 169.254/16
    (0xac10_0000, 12), // 172.16/12
    (0xc000_0000, 24), // 192.0.0/24
    (0xc000_0200, 24), // 192.0.2/24
    (0xc0a8_0000, 16), // 192.168/16
    (0xc612_0000, 15), // 198.18/15
    (0xc633_6400, 24), // 198.51.100/24
    (0xcb00_7100, 24), // 203.0.113/24
    (0xe000_0000, 4),  // 224/4
    (0xf000_0000, 4),  // 240/4
];

fn private_v4() -> impl Strategy<Value = u32> {
    (0..PRIVATE_V4.len(), any::<u32>())
        .prop_map(|(i, bits)| {
            let (net, prefix) = PRIVATE_V4[i];
            let host_mask = u32::MAX >> prefix;
            net | (bits & host_mask)
        })
        // PCP and TURN anycast are globally reachable inside 192.0.0/24.
        .prop_filter("globally reachable", |ip| {
            ![0xc000_0009, 0xc000_000a].contains(ip)
        })
}

/// One number in a given base: 0 decimal, 1 octal, 2 hex, 3 upper-case hex.
fn render(n: u32, base: u8) -> String {
    match base {
        0 => n.to_string(),
        1 => format!("0{n:o}"),
        2 => format!("0x{n:x}"),
        _ => format!("0X{n:X}"),
    }
}

/// `ip` split into `parts` numbers (1–4, the last filling the rest), each
/// rendered in its own base.
fn spell(ip: u32, parts: usize, bases: [u8; 4]) -> String {
    let b = ip.to_be_bytes().map(u32::from);
    let nums: Vec<u32> = match parts {
        1 => vec![ip],
        2 => vec![b[0], ip & 0x00ff_ffff],
        3 => vec![b[0], b[1], ip & 0xffff],
        _ => vec![b[0], b[1], b[2], b[3]],
    };
    nums.iter()
        .zip(bases)
        .map(|(n, base)| render(*n, base))
        .collect::<Vec<_>>()
        .join(".")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_spelling_of_a_private_ipv4_is_blocked(
        ip in private_v4(),
        parts in 1usize..=4,
        bases in proptest::array::uniform4(0u8..4),
        trailing_dot in any::<bool>(),
        port in proptest::option::of(1u16..),
    ) {
        let mut host = spell(ip, parts, bases);
        if trailing_dot {
            host.push('.');
        }
        let port = port.map(|p| format!(":{p}")).unwrap_or_default();
        let url = format!("http://{host}{port}/x");
        let err = UrlGuard::default().check(&url).unwrap_err();
        prop_assert_eq!(err.reason, GuardReason::PrivateOrLocalHostBlocked, "{}", url);
    }

    #[test]
    fn private_ipv4_in_ipv6_wrappers_is_blocked(ip in private_v4(), form in 0u8..4) {
        let [a, b, c, d] = ip.to_be_bytes();
        let hi = u16::from_be_bytes([a, b]);
        let lo = u16::from_be_bytes([c, d]);
        let host = match form {
            0 => format!("[::ffff:{a}.{b}.{c}.{d}]"),
            1 => format!("[::ffff:{hi:x}:{lo:x}]"),
            2 => format!("[64:ff9b::{hi:x}:{lo:x}]"),
            _ => format!("[2002:{hi:x}:{lo:x}::1]"),
        };
        let url = format!("https://{host}/");
        let err = UrlGuard::default().check(&url).unwrap_err();
        prop_assert_eq!(err.reason, GuardReason::PrivateOrLocalHostBlocked, "{}", url);
    }

    #[test]
    fn the_guard_never_panics_on_arbitrary_strings(s in any::<String>()) {
        let guard = UrlGuard::default();
        let _ = guard.check(&s);
        let _ = guard.verdict(&s);
        let from = Url::parse("https://example.com/a").unwrap();
        let _ = guard.check_redirect(&from, &s);
    }

    #[test]
    fn the_guard_never_panics_on_url_like_strings(
        scheme in prop::sample::select(vec!["http://", "https://", "http:", "HTTP://", "http:\\\\", ""]),
        rest in "[a-zA-Z0-9.:@%\\[\\]/\\\\?#_-]{0,40}",
    ) {
        let s = format!("{scheme}{rest}");
        let guard = UrlGuard::default();
        if let Ok(url) = guard.check(&s) {
            // Whatever passes is an http(s) URL with a host and no credentials.
            prop_assert!(matches!(url.scheme(), "http" | "https"));
            prop_assert!(url.host().is_some());
            prop_assert!(url.username().is_empty() && url.password().is_none());
        }
    }
}
