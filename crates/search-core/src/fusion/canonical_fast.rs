//! A fast path for [`canonical_url`] on the plain URLs most engines return
//! (`http(s)://host/path` with no query, port, credentials, percent-escapes,
//! dot segments or redirect-wrapper host): their canonical form can be built
//! by string slicing, without the two URL parses `canonical_url` does. Any
//! URL outside that shape returns `None` and goes through `canonical_url`.
//! A proptest checks that whenever the fast path answers, it answers exactly
//! what `canonical_url` does.
//!
//! [`canonical_url`]: crate::canonical::canonical_url

use crate::canonical::{CanonicalOptions, is_tracking_param};

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

/// Whether `path` (empty or starting with `/`) is kept verbatim by the URL
/// parser: only [`PLAIN_PATH`] bytes and no `.` or `..` segment.
fn plain_path(path: &str) -> bool {
    let bytes = path.as_bytes();
    let mut segment_start = 0;
    for i in 0..=bytes.len() {
        let b = bytes.get(i).copied().unwrap_or(b'/');
        if b == b'/' {
            let segment = &bytes[segment_start..i];
            if segment == b"." || segment == b".." {
                return false;
            }
            segment_start = i + 1;
        } else if !PLAIN_PATH[b as usize] {
            return false;
        }
    }
    true
}

/// Whether `host` is a plain DNS name the URL parser keeps as it is
/// (up to case): ASCII letters, digits and inner hyphens in non-empty labels
/// of at most 63 bytes, no punycode label, an alphabetic last label (a
/// numeric one makes the host an IPv4 address to the parser), and no label
/// of a search engine whose redirect URLs `canonical_url` unwraps.
fn plain_host(host: &str) -> bool {
    let bytes = host.as_bytes();
    if bytes.is_empty() || bytes.len() > 253 {
        return false;
    }
    let mut label_start = 0;
    let mut label_alpha = true;
    for i in 0..=bytes.len() {
        let b = bytes.get(i).copied().unwrap_or(b'.');
        if b == b'.' {
            let label = &bytes[label_start..i];
            if label.is_empty()
                || label.len() > 63
                || label[0] == b'-'
                || label[label.len() - 1] == b'-'
                || (label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--"))
                || label.eq_ignore_ascii_case(b"google")
                || label.eq_ignore_ascii_case(b"bing")
                || label.eq_ignore_ascii_case(b"duckduckgo")
            {
                return false;
            }
            if i == bytes.len() {
                return label_alpha;
            }
            label_start = i + 1;
            label_alpha = true;
        } else if b.is_ascii_alphabetic() {
        } else if b.is_ascii_digit() || b == b'-' {
            label_alpha = false;
        } else {
            return false;
        }
    }
    false
}

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

/// The merge key of `raw` written into `out` (cleared first): its
/// canonical form by the fast path when it is a plain URL, else by
/// [`canonical_url`]; why it has none otherwise.
///
/// [`canonical_url`]: crate::canonical::canonical_url
pub(crate) fn merge_key_into(
    raw: &str,
    options: CanonicalOptions,
    out: &mut String,
) -> Result<(), String> {
    if canonical_fast_into(raw, options, out) {
        return Ok(());
    }
    let canonical = crate::canonical::canonical_url(raw, options).map_err(|e| e.to_string())?;
    out.clear();
    out.push_str(&canonical);
    Ok(())
}

/// The canonical form of `raw` when it is a plain URL, else `None`.
#[cfg(test)]
pub(crate) fn canonical_fast(raw: &str, options: CanonicalOptions) -> Option<String> {
    let mut out = String::new();
    canonical_fast_into(raw, options, &mut out).then_some(out)
}

/// `rest` (a URL after its scheme) as host, path and query (the fragment
/// dropped): the host ends at the first `/`, `?` or `#`, the path at the
/// first `?` or `#` after it, the query at the first `#` after that. One
/// byte search for each end instead of a search per separator over the
/// whole text.
fn split_authority_path_query(rest: &str) -> (&str, &str, Option<&str>) {
    let bytes = rest.as_bytes();
    let host_end = memchr::memchr3(b'/', b'?', b'#', bytes).unwrap_or(bytes.len());
    let path_end = match bytes.get(host_end) {
        Some(b'/') => {
            memchr::memchr2(b'?', b'#', &bytes[host_end..]).map_or(bytes.len(), |i| host_end + i)
        }
        _ => host_end,
    };
    let query = match bytes.get(path_end) {
        Some(b'?') => {
            let start = path_end + 1;
            let end = memchr::memchr(b'#', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            Some(&rest[start..end])
        }
        _ => None,
    };
    // The three ends are ASCII bytes, so every cut is on a char boundary.
    (&rest[..host_end], &rest[host_end..path_end], query)
}

/// [`canonical_fast`] written into `out` (cleared first); false, with `out`
/// unspecified, when `raw` is not a plain URL.
pub(crate) fn canonical_fast_into(raw: &str, options: CanonicalOptions, out: &mut String) -> bool {
    let Some(rest) = raw
        .strip_prefix("https://")
        .or_else(|| raw.strip_prefix("http://"))
    else {
        return false;
    };
    let (host, path, query) = split_authority_path_query(rest);
    if !plain_host(host) || !plain_path(path) {
        return false;
    }
    let mut pairs = [("", ""); MAX_PAIRS];
    let Some(kept) = query.map_or(Some(0), |q| plain_query(q, &mut pairs)) else {
        return false;
    };
    let pairs = &mut pairs[..kept];
    pairs.sort_unstable();
    let mut path = path;
    while path.len() > 1 && path.ends_with('/') {
        path = &path[..path.len() - 1];
    }
    if path == "/" {
        path = "";
    }
    out.clear();
    out.reserve(8 + host.len() + path.len());
    out.push_str("https://");
    let host_start = out.len();
    out.push_str(host);
    out[host_start..].make_ascii_lowercase();
    if options.strip_www
        && out[host_start..].starts_with("www.")
        && out[host_start + 4..].contains('.')
    {
        out.replace_range(host_start..host_start + 4, "");
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
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonical_url;
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
        fn one_search_per_end_splits_as_the_separators_do(
            rest in "[a-z/?#é=&]{0,24}",
        ) {
            // The definition: drop from the first `#`, split at the first
            // `?`, then the host ends at the first `/`.
            let before = rest.split_once('#').map_or(rest.as_str(), |(b, _)| b);
            let (before, query) = match before.split_once('?') {
                Some((b, q)) => (b, Some(q)),
                None => (before, None),
            };
            let (host, path) = before.find('/').map_or((before, ""), |i| before.split_at(i));
            prop_assert_eq!(split_authority_path_query(&rest), (host, path, query));
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
