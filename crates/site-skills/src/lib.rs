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
//! ## Writing a package
//!
//! - `id` is `[a-z0-9-]`, at most 64 characters, and the folder's name.
//! - `domains` are lowercase hostnames (labels ≤ 63, total ≤ 253); declare
//!   the apex and `*.sub` separately — `*.x` covers subdomains only. Unicode
//!   names are accepted and stored in punycode; a wildcard over a public
//!   suffix (`*.com`, `*.github.io`) is refused.
//! - `notes` are `.md` files, empty by default: add one only for verified,
//!   lasting knowledge a schema or script cannot express.
//! - Each browser tool declares `description`, a relative `path`, `args`
//!   (`{type, required, description}`, types string / number / integer /
//!   boolean / array / object) and `returns` (`{type, description}`). An IIFE
//!   bundle names its table with `binding` + `callable` (both or neither);
//!   otherwise the script is one (async) function called with the args.
//! - Two optional tool fields: `action: true` marks a tool
//!   that acts on the page, and `pagination: {"scrollTool": "<tool>"}` makes
//!   the host collect a list tool (returns an array, declares an integer
//!   `limit`) across scrolls.
//! - Every path stays inside the package (no absolute path, backslash, `..`
//!   or symlink leading out); the manifest is at most 256 KiB and each note
//!   or script at most 1 MiB. Unknown fields are errors, so typos surface.
//! - A script returns the bare record on success and throws an `Error` whose
//!   message is the reason on failure.
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
