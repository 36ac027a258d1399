//! The verdict rules: is a page's reading readable evidence, or a wall?
//!
//! The verdict score:
//!
//! ```text
//! score = min(45, ⌊text_chars / 80⌋)          length
//!       + min(20, ⌊density · 20⌋)             density
//!       + 8 if the title has ≥ 8 characters    title
//!       + min(15, 5 · meta)                    meta (canonical, description, OpenGraph, JSON-LD)
//!       + trust(source)                        public_endpoint 20 … reader 4
//!       − 25 per challenge marker, − 35 per auth marker, − 25 per paywall marker
//! ```
//!
//! floored at 0. Text and title are whitespace-normalised first (runs of
//! whitespace become one space); lengths are Unicode characters. Markers
//! are searched in `title + "\n" + text`, ASCII case-insensitively, and each
//! matching marker counts once; the markers are
//! [`ferret_core::quality::VERDICT_MARKERS`] (re-exported as [`MARKERS`]),
//! next to the broader word tables of page quality.
//!
//! **Density** is the characters
//! of the extracted text divided by the characters of the raw document the
//! step received (the decoded HTML body, or the browser's rendered HTML),
//! clamped to 0–1. When the text came straight from an API (public
//! endpoints) there is no raw document and the density is 1. It rewards pages whose markup is mostly content rather than
//! scripts, styles and chrome.
//!
//! The verdict, first match wins ([`assess`]):
//!
//! 1. the content type cannot be read as text (images, archives, PDFs
//!    that are encrypted, image-only or damaged) →
//!    `unsupported`;
//! 2. HTTP status ≥ 400: the score is 0 and 401 → `auth_required`, 402 →
//!    `paywall`, 403 → `challenge` when any marker is present else
//!    `blocked`, 429 → `blocked`, any other status → the first marker kind
//!    found (auth, paywall, challenge) or `blocked`;
//! 3. an auth marker and text < 1500 chars → `auth_required`;
//! 4. a paywall marker and text < 1500 → `paywall`;
//! 5. a challenge marker and text < 1000 → `challenge`;
//! 6. an empty JavaScript shell that no browser rendered, and not
//!    `strong_ok` by score → `browser_required`;
//! 7. degenerate text (none at all, one token repeated, replacement
//!    characters, binary bytes read as text) → `thin`;
//! 8. score ≥ 50 → `strong_ok`; ≥ 20 → `weak_ok`; below 20, `blocked` when
//!    a marker's penalty pulled the score down, otherwise `thin` (the page
//!    answered but says too little; the reason gives its length).
//!
//! `error` is for fetches that failed outright (transport, timeout,
//! redirect loops). `too_complex` is for a page whose reading ran past its
//! time budget ([`crate::budget::PageBudget`]): it keeps no text, and the
//! call goes on. `ok` is true only for `strong_ok` and `weak_ok`.
//!
//! The report of one URL ([`crate::verify::VerifyReport`]) is built on
//! these rules in [`crate::verify`].

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use serde::{Deserialize, Serialize};

/// Score at or above which a page is `strong_ok`.
pub const STRONG_OK_MIN_SCORE: u32 = 50;
/// Score at or above which a page is `weak_ok`.
pub const WEAK_OK_MIN_SCORE: u32 = 20;
/// An auth marker on a page with fewer text characters than this means
/// `auth_required`.
pub const AUTH_MAX_TEXT_CHARS: usize = 1500;
/// A paywall marker on a page with fewer text characters than this means
/// `paywall`.
pub const PAYWALL_MAX_TEXT_CHARS: usize = 1500;
/// A challenge marker on a page with fewer text characters than this means
/// `challenge`.
pub const CHALLENGE_MAX_TEXT_CHARS: usize = 1000;

/// Points per 80 characters of text, capped at this.
pub const LENGTH_MAX_POINTS: u32 = 45;
/// Characters of text per length point.
pub const CHARS_PER_LENGTH_POINT: usize = 80;
/// Density points at density 1.
pub const DENSITY_MAX_POINTS: u32 = 20;
/// Points for a title of at least [`TITLE_MIN_CHARS`] characters.
pub const TITLE_POINTS: u32 = 8;
/// Shortest title that earns [`TITLE_POINTS`].
pub const TITLE_MIN_CHARS: usize = 8;
/// Points per meta signal.
pub const META_POINTS_EACH: u32 = 5;
/// Meta points are capped at this.
pub const META_MAX_POINTS: u32 = 15;

/// Where a page's text came from: the reader sources, each with its
/// trust points ([`Source::trust`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A site's own public API (GitHub, Wikipedia, arXiv, HN, Reddit,
    /// package registries).
    PublicEndpoint,
    /// JSON a page loaded, captured from the browser's network.
    NetworkApi,
    /// A person resolved a challenge or login.
    HumanResolved,
    /// A plain HTTP fetch of the page.
    Fetch,
    /// A browser with the user's session (login partition).
    BrowserUser,
    /// A headless browser on an ephemeral profile.
    Browser,
    /// Page metadata only (title, description, JSON-LD).
    Metadata,
    /// A third-party reader service.
    #[serde(alias = "third_party_reader")]
    ThirdParty,
    /// A local reader pass over HTML handed in by the caller.
    Reader,
}

/// Trust points per source.
const SOURCE_TRUST: &[(Source, u32)] = &[
    (Source::PublicEndpoint, 20),
    (Source::NetworkApi, 16),
    (Source::HumanResolved, 14),
    (Source::Fetch, 12),
    (Source::BrowserUser, 11),
    (Source::Browser, 10),
    (Source::Metadata, 6),
    (Source::ThirdParty, 5),
    (Source::Reader, 4),
];

impl Source {
    /// Every source, in trust order.
    pub const ALL: [Source; 9] = [
        Source::PublicEndpoint,
        Source::NetworkApi,
        Source::HumanResolved,
        Source::Fetch,
        Source::BrowserUser,
        Source::Browser,
        Source::Metadata,
        Source::ThirdParty,
        Source::Reader,
    ];

    /// The source's trust points.
    pub fn trust(self) -> u32 {
        SOURCE_TRUST
            .iter()
            .find(|(s, _)| *s == self)
            .map_or(0, |(_, t)| *t)
    }

    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::PublicEndpoint => "public_endpoint",
            Source::NetworkApi => "network_api",
            Source::HumanResolved => "human_resolved",
            Source::Fetch => "fetch",
            Source::BrowserUser => "browser_user",
            Source::Browser => "browser",
            Source::Metadata => "metadata",
            Source::ThirdParty => "third_party",
            Source::Reader => "reader",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Readable, high-scoring evidence (score ≥ 50).
    StrongOk,
    /// Readable but thin or weakly scored (score ≥ 20): corroborate.
    WeakOk,
    /// Access refused: an HTTP 403/429 or other error status, a refused
    /// URL, or a page whose wall markers pull its score below the bar.
    Blocked,
    /// A login wall.
    AuthRequired,
    /// A bot check / WAF challenge.
    Challenge,
    /// A paywall.
    Paywall,
    /// The page needs JavaScript and no browser could render it.
    BrowserRequired,
    /// Too little real text to be evidence: none at all, one token repeated,
    /// replacement characters, or binary bytes read as text.
    Thin,
    /// Content that cannot be read as text (image, archive, an encrypted or
    /// image-only PDF …) or a URL scheme that is never fetched.
    Unsupported,
    /// The fetch failed outright (transport, timeout, redirect loop).
    Error,
    /// Reading the page ran past its time budget ([`crate::budget`]): it
    /// keeps no text, and the call goes on with the other pages.
    TooComplex,
    /// The site's robots.txt disallows the page for Ferret; it was not
    /// fetched (the reason names the matched rule).
    RobotsDisallowed,
}

impl Verdict {
    /// Every verdict.
    pub const ALL: [Verdict; 12] = [
        Verdict::StrongOk,
        Verdict::WeakOk,
        Verdict::Blocked,
        Verdict::AuthRequired,
        Verdict::Challenge,
        Verdict::Paywall,
        Verdict::BrowserRequired,
        Verdict::Thin,
        Verdict::Unsupported,
        Verdict::Error,
        Verdict::TooComplex,
        Verdict::RobotsDisallowed,
    ];

    /// `strong_ok` or `weak_ok`.
    pub fn is_ok(self) -> bool {
        matches!(self, Verdict::StrongOk | Verdict::WeakOk)
    }

    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::StrongOk => "strong_ok",
            Verdict::WeakOk => "weak_ok",
            Verdict::Blocked => "blocked",
            Verdict::AuthRequired => "auth_required",
            Verdict::Challenge => "challenge",
            Verdict::Paywall => "paywall",
            Verdict::BrowserRequired => "browser_required",
            Verdict::Thin => "thin",
            Verdict::Unsupported => "unsupported",
            Verdict::Error => "error",
            Verdict::TooComplex => "too_complex",
            Verdict::RobotsDisallowed => "robots_disallowed",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not a verdict name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown verdict {0:?}: expected one of strong_ok, weak_ok, blocked, auth_required, \
     challenge, paywall, browser_required, thin, unsupported, error, too_complex, \
     robots_disallowed"
)]
pub struct UnknownVerdict(pub String);

impl FromStr for Verdict {
    type Err = UnknownVerdict;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str() == s.trim())
            .ok_or_else(|| UnknownVerdict(s.to_string()))
    }
}

pub use ferret_core::quality::{MarkerKind, VERDICT_MARKERS as MARKERS};

/// One automaton over every marker (ASCII case-insensitive, overlapping).
static MARKER_SET: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(AhoCorasickKind::NoncontiguousNFA))
        .build(MARKERS.iter().map(|(_, word, _)| word))
        .expect("the marker table holds valid literals")
});

/// A marker found on a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// Its kind.
    pub kind: MarkerKind,
    /// The pattern that matched (its name in [`MARKERS`]).
    pub pattern: String,
}

/// The markers in `text` (each pattern at most once, in table order).
pub fn find_markers(text: &str) -> Vec<Marker> {
    let mut found = vec![false; MARKERS.len()];
    for m in MARKER_SET.find_overlapping_iter(text) {
        let i = m.pattern().as_usize();
        found[i] |= !MARKERS[i].2 || whole_word(text.as_bytes(), m.start(), m.end());
    }
    (0..MARKERS.len())
        .filter(|&i| found[i])
        .map(|i| Marker {
            kind: MARKERS[i].0,
            pattern: MARKERS[i].1.to_string(),
        })
        .collect()
}

/// Whether `text[start..end]` has an ASCII word boundary on each side.
fn whole_word(text: &[u8], start: usize, end: usize) -> bool {
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    !text[..start].last().is_some_and(word) && !text.get(end).is_some_and(word)
}

/// Collapses runs of whitespace to one space and trims.
pub fn normalize_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// What the verdict is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VerifyInput<'a> {
    /// The HTTP status of the final response, when there was one.
    pub status: Option<u16>,
    /// The page title.
    pub title: Option<&'a str>,
    /// The extracted text.
    pub text: &'a str,
    /// Characters of the raw document the text was extracted from (decoded
    /// HTML); `None` when the text came directly from an API (density 1).
    pub raw_chars: Option<usize>,
    /// How many meta signals the page has (canonical, description,
    /// OpenGraph, JSON-LD; 0–4).
    pub meta_count: u8,
    /// Where the text came from.
    pub source: Source,
    /// The page is an empty JavaScript shell that no browser rendered.
    pub unrendered_js_shell: bool,
    /// The content type is not readable as text.
    pub unsupported_content: bool,
}

impl<'a> VerifyInput<'a> {
    /// An input with just text and source (status 200 assumed absent, no
    /// title, no meta, density 1).
    pub fn text(text: &'a str, source: Source) -> Self {
        VerifyInput {
            status: None,
            title: None,
            text,
            raw_chars: None,
            meta_count: 0,
            source,
            unrendered_js_shell: false,
            unsupported_content: false,
        }
    }
}

/// The score, part by part (all points; `total` is what the thresholds
/// compare).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreBreakdown {
    /// `min(45, ⌊text_chars / 80⌋)`.
    pub length: u32,
    /// `min(20, ⌊density · 20⌋)`.
    pub density: u32,
    /// 8 when the title has at least 8 characters.
    pub title: u32,
    /// `min(15, 5 · meta_count)`.
    pub meta: u32,
    /// The source's trust points.
    pub trust: u32,
    /// Points the markers took off.
    pub marker_penalty: u32,
    /// The final score (0 when the HTTP status is ≥ 400).
    pub total: u32,
    /// Characters of normalised text.
    pub text_chars: usize,
    /// The density ratio (0–1).
    pub density_ratio: f64,
    /// Meta signals counted (0–4).
    pub meta_count: u8,
    /// The score was set to 0 because the HTTP status was ≥ 400.
    pub zeroed_by_status: bool,
}

impl ScoreBreakdown {
    pub(crate) fn empty() -> Self {
        ScoreBreakdown {
            length: 0,
            density: 0,
            title: 0,
            meta: 0,
            trust: 0,
            marker_penalty: 0,
            total: 0,
            text_chars: 0,
            density_ratio: 0.0,
            meta_count: 0,
            zeroed_by_status: false,
        }
    }
}

/// A verdict with everything that led to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assessment {
    /// The verdict.
    pub verdict: Verdict,
    /// `strong_ok` or `weak_ok`.
    pub ok: bool,
    /// The score, part by part.
    pub score: ScoreBreakdown,
    /// The markers found in title and text.
    pub markers: Vec<Marker>,
    /// Why this verdict, in a few words (`http-403`, `auth-marker`,
    /// `score≥50` …).
    pub reason: String,
}

impl Assessment {
    /// An assessment for a fetch that produced no page.
    pub fn failed(verdict: Verdict, reason: impl Into<String>) -> Self {
        Assessment {
            verdict,
            ok: verdict.is_ok(),
            score: ScoreBreakdown::empty(),
            markers: Vec::new(),
            reason: reason.into(),
        }
    }

    /// Whether this assessment ranks above `other` when choosing between two
    /// readings of the same page: an ok verdict first, then the higher score.
    pub fn better_than(&self, other: &Assessment) -> bool {
        (self.ok, self.score.total) > (other.ok, other.score.total)
    }
}

/// Scores a page and gives its verdict (see the module docs for the rules).
/// Never panics, whatever the input.
pub fn assess(input: &VerifyInput<'_>) -> Assessment {
    let text = normalize_whitespace(input.text);
    let title = normalize_whitespace(input.title.unwrap_or_default());
    let markers = find_markers(&format!("{title}\n{text}"));
    let mut score = score_parts(input, text.chars().count(), title.chars().count(), &markers);
    let (verdict, reason) = verdict_of(input, &markers, &mut score);
    Assessment {
        verdict,
        ok: verdict.is_ok(),
        score,
        markers,
        reason,
    }
}

/// The score, part by part: length, density, title, metadata and source
/// trust, less the markers' penalties.
fn score_parts(
    input: &VerifyInput<'_>,
    text_chars: usize,
    title_chars: usize,
    markers: &[Marker],
) -> ScoreBreakdown {
    let density_ratio = match input.raw_chars {
        Some(raw) if raw > 0 => (text_chars as f64 / raw as f64).clamp(0.0, 1.0),
        _ if text_chars > 0 => 1.0,
        _ => 0.0,
    };
    let length = (text_chars / CHARS_PER_LENGTH_POINT).min(LENGTH_MAX_POINTS as usize) as u32;
    let density =
        ((density_ratio * f64::from(DENSITY_MAX_POINTS)).floor() as u32).min(DENSITY_MAX_POINTS);
    let title_points = if title_chars >= TITLE_MIN_CHARS {
        TITLE_POINTS
    } else {
        0
    };
    let meta = (u32::from(input.meta_count) * META_POINTS_EACH).min(META_MAX_POINTS);
    let trust = input.source.trust();
    let raw_score = length + density + title_points + meta + trust;
    let marker_penalty: u32 = markers.iter().map(|m| m.kind.penalty()).sum();
    ScoreBreakdown {
        length,
        density,
        title: title_points,
        meta,
        trust,
        marker_penalty,
        total: raw_score.saturating_sub(marker_penalty),
        text_chars,
        density_ratio,
        meta_count: input.meta_count,
        zeroed_by_status: false,
    }
}

/// The verdict and its reason, first rule that applies: unsupported
/// content, an HTTP error status (score zeroed), a marker on a short page,
/// a JavaScript shell, degenerate text, then the score thresholds.
fn verdict_of(
    input: &VerifyInput<'_>,
    markers: &[Marker],
    score: &mut ScoreBreakdown,
) -> (Verdict, String) {
    let has = |kind: MarkerKind| markers.iter().any(|m| m.kind == kind);
    let text_chars = score.text_chars;
    if input.unsupported_content {
        score.total = 0;
        (Verdict::Unsupported, "unsupported-content-type".to_string())
    } else if let Some(status) = input.status.filter(|s| *s >= 400) {
        score.total = 0;
        score.zeroed_by_status = true;
        let verdict = match status {
            401 => Verdict::AuthRequired,
            402 => Verdict::Paywall,
            403 if !markers.is_empty() => Verdict::Challenge,
            403 | 429 => Verdict::Blocked,
            _ if has(MarkerKind::Auth) => Verdict::AuthRequired,
            _ if has(MarkerKind::Paywall) => Verdict::Paywall,
            _ if has(MarkerKind::Challenge) => Verdict::Challenge,
            _ => Verdict::Blocked,
        };
        (verdict, format!("http-{status}"))
    } else if has(MarkerKind::Auth) && text_chars < AUTH_MAX_TEXT_CHARS {
        (Verdict::AuthRequired, "auth-marker".to_string())
    } else if has(MarkerKind::Paywall) && text_chars < PAYWALL_MAX_TEXT_CHARS {
        (Verdict::Paywall, "paywall-marker".to_string())
    } else if has(MarkerKind::Challenge) && text_chars < CHALLENGE_MAX_TEXT_CHARS {
        (Verdict::Challenge, "challenge-marker".to_string())
    } else if input.unrendered_js_shell && score.total < STRONG_OK_MIN_SCORE {
        (Verdict::BrowserRequired, "javascript-shell".to_string())
    } else if let Some(why) = crate::degenerate_text(input.text) {
        (Verdict::Thin, format!("thin: {why}"))
    } else if score.total >= STRONG_OK_MIN_SCORE {
        (Verdict::StrongOk, format!("score≥{STRONG_OK_MIN_SCORE}"))
    } else if score.total >= WEAK_OK_MIN_SCORE {
        (Verdict::WeakOk, format!("score≥{WEAK_OK_MIN_SCORE}"))
    } else if score.marker_penalty > 0 {
        (Verdict::Blocked, format!("score<{WEAK_OK_MIN_SCORE}"))
    } else {
        // Nothing refused the page: it simply says too little.
        let why = format!("score<{WEAK_OK_MIN_SCORE} ({text_chars} characters of text)");
        (Verdict::Thin, format!("thin: {why}"))
    }
}

/// Serde for an optional name-valued enum ([`Source`], [`Verdict`]): `None`
/// is the string `"unknown"` (`#[serde(with = "or_unknown")]`; verify and
/// research reports).
pub mod or_unknown {
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes the value, or `"unknown"` for `None`.
    pub fn serialize<T: Serialize, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(value) => value.serialize(s),
            None => s.serialize_str("unknown"),
        }
    }

    /// Reads a value's name; `"unknown"` is `None`.
    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        let raw = String::deserialize(d)?;
        if raw == "unknown" {
            return Ok(None);
        }
        T::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&raw)).map(Some)
    }
}
