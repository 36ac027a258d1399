//! `manifest.json`, the one required entry of a package, and its field rules.
//!
//! ```json
//! {
//!   "id": "example",
//!   "name": "Example",
//!   "domains": ["example.com", "*.example.com"],
//!   "notes": [],
//!   "browserTools": {
//!     "readPage": {
//!       "description": "Read the active page.",
//!       "path": "page-tools.js",
//!       "binding": "window.ExamplePageTools",
//!       "callable": "readPage",
//!       "args": {"limit": {"type": "integer", "required": false, "description": "…"}},
//!       "returns": {"type": "object", "description": "Page state."}
//!     }
//!   }
//! }
//! ```
//!
//! [`parse_manifest`] checks every field and reports every violation (file,
//! field, rule), then builds the typed [`Manifest`]. The file-system checks
//! (symlinks, sizes, existence) live in [`crate::package`].
//!
//! Limits (each broken one is a [`Rule::TooLarge`] violation naming it): the
//! manifest ≤ [`MAX_MANIFEST_BYTES`], each note or script ≤
//! [`MAX_RESOURCE_BYTES`] and all of them together ≤ [`MAX_PACKAGE_BYTES`];
//! ≤ [`MAX_DOMAINS`] domains, ≤ [`MAX_NOTES`] notes, ≤ [`MAX_BROWSER_TOOLS`]
//! browser tools, ≤ [`MAX_TOOL_ARGS`] arguments per tool and ≤
//! [`MAX_PACKAGE_FILES`] distinct files named.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::domain::DomainPattern;
use crate::violation::{Rule, Violation};

/// The manifest's file name.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The largest manifest accepted (256 KiB).
pub const MAX_MANIFEST_BYTES: u64 = 256 * 1024;
/// The largest note or script accepted (1 MiB).
pub const MAX_RESOURCE_BYTES: u64 = 1024 * 1024;
/// The longest package id.
pub const MAX_ID_LEN: usize = 64;
/// The longest browser tool or argument name.
pub const MAX_TOOL_NAME_LEN: usize = 128;
/// The most domains one package may declare.
pub const MAX_DOMAINS: usize = 100;
/// The most notes one package may declare.
pub const MAX_NOTES: usize = 32;
/// The most browser tools one package may declare.
pub const MAX_BROWSER_TOOLS: usize = 64;
/// The most arguments one browser tool may declare.
pub const MAX_TOOL_ARGS: usize = 32;
/// The most distinct files (notes and scripts) one package may name.
pub const MAX_PACKAGE_FILES: usize = 64;
/// The most bytes all of a package's notes and scripts may hold together
/// (8 MiB); each one is also held to [`MAX_RESOURCE_BYTES`].
pub const MAX_PACKAGE_BYTES: u64 = 8 * 1024 * 1024;

/// The value types arguments and results may declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    /// A JSON string.
    String,
    /// Any JSON number.
    Number,
    /// A JSON number without a fractional part.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// A JSON array.
    Array,
    /// A JSON object.
    Object,
}

/// The type names, in the order the contract lists them.
pub const VALUE_TYPES: [(&str, ValueType); 6] = [
    ("string", ValueType::String),
    ("number", ValueType::Number),
    ("integer", ValueType::Integer),
    ("boolean", ValueType::Boolean),
    ("array", ValueType::Array),
    ("object", ValueType::Object),
];

impl ValueType {
    /// Parse a declared type name.
    pub fn parse(name: &str) -> Option<Self> {
        VALUE_TYPES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
    }

    /// The type's name.
    pub fn as_str(self) -> &'static str {
        VALUE_TYPES
            .iter()
            .find(|(_, t)| *t == self)
            .map(|(n, _)| *n)
            .unwrap_or("object")
    }

    /// Whether `value` has this type.
    pub fn accepts(self, value: &Value) -> bool {
        match self {
            ValueType::String => value.is_string(),
            ValueType::Number => value.is_number(),
            ValueType::Integer => {
                value.is_i64()
                    || value.is_u64()
                    || value
                        .as_f64()
                        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
            }
            ValueType::Boolean => value.is_boolean(),
            ValueType::Array => value.is_array(),
            ValueType::Object => value.is_object(),
        }
    }
}

/// The JSON type name of a value (`null`, `boolean`, `number`, `string`,
/// `array`, `object`), for messages.
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// One declared argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgSpec {
    /// Its type.
    #[serde(rename = "type")]
    pub ty: ValueType,
    /// Whether it must be given.
    pub required: bool,
    /// What it means.
    pub description: String,
}

/// The declared result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnSpec {
    /// Its type.
    #[serde(rename = "type")]
    pub ty: ValueType,
    /// What it holds.
    pub description: String,
}

/// How the host collects a list tool across scrolls (see
/// [`crate::collector`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    /// The declared tool that scrolls one step and reports `{at_end}`.
    pub scroll_tool: String,
}

/// One page-context tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserTool {
    /// What it does.
    pub description: String,
    /// The script, relative to the package.
    pub path: String,
    /// For an IIFE bundle: the expression holding the callable table
    /// (`window.ExamplePageTools`). Declared together with `callable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// For an IIFE bundle: the function's name in the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callable: Option<String>,
    /// The arguments it accepts (nothing else is passed).
    #[serde(default)]
    pub args: BTreeMap<String, ArgSpec>,
    /// What it returns.
    pub returns: ReturnSpec,
    /// Whether it acts on the page (scrolls, clicks) rather than reading it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub action: bool,
    /// For list tools: collect across scrolls up to `limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pagination: Option<Pagination>,
}

/// A validated manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// The package id (`[a-z0-9-]`, ≤ 64, the folder's name).
    pub id: String,
    /// A display name.
    pub name: String,
    /// Hostnames and `*.` wildcards, as declared.
    pub domains: Vec<String>,
    /// Markdown notes loaded on demand, relative to the package.
    #[serde(default)]
    pub notes: Vec<String>,
    /// The page-context tools, by name.
    #[serde(default)]
    pub browser_tools: BTreeMap<String, BrowserTool>,
}

impl Manifest {
    /// Every resource path the manifest names (notes first, then scripts),
    /// without duplicates.
    pub fn resource_paths(&self) -> Vec<String> {
        let mut seen = BTreeSet::new();
        self.notes
            .iter()
            .chain(self.browser_tools.values().map(|t| &t.path))
            .filter(|p| seen.insert(p.as_str()))
            .cloned()
            .collect()
    }
}

/// A manifest and its parsed domain patterns.
#[derive(Debug, Clone)]
pub struct ParsedManifest {
    /// The manifest.
    pub manifest: Manifest,
    /// `manifest.domains`, parsed.
    pub patterns: Vec<DomainPattern>,
}

/// Parse and validate `manifest.json`'s bytes. `folder` is the package
/// folder's name, which `id` must equal (`None` skips that rule). Every
/// violation is reported.
pub fn parse_manifest(
    bytes: &[u8],
    folder: Option<&str>,
) -> Result<ParsedManifest, Vec<Violation>> {
    let file = MANIFEST_FILE;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(vec![Violation::new(
            file,
            "",
            Rule::TooLarge,
            format!(
                "the manifest is {} bytes; at most {MAX_MANIFEST_BYTES} (256 KiB) are allowed — \
                 move long text into notes",
                bytes.len()
            ),
        )]);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        vec![Violation::new(
            file,
            "",
            Rule::InvalidJson,
            format!("the manifest is not UTF-8 text: {e}"),
        )]
    })?;
    // A UTF-8 byte-order mark (as some editors write) is not part of the JSON.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let value: Value = serde_json::from_str(text).map_err(|e| {
        vec![Violation::new(
            file,
            "",
            Rule::InvalidJson,
            format!("the manifest is not valid JSON: {e}"),
        )]
    })?;
    let mut check = Checker {
        violations: Vec::new(),
    };
    let patterns = check.manifest(&value, folder);
    if !check.violations.is_empty() {
        return Err(check.violations);
    }
    let manifest: Manifest = serde_json::from_value(value).map_err(|e| {
        vec![Violation::new(
            file,
            "",
            Rule::WrongType,
            format!("the manifest does not fit the package contract: {e}"),
        )]
    })?;
    let files = manifest.resource_paths().len();
    if files > MAX_PACKAGE_FILES {
        return Err(vec![too_many("", "files", files, MAX_PACKAGE_FILES)]);
    }
    Ok(ParsedManifest { manifest, patterns })
}

/// The violation of a count limit (`domains`, `notes`, `browserTools`, a
/// tool's `args`, the files a package names): [`Rule::TooLarge`], naming
/// the limit.
fn too_many(field: &str, what: &str, count: usize, limit: usize) -> Violation {
    Violation::new(
        MANIFEST_FILE,
        field,
        Rule::TooLarge,
        format!(
            "the package declares {count} {what}; at most {limit} are allowed — split it into \
             several packages"
        ),
    )
}

/// Whether `id` is a valid package id (`[a-z0-9-]`, 1–64 characters).
pub fn is_valid_id(id: &str) -> bool {
    id_problem(id).is_none()
}

/// Why `id` is not a valid package id (empty when it is).
pub(crate) fn id_problem_message(id: &str) -> String {
    id_problem(id).map(|(_, m)| m).unwrap_or_default()
}

fn id_problem(id: &str) -> Option<(Rule, String)> {
    if id.is_empty() {
        return Some((Rule::Empty, "the id must not be empty".into()));
    }
    if id.len() > MAX_ID_LEN {
        return Some((
            Rule::IdLength,
            format!(
                "the id is {} characters long; at most {MAX_ID_LEN} are allowed",
                id.len()
            ),
        ));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some((
            Rule::IdFormat,
            format!("{id:?} may only use lowercase letters, digits and hyphens (a-z, 0-9, -)"),
        ));
    }
    None
}

/// Lexical rules for a resource path: relative, forward slashes, no `..`,
/// no `.` or empty segments. Returns the rule broken and a message.
pub fn path_problem(path: &str) -> Option<(Rule, String)> {
    if path.is_empty() {
        return Some((Rule::PathEmpty, "the path must not be empty".into()));
    }
    if path.contains('\\') {
        return Some((
            Rule::PathBackslash,
            format!("{path:?} contains a backslash; use forward slashes (\"scripts/page.js\")"),
        ));
    }
    let drive =
        path.len() >= 2 && path.as_bytes()[1] == b':' && path.as_bytes()[0].is_ascii_alphabetic();
    if path.starts_with('/') || drive || std::path::Path::new(path).is_absolute() {
        return Some((
            Rule::PathAbsolute,
            format!("{path:?} is absolute; write it relative to the package folder"),
        ));
    }
    let segments: Vec<&str> = path.split('/').collect();
    if segments.contains(&"..") {
        return Some((
            Rule::PathParent,
            format!("{path:?} contains \"..\"; a resource must stay inside its package"),
        ));
    }
    if segments.iter().any(|s| s.is_empty() || *s == ".") || path.chars().any(char::is_control) {
        return Some((
            Rule::PathNotNormal,
            format!(
                "{path:?} has empty or \".\" segments or control characters; write a plain \
                 relative path (\"notes/site.md\")"
            ),
        ));
    }
    None
}

fn is_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOOL_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn is_js_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// Whether `s` is a dotted JavaScript path (`window.ExampleTools`).
pub fn is_js_path(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_js_identifier)
}

/// Whether `s` is a JavaScript identifier.
pub fn is_js_name(s: &str) -> bool {
    is_js_identifier(s)
}

const MANIFEST_KEYS: &[&str] = &["id", "name", "domains", "notes", "browserTools"];
const TOOL_KEYS: &[&str] = &[
    "description",
    "path",
    "binding",
    "callable",
    "args",
    "returns",
    "action",
    "pagination",
];
const ARG_KEYS: &[&str] = &["type", "required", "description"];
const RETURN_KEYS: &[&str] = &["type", "description"];
const PAGINATION_KEYS: &[&str] = &["scrollTool"];

struct Checker {
    violations: Vec<Violation>,
}

impl Checker {
    fn add(&mut self, field: impl Into<String>, rule: Rule, message: impl Into<String>) {
        self.violations
            .push(Violation::new(MANIFEST_FILE, field, rule, message));
    }

    /// Whether `count` entries of `field` are over `limit` (then reported,
    /// and the entries are not checked one by one).
    fn over_limit(&mut self, field: &str, what: &str, count: usize, limit: usize) -> bool {
        let over = count > limit;
        if over {
            self.violations.push(too_many(field, what, count, limit));
        }
        over
    }

    fn unknown_keys(&mut self, obj: &Map<String, Value>, prefix: &str, allowed: &[&str]) {
        for key in obj.keys() {
            if !allowed.contains(&key.as_str()) {
                let field = join_field(prefix, key);
                self.add(
                    field,
                    Rule::UnknownField,
                    format!(
                        "{key:?} is not part of the package contract; allowed here: {}",
                        allowed.join(", ")
                    ),
                );
            }
        }
    }

    fn string<'a>(
        &mut self,
        obj: &'a Map<String, Value>,
        prefix: &str,
        key: &str,
        required: bool,
    ) -> Option<&'a str> {
        let field = join_field(prefix, key);
        match obj.get(key) {
            None if required => {
                self.add(field, Rule::Required, format!("{key:?} is required"));
                None
            }
            None => None,
            Some(Value::String(s)) => {
                if s.trim().is_empty() {
                    self.add(field, Rule::Empty, format!("{key:?} must not be empty"));
                }
                Some(s)
            }
            Some(other) => {
                self.add(
                    field,
                    Rule::WrongType,
                    format!("{key:?} must be a string, not {}", json_type_name(other)),
                );
                None
            }
        }
    }

    fn manifest(&mut self, value: &Value, folder: Option<&str>) -> Vec<DomainPattern> {
        let Some(obj) = value.as_object() else {
            self.add(
                "",
                Rule::WrongType,
                format!(
                    "the manifest must be a JSON object, not {}",
                    json_type_name(value)
                ),
            );
            return Vec::new();
        };
        self.unknown_keys(obj, "", MANIFEST_KEYS);
        if let Some(id) = self.string(obj, "", "id", true) {
            if let Some((rule, message)) = id_problem(id) {
                if rule != Rule::Empty {
                    self.add("id", rule, message);
                }
            } else if let Some(folder) = folder
                && folder != id
            {
                self.add(
                    "id",
                    Rule::IdFolderMismatch,
                    format!(
                        "the id {id:?} differs from the package folder's name {folder:?}; \
                         rename one so they match"
                    ),
                );
            }
        }
        self.string(obj, "", "name", true);
        let patterns = self.domains(obj.get("domains"));
        self.notes(obj.get("notes"));
        self.tools(obj.get("browserTools"));
        patterns
    }

    fn domains(&mut self, value: Option<&Value>) -> Vec<DomainPattern> {
        let mut out = Vec::new();
        let list = match value {
            None => {
                self.add(
                    "domains",
                    Rule::Required,
                    "\"domains\" is required: list the hostnames the package covers",
                );
                return out;
            }
            Some(Value::Array(list)) => list,
            Some(other) => {
                self.add(
                    "domains",
                    Rule::WrongType,
                    format!(
                        "\"domains\" must be an array of hostnames, not {}",
                        json_type_name(other)
                    ),
                );
                return out;
            }
        };
        if list.is_empty() {
            self.add(
                "domains",
                Rule::DomainsEmpty,
                "\"domains\" must list at least one hostname",
            );
        }
        if self.over_limit("domains", "domains", list.len(), MAX_DOMAINS) {
            return out;
        }
        let mut seen = BTreeSet::new();
        for (i, entry) in list.iter().enumerate() {
            let field = format!("domains[{i}]");
            let Some(raw) = entry.as_str() else {
                self.add(
                    field,
                    Rule::WrongType,
                    format!("a domain must be a string, not {}", json_type_name(entry)),
                );
                continue;
            };
            match DomainPattern::parse(raw) {
                Ok(pattern) => {
                    if !seen.insert(pattern.clone()) {
                        self.add(
                            field,
                            Rule::DomainDuplicate,
                            format!("{raw:?} is declared more than once"),
                        );
                    } else {
                        out.push(pattern);
                    }
                }
                Err(e) => self.add(field, e.rule, e.message),
            }
        }
        out
    }

    fn path(&mut self, field: &str, path: &str) {
        if let Some((rule, message)) = path_problem(path) {
            self.add(field, rule, message);
        }
    }

    fn notes(&mut self, value: Option<&Value>) {
        let list = match value {
            None => return,
            Some(Value::Array(list)) => list,
            Some(other) => {
                self.add(
                    "notes",
                    Rule::WrongType,
                    format!(
                        "\"notes\" must be an array of Markdown paths, not {}",
                        json_type_name(other)
                    ),
                );
                return;
            }
        };
        if self.over_limit("notes", "notes", list.len(), MAX_NOTES) {
            return;
        }
        for (i, entry) in list.iter().enumerate() {
            let field = format!("notes[{i}]");
            let Some(path) = entry.as_str() else {
                self.add(
                    field,
                    Rule::WrongType,
                    format!(
                        "a note must be a path string, not {}",
                        json_type_name(entry)
                    ),
                );
                continue;
            };
            self.path(&field, path);
            if !path.ends_with(".md") {
                self.add(
                    field,
                    Rule::NoteNotMarkdown,
                    format!("{path:?} is not a Markdown file; notes must end in .md"),
                );
            }
        }
    }

    fn tools(&mut self, value: Option<&Value>) {
        let tools = match value {
            None => return,
            Some(Value::Object(tools)) => tools,
            Some(other) => {
                self.add(
                    "browserTools",
                    Rule::WrongType,
                    format!(
                        "\"browserTools\" must be an object of tools by name, not {}",
                        json_type_name(other)
                    ),
                );
                return;
            }
        };
        if self.over_limit(
            "browserTools",
            "browser tools",
            tools.len(),
            MAX_BROWSER_TOOLS,
        ) {
            return;
        }
        for (name, tool) in tools {
            let prefix = format!("browserTools.{name}");
            if !is_tool_name(name) {
                self.add(
                    prefix.clone(),
                    Rule::ToolName,
                    format!(
                        "the tool name {name:?} must be 1–{MAX_TOOL_NAME_LEN} letters, digits, \
                         '_' or '-'"
                    ),
                );
            }
            let Some(tool) = tool.as_object() else {
                self.add(
                    prefix,
                    Rule::WrongType,
                    format!(
                        "a browser tool must be an object, not {}",
                        json_type_name(tool)
                    ),
                );
                continue;
            };
            self.tool(&prefix, tool, tools);
        }
    }

    fn tool(&mut self, prefix: &str, tool: &Map<String, Value>, all: &Map<String, Value>) {
        self.unknown_keys(tool, prefix, TOOL_KEYS);
        self.string(tool, prefix, "description", true);
        if let Some(path) = self.string(tool, prefix, "path", true) {
            self.path(&join_field(prefix, "path"), path);
        }
        let binding = self.string(tool, prefix, "binding", false);
        let callable = self.string(tool, prefix, "callable", false);
        match (binding, callable) {
            (Some(b), Some(c)) => {
                if !is_js_path(b) {
                    self.add(
                        join_field(prefix, "binding"),
                        Rule::JsIdentifier,
                        format!(
                            "{b:?} is not a dotted JavaScript path such as \"window.ExampleTools\""
                        ),
                    );
                }
                if !is_js_identifier(c) {
                    self.add(
                        join_field(prefix, "callable"),
                        Rule::JsIdentifier,
                        format!("{c:?} is not a JavaScript identifier such as \"readPage\""),
                    );
                }
            }
            (Some(_), None) if !tool.contains_key("callable") => self.add(
                join_field(prefix, "binding"),
                Rule::BindingWithoutCallable,
                "\"binding\" needs \"callable\" (the function's name in the bundle); declare \
                 both, or neither for a script that is one async function",
            ),
            (None, Some(_)) if !tool.contains_key("binding") => self.add(
                join_field(prefix, "callable"),
                Rule::CallableWithoutBinding,
                "\"callable\" needs \"binding\" (the expression holding the bundle); declare \
                 both, or neither for a script that is one async function",
            ),
            _ => {}
        }
        if let Some(action) = tool.get("action")
            && !action.is_boolean()
        {
            self.add(
                join_field(prefix, "action"),
                Rule::WrongType,
                format!(
                    "\"action\" must be a boolean, not {}",
                    json_type_name(action)
                ),
            );
        }
        let args = self.args(prefix, tool.get("args"));
        let returns = self.returns(prefix, tool.get("returns"));
        if let Some(p) = tool.get("pagination") {
            self.pagination(prefix, p, &args, returns, all);
        }
    }

    /// Checks `args`; returns each valid argument's declared type.
    fn args(&mut self, prefix: &str, value: Option<&Value>) -> BTreeMap<String, ValueType> {
        let mut types = BTreeMap::new();
        let field = join_field(prefix, "args");
        let args = match value {
            None => return types,
            Some(Value::Object(args)) => args,
            Some(other) => {
                self.add(
                    field,
                    Rule::WrongType,
                    format!(
                        "\"args\" must be an object of arguments by name, not {}",
                        json_type_name(other)
                    ),
                );
                return types;
            }
        };
        if self.over_limit(&field, "arguments for one tool", args.len(), MAX_TOOL_ARGS) {
            return types;
        }
        for (name, spec) in args {
            let arg_field = join_field(&field, name);
            if !is_tool_name(name) {
                self.add(
                    arg_field.clone(),
                    Rule::ToolName,
                    format!(
                        "the argument name {name:?} must be 1–{MAX_TOOL_NAME_LEN} letters, \
                         digits, '_' or '-'"
                    ),
                );
            }
            let Some(spec) = spec.as_object() else {
                self.add(
                    arg_field,
                    Rule::WrongType,
                    format!(
                        "an argument must be an object {{type, required, description}}, not {}",
                        json_type_name(spec)
                    ),
                );
                continue;
            };
            self.unknown_keys(spec, &arg_field, ARG_KEYS);
            let ty = self.value_type(&arg_field, spec.get("type"));
            match spec.get("required") {
                None => self.add(
                    join_field(&arg_field, "required"),
                    Rule::Required,
                    "\"required\" is required (true or false)",
                ),
                Some(Value::Bool(_)) => {}
                Some(other) => self.add(
                    join_field(&arg_field, "required"),
                    Rule::WrongType,
                    format!(
                        "\"required\" must be a boolean, not {}",
                        json_type_name(other)
                    ),
                ),
            }
            self.string(spec, &arg_field, "description", true);
            if let Some(ty) = ty {
                types.insert(name.clone(), ty);
            }
        }
        types
    }

    fn returns(&mut self, prefix: &str, value: Option<&Value>) -> Option<ValueType> {
        let field = join_field(prefix, "returns");
        let spec = match value {
            None => {
                self.add(
                    field,
                    Rule::Required,
                    "\"returns\" is required: {\"type\": …, \"description\": …}",
                );
                return None;
            }
            Some(Value::Object(spec)) => spec,
            Some(other) => {
                self.add(
                    field,
                    Rule::WrongType,
                    format!(
                        "\"returns\" must be an object {{type, description}}, not {}",
                        json_type_name(other)
                    ),
                );
                return None;
            }
        };
        self.unknown_keys(spec, &field, RETURN_KEYS);
        let ty = self.value_type(&field, spec.get("type"));
        self.string(spec, &field, "description", true);
        ty
    }

    fn value_type(&mut self, prefix: &str, value: Option<&Value>) -> Option<ValueType> {
        let field = join_field(prefix, "type");
        match value {
            None => {
                self.add(field, Rule::Required, "\"type\" is required");
                None
            }
            Some(Value::String(name)) => match ValueType::parse(name) {
                Some(t) => Some(t),
                None => {
                    self.add(
                        field,
                        Rule::UnknownType,
                        format!(
                            "{name:?} is not a supported type; use one of {}",
                            VALUE_TYPES.map(|(n, _)| n).join(", ")
                        ),
                    );
                    None
                }
            },
            Some(other) => {
                self.add(
                    field,
                    Rule::WrongType,
                    format!("\"type\" must be a string, not {}", json_type_name(other)),
                );
                None
            }
        }
    }

    fn pagination(
        &mut self,
        prefix: &str,
        value: &Value,
        args: &BTreeMap<String, ValueType>,
        returns: Option<ValueType>,
        all: &Map<String, Value>,
    ) {
        let field = join_field(prefix, "pagination");
        let Some(obj) = value.as_object() else {
            self.add(
                field,
                Rule::WrongType,
                format!(
                    "\"pagination\" must be an object {{scrollTool}}, not {}",
                    json_type_name(value)
                ),
            );
            return;
        };
        self.unknown_keys(obj, &field, PAGINATION_KEYS);
        if let Some(scroll) = self.string(obj, &field, "scrollTool", true) {
            let scroll_returns = all
                .get(scroll)
                .and_then(|t| t.get("returns"))
                .and_then(|r| r.get("type"))
                .and_then(Value::as_str);
            match scroll_returns {
                None if !all.contains_key(scroll) => self.add(
                    join_field(&field, "scrollTool"),
                    Rule::Pagination,
                    format!("{scroll:?} is not a browser tool of this manifest; declare it"),
                ),
                Some(t) if t != "object" => self.add(
                    join_field(&field, "scrollTool"),
                    Rule::Pagination,
                    format!(
                        "the scroll tool {scroll:?} must return an object ({{\"at_end\": bool}}), \
                         not {t}"
                    ),
                ),
                _ => {}
            }
        }
        if returns.is_some_and(|t| t != ValueType::Array) {
            self.add(
                join_field(prefix, "returns.type"),
                Rule::Pagination,
                "a paginated tool must return an array of items",
            );
        }
        if args.get("limit") != Some(&ValueType::Integer) {
            self.add(
                join_field(prefix, "args.limit"),
                Rule::Pagination,
                "a paginated tool must declare an integer \"limit\" argument",
            );
        }
    }
}

fn join_field(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}
