//! The caller's JSON Schema, read into the subset the mapper understands.
//!
//! Supported for mapping: `type` (one or several of object, array, string,
//! number, integer, boolean, null), `properties`, `required`, `items` (one
//! schema), `minItems`, `maxItems`, `enum`, and `additionalProperties` as a
//! boolean. Annotations that constrain nothing are accepted silently
//! ([`ANNOTATIONS`]). Every other keyword is reported as unsupported with
//! its JSON pointer — the final validation with the `jsonschema` crate still
//! applies it to the result where it can.

pub(crate) use ferret_text::json::json_kind;
use serde_json::{Map, Value};

use super::UnsupportedKeyword;

/// Keywords that annotate and never constrain a value.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$defs",
    "definitions",
    "title",
    "description",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// A JSON type a schema allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Integer,
    Boolean,
    Null,
}

impl Kind {
    fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "object" => Kind::Object,
            "array" => Kind::Array,
            "string" => Kind::String,
            "number" => Kind::Number,
            "integer" => Kind::Integer,
            "boolean" => Kind::Boolean,
            "null" => Kind::Null,
            _ => return None,
        })
    }
}

/// One (sub)schema, as far as mapping is concerned.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    /// JSON pointer of this subschema inside the caller's schema.
    pub pointer: String,
    /// Allowed types, in the schema's order; empty = any.
    pub kinds: Vec<Kind>,
    pub enum_values: Option<Vec<Value>>,
    pub properties: Vec<(String, Shape)>,
    pub required: Vec<String>,
    pub items: Option<Box<Shape>>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    /// `title` and `description`, for matching candidates to the intent.
    pub hint: String,
}

impl Shape {
    /// Allowed types; with no `type`, inferred from `properties` / `items`.
    pub fn effective_kinds(&self) -> Vec<Kind> {
        if !self.kinds.is_empty() {
            return self.kinds.clone();
        }
        if !self.properties.is_empty() || !self.required.is_empty() {
            return vec![Kind::Object];
        }
        if self.items.is_some() || self.min_items.is_some() || self.max_items.is_some() {
            return vec![Kind::Array];
        }
        Vec::new()
    }

    pub fn allows(&self, kind: Kind) -> bool {
        self.effective_kinds().contains(&kind)
    }

    /// The object shape of this schema (itself, or its array items).
    pub fn record_shape(&self) -> Option<&Shape> {
        if self.allows(Kind::Object) {
            Some(self)
        } else if self.allows(Kind::Array) {
            self.items.as_deref().filter(|i| i.allows(Kind::Object))
        } else {
            None
        }
    }
}

/// What reading the schema produced.
pub(crate) struct ReadSchema {
    pub shape: Shape,
    pub unsupported: Vec<UnsupportedKeyword>,
}

/// Reads `schema`; `Err` names what is malformed and where.
pub(crate) fn read(schema: &Value) -> Result<ReadSchema, String> {
    let mut unsupported = Vec::new();
    let shape = read_node(schema, "", &mut unsupported, 0)?;
    let kinds = shape.effective_kinds();
    if !kinds.contains(&Kind::Object) && !kinds.contains(&Kind::Array) {
        let got = match schema.get("type") {
            Some(t) => format!("type {t}"),
            None => "no type, properties or items".to_owned(),
        };
        return Err(format!(
            "the schema's root must describe an object or an array (\"type\": \"object\" or \"array\"), but it has {got}"
        ));
    }
    Ok(ReadSchema { shape, unsupported })
}

/// Deeper than this, a schema is treated as malformed (no real schema nests
/// this far; it protects the stack).
const MAX_SCHEMA_DEPTH: usize = 64;

fn read_node(
    value: &Value,
    pointer: &str,
    unsupported: &mut Vec<UnsupportedKeyword>,
    depth: usize,
) -> Result<Shape, String> {
    let at = if pointer.is_empty() { "/" } else { pointer };
    if depth > MAX_SCHEMA_DEPTH {
        return Err(format!(
            "the schema nests deeper than {MAX_SCHEMA_DEPTH} levels at {at}"
        ));
    }
    let obj: &Map<String, Value> = match value {
        Value::Object(o) => o,
        Value::Bool(true) => {
            return Ok(Shape {
                pointer: pointer.to_owned(),
                ..Shape::default()
            });
        }
        other => {
            return Err(format!(
                "the schema at {at} must be a JSON object, found {}",
                json_kind(other)
            ));
        }
    };
    let mut shape = Shape {
        pointer: pointer.to_owned(),
        ..Shape::default()
    };
    for (key, v) in obj {
        let here = format!("{pointer}/{}", escape_pointer(key));
        read_keyword(&mut shape, key, v, &here, unsupported, depth)?;
    }
    if let (Some(min), Some(max)) = (shape.min_items, shape.max_items)
        && min > max
    {
        return Err(format!(
            "minItems {min} is larger than maxItems {max} at {at}: no array can satisfy it"
        ));
    }
    Ok(shape)
}

/// Reads one keyword of a subschema (at pointer `here`) into `shape`;
/// keywords outside the subset are reported in `unsupported`.
fn read_keyword(
    shape: &mut Shape,
    key: &str,
    v: &Value,
    here: &str,
    unsupported: &mut Vec<UnsupportedKeyword>,
    depth: usize,
) -> Result<(), String> {
    match key {
        "type" => shape.kinds = read_types(v, here)?,
        "properties" => shape.properties = read_properties(v, here, unsupported, depth)?,
        "required" => read_required(v, here, &mut shape.required)?,
        "items" => match v {
            Value::Object(_) | Value::Bool(true) => {
                shape.items = Some(Box::new(read_node(v, here, unsupported, depth + 1)?));
            }
            _ => unsupported.push(UnsupportedKeyword::new(
                here,
                key,
                "only a single items schema is supported (not the tuple form or false)",
            )),
        },
        "minItems" => shape.min_items = Some(read_count(v, here)?),
        "maxItems" => shape.max_items = Some(read_count(v, here)?),
        "enum" => {
            let Value::Array(values) = v else {
                return Err(format!(
                    "\"enum\" at {here} must be an array, found {}",
                    json_kind(v)
                ));
            };
            shape.enum_values = Some(values.clone());
        }
        "additionalProperties" => match v {
            Value::Bool(_) => {}
            _ => unsupported.push(UnsupportedKeyword::new(
                here,
                key,
                "additionalProperties with a schema is not used for mapping (only true/false)",
            )),
        },
        "title" | "description" => {
            if let Value::String(s) = v {
                if !shape.hint.is_empty() {
                    shape.hint.push(' ');
                }
                shape.hint.push_str(s);
            }
        }
        k if ANNOTATIONS.contains(&k) => {}
        _ => unsupported.push(UnsupportedKeyword::new(
            here,
            key,
            "not in the supported subset; not used for mapping (the final validation still applies it where it can)",
        )),
    }
    Ok(())
}

/// The subschemas of `properties`, in the schema's order.
fn read_properties(
    v: &Value,
    here: &str,
    unsupported: &mut Vec<UnsupportedKeyword>,
    depth: usize,
) -> Result<Vec<(String, Shape)>, String> {
    let Value::Object(props) = v else {
        return Err(format!(
            "\"properties\" at {here} must be an object of schemas, found {}",
            json_kind(v)
        ));
    };
    let mut out = Vec::new();
    for (name, sub) in props {
        let sub_ptr = format!("{here}/{}", escape_pointer(name));
        let s = read_node(sub, &sub_ptr, unsupported, depth + 1)?;
        out.push((name.clone(), s));
    }
    Ok(out)
}

/// Adds the names listed in `required` to `required`, each once.
fn read_required(v: &Value, here: &str, required: &mut Vec<String>) -> Result<(), String> {
    let Value::Array(names) = v else {
        return Err(format!(
            "\"required\" at {here} must be an array of property names, found {}",
            json_kind(v)
        ));
    };
    for n in names {
        match n {
            Value::String(s) => {
                if !required.contains(s) {
                    required.push(s.clone());
                }
            }
            other => {
                return Err(format!(
                    "\"required\" at {here} must list strings, found {}",
                    json_kind(other)
                ));
            }
        }
    }
    Ok(())
}

fn read_types(v: &Value, here: &str) -> Result<Vec<Kind>, String> {
    let names: Vec<&Value> = match v {
        Value::String(_) => vec![v],
        Value::Array(a) if !a.is_empty() => a.iter().collect(),
        other => {
            return Err(format!(
                "\"type\" at {here} must be a type name or a non-empty array of them, found {}",
                json_kind(other)
            ));
        }
    };
    let mut kinds = Vec::new();
    for n in names {
        let kind = n.as_str().and_then(Kind::parse).ok_or_else(|| {
            format!(
                "\"type\" at {here} has {n}, which is not one of object, array, string, number, integer, boolean, null"
            )
        })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

fn read_count(v: &Value, here: &str) -> Result<u64, String> {
    if let Some(n) = v.as_u64() {
        return Ok(n);
    }
    if let Some(f) = v.as_f64()
        && f >= 0.0
        && f.fract() == 0.0
        && f <= u64::MAX as f64
    {
        return Ok(f as u64);
    }
    Err(format!("{here} must be a non-negative integer, found {v}"))
}

/// RFC 6901 escaping of one pointer segment.
pub(crate) fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
