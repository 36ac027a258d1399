//! JSON-LD blocks: parsing (leniently, reporting failures) and looking up the
//! article facts they carry (headline, author, dates).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A `<script type="application/ld+json">` block that could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonLdError {
    /// Position of the block among the page's JSON-LD scripts (0-based).
    pub index: usize,
    /// What the JSON parser said.
    pub message: String,
    /// The first characters of the block, to recognise it.
    pub excerpt: String,
}

/// Schema.org types whose facts describe the page's article.
const ARTICLE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "ReportageNewsArticle",
    "AnalysisNewsArticle",
    "OpinionNewsArticle",
    "ReviewNewsArticle",
    "BackgroundNewsArticle",
    "AskPublicNewsArticle",
    "SatiricalArticle",
    "TechArticle",
    "ScholarlyArticle",
    "Report",
    "LiveBlogPosting",
    "SocialMediaPosting",
    "DiscussionForumPosting",
    "Review",
    "Recipe",
    "HowTo",
    "WebPage",
    "ItemPage",
    "AboutPage",
    "FAQPage",
    "QAPage",
    "VideoObject",
    "CreativeWork",
];

/// How deep the lookup goes into nested objects.
const MAX_DEPTH: usize = 6;

/// Parses JSON-LD script bodies. Blocks that fail are reported with their
/// index; a few common wrappers (HTML comments, CDATA, trailing `;`) are
/// removed first.
pub(crate) fn parse_blocks(bodies: &[&str]) -> (Vec<Value>, Vec<JsonLdError>) {
    let mut values = Vec::new();
    let mut errors = Vec::new();
    for (index, body) in bodies.iter().enumerate() {
        let cleaned = unwrap_body(body);
        if cleaned.is_empty() {
            errors.push(JsonLdError {
                index,
                message: "empty JSON-LD block".to_owned(),
                excerpt: String::new(),
            });
            continue;
        }
        match serde_json::from_str::<Value>(cleaned) {
            Ok(v) => values.push(v),
            Err(e) => errors.push(JsonLdError {
                index,
                message: e.to_string(),
                excerpt: cleaned.chars().take(80).collect(),
            }),
        }
    }
    (values, errors)
}

fn unwrap_body(body: &str) -> &str {
    let mut s = body.trim();
    for (open, close) in [
        ("<!--", "-->"),
        ("//<![CDATA[", "//]]>"),
        ("<![CDATA[", "]]>"),
    ] {
        if let Some(rest) = s.strip_prefix(open) {
            s = rest.trim();
            if let Some(rest) = s.strip_suffix(close) {
                s = rest.trim();
            }
        }
    }
    s.trim_end_matches(';').trim()
}

/// Article facts found in JSON-LD.
#[derive(Default, Debug)]
pub(crate) struct ArticleFacts {
    pub headline: Option<String>,
    pub author: Option<String>,
    pub date_published: Option<String>,
    pub date_created: Option<String>,
    pub publisher: Option<String>,
}

/// Looks through the values (arrays, `@graph`, nested `mainEntity`) for the
/// first article-like object and reads its facts. Objects of an article type
/// win over other objects that happen to carry the same keys.
pub(crate) fn article_facts(values: &[Value]) -> ArticleFacts {
    let mut objects: Vec<(&serde_json::Map<String, Value>, bool)> = Vec::new();
    let mut stack: Vec<(&Value, usize)> = values.iter().rev().map(|v| (v, 0)).collect();
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            continue;
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().rev().map(|i| (i, depth + 1))),
            Value::Object(map) => {
                objects.push((map, is_article(map)));
                for key in [
                    "@graph",
                    "mainEntity",
                    "mainEntityOfPage",
                    "itemListElement",
                ] {
                    if let Some(inner) = map.get(key) {
                        stack.push((inner, depth + 1));
                    }
                }
            }
            _ => {}
        }
    }
    let mut facts = ArticleFacts::default();
    for pass_articles_only in [true, false] {
        for (map, article) in &objects {
            if pass_articles_only && !article {
                continue;
            }
            if facts.headline.is_none() {
                facts.headline = map.get("headline").and_then(string_of);
            }
            if facts.author.is_none() {
                facts.author = map.get("author").and_then(names_of);
            }
            if facts.date_published.is_none() {
                facts.date_published = map.get("datePublished").and_then(string_of);
            }
            if facts.date_created.is_none() {
                facts.date_created = map.get("dateCreated").and_then(string_of);
            }
            if facts.publisher.is_none() && *article {
                facts.publisher = map.get("publisher").and_then(names_of);
            }
        }
    }
    facts
}

fn is_article(map: &serde_json::Map<String, Value>) -> bool {
    let matches = |t: &str| {
        let t = t.rsplit(['/', ':']).next().unwrap_or(t);
        ARTICLE_TYPES.contains(&t)
    };
    match map.get("@type") {
        Some(Value::String(t)) => matches(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(matches),
        _ => false,
    }
}

fn string_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Array(items) => items.iter().find_map(string_of),
        _ => None,
    }
}

/// A person or organisation name, or several joined with ", ".
fn names_of(v: &Value) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    let mut push = |n: &str| {
        let n = n.trim();
        if !n.is_empty() && !n.starts_with("http") && !names.iter().any(|x| x == n) {
            names.push(n.to_owned());
        }
    };
    match v {
        Value::String(s) => push(s),
        Value::Object(m) => {
            if let Some(n) = m.get("name").and_then(string_of) {
                push(&n);
            }
        }
        Value::Array(items) => {
            for item in items.iter().take(10) {
                match item {
                    Value::String(s) => push(s),
                    Value::Object(m) => {
                        if let Some(n) = m.get("name").and_then(string_of) {
                            push(&n);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    (!names.is_empty()).then(|| names.join(", "))
}
