//! Canonical URLs: properties over generated URLs (idempotence, tracking
//! parameters never survive, variants of one page share a key, wrappers
//! unwrap), rule examples, and every result link of the real DuckDuckGo and
//! Bing result pages in ../shared/fixtures/serp unwrapped to its target.

use std::path::PathBuf;

use ferret_core::canonical::{
    CanonicalError, CanonicalOptions, TRACKING_PARAMS, canonical_url, is_tracking_param,
    unwrap_redirect,
};
use proptest::prelude::*;
use url::Url;

fn canon(s: &str) -> String {
    canonical_url(s, CanonicalOptions::default()).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared not present");
        None
    }
}

/// Base64url without padding, for building Bing `u=a1…` links.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

fn percent_encode_all(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

// ---- rules ------------------------------------------------------------------

#[test]
fn every_common_tracking_parameter_is_known() {
    // Analytics, click-id, referrer, share and session parameters, any case.
    for name in [
        "utm_source",
        "utm_medium",
        "utm_campaign",
        "utm_term",
        "utm_content",
        "utm_anything",
        "spm",
        "fbclid",
        "gclid",
        "ref",
        "ref_src",
        "from",
        "share_token",
        "source",
        "refer",
        "trace",
        "clicktime",
        "clickid",
        "scid",
        "scene",
        "sessionid",
        "UTM_Source",
        "FBCLID",
    ] {
        assert!(is_tracking_param(name), "{name}");
    }
    for name in ["q", "id", "page", "utm", "reference", "lang", "v"] {
        assert!(!is_tracking_param(name), "{name}");
    }
}

#[test]
fn the_key_is_https_with_a_lowercase_host_and_no_default_port() {
    assert_eq!(
        canon("HTTP://WWW.Example.COM:80/Docs/Page.HTML"),
        "https://example.com/Docs/Page.HTML"
    );
    assert_eq!(canon("https://example.com:443/a"), "https://example.com/a");
    assert_eq!(
        canon("https://example.com:8443/a"),
        "https://example.com:8443/a"
    );
}

#[test]
fn trailing_slashes_fragments_and_user_info_go() {
    assert_eq!(
        canon("https://example.com/a/b///#top"),
        "https://example.com/a/b"
    );
    assert_eq!(
        canon("https://user:pw@example.com/a"),
        "https://example.com/a"
    );
    assert_eq!(canon("https://example.com/?#x"), "https://example.com");
    assert_eq!(canon("https://example.com./a"), "https://example.com/a");
}

#[test]
fn www_is_stripped_until_none_is_left_but_never_down_to_a_tld() {
    assert_eq!(canon("https://www.www.example.com/"), "https://example.com");
    assert_eq!(canon("https://www.com/"), "https://www.com");
    let keep = CanonicalOptions { strip_www: false };
    assert_eq!(
        canonical_url("https://WWW.example.com/", keep).unwrap(),
        "https://www.example.com"
    );
}

#[test]
fn path_escapes_are_brought_to_one_form() {
    assert_eq!(
        canon("https://example.com/%7Euser/a%2fb"),
        "https://example.com/~user/a%2Fb"
    );
    assert_eq!(
        canon("https://example.com/~user/a%2Fb"),
        "https://example.com/~user/a%2Fb"
    );
    assert_eq!(
        canon("https://example.com/%41%62c"),
        "https://example.com/Abc"
    );
    assert_eq!(
        canon("https://example.com/caf%c3%a9"),
        "https://example.com/caf%C3%A9"
    );
    assert_eq!(
        canon("https://example.com/café"),
        "https://example.com/caf%C3%A9"
    );
}

#[test]
fn the_query_is_decoded_filtered_and_sorted_once() {
    assert_eq!(
        canon("https://example.com/s?z=1&utm_source=x&a=hello%20world&UTM_MEDIUM=y&b=%41&fbclid=1"),
        "https://example.com/s?a=hello+world&b=A&z=1"
    );
    assert_eq!(
        canon("https://example.com/s?utm_source=x"),
        "https://example.com/s"
    );
    // Percent-encoded tracking names are still tracking names.
    assert_eq!(
        canon("https://example.com/s?utm%5Fsource=x&k=v"),
        "https://example.com/s?k=v"
    );
}

#[test]
fn nested_wrappers_are_unwrapped_to_the_page() {
    let target = "https://target.example/page?x=1";
    let ddg = format!(
        "https://duckduckgo.com/l/?uddg={}&rut=abc",
        percent_encode_all(target)
    );
    let google = format!(
        "https://www.google.com/url?q={}&sa=U",
        percent_encode_all(&ddg)
    );
    assert_eq!(canon(&google), "https://target.example/page?x=1");
    assert_eq!(unwrap_redirect(&google).as_deref(), Some(ddg.as_str()));
}

#[test]
fn relative_bing_targets_resolve_against_bing() {
    let link = format!(
        "https://www.bing.com/ck/a?!&&p=x&u=a1{}&ntb=1",
        base64url(b"/images/search?q=x")
    );
    assert_eq!(
        unwrap_redirect(&link).as_deref(),
        Some("https://www.bing.com/images/search?q=x")
    );
}

#[test]
fn wrappers_to_non_http_targets_are_not_unwrapped() {
    assert_eq!(
        unwrap_redirect("https://www.google.com/url?q=javascript:alert(1)"),
        None
    );
    assert_eq!(unwrap_redirect("https://duckduckgo.com/l/?uddg="), None);
    assert_eq!(unwrap_redirect("https://www.bing.com/ck/a?u=zz!!"), None);
    assert_eq!(
        unwrap_redirect("https://example.com/url?q=https://a.example/"),
        None
    );
    assert_eq!(
        unwrap_redirect("https://notgoogle.com/url?q=https://a.example/"),
        None
    );
}

#[test]
fn non_http_urls_have_no_canonical_form() {
    let opts = CanonicalOptions::default();
    assert!(matches!(
        canonical_url("mailto:a@example.com", opts),
        Err(CanonicalError::NotHttp(_))
    ));
    assert!(matches!(
        canonical_url("", opts),
        Err(CanonicalError::Invalid(_))
    ));
    assert!(matches!(
        canonical_url("http://./x", opts),
        Err(CanonicalError::MissingHost)
    ));
}

// ---- the real result pages ---------------------------------------------------

fn serp(name: &str) -> Option<String> {
    let path = shared_dir()?.join("fixtures/serp").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Every `href="…"` value in `html`, with `&amp;` decoded.
fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|h| h.replace("&amp;", "&"))
        .collect()
}

fn assert_unwraps_to_https(link: &str, wrapper_host: &str) -> String {
    let target = unwrap_redirect(link).unwrap_or_else(|| panic!("not unwrapped: {link}"));
    let url = Url::parse(&target).unwrap_or_else(|e| panic!("{target}: {e}"));
    assert_eq!(url.scheme(), "https", "{link} -> {target}");
    let host = url.host_str().unwrap();
    assert!(!host.ends_with(wrapper_host), "{link} -> {target}");
    let key = canon(link);
    assert_eq!(key, canon(&target), "{link}");
    assert!(key.starts_with("https://"));
    target
}

#[test]
fn every_duckduckgo_result_link_unwraps_to_an_https_page() {
    let Some(html) = serp("duckduckgo-html-q-does-caffeine-affect-sleep-2026-07.html") else {
        return;
    };
    let links: Vec<String> = hrefs(&html)
        .into_iter()
        .filter(|h| h.contains("uddg="))
        .collect();
    assert_eq!(links.len(), 36, "the capture holds 36 uddg links");
    for link in &links {
        assert!(link.starts_with("//duckduckgo.com/l/?"), "{link}");
        assert_unwraps_to_https(link, "duckduckgo.com");
    }
    let first = unwrap_redirect(&links[0]).unwrap();
    assert_eq!(
        first,
        "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep"
    );
}

fn bing_result_links(html: &str) -> Vec<Vec<String>> {
    html.split("<li class=\"b_algo\"")
        .skip(1)
        .map(|block| {
            let block = block.split("</li>").next().unwrap_or(block);
            hrefs(block)
                .into_iter()
                .filter(|h| h.contains("/ck/a?"))
                .collect()
        })
        .collect()
}

#[test]
fn every_bing_result_link_unwraps_to_an_https_page() {
    for (name, first_target) in [
        (
            "bing-q-does-caffeine-affect-sleep-2026-07.html",
            "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep",
        ),
        (
            "bing-http-q-javascript-tutorial-2026-04.html",
            "https://www.w3schools.com/Js/",
        ),
    ] {
        let Some(html) = serp(name) else {
            return;
        };
        let blocks = bing_result_links(&html);
        assert_eq!(blocks.len(), 10, "{name}: 10 li.b_algo results");
        for links in &blocks {
            assert!(!links.is_empty(), "{name}: a result without a ck/a link");
            for link in links {
                assert!(link.starts_with("https://www.bing.com/ck/a?"), "{link}");
                assert_unwraps_to_https(link, "bing.com");
            }
        }
        assert_eq!(
            unwrap_redirect(&blocks[0][0]).as_deref(),
            Some(first_target),
            "{name}"
        );
    }
}

#[test]
fn bing_links_to_its_own_verticals_resolve_on_bing() {
    let Some(html) = serp("bing-q-does-caffeine-affect-sleep-2026-07.html") else {
        return;
    };
    let internal: Vec<String> = hrefs(&html)
        .into_iter()
        .filter(|h| h.contains("/ck/a?") && h.contains("u=a1L"))
        .collect();
    assert!(!internal.is_empty());
    for link in internal {
        let target = unwrap_redirect(&link).unwrap();
        assert!(
            target.starts_with("https://www.bing.com/"),
            "{link} -> {target}"
        );
    }
}

// ---- properties ------------------------------------------------------------

/// A generated page: parts a URL is built from, in canonical spelling.
#[derive(Debug, Clone)]
struct Page {
    host: String,
    port: Option<u16>,
    segments: Vec<String>,
    params: Vec<(String, String)>,
}

/// How one URL spells a page.
#[derive(Debug, Clone)]
struct Spelling {
    http: bool,
    upper_scheme: bool,
    www: bool,
    host_case: Vec<bool>,
    default_port: bool,
    trailing_slashes: usize,
    tracking: Vec<(String, String)>,
    fragment: Option<String>,
    shuffle: Vec<usize>,
}

fn page() -> impl Strategy<Value = Page> {
    (
        prop::collection::vec("[a-z0-9]{1,8}", 1..3),
        prop::sample::select(vec!["com", "org", "co.uk", "example", "io"]),
        prop::option::of(prop::sample::select(vec![8080u16, 8443, 3000])),
        prop::collection::vec(
            "[A-Za-z0-9._~-]{1,8}|%[0-9A-F]{2}[a-z]{0,3}|caf\u{e9}",
            0..4,
        ),
        prop::collection::vec(("[a-z]{1,6}", "[A-Za-z0-9 +&=%/?]{0,6}"), 0..4),
    )
        .prop_map(|(labels, tld, port, segments, params)| Page {
            host: format!("{}.{tld}", labels.join(".")),
            port,
            segments,
            params: params
                .into_iter()
                .filter(|(k, _)| !is_tracking_param(k))
                .collect(),
        })
}

fn spelling() -> impl Strategy<Value = Spelling> {
    let tracking_name = prop_oneof![
        prop::sample::select(TRACKING_PARAMS.to_vec()).prop_map(str::to_string),
        "[a-z]{1,6}".prop_map(|s| format!("utm_{s}")),
        "[a-z]{1,6}".prop_map(|s| format!("UTM_{s}")),
    ];
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(any::<bool>(), 64),
        any::<bool>(),
        0usize..3,
        prop::collection::vec((tracking_name, "[a-z0-9]{0,5}"), 0..4),
        prop::option::of("[a-z0-9/?=&]{0,8}"),
        prop::collection::vec(any::<usize>(), 8),
    )
        .prop_map(
            |(
                http,
                upper_scheme,
                www,
                host_case,
                default_port,
                trailing_slashes,
                tracking,
                fragment,
                shuffle,
            )| {
                Spelling {
                    http,
                    upper_scheme,
                    www,
                    host_case,
                    default_port,
                    trailing_slashes,
                    tracking,
                    fragment,
                    shuffle,
                }
            },
        )
}

fn spell(page: &Page, s: &Spelling) -> String {
    let mut scheme = if s.http { "http" } else { "https" }.to_string();
    if s.upper_scheme {
        scheme = scheme.to_uppercase();
    }
    let host: String = if s.www {
        format!("www.{}", page.host)
    } else {
        page.host.clone()
    }
    .chars()
    .zip(s.host_case.iter().cycle())
    .map(|(c, up)| if *up { c.to_ascii_uppercase() } else { c })
    .collect();
    let port = match (page.port, s.default_port) {
        (Some(p), _) => format!(":{p}"),
        (None, true) => if s.http { ":80" } else { ":443" }.to_string(),
        (None, false) => String::new(),
    };
    let mut path = String::new();
    for seg in &page.segments {
        path.push('/');
        path.push_str(seg);
    }
    for _ in 0..s.trailing_slashes {
        path.push('/');
    }
    let mut params: Vec<(String, String)> = page.params.clone();
    params.extend(s.tracking.iter().cloned());
    // A deterministic shuffle driven by the generated numbers.
    for (i, r) in s.shuffle.iter().enumerate() {
        if params.len() > 1 {
            let a = i % params.len();
            let b = r % params.len();
            params.swap(a, b);
        }
    }
    let mut url = format!("{scheme}://{host}{port}{path}");
    if !params.is_empty() {
        let mut ser = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &params {
            ser.append_pair(k, v);
        }
        url.push('?');
        url.push_str(&ser.finish());
    }
    if let Some(f) = &s.fragment {
        url.push('#');
        url.push_str(f);
    }
    url
}

fn wrap(url: &str, how: u8) -> String {
    match how {
        0 => format!(
            "https://www.google.com/url?q={}&sa=U&ved=x",
            percent_encode_all(url)
        ),
        1 => format!(
            "//duckduckgo.com/l/?uddg={}&rut=abc",
            percent_encode_all(url)
        ),
        _ => format!(
            "https://www.bing.com/ck/a?!&&p=abc&u=a1{}&ntb=1",
            base64url(url.as_bytes())
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn tracking_params_are_matched_as_their_lowercase_form(
        name in prop_oneof![
            "[a-zA-Z_]{0,8}",
            prop::sample::select(TRACKING_PARAMS.to_vec()).prop_map(|t| t.to_uppercase()),
            "[uU][tT][mM]_[a-zA-Zé]{0,4}",
            "[a-zé]{0,3}[A-Z_İ]{0,3}",
        ],
    ) {
        let lower = name.to_ascii_lowercase();
        let expected = lower.starts_with("utm_") || TRACKING_PARAMS.contains(&lower.as_str());
        prop_assert_eq!(is_tracking_param(&name), expected, "{}", name);
    }

    #[test]
    fn canonical_url_is_idempotent(page in page(), s in spelling(), strip_www in any::<bool>()) {
        let opts = CanonicalOptions { strip_www };
        let url = spell(&page, &s);
        let once = canonical_url(&url, opts).unwrap();
        let twice = canonical_url(&once, opts).unwrap();
        prop_assert_eq!(&twice, &once, "from {}", url);
    }

    #[test]
    fn tracking_parameters_never_survive(page in page(), s in spelling()) {
        let url = spell(&page, &s);
        let key = canon(&url);
        let parsed = Url::parse(&key).unwrap();
        for (k, _) in parsed.query_pairs() {
            prop_assert!(!is_tracking_param(&k), "{} kept in {} from {}", k, key, url);
        }
        prop_assert!(parsed.fragment().is_none());
        prop_assert_eq!(parsed.scheme(), "https");
        prop_assert!(!parsed.host_str().unwrap().starts_with("www."));
        prop_assert!(!key.ends_with('/'), "{}", key);
    }

    #[test]
    fn every_spelling_of_a_page_has_the_same_key(page in page(), a in spelling(), b in spelling()) {
        let ka = canon(&spell(&page, &a));
        let kb = canon(&spell(&page, &b));
        prop_assert_eq!(ka, kb);
    }

    #[test]
    fn query_keys_and_path_case_are_preserved(page in page(), s in spelling()) {
        let key = canon(&spell(&page, &s));
        let parsed = Url::parse(&key).unwrap();
        let mut kept: Vec<String> = parsed.query_pairs().map(|(k, _)| k.into_owned()).collect();
        let mut expected: Vec<String> = page.params.iter().map(|(k, _)| k.clone()).collect();
        kept.sort();
        expected.sort();
        prop_assert_eq!(kept, expected);
        // The segments left once `.` and `..` are resolved (a `..` takes the
        // segment before it away, as the URL parser does).
        let mut resolved: Vec<&String> = Vec::new();
        for seg in &page.segments {
            let lower = seg.to_ascii_lowercase();
            match lower.as_str() {
                "." | "%2e" => {}
                ".." | ".%2e" | "%2e." | "%2e%2e" => {
                    resolved.pop();
                }
                _ => resolved.push(seg),
            }
        }
        let plain: Vec<&String> = resolved
            .into_iter()
            .filter(|seg| !seg.contains('%') && seg.is_ascii())
            .collect();
        for seg in plain {
            prop_assert!(parsed.path().contains(seg.as_str()), "{} lost from {}", seg, key);
        }
    }

    #[test]
    fn wrapped_links_share_the_key_of_their_target(page in page(), s in spelling(), how in 0u8..3) {
        let url = spell(&page, &s);
        prop_assert_eq!(canon(&wrap(&url, how)), canon(&url));
        let key = canon(&url);
        prop_assert_eq!(canon(&wrap(&key, how)), key);
    }

    #[test]
    fn canonical_url_never_panics(s in any::<String>()) {
        if let Ok(key) = canonical_url(&s, CanonicalOptions::default()) {
            prop_assert_eq!(canonical_url(&key, CanonicalOptions::default()).unwrap(), key);
        }
        let _ = unwrap_redirect(&s);
    }

    #[test]
    fn canonical_url_never_panics_on_url_like_input(
        prefix in prop::sample::select(vec![
            "https://", "http://www.", "//", "https://www.google.com/url?q=",
            "https://duckduckgo.com/l/?uddg=", "https://www.bing.com/ck/a?u=a1",
        ]),
        rest in "[a-zA-Z0-9.:@%/?#&=_~+-]{0,40}",
    ) {
        let s = format!("{prefix}{rest}");
        if let Ok(key) = canonical_url(&s, CanonicalOptions::default()) {
            prop_assert_eq!(canonical_url(&key, CanonicalOptions::default()).unwrap(), key);
        }
    }
}

// ----------------------------------------------------------- rule examples

#[test]
fn variants_of_one_page_share_a_key() {
    let key = canon("https://example.com/a/b");
    for v in [
        "http://example.com/a/b",
        "https://www.example.com/a/b/",
        "https://EXAMPLE.com:443/a/b#section",
        "http://example.com:80/a/b?utm_source=x&utm_medium=y",
        "https://example.com/a/b?fbclid=1&gclid=2&spm=3&ref_src=twsrc",
    ] {
        assert_eq!(canon(v), key, "{v}");
    }
}

#[test]
fn path_and_query_case_are_preserved_and_query_sorted() {
    assert_eq!(
        canon("https://Example.com/Path/File?b=2&A=1"),
        "https://example.com/Path/File?A=1&b=2"
    );
}

#[test]
fn root_has_no_trailing_slash() {
    assert_eq!(canon("https://example.com/"), "https://example.com");
    assert_eq!(canon("https://example.com"), "https://example.com");
}

#[test]
fn www_stripping_can_be_turned_off() {
    let opts = CanonicalOptions { strip_www: false };
    assert_eq!(
        canonical_url("https://www.example.com/x", opts).unwrap(),
        "https://www.example.com/x"
    );
}

#[test]
fn idn_hosts_become_punycode() {
    assert_eq!(
        canon("https://bücher.example/"),
        "https://xn--bcher-kva.example"
    );
}

#[test]
fn non_default_ports_are_kept() {
    assert_eq!(
        canon("http://example.com:8080/x"),
        "https://example.com:8080/x"
    );
}

#[test]
fn redirect_wrappers_are_unwrapped() {
    assert_eq!(
        canon("https://www.google.com/url?q=https://target.example/page&sa=U"),
        "https://target.example/page"
    );
    assert_eq!(
        canon("//duckduckgo.com/l/?uddg=https%3A%2F%2Ftarget.example%2Fp%3Fx%3D1&rut=abc"),
        "https://target.example/p?x=1"
    );
    // base64url("https://target.example/b") = aHR0cHM6Ly90YXJnZXQuZXhhbXBsZS9i
    assert_eq!(
        canon("https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly90YXJnZXQuZXhhbXBsZS9i&ntb=1"),
        "https://target.example/b"
    );
}

#[test]
fn non_http_and_garbage_are_errors() {
    assert!(matches!(
        canonical_url("ftp://x.example/", CanonicalOptions::default()),
        Err(CanonicalError::NotHttp(_))
    ));
    assert!(canonical_url("not a url", CanonicalOptions::default()).is_err());
}

#[test]
fn canonical_is_idempotent_on_examples() {
    for s in [
        "https://www.example.com/a/?utm_source=x&z=1&a=2#f",
        "http://bücher.example:8080/Ä?q=%20x",
        "https://example.com/?",
    ] {
        let once = canon(s);
        assert_eq!(canon(&once), once, "{s}");
    }
}
