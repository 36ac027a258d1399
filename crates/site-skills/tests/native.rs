//! Native adapters: Rust functions, agent-tool factories and CLI handlers
//! bound to an id — reachable by id, never discovered by hostname, and
//! carrying no domains, notes or scripts.

use ferret_site_skills::agent::ToolDefinition;
use ferret_site_skills::native::{AgentTool, NativeContext};
use ferret_site_skills::{
    NativeAdapters, NativeSiteAdapter, Registry, SiteSkill, SkillError, SkillKind,
};
use serde_json::{Value, json};
use std::sync::Arc;

async fn word_count(_ctx: NativeContext, args: Value) -> Result<Value, SkillError> {
    let text = args["text"]
        .as_str()
        .ok_or_else(|| SkillError::InvalidInput {
            message: "text is required".into(),
        })?;
    Ok(json!({"words": text.split_whitespace().count()}))
}

fn adapter() -> NativeSiteAdapter {
    NativeSiteAdapter::new("hackernews", "Hacker News (native)")
        .unwrap()
        .function("word_count", "Count words of a text.", word_count)
        .function("has_browser", "Whether a browser was given.", |ctx: NativeContext, _| async move {
            Ok(json!(ctx.runtime.is_some()))
        })
        .agent_tools(|_ctx| {
            vec![AgentTool {
                definition: ToolDefinition {
                    name: "hn_word_count".into(),
                    description: "Count the words of a Hacker News comment.".into(),
                    parameters: json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
                },
                handler: Arc::new(|ctx, args| Box::pin(word_count(ctx, args))),
            }]
        })
        .command("count", "ferret hackernews count <words…>", |_ctx, argv: Vec<String>| async move {
            Ok(json!({"argc": argv.len()}))
        })
}

#[tokio::test]
async fn functions_commands_and_agent_tools_run_by_id() {
    let mut adapters = NativeAdapters::new();
    adapters.register(adapter()).unwrap();
    let ctx = NativeContext::without_browser();
    let out = adapters
        .call(
            "hackernews",
            "word_count",
            ctx.clone(),
            json!({"text": "a b c"}),
        )
        .await
        .unwrap();
    assert_eq!(out, json!({"words": 3}));
    assert_eq!(
        adapters
            .call("hackernews", "has_browser", ctx.clone(), Value::Null)
            .await
            .unwrap(),
        json!(false)
    );
    let out = adapters
        .run_command(
            "hackernews",
            "count",
            ctx.clone(),
            vec!["x".into(), "y".into()],
        )
        .await
        .unwrap();
    assert_eq!(out, json!({"argc": 2}));
    let tools = adapters.agent_tools(&ctx);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].definition.name, "hn_word_count");
    let out = (tools[0].handler)(ctx.clone(), json!({"text": "one two"}))
        .await
        .unwrap();
    assert_eq!(out, json!({"words": 2}));
}

#[tokio::test]
async fn unknown_functions_commands_and_adapters_are_errors() {
    let mut adapters = NativeAdapters::new();
    adapters.register(adapter()).unwrap();
    let ctx = NativeContext::without_browser();
    let err = adapters
        .call("hackernews", "nope", ctx.clone(), Value::Null)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("word_count"), "{err}");
    let err = adapters
        .run_command("hackernews", "nope", ctx.clone(), vec![])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("count"), "{err}");
    let err = adapters
        .call("github", "x", ctx, Value::Null)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "native_error");
}

#[test]
fn an_id_is_registered_once_and_must_be_valid() {
    let mut adapters = NativeAdapters::new();
    adapters.register(adapter()).unwrap();
    assert!(adapters.register(adapter()).is_err());
    assert!(NativeSiteAdapter::new("Hacker News", "x").is_err());
}

#[test]
fn adapters_are_not_a_discovery_path() {
    let mut adapters = NativeAdapters::new();
    adapters
        .register(NativeSiteAdapter::new("example-native", "Example").unwrap())
        .unwrap();
    // The registry knows packages only: a native id covers no hostname.
    let registry = Registry::builtin();
    assert!(registry.get("example-native").is_none());
    for host in ["example-native", "example.com", "news.ycombinator.com"] {
        assert!(
            registry
                .for_host(host)
                .iter()
                .all(|p| p.kind() == SkillKind::Package)
        );
    }
    assert_eq!(adapters.ids(), ["example-native"]);
}

#[test]
fn packages_and_adapters_share_the_site_skill_trait() {
    let registry = Registry::builtin();
    let package = registry.get("wikipedia").unwrap();
    let native = adapter();
    let skills: Vec<&dyn SiteSkill> = vec![package.as_ref(), &native];
    let summaries: Vec<_> = skills.iter().map(|s| s.summary()).collect();
    assert_eq!(summaries[0].kind, SkillKind::Package);
    assert_eq!(summaries[0].capabilities, ["article", "section"]);
    assert_eq!(summaries[1].kind, SkillKind::Native);
    assert_eq!(
        summaries[1].capabilities,
        [
            "fn:has_browser",
            "fn:word_count",
            "tool:hn_word_count",
            "command:count"
        ]
    );
}
