//! The fast path of [`canonical_url`] on the plain URLs most engines return
//! (`http(s)://host/path`, a plain `key=value` query or none, no port,
//! credentials, percent-escapes, dot segments or host of the redirect
//! table): their canonical form is built by string slicing, without the
//! two URL parses of the parsing path. Any URL outside that shape is left
//! to the parsing path. A proptest checks that whenever the fast path
//! answers, it answers exactly what the parsing path does.
//!
//! [`canonical_url`]: super::canonical_url

use super::{CanonicalOptions, REDIRECTORS, is_tracking_param};

/// Path bytes kept verbatim by the URL parser in http(s) paths.
const PLAIN_PATH: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'/'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            );
        b += 1;
    }
    table
};

/// Whether a host label is one the URL parser keeps as it is (up to case):
/// non-empty, at most 63 bytes, no hyphen at either end, not punycode, and
/// not the label of a search engine of the redirect table.
fn plain_label(label: &[u8]) -> bool {
    !(label.is_empty()
        || label.len() > 63
        || label[0] == b'-'
        || label[label.len() - 1] == b'-'
        || (label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--"))
        || REDIRECTORS
            .iter()
            .any(|r| label.eq_ignore_ascii_case(r.label.as_bytes())))
}

/// Whether a path segment is `.` or `..`, which the URL parser resolves.
fn dot_segment(segment: &[u8]) -> bool {
    segment == b"." || segment == b".."
}

/// Byte classes of a plain host: a letter, a digit or hyphen, a dot, a
/// byte that ends the host (`/ ? #`), anything else.
const LETTER: u8 = 1;
const DIGIT_OR_HYPHEN: u8 = 2;
const DOT: u8 = 3;
const HOST_END: u8 = 4;
const HOST_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if c.is_ascii_alphabetic() {
            LETTER
        } else if c.is_ascii_digit() || c == b'-' {
            DIGIT_OR_HYPHEN
        } else if c == b'.' {
            DOT
        } else if c == b'/' || c == b'?' || c == b'#' {
            HOST_END
        } else {
            0
        };
        b += 1;
    }
    table
};

/// Most query pairs the fast path handles.
const MAX_PAIRS: usize = 16;

/// Whether a query byte decodes and re-encodes as itself
/// (`application/x-www-form-urlencoded` keeps letters, digits and `-._`).
fn plain_query_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')
}

/// The pairs of a plain query (`k=v` pairs of [`plain_query_byte`]s joined
/// by `&`) that the canonical form keeps: no empty key, no tracking
/// parameter; a key without `=` has the empty value. Writes them to `out`
/// and returns how many, or `None` when the query is not plain or has more
/// than [`MAX_PAIRS`] pairs.
fn plain_query<'q>(query: &'q str, out: &mut [(&'q str, &'q str); MAX_PAIRS]) -> Option<usize> {
    let mut n = 0;
    for pair in query.split('&') {
        if pair.is_empty() {
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if !key.bytes().all(plain_query_byte) || !value.bytes().all(plain_query_byte) {
            return None;
        }
        if key.is_empty() || is_tracking_param(key) {
            continue;
        }
        *out.get_mut(n)? = (key, value);
        n += 1;
    }
    Some(n)
}

/// The canonical form of `raw` when it is a plain URL, else `None`.
#[cfg(test)]
fn canonical_fast(raw: &str, options: CanonicalOptions) -> Option<String> {
    let mut out = String::new();
    plain_into(raw, options, &mut out).then_some(out)
}

/// The canonical form of `raw` written into `out` (cleared first) when it
/// is a plain URL; false, with `out` unspecified, when it is not.
pub(super) fn plain_into(raw: &str, options: CanonicalOptions, out: &mut String) -> bool {
    let Some(rest) = raw
        .strip_prefix("https://")
        .or_else(|| raw.strip_prefix("http://"))
    else {
        return false;
    };
    let Some(host_end) = plain_host(rest.as_bytes()) else {
        return false;
    };
    let Some(path_end) = plain_path(rest.as_bytes(), host_end) else {
        return false;
    };
    let mut pairs = [("", ""); MAX_PAIRS];
    let Some(kept) = query_of(rest, path_end).map_or(Some(0), |q| plain_query(q, &mut pairs))
    else {
        return false;
    };
    let pairs = &mut pairs[..kept];
    pairs.sort_unstable();
    let mut host = &rest[..host_end];
    // Repeatedly, as the parsing path does, but never down to a bare name.
    while options.strip_www
        && host.len() > 4
        && host[..4].eq_ignore_ascii_case("www.")
        && host[4..].contains('.')
    {
        host = &host[4..];
    }
    write_key(out, host, &rest[host_end..path_end], pairs);
    true
}

/// The end of a plain host at the start of `bytes` (up to the first `/`,
/// `?` or `#`): a plain DNS name of ASCII letters,
/// digits and inner hyphens in plain labels, with an alphabetic last label
/// (a numeric one makes it an IPv4 address to the parser).
fn plain_host(bytes: &[u8]) -> Option<usize> {
    let mut label_start = 0;
    let mut label_alpha = true;
    let mut host_end = bytes.len();
    for (i, &b) in bytes.iter().enumerate() {
        match HOST_BYTE[b as usize] {
            LETTER => {}
            DIGIT_OR_HYPHEN => label_alpha = false,
            DOT => {
                if !plain_label(&bytes[label_start..i]) {
                    return None;
                }
                label_start = i + 1;
                label_alpha = true;
            }
            HOST_END => {
                host_end = i;
                break;
            }
            _ => return None,
        }
    }
    let plain = label_alpha && plain_label(&bytes[label_start..host_end]) && host_end <= 253;
    plain.then_some(host_end)
}

/// The end of the path from `host_end` (up to the first `?` or `#`) when
/// it has only bytes the parser keeps verbatim and no `.` or `..` segment.
fn plain_path(bytes: &[u8], host_end: usize) -> Option<usize> {
    if bytes.get(host_end) != Some(&b'/') {
        return Some(host_end);
    }
    let mut segment_start = host_end + 1;
    let mut path_end = bytes.len();
    for (j, &b) in bytes.iter().enumerate().skip(host_end + 1) {
        if b == b'/' {
            if dot_segment(&bytes[segment_start..j]) {
                return None;
            }
            segment_start = j + 1;
        } else if !PLAIN_PATH[b as usize] {
            if b == b'?' || b == b'#' {
                path_end = j;
                break;
            }
            return None;
        }
    }
    (!dot_segment(&bytes[segment_start..path_end])).then_some(path_end)
}

/// The query after the path, up to the first `#` (the fragment is
/// dropped). The ends are ASCII bytes, so every cut is on a char boundary.
fn query_of(rest: &str, path_end: usize) -> Option<&str> {
    let bytes = rest.as_bytes();
    (bytes.get(path_end) == Some(&b'?')).then(|| {
        let start = path_end + 1;
        let end = memchr::memchr(b'#', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        &rest[start..end]
    })
}

/// `https://` + the host lowercased + the path without trailing slashes
/// + the sorted query pairs.
fn write_key(out: &mut String, host: &str, path: &str, pairs: &[(&str, &str)]) {
    out.clear();
    out.push_str("https://");
    let host_start = out.len();
    out.push_str(host);
    out[host_start..].make_ascii_lowercase();
    let mut path = path;
    while path.len() > 1 && path.ends_with('/') {
        path = &path[..path.len() - 1];
    }
    if path == "/" {
        path = "";
    }
    out.push_str(path);
    if !pairs.is_empty() {
        if path.is_empty() {
            out.push('/');
        }
        for (i, (k, v)) in pairs.iter().enumerate() {
            out.push(if i == 0 { '?' } else { '&' });
            out.push_str(k);
            out.push('=');
            out.push_str(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::parsed as canonical_url;
    use proptest::prelude::*;

    fn agree(raw: &str) -> Result<bool, TestCaseError> {
        for options in [
            CanonicalOptions::default(),
            CanonicalOptions { strip_www: false },
        ] {
            if let Some(fast) = canonical_fast(raw, options) {
                prop_assert_eq!(
                    Ok(fast),
                    canonical_url(raw, options).map_err(|e| e.to_string()),
                    "{}",
                    raw
                );
            } else {
                return Ok(false);
            }
        }
        Ok(true)
    }

    #[test]
    fn plain_urls_take_the_fast_path() {
        for (raw, want) in [
            ("https://example.com/a/b", "https://example.com/a/b"),
            ("http://WWW.Example.com/A/b/", "https://example.com/A/b"),
            ("https://www.example.com/", "https://example.com"),
            ("https://example.com", "https://example.com"),
            ("https://example.com//", "https://example.com"),
            ("https://example.com/p#frag?x", "https://example.com/p"),
            ("https://www.com/x", "https://www.com/x"),
            ("https://www.www.example.com/", "https://example.com"),
            (
                "https://example.com/a/?utm_source=x&b=2&a=1",
                "https://example.com/a?a=1&b=2",
            ),
            ("https://example.com?b&a=1", "https://example.com/?a=1&b="),
            (
                "https://example.com/?utm_medium=rss#x",
                "https://example.com",
            ),
        ] {
            assert_eq!(
                canonical_fast(raw, CanonicalOptions::default()).as_deref(),
                Some(want),
                "{raw}"
            );
            assert_eq!(
                canonical_url(raw, CanonicalOptions::default()).as_deref(),
                Ok(want)
            );
        }
    }

    #[test]
    fn long_labels_and_hosts_take_the_slow_path() {
        let label63 = "a".repeat(63);
        let ok = format!("https://{label63}.com/x");
        assert!(canonical_fast(&ok, CanonicalOptions::default()).is_some());
        let label64 = format!("https://{}.com/x", "a".repeat(64));
        assert_eq!(canonical_fast(&label64, CanonicalOptions::default()), None);
        // 254 bytes of host: four labels of 62 and the `.com`.
        let long = format!("https://{}com/", format!("{}.", "b".repeat(62)).repeat(4));
        assert_eq!(canonical_fast(&long, CanonicalOptions::default()), None);
        // 253 bytes, the most the fast path takes.
        let fits = format!("https://{}c/", format!("{}.", "b".repeat(62)).repeat(4));
        assert!(canonical_fast(&fits, CanonicalOptions::default()).is_some());
        assert_eq!(
            canonical_fast(&fits, CanonicalOptions::default()),
            canonical_url(&fits, CanonicalOptions::default()).ok()
        );
    }

    #[test]
    fn anything_unusual_takes_the_slow_path() {
        for raw in [
            "https://example.com/a?b=1+2",
            "https://example.com/a?b=%41",
            "https://example.com/a?b=1=2",
            "https://example.com:8080/",
            "https://user@example.com/",
            "https://example.com/a%20b",
            "https://example.com/a/../b",
            "https://127.0.0.1/",
            "https://xn--bcher-kva.example/",
            "https://www.google.com/url",
            "https://example.com/a b",
            "HTTPS://example.com/",
            " https://example.com/",
            "//example.com/",
            "https://bücher.example/",
            "https://a..b.com/",
            "https://-a.example.com/",
            "https://a-.example.com/",
            "https://bing.com/ck/a",
            "https://DuckDuckGo.com/l/",
            "https://XN--bcher-kva.example/",
            "https://example.123/",
            "https://example.com/a/./b",
            "https://example.com/..",
            "https://.example.com/",
            "https://example.com./",
            "https:///a",
        ] {
            assert_eq!(
                canonical_fast(raw, CanonicalOptions::default()),
                None,
                "{raw}"
            );
        }
    }

    proptest! {
        #[test]
        fn the_fast_path_agrees_with_canonical_url(
            scheme in prop::sample::select(vec!["https://", "http://", "HTTP://", "ftp://", ""]),
            www in prop::bool::ANY,
            host in "[a-zA-Z0-9-]{1,8}(\\.[a-zA-Z0-9-]{1,6}){0,3}",
            path in "(/[a-zA-Z0-9._~!$&()*+,;=:@%' -]{0,6}){0,4}/?",
            tail in prop::sample::select(vec![
                "", "#f", "?a=1", "#x?y", "?utm_source=z", ":80", "?b=2&a=1", "?a=&b",
                "?UTM_Medium=x&z=1", "?a=b=c", "?&&a=1&", "?A=1&a=0&a=", "?fbclid=1#f",
                "?FBclid=2&gclid=3", "?x=%20", "?", "?=1", "?a+b=1", "?q=a*b", "?k=~",
            ]),
            query in "(\\?[a-zA-Z0-9_=&.~+%-]{0,14})?",
        ) {
            let raw = format!("{scheme}{}{host}{path}{tail}", if www { "www." } else { "" });
            agree(&raw)?;
            let raw = format!("{scheme}{}{host}{path}{query}", if www { "www." } else { "" });
            agree(&raw)?;
        }

        #[test]
        fn the_fast_path_agrees_on_any_text(raw in "https?://\\PC{0,30}") {
            agree(&raw)?;
        }

        #[test]
        fn the_fast_path_covers_plain_urls(
            host in "[a-z0-9]{1,8}\\.[a-z]{2,6}",
            path in "(/[a-zA-Z0-9_-]{1,8}){0,4}/?",
            query in "(\\?[a-z]{1,4}=[a-z0-9]{0,4}(&[a-z_]{1,6}=[a-z0-9]{0,4}){0,3})?",
        ) {
            let raw = format!("https://{host}{path}{query}");
            prop_assert!(agree(&raw)?, "{} should take the fast path", raw);
        }
    }
}
