//! GitHub: repositories (metadata + README), issues and pull requests
//! (body + comments), files (raw).

use serde_json::Value;

use super::{Api, EndpointError, EndpointPage, str_of};
use crate::http::ACCEPT_ANY;

/// Comments per page (the API's maximum).
const COMMENTS_PER_PAGE: usize = 100;
/// Comment pages read at most.
const MAX_COMMENT_PAGES: usize = 3;

pub(super) async fn repo(
    api: &Api<'_>,
    owner: &str,
    repo: &str,
) -> Result<EndpointPage, EndpointError> {
    let ep = api.endpoints();
    let url = api.url(&ep.github_api, &["repos", owner, repo], &[])?;
    let meta = api.json(&url).await?;
    let full_name = str_of(&meta, "full_name").unwrap_or_else(|| format!("{owner}/{repo}"));
    let description = str_of(&meta, "description");
    let branch = str_of(&meta, "default_branch").unwrap_or_else(|| "HEAD".to_string());

    let mut facts: Vec<String> = Vec::new();
    let mut push_num = |label: &str, key: &str| {
        if let Some(n) = meta.get(key).and_then(Value::as_u64) {
            facts.push(format!("{label}: {n}"));
        }
    };
    push_num("Stars", "stargazers_count");
    push_num("Forks", "forks_count");
    push_num("Open issues", "open_issues_count");
    if let Some(lang) = str_of(&meta, "language") {
        facts.push(format!("Language: {lang}"));
    }
    if let Some(license) = meta.get("license").and_then(|l| str_of(l, "spdx_id")) {
        facts.push(format!("License: {license}"));
    }
    if meta.get("archived").and_then(Value::as_bool) == Some(true) {
        facts.push("Archived".to_string());
    }
    let topics: Vec<&str> = meta
        .get("topics")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();

    let mut page = EndpointPage {
        api_url: url.to_string(),
        title: Some(match &description {
            Some(d) => format!("{full_name}: {d}"),
            None => full_name.clone(),
        }),
        published_at: str_of(&meta, "created_at"),
        modified_at: str_of(&meta, "pushed_at").or_else(|| str_of(&meta, "updated_at")),
        byline: meta.get("owner").and_then(|o| str_of(o, "login")),
        site_name: Some("GitHub".into()),
        ..EndpointPage::default()
    };

    let mut text = format!("# {full_name}\n\n");
    if let Some(d) = &description {
        text.push_str(d);
        text.push_str("\n\n");
    }
    if !facts.is_empty() {
        text.push_str(&facts.join(" · "));
        text.push_str("\n\n");
    }
    if !topics.is_empty() {
        text.push_str(&format!("Topics: {}\n\n", topics.join(", ")));
    }
    if let Some(home) = str_of(&meta, "homepage") {
        text.push_str(&format!("Homepage: {home}\n\n"));
    }
    match readme(api, owner, repo, &branch).await {
        Ok(Some(readme)) => text.push_str(readme.trim()),
        Ok(None) => page.partial.push("the repository has no README".into()),
        Err(e) => page.partial.push(format!("README: {e}")),
    }
    page.text = text.trim().to_string();
    Ok(page)
}

/// The README: `README.md` on the default branch from the raw host, else
/// whatever README the API finds.
async fn readme(
    api: &Api<'_>,
    owner: &str,
    repo: &str,
    branch: &str,
) -> Result<Option<String>, EndpointError> {
    let ep = api.endpoints();
    let raw = api.url(&ep.github_raw, &[owner, repo, branch, "README.md"], &[])?;
    let answer = api.get(&raw, ACCEPT_ANY).await?;
    if answer.status == 200 {
        return Ok(Some(answer.body));
    }
    let via_api = api.url(&ep.github_api, &["repos", owner, repo, "readme"], &[])?;
    let answer = api.get(&via_api, "application/vnd.github.raw").await?;
    match answer.status {
        200 => Ok(Some(answer.body)),
        404 => Ok(None),
        status => Err(EndpointError::Status {
            url: via_api.to_string(),
            status,
        }),
    }
}

pub(super) async fn issue(
    api: &Api<'_>,
    owner: &str,
    repo: &str,
    number: u64,
) -> Result<EndpointPage, EndpointError> {
    let ep = api.endpoints();
    let n = number.to_string();
    let url = api.url(&ep.github_api, &["repos", owner, repo, "issues", &n], &[])?;
    let issue = api.json(&url).await?;
    let title = str_of(&issue, "title").unwrap_or_else(|| format!("#{number}"));
    let kind = if issue.get("pull_request").is_some() {
        "pull request"
    } else {
        "issue"
    };
    let author = issue.get("user").and_then(|u| str_of(u, "login"));

    let mut page = EndpointPage {
        api_url: url.to_string(),
        title: Some(format!("{title} · {kind} #{number} · {owner}/{repo}")),
        byline: author.clone(),
        published_at: str_of(&issue, "created_at"),
        modified_at: str_of(&issue, "updated_at"),
        site_name: Some("GitHub".into()),
        ..EndpointPage::default()
    };
    let mut text = format!("# {title}\n\n{owner}/{repo} {kind} #{number}");
    text.push_str(&opened_line(
        &issue,
        author.as_deref(),
        page.published_at.as_deref(),
    ));
    if let Some(body) = str_of(&issue, "body") {
        text.push_str(&body);
        text.push_str("\n\n");
    }
    // Without a count, comments are read anyway (the count may be missing).
    let expected = issue
        .get("comments")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    if expected > 0 {
        let segments = ["repos", owner, repo, "issues", &n, "comments"];
        push_comments(api, &segments, &mut text, &mut page.partial).await?;
    }
    page.text = text.trim().to_string();
    Ok(page)
}

/// The rest of the issue's first line: ` (state), opened by A on DATE`,
/// then a blank line.
fn opened_line(issue: &Value, author: Option<&str>, opened: Option<&str>) -> String {
    let mut line = String::new();
    let state = str_of(issue, "state").unwrap_or_default();
    if !state.is_empty() {
        line.push_str(&format!(" ({state})"));
    }
    if let Some(a) = author {
        line.push_str(&format!(", opened by {a}"));
    }
    if let Some(at) = opened {
        line.push_str(&format!(" on {at}"));
    }
    line.push_str("\n\n");
    line
}

/// Appends the comments, page by page (at most [`MAX_COMMENT_PAGES`]), to
/// `text`. A page that fails ends the reading with a `partial` note, as
/// does reaching the page limit.
async fn push_comments(
    api: &Api<'_>,
    segments: &[&str],
    text: &mut String,
    partial: &mut Vec<String>,
) -> Result<(), EndpointError> {
    let base = &api.endpoints().github_api;
    for page_no in 1..=MAX_COMMENT_PAGES {
        let p = page_no.to_string();
        let per = COMMENTS_PER_PAGE.to_string();
        let curl = api.url(base, segments, &[("per_page", &per), ("page", &p)])?;
        let comments = match api.json(&curl).await {
            Ok(v) => v,
            Err(e) => {
                partial.push(format!("comments page {page_no}: {e}"));
                break;
            }
        };
        let list = comments.as_array().cloned().unwrap_or_default();
        for c in &list {
            text.push_str(&comment_text(c));
        }
        if list.len() < COMMENTS_PER_PAGE {
            break;
        }
        if page_no == MAX_COMMENT_PAGES {
            partial.push(format!(
                "only the first {} comments were read",
                MAX_COMMENT_PAGES * COMMENTS_PER_PAGE
            ));
        }
    }
    Ok(())
}

/// One comment: `who commented on DATE:` and its body.
fn comment_text(c: &Value) -> String {
    let who = c
        .get("user")
        .and_then(|u| str_of(u, "login"))
        .unwrap_or_else(|| "(unknown)".into());
    let when = str_of(c, "created_at").unwrap_or_default();
    let body = str_of(c, "body").unwrap_or_default();
    format!("---\n\n{who} commented on {when}:\n\n{body}\n\n")
}

pub(super) async fn file(
    api: &Api<'_>,
    owner: &str,
    repo: &str,
    rev: &str,
    path: &str,
) -> Result<EndpointPage, EndpointError> {
    let ep = api.endpoints();
    let mut segments = vec![owner, repo, rev];
    segments.extend(path.split('/').filter(|s| !s.is_empty()));
    let url = api.url(&ep.github_raw, &segments, &[])?;
    let answer = api.get_ok(&url, ACCEPT_ANY).await?;
    let mut page = EndpointPage {
        api_url: url.to_string(),
        title: Some(format!("{path} at {rev} · {owner}/{repo}")),
        text: answer.body.trim().to_string(),
        site_name: Some("GitHub".into()),
        ..EndpointPage::default()
    };
    if answer.truncated {
        page.partial
            .push("the file is larger than the API size cap and was cut".into());
    }
    Ok(page)
}
