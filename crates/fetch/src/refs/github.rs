//! GitHub addresses: which thread a URL names, and what a link points at.

use serde::{Deserialize, Serialize};
use url::Url;

/// An issue or a pull request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadKind {
    /// An issue (`/issues/N`).
    Issue,
    /// A pull request (`/pull/N`).
    Pr,
}

/// A GitHub issue or pull request.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ThreadId {
    /// Repository owner (user or organisation).
    pub owner: String,
    /// Repository name.
    pub repo: String,
    /// Issue or pull request number.
    pub number: u64,
    /// Issue or pull request, as far as the address says.
    pub kind: ThreadKind,
}

/// The REST API addresses a thread's references are read from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadApiUrls {
    /// `GET /repos/{owner}/{repo}/issues/{number}` (issues and PRs alike).
    pub issue: String,
    /// Comments, 100 per page (follow the `Link` header for more).
    pub comments: String,
    /// Timeline events (cross-references, commits), 100 per page.
    pub timeline: String,
}

impl ThreadId {
    /// `owner/repo`.
    pub fn repo_slug(&self) -> String {
        format!("{}/{}", self.owner, self.repo)
    }

    /// The thread's web address.
    pub fn html_url(&self) -> String {
        let seg = match self.kind {
            ThreadKind::Issue => "issues",
            ThreadKind::Pr => "pull",
        };
        format!(
            "https://github.com/{}/{}/{seg}/{}",
            self.owner, self.repo, self.number
        )
    }

    /// The API addresses to fetch for [`super::refs_from_api`].
    pub fn api_urls(&self) -> ThreadApiUrls {
        let base = format!(
            "https://api.github.com/repos/{}/{}/issues/{}",
            self.owner, self.repo, self.number
        );
        ThreadApiUrls {
            comments: format!("{base}/comments?per_page=100"),
            timeline: format!("{base}/timeline?per_page=100"),
            issue: base,
        }
    }

    /// Whether `owner/repo#number` names this thread (case-insensitive
    /// owner and repo, as GitHub treats them).
    pub(crate) fn is(&self, owner: &str, repo: &str, number: u64) -> bool {
        self.number == number
            && self.owner.eq_ignore_ascii_case(owner)
            && self.repo.eq_ignore_ascii_case(repo)
    }
}

/// Parses a GitHub issue or pull request address: the web form
/// (`https://github.com/o/r/issues/1`, `/pull/1`, with any suffix such as
/// `/files` or `#issuecomment-…`) or the API form
/// (`https://api.github.com/repos/o/r/issues/1`, `/pulls/1`).
pub fn parse_thread_url(url: &str) -> Option<ThreadId> {
    match classify(url)? {
        Target::Thread {
            owner,
            repo,
            number,
            kind: LinkKind::Issue,
        } => Some(ThreadId {
            owner,
            repo,
            number,
            kind: ThreadKind::Issue,
        }),
        Target::Thread {
            owner,
            repo,
            number,
            kind: LinkKind::Pr,
        } => Some(ThreadId {
            owner,
            repo,
            number,
            kind: ThreadKind::Pr,
        }),
        _ => None,
    }
}

/// What a thread link is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinkKind {
    Issue,
    Pr,
    Discussion,
}

/// What a URL points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    Thread {
        owner: String,
        repo: String,
        number: u64,
        kind: LinkKind,
    },
    Commit {
        owner: String,
        repo: String,
        sha: String,
    },
    Other,
}

/// Classifies an absolute http(s) URL; `None` when it does not parse.
pub(crate) fn classify(url: &str) -> Option<Target> {
    let u = Url::parse(url).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    let host = u.host_str()?.to_ascii_lowercase();
    let segs: Vec<&str> = u.path_segments()?.filter(|s| !s.is_empty()).collect();
    let web = host == "github.com" || host == "www.github.com";
    let api = host == "api.github.com";
    let (owner, repo, rest): (&str, &str, &[&str]) = if web && segs.len() >= 4 {
        (segs[0], segs[1], &segs[2..])
    } else if api && segs.len() >= 5 && segs[0] == "repos" {
        (segs[1], segs[2], &segs[3..])
    } else {
        return Some(Target::Other);
    };
    if !valid_owner(owner) || !valid_repo(repo) {
        return Some(Target::Other);
    }
    let thread = |kind| {
        rest.get(1)
            .and_then(|n| n.parse::<u64>().ok())
            .filter(|n| *n > 0)
            .map(|number| Target::Thread {
                owner: owner.to_owned(),
                repo: repo.to_owned(),
                number,
                kind,
            })
    };
    let commit = |sha: Option<&&str>| {
        sha.filter(|s| is_sha(s)).map(|s| Target::Commit {
            owner: owner.to_owned(),
            repo: repo.to_owned(),
            sha: s.to_ascii_lowercase(),
        })
    };
    let found = match rest[0] {
        "issues" => thread(LinkKind::Issue),
        "pull" | "pulls" => {
            // `/pull/N/commits/SHA` is a commit of that pull request.
            if rest.get(2) == Some(&"commits") && rest.len() >= 4 {
                commit(rest.get(3)).or_else(|| thread(LinkKind::Pr))
            } else {
                thread(LinkKind::Pr)
            }
        }
        "discussions" => thread(LinkKind::Discussion),
        "commit" | "commits" => commit(rest.get(1)),
        _ => None,
    };
    Some(found.unwrap_or(Target::Other))
}

/// 7 to 40 hex digits.
pub(crate) fn is_sha(s: &str) -> bool {
    (7..=40).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// GitHub user and organisation names: letters, digits, single hyphens.
pub(crate) fn valid_owner(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 39
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !s.starts_with('-')
}

/// Repository names: letters, digits, `.`, `_`, `-`.
pub(crate) fn valid_repo(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_urls_parse() {
        let t = parse_thread_url("https://github.com/kepano/defuddle/issues/56").unwrap();
        assert_eq!(
            (t.repo_slug(), t.number, t.kind),
            ("kepano/defuddle".into(), 56, ThreadKind::Issue)
        );
        let p = parse_thread_url("https://github.com/o/r/pull/7/files#diff-1").unwrap();
        assert_eq!(p.kind, ThreadKind::Pr);
        let a =
            parse_thread_url("https://api.github.com/repos/octokit/octokit.rb/issues/25").unwrap();
        assert_eq!(a.repo, "octokit.rb");
        assert!(parse_thread_url("https://github.com/o/r/tree/main").is_none());
        assert!(parse_thread_url("https://example.com/o/r/issues/1").is_none());
    }

    #[test]
    fn commit_links_classify() {
        assert_eq!(
            classify("https://github.com/o/r/commit/ABCDEF1234567").unwrap(),
            Target::Commit {
                owner: "o".into(),
                repo: "r".into(),
                sha: "abcdef1234567".into()
            }
        );
        assert!(matches!(
            classify("https://github.com/o/r/pull/3/commits/abcdef1").unwrap(),
            Target::Commit { .. }
        ));
        assert_eq!(
            classify("https://github.com/o/r/commit/xyz").unwrap(),
            Target::Other
        );
    }
}
