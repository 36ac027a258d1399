//! Engine configuration from environment variables — read only at the edges
//! (the CLI, examples, an agent's `main`), never inside the library.
//!
//! | engine | enabled when | other variables |
//! |---|---|---|
//! | `brave` | `BRAVE_API_KEY` | `BRAVE_API_BASE` |
//! | `exa` | `EXA_API_KEY` | `EXA_API_BASE` |
//! | `tavily` | `TAVILY_API_KEY` | `TAVILY_API_BASE` |
//! | `grok` | `GROK_API_URL` and `GROK_API_KEY` | `GROK_MODEL` |
//! | `searxng` | `SEARXNG_URL` | — |
//! | `duckduckgo` | always (keyless) | `DUCKDUCKGO_API_BASE` |
//! | `bing` | always (keyless) | `BING_API_BASE` |
//! | `wikipedia` | always (keyless) | `WIKIPEDIA_API_BASE`, `WIKIPEDIA_LANG` |
//! | `github` | always (keyless; `GITHUB_TOKEN` raises the rate limit) | `GITHUB_API_BASE` |
//!
//! `FERRET_OFFLINE=1` turns every network engine off (only the local index
//! and caller rows remain). Unset engines are listed in
//! [`EnvEngines::notes`] with the variable that would enable them.

use std::sync::Arc;

use ferret_core::DynEngine;
use ferret_engines::bing::BingEngine;
use ferret_engines::brave::BraveEngine;
use ferret_engines::duckduckgo::DuckDuckGoEngine;
use ferret_engines::exa::ExaEngine;
use ferret_engines::github::GithubEngine;
use ferret_engines::llm::GrokEngine;
use ferret_engines::searxng::SearxngEngine;
use ferret_engines::tavily::TavilyEngine;
use ferret_engines::wikipedia::WikipediaEngine;

use crate::error::FerretError;

/// Network engines built from the environment, and a note for each one that
/// is not configured.
#[derive(Debug, Default)]
pub struct EnvEngines {
    /// The configured engines, in the order searches report them.
    pub engines: Vec<DynEngine>,
    /// One line per engine that is off, saying how to turn it on.
    pub notes: Vec<String>,
}

/// Build every network engine the environment configures. `lookup` reads a
/// variable (pass `|k| std::env::var(k).ok()`; tests pass a map).
pub fn engines_from_env(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<EnvEngines, FerretError> {
    let get = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
    let mut out = EnvEngines::default();
    if get("FERRET_OFFLINE").is_some_and(|v| truthy(&v)) {
        out.notes
            .push("network engines off (FERRET_OFFLINE is set)".to_string());
        return Ok(out);
    }
    add_keyed_engines(&get, &mut out)?;
    add_keyless_engines(&get, &mut out)?;
    Ok(out)
}

/// Reads an environment variable (`None` when unset or blank).
type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

fn config_error(name: &'static str, e: ferret_engines::http::ConfigError) -> FerretError {
    FerretError::Config {
        engine: name.to_string(),
        message: e.to_string(),
    }
}

/// The engines that need a key or a URL; each one missing leaves a note
/// naming the variable.
fn add_keyed_engines(get: Lookup<'_>, out: &mut EnvEngines) -> Result<(), FerretError> {
    let cfg = config_error;
    match get("BRAVE_API_KEY") {
        Some(key) => {
            let mut b = BraveEngine::builder().api_key(key);
            if let Some(base) = get("BRAVE_API_BASE") {
                b = b.base_url(base);
            }
            out.engines
                .push(Arc::new(b.build().map_err(|e| cfg("brave", e))?));
        }
        None => out.notes.push("brave: off (set BRAVE_API_KEY)".into()),
    }
    match get("EXA_API_KEY") {
        Some(key) => {
            let mut b = ExaEngine::builder().api_key(key);
            if let Some(base) = get("EXA_API_BASE").or_else(|| get("EXA_API_URL")) {
                b = b.base_url(base);
            }
            out.engines
                .push(Arc::new(b.build().map_err(|e| cfg("exa", e))?));
        }
        None => out.notes.push("exa: off (set EXA_API_KEY)".into()),
    }
    match get("TAVILY_API_KEY") {
        Some(key) => {
            let mut b = TavilyEngine::builder().api_key(key);
            if let Some(base) = get("TAVILY_API_BASE") {
                b = b.base_url(base);
            }
            out.engines
                .push(Arc::new(b.build().map_err(|e| cfg("tavily", e))?));
        }
        None => out.notes.push("tavily: off (set TAVILY_API_KEY)".into()),
    }
    match (get("GROK_API_URL"), get("GROK_API_KEY")) {
        (Some(url), Some(key)) => {
            let mut b = GrokEngine::builder().api_url(url).api_key(key);
            if let Some(model) = get("GROK_MODEL") {
                b = b.model(model);
            }
            out.engines
                .push(Arc::new(b.build().map_err(|e| cfg("grok", e))?));
        }
        _ => out
            .notes
            .push("grok: off (set GROK_API_URL and GROK_API_KEY)".into()),
    }
    match get("SEARXNG_URL") {
        Some(url) => {
            let e = SearxngEngine::builder()
                .base_url(url)
                .build()
                .map_err(|e| cfg("searxng", e))?;
            out.engines.push(Arc::new(e));
        }
        None => out.notes.push("searxng: off (set SEARXNG_URL)".into()),
    }
    Ok(())
}

/// The engines that are always on (their base URLs can be moved).
fn add_keyless_engines(get: Lookup<'_>, out: &mut EnvEngines) -> Result<(), FerretError> {
    let cfg = config_error;
    let mut ddg = DuckDuckGoEngine::builder();
    if let Some(base) = get("DUCKDUCKGO_API_BASE") {
        ddg = ddg.base_url(base);
    }
    out.engines
        .push(Arc::new(ddg.build().map_err(|e| cfg("duckduckgo", e))?));

    let mut bing = BingEngine::builder();
    if let Some(base) = get("BING_API_BASE") {
        bing = bing.base_url(base);
    }
    out.engines
        .push(Arc::new(bing.build().map_err(|e| cfg("bing", e))?));

    let mut wiki = WikipediaEngine::builder();
    if let Some(base) = get("WIKIPEDIA_API_BASE") {
        wiki = wiki.base_url(base);
    }
    if let Some(lang) = get("WIKIPEDIA_LANG") {
        wiki = wiki.language(lang);
    }
    out.engines
        .push(Arc::new(wiki.build().map_err(|e| cfg("wikipedia", e))?));

    let mut gh = GithubEngine::builder();
    if let Some(base) = get("GITHUB_API_BASE") {
        gh = gh.base_url(base);
    }
    if let Some(token) = get("GITHUB_TOKEN") {
        gh = gh.token(token);
    }
    out.engines
        .push(Arc::new(gh.build().map_err(|e| cfg("github", e))?));
    Ok(())
}

/// Ferret's home folder: `FERRET_HOME`, else `$HOME/.local/share/ferret`
/// (`None` when neither is set). It holds the local index, the SQLite cache,
/// the pro-mode state, the persistent browser profile and local site skills.
pub fn ferret_home(lookup: impl Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    let get = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
    if let Some(home) = get("FERRET_HOME") {
        return Some(std::path::PathBuf::from(home));
    }
    get("HOME").map(|h| {
        std::path::Path::new(&h)
            .join(".local")
            .join("share")
            .join("ferret")
    })
}

/// Whether an environment value means "on" (`1`, `true`, `yes`, `on`).
pub fn truthy(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn names(e: &EnvEngines) -> Vec<&str> {
        e.engines.iter().map(|e| e.name()).collect()
    }

    #[test]
    fn keyless_engines_are_always_on_and_keyed_ones_say_what_to_set() {
        let env = engines_from_env(|_| None).unwrap();
        assert_eq!(
            names(&env),
            vec!["duckduckgo", "bing", "wikipedia", "github"]
        );
        assert!(env.notes.iter().any(|n| n.contains("BRAVE_API_KEY")));
        assert!(env.notes.iter().any(|n| n.contains("GROK_API_URL")));
    }

    #[test]
    fn keys_and_urls_turn_engines_on() {
        let vars: HashMap<&str, &str> = [
            ("BRAVE_API_KEY", "k"),
            ("EXA_API_KEY", "k"),
            ("TAVILY_API_KEY", "k"),
            ("GROK_API_URL", "https://api.x.ai/v1"),
            ("GROK_API_KEY", "k"),
            ("SEARXNG_URL", "https://searx.example.org"),
        ]
        .into_iter()
        .collect();
        let env = engines_from_env(|k| vars.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(
            names(&env),
            vec![
                "brave",
                "exa",
                "tavily",
                "grok",
                "searxng",
                "duckduckgo",
                "bing",
                "wikipedia",
                "github"
            ]
        );
        assert!(env.notes.is_empty(), "{:?}", env.notes);
    }

    #[test]
    fn home_prefers_ferret_home_then_the_xdg_default() {
        let h = ferret_home(|k| (k == "FERRET_HOME").then(|| "/srv/f".to_string()));
        assert_eq!(h.unwrap(), std::path::PathBuf::from("/srv/f"));
        let h = ferret_home(|k| (k == "HOME").then(|| "/home/a".to_string()));
        assert_eq!(
            h.unwrap(),
            std::path::PathBuf::from("/home/a/.local/share/ferret")
        );
        assert!(ferret_home(|_| None).is_none());
    }

    #[test]
    fn offline_turns_every_network_engine_off() {
        let env = engines_from_env(|k| (k == "FERRET_OFFLINE").then(|| "1".to_string())).unwrap();
        assert!(env.engines.is_empty());
        assert_eq!(env.notes.len(), 1);
    }

    #[test]
    fn a_bad_base_url_is_a_config_error_naming_the_engine() {
        let err = engines_from_env(|k| match k {
            "BRAVE_API_KEY" => Some("k".into()),
            "BRAVE_API_BASE" => Some("not a url".into()),
            _ => None,
        })
        .unwrap_err();
        assert!(err.to_string().contains("brave"), "{err}");
    }
}
