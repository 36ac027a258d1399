//! Checking a call against a tool's declared schema: the arguments going in
//! ([`validate_args`]) and the value coming out ([`check_return`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::manifest::{BrowserTool, ValueType, json_type_name};

/// One thing wrong with the arguments of a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "problem")]
pub enum ArgProblem {
    /// `args` is not a JSON object.
    NotAnObject {
        /// The JSON type given instead.
        got: String,
    },
    /// An argument the tool does not declare.
    Undeclared {
        /// Its name.
        arg: String,
        /// The declared names.
        declared: Vec<String>,
    },
    /// A required argument is missing (or null).
    Missing {
        /// Its name.
        arg: String,
    },
    /// An argument has the wrong type.
    WrongType {
        /// Its name.
        arg: String,
        /// The declared type.
        expected: ValueType,
        /// The JSON type given.
        got: String,
    },
}

impl std::fmt::Display for ArgProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgProblem::NotAnObject { got } => {
                write!(f, "args must be a JSON object, not {got}")
            }
            ArgProblem::Undeclared { arg, declared } if declared.is_empty() => {
                write!(f, "{arg:?} is not declared (the tool takes no arguments)")
            }
            ArgProblem::Undeclared { arg, declared } => write!(
                f,
                "{arg:?} is not declared (declared: {})",
                declared.join(", ")
            ),
            ArgProblem::Missing { arg } => write!(f, "the required argument {arg:?} is missing"),
            ArgProblem::WrongType { arg, expected, got } => {
                write!(f, "{arg:?} must be {}, not {got}", expected.as_str())
            }
        }
    }
}

/// Check `args` (absent means `{}`) against the tool's declared arguments:
/// no undeclared argument, every required one present, every type right.
/// A `null` value counts as absent. Returns the arguments to pass (nulls
/// removed) or every problem found.
pub fn validate_args(
    tool: &BrowserTool,
    args: Option<&Value>,
) -> Result<Map<String, Value>, Vec<ArgProblem>> {
    let given = match args {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(other) => {
            return Err(vec![ArgProblem::NotAnObject {
                got: json_type_name(other).to_string(),
            }]);
        }
    };
    let mut problems = Vec::new();
    let declared: Vec<String> = tool.args.keys().cloned().collect();
    for key in given.keys() {
        if !tool.args.contains_key(key) {
            problems.push(ArgProblem::Undeclared {
                arg: key.clone(),
                declared: declared.clone(),
            });
        }
    }
    let mut pass = Map::new();
    for (name, spec) in &tool.args {
        match given.get(name) {
            None | Some(Value::Null) => {
                if spec.required {
                    problems.push(ArgProblem::Missing { arg: name.clone() });
                }
            }
            Some(value) if !spec.ty.accepts(value) => problems.push(ArgProblem::WrongType {
                arg: name.clone(),
                expected: spec.ty,
                got: json_type_name(value).to_string(),
            }),
            Some(value) => {
                pass.insert(name.clone(), value.clone());
            }
        }
    }
    if problems.is_empty() {
        Ok(pass)
    } else {
        Err(problems)
    }
}

/// Check a tool's result against its declared `returns.type`; on a mismatch
/// returns the JSON type it had.
pub fn check_return(tool: &BrowserTool, value: &Value) -> Result<(), &'static str> {
    if tool.returns.ty.accepts(value) {
        Ok(())
    } else {
        Err(json_type_name(value))
    }
}
