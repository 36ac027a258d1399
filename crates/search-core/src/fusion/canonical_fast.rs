//! A fast path for [`canonical_url`] on the plain URLs most engines return
//! (`http(s)://host/path` with no query, port, credentials, percent-escapes,
//! dot segments or redirect-wrapper host): their canonical form can be built
//! by string slicing, without the two URL parses `canonical_url` does. Any
//! URL outside that shape returns `None` and goes through `canonical_url`.
//! A proptest checks that whenever the fast path answers, it answers exactly
//! what `canonical_url` does.
//!
//! [`canonical_url`]: crate::canonical::canonical_url

use crate::canonical::CanonicalOptions;

/// Path bytes kept verbatim by the URL parser in http(s) paths.
fn plain_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
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
        )
}

fn plain_host(host: &str) -> bool {
    if host.is_empty() || host.len() > 253 {
        return false;
    }
    // Hosts whose URLs canonical_url may unwrap (search redirect wrappers).
    let lower_has = |needle: &str| {
        host.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
    };
    if lower_has("google") || lower_has("bing") || lower_has("duckduckgo") {
        return false;
    }
    let mut labels = host.split('.').peekable();
    while let Some(label) = labels.next() {
        let bytes = label.as_bytes();
        if bytes.is_empty()
            || bytes.len() > 63
            || bytes[0] == b'-'
            || bytes[bytes.len() - 1] == b'-'
            || label
                .get(..4)
                .is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
            || !bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        {
            return false;
        }
        // The last label must be alphabetic: a numeric last label makes the
        // host an IPv4 address to the URL parser.
        if labels.peek().is_none() && !bytes.iter().all(u8::is_ascii_alphabetic) {
            return false;
        }
    }
    true
}

/// The canonical form of `raw` when it is a plain URL, else `None`.
pub(crate) fn canonical_fast(raw: &str, options: CanonicalOptions) -> Option<String> {
    let rest = raw
        .strip_prefix("https://")
        .or_else(|| raw.strip_prefix("http://"))?;
    let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
    let (host, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if !plain_host(host) || !path.bytes().all(plain_path_byte) {
        return None;
    }
    if path
        .split('/')
        .any(|segment| segment == "." || segment == "..")
    {
        return None;
    }
    let mut path = path;
    while path.len() > 1 && path.ends_with('/') {
        path = &path[..path.len() - 1];
    }
    if path == "/" {
        path = "";
    }
    let mut out = String::with_capacity(8 + host.len() + path.len());
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
    Some(out)
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
            "https://example.com/a?b=1",
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
            tail in prop::sample::select(vec!["", "#f", "?a=1", "#x?y", "?utm_source=z", ":80"]),
        ) {
            let raw = format!("{scheme}{}{host}{path}{tail}", if www { "www." } else { "" });
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
        ) {
            let raw = format!("https://{host}{path}");
            prop_assert!(agree(&raw)?, "{} should take the fast path", raw);
        }
    }
}
