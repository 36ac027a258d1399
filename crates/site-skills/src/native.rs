//! [`SiteSkill`], what every site capability says about itself, and native
//! adapters: site capabilities written in Rust.
//!
//! A native adapter exists only for work a page script cannot do — a
//! multi-step CDP state machine, long waits, media download, a stable
//! `ferret <site> <command>` workflow, strongly typed results shared by
//! several tools. It binds Rust functions, agent-tool factories and CLI
//! command handlers to an id, and nothing else: it declares no domains, no
//! notes and no page scripts, it is never found by hostname (discovery is
//! the [`crate::Registry`]'s, over packages only), and it does not decide a
//! package's file layout. Pure DOM capabilities belong in a package's
//! manifest as browser tools.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use ferret_browser::BrowserRuntime;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::ToolDefinition;
use crate::error::SkillError;
use crate::manifest::is_valid_id;
use crate::package::Package;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Which kind of site capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillKind {
    /// A manifest package (notes and page scripts), discovered by hostname.
    Package,
    /// A native adapter (Rust functions), reached by id only.
    Native,
}

/// What a site capability says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillSummary {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Package or native.
    pub kind: SkillKind,
    /// What it can run: browser tools for a package; functions, agent tools
    /// and commands for a native adapter.
    pub capabilities: Vec<String>,
}

/// A site capability known by id: a validated package or a native adapter.
pub trait SiteSkill: Send + Sync {
    /// The id.
    fn id(&self) -> &str;
    /// The display name.
    fn name(&self) -> &str;
    /// Package or native.
    fn kind(&self) -> SkillKind;
    /// The names of what it can run.
    fn capabilities(&self) -> Vec<String>;

    /// Id, name, kind and capabilities together.
    fn summary(&self) -> SkillSummary {
        SkillSummary {
            id: self.id().to_string(),
            name: self.name().to_string(),
            kind: self.kind(),
            capabilities: self.capabilities(),
        }
    }
}

impl SiteSkill for Package {
    fn id(&self) -> &str {
        Package::id(self)
    }

    fn name(&self) -> &str {
        Package::name(self)
    }

    fn kind(&self) -> SkillKind {
        SkillKind::Package
    }

    fn capabilities(&self) -> Vec<String> {
        self.manifest().browser_tools.keys().cloned().collect()
    }
}

/// What a native handler gets besides its arguments.
#[derive(Debug, Clone)]
pub struct NativeContext {
    /// The browser runtime, when the host has one.
    pub runtime: Option<Arc<dyn BrowserRuntime>>,
    /// The task space to work in.
    pub space: String,
}

impl NativeContext {
    /// A context without a browser.
    pub fn without_browser() -> Self {
        NativeContext {
            runtime: None,
            space: crate::tools::DEFAULT_SPACE.to_string(),
        }
    }

    /// A context over `runtime`'s task space `space`.
    pub fn with_browser(runtime: Arc<dyn BrowserRuntime>, space: impl Into<String>) -> Self {
        NativeContext {
            runtime: Some(runtime),
            space: space.into(),
        }
    }
}

/// A native function: JSON arguments in, JSON record out.
pub type NativeFn =
    Arc<dyn Fn(NativeContext, Value) -> BoxFuture<Result<Value, SkillError>> + Send + Sync>;

/// A CLI command handler: the arguments after `ferret <site> <command>`.
pub type CommandFn =
    Arc<dyn Fn(NativeContext, Vec<String>) -> BoxFuture<Result<Value, SkillError>> + Send + Sync>;

/// An agent tool a native adapter provides.
#[derive(Clone)]
pub struct AgentTool {
    /// Its definition for the agent framework.
    pub definition: ToolDefinition,
    /// What runs when the agent calls it.
    pub handler: NativeFn,
}

impl std::fmt::Debug for AgentTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentTool")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}

/// Builds an adapter's agent tools for a context.
pub type AgentToolFactory = Arc<dyn Fn(&NativeContext) -> Vec<AgentTool> + Send + Sync>;

#[derive(Clone)]
struct Named<F> {
    about: String,
    handler: F,
}

/// Rust-implemented capabilities of one site, bound to an id.
#[derive(Clone)]
pub struct NativeSiteAdapter {
    id: String,
    name: String,
    functions: BTreeMap<String, Named<NativeFn>>,
    factories: Vec<AgentToolFactory>,
    commands: BTreeMap<String, Named<CommandFn>>,
}

impl std::fmt::Debug for NativeSiteAdapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSiteAdapter")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("functions", &self.functions.keys().collect::<Vec<_>>())
            .field("agent_tool_factories", &self.factories.len())
            .field("commands", &self.commands.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl NativeSiteAdapter {
    /// An adapter with id `id` (`[a-z0-9-]`, ≤ 64) and display name `name`.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Result<Self, SkillError> {
        let id = id.into();
        if !is_valid_id(&id) {
            return Err(SkillError::InvalidInput {
                message: format!(
                    "{id:?} is not a valid site id (lowercase letters, digits, hyphens, at most 64)"
                ),
            });
        }
        Ok(NativeSiteAdapter {
            id,
            name: name.into(),
            functions: BTreeMap::new(),
            factories: Vec::new(),
            commands: BTreeMap::new(),
        })
    }

    /// Bind a function (a `fn` or a closure returning a future).
    pub fn function<F, Fut>(
        mut self,
        name: impl Into<String>,
        about: impl Into<String>,
        f: F,
    ) -> Self
    where
        F: Fn(NativeContext, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, SkillError>> + Send + 'static,
    {
        let handler: NativeFn = Arc::new(move |ctx, args| Box::pin(f(ctx, args)));
        self.functions.insert(
            name.into(),
            Named {
                about: about.into(),
                handler,
            },
        );
        self
    }

    /// Add an agent-tool factory.
    pub fn agent_tools<F>(mut self, factory: F) -> Self
    where
        F: Fn(&NativeContext) -> Vec<AgentTool> + Send + Sync + 'static,
    {
        self.factories.push(Arc::new(factory));
        self
    }

    /// Bind a CLI command handler (`ferret <id> <name> …`).
    pub fn command<F, Fut>(
        mut self,
        name: impl Into<String>,
        about: impl Into<String>,
        f: F,
    ) -> Self
    where
        F: Fn(NativeContext, Vec<String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, SkillError>> + Send + 'static,
    {
        let handler: CommandFn = Arc::new(move |ctx, argv| Box::pin(f(ctx, argv)));
        self.commands.insert(
            name.into(),
            Named {
                about: about.into(),
                handler,
            },
        );
        self
    }

    /// The bound function names with their descriptions.
    pub fn functions(&self) -> Vec<(&str, &str)> {
        self.functions
            .iter()
            .map(|(k, v)| (k.as_str(), v.about.as_str()))
            .collect()
    }

    /// The bound command names with their descriptions.
    pub fn commands(&self) -> Vec<(&str, &str)> {
        self.commands
            .iter()
            .map(|(k, v)| (k.as_str(), v.about.as_str()))
            .collect()
    }

    /// Call a bound function.
    pub async fn call(
        &self,
        ctx: NativeContext,
        function: &str,
        args: Value,
    ) -> Result<Value, SkillError> {
        let f = self
            .functions
            .get(function)
            .ok_or_else(|| SkillError::Native {
                message: format!(
                    "native adapter {:?} has no function {function:?} (functions: {})",
                    self.id,
                    self.functions
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })?;
        (f.handler)(ctx, args).await
    }

    /// Run a bound command.
    pub async fn run_command(
        &self,
        ctx: NativeContext,
        command: &str,
        argv: Vec<String>,
    ) -> Result<Value, SkillError> {
        let c = self
            .commands
            .get(command)
            .ok_or_else(|| SkillError::Native {
                message: format!(
                    "`ferret {} {command}` does not exist (commands: {})",
                    self.id,
                    self.commands.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            })?;
        (c.handler)(ctx, argv).await
    }

    /// The agent tools its factories build for `ctx`.
    pub fn build_agent_tools(&self, ctx: &NativeContext) -> Vec<AgentTool> {
        self.factories.iter().flat_map(|f| f(ctx)).collect()
    }
}

impl SiteSkill for NativeSiteAdapter {
    fn id(&self) -> &str {
        &self.id
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> SkillKind {
        SkillKind::Native
    }

    fn capabilities(&self) -> Vec<String> {
        let ctx = NativeContext::without_browser();
        self.functions
            .keys()
            .map(|f| format!("fn:{f}"))
            .chain(
                self.build_agent_tools(&ctx)
                    .into_iter()
                    .map(|t| format!("tool:{}", t.definition.name)),
            )
            .chain(self.commands.keys().map(|c| format!("command:{c}")))
            .collect()
    }
}

/// The native adapters of a program, by id. Lookup is by id only: nothing
/// here maps a hostname to an adapter.
#[derive(Debug, Clone, Default)]
pub struct NativeAdapters {
    adapters: BTreeMap<String, Arc<NativeSiteAdapter>>,
}

impl NativeAdapters {
    /// No adapters.
    pub fn new() -> Self {
        NativeAdapters::default()
    }

    /// Register an adapter; a second adapter with the same id is refused.
    pub fn register(&mut self, adapter: NativeSiteAdapter) -> Result<(), SkillError> {
        if self.adapters.contains_key(&adapter.id) {
            return Err(SkillError::Native {
                message: format!("a native adapter {:?} is already registered", adapter.id),
            });
        }
        self.adapters.insert(adapter.id.clone(), Arc::new(adapter));
        Ok(())
    }

    /// The adapter with this id.
    pub fn get(&self, id: &str) -> Option<&Arc<NativeSiteAdapter>> {
        self.adapters.get(id)
    }

    /// Every adapter's summary, by id.
    pub fn summaries(&self) -> Vec<SkillSummary> {
        self.adapters.values().map(|a| a.summary()).collect()
    }

    /// The ids.
    pub fn ids(&self) -> Vec<&str> {
        self.adapters.keys().map(String::as_str).collect()
    }

    /// Every adapter's agent tools for `ctx`.
    pub fn agent_tools(&self, ctx: &NativeContext) -> Vec<AgentTool> {
        self.adapters
            .values()
            .flat_map(|a| a.build_agent_tools(ctx))
            .collect()
    }

    /// Call `function` of adapter `id`.
    pub async fn call(
        &self,
        id: &str,
        function: &str,
        ctx: NativeContext,
        args: Value,
    ) -> Result<Value, SkillError> {
        self.adapter(id)?.call(ctx, function, args).await
    }

    /// Run `ferret <id> <command> argv…`.
    pub async fn run_command(
        &self,
        id: &str,
        command: &str,
        ctx: NativeContext,
        argv: Vec<String>,
    ) -> Result<Value, SkillError> {
        self.adapter(id)?.run_command(ctx, command, argv).await
    }

    fn adapter(&self, id: &str) -> Result<&Arc<NativeSiteAdapter>, SkillError> {
        self.adapters.get(id).ok_or_else(|| SkillError::Native {
            message: format!(
                "no native adapter {id:?} (registered: {})",
                self.adapters.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        })
    }
}
