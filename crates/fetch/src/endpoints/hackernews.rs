//! Hacker News: the story and its comments from the Algolia API, flattened
//! depth-first (at most [`MAX_COMMENTS`]).

use serde_json::Value;

use super::markup::fragment_to_text;
use super::{Api, EndpointError, EndpointPage, str_of};

/// Comments kept at most.
pub(super) const MAX_COMMENTS: usize = 200;

pub(super) async fn item(api: &Api<'_>, id: u64) -> Result<EndpointPage, EndpointError> {
    let ids = id.to_string();
    let url = api.url(
        &api.endpoints().hn_algolia,
        &["api", "v1", "items", &ids],
        &[],
    )?;
    let v = api.json(&url).await?;
    let title = str_of(&v, "title");
    let author = str_of(&v, "author");
    let mut text = story_text(&v, title.as_deref(), author.as_deref());
    let mut page = EndpointPage {
        api_url: url.to_string(),
        title: title.or_else(|| Some(format!("Hacker News item {id}"))),
        byline: author,
        published_at: str_of(&v, "created_at"),
        site_name: Some("Hacker News".into()),
        ..EndpointPage::default()
    };
    let (kept, total) = push_comments(&v, &mut text);
    if total > kept {
        page.partial.push(format!(
            "{kept} of {total} comments kept (limit {MAX_COMMENTS})"
        ));
    }
    page.text = text.trim().to_string();
    Ok(page)
}

/// The story as text: its title, a line of points, author and date, its
/// link and its own text.
fn story_text(v: &Value, title: Option<&str>, author: Option<&str>) -> String {
    let mut text = String::new();
    if let Some(t) = title {
        text.push_str(&format!("# {t}\n\n"));
    }
    let mut line = Vec::new();
    if let Some(p) = v.get("points").and_then(Value::as_i64) {
        line.push(format!("{p} points"));
    }
    if let Some(a) = author {
        line.push(format!("by {a}"));
    }
    if let Some(at) = str_of(v, "created_at") {
        line.push(at);
    }
    if !line.is_empty() {
        text.push_str(&line.join(" · "));
        text.push_str("\n\n");
    }
    if let Some(link) = str_of(v, "url") {
        text.push_str(&format!("Link: {link}\n\n"));
    }
    if let Some(body) = str_of(v, "text") {
        text.push_str(&fragment_to_text(&body));
        text.push_str("\n\n");
    }
    text
}

/// Appends the comments depth-first, pre-order, children in the API's
/// order (at most [`MAX_COMMENTS`]); returns `(kept, total)`.
fn push_comments(v: &Value, text: &mut String) -> (usize, usize) {
    let mut kept = 0usize;
    let mut total = 0usize;
    let mut stack: Vec<(&Value, usize)> = v
        .get("children")
        .and_then(Value::as_array)
        .map(|c| c.iter().rev().map(|n| (n, 1usize)).collect())
        .unwrap_or_default();
    while let Some((node, depth)) = stack.pop() {
        if let Some(children) = node.get("children").and_then(Value::as_array) {
            for c in children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        let Some(body) = str_of(node, "text") else {
            continue; // deleted or dead
        };
        total += 1;
        if kept >= MAX_COMMENTS {
            continue;
        }
        kept += 1;
        let who = str_of(node, "author").unwrap_or_else(|| "(unknown)".into());
        let when = str_of(node, "created_at").unwrap_or_default();
        text.push_str(&format!(
            "---\n\n{who} ({when}, depth {depth}):\n\n{}\n\n",
            fragment_to_text(&body)
        ));
    }
    (kept, total)
}
