//! The JavaScript expression that runs a declared browser tool in the page.
//!
//! Two script shapes are supported, as the manifest declares:
//!
//! - an IIFE bundle with `binding` + `callable`: the bundle is evaluated,
//!   then `binding[callable](args)` is called;
//! - a file that is one (async) function, without `binding`/`callable`:
//!   `(<script>)(args)` is called.
//!
//! Both run inside an async wrapper, so a returned promise is awaited, and a
//! missing function is reported by name instead of as a `TypeError`.

use serde_json::{Map, Value};

use crate::manifest::BrowserTool;

/// Build the expression running `tool` (whose script text is `source`) with
/// `args`. `site` and `name` label errors.
pub fn tool_expression(
    site: &str,
    name: &str,
    tool: &BrowserTool,
    source: &str,
    args: &Map<String, Value>,
) -> String {
    let args_json = Value::Object(args.clone()).to_string();
    let label = Value::String(format!("{site}.{name}")).to_string();
    match (&tool.binding, &tool.callable) {
        (Some(binding), Some(callable)) => {
            let callable_json = Value::String(callable.clone()).to_string();
            let binding_json = Value::String(binding.clone()).to_string();
            format!(
                "(async () => {{\n{source}\n;\n\
                 const __ferretBundle = (typeof {root} === 'undefined') ? undefined : {chain};\n\
                 if (!__ferretBundle || typeof __ferretBundle[{callable_json}] !== 'function') {{\n\
                 throw new Error('the script of ' + {label} + ' defines no function ' + {binding_json} + '.' + {callable_json});\n\
                 }}\n\
                 return await __ferretBundle[{callable_json}]({args_json});\n\
                 }})()",
                root = binding.split('.').next().unwrap_or("window"),
                chain = binding.split('.').collect::<Vec<_>>().join("?."),
            )
        }
        _ => {
            let body = source.trim_end().trim_end_matches(';');
            format!(
                "(async () => {{\n\
                 const __ferretTool = (\n{body}\n);\n\
                 if (typeof __ferretTool !== 'function') {{\n\
                 throw new Error('the script of ' + {label} + ' is not one function');\n\
                 }}\n\
                 return await __ferretTool({args_json});\n\
                 }})()"
            )
        }
    }
}

/// The first line of a page exception, without the `Error: ` prefix and the
/// stack: the script's own reason.
pub fn exception_reason(message: &str) -> String {
    let first = message.lines().next().unwrap_or("").trim();
    let first = first.strip_prefix("Uncaught ").unwrap_or(first);
    first.strip_prefix("Error: ").unwrap_or(first).to_string()
}
