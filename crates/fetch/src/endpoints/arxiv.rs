//! arXiv: the abstract page's facts from the export API (Atom).

use super::{Api, EndpointError, EndpointPage};
use crate::http::ACCEPT_XML;

const ATOM: &str = "http://www.w3.org/2005/Atom";

pub(super) async fn paper(api: &Api<'_>, id: &str) -> Result<EndpointPage, EndpointError> {
    let url = api.url(
        &api.endpoints().arxiv_api,
        &["api", "query"],
        &[("id_list", id)],
    )?;
    let answer = api.get_ok(&url, ACCEPT_XML).await?;
    let parse_err = |detail: String| EndpointError::Parse {
        url: url.to_string(),
        detail,
    };
    let doc = roxmltree::Document::parse(&answer.body)
        .map_err(|e| parse_err(format!("invalid Atom XML: {e}")))?;
    let entry = doc
        .descendants()
        .find(|n| n.has_tag_name((ATOM, "entry")))
        .ok_or_else(|| parse_err(format!("no entry for {id:?}")))?;
    let child_text = |name: &str| {
        entry
            .children()
            .find(|n| n.has_tag_name((ATOM, name)))
            .and_then(|n| n.text())
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
    };
    let title = child_text("title").ok_or_else(|| parse_err("the entry has no title".into()))?;
    // The API answers unknown ids with an entry titled "Error".
    if title == "Error" {
        return Err(EndpointError::Status {
            url: url.to_string(),
            status: 404,
        });
    }
    let summary = child_text("summary").unwrap_or_default();
    let authors: Vec<String> = entry
        .children()
        .filter(|n| n.has_tag_name((ATOM, "author")))
        .filter_map(|a| {
            a.children()
                .find(|n| n.has_tag_name((ATOM, "name")))
                .and_then(|n| n.text())
                .map(|t| t.trim().to_string())
        })
        .collect();
    let categories: Vec<&str> = entry
        .children()
        .filter(|n| n.tag_name().name() == "category")
        .filter_map(|n| n.attribute("term"))
        .collect();
    let mut text = format!("# {title}\n\n");
    if !authors.is_empty() {
        text.push_str(&format!("Authors: {}\n\n", authors.join(", ")));
    }
    if !categories.is_empty() {
        text.push_str(&format!("Categories: {}\n\n", categories.join(", ")));
    }
    text.push_str("Abstract: ");
    text.push_str(&summary);
    Ok(EndpointPage {
        api_url: url.to_string(),
        title: Some(title),
        text,
        byline: (!authors.is_empty()).then(|| authors.join(", ")),
        published_at: child_text("published"),
        modified_at: child_text("updated"),
        site_name: Some("arXiv".into()),
        ..EndpointPage::default()
    })
}
