//! The captured site pages the page benches read (`fetch_read`,
//! `research`): `$FERRET_SHARED/fixtures/sites` (default `../shared`).

use std::path::PathBuf;

/// (bench name, fixture file, the page's URL).
const PAGES: &[(&str, &str, &str)] = &[
    (
        "wikipedia",
        "wikipedia-article-rust-programming-language-2026-04.html",
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
    ),
    (
        "hackernews",
        "hackernews-item-39232976-pkl-566-comments-2024-02.html",
        "https://news.ycombinator.com/item?id=39232976",
    ),
    (
        "github_issue",
        "github-issue-page-kepano-defuddle-56.html",
        "https://github.com/kepano/defuddle/issues/56",
    ),
];

/// A captured page: its bench name, HTML and URL.
pub struct SitePage {
    pub name: &'static str,
    pub html: String,
    pub url: &'static str,
}

/// The pages, read from disk. Without the shared folder: `None`, after a
/// skip line on stderr; an unreadable file is skipped with a line too.
pub fn load() -> Option<Vec<SitePage>> {
    let shared = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = shared.join("fixtures/sites");
    if !dir.is_dir() {
        eprintln!("skipped: ../shared not present; set FERRET_SHARED");
        return None;
    }
    let pages = PAGES
        .iter()
        .filter_map(
            |&(name, file, url)| match std::fs::read_to_string(dir.join(file)) {
                Ok(html) => Some(SitePage { name, html, url }),
                Err(e) => {
                    eprintln!("skipped: {file} not readable: {e}");
                    None
                }
            },
        )
        .collect();
    Some(pages)
}
