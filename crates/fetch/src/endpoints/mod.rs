//! Public endpoints: sites whose official API gives cleaner text than their
//! pages. [`Target::of`] recognises a page URL; the ladder then reads the
//! API at the matching [`Endpoints`] base instead of scraping.
//!
//! | Page | API |
//! |---|---|
//! | `github.com/<o>/<r>` | `api.github.com/repos/<o>/<r>` + `raw.githubusercontent.com/<o>/<r>/<branch>/README.md` |
//! | `github.com/<o>/<r>/issues/<n>`, `/pull/<n>` | `api.github.com/repos/<o>/<r>/issues/<n>` + `/comments?per_page=100` (≤ 3 pages) |
//! | `github.com/<o>/<r>/blob/<rev>/<path>` | `raw.githubusercontent.com/<o>/<r>/<rev>/<path>` |
//! | `<lang>.wikipedia.org/wiki/<title>` | Action API `action=query&prop=extracts&explaintext` (full article); REST `page/summary` as fallback |
//! | `arxiv.org/abs/<id>`, `/pdf/<id>` | `export.arxiv.org/api/query?id_list=<id>` (Atom) |
//! | `news.ycombinator.com/item?id=<n>` | `hn.algolia.com/api/v1/items/<n>` (≤ 200 comments, depth-first) |
//! | `reddit.com/r/<s>/comments/<id>/…`, `redd.it/<id>` | the same path + `.json?limit=500&depth=4&raw_json=1` |
//! | `npmjs.com/package/<name>[/v/<version>]` | `registry.npmjs.org/<name>` (`/<version>` or `/latest` when the document is too large) |
//! | `pypi.org/project/<name>[/<version>]` | `pypi.org/pypi/<name>[/<version>]/json` |
//! | `crates.io/crates/<name>` | `crates.io/api/v1/crates/<name>` + the version's README |
//!
//! Every API URL goes through the fetcher's URL guard, redirect checks and
//! size cap like a page. A failing endpoint never fails the fetch: the
//! ladder records why and goes on to plain HTTP.

mod arxiv;
mod github;
mod hackernews;
mod markup;
mod reddit;
mod registries;
mod wikipedia;

use std::fmt;

use serde::{Deserialize, Serialize};
use url::Url;

use super::Fetcher;
use super::error::FetchError;
use super::http::{self, Request};

/// Where the public APIs live. The defaults are the real services; tests
/// point them at a local server ([`Endpoints::all_at`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoints {
    /// GitHub REST API base (`https://api.github.com`).
    pub github_api: String,
    /// GitHub raw file base (`https://raw.githubusercontent.com`).
    pub github_raw: String,
    /// Wikipedia base; `{lang}` is replaced by the article's language
    /// (`https://{lang}.wikipedia.org`).
    pub wikipedia: String,
    /// arXiv export API base (`https://export.arxiv.org`).
    pub arxiv_api: String,
    /// Hacker News Algolia API base (`https://hn.algolia.com`).
    pub hn_algolia: String,
    /// Reddit base for `.json` thread listings (`https://www.reddit.com`).
    pub reddit: String,
    /// npm registry base (`https://registry.npmjs.org`).
    pub npm_registry: String,
    /// PyPI base (`https://pypi.org`).
    pub pypi: String,
    /// crates.io base (`https://crates.io`).
    pub crates_io: String,
}

impl Default for Endpoints {
    fn default() -> Self {
        Endpoints {
            github_api: "https://api.github.com".into(),
            github_raw: "https://raw.githubusercontent.com".into(),
            wikipedia: "https://{lang}.wikipedia.org".into(),
            arxiv_api: "https://export.arxiv.org".into(),
            hn_algolia: "https://hn.algolia.com".into(),
            reddit: "https://www.reddit.com".into(),
            npm_registry: "https://registry.npmjs.org".into(),
            pypi: "https://pypi.org".into(),
            crates_io: "https://crates.io".into(),
        }
    }
}

impl Endpoints {
    /// Every endpoint at one base URL (a local test server that serves all
    /// the APIs' paths).
    pub fn all_at(base: &str) -> Self {
        let b = base.trim_end_matches('/').to_string();
        Endpoints {
            github_api: b.clone(),
            github_raw: b.clone(),
            wikipedia: b.clone(),
            arxiv_api: b.clone(),
            hn_algolia: b.clone(),
            reddit: b.clone(),
            npm_registry: b.clone(),
            pypi: b.clone(),
            crates_io: b,
        }
    }
}

/// A page the public endpoints know how to read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "site", rename_all = "snake_case")]
pub enum Target {
    /// A GitHub repository's front page.
    GithubRepo {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
    },
    /// A GitHub issue or pull request.
    GithubIssue {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
        /// Issue or pull-request number.
        number: u64,
    },
    /// A file in a GitHub repository.
    GithubFile {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
        /// Branch, tag or commit.
        rev: String,
        /// Path in the repository.
        path: String,
    },
    /// A Wikipedia article.
    Wikipedia {
        /// Language subdomain (`en`, `zh` …).
        lang: String,
        /// Article title (spaces, not underscores).
        title: String,
    },
    /// An arXiv paper.
    Arxiv {
        /// The arXiv id (`2401.01234v2`, `hep-th/9901001`).
        id: String,
    },
    /// A Hacker News item.
    HackerNews {
        /// The item id.
        id: u64,
    },
    /// A Reddit thread.
    Reddit {
        /// The thread path (`/r/<sub>/comments/<id>/<slug>` or
        /// `/comments/<id>`), without `.json`.
        path: String,
    },
    /// An npm package.
    Npm {
        /// Package name (`left-pad`, `@scope/name`).
        name: String,
        /// A version, when the URL names one.
        version: Option<String>,
    },
    /// A PyPI project.
    Pypi {
        /// Project name.
        name: String,
        /// A version, when the URL names one.
        version: Option<String>,
    },
    /// A crates.io crate.
    Crates {
        /// Crate name.
        name: String,
    },
}

/// First path segments on github.com that are not owners.
const GITHUB_RESERVED: &[&str] = &[
    "about",
    "account",
    "apps",
    "codespaces",
    "collections",
    "customer-stories",
    "dashboard",
    "discussions",
    "enterprise",
    "events",
    "explore",
    "features",
    "issues",
    "join",
    "login",
    "logout",
    "marketplace",
    "new",
    "notifications",
    "organizations",
    "orgs",
    "pricing",
    "pulls",
    "readme",
    "search",
    "security",
    "settings",
    "signup",
    "site",
    "sponsors",
    "topics",
    "trending",
    "users",
];

fn segments(url: &Url) -> Vec<String> {
    url.path_segments()
        .map(|s| {
            s.filter(|p| !p.is_empty())
                .map(|p| {
                    percent_encoding::percent_decode_str(p)
                        .decode_utf8_lossy()
                        .into_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

impl Target {
    /// The endpoint target for a page URL, if a public endpoint reads it.
    pub fn of(url: &Url) -> Option<Target> {
        let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
        let parts = segments(url);
        let part = |i: usize| parts.get(i).map(String::as_str);
        match host.as_str() {
            "github.com" | "www.github.com" => github_target(&parts),
            "arxiv.org" | "www.arxiv.org" | "export.arxiv.org" => match part(0) {
                Some("abs" | "pdf") if parts.len() >= 2 => {
                    let id = parts[1..].join("/");
                    let id = id.strip_suffix(".pdf").unwrap_or(&id).to_string();
                    Some(Target::Arxiv { id })
                }
                _ => None,
            },
            "news.ycombinator.com" if part(0) == Some("item") => {
                let id = url
                    .query_pairs()
                    .find(|(k, _)| k == "id")
                    .and_then(|(_, v)| v.parse::<u64>().ok())?;
                Some(Target::HackerNews { id })
            }
            "redd.it" => part(0).map(|id| Target::Reddit {
                path: format!("/comments/{id}"),
            }),
            h if h == "reddit.com" || h.ends_with(".reddit.com") => {
                let pos = parts.iter().position(|p| p == "comments")?;
                parts.get(pos + 1)?;
                let mut path = String::new();
                for p in &parts {
                    path.push('/');
                    path.push_str(p);
                }
                let path = path.strip_suffix(".json").unwrap_or(&path).to_string();
                Some(Target::Reddit { path })
            }
            "www.npmjs.com" | "npmjs.com" if part(0) == Some("package") && parts.len() >= 2 => {
                let (name, rest) = if parts[1].starts_with('@') && parts.len() >= 3 {
                    (format!("{}/{}", parts[1], parts[2]), &parts[3..])
                } else {
                    (parts[1].clone(), &parts[2..])
                };
                let version = match rest {
                    [v, version, ..] if v == "v" => Some(version.clone()),
                    _ => None,
                };
                Some(Target::Npm { name, version })
            }
            "pypi.org" | "www.pypi.org" if part(0) == Some("project") && parts.len() >= 2 => {
                Some(Target::Pypi {
                    name: parts[1].clone(),
                    version: parts.get(2).cloned(),
                })
            }
            "crates.io" | "www.crates.io" if part(0) == Some("crates") && parts.len() >= 2 => {
                Some(Target::Crates {
                    name: parts[1].clone(),
                })
            }
            h => {
                let lang = wikipedia_lang(h)?;
                let title = if part(0) == Some("wiki") && parts.len() >= 2 {
                    parts[1..].join("/")
                } else {
                    url.query_pairs()
                        .find(|(k, _)| k == "title")
                        .map(|(_, v)| v.into_owned())?
                };
                let title = title.replace('_', " ").trim().to_string();
                (!title.is_empty()).then_some(Target::Wikipedia { lang, title })
            }
        }
    }

    /// A short label (`github-issue`, `wikipedia` …).
    pub fn label(&self) -> &'static str {
        match self {
            Target::GithubRepo { .. } => "github-repo",
            Target::GithubIssue { .. } => "github-issue",
            Target::GithubFile { .. } => "github-file",
            Target::Wikipedia { .. } => "wikipedia",
            Target::Arxiv { .. } => "arxiv",
            Target::HackerNews { .. } => "hacker-news",
            Target::Reddit { .. } => "reddit",
            Target::Npm { .. } => "npm",
            Target::Pypi { .. } => "pypi",
            Target::Crates { .. } => "crates-io",
        }
    }
}

fn github_target(parts: &[String]) -> Option<Target> {
    let owner = parts.first()?;
    let repo = parts.get(1)?;
    if GITHUB_RESERVED.contains(&owner.to_ascii_lowercase().as_str()) {
        return None;
    }
    let repo = repo.strip_suffix(".git").unwrap_or(repo).to_string();
    let owner = owner.clone();
    match parts.get(2).map(String::as_str) {
        None => Some(Target::GithubRepo { owner, repo }),
        Some("tree") if parts.len() <= 4 => Some(Target::GithubRepo { owner, repo }),
        Some("issues" | "pull") => {
            let number = parts.get(3)?.parse::<u64>().ok()?;
            Some(Target::GithubIssue {
                owner,
                repo,
                number,
            })
        }
        Some("blob") if parts.len() >= 5 => Some(Target::GithubFile {
            owner,
            repo,
            rev: parts[3].clone(),
            path: parts[4..].join("/"),
        }),
        _ => None,
    }
}

/// `en` for `en.wikipedia.org` / `en.m.wikipedia.org`.
fn wikipedia_lang(host: &str) -> Option<String> {
    let rest = host.strip_suffix(".wikipedia.org")?;
    let lang = rest.strip_suffix(".m").unwrap_or(rest);
    let ok = !lang.is_empty()
        && lang.len() <= 20
        && lang != "www"
        && lang
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    ok.then(|| lang.to_string())
}

/// What an endpoint produced.
#[derive(Debug, Clone, Default)]
pub(crate) struct EndpointPage {
    /// The main API URL called.
    pub(crate) api_url: String,
    pub(crate) title: Option<String>,
    pub(crate) text: String,
    /// Markdown, when it differs from the text.
    pub(crate) markdown: Option<String>,
    pub(crate) byline: Option<String>,
    pub(crate) published_at: Option<String>,
    pub(crate) modified_at: Option<String>,
    pub(crate) language: Option<String>,
    pub(crate) site_name: Option<String>,
    /// Parts that could not be read (the page is still usable).
    pub(crate) partial: Vec<String>,
}

/// Why an endpoint produced nothing.
#[derive(Debug, Clone)]
pub(crate) enum EndpointError {
    /// The API answered with an unexpected status.
    Status { url: String, status: u16 },
    /// The answer could not be read.
    Parse { url: String, detail: String },
    /// The request failed.
    Fetch(FetchError),
}

impl fmt::Display for EndpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndpointError::Status { url, status } => write!(f, "{url} answered HTTP {status}"),
            EndpointError::Parse { url, detail } => {
                write!(f, "could not read the answer of {url}: {detail}")
            }
            EndpointError::Fetch(e) => write!(f, "{e}"),
        }
    }
}

impl From<FetchError> for EndpointError {
    fn from(e: FetchError) -> Self {
        EndpointError::Fetch(e)
    }
}

/// A body as text (lossy UTF-8).
pub(crate) struct ApiText {
    pub(crate) status: u16,
    pub(crate) body: String,
    pub(crate) truncated: bool,
}

/// The endpoint readers' access to the network: the fetcher's client,
/// guard, limits and API user agent.
pub(crate) struct Api<'a> {
    fetcher: &'a Fetcher,
}

impl<'a> Api<'a> {
    pub(crate) fn new(fetcher: &'a Fetcher) -> Self {
        Api { fetcher }
    }

    pub(crate) fn endpoints(&self) -> &Endpoints {
        &self.fetcher.config().endpoints
    }

    /// Builds `base` + path segments (each percent-encoded) + query.
    pub(crate) fn url(
        &self,
        base: &str,
        segments: &[&str],
        query: &[(&str, &str)],
    ) -> Result<Url, EndpointError> {
        let mut url = Url::parse(base).map_err(|e| EndpointError::Parse {
            url: base.to_string(),
            detail: format!("the endpoint base is not a URL: {e}"),
        })?;
        {
            let mut path = url.path_segments_mut().map_err(|()| EndpointError::Parse {
                url: base.to_string(),
                detail: "the endpoint base cannot take a path".into(),
            })?;
            path.pop_if_empty();
            path.extend(segments);
        }
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        Ok(url)
    }

    /// GETs `url`; any status is returned.
    pub(crate) async fn get(&self, url: &Url, accept: &str) -> Result<ApiText, EndpointError> {
        let config = self.fetcher.config();
        let checked = config
            .guard
            .check(url.as_str())
            .map_err(|error| EndpointError::Fetch(FetchError::Blocked { error }))?;
        let github = Url::parse(&config.endpoints.github_api).ok();
        let bearer = match (&config.github_token, github) {
            (Some(token), Some(gh))
                if gh.host_str() == checked.host_str()
                    && gh.port_or_known_default() == checked.port_or_known_default() =>
            {
                Some(token.as_str())
            }
            _ => None,
        };
        let response = http::get(
            self.fetcher.client(),
            &config.guard,
            config.max_redirects,
            config.timeout,
            Request {
                url: checked,
                accept,
                user_agent: &config.api_user_agent,
                bearer,
                body_limit: config.api_body_limit,
                extra_headers: &[],
            },
        )
        .await?;
        Ok(ApiText {
            status: response.status,
            body: String::from_utf8_lossy(&response.body).into_owned(),
            truncated: response.truncated,
        })
    }

    /// GETs `url` and requires a 200 answer.
    pub(crate) async fn get_ok(&self, url: &Url, accept: &str) -> Result<ApiText, EndpointError> {
        let text = self.get(url, accept).await?;
        if text.status != 200 {
            return Err(EndpointError::Status {
                url: url.to_string(),
                status: text.status,
            });
        }
        Ok(text)
    }

    /// GETs `url` as JSON (200 required).
    pub(crate) async fn json(&self, url: &Url) -> Result<serde_json::Value, EndpointError> {
        let text = self.get_ok(url, http::ACCEPT_JSON).await?;
        if text.truncated {
            return Err(EndpointError::Parse {
                url: url.to_string(),
                detail: format!(
                    "the answer is larger than the API size cap ({} bytes)",
                    self.fetcher.config().api_body_limit
                ),
            });
        }
        serde_json::from_str(&text.body).map_err(|e| EndpointError::Parse {
            url: url.to_string(),
            detail: format!("invalid JSON: {e}"),
        })
    }
}

/// Reads `target` through its endpoint.
pub(crate) async fn read(api: &Api<'_>, target: &Target) -> Result<EndpointPage, EndpointError> {
    match target {
        Target::GithubRepo { owner, repo } => github::repo(api, owner, repo).await,
        Target::GithubIssue {
            owner,
            repo,
            number,
        } => github::issue(api, owner, repo, *number).await,
        Target::GithubFile {
            owner,
            repo,
            rev,
            path,
        } => github::file(api, owner, repo, rev, path).await,
        Target::Wikipedia { lang, title } => wikipedia::article(api, lang, title).await,
        Target::Arxiv { id } => arxiv::paper(api, id).await,
        Target::HackerNews { id } => hackernews::item(api, *id).await,
        Target::Reddit { path } => reddit::thread(api, path).await,
        Target::Npm { name, version } => registries::npm(api, name, version.as_deref()).await,
        Target::Pypi { name, version } => registries::pypi(api, name, version.as_deref()).await,
        Target::Crates { name } => registries::crate_io(api, name).await,
    }
}

/// A JSON string field, trimmed, `None` when missing or empty.
pub(crate) fn str_of(v: &serde_json::Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(serde_json::Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Seconds since the epoch as RFC 3339 (UTC).
pub(crate) fn unix_to_rfc3339(secs: f64) -> Option<String> {
    if !secs.is_finite() {
        return None;
    }
    chrono::DateTime::from_timestamp(secs.trunc() as i64, 0)
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}
