//! Tolerant readers for model output: completion bodies as JSON or SSE, `<think>` blocks, JSON inside
//! code fences or prose, and result rows whose links must be http(s).

use ferret_core::{EngineError, EngineResponse};
use serde_json::Value;

use crate::http::HitCollector;
use crate::http::clock::normalize_iso;

/// The assistant text of a chat-completions body: plain JSON
/// (`choices[0].message.content`, content parts, or legacy `text`), or an
/// SSE stream of `data:` lines (deltas joined, up to `data: [DONE]`).
pub fn completion_text(body: &[u8]) -> Result<String, EngineError> {
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return Err(EngineError::parse("the completion body is empty"));
    }
    if trimmed.lines().any(|l| l.trim_start().starts_with("data:")) {
        return sse_text(trimmed);
    }
    let value: Value = serde_json::from_str(trimmed).map_err(|e| {
        EngineError::parse(format!(
            "the completion body is neither JSON nor an SSE stream ({e})"
        ))
    })?;
    if let Some(err) = value.get("error") {
        let msg = err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| err.to_string());
        return Err(EngineError::parse(format!(
            "the model answered an error: {msg}"
        )));
    }
    choice_text(&value).ok_or_else(|| {
        EngineError::parse("the completion has no choices[0].message.content".to_string())
    })
}

fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let joined: String = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            Some(joined)
        }
        _ => None,
    }
}

fn choice_text(value: &Value) -> Option<String> {
    let choice = value.get("choices")?.get(0)?;
    choice
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(content_text)
        .or_else(|| {
            choice
                .get("delta")
                .and_then(|d| d.get("content"))
                .and_then(content_text)
        })
        .or_else(|| {
            choice
                .get("text")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
}

fn sse_text(stream: &str) -> Result<String, EngineError> {
    let mut out = String::new();
    let mut events = 0usize;
    for line in stream.lines() {
        let Some(data) = line.trim_start().strip_prefix("data:") else {
            continue;
        };
        let data = data.trim();
        if data == "[DONE]" {
            break;
        }
        if data.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(data).map_err(|e| {
            EngineError::parse(format!("an SSE event is not JSON ({e}): {data:.80}"))
        })?;
        if let Some(err) = value.get("error") {
            return Err(EngineError::parse(format!(
                "the model streamed an error: {err}"
            )));
        }
        if let Some(piece) = choice_text(&value) {
            out.push_str(&piece);
        }
        events += 1;
    }
    if events == 0 {
        return Err(EngineError::parse("the SSE stream carried no events"));
    }
    Ok(out)
}

/// `text` without `<think>…</think>` reasoning blocks: the shared
/// [`ferret_core::chat::strip_reasoning`].
pub use ferret_core::chat::strip_reasoning;

/// The JSON value in model output: the whole text, else the first code
/// fence that parses, else the span from the first `{`/`[` to the last
/// `}`/`]`.
pub fn extract_json(text: &str) -> Option<Value> {
    let text = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(text)
        && (v.is_object() || v.is_array())
    {
        return Some(v);
    }
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(0, |i| i + 1);
        let Some(close) = after[body_start..].find("```") else {
            break;
        };
        let inner = &after[body_start..body_start + close];
        if let Ok(v) = serde_json::from_str::<Value>(inner.trim()) {
            return Some(v);
        }
        rest = &after[body_start + close + 3..];
    }
    for (open, close) in [('{', '}'), ('[', ']')] {
        if let (Some(a), Some(b)) = (text.find(open), text.rfind(close))
            && a < b
            && let Ok(v) = serde_json::from_str::<Value>(&text[a..=b])
        {
            return Some(v);
        }
    }
    None
}

fn field<'a>(row: &'a Value, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| row.get(*n).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Hits from model output (after [`strip_reasoning`]): JSON rows under
/// `results` (or `items`, `sources`, or a top-level array), with URL,
/// title, snippet and date aliases; when the model wrote prose, its
/// markdown links and bare http(s) URLs, with a warning. Only http(s)
/// links are kept; every dropped row is reported.
pub fn hits_from_text(engine: &'static str, text: &str, max: usize) -> EngineResponse {
    let cleaned = strip_reasoning(text);
    let mut hits = HitCollector::new(engine, max);
    let rows = extract_json(&cleaned).and_then(|v| match v {
        Value::Array(rows) => Some(rows),
        Value::Object(map) => ["results", "items", "sources", "data"]
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_array).cloned()),
        _ => None,
    });
    match rows {
        Some(rows) => {
            for (i, row) in rows.iter().enumerate() {
                let url = field(row, &["url", "link", "href", "source_url", "sourceUrl"]);
                let Some(url) = url.filter(|u| is_http(u)) else {
                    hits.warn(format!(
                        "{engine}: dropped result #{}: no http(s) URL in {}",
                        i + 1,
                        truncate(&row.to_string(), 120)
                    ));
                    continue;
                };
                let published = field(
                    row,
                    &["published_date", "publishedDate", "published_at", "date"],
                )
                .and_then(normalize_iso);
                hits.push(
                    i + 1,
                    url,
                    field(row, &["title", "name"]).unwrap_or_default(),
                    field(
                        row,
                        &["snippet", "description", "content", "summary", "text"],
                    )
                    .unwrap_or_default(),
                    published,
                );
            }
        }
        None => {
            let links = prose_links(&cleaned);
            if !cleaned.is_empty() {
                hits.warn(format!(
                    "{engine}: the model did not answer JSON; {} link(s) taken from its prose",
                    links.len()
                ));
            }
            for (i, (title, url)) in links.iter().enumerate() {
                hits.push(i + 1, url, title, "", None);
            }
        }
    }
    hits.finish()
}

fn is_http(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

/// Markdown links `[title](url)` and bare `http(s)://` URLs, in order,
/// without duplicates.
fn prose_links(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |title: &str, url: &str| {
        let url = url.trim_end_matches(['.', ',', ';', ':', ')', ']', '>', '"', '\'']);
        if is_http(url) && !out.iter().any(|(_, u)| u == url) {
            out.push((title.trim().to_string(), url.to_string()));
        }
    };
    let mut i = 0;
    while let Some(pos) = text[i..].find("http") {
        let start = i + pos;
        let end = text[start..]
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | ']' | '<' | '>' | '"'))
            .map_or(text.len(), |e| start + e);
        let url = &text[start..end];
        let title = text[..start]
            .strip_suffix("](")
            .and_then(|before| before.rfind('[').map(|o| &before[o + 1..]))
            .unwrap_or("");
        if url.starts_with("http://") || url.starts_with("https://") {
            push(title, url);
        }
        i = end.max(start + 4);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_json_and_sse_bodies() {
        let json = br#"{"choices":[{"message":{"role":"assistant","content":"hello"}}]}"#;
        assert_eq!(completion_text(json).unwrap(), "hello");
        let sse = b"data: {\"choices\":[{\"delta\":{\"content\":\"hel\"}}]}\n\n\
                    data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\ndata: [DONE]\n\n";
        assert_eq!(completion_text(sse).unwrap(), "hello");
        assert!(completion_text(b"<html>oops</html>").is_err());
        assert!(
            completion_text(br#"{"error":{"message":"bad model"}}"#)
                .unwrap_err()
                .to_string()
                .contains("bad model")
        );
    }

    #[test]
    fn think_blocks_are_removed() {
        assert_eq!(
            strip_reasoning("<think>hmm</think>\n{\"a\":1}"),
            "{\"a\":1}"
        );
        assert_eq!(strip_reasoning("x <THINK>a</THINK> y <think>b"), "x  y");
    }

    #[test]
    fn json_is_found_in_fences_and_prose() {
        let fenced = "Here:\n```json\n{\"results\":[]}\n```\nDone";
        assert_eq!(
            extract_json(fenced).unwrap()["results"],
            serde_json::json!([])
        );
        let prose = "Sure! {\"results\":[{\"url\":\"https://a.example\"}]} hope it helps";
        assert!(extract_json(prose).is_some());
        assert!(extract_json("no json here").is_none());
    }

    #[test]
    fn only_http_links_are_kept_and_drops_are_reported() {
        let text = r#"<think>search…</think>```json
{"results":[
 {"title":"A","url":"https://a.example/x","snippet":"s","published_date":"2026-01-02"},
 {"title":"B","url":"javascript:alert(1)"},
 {"title":"C","link":"ftp://c.example"},
 {"title":"D","url":"http://d.example/"}]}
```"#;
        let r = hits_from_text("grok", text, 10);
        let urls: Vec<&str> = r.hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(urls, ["https://a.example/x", "http://d.example/"]);
        assert_eq!(r.hits[0].published_at.as_deref(), Some("2026-01-02"));
        assert_eq!(r.hits[1].rank, 4);
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    }

    #[test]
    fn prose_answers_yield_their_links_with_a_warning() {
        let text =
            "See [Rust](https://www.rust-lang.org/). Also https://docs.rs/tokio, and ftp://x.";
        let r = hits_from_text("grok", text, 10);
        assert_eq!(r.hits.len(), 2);
        assert_eq!(r.hits[0].title, "Rust");
        assert_eq!(r.hits[1].url, "https://docs.rs/tokio");
        assert!(r.warnings[0].contains("did not answer JSON"));
    }

    proptest! {
        #[test]
        fn never_panics_and_keeps_only_http_urls(s in "\\PC{0,200}") {
            let r = hits_from_text("grok", &s, 10);
            for h in &r.hits {
                prop_assert!(h.url.starts_with("http://") || h.url.starts_with("https://"));
            }
            let _ = completion_text(s.as_bytes());
        }
    }
}
