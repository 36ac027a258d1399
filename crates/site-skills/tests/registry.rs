//! The registry: built-in packages (valid on disk and embedded), override
//! precedence (SITE_SKILLS_DIR over HOME over built-in), fail-closed removal
//! of invalid overrides, and discovery by id and hostname.

mod support;

use std::path::PathBuf;

use ferret_site_skills::embedded::builtin_ids;
use ferret_site_skills::{Origin, OverrideRoots, Registry, Rule, load_dir, normalize_host};
use proptest::prelude::*;
use serde_json::json;
use support::{MINIMAL_SCRIPT, minimal_manifest, write_package};

const BUILTINS: [&str; 5] = [
    "github",
    "hackernews",
    "reddit",
    "stackexchange",
    "wikipedia",
];

fn sites_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sites")
}

/// A copy of a built-in manifest under another name, to tell versions apart.
fn renamed(id: &str, name: &str, domains: &[&str]) -> serde_json::Value {
    let mut m = minimal_manifest(id, domains);
    m["name"] = json!(name);
    m
}

#[test]
fn every_builtin_package_is_valid_on_disk() {
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(sites_dir()).unwrap() {
        let dir = entry.unwrap().path();
        let p = load_dir(&dir, Origin::Directory(dir.clone()))
            .unwrap_or_else(|e| panic!("built-in package {} is invalid: {e}", dir.display()));
        assert_eq!(
            p.manifest().notes,
            Vec::<String>::new(),
            "{}: notes stay empty by default",
            p.id()
        );
        seen.push(p.id().to_string());
    }
    seen.sort();
    assert_eq!(seen, BUILTINS);
}

#[test]
fn every_builtin_package_is_embedded_and_valid() {
    assert_eq!(builtin_ids(), BUILTINS);
    let registry = Registry::builtin();
    assert!(registry.issues().is_empty(), "{:?}", registry.issues());
    assert_eq!(registry.ids(), BUILTINS);
    for id in BUILTINS {
        let p = registry.get(id).unwrap();
        assert_eq!(p.origin(), &Origin::BuiltIn);
        for tool in p.manifest().browser_tools.values() {
            let on_disk = std::fs::read_to_string(sites_dir().join(id).join(&tool.path)).unwrap();
            assert_eq!(
                p.resource(&tool.path),
                Some(on_disk.as_str()),
                "{id}/{}",
                tool.path
            );
        }
    }
}

#[test]
fn a_home_override_replaces_the_builtin_package() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("site-skills");
    write_package(
        &root,
        "github",
        &renamed("github", "GitHub (home)", &["github.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let registry = Registry::load(&OverrideRoots::none().home(home.path()));
    let p = registry.get("github").unwrap();
    assert_eq!(p.name(), "GitHub (home)");
    assert_eq!(p.origin(), &Origin::Home(root.join("github")));
    assert!(
        p.tool("thread").is_none(),
        "the whole package is replaced, not merged"
    );
    assert_eq!(
        registry.get("hackernews").unwrap().origin(),
        &Origin::BuiltIn
    );
}

#[test]
fn site_skills_dir_wins_over_home_which_wins_over_builtin() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home_root = home.path().join("site-skills");
    write_package(
        &home_root,
        "github",
        &renamed("github", "from home", &["github.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    write_package(
        &home_root,
        "wikipedia",
        &renamed("wikipedia", "wiki from home", &["*.wikipedia.org"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    write_package(
        dir.path(),
        "github",
        &renamed("github", "from dir", &["github.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let registry = Registry::load(
        &OverrideRoots::none()
            .home(home.path())
            .site_skills_dir(dir.path()),
    );
    assert_eq!(registry.get("github").unwrap().name(), "from dir");
    assert_eq!(
        registry.get("github").unwrap().origin(),
        &Origin::SiteSkillsDir(dir.path().join("github"))
    );
    assert_eq!(registry.get("wikipedia").unwrap().name(), "wiki from home");
    assert_eq!(registry.get("reddit").unwrap().origin(), &Origin::BuiltIn);
    assert!(registry.issues().is_empty(), "{:?}", registry.issues());
}

#[test]
fn an_invalid_override_removes_the_id_and_says_why() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A valid home version, shadowed by an invalid SITE_SKILLS_DIR one.
    write_package(
        &home.path().join("site-skills"),
        "github",
        &renamed("github", "from home", &["github.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let mut bad = minimal_manifest("github", &["github.com"]);
    bad["browserTools"]["readPage"]["path"] = json!("../escape.js");
    write_package(dir.path(), "github", &bad, &[]);
    let registry = Registry::load(
        &OverrideRoots::none()
            .home(home.path())
            .site_skills_dir(dir.path()),
    );
    assert!(
        registry.get("github").is_none(),
        "fail closed: no fallback to home or built-in"
    );
    assert!(registry.for_host("github.com").is_empty());
    let issue = registry
        .issues()
        .iter()
        .find(|i| i.id.as_deref() == Some("github"))
        .expect("the removal is reported");
    assert!(issue.removed);
    assert!(issue.source.ends_with("github"), "{}", issue.source);
    assert!(issue.violations.iter().any(|v| v.rule == Rule::PathParent));
    assert_eq!(registry.len(), BUILTINS.len() - 1);
}

#[test]
fn an_invalid_home_override_removes_the_builtin_too() {
    let home = tempfile::tempdir().unwrap();
    write_package(
        &home.path().join("site-skills"),
        "hackernews",
        &minimal_manifest("hacker-news", &["news.ycombinator.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let registry = Registry::load(&OverrideRoots::none().home(home.path()));
    assert!(registry.get("hackernews").is_none());
    let issue = &registry.issues()[0];
    assert_eq!(issue.id.as_deref(), Some("hackernews"));
    assert_eq!(issue.violations[0].rule, Rule::IdFolderMismatch);
}

#[test]
fn an_override_can_add_a_new_package() {
    let dir = tempfile::tempdir().unwrap();
    write_package(
        dir.path(),
        "example",
        &minimal_manifest("example", &["example.com"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let registry = Registry::load(&OverrideRoots::none().site_skills_dir(dir.path()));
    assert_eq!(registry.len(), BUILTINS.len() + 1);
    assert_eq!(registry.for_host("example.com")[0].id(), "example");
}

#[test]
fn entries_that_cannot_be_packages_are_reported_not_dropped_silently() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("Not_An_Id")).unwrap();
    std::fs::write(dir.path().join("README.txt"), b"notes").unwrap();
    let registry = Registry::load(&OverrideRoots::none().site_skills_dir(dir.path()));
    assert_eq!(registry.len(), BUILTINS.len());
    let sources: Vec<&str> = registry
        .issues()
        .iter()
        .map(|i| i.source.as_str())
        .collect();
    assert_eq!(sources.len(), 2, "{sources:?}");
    assert!(
        registry
            .issues()
            .iter()
            .all(|i| !i.removed && i.violations[0].rule == Rule::FolderName)
    );
}

#[test]
fn missing_override_roots_are_fine() {
    let registry = Registry::load(
        &OverrideRoots::none()
            .home("/nonexistent/ferret-home")
            .site_skills_dir("/nonexistent/skills"),
    );
    assert_eq!(registry.ids(), BUILTINS);
    assert!(registry.issues().is_empty());
}

#[test]
fn override_roots_come_only_from_the_lookup() {
    let roots = OverrideRoots::from_env_with(|name| match name {
        "FERRET_SITE_SKILLS_DIR" => Some("/skills".into()),
        "FERRET_HOME" => Some("/data/ferret".into()),
        _ => None,
    });
    assert_eq!(roots.site_skills_dir, Some(PathBuf::from("/skills")));
    assert_eq!(roots.home, Some(PathBuf::from("/data/ferret")));
    let roots = OverrideRoots::from_env_with(|name| match name {
        "FERRET_SITE_SKILLS_DIR" => Some("  ".into()),
        "HOME" => Some("/home/u".into()),
        _ => None,
    });
    assert_eq!(roots.site_skills_dir, None);
    assert_eq!(
        roots.home,
        Some(PathBuf::from("/home/u/.local/share/ferret"))
    );
}

#[test]
fn discovery_by_exact_hostname_ignores_case_and_a_trailing_dot() {
    let registry = Registry::builtin();
    for host in ["github.com", "GitHub.COM", "github.com.", " github.com "] {
        let found: Vec<String> = registry
            .for_host(host)
            .iter()
            .map(|p| p.id().to_string())
            .collect();
        assert_eq!(found, ["github"], "{host:?}");
    }
    assert!(
        registry.for_host("www.github.com").is_empty(),
        "exact domains do not cover subdomains"
    );
    assert!(registry.for_host("notgithub.com").is_empty());
    assert!(registry.for_host("github.com.evil.example").is_empty());
}

#[test]
fn a_wildcard_covers_subdomains_but_not_the_apex() {
    let registry = Registry::builtin();
    for host in [
        "en.wikipedia.org",
        "de.m.wikipedia.org",
        "EN.Wikipedia.Org.",
    ] {
        assert_eq!(registry.for_host(host)[0].id(), "wikipedia", "{host}");
    }
    assert!(registry.for_host("wikipedia.org").is_empty());
    assert!(registry.for_host("xwikipedia.org").is_empty());
    // Declared separately, apex and wildcard both match.
    assert_eq!(registry.for_host("reddit.com")[0].id(), "reddit");
    assert_eq!(registry.for_host("old.reddit.com")[0].id(), "reddit");
    assert_eq!(
        registry.for_host("rpg.stackexchange.com")[0].id(),
        "stackexchange"
    );
    assert!(registry.for_host("stackexchange.com").is_empty());
}

#[test]
fn idn_hostnames_match_in_either_spelling() {
    let dir = tempfile::tempdir().unwrap();
    write_package(
        dir.path(),
        "books",
        &minimal_manifest("books", &["bücher.example"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    write_package(
        dir.path(),
        "muenchen",
        &minimal_manifest("muenchen", &["*.xn--mnchen-3ya.example"]),
        &[("page.js", MINIMAL_SCRIPT)],
    );
    let registry = Registry::load(&OverrideRoots::none().site_skills_dir(dir.path()));
    for host in [
        "bücher.example",
        "BÜCHER.EXAMPLE",
        "xn--bcher-kva.example",
        "XN--BCHER-KVA.example.",
    ] {
        assert_eq!(registry.for_host(host)[0].id(), "books", "{host}");
    }
    for host in ["www.münchen.example", "www.xn--mnchen-3ya.example"] {
        assert_eq!(registry.for_host(host)[0].id(), "muenchen", "{host}");
    }
    assert_eq!(
        registry.for_url("https://bücher.example:8443/a?b")[0].id(),
        "books"
    );
}

#[test]
fn discovery_by_url_uses_the_hostname_only() {
    let registry = Registry::builtin();
    let ids = |url: &str| -> Vec<String> {
        registry
            .for_url(url)
            .iter()
            .map(|p| p.id().to_string())
            .collect()
    };
    assert_eq!(
        ids("https://news.ycombinator.com:8443/item?id=1"),
        ["hackernews"]
    );
    assert_eq!(
        ids("https://github.com./kepano/defuddle/issues/56"),
        ["github"]
    );
    assert!(ids("https://example.com/github.com").is_empty());
    assert!(ids("https://127.0.0.1/").is_empty());
    assert!(ids("not a url").is_empty());
}

#[test]
fn normalize_host_folds_case_dots_and_idn() {
    assert_eq!(normalize_host("GitHub.com.").as_deref(), Some("github.com"));
    assert_eq!(
        normalize_host("bücher.example").as_deref(),
        Some("xn--bcher-kva.example")
    );
    assert_eq!(normalize_host(""), None);
    assert_eq!(normalize_host("."), None);
    assert_eq!(normalize_host("a..b."), None);
    assert_eq!(normalize_host("10.0.0.1"), None);
    assert_eq!(normalize_host("github.com:443"), None);
}

fn label() -> impl Strategy<Value = String> {
    "[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?"
}

proptest! {
    #[test]
    fn normalizing_is_idempotent(labels in prop::collection::vec(label(), 2..5), upper in any::<bool>(), dot in any::<bool>()) {
        let host = labels.join(".");
        prop_assume!(normalize_host(&host).is_some());
        let mut spelled = if upper { host.to_uppercase() } else { host.clone() };
        if dot { spelled.push('.'); }
        let once = normalize_host(&spelled).unwrap();
        prop_assert_eq!(normalize_host(&once), Some(once.clone()));
        prop_assert_eq!(once, normalize_host(&host).unwrap());
    }

    #[test]
    fn a_wildcard_never_matches_its_apex_but_matches_every_subdomain(
        labels in prop::collection::vec(label(), 2..4),
        sub in prop::collection::vec(label(), 1..3),
    ) {
        let apex = format!("{}.example", labels.join("."));
        let pattern = ferret_site_skills::DomainPattern::parse(&format!("*.{apex}"));
        prop_assume!(pattern.is_ok());
        let pattern = pattern.unwrap();
        let apex_n = normalize_host(&apex);
        prop_assume!(apex_n.is_some());
        prop_assert!(!pattern.matches(&apex_n.unwrap()));
        let subdomain = normalize_host(&format!("{}.{apex}", sub.join(".")));
        prop_assume!(subdomain.is_some());
        prop_assert!(pattern.matches(&subdomain.unwrap()));
    }
}
