//! Instructions and how they judge one result: targets, `site=`, actions,
//! and the precedence Brave documents when several instructions match.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::pattern::{Pattern, fold_case};
use crate::authority::host_of;

/// What an instruction does to the results it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "action", content = "strength", rename_all = "snake_case")]
pub enum Action {
    /// `boost` / `boost=N` (N = 1–10; `boost` alone is 1).
    Boost(u8),
    /// `downrank` / `downrank=N` (N = 1–10; `downrank` alone is 1).
    Downrank(u8),
    /// `discard`.
    Discard,
}

/// Which text of a result an instruction's pattern is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// `inurl` (the default): the URL.
    #[default]
    Url,
    /// `intitle`: the title.
    Title,
    /// `indescription`: the snippet.
    Description,
    /// `incontent`: the page text when the subject has one, else the
    /// snippet (search results carry no page text).
    Content,
}

impl Target {
    /// The option's name (`inurl`, `intitle`, `indescription`, `incontent`).
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Url => "inurl",
            Target::Title => "intitle",
            Target::Description => "indescription",
            Target::Content => "incontent",
        }
    }
}

/// One parsed instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    pub(crate) line: usize,
    pub(crate) text: String,
    pub(crate) pattern: Option<Pattern>,
    pub(crate) site: Option<String>,
    pub(crate) target: Target,
    pub(crate) action: Action,
}

impl Instruction {
    /// The 1-based line it was written on.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The instruction as written (trimmed).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its pattern, if any.
    pub fn pattern(&self) -> Option<&Pattern> {
        self.pattern.as_ref()
    }

    /// Its `site=` domain (lowercased), if any.
    pub fn site(&self) -> Option<&str> {
        self.site.as_deref()
    }

    /// The text its pattern is matched against.
    pub fn target(&self) -> Target {
        self.target
    }

    /// What it does.
    pub fn action(&self) -> Action {
        self.action
    }

    /// Whether it is the generic `$discard` (no pattern, no site), which
    /// drops every result no other instruction matches.
    pub fn is_generic_discard(&self) -> bool {
        self.action == Action::Discard && self.pattern.is_none() && self.site.is_none()
    }

    /// Whether it matches `subject`.
    pub fn matches(&self, subject: &Subject) -> bool {
        if let Some(site) = &self.site
            && !subject.on_site(site)
        {
            return false;
        }
        let Some(pattern) = &self.pattern else {
            return true;
        };
        match self.target {
            Target::Url => subject.urls.iter().any(|u| pattern.matches_chars(u)),
            Target::Title => pattern.matches_chars(&subject.title),
            Target::Description => pattern.matches_chars(&subject.description),
            Target::Content => pattern.matches_chars(
                subject
                    .content
                    .as_deref()
                    .unwrap_or(subject.description.as_slice()),
            ),
        }
    }
}

/// The texts of one result that instructions are matched against, folded
/// once. Build with [`Subject::new`].
///
/// URL patterns are tried against every URL of the subject — for a search
/// result, the URL as the engine returned it **and** its canonical URL — and
/// match when they match either (Brave does not document whether URLs are
/// normalised first; trying both means a rule written for either form
/// works: `?ref=` is only in the engine's URL, the canonical one drops it).
/// `site=` is checked against the hosts of the same URLs.
#[derive(Debug, Clone, PartialEq)]
pub struct Subject {
    urls: Vec<Vec<char>>,
    hosts: Vec<String>,
    title: Vec<char>,
    description: Vec<char>,
    content: Option<Vec<char>>,
}

impl Subject {
    /// A subject with one URL, a title and a description (snippet).
    pub fn new(url: &str, title: &str, description: &str) -> Self {
        let mut subject = Subject {
            urls: Vec::new(),
            hosts: Vec::new(),
            title: fold_case(title),
            description: fold_case(description),
            content: None,
        };
        subject.add_url(url);
        subject
    }

    /// The subject of a fused search result: its engine URL, its canonical
    /// URL, title and snippet (no page text).
    pub fn of_result(result: &crate::result::SearchResult) -> Self {
        Subject::new(&result.original_url, &result.title, &result.snippet).with_url(&result.url)
    }

    /// Another URL of the same result (e.g. the canonical one).
    pub fn with_url(mut self, url: &str) -> Self {
        self.add_url(url);
        self
    }

    /// The page text, for `incontent`.
    pub fn with_content(mut self, content: &str) -> Self {
        self.content = Some(fold_case(content));
        self
    }

    fn add_url(&mut self, url: &str) {
        let folded = fold_case(url);
        if !self.urls.contains(&folded) {
            self.urls.push(folded);
        }
        let host = normalise_host(host_of(url));
        if !host.is_empty() && !self.hosts.iter().any(|h| *h == host) {
            self.hosts.push(host.into_owned());
        }
    }

    /// The folded texts instructions of target slot `t` are matched
    /// against (0 URLs, 1 title, 2 description, 3 content or else the
    /// description), as strings for the prefilter.
    pub(crate) fn texts_for(&self, t: usize) -> Vec<String> {
        let text = |chars: &[char]| chars.iter().collect::<String>();
        match t {
            0 => self.urls.iter().map(|u| text(u)).collect(),
            1 => vec![text(&self.title)],
            2 => vec![text(&self.description)],
            _ => vec![text(
                self.content
                    .as_deref()
                    .unwrap_or(self.description.as_slice()),
            )],
        }
    }

    /// The hosts of the subject's URLs, lowercased, without a trailing dot.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// Whether a host of the subject is `site` or one of its subdomains
    /// (a suffix on a label boundary: `site=github.io` covers
    /// `user.github.io`, `site=rs` covers `docs.rs`). A leading `www.` of
    /// the host is ignored.
    pub fn on_site(&self, site: &str) -> bool {
        self.hosts.iter().any(|h| host_on_site(h, site))
    }
}

pub(crate) fn host_on_site(host: &str, site: &str) -> bool {
    let check = |h: &str| {
        h == site
            || h.strip_suffix(site)
                .is_some_and(|prefix| prefix.ends_with('.'))
    };
    check(host) || host.strip_prefix("www.").is_some_and(check)
}

fn normalise_host(host: &str) -> Cow<'_, str> {
    let h = host.trim_end_matches('.');
    if h.chars().any(char::is_uppercase) {
        Cow::Owned(h.to_lowercase())
    } else {
        Cow::Borrowed(h)
    }
}

/// What a goggle decides for one result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// No instruction matched (and there is no generic `$discard`).
    Neutral,
    /// Boosted with this strength by the instruction at index `rule`.
    Boost {
        /// 1–10.
        strength: u8,
        /// Index into [`super::Goggle::instructions`].
        rule: usize,
    },
    /// Downranked with this strength by the instruction at index `rule`.
    Downrank {
        /// 1–10.
        strength: u8,
        /// Index into [`super::Goggle::instructions`].
        rule: usize,
    },
    /// Discarded by the instruction at index `rule`: a matching `discard`
    /// instruction, or — when no instruction matched — the goggle's (first)
    /// generic `$discard`.
    Discard {
        /// Index into [`super::Goggle::instructions`].
        rule: usize,
    },
}

impl Verdict {
    /// The instruction that decided, if any.
    pub fn rule(&self) -> Option<usize> {
        match *self {
            Verdict::Neutral => None,
            Verdict::Boost { rule, .. }
            | Verdict::Downrank { rule, .. }
            | Verdict::Discard { rule } => Some(rule),
        }
    }

    /// Whether the result is dropped.
    pub fn is_discard(&self) -> bool {
        matches!(self, Verdict::Discard { .. })
    }
}

/// Collects matching instructions and applies Brave's precedence:
/// a non-generic `discard` > the strongest `boost` > the weakest
/// `downrank` > (nothing matched) the generic `$discard` if any > neutral.
/// Equal strengths: the instruction written first.
#[derive(Debug, Default)]
pub(crate) struct Precedence {
    discard: Option<usize>,
    boost: Option<(u8, usize)>,
    downrank: Option<(u8, usize)>,
}

impl Precedence {
    pub(crate) fn add(&mut self, index: usize, action: Action) {
        match action {
            Action::Discard => {
                if self.discard.is_none_or(|d| index < d) {
                    self.discard = Some(index);
                }
            }
            Action::Boost(n) => {
                if self
                    .boost
                    .is_none_or(|(m, i)| n > m || (n == m && index < i))
                {
                    self.boost = Some((n, index));
                }
            }
            Action::Downrank(n) => {
                if self
                    .downrank
                    .is_none_or(|(m, i)| n < m || (n == m && index < i))
                {
                    self.downrank = Some((n, index));
                }
            }
        }
    }

    pub(crate) fn verdict(&self, generic_discard: Option<usize>) -> Verdict {
        if let Some(rule) = self.discard {
            Verdict::Discard { rule }
        } else if let Some((strength, rule)) = self.boost {
            Verdict::Boost { strength, rule }
        } else if let Some((strength, rule)) = self.downrank {
            Verdict::Downrank { strength, rule }
        } else if let Some(rule) = generic_discard {
            Verdict::Discard { rule }
        } else {
            Verdict::Neutral
        }
    }
}
