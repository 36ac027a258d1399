//! Wikipedia: the whole article as plain text through the Action API
//! (`prop=extracts&explaintext`, section headings kept), with the REST
//! `page/summary` as a fallback. The date is the last revision's.

use serde_json::Value;

use super::{Api, EndpointError, EndpointPage, str_of};

pub(super) async fn article(
    api: &Api<'_>,
    lang: &str,
    title: &str,
) -> Result<EndpointPage, EndpointError> {
    let base = api.endpoints().wikipedia.replace("{lang}", lang);
    match full_text(api, &base, title).await {
        Ok(mut page) => {
            page.language = Some(lang.to_string());
            Ok(page)
        }
        Err(full_err) => match summary(api, &base, title).await {
            Ok(mut page) => {
                page.language = Some(lang.to_string());
                page.partial.push(format!(
                    "only the summary was read; the full text failed: {full_err}"
                ));
                Ok(page)
            }
            Err(_) => Err(full_err),
        },
    }
}

async fn full_text(api: &Api<'_>, base: &str, title: &str) -> Result<EndpointPage, EndpointError> {
    let url = api.url(
        base,
        &["w", "api.php"],
        &[
            ("action", "query"),
            ("format", "json"),
            ("formatversion", "2"),
            ("redirects", "1"),
            ("prop", "extracts|revisions"),
            ("explaintext", "1"),
            ("exsectionformat", "wiki"),
            ("rvprop", "timestamp"),
            ("titles", title),
        ],
    )?;
    let v = api.json(&url).await?;
    let page = v
        .pointer("/query/pages/0")
        .ok_or_else(|| EndpointError::Parse {
            url: url.to_string(),
            detail: "no query.pages in the answer".into(),
        })?;
    if page.get("missing").is_some() || page.get("invalid").is_some() {
        return Err(EndpointError::Status {
            url: url.to_string(),
            status: 404,
        });
    }
    let extract = str_of(page, "extract").ok_or_else(|| EndpointError::Parse {
        url: url.to_string(),
        detail: "the page has no extract".into(),
    })?;
    let (text, markdown) = render_sections(&extract);
    let revised = page
        .pointer("/revisions/0/timestamp")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(EndpointPage {
        api_url: url.to_string(),
        title: str_of(page, "title").or_else(|| Some(title.to_string())),
        text,
        markdown: Some(markdown),
        published_at: revised.clone(),
        modified_at: revised,
        site_name: Some("Wikipedia".into()),
        ..EndpointPage::default()
    })
}

async fn summary(api: &Api<'_>, base: &str, title: &str) -> Result<EndpointPage, EndpointError> {
    let slug = title.replace(' ', "_");
    let url = api.url(base, &["api", "rest_v1", "page", "summary", &slug], &[])?;
    let v = api.json(&url).await?;
    let extract = str_of(&v, "extract").ok_or_else(|| EndpointError::Parse {
        url: url.to_string(),
        detail: "the summary has no extract".into(),
    })?;
    let mut text = String::new();
    if let Some(d) = str_of(&v, "description") {
        text.push_str(&d);
        text.push_str("\n\n");
    }
    text.push_str(&extract);
    let stamp = str_of(&v, "timestamp");
    Ok(EndpointPage {
        api_url: url.to_string(),
        title: str_of(&v, "title").or_else(|| Some(title.to_string())),
        text,
        published_at: stamp.clone(),
        modified_at: stamp,
        site_name: Some("Wikipedia".into()),
        ..EndpointPage::default()
    })
}

/// Turns `== Heading ==` lines into paragraph headings (text) and `##`
/// headings (Markdown); drops empty sections' extra blank lines.
pub(super) fn render_sections(extract: &str) -> (String, String) {
    let mut text: Vec<String> = Vec::new();
    let mut md: Vec<String> = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, text: &mut Vec<String>, md: &mut Vec<String>| {
        if !para.is_empty() {
            let p = para.join("\n");
            text.push(p.clone());
            md.push(p);
            para.clear();
        }
    };
    for line in extract.lines() {
        let t = line.trim();
        if t.is_empty() {
            flush(&mut para, &mut text, &mut md);
            continue;
        }
        let level = t.chars().take_while(|c| *c == '=').count();
        if level >= 2 && t.ends_with(&"=".repeat(level)) && t.len() > 2 * level {
            flush(&mut para, &mut text, &mut md);
            let heading = t[level..t.len() - level].trim();
            if !heading.is_empty() {
                text.push(heading.to_string());
                md.push(format!("{} {heading}", "#".repeat(level.min(6))));
            }
            continue;
        }
        para.push(t);
    }
    flush(&mut para, &mut text, &mut md);
    (text.join("\n\n"), md.join("\n\n"))
}
