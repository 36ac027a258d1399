//! Mapping one candidate (a JSON-LD node or a table record) onto the
//! caller's schema, coercing values only where it is safe.

use serde_json::{Map, Value};

use super::coerce::{is_empty_marker, number_value, parse_bool, parse_number};
use super::json_ld::types_of as json_ld_types;
use super::names::{GENERIC_KEYS, header_matches, normalize, wanted};
use super::schema::{Kind, Shape, escape_pointer, json_kind};

/// Types whose `text` (not `name`) is their content when a string is
/// wanted.
const TEXT_TYPES: &[&str] = &[
    "HowToStep",
    "HowToDirection",
    "HowToTip",
    "HowToSection",
    "Answer",
    "Comment",
    "Question",
];

/// How deep nested objects are searched for a property.
const NESTED_SEARCH_DEPTH: usize = 3;
/// At most this many found values are tried for one property.
const MAX_TRIES: usize = 4;

/// Why a value could not be mapped.
#[derive(Debug, Default)]
pub(crate) struct Failure {
    /// JSON pointers of required properties that were not found.
    pub missing: Vec<String>,
    /// Values that were found but could not be used.
    pub errors: Vec<String>,
}

impl Failure {
    fn error(msg: String) -> Self {
        Failure {
            missing: Vec::new(),
            errors: vec![msg],
        }
    }
}

/// Maps values for one candidate; keeps warnings and the count of filled
/// properties (used to rank candidates).
pub(crate) struct Mapper {
    /// Table headers may match property names by their words.
    pub fuzzy_keys: bool,
    pub warnings: Vec<String>,
    pub filled: usize,
}

impl Mapper {
    pub fn new(fuzzy_keys: bool) -> Self {
        Mapper {
            fuzzy_keys,
            warnings: Vec::new(),
            filled: 0,
        }
    }

    /// Maps the root value; the filled count stays as it was reached, so a
    /// failed candidate still says how close it came.
    pub fn map_root(&mut self, v: &Value, shape: &Shape) -> Result<Value, Failure> {
        self.value(v, shape)
    }

    /// Maps `v` onto `shape`; on failure the warnings and filled count of
    /// the attempt are rolled back.
    pub fn map(&mut self, v: &Value, shape: &Shape) -> Result<Value, Failure> {
        let (w, f) = (self.warnings.len(), self.filled);
        let r = self.value(v, shape);
        if r.is_err() {
            self.warnings.truncate(w);
            self.filled = f;
        }
        r
    }

    fn value(&mut self, v: &Value, shape: &Shape) -> Result<Value, Failure> {
        let kinds = shape.effective_kinds();
        if kinds.is_empty() {
            return match &shape.enum_values {
                Some(allowed) => {
                    let m = match_enum(v, allowed)
                        .ok_or_else(|| Failure::error(enum_error(&shape.pointer, v, allowed)))?;
                    self.filled += 1;
                    Ok(m)
                }
                None => {
                    self.filled += 1;
                    Ok(strip_context(v))
                }
            };
        }
        let mut failure = Failure::default();
        for kind in kinds {
            match self.as_kind(v, kind, shape) {
                Ok(out) => {
                    let scalar = !matches!(out, Value::Object(_) | Value::Array(_));
                    let Some(allowed) = &shape.enum_values else {
                        self.filled += usize::from(scalar);
                        return Ok(out);
                    };
                    if let Some(m) = match_enum(&out, allowed) {
                        self.filled += usize::from(scalar);
                        return Ok(m);
                    }
                    failure
                        .errors
                        .push(enum_error(&shape.pointer, &out, allowed));
                }
                Err(f) => {
                    // Keep the most informative failure (missing properties
                    // of an object beat "not a number").
                    if failure.missing.is_empty() && failure.errors.is_empty()
                        || !f.missing.is_empty()
                    {
                        failure = f;
                    }
                }
            }
        }
        Err(failure)
    }

    fn as_kind(&mut self, v: &Value, kind: Kind, shape: &Shape) -> Result<Value, Failure> {
        let ptr = display_pointer(&instance_pointer(&shape.pointer));
        let cannot =
            |what: &str| Failure::error(format!("{ptr}: cannot use {} as {what}", describe(v)));
        match kind {
            Kind::Object => {
                let obj = match v {
                    Value::Object(o) => o,
                    Value::Array(items) if items.len() == 1 && items[0].is_object() => {
                        items[0].as_object().ok_or_else(|| cannot("an object"))?
                    }
                    Value::Array(items) if !items.is_empty() && items[0].is_object() => {
                        self.warnings.push(format!(
                            "{ptr}: the page has {} values, the first was used",
                            items.len()
                        ));
                        items[0].as_object().ok_or_else(|| cannot("an object"))?
                    }
                    _ => return Err(cannot("an object")),
                };
                self.object(obj, shape).map(Value::Object)
            }
            Kind::Array => self.array(v, shape),
            Kind::String => self
                .string(v)
                .map(Value::String)
                .ok_or_else(|| cannot("a string")),
            Kind::Number => number_of(v)
                .and_then(number_value)
                .ok_or_else(|| cannot("a number")),
            Kind::Integer => number_of(v)
                .filter(|n| n.fract() == 0.0)
                .and_then(number_value)
                .ok_or_else(|| cannot("an integer")),
            Kind::Boolean => bool_of(v)
                .map(Value::Bool)
                .ok_or_else(|| cannot("a boolean")),
            Kind::Null => match v {
                Value::Null => Ok(Value::Null),
                _ => Err(cannot("null")),
            },
        }
    }

    fn object(
        &mut self,
        obj: &Map<String, Value>,
        shape: &Shape,
    ) -> Result<Map<String, Value>, Failure> {
        let mut out = Map::new();
        let mut failure = Failure::default();
        let any = Shape::default();
        let props = schema_properties(shape, &any);
        if props.is_empty() {
            // An object schema without properties: the node as it is.
            if let Value::Object(o) = strip_context(&Value::Object(obj.clone())) {
                self.filled += o.len();
                return Ok(o);
            }
        }
        let mut filled_here = 0;
        for (name, sub) in props {
            let sub_ptr = if sub.pointer.is_empty() {
                format!("{}/{}", shape.pointer_for_required(), escape_pointer(name))
            } else {
                sub.pointer.clone()
            };
            let required = shape.required.iter().any(|r| r == name);
            let found = self.lookup(obj, name, sub);
            if found.is_empty() {
                if required {
                    failure
                        .missing
                        .push(display_pointer(&instance_pointer(&sub_ptr)));
                }
                continue;
            }
            match self.first_mapping(found, sub) {
                Ok(v) => {
                    filled_here += 1;
                    out.insert(name.to_owned(), v);
                }
                Err(f) if required => {
                    failure.missing.extend(f.missing);
                    failure.errors.extend(f.errors);
                }
                Err(f) => self.leave_out(&sub_ptr, f),
            }
        }
        if filled_here == 0 && failure.missing.is_empty() && failure.errors.is_empty() {
            failure.errors.push(format!(
                "{}: none of the schema's properties were found",
                display_pointer(&instance_pointer(&shape.pointer))
            ));
        }
        if failure.missing.is_empty() && failure.errors.is_empty() {
            Ok(out)
        } else {
            Err(failure)
        }
    }

    /// The first of (at most [`MAX_TRIES`]) found values that maps onto
    /// `sub`, or the failure of the last one tried.
    fn first_mapping(&mut self, found: Vec<&Value>, sub: &Shape) -> Result<Value, Failure> {
        let mut last: Option<Failure> = None;
        for cand in found.into_iter().take(MAX_TRIES) {
            match self.map(cand, sub) {
                Ok(v) => return Ok(v),
                Err(f) => last = Some(f),
            }
        }
        Err(last.unwrap_or_default())
    }

    /// Warns that the optional property at `sub_ptr` was left out, and why.
    fn leave_out(&mut self, sub_ptr: &str, f: Failure) {
        let why = f
            .errors
            .first()
            .cloned()
            .or_else(|| f.missing.first().map(|m| format!("{m} not found")))
            .unwrap_or_default();
        self.warnings.push(format!(
            "{}: optional property left out ({why})",
            display_pointer(&instance_pointer(sub_ptr))
        ));
    }

    fn array(&mut self, v: &Value, shape: &Shape) -> Result<Value, Failure> {
        let ptr = display_pointer(&instance_pointer(&shape.pointer));
        let items: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            Value::Null => Vec::new(),
            other => vec![other],
        };
        let any = Shape::default();
        let item_shape = shape.items.as_deref().unwrap_or(&any);
        let mut out = Vec::new();
        let mut dropped = 0;
        let mut first_failure: Option<Failure> = None;
        for item in items {
            if is_absent(item) {
                continue;
            }
            match self.map(item, item_shape) {
                Ok(x) => out.push(x),
                Err(f) => {
                    dropped += 1;
                    first_failure.get_or_insert(f);
                }
            }
        }
        if dropped > 0 && !out.is_empty() {
            let why = first_failure
                .as_ref()
                .and_then(|f| f.errors.first().or(f.missing.first()))
                .cloned()
                .unwrap_or_default();
            self.warnings.push(format!(
                "{ptr}: {dropped} item(s) left out because they did not fit the items schema (first: {why})"
            ));
        }
        if let Some(max) = shape.max_items
            && out.len() as u64 > max
        {
            self.warnings.push(format!(
                "{ptr}: the page has {} items; kept the first {max} (maxItems)",
                out.len()
            ));
            out.truncate(max as usize);
        }
        let min = shape.min_items.unwrap_or(0);
        if (out.len() as u64) < min {
            let mut f = first_failure.unwrap_or_default();
            f.errors.insert(
                0,
                format!(
                    "{ptr}: has {} usable item(s), fewer than minItems {min}",
                    out.len()
                ),
            );
            return Err(f);
        }
        if out.is_empty()
            && !matches!(v, Value::Array(a) if a.is_empty())
            && let Some(f) = first_failure
        {
            return Err(f);
        }
        Ok(Value::Array(out))
    }

    fn string(&mut self, v: &Value) -> Option<String> {
        match v {
            Value::String(s) => {
                let t = s.trim();
                (!is_empty_marker(t)).then(|| t.to_owned())
            }
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Object(o) => {
                let keys: &[&str] = if json_ld_types(o)
                    .iter()
                    .any(|t| TEXT_TYPES.contains(&t.as_str()))
                {
                    &["@value", "text", "name"]
                } else {
                    &["@value", "name", "text"]
                };
                keys.iter().find_map(|k| {
                    o.get(*k)
                        .filter(|x| !x.is_object())
                        .and_then(|x| self.string(x))
                })
            }
            Value::Array(items) => {
                let parts: Vec<String> = items.iter().filter_map(|i| self.string(i)).collect();
                match parts.len() {
                    0 => None,
                    1 => parts.into_iter().next(),
                    n => {
                        self.warnings
                            .push(format!("{n} values joined with \", \" into one string"));
                        Some(parts.join(", "))
                    }
                }
            }
            Value::Null => None,
        }
    }

    /// Values for property `name` in `obj`, best first: the key itself or an
    /// alias, then (tables) a header naming it, then nested objects.
    fn lookup<'v>(&self, obj: &'v Map<String, Value>, name: &str, shape: &Shape) -> Vec<&'v Value> {
        let names = wanted(name);
        let allows_null = shape.allows(Kind::Null);
        let usable = |v: &Value| allows_null && v.is_null() || !is_absent(v);
        let mut out: Vec<&'v Value> = Vec::new();
        let push = |v: &'v Value, out: &mut Vec<&'v Value>| {
            if usable(v) && !out.iter().any(|o| std::ptr::eq(*o, v)) {
                out.push(v);
            }
        };
        for n in &names {
            for (k, v) in obj {
                if normalize(k) == *n {
                    push(v, &mut out);
                }
            }
        }
        if self.fuzzy_keys {
            for (k, v) in obj {
                if header_matches(name, k) {
                    push(v, &mut out);
                }
            }
        }
        if out.is_empty() {
            // Nested objects, shallow first: by key (not for keys every
            // thing has) or by the joined path (`author_name`).
            let mut level: Vec<(&'v Map<String, Value>, String)> = vec![(obj, String::new())];
            for _ in 0..NESTED_SEARCH_DEPTH {
                let mut next = Vec::new();
                for (o, prefix) in &level {
                    for (k, v) in o.iter() {
                        let path = format!("{prefix}{}", normalize(k));
                        if !prefix.is_empty() {
                            let key = normalize(k);
                            for n in &names {
                                let by_key = key == *n && !GENERIC_KEYS.contains(&n.as_str());
                                if by_key || path == *n {
                                    push(v, &mut out);
                                }
                            }
                        }
                        match v {
                            Value::Object(child) => next.push((child, path)),
                            Value::Array(items) => {
                                for i in items {
                                    if let Value::Object(child) = i {
                                        next.push((child, path.clone()));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                if !out.is_empty() || next.is_empty() {
                    break;
                }
                level = next;
            }
        }
        out
    }
}

impl Shape {
    /// The pointer prefix for properties listed only in `required`.
    fn pointer_for_required(&self) -> String {
        format!("{}/properties", self.pointer)
    }
}

/// Turns a schema pointer (`/properties/offers/properties/price`,
/// `/items/properties/name`) into the data's (`/offers/price`,
/// `/*/name`).
pub(crate) fn instance_pointer(schema_pointer: &str) -> String {
    let mut out = String::new();
    let mut parts = schema_pointer.split('/').skip(1).peekable();
    while let Some(p) = parts.next() {
        match p {
            "properties" => {
                if let Some(name) = parts.next() {
                    out.push('/');
                    out.push_str(name);
                }
            }
            "items" => out.push_str("/*"),
            _ => {}
        }
    }
    out
}

/// The properties an object schema asks for: its `properties` in order,
/// then names listed in `required` without a schema of their own, which are
/// taken as they are (`any`).
fn schema_properties<'s>(shape: &'s Shape, any: &'s Shape) -> Vec<(&'s str, &'s Shape)> {
    let mut props: Vec<(&str, &Shape)> = shape
        .properties
        .iter()
        .map(|(n, s)| (n.as_str(), s))
        .collect();
    for r in &shape.required {
        if !shape.properties.iter().any(|(n, _)| n == r) {
            props.push((r.as_str(), any));
        }
    }
    props
}

fn display_pointer(p: &str) -> String {
    if p.is_empty() {
        "/".to_owned()
    } else {
        p.to_owned()
    }
}

/// Null, blank or a "no value" marker (`—`, `N/A`), or an empty array.
fn is_absent(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => is_empty_marker(s),
        Value::Array(a) => a.is_empty() || a.iter().all(is_absent),
        _ => false,
    }
}

fn number_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_number(s),
        Value::Object(o) => ["@value", "value"]
            .iter()
            .find_map(|k| o.get(*k).filter(|x| !x.is_object()).and_then(number_of)),
        Value::Array(items) if items.len() == 1 => number_of(&items[0]),
        _ => None,
    }
}

fn bool_of(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => parse_bool(s),
        Value::Number(n) => match n.as_f64() {
            Some(1.0) => Some(true),
            Some(0.0) => Some(false),
            _ => None,
        },
        Value::Object(o) => o.get("@value").filter(|x| !x.is_object()).and_then(bool_of),
        Value::Array(items) if items.len() == 1 => bool_of(&items[0]),
        _ => None,
    }
}

/// The enum member `v` stands for: equal, or for strings equal after
/// normalizing case and format and dropping a schema.org prefix
/// (`https://schema.org/InStock` ~ `in_stock`).
fn match_enum(v: &Value, allowed: &[Value]) -> Option<Value> {
    if let Some(hit) = allowed.iter().find(|a| json_equal(a, v)) {
        return Some(hit.clone());
    }
    let s = match v {
        Value::String(s) => s.as_str(),
        _ => return None,
    };
    let short = s
        .strip_prefix("https://schema.org/")
        .or_else(|| s.strip_prefix("http://schema.org/"))
        .unwrap_or(s);
    let key = normalize(short);
    if key.is_empty() {
        return None;
    }
    allowed
        .iter()
        .find(|a| a.as_str().is_some_and(|x| normalize(x) == key))
        .cloned()
        .or_else(|| {
            let n = parse_number(s)?;
            allowed
                .iter()
                .find(|a| a.as_f64().is_some_and(|x| x == n))
                .cloned()
        })
}

/// JSON equality where 1 and 1.0 are the same number.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn enum_error(pointer: &str, v: &Value, allowed: &[Value]) -> String {
    let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
    format!(
        "{}: {} is not one of the enum values [{}]",
        display_pointer(&instance_pointer(pointer)),
        describe(v),
        list.join(", ")
    )
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let short: String = s.chars().take(60).collect();
            if short.len() < s.len() {
                format!("\"{short}…\"")
            } else {
                format!("\"{short}\"")
            }
        }
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => json_kind(other).to_owned(),
    }
}

/// A copy of `v` without JSON-LD `@context` keys.
fn strip_context(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| k.as_str() != "@context")
                .map(|(k, v)| (k.clone(), strip_context(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_context).collect()),
        other => other.clone(),
    }
}
