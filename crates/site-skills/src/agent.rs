//! The agent surface: the three tools as JSON tool definitions (name,
//! description, JSON-Schema `parameters`) any agent framework can register,
//! and [`SiteTools::call_tool`] to dispatch a call by name.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::SkillError;
use crate::tools::SiteTools;

/// navigate_site's tool name.
pub const NAVIGATE_SITE: &str = "navigate_site";
/// read_site_skills's tool name.
pub const READ_SITE_SKILLS: &str = "read_site_skills";
/// run_site_browser_tool's tool name.
pub const RUN_SITE_BROWSER_TOOL: &str = "run_site_browser_tool";

/// One tool as an agent framework registers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// What it does and when to call it.
    pub description: String,
    /// Its input as a JSON Schema object.
    pub parameters: Value,
}

/// The three site-skill tools.
pub fn tool_definitions() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: NAVIGATE_SITE.into(),
            description: "Open an HTTPS URL on a domain covered by an installed site skill in \
                          the browser tab. After the page loads, its real URL is checked again \
                          and the matching skills are returned: their notes and the exact \
                          schemas of their browser tools. Read them before running a tool."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "url": {
                        "type": "string",
                        "description": "An https:// URL (no user:password@) on a domain an installed site skill declares."
                    }
                },
                "required": ["url"],
                "additionalProperties": false
            }),
        },
        ToolDefinition {
            name: READ_SITE_SKILLS.into(),
            description: "Discover the site skills covering the current page by its real \
                          hostname and read their notes and browser-tool schemas. Call it \
                          after the page changed outside navigate_site, or whenever the active \
                          site is uncertain."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {},
                "additionalProperties": false
            }),
        },
        ToolDefinition {
            name: RUN_SITE_BROWSER_TOOL.into(),
            description: "Run one browser tool declared by a site skill (as returned by \
                          navigate_site or read_site_skills) on the current page. The page must \
                          still be on that skill's domains; arguments are checked against the \
                          tool's declared schema and the result against its declared type. \
                          List tools that declare pagination scroll, deduplicate and accumulate \
                          up to `limit` items. Returns the tool's record as is."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "site_id": {"type": "string", "description": "The site skill's id."},
                    "tool_name": {"type": "string", "description": "A browser tool the skill declares."},
                    "args": {"type": "object", "description": "Arguments matching the tool's declared args."}
                },
                "required": ["site_id", "tool_name"],
                "additionalProperties": false
            }),
        },
    ]
}

fn required_str<'a>(input: &'a Value, tool: &str, key: &str) -> Result<&'a str, SkillError> {
    input
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| SkillError::InvalidInput {
            message: format!("{tool} needs a non-empty string {key:?}"),
        })
}

fn only_keys(input: &Value, tool: &str, allowed: &[&str]) -> Result<(), SkillError> {
    match input {
        Value::Null => Ok(()),
        Value::Object(map) => match map.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(SkillError::InvalidInput {
                message: format!(
                    "{tool} takes no {k:?} parameter (parameters: {})",
                    if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ),
            }),
            None => Ok(()),
        },
        other => Err(SkillError::InvalidInput {
            message: format!(
                "{tool}'s input must be a JSON object, not {}",
                crate::manifest::json_type_name(other)
            ),
        }),
    }
}

fn to_json<T: Serialize>(value: &T) -> Result<Value, SkillError> {
    serde_json::to_value(value).map_err(|e| SkillError::InvalidInput {
        message: format!("the result could not be written as JSON: {e}"),
    })
}

impl SiteTools {
    /// Dispatch a tool call by name with its JSON input, as an agent
    /// framework makes it. Returns the tool's JSON result.
    pub async fn call_tool(&self, name: &str, input: &Value) -> Result<Value, SkillError> {
        match name {
            NAVIGATE_SITE => {
                only_keys(input, name, &["url"])?;
                let url = required_str(input, name, "url")?;
                let context = self.navigate_site(url).await?;
                to_json(&context)
            }
            READ_SITE_SKILLS => {
                only_keys(input, name, &[])?;
                let context = self.read_site_skills().await?;
                to_json(&context)
            }
            RUN_SITE_BROWSER_TOOL => {
                only_keys(input, name, &["site_id", "tool_name", "args"])?;
                let site = required_str(input, name, "site_id")?;
                let tool = required_str(input, name, "tool_name")?;
                self.run_site_browser_tool(site, tool, input.get("args"))
                    .await
            }
            other => Err(SkillError::InvalidInput {
                message: format!(
                    "no site-skill tool {other:?}; the tools are {NAVIGATE_SITE}, \
                     {READ_SITE_SKILLS}, {RUN_SITE_BROWSER_TOOL}"
                ),
            }),
        }
    }
}
