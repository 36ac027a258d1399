//! Canonical URLs: the one merge key for results from every engine.
//!
//! [`canonical_url`] gives one key to every spelling of a page: an `https` key,
//! lowercase host, IDNA (punycode) host, default port removed, fragment
//! removed, trailing slash removed, tracking parameters removed, the
//! remaining query sorted; path and query case preserved; a leading `www.`
//! stripped unless [`CanonicalOptions::strip_www`] is off. User info is
//! dropped, and percent-escapes in the path are brought to one form
//! (unreserved characters decoded, the rest in upper-case hex).
//! Search-engine redirect wrappers (the one table [`REDIRECTORS`]: Google
//! `/url?q=`, Bing `/ck/a?…u=`, DuckDuckGo `/l/?uddg=`) are unwrapped first
//! by [`unwrap_redirect`], repeatedly when one wraps another.
//!
//! Plain URLs (`http(s)://host/path`, a plain query or none, no host of
//! the redirect table) take a fast path (`fast`) that builds the key by
//! slicing instead of parsing; a proptest checks that it answers exactly
//! what the parsing path does.
//!
//! The original URL is never replaced: results keep it for display.

use url::Url;

mod fast;

/// Options of [`canonical_url`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CanonicalOptions {
    /// Strip a leading `www.` from the host (default on).
    pub strip_www: bool,
}

impl Default for CanonicalOptions {
    fn default() -> Self {
        CanonicalOptions { strip_www: true }
    }
}

/// Why a string has no canonical form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// Not a parseable absolute URL.
    #[error("not a valid absolute URL: {0}")]
    Invalid(String),
    /// A scheme other than http or https.
    #[error("only http and https URLs have a canonical form, not {0:?}")]
    NotHttp(String),
    /// No host.
    #[error("the URL has no host")]
    MissingHost,
}

/// Query parameters that only track clicks and never change the page.
/// Exact names; anything starting with `utm_` is also removed.
pub const TRACKING_PARAMS: &[&str] = &[
    "fbclid",
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "msclkid",
    "yclid",
    "twclid",
    "igshid",
    "mc_cid",
    "mc_eid",
    "_hsenc",
    "_hsmi",
    "mkt_tok",
    "spm",
    "ref",
    "ref_src",
    "ref_url",
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
    "vd_source",
    "si",
    "srsltid",
    "gad_source",
    "_ga",
    "_gl",
    "ttclid",
    "li_fat_id",
];

/// Whether `name` is a tracking parameter (ASCII case-insensitive; no
/// allocation, since the canonical fast path asks it of every query key).
pub fn is_tracking_param(name: &str) -> bool {
    name.get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("utm_"))
        || TRACKING_PARAMS.iter().any(|t| t.eq_ignore_ascii_case(name))
}

/// Parse `raw` as an absolute URL, accepting protocol-relative `//host/…`
/// (as result pages write them) as https.
fn parse_absolute(raw: &str) -> Result<Url, CanonicalError> {
    let trimmed = raw.trim();
    let candidate = if trimmed.starts_with("//") {
        format!("https:{trimmed}")
    } else {
        trimmed.to_string()
    };
    Url::parse(&candidate).map_err(|e| CanonicalError::Invalid(format!("{trimmed:?}: {e}")))
}

/// If `raw` is a search engine's redirect wrapper, the URL it points to;
/// otherwise `None`. Handles Google `/url?q=` (and `url=`), Bing
/// `/ck/a?…&u=a1<base64url>` and DuckDuckGo `/l/?uddg=`, including
/// protocol-relative forms. Only http(s) targets are returned; a relative
/// target (Bing links its own verticals as `/images/search?q=…`) is
/// resolved against the wrapper.
pub fn unwrap_redirect(raw: &str) -> Option<String> {
    let url = parse_absolute(raw).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let redirector = REDIRECTORS
        .iter()
        .find(|r| r.serves(host) && r.paths.contains(&url.path()))?;
    let param = |name: &&str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    let target = redirector.params.iter().find_map(param)?;
    let target = if redirector.bing_encoded {
        decode_bing_u(&target)?
    } else {
        target
    };
    let target = target.trim();
    if target.is_empty() {
        return None;
    }
    let (parsed, absolute) = match Url::parse(target) {
        Ok(parsed) => (parsed, true),
        Err(url::ParseError::RelativeUrlWithoutBase) => (url.join(target).ok()?, false),
        Err(_) => return None,
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    Some(if absolute {
        target.to_string()
    } else {
        parsed.into()
    })
}

/// How many nested redirect wrappers [`canonical_url`] unwraps.
const MAX_UNWRAP_DEPTH: usize = 8;

/// A search engine whose result links go through a redirect wrapper.
pub struct Redirector {
    /// The host label that names the engine (`google`, `bing`, …).
    pub label: &'static str,
    /// `label.<country suffix>` (google.com, google.co.uk, …) rather than
    /// `label.com` and its subdomains.
    pub country_hosts: bool,
    /// Paths of the wrapper.
    pub paths: &'static [&'static str],
    /// Query parameters holding the target, first match wins.
    pub params: &'static [&'static str],
    /// The target is Bing's `a1` + base64url encoding.
    pub bing_encoded: bool,
}

/// The one table of redirect wrappers, read by [`unwrap_redirect`] and by
/// the fast path (which leaves any host with one of these labels to the
/// parsing path).
pub const REDIRECTORS: &[Redirector] = &[
    Redirector {
        label: "google",
        country_hosts: true,
        paths: &["/url"],
        params: &["q", "url"],
        bing_encoded: false,
    },
    Redirector {
        label: "bing",
        country_hosts: false,
        paths: &["/ck/a"],
        params: &["u"],
        bing_encoded: true,
    },
    Redirector {
        label: "duckduckgo",
        country_hosts: false,
        paths: &["/l/", "/l"],
        params: &["uddg"],
        bing_encoded: false,
    },
];

impl Redirector {
    /// Whether `host` (lowercase, without `www.`) is one of this engine's.
    fn serves(&self, host: &str) -> bool {
        if self.country_hosts {
            host.strip_prefix(self.label)
                .and_then(|r| r.strip_prefix('.'))
                .is_some_and(|rest| {
                    !rest.is_empty() && rest.split('.').all(|l| (2..=3).contains(&l.len()))
                })
        } else {
            host.strip_suffix(".com")
                .and_then(|h| h.strip_suffix(self.label))
                .is_some_and(|h| h.is_empty() || h.ends_with('.'))
        }
    }
}

/// Bing's `u` parameter: `a1` followed by unpadded base64url of the target.
fn decode_bing_u(u: &str) -> Option<String> {
    let b64 = u.strip_prefix("a1")?;
    let bytes = base64url_decode(b64)?;
    String::from_utf8(bytes).ok()
}

fn base64url_decode(s: &str) -> Option<Vec<u8>> {
    fn val(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        })
    }
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for &c in s.as_bytes() {
        acc = (acc << 6) | val(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Percent-escapes in a URL path brought to one form (RFC 3986 §6.2.2):
/// escapes of unreserved characters (`A–Z a–z 0–9 - . _ ~`) decoded, every
/// other escape in upper-case hex. Invalid escapes are left as they are.
fn normalize_escapes(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(pos) = rest.find('%') {
        out.push_str(&rest[..pos]);
        let escape = rest
            .get(pos + 1..pos + 3)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
        match escape.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') => {
                out.push(char::from(b));
                rest = &rest[pos + 3..];
            }
            Some(_) => {
                out.push('%');
                out.push_str(&rest[pos + 1..pos + 3].to_ascii_uppercase());
                rest = &rest[pos + 3..];
            }
            None => {
                out.push('%');
                rest = &rest[pos + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The canonical form of `raw` (see the module docs). Redirect wrappers are
/// unwrapped first. Idempotent: the canonical form of a canonical URL is
/// itself.
pub fn canonical_url(raw: &str, options: CanonicalOptions) -> Result<String, CanonicalError> {
    let mut out = String::new();
    canonical_url_into(raw, options, &mut out)?;
    Ok(out)
}

/// [`canonical_url`] written into `out` (cleared first), so that a caller
/// making many keys reuses one buffer.
pub fn canonical_url_into(
    raw: &str,
    options: CanonicalOptions,
    out: &mut String,
) -> Result<(), CanonicalError> {
    if !fast::plain_into(raw, options, out) {
        *out = parsed(raw, options)?;
    }
    Ok(())
}

/// [`canonical_url`] by parsing: the definition the fast path agrees with.
fn parsed(raw: &str, options: CanonicalOptions) -> Result<String, CanonicalError> {
    let mut target = raw.trim().to_string();
    for _ in 0..MAX_UNWRAP_DEPTH {
        match unwrap_redirect(&target) {
            Some(inner) if inner != target => target = inner,
            _ => break,
        }
    }
    let mut url = parse_absolute(&target)?;
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(CanonicalError::NotHttp(other.to_string())),
    }
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or(CanonicalError::MissingHost)?
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if host.is_empty() {
        return Err(CanonicalError::MissingHost);
    }
    let mut host = host;
    if options.strip_www {
        // Repeatedly, so the result has no `www.` left to strip
        // (idempotence): www.www.example.com → example.com.
        while let Some(rest) = host.strip_prefix("www.")
            && rest.contains('.')
        {
            host = rest.to_string();
        }
    }
    let port = url.port();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);

    // Query: drop tracking parameters and empty keys, sort what remains.
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !k.is_empty() && !is_tracking_param(k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    pairs.sort();

    // Path: escapes normalised, trailing slash removed (the root stays "/").
    let mut path = normalize_escapes(url.path());
    while path.len() > 1 && path.ends_with('/') {
        path.pop();
    }

    let mut out = String::with_capacity(raw.len());
    out.push_str("https://");
    out.push_str(&host);
    // Port 80 on an http URL and 443 on https are already None; a port that
    // is the default of the *other* scheme is dropped too since the key is https.
    if let Some(p) = port
        && p != 443
        && p != 80
    {
        out.push(':');
        out.push_str(&p.to_string());
    }
    out.push_str(&path);
    if !pairs.is_empty() {
        let mut ser = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &pairs {
            ser.append_pair(k, v);
        }
        out.push('?');
        out.push_str(&ser.finish());
    }
    // Re-parse so the result is in the url crate's normal form (idempotence).
    let normal = Url::parse(&out).map_err(|e| CanonicalError::Invalid(e.to_string()))?;
    let mut s = normal.to_string();
    if normal.path() == "/" && normal.query().is_none() && s.ends_with('/') {
        s.pop();
    }
    Ok(s)
}
