//! The three generic tools an agent uses to consume packages, over a
//! [`BrowserRuntime`] task space:
//!
//! - [`SiteTools::navigate_site`]: open an HTTPS URL on a domain an
//!   installed package covers, then re-check the page's real URL and return
//!   the matching skills (notes and tool schemas);
//! - [`SiteTools::read_site_skills`]: rediscover skills from the page's real
//!   hostname;
//! - [`SiteTools::run_site_browser_tool`]: run one declared tool after
//!   re-checking the page's domain against that package and the arguments
//!   against its schema, then check the result's type. List tools declaring
//!   `pagination` are collected across scrolls ([`crate::collector`]).
//!
//! A success is the bare record the tool returned; a failure is a
//! [`SkillError`] carrying the reason.

use ferret_core::Provenance;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use ferret_browser::{BrowserError, BrowserRuntime, PageInfo, TaskSpaceSpec, WaitFor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::args::{check_return, validate_args};
use crate::collector::{Collected, CollectorConfig, collect};
use crate::domain::host_of_url;
use crate::error::SkillError;
use crate::manifest::{BrowserTool, json_type_name};
use crate::package::{Note, Package};
use crate::registry::Registry;
use crate::script::{exception_reason, tool_expression};

/// The task space the tools use unless told otherwise.
pub const DEFAULT_SPACE: &str = "site-skills";
/// navigate_site's budget: 60 s.
pub const NAVIGATE_TIMEOUT: Duration = Duration::from_secs(60);
/// A page tool's budget.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// One matching skill as an agent sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillContext {
    /// The package id (the `site_id` for run_site_browser_tool).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The domains it covers.
    pub domains: Vec<String>,
    /// Its notes, loaded.
    pub knowledge: Vec<Note>,
    /// Its tools' schemas, by name.
    pub browser_tools: BTreeMap<String, BrowserTool>,
}

impl SkillContext {
    /// The context of a package.
    pub fn of(package: &Package) -> Self {
        SkillContext {
            id: package.id().to_string(),
            name: package.name().to_string(),
            domains: package.manifest().domains.clone(),
            knowledge: package.notes(),
            browser_tools: package.manifest().browser_tools.clone(),
        }
    }
}

/// What navigate_site and read_site_skills return: the page's real URL and
/// the skills covering it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SiteContext {
    /// The active page's URL.
    pub url: String,
    /// The skills covering its hostname, by id.
    pub skills: Vec<SkillContext>,
}

/// The three tools over one task space of a browser runtime.
#[derive(Debug, Clone)]
pub struct SiteTools {
    registry: Arc<Registry>,
    runtime: Arc<dyn BrowserRuntime>,
    space: String,
    wait: WaitFor,
    navigate_timeout: Duration,
    tool_timeout: Duration,
    collector: CollectorConfig,
}

impl SiteTools {
    /// Tools over `runtime`'s task space [`DEFAULT_SPACE`], with the
    /// packages of `registry`.
    pub fn new(registry: Arc<Registry>, runtime: Arc<dyn BrowserRuntime>) -> Self {
        SiteTools {
            registry,
            runtime,
            space: DEFAULT_SPACE.to_string(),
            wait: WaitFor::Load,
            navigate_timeout: NAVIGATE_TIMEOUT,
            tool_timeout: TOOL_TIMEOUT,
            collector: CollectorConfig::default(),
        }
    }

    /// Use the task space `space`.
    pub fn space(mut self, space: impl Into<String>) -> Self {
        self.space = space.into();
        self
    }

    /// What navigate_site waits for after loading (default: `load`).
    pub fn wait(mut self, wait: WaitFor) -> Self {
        self.wait = wait;
        self
    }

    /// navigate_site's budget (default 60 s).
    pub fn navigate_timeout(mut self, timeout: Duration) -> Self {
        self.navigate_timeout = timeout;
        self
    }

    /// A page tool's budget (default 60 s).
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.tool_timeout = timeout;
        self
    }

    /// The pagination collector's numbers.
    pub fn collector(mut self, config: CollectorConfig) -> Self {
        self.collector = config;
        self
    }

    /// What the tools read as: the provenance of the browser that runs
    /// them (the one that served the last call, once one ran).
    pub fn provenance(&self) -> Provenance {
        self.runtime.provenance()
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The runtime.
    pub fn runtime(&self) -> &Arc<dyn BrowserRuntime> {
        &self.runtime
    }

    /// The task space name.
    pub fn space_name(&self) -> &str {
        &self.space
    }

    /// Open an HTTPS `url` on a domain an installed skill covers, wait for
    /// the page, re-check where the tab really is, and return the skills
    /// covering it.
    pub async fn navigate_site(&self, url: &str) -> Result<SiteContext, SkillError> {
        let parsed = check_navigation_url(url)?;
        let host = host_of_url(parsed.as_str()).ok_or_else(|| SkillError::BadUrl {
            url: url.to_string(),
            message: "it has no domain name host (site skills cover hostnames)".into(),
        })?;
        if self.registry.for_host(&host).is_empty() {
            return Err(SkillError::NotCovered {
                url: parsed.to_string(),
                host,
            });
        }
        self.runtime
            .open_space(&TaskSpaceSpec::new(self.space.clone()))
            .await?;
        let navigation = self
            .runtime
            .navigate(&self.space, parsed.as_str(), &self.wait);
        match tokio::time::timeout(self.navigate_timeout, navigation).await {
            Err(_) => {
                return Err(SkillError::Timeout {
                    operation: format!("navigate_site {parsed}"),
                    after: self.navigate_timeout,
                });
            }
            Ok(result) => {
                result?;
            }
        }
        let page = self.page().await?;
        let landed_https = page.url.starts_with("https://");
        let context = self.context_for(&page.url);
        if !landed_https || context.skills.is_empty() {
            return Err(SkillError::LeftCoveredDomains {
                requested: parsed.to_string(),
                landed: page.url,
                https: landed_https,
            });
        }
        Ok(context)
    }

    /// The skills covering the active page's real hostname (none when no
    /// skill covers it).
    pub async fn read_site_skills(&self) -> Result<SiteContext, SkillError> {
        let page = self.page().await?;
        Ok(self.context_for(&page.url))
    }

    /// Run the browser tool `tool_name` declared by package `site_id` on the
    /// active page with `args` (absent means `{}`). Returns the tool's bare
    /// result.
    pub async fn run_site_browser_tool(
        &self,
        site_id: &str,
        tool_name: &str,
        args: Option<&Value>,
    ) -> Result<Value, SkillError> {
        let (package, tool) = self.declared(site_id, tool_name)?;
        let args = validate_args(tool, args).map_err(|problems| SkillError::InvalidArgs {
            site: site_id.to_string(),
            tool: tool_name.to_string(),
            problems,
        })?;
        if let Some(pagination) = &tool.pagination {
            let viewport_only = args.get("viewport_only") == Some(&Value::Bool(true));
            if !viewport_only {
                let scroll = pagination.scroll_tool.clone();
                let collected = self
                    .collect_pages(&package, tool_name, tool, &scroll, args)
                    .await?;
                return Ok(Value::Array(collected.items));
            }
        }
        self.run_once(&package, tool_name, tool, &args).await
    }

    /// Collect a paginated tool across scrolls and report how it went
    /// (run_site_browser_tool returns only the items).
    pub async fn collect(
        &self,
        site_id: &str,
        tool_name: &str,
        args: Option<&Value>,
    ) -> Result<Collected, SkillError> {
        let (package, tool) = self.declared(site_id, tool_name)?;
        let args = validate_args(tool, args).map_err(|problems| SkillError::InvalidArgs {
            site: site_id.to_string(),
            tool: tool_name.to_string(),
            problems,
        })?;
        let Some(pagination) = &tool.pagination else {
            return Err(SkillError::InvalidInput {
                message: format!(
                    "{site_id}.{tool_name} declares no pagination; call run_site_browser_tool"
                ),
            });
        };
        let scroll = pagination.scroll_tool.clone();
        self.collect_pages(&package, tool_name, tool, &scroll, args)
            .await
    }

    fn declared(
        &self,
        site_id: &str,
        tool_name: &str,
    ) -> Result<(Arc<Package>, &BrowserTool), SkillError> {
        let package = self
            .registry
            .get(site_id)
            .ok_or_else(|| SkillError::UnknownSite {
                id: site_id.to_string(),
                installed: self.registry.ids().iter().map(|s| s.to_string()).collect(),
            })?;
        let tool = package
            .tool(tool_name)
            .ok_or_else(|| SkillError::UndeclaredTool {
                site: site_id.to_string(),
                tool: tool_name.to_string(),
                declared: package.manifest().browser_tools.keys().cloned().collect(),
            })?;
        Ok((package.clone(), tool))
    }

    async fn collect_pages(
        &self,
        package: &Arc<Package>,
        tool_name: &str,
        tool: &BrowserTool,
        scroll_name: &str,
        mut args: Map<String, Value>,
    ) -> Result<Collected, SkillError> {
        let scroll_tool = package
            .tool(scroll_name)
            .ok_or_else(|| SkillError::UndeclaredTool {
                site: package.id().to_string(),
                tool: scroll_name.to_string(),
                declared: package.manifest().browser_tools.keys().cloned().collect(),
            })?;
        let target = self
            .collector
            .target(args.get("limit").and_then(Value::as_u64));
        args.insert("limit".into(), Value::from(target as u64));
        if args.contains_key("viewport_only") {
            args.insert("viewport_only".into(), Value::Bool(false));
        }
        let no_args = Map::new();
        let (args, no_args) = (&args, &no_args);
        collect(
            &self.collector,
            target,
            self.collector.wait_for(tool_name),
            move || async move {
                match self.run_once(package, tool_name, tool, args).await? {
                    Value::Array(items) => Ok(items),
                    other => Err(SkillError::ReturnType {
                        site: package.id().to_string(),
                        tool: tool_name.to_string(),
                        expected: crate::manifest::ValueType::Array,
                        got: json_type_name(&other).to_string(),
                    }),
                }
            },
            move || async move {
                let report = self
                    .run_once(package, scroll_name, scroll_tool, no_args)
                    .await?;
                Ok(report
                    .get("at_end")
                    .and_then(Value::as_bool)
                    .unwrap_or(false))
            },
        )
        .await
    }

    /// One checked run: page domain re-checked, script injected, result
    /// type checked.
    async fn run_once(
        &self,
        package: &Package,
        tool_name: &str,
        tool: &BrowserTool,
        args: &Map<String, Value>,
    ) -> Result<Value, SkillError> {
        let site = package.id();
        let page = self.page().await?;
        let on_domain = page.url.starts_with("https://")
            && host_of_url(&page.url).is_some_and(|h| package.covers_host(&h));
        if !on_domain {
            return Err(SkillError::DomainMismatch {
                site: site.to_string(),
                url: page.url,
                domains: package.manifest().domains.clone(),
            });
        }
        let source = package.resource(&tool.path).unwrap_or_default();
        let expression = tool_expression(site, tool_name, tool, source, args);
        let evaluation = self.runtime.evaluate(&self.space, &expression);
        let value = match tokio::time::timeout(self.tool_timeout, evaluation).await {
            Err(_) => {
                return Err(SkillError::Timeout {
                    operation: format!("{site}.{tool_name}"),
                    after: self.tool_timeout,
                });
            }
            Ok(Err(BrowserError::Script { message })) => {
                return Err(SkillError::ToolFailed {
                    site: site.to_string(),
                    tool: tool_name.to_string(),
                    reason: exception_reason(&message),
                });
            }
            Ok(result) => result?,
        };
        check_return(tool, &value).map_err(|got| SkillError::ReturnType {
            site: site.to_string(),
            tool: tool_name.to_string(),
            expected: tool.returns.ty,
            got: got.to_string(),
        })?;
        Ok(value)
    }

    async fn page(&self) -> Result<PageInfo, SkillError> {
        let no_page = || SkillError::NoPage {
            space: self.space.clone(),
        };
        match self.runtime.current_page(&self.space).await {
            Ok(Some(page)) if !page.url.is_empty() && page.url != "about:blank" => Ok(page),
            Ok(_) | Err(BrowserError::NoSuchSpace { .. }) => Err(no_page()),
            Err(e) => Err(e.into()),
        }
    }

    fn context_for(&self, url: &str) -> SiteContext {
        let skills = if url.starts_with("https://") {
            self.registry
                .for_url(url)
                .iter()
                .map(|p| SkillContext::of(p))
                .collect()
        } else {
            Vec::new()
        };
        SiteContext {
            url: url.to_string(),
            skills,
        }
    }
}

/// navigate_site's URL rules: absolute, HTTPS, no credentials, a host.
pub fn check_navigation_url(url: &str) -> Result<url::Url, SkillError> {
    let parsed = url::Url::parse(url.trim()).map_err(|e| SkillError::BadUrl {
        url: url.to_string(),
        message: e.to_string(),
    })?;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        let mut redacted = parsed.clone();
        let _ = redacted.set_username("");
        let _ = redacted.set_password(None);
        return Err(SkillError::Credentials {
            url: redacted.to_string(),
        });
    }
    if parsed.scheme() != "https" {
        return Err(SkillError::NotHttps {
            url: parsed.to_string(),
        });
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(SkillError::BadUrl {
            url: url.to_string(),
            message: "it has no host".into(),
        });
    }
    Ok(parsed)
}
