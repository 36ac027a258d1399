//! Reddit: a thread's post and comments from its `.json` listing
//! (`?limit=500&depth=4&raw_json=1`), flattened depth-first.

use serde_json::Value;
use url::Url;

use super::{Api, EndpointError, EndpointPage, str_of, unix_to_rfc3339};

/// Comments kept at most (the `limit` asked for).
pub(super) const MAX_COMMENTS: usize = 500;

pub(super) async fn thread(api: &Api<'_>, path: &str) -> Result<EndpointPage, EndpointError> {
    let url = listing_url(api, path)?;
    let v = api.json(&url).await?;
    let parse_err = |detail: &str| EndpointError::Parse {
        url: url.to_string(),
        detail: detail.to_string(),
    };
    let listings = v
        .as_array()
        .ok_or_else(|| parse_err("expected [post listing, comment listing]"))?;
    let post = listings
        .first()
        .and_then(|l| l.pointer("/data/children/0/data"))
        .ok_or_else(|| parse_err("no post in the first listing"))?;
    let title = str_of(post, "title");
    let author = str_of(post, "author");
    let published = post
        .get("created_utc")
        .and_then(Value::as_f64)
        .and_then(unix_to_rfc3339);
    let mut text = post_text(
        post,
        title.as_deref(),
        author.as_deref(),
        published.as_deref(),
    );
    let mut page = EndpointPage {
        api_url: url.to_string(),
        title,
        byline: author.map(|a| format!("u/{a}")),
        published_at: published,
        site_name: Some("Reddit".into()),
        ..EndpointPage::default()
    };
    let more = push_comments(listings.get(1), &mut text);
    if more > 0 {
        page.partial.push(format!(
            "{more} more comments were not loaded by the listing"
        ));
    }
    page.text = text.trim().to_string();
    Ok(page)
}

/// The thread's `.json` listing URL (the last path segment gets `.json`).
fn listing_url(api: &Api<'_>, path: &str) -> Result<Url, EndpointError> {
    let mut segments: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    if let Some(last) = segments.last_mut() {
        last.push_str(".json");
    }
    let segs: Vec<&str> = segments.iter().map(String::as_str).collect();
    api.url(
        &api.endpoints().reddit,
        &segs,
        &[("limit", "500"), ("depth", "4"), ("raw_json", "1")],
    )
}

/// The post as text: its title, a line of subreddit, author, date and
/// score, the link of a link post, and the self text.
fn post_text(
    post: &Value,
    title: Option<&str>,
    author: Option<&str>,
    published: Option<&str>,
) -> String {
    let mut text = String::new();
    if let Some(t) = title {
        text.push_str(&format!("# {t}\n\n"));
    }
    let subreddit = str_of(post, "subreddit_name_prefixed")
        .or_else(|| str_of(post, "subreddit").map(|s| format!("r/{s}")));
    let mut line = Vec::new();
    if let Some(s) = subreddit {
        line.push(s);
    }
    if let Some(a) = author {
        line.push(format!("posted by u/{a}"));
    }
    if let Some(p) = published {
        line.push(p.to_string());
    }
    if let Some(score) = post.get("score").and_then(Value::as_i64) {
        line.push(format!("{score} points"));
    }
    if !line.is_empty() {
        text.push_str(&line.join(" · "));
        text.push_str("\n\n");
    }
    if post.get("is_self").and_then(Value::as_bool) == Some(false)
        && let Some(link) = str_of(post, "url")
    {
        text.push_str(&format!("Link: {link}\n\n"));
    }
    if let Some(body) = str_of(post, "selftext") {
        text.push_str(&body);
        text.push_str("\n\n");
    }
    text
}

/// Appends the comment listing depth-first (at most [`MAX_COMMENTS`]) to
/// `text`; returns how many comments the listing left unloaded (`more`).
fn push_comments(listing: Option<&Value>, text: &mut String) -> u64 {
    let mut kept = 0usize;
    let mut more = 0u64;
    let mut stack: Vec<(&Value, usize)> = listing
        .and_then(|l| l.pointer("/data/children"))
        .and_then(Value::as_array)
        .map(|c| c.iter().rev().map(|n| (n, 1usize)).collect())
        .unwrap_or_default();
    while let Some((node, depth)) = stack.pop() {
        let kind = node.get("kind").and_then(Value::as_str).unwrap_or_default();
        let data = node.get("data").unwrap_or(&Value::Null);
        if kind == "more" {
            more += data.get("count").and_then(Value::as_u64).unwrap_or(0);
            continue;
        }
        if kind != "t1" {
            continue;
        }
        if let Some(children) = data
            .pointer("/replies/data/children")
            .and_then(Value::as_array)
        {
            for c in children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        if kept >= MAX_COMMENTS {
            continue;
        }
        let Some(body) = str_of(data, "body") else {
            continue;
        };
        kept += 1;
        text.push_str(&comment_text(data, depth, &body));
    }
    more
}

/// One comment: `u/author (date, N points, depth D):` and its body.
fn comment_text(data: &Value, depth: usize, body: &str) -> String {
    let who = str_of(data, "author").unwrap_or_else(|| "[deleted]".into());
    let when = data
        .get("created_utc")
        .and_then(Value::as_f64)
        .and_then(unix_to_rfc3339)
        .unwrap_or_default();
    let score = data
        .get("score")
        .and_then(Value::as_i64)
        .map(|s| format!(", {s} points"))
        .unwrap_or_default();
    format!("---\n\nu/{who} ({when}{score}, depth {depth}):\n\n{body}\n\n")
}
