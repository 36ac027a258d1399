//! Finding references in one text (an issue body, a comment): links,
//! bare URLs, `#123`, `owner/repo#123`, commit SHAs, and the words before
//! them that say what kind of reference it is ("Duplicate of", "Fixes",
//! "See also").

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::Relation;
use super::github::{LinkKind, Target, ThreadId, classify, valid_owner, valid_repo};

/// A link whose target and anchor text are known (an `<a>` element or a
/// Markdown link), at `range` in the text.
#[derive(Clone, Debug)]
pub(crate) struct Link {
    pub range: Range<usize>,
    pub href: String,
    pub text: String,
}

/// What a found reference points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    Thread {
        owner: String,
        repo: String,
        number: u64,
        kind: Option<LinkKind>,
    },
    Commit {
        owner: String,
        repo: String,
        sha: String,
    },
    Url(String),
}

/// One occurrence in a text.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub found: Found,
    pub range: Range<usize>,
    pub anchor: Option<String>,
    pub relation: Relation,
}

/// Phrases that, right before a reference, say what it is. Matched at the
/// end of the text before the reference (lowercased).
const DUPLICATE_MARKERS: &str = r"(?:duplicate of|duplicates|dupe of|dup of|closed as (?:a )?duplicate(?: of)?|closing as (?:a )?duplicate(?: of)?|marked as (?:a )?duplicate(?: of)?|same as)";
const CLOSING_MARKERS: &str = r"(?:close|closes|closed|fix|fixes|fixed|resolve|resolves|resolved)";
const RELATED_MARKERS: &str = r"(?:related to|related|relates to|see also|see|refs|ref|references|reference|cf\.|part of|follow-up to|follow up to|followup to|follow-up of|blocked by|depends on)";

static DUPLICATE_BEFORE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\b{DUPLICATE_MARKERS}\s*:?\s*$")).expect("valid regex"));
static CLOSING_BEFORE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\b{CLOSING_MARKERS}\s*:?\s*$")).expect("valid regex"));
static RELATED_BEFORE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\b{RELATED_MARKERS}\s*:?\s*$")).expect("valid regex"));
/// Between two references of one list ("Fixes #1, #2 and #3").
static LIST_GAP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\s,;]*(?:and|&|or)?[\s,;]*$").expect("valid regex"));

static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"https?://[^\s<>"'`\\]+"#).expect("valid regex"));
static ISSUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100}))?#([0-9]{1,7})\b")
        .expect("valid regex")
});
static GH_ISSUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bGH-([0-9]{1,7})\b").expect("valid regex"));
static SHA: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100})@)?\b([0-9a-fA-F]{7,40})\b",
    )
    .expect("valid regex")
});
/// Words after which any 7–40 hex digits are a commit, even all digits.
static SHA_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:commit|commits|sha|sha1|revision|rev|cherry-picked from|reverts?|landed in|fixed in|merged in)\b[\s:]*$")
        .expect("valid regex")
});

/// Markdown: fenced code blocks, inline code spans, inline links, link
/// reference definitions and their uses.
static FENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^[ \t]{0,3}(```|~~~)").expect("valid regex"));
static INLINE_CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`[^`\n]+`").expect("valid regex"));
static MD_LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\[([^\]\n]{0,300})\]\(\s*<?(https?://[^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)"#)
        .expect("valid regex")
});
static MD_REF_DEF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]{0,3}\[([^\]\n]{1,100})\]:[ \t]*<?(https?://[^\s>]+)>?")
        .expect("valid regex")
});
static MD_REF_USE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[([^\]\n]{1,300})\]\[([^\]\n]{0,100})\]").expect("valid regex"));

/// What the text is, for the scanner.
pub(crate) struct Scope<'a> {
    /// The thread the text belongs to: `#123` is resolved against its repo.
    pub thread: Option<&'a ThreadId>,
    /// "Fixes #1" closes #1 (a pull request's body); elsewhere it relates.
    pub closing_keywords_close: bool,
}

/// Scans GitHub-flavoured Markdown (the API's `body` fields): code is
/// skipped, Markdown links keep their anchor text.
pub(crate) fn scan_markdown(text: &str, scope: &Scope<'_>) -> Vec<Hit> {
    let code = markdown_code(text);
    let mut links: Vec<Link> = Vec::new();
    for c in MD_LINK.captures_iter(text) {
        let m = c.get(0).expect("match");
        if overlaps(&code, &m.range()) {
            continue;
        }
        links.push(Link {
            range: m.range(),
            href: c[2].to_owned(),
            text: c[1].trim().to_owned(),
        });
    }
    // Reference-style links: each use is an occurrence with its text; a
    // definition nobody uses is one occurrence of its own.
    let mut seen_labels = std::collections::HashSet::new();
    for d in MD_REF_DEF.captures_iter(text) {
        let m = d.get(0).expect("match");
        if overlaps(&code, &m.range()) {
            continue;
        }
        let label = d[1].trim().to_lowercase();
        let href = d[2].to_owned();
        // The first definition of a label wins (CommonMark).
        let duplicate = !seen_labels.insert(label.clone());
        let mut used = duplicate;
        for u in MD_REF_USE.captures_iter(text) {
            let um = u.get(0).expect("match");
            let use_label = if u[2].trim().is_empty() { &u[1] } else { &u[2] };
            if !duplicate
                && use_label.trim().to_lowercase() == label
                && !overlaps(&code, &um.range())
                && !links.iter().any(|l| l.range == um.range())
            {
                used = true;
                links.push(Link {
                    range: um.range(),
                    href: href.clone(),
                    text: u[1].trim().to_owned(),
                });
            }
        }
        // The definition line itself is not scanned again for a bare URL.
        links.push(Link {
            range: m.range(),
            href: if used { String::new() } else { href },
            text: String::new(),
        });
    }
    scan(text, &code, &links, scope)
}

/// Scans text with known links and code ranges (from HTML).
pub(crate) fn scan(
    text: &str,
    code: &[Range<usize>],
    links: &[Link],
    scope: &Scope<'_>,
) -> Vec<Hit> {
    // Ranges from a caller that do not fit the text are ignored.
    let valid = |r: &Range<usize>| {
        r.start <= r.end
            && r.end <= text.len()
            && text.is_char_boundary(r.start)
            && text.is_char_boundary(r.end)
    };
    let mut pass = Pass {
        text,
        scope,
        hits: Vec::new(),
        taken: code.iter().filter(|r| valid(r)).cloned().collect(),
    };
    pass.known_links(links.iter().filter(|l| valid(&l.range)));
    pass.bare_urls();
    pass.issue_numbers();
    if let Some(t) = scope.thread {
        pass.gh_numbers(t);
    }
    pass.shas();
    let mut hits = pass.hits;
    hits.sort_by_key(|h| h.range.start);
    apply_markers(text, &mut hits, scope);
    hits
}

/// One scan of a text: the hits so far, and the ranges already taken (code,
/// links, earlier hits), which later kinds of reference must not overlap.
struct Pass<'t> {
    text: &'t str,
    scope: &'t Scope<'t>,
    hits: Vec<Hit>,
    taken: Vec<Range<usize>>,
}

impl Pass<'_> {
    /// A plain mention at `range`, which is taken from now on.
    fn mention(&mut self, found: Found, range: Range<usize>) {
        self.hits.push(Hit {
            found,
            range: range.clone(),
            anchor: None,
            relation: Relation::Mention,
        });
        self.taken.push(range);
    }

    /// Links whose target is known; an empty `href` only takes its range.
    fn known_links<'l>(&mut self, links: impl Iterator<Item = &'l Link>) {
        for l in links {
            self.taken.push(l.range.clone());
            if l.href.is_empty() {
                continue;
            }
            if let Some(found) = found_for_url(&l.href) {
                self.hits.push(Hit {
                    found,
                    range: l.range.clone(),
                    anchor: (!l.text.is_empty() && l.text != l.href).then(|| l.text.clone()),
                    relation: Relation::Mention,
                });
            }
        }
    }

    /// Bare http(s) URLs, without trailing punctuation.
    fn bare_urls(&mut self) {
        let text = self.text;
        for m in URL.find_iter(text) {
            let range = m.start()..m.start() + trim_url(m.as_str()).len();
            if overlaps(&self.taken, &range) {
                continue;
            }
            match found_for_url(&text[range.clone()]) {
                Some(found) => self.mention(found, range),
                None => self.taken.push(range),
            }
        }
    }

    /// `#123` (in the thread's repository) and `owner/repo#123`.
    fn issue_numbers(&mut self) {
        let text = self.text;
        for c in ISSUE.captures_iter(text) {
            let m = c.get(0).expect("match");
            let before = text[..m.start()].chars().next_back();
            if before.is_some_and(|ch| {
                ch.is_alphanumeric() || matches!(ch, '/' | '&' | '#' | '_' | '.' | '-')
            }) || overlaps(&self.taken, &m.range())
            {
                continue;
            }
            let Ok(number) = c[3].parse::<u64>() else {
                continue;
            };
            if number == 0 {
                continue;
            }
            let (owner, repo) = match (c.get(1), c.get(2), self.scope.thread) {
                (Some(o), Some(r), _) if valid_owner(o.as_str()) && valid_repo(r.as_str()) => {
                    (o.as_str().to_owned(), r.as_str().to_owned())
                }
                (None, None, Some(t)) => (t.owner.clone(), t.repo.clone()),
                _ => continue,
            };
            let found = Found::Thread {
                owner,
                repo,
                number,
                kind: None,
            };
            self.mention(found, m.range());
        }
    }

    /// `GH-123`, in thread `t`'s repository.
    fn gh_numbers(&mut self, t: &ThreadId) {
        for c in GH_ISSUE.captures_iter(self.text) {
            let m = c.get(0).expect("match");
            let Ok(number) = c[1].parse::<u64>() else {
                continue;
            };
            if number == 0 || overlaps(&self.taken, &m.range()) {
                continue;
            }
            let found = Found::Thread {
                owner: t.owner.clone(),
                repo: t.repo.clone(),
                number,
                kind: None,
            };
            self.mention(found, m.range());
        }
    }

    /// Commit SHAs, bare or as `owner/repo@sha`.
    fn shas(&mut self) {
        let text = self.text;
        for c in SHA.captures_iter(text) {
            let m = c.get(0).expect("match");
            if overlaps(&self.taken, &m.range()) || !is_commit(text, &c) {
                continue;
            }
            let (owner, repo) = match (c.get(1), c.get(2), self.scope.thread) {
                (Some(o), Some(r), _) => (o.as_str().to_owned(), r.as_str().to_owned()),
                (None, None, Some(t)) => (t.owner.clone(), t.repo.clone()),
                _ => (String::new(), String::new()),
            };
            let found = Found::Commit {
                owner,
                repo,
                sha: c[3].to_ascii_lowercase(),
            };
            self.mention(found, m.range());
        }
    }
}

/// Whether a [`SHA`] match is a commit: not part of a longer token, and
/// either qualified (`owner/repo@`), after a commit word, or hex that
/// looks like a hash.
fn is_commit(text: &str, c: &regex::Captures<'_>) -> bool {
    let m = c.get(0).expect("match");
    let sha = c.get(3).expect("group").as_str();
    let before = text[..m.start()].chars().next_back();
    let after = text[m.end()..].chars().next();
    if before.is_some_and(|ch| {
        matches!(ch, '#' | '/' | '@' | '-' | '_' | '.' | '=' | ':') && c.get(1).is_none()
    }) || after.is_some_and(|ch| matches!(ch, '-' | '_' | '@' | '/') || ch.is_alphanumeric())
    {
        return false;
    }
    // Bare hex needs letters and at least two digits: plain numbers
    // and words such as "facade1" or "deadbeef" are not commits.
    let has_letter = sha.bytes().any(|b| b.is_ascii_alphabetic());
    let has_digit = sha.bytes().filter(u8::is_ascii_digit).count() >= 2;
    let lowercase = !sha.bytes().any(|b| b.is_ascii_uppercase());
    let explicit = c.get(1).is_some();
    let context = SHA_CONTEXT.is_match(&text[line_start(text, m.start())..m.start()]);
    explicit || context || (has_letter && has_digit && lowercase)
}

/// Sets each thread reference's relation from the words just before it,
/// and lets a list ("Fixes #1, #2 and #3") share the first one's.
fn apply_markers(text: &str, hits: &mut [Hit], scope: &Scope<'_>) {
    let mut prev: Option<(usize, Relation, bool)> = None; // (end, relation, is_thread)
    for h in hits.iter_mut() {
        let is_thread = matches!(h.found, Found::Thread { .. });
        let window_start = line_start(text, h.range.start)
            .max(prev.map_or(0, |p| p.0))
            .max(floor_char(text, h.range.start.saturating_sub(60)))
            .min(h.range.start);
        let before = text[window_start..h.range.start].to_lowercase();
        if is_thread {
            if DUPLICATE_BEFORE.is_match(&before) {
                h.relation = Relation::DuplicateOf;
            } else if CLOSING_BEFORE.is_match(&before) {
                h.relation = if scope.closing_keywords_close {
                    Relation::Closes
                } else {
                    Relation::Related
                };
            } else if RELATED_BEFORE.is_match(&before) {
                h.relation = Relation::Related;
            } else if let Some((end, rel, true)) = prev
                && rel != Relation::Mention
                && end <= h.range.start
                && LIST_GAP.is_match(&text[end..h.range.start])
            {
                h.relation = rel;
            }
        }
        prev = Some((h.range.end, h.relation, is_thread));
    }
}

fn found_for_url(url: &str) -> Option<Found> {
    Some(match classify(url)? {
        Target::Thread {
            owner,
            repo,
            number,
            kind,
        } => Found::Thread {
            owner,
            repo,
            number,
            kind: Some(kind),
        },
        Target::Commit { owner, repo, sha } => Found::Commit { owner, repo, sha },
        Target::Other => Found::Url(url.to_owned()),
    })
}

/// A bare URL without trailing punctuation or an unbalanced closing
/// bracket.
pub(crate) fn trim_url(url: &str) -> &str {
    let mut s = url;
    loop {
        let before = s;
        s = s.trim_end_matches(['.', ',', ';', ':', '!', '?', '*', '_', '~']);
        for (open, close) in [('(', ')'), ('[', ']'), ('{', '}')] {
            if s.ends_with(close) && s.matches(close).count() > s.matches(open).count() {
                s = &s[..s.len() - 1];
            }
        }
        if s == before {
            return s;
        }
    }
}

/// Fenced code blocks and inline code spans of Markdown text.
fn markdown_code(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    for c in FENCE.captures_iter(text) {
        let m = c.get(0).expect("match");
        let marker = c.get(1).expect("group").as_str();
        match open {
            None => open = Some((m.start(), marker)),
            Some((start, mk)) if mk == marker => {
                let end = text[m.end()..]
                    .find('\n')
                    .map_or(text.len(), |i| m.end() + i);
                out.push(start..end);
                open = None;
            }
            Some(_) => {}
        }
    }
    if let Some((start, _)) = open {
        out.push(start..text.len());
    }
    let fenced = out.clone();
    for m in INLINE_CODE.find_iter(text) {
        if !overlaps(&fenced, &m.range()) {
            out.push(m.range());
        }
    }
    out
}

fn overlaps(ranges: &[Range<usize>], r: &Range<usize>) -> bool {
    ranges.iter().any(|x| x.start < r.end && r.start < x.end)
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Longest stretch of the occurrence itself kept in a context.
const MAX_MATCH_CHARS: usize = 120;

/// About `radius` characters on each side of `range`, whitespace
/// collapsed; an occurrence longer than 120 characters (a long link text)
/// is cut with `…`.
pub(crate) fn context(text: &str, range: &Range<usize>, radius: usize) -> String {
    if let Some((cut, _)) = text[range.clone()].char_indices().nth(MAX_MATCH_CHARS) {
        let short = range.start..range.start + cut;
        let mut c = context_around(text, &short, radius, false);
        c.push('…');
        return c;
    }
    context_around(text, range, radius, true)
}

fn context_around(text: &str, range: &Range<usize>, radius: usize, after: bool) -> String {
    let start = text[..range.start]
        .char_indices()
        .rev()
        .nth(radius.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let end = if after {
        text[range.end..]
            .char_indices()
            .nth(radius)
            .map_or(text.len(), |(i, _)| range.end + i)
    } else {
        range.end
    };
    text[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_trailing_punctuation() {
        assert_eq!(trim_url("https://x.dev/a."), "https://x.dev/a");
        assert_eq!(trim_url("https://x.dev/a)"), "https://x.dev/a");
        assert_eq!(
            trim_url("https://en.wikipedia.org/wiki/Rust_(programming_language)"),
            "https://en.wikipedia.org/wiki/Rust_(programming_language)"
        );
    }

    #[test]
    fn context_is_bounded() {
        let text = "a".repeat(100) + "XYZ" + &"b".repeat(100);
        let c = context(&text, &(100..103), 40);
        assert_eq!(c.len(), 83);
    }
}
