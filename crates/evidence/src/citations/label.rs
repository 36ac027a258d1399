//! Evidence labels: the ranking of what a conclusion rests on, measured >
//! source code > documentation > community > speculation (实测 > 源码 >
//! 文档 > 社区 > 推测).

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// What a piece of evidence is, strongest first: measured (实测) > source
/// code (源码) > documentation (文档) > community (社区) > speculation (推测).
///
/// `Ord` follows that rank: `Measured` is the greatest, so the maximum of a
/// set is its strongest label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceLabel {
    /// 实测: observed by running something (a benchmark, a test, a probe).
    Measured,
    /// 源码: read in source code.
    SourceCode,
    /// 文档: official documentation, specifications, RFCs, papers.
    Docs,
    /// 社区: forums, Q&A, blogs, issue threads, news and other pages.
    Community,
    /// 推测: inferred, not observed anywhere.
    Speculation,
}

/// Kind hints, matched case-insensitively against the whole hint.
const KIND_HINTS: &[(&str, EvidenceLabel)] = &[
    ("measured", EvidenceLabel::Measured),
    ("measurement", EvidenceLabel::Measured),
    ("benchmark", EvidenceLabel::Measured),
    ("bench", EvidenceLabel::Measured),
    ("experiment", EvidenceLabel::Measured),
    ("test-run", EvidenceLabel::Measured),
    ("probe", EvidenceLabel::Measured),
    ("实测", EvidenceLabel::Measured),
    ("测试", EvidenceLabel::Measured),
    ("source", EvidenceLabel::SourceCode),
    ("source-code", EvidenceLabel::SourceCode),
    ("source_code", EvidenceLabel::SourceCode),
    ("code", EvidenceLabel::SourceCode),
    ("源码", EvidenceLabel::SourceCode),
    ("源代码", EvidenceLabel::SourceCode),
    ("docs", EvidenceLabel::Docs),
    ("doc", EvidenceLabel::Docs),
    ("documentation", EvidenceLabel::Docs),
    ("spec", EvidenceLabel::Docs),
    ("specification", EvidenceLabel::Docs),
    ("manual", EvidenceLabel::Docs),
    ("reference", EvidenceLabel::Docs),
    ("rfc", EvidenceLabel::Docs),
    ("paper", EvidenceLabel::Docs),
    ("changelog", EvidenceLabel::Docs),
    ("release-notes", EvidenceLabel::Docs),
    ("文档", EvidenceLabel::Docs),
    ("官方文档", EvidenceLabel::Docs),
    ("community", EvidenceLabel::Community),
    ("forum", EvidenceLabel::Community),
    ("blog", EvidenceLabel::Community),
    ("discussion", EvidenceLabel::Community),
    ("issue", EvidenceLabel::Community),
    ("q&a", EvidenceLabel::Community),
    ("answer", EvidenceLabel::Community),
    ("news", EvidenceLabel::Community),
    ("social", EvidenceLabel::Community),
    ("社区", EvidenceLabel::Community),
    ("论坛", EvidenceLabel::Community),
    ("博客", EvidenceLabel::Community),
    ("speculation", EvidenceLabel::Speculation),
    ("inference", EvidenceLabel::Speculation),
    ("guess", EvidenceLabel::Speculation),
    ("推测", EvidenceLabel::Speculation),
    ("推断", EvidenceLabel::Speculation),
];

/// How a URL rule matches.
#[derive(Debug, Clone, Copy)]
enum UrlRule {
    /// The host (without `www.`) is this or a subdomain of it.
    Host(&'static str),
    /// The host's first label.
    FirstLabel(&'static str),
    /// The host is this and the path contains the segment sequence.
    HostPath(&'static str, &'static str),
    /// Any host whose path contains this (lowercased).
    Path(&'static str),
    /// The path ends with this file extension.
    Extension(&'static str),
}

/// URL rules, first match wins (so source-code paths on github.com win over
/// its issue threads, and those over documentation hosts).
const URL_RULES: &[(UrlRule, EvidenceLabel)] = &[
    // Source code.
    (
        UrlRule::Host("raw.githubusercontent.com"),
        EvidenceLabel::SourceCode,
    ),
    (
        UrlRule::Host("gist.githubusercontent.com"),
        EvidenceLabel::SourceCode,
    ),
    (UrlRule::Host("gist.github.com"), EvidenceLabel::SourceCode),
    (UrlRule::Host("sourcegraph.com"), EvidenceLabel::SourceCode),
    (UrlRule::Host("googlesource.com"), EvidenceLabel::SourceCode),
    (UrlRule::Host("git.kernel.org"), EvidenceLabel::SourceCode),
    (UrlRule::Host("searchfox.org"), EvidenceLabel::SourceCode),
    (UrlRule::Path("/blob/"), EvidenceLabel::SourceCode),
    (UrlRule::Path("/-/blob/"), EvidenceLabel::SourceCode),
    (UrlRule::Path("/tree/"), EvidenceLabel::SourceCode),
    (UrlRule::Path("/commit/"), EvidenceLabel::SourceCode),
    (UrlRule::Path("/raw/"), EvidenceLabel::SourceCode),
    (
        UrlRule::HostPath("docs.rs", "/src/"),
        EvidenceLabel::SourceCode,
    ),
    (
        UrlRule::HostPath("codeberg.org", "/src/"),
        EvidenceLabel::SourceCode,
    ),
    (UrlRule::Extension("rs"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("py"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("go"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("c"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("h"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("cc"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("cpp"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("hpp"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("ts"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("java"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("kt"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("swift"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("rb"), EvidenceLabel::SourceCode),
    (UrlRule::Extension("zig"), EvidenceLabel::SourceCode),
    // Community threads on code hosts (before the documentation rules).
    (UrlRule::Path("/issues/"), EvidenceLabel::Community),
    (UrlRule::Path("/pull/"), EvidenceLabel::Community),
    (UrlRule::Path("/discussions/"), EvidenceLabel::Community),
    (UrlRule::Path("/merge_requests/"), EvidenceLabel::Community),
    // Documentation, specifications, papers.
    (UrlRule::FirstLabel("docs"), EvidenceLabel::Docs),
    (UrlRule::FirstLabel("doc"), EvidenceLabel::Docs),
    (UrlRule::FirstLabel("developer"), EvidenceLabel::Docs),
    (UrlRule::FirstLabel("developers"), EvidenceLabel::Docs),
    (UrlRule::FirstLabel("learn"), EvidenceLabel::Docs),
    (UrlRule::FirstLabel("man"), EvidenceLabel::Docs),
    (UrlRule::Host("readthedocs.io"), EvidenceLabel::Docs),
    (UrlRule::Host("readthedocs.org"), EvidenceLabel::Docs),
    (UrlRule::Host("gitbook.io"), EvidenceLabel::Docs),
    (UrlRule::Host("docs.rs"), EvidenceLabel::Docs),
    (UrlRule::Host("doc.rust-lang.org"), EvidenceLabel::Docs),
    (UrlRule::Host("pkg.go.dev"), EvidenceLabel::Docs),
    (UrlRule::Host("man7.org"), EvidenceLabel::Docs),
    (UrlRule::Host("rfc-editor.org"), EvidenceLabel::Docs),
    (UrlRule::Host("datatracker.ietf.org"), EvidenceLabel::Docs),
    (UrlRule::Host("w3.org"), EvidenceLabel::Docs),
    (UrlRule::Host("whatwg.org"), EvidenceLabel::Docs),
    (UrlRule::Host("tc39.es"), EvidenceLabel::Docs),
    (UrlRule::Host("peps.python.org"), EvidenceLabel::Docs),
    (UrlRule::Host("arxiv.org"), EvidenceLabel::Docs),
    (UrlRule::Host("openreview.net"), EvidenceLabel::Docs),
    (UrlRule::Host("aclanthology.org"), EvidenceLabel::Docs),
    (UrlRule::Host("dl.acm.org"), EvidenceLabel::Docs),
    (UrlRule::Host("ieeexplore.ieee.org"), EvidenceLabel::Docs),
    (UrlRule::Host("nvd.nist.gov"), EvidenceLabel::Docs),
    (UrlRule::Host("cve.org"), EvidenceLabel::Docs),
    (UrlRule::Host("cve.mitre.org"), EvidenceLabel::Docs),
    (UrlRule::Path("/docs/"), EvidenceLabel::Docs),
    (UrlRule::Path("/doc/"), EvidenceLabel::Docs),
    (UrlRule::Path("/documentation/"), EvidenceLabel::Docs),
    (UrlRule::Path("/reference/"), EvidenceLabel::Docs),
    (UrlRule::Path("/manual/"), EvidenceLabel::Docs),
    (UrlRule::Path("/spec/"), EvidenceLabel::Docs),
    (UrlRule::Path("/rfc"), EvidenceLabel::Docs),
    (UrlRule::Path("/changelog"), EvidenceLabel::Docs),
    (UrlRule::Path("/release-notes"), EvidenceLabel::Docs),
];

fn host_is(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|p| p.ends_with('.'))
}

fn rule_matches(rule: UrlRule, host: &str, path: &str) -> bool {
    match rule {
        UrlRule::Host(d) => host_is(host, d),
        UrlRule::FirstLabel(l) => host.split('.').count() > 2 && host.split('.').next() == Some(l),
        UrlRule::HostPath(d, p) => host_is(host, d) && path.contains(p),
        UrlRule::Path(p) => path.contains(p),
        UrlRule::Extension(ext) => path
            .rsplit('/')
            .next()
            .and_then(|last| last.rsplit_once('.'))
            .is_some_and(|(stem, e)| !stem.is_empty() && e == ext),
    }
}

impl EvidenceLabel {
    /// Every label, strongest first.
    pub const ALL: [EvidenceLabel; 5] = [
        EvidenceLabel::Measured,
        EvidenceLabel::SourceCode,
        EvidenceLabel::Docs,
        EvidenceLabel::Community,
        EvidenceLabel::Speculation,
    ];

    /// 5 for measured … 1 for speculation.
    pub const fn rank(self) -> u8 {
        match self {
            EvidenceLabel::Measured => 5,
            EvidenceLabel::SourceCode => 4,
            EvidenceLabel::Docs => 3,
            EvidenceLabel::Community => 2,
            EvidenceLabel::Speculation => 1,
        }
    }

    /// The Chinese tag: `实测`, `源码`, `文档`, `社区`, `推测`.
    pub const fn zh(self) -> &'static str {
        match self {
            EvidenceLabel::Measured => "实测",
            EvidenceLabel::SourceCode => "源码",
            EvidenceLabel::Docs => "文档",
            EvidenceLabel::Community => "社区",
            EvidenceLabel::Speculation => "推测",
        }
    }

    /// The English name: `measured`, `source_code`, `docs`, `community`,
    /// `speculation`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EvidenceLabel::Measured => "measured",
            EvidenceLabel::SourceCode => "source_code",
            EvidenceLabel::Docs => "docs",
            EvidenceLabel::Community => "community",
            EvidenceLabel::Speculation => "speculation",
        }
    }

    /// The label of a kind hint (`benchmark`, `源码`, `docs`, `forum`,
    /// `推测` …), matched case-insensitively; `None` for an unknown hint.
    pub fn from_kind(kind: &str) -> Option<Self> {
        let k = kind.trim().to_lowercase();
        KIND_HINTS
            .iter()
            .find(|(hint, _)| *hint == k)
            .map(|&(_, label)| label)
    }

    /// The label of a URL by its host and path (source-code paths and
    /// hosts, then issue/PR threads, then documentation hosts and paths);
    /// any other http(s) page is community. `None` for a string that is not
    /// an absolute URL with a host.
    pub fn from_url(url: &str) -> Option<Self> {
        let parsed = url::Url::parse(url.trim()).ok()?;
        let host = parsed.host_str()?.to_ascii_lowercase();
        let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
        let path = parsed.path().to_ascii_lowercase();
        Some(
            URL_RULES
                .iter()
                .find(|(rule, _)| rule_matches(*rule, &host, &path))
                .map_or(EvidenceLabel::Community, |&(_, label)| label),
        )
    }

    /// The label from what is known: a recognised kind hint wins, then the
    /// URL ([`Self::from_url`]); with neither, the claim rests on nothing
    /// observed, so it is speculation.
    pub fn classify(url: Option<&str>, kind: Option<&str>) -> Self {
        kind.and_then(Self::from_kind)
            .or_else(|| url.and_then(Self::from_url))
            .unwrap_or(EvidenceLabel::Speculation)
    }
}

impl PartialOrd for EvidenceLabel {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for EvidenceLabel {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl fmt::Display for EvidenceLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.zh())
    }
}
