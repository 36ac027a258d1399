//! Package registries: npm, PyPI and crates.io — description, versions,
//! dates, links and the README.

use serde_json::Value;

use super::{Api, EndpointError, EndpointPage, str_of};
use crate::extract::{ExtractOptions, extract};
use crate::http::ACCEPT_ANY;

fn facts_line(facts: &[(&str, Option<String>)]) -> String {
    facts
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}: {v}")))
        .collect::<Vec<_>>()
        .join(" · ")
}

fn push_section(text: &mut String, s: &str) {
    let s = s.trim();
    if !s.is_empty() {
        text.push_str(s);
        text.push_str("\n\n");
    }
}

fn string_list(v: Option<&Value>) -> Option<String> {
    let list: Vec<&str> = v?.as_array()?.iter().filter_map(Value::as_str).collect();
    (!list.is_empty()).then(|| list.join(", "))
}

/// npm: the package document (or the version document when the full one is
/// too large).
pub(super) async fn npm(
    api: &Api<'_>,
    name: &str,
    version: Option<&str>,
) -> Result<EndpointPage, EndpointError> {
    let mut partial = Vec::new();
    let (doc, version_doc, api_url) = npm_documents(api, name, version, &mut partial).await?;
    let pkg_name = str_of(&doc, "name")
        .or_else(|| str_of(&version_doc, "name"))
        .unwrap_or_else(|| name.to_string());
    let ver = str_of(&version_doc, "version");
    let published = ver
        .as_deref()
        .and_then(|v| doc.get("time").and_then(|t| str_of(t, v)));
    let modified = doc.get("time").and_then(|t| str_of(t, "modified"));
    let author = version_doc
        .get("author")
        .or_else(|| doc.get("author"))
        .and_then(|a| str_of(a, "name").or_else(|| a.as_str().map(str::to_owned)));
    let text = npm_text(
        &doc,
        &version_doc,
        &pkg_name,
        ver,
        published.clone(),
        &mut partial,
    );
    Ok(EndpointPage {
        api_url,
        title: Some(format!("{pkg_name} - npm")),
        text,
        byline: author,
        published_at: published,
        modified_at: modified,
        site_name: Some("npm".into()),
        partial,
        ..EndpointPage::default()
    })
}

/// `(package document, version document, URL read)`: the full package
/// document and its wanted (or latest) version; when the full one cannot be
/// parsed (too large, say), only the version document, with a note.
async fn npm_documents(
    api: &Api<'_>,
    name: &str,
    version: Option<&str>,
    partial: &mut Vec<String>,
) -> Result<(Value, Value, String), EndpointError> {
    let base = &api.endpoints().npm_registry;
    let url = api.url(base, &[name], &[])?;
    match api.json(&url).await {
        Ok(doc) => {
            let latest = doc
                .pointer("/dist-tags/latest")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let want = version.map(str::to_owned).or(latest);
            let vdoc = want
                .as_deref()
                .and_then(|v| doc.get("versions").and_then(|vs| vs.get(v)))
                .cloned()
                .unwrap_or(Value::Null);
            Ok((doc, vdoc, url.to_string()))
        }
        Err(EndpointError::Parse { detail, .. }) => {
            let vurl = api.url(base, &[name, version.unwrap_or("latest")], &[])?;
            let vdoc = api.json(&vurl).await?;
            partial.push(format!("the full package document could not be read ({detail}); the version document was used"));
            Ok((Value::Null, vdoc, vurl.to_string()))
        }
        Err(e) => Err(e),
    }
}

/// The package as text: name, description, a facts line and the README
/// (a note in `partial` when there is none). The version document wins
/// over the package document field by field.
fn npm_text(
    doc: &Value,
    version_doc: &Value,
    pkg_name: &str,
    ver: Option<String>,
    published: Option<String>,
    partial: &mut Vec<String>,
) -> String {
    let description = str_of(version_doc, "description").or_else(|| str_of(doc, "description"));
    let license = str_of(version_doc, "license").or_else(|| str_of(doc, "license"));
    let repository = version_doc
        .get("repository")
        .or_else(|| doc.get("repository"))
        .and_then(|r| str_of(r, "url").or_else(|| r.as_str().map(str::to_owned)));
    let mut text = format!("# {pkg_name}\n\n");
    push_section(&mut text, description.as_deref().unwrap_or_default());
    push_section(
        &mut text,
        &facts_line(&[
            ("Version", ver),
            ("License", license),
            ("Published", published),
            (
                "Homepage",
                str_of(version_doc, "homepage").or_else(|| str_of(doc, "homepage")),
            ),
            ("Repository", repository),
            (
                "Keywords",
                string_list(version_doc.get("keywords").or_else(|| doc.get("keywords"))),
            ),
        ]),
    );
    let readme = str_of(doc, "readme").or_else(|| str_of(version_doc, "readme"));
    match readme {
        Some(r) => push_section(&mut text, &r),
        None => partial.push("the registry document has no README".into()),
    }
    text.trim().to_string()
}

/// PyPI: the project (or release) JSON.
pub(super) async fn pypi(
    api: &Api<'_>,
    name: &str,
    version: Option<&str>,
) -> Result<EndpointPage, EndpointError> {
    let base = &api.endpoints().pypi;
    let url = match version {
        Some(v) => api.url(base, &["pypi", name, v, "json"], &[])?,
        None => api.url(base, &["pypi", name, "json"], &[])?,
    };
    let v = api.json(&url).await?;
    let info = v.get("info").cloned().unwrap_or(Value::Null);
    let pkg = str_of(&info, "name").unwrap_or_else(|| name.to_string());
    let ver = str_of(&info, "version");
    let published = v
        .get("urls")
        .and_then(Value::as_array)
        .and_then(|files| files.iter().find_map(|f| str_of(f, "upload_time_iso_8601")))
        .or_else(|| {
            let ver = ver.as_deref()?;
            v.pointer(&format!(
                "/releases/{}",
                ver.replace('~', "~0").replace('/', "~1")
            ))
            .and_then(Value::as_array)
            .and_then(|files| files.iter().find_map(|f| str_of(f, "upload_time_iso_8601")))
        });
    let project_urls: Vec<String> = info
        .get("project_urls")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| format!("{k}: {v}")))
                .collect()
        })
        .unwrap_or_default();
    let author = str_of(&info, "author").or_else(|| str_of(&info, "author_email"));

    let mut text = format!("# {pkg}\n\n");
    push_section(
        &mut text,
        str_of(&info, "summary").as_deref().unwrap_or_default(),
    );
    push_section(
        &mut text,
        &facts_line(&[
            ("Version", ver.clone()),
            (
                "License",
                str_of(&info, "license").filter(|l| l.len() < 200),
            ),
            ("Requires Python", str_of(&info, "requires_python")),
            ("Published", published.clone()),
            ("Homepage", str_of(&info, "home_page")),
        ]),
    );
    if !project_urls.is_empty() {
        push_section(&mut text, &project_urls.join("\n"));
    }
    let mut partial = Vec::new();
    match str_of(&info, "description") {
        Some(d) => push_section(&mut text, &d),
        None => partial.push("the project has no long description".into()),
    }
    Ok(EndpointPage {
        api_url: url.to_string(),
        title: Some(format!("{pkg} · PyPI")),
        text: text.trim().to_string(),
        byline: author,
        published_at: published,
        site_name: Some("PyPI".into()),
        partial,
        ..EndpointPage::default()
    })
}

/// crates.io: the crate document and the newest version's README.
pub(super) async fn crate_io(api: &Api<'_>, name: &str) -> Result<EndpointPage, EndpointError> {
    let base = &api.endpoints().crates_io;
    let url = api.url(base, &["api", "v1", "crates", name], &[])?;
    let v = api.json(&url).await?;
    let krate = v.get("crate").cloned().unwrap_or(Value::Null);
    let pkg = str_of(&krate, "name").unwrap_or_else(|| name.to_string());
    let ver = str_of(&krate, "max_stable_version")
        .or_else(|| str_of(&krate, "newest_version"))
        .or_else(|| str_of(&krate, "max_version"));
    let version_doc = ver.as_deref().and_then(|want| {
        v.get("versions").and_then(Value::as_array).and_then(|vs| {
            vs.iter()
                .find(|x| str_of(x, "num").as_deref() == Some(want))
        })
    });
    let published = version_doc
        .and_then(|d| str_of(d, "created_at"))
        .or_else(|| str_of(&krate, "updated_at"));
    let license = version_doc.and_then(|d| str_of(d, "license"));
    let downloads = krate
        .get("downloads")
        .and_then(Value::as_u64)
        .map(|d| d.to_string());

    let mut text = format!("# {pkg}\n\n");
    push_section(
        &mut text,
        str_of(&krate, "description").as_deref().unwrap_or_default(),
    );
    push_section(
        &mut text,
        &facts_line(&[
            ("Version", ver.clone()),
            ("License", license),
            ("Published", published.clone()),
            ("Downloads", downloads),
            ("Repository", str_of(&krate, "repository")),
            ("Documentation", str_of(&krate, "documentation")),
            ("Homepage", str_of(&krate, "homepage")),
        ]),
    );
    let mut partial = Vec::new();
    if let Some(ver) = &ver {
        let rurl = api.url(base, &["api", "v1", "crates", name, ver, "readme"], &[])?;
        match api.get(&rurl, ACCEPT_ANY).await {
            Ok(r) if r.status == 200 => {
                let readme = extract(&r.body, None, &ExtractOptions::default());
                push_section(&mut text, &readme.markdown);
            }
            Ok(r) => partial.push(format!("README: {rurl} answered HTTP {}", r.status)),
            Err(e) => partial.push(format!("README: {e}")),
        }
    }
    Ok(EndpointPage {
        api_url: url.to_string(),
        title: Some(format!("{pkg} - crates.io")),
        text: text.trim().to_string(),
        published_at: published,
        modified_at: str_of(&krate, "updated_at"),
        site_name: Some("crates.io".into()),
        partial,
        ..EndpointPage::default()
    })
}
