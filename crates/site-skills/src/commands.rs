//! Entry points for `ferret skills list | show <id> | validate <dir> |
//! navigate <url> | run <site> <tool> --args JSON [--url URL]`, each
//! returning a serde envelope with a `schema` field (the CLI prints it with
//! `--json`). Failures are [`SkillError`]s; [`SkillError::envelope`] turns
//! one into `ferret.skills.error.v1`.

use ferret_core::Provenance;
use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::SkillError;
use crate::manifest::BrowserTool;
use crate::native::{NativeAdapters, SkillSummary};
use crate::package::{Note, Origin, load_dir};
use crate::registry::{Registry, RegistryIssue};
use crate::tools::{SiteTools, SkillContext};
use crate::violation::Violation;

/// `ferret skills list`'s schema.
pub const LIST_SCHEMA: &str = "ferret.skills.list.v1";
/// `ferret skills show`'s schema.
pub const SHOW_SCHEMA: &str = "ferret.skills.show.v1";
/// `ferret skills validate`'s schema.
pub const VALIDATE_SCHEMA: &str = "ferret.skills.validate.v1";
/// `ferret skills navigate`'s schema.
pub const NAVIGATE_SCHEMA: &str = "ferret.skills.navigate.v1";
/// `ferret skills run`'s schema.
pub const RUN_SCHEMA: &str = "ferret.skills.run.v1";

/// One installed package in a listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedSkill {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Where it came from (`{"kind": "built_in"}`, `{"kind": "home", "path": …}` …).
    pub origin: Origin,
    /// Its domains.
    pub domains: Vec<String>,
    /// Its note paths.
    pub notes: Vec<String>,
    /// Its browser tool names.
    pub browser_tools: Vec<String>,
}

/// `ferret skills list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListOutput {
    /// [`LIST_SCHEMA`].
    pub schema: String,
    /// The installed packages, by id.
    pub skills: Vec<ListedSkill>,
    /// The native adapters, by id (reached by id only, never by hostname).
    pub native: Vec<SkillSummary>,
    /// Packages skipped or removed while loading, with reasons.
    pub issues: Vec<RegistryIssue>,
}

/// List the installed packages (and native adapters, when given).
pub fn list(registry: &Registry, native: Option<&NativeAdapters>) -> ListOutput {
    ListOutput {
        schema: LIST_SCHEMA.into(),
        skills: registry
            .packages()
            .map(|p| ListedSkill {
                id: p.id().to_string(),
                name: p.name().to_string(),
                origin: p.origin().clone(),
                domains: p.manifest().domains.clone(),
                notes: p.manifest().notes.clone(),
                browser_tools: p.manifest().browser_tools.keys().cloned().collect(),
            })
            .collect(),
        native: native.map(NativeAdapters::summaries).unwrap_or_default(),
        issues: registry.issues().to_vec(),
    }
}

/// `ferret skills show <id>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShowOutput {
    /// [`SHOW_SCHEMA`].
    pub schema: String,
    /// The id.
    pub id: String,
    /// The display name.
    pub name: String,
    /// Where it came from.
    pub origin: Origin,
    /// Its domains.
    pub domains: Vec<String>,
    /// Its notes with their text.
    pub knowledge: Vec<Note>,
    /// Its browser tools' schemas.
    pub browser_tools: BTreeMap<String, BrowserTool>,
}

/// Show one installed package.
pub fn show(registry: &Registry, id: &str) -> Result<ShowOutput, SkillError> {
    let p = registry.get(id).ok_or_else(|| SkillError::UnknownSite {
        id: id.to_string(),
        installed: registry.ids().iter().map(|s| s.to_string()).collect(),
    })?;
    Ok(ShowOutput {
        schema: SHOW_SCHEMA.into(),
        id: p.id().to_string(),
        name: p.name().to_string(),
        origin: p.origin().clone(),
        domains: p.manifest().domains.clone(),
        knowledge: p.notes(),
        browser_tools: p.manifest().browser_tools.clone(),
    })
}

/// `ferret skills validate <dir>`: the verdict is in `valid` (the CLI exits
/// non-zero when it is false).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidateOutput {
    /// [`VALIDATE_SCHEMA`].
    pub schema: String,
    /// The folder checked.
    pub dir: String,
    /// Whether the package is valid.
    pub valid: bool,
    /// Its id, when valid.
    pub id: Option<String>,
    /// Its domains, when valid.
    pub domains: Vec<String>,
    /// Its notes, when valid.
    pub notes: Vec<String>,
    /// Its browser tool names, when valid.
    pub browser_tools: Vec<String>,
    /// Every violation found (empty when valid).
    pub violations: Vec<Violation>,
}

/// Validate the package in folder `dir` with every rule, on the real file
/// system.
pub fn validate(dir: &Path) -> ValidateOutput {
    let base = ValidateOutput {
        schema: VALIDATE_SCHEMA.into(),
        dir: dir.display().to_string(),
        valid: false,
        id: None,
        domains: Vec::new(),
        notes: Vec::new(),
        browser_tools: Vec::new(),
        violations: Vec::new(),
    };
    match load_dir(dir, Origin::Directory(dir.to_path_buf())) {
        Ok(p) => ValidateOutput {
            valid: true,
            id: Some(p.id().to_string()),
            domains: p.manifest().domains.clone(),
            notes: p.manifest().notes.clone(),
            browser_tools: p.manifest().browser_tools.keys().cloned().collect(),
            ..base
        },
        Err(e) => ValidateOutput {
            violations: e.violations,
            ..base
        },
    }
}

/// `ferret skills navigate <url>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NavigateOutput {
    /// [`NAVIGATE_SCHEMA`].
    pub schema: String,
    /// The page's real URL after navigation.
    pub url: String,
    /// The skills covering it.
    pub skills: Vec<SkillContext>,
    /// Who read the page: the browser that ran.
    pub provenance: Provenance,
}

/// navigate_site, as an envelope.
pub async fn navigate(tools: &SiteTools, url: &str) -> Result<NavigateOutput, SkillError> {
    let context = tools.navigate_site(url).await?;
    Ok(NavigateOutput {
        schema: NAVIGATE_SCHEMA.into(),
        url: context.url,
        skills: context.skills,
        provenance: tools.provenance(),
    })
}

/// `ferret skills run <site> <tool>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutput {
    /// [`RUN_SCHEMA`].
    pub schema: String,
    /// The package id.
    pub site_id: String,
    /// The tool.
    pub tool_name: String,
    /// The page it ran on.
    pub url: String,
    /// The tool's record, as returned.
    pub result: Value,
    /// Who read it: the browser that ran the tool (login data when it was
    /// the user's own browser or the persistent profile).
    pub provenance: Provenance,
}

/// Parse `--args` JSON (must be an object; empty means `{}`).
pub fn parse_args_json(text: &str) -> Result<Value, SkillError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| SkillError::InvalidInput {
        message: format!("--args is not valid JSON: {e}"),
    })?;
    if !value.is_object() {
        return Err(SkillError::InvalidInput {
            message: format!(
                "--args must be a JSON object such as '{{\"limit\": 20}}', not {}",
                crate::manifest::json_type_name(&value)
            ),
        });
    }
    Ok(value)
}

/// run_site_browser_tool, as an envelope. With `url`, navigate_site there
/// first (a fresh CLI process has no page open).
pub async fn run(
    tools: &SiteTools,
    site_id: &str,
    tool_name: &str,
    args: Option<&Value>,
    url: Option<&str>,
) -> Result<RunOutput, SkillError> {
    let page_url = match url {
        Some(url) => tools.navigate_site(url).await?.url,
        None => tools.read_site_skills().await?.url,
    };
    let result = tools
        .run_site_browser_tool(site_id, tool_name, args)
        .await?;
    Ok(RunOutput {
        schema: RUN_SCHEMA.into(),
        site_id: site_id.to_string(),
        tool_name: tool_name.to_string(),
        url: page_url,
        result,
        provenance: tools.provenance(),
    })
}
