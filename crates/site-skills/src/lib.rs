//! # ferret-site-skills
//!
//! Site knowledge as validated packages, consumed by an agent through three
//! generic tools over a real browser.
//!
//! A *package* is a folder whose one required entry is `manifest.json`: an
//! id, a name, the domains it covers, optional Markdown notes, and the
//! page-context tools it declares (each a script in the package). Packages
//! are built in (embedded from `crates/site-skills/sites/*/` at build time)
//! or installed at run time, replacing a built-in one of the same id.
//!
//! - [`manifest`]: the package contract and its field rules;
//!   [`violation`]: every broken rule as file + field + rule.
//! - [`package`]: loading a package from disk (symlinks, sizes) or from the
//!   embedded files ([`embedded`]); [`domain`]: domain patterns and hostname
//!   matching (apex vs `*.`, case, trailing dot, IDN).
//! - [`registry`]: the installed packages, override roots, fail-closed
//!   removal, discovery by id and hostname.
//! - [`tools`]: `navigate_site`, `read_site_skills`, `run_site_browser_tool`
//!   over a [`ferret_browser::BrowserRuntime`] task space; [`args`]: schema
//!   checks of arguments and results; [`script`]: how a tool is injected;
//!   [`collector`]: the pagination collector for list tools.
//! - [`agent`]: the tools as JSON tool definitions and a name-based
//!   dispatcher; [`commands`]: envelopes for `ferret skills …`.
//! - [`native`]: the [`SiteSkill`] trait and native adapters (Rust
//!   functions, agent-tool factories, CLI handlers) — reached by id, never
//!   by hostname.
//! - [`error`]: the error type, [`SkillError`].
//!
//! ```no_run
//! # async fn demo(runtime: std::sync::Arc<dyn ferret_browser::BrowserRuntime>) -> Result<(), ferret_site_skills::SkillError> {
//! use std::sync::Arc;
//! use ferret_site_skills::{Registry, SiteTools};
//!
//! let tools = SiteTools::new(Arc::new(Registry::from_env()), runtime);
//! let context = tools.navigate_site("https://news.ycombinator.com/item?id=39232976").await?;
//! assert_eq!(context.skills[0].id, "hackernews");
//! let thread = tools.run_site_browser_tool("hackernews", "item", None).await?;
//! println!("{} comments", thread["comments_on_page"]);
//! # Ok(()) }
//! ```

pub mod agent;
pub mod args;
pub mod collector;
pub mod commands;
pub mod domain;
pub mod embedded;
pub mod error;
pub mod manifest;
pub mod native;
pub mod package;
pub mod registry;
pub mod script;
pub mod tools;
pub mod violation;

pub use agent::{ToolDefinition, tool_definitions};
pub use collector::{CollectStop, Collected, CollectorConfig};
pub use domain::{DomainPattern, normalize_host};
pub use error::{ErrorEnvelope, SkillError};
pub use manifest::{ArgSpec, BrowserTool, Manifest, ReturnSpec, ValueType};
pub use native::{NativeAdapters, NativeContext, NativeSiteAdapter, SiteSkill, SkillKind};
pub use package::{Note, Origin, Package, load_dir};
pub use registry::{OverrideRoots, Registry, RegistryIssue};
pub use tools::{SiteContext, SiteTools, SkillContext};
pub use violation::{Rule, ValidationError, Violation};
