//! JSON-LD candidates: every typed node of every block (`@graph` flattened,
//! nested nodes included), with `{"@id": …}` references resolved against
//! the page's other nodes.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// How deep the walk goes into nested objects.
const MAX_DEPTH: usize = 10;
/// How deep `@id` references are followed (cycles stop earlier).
const MAX_RESOLVE_DEPTH: usize = 6;
/// At most this many typed nodes are candidates.
pub(crate) const MAX_NODES: usize = 200;

/// A typed JSON-LD node.
pub(crate) struct Node {
    /// The node with references resolved.
    pub value: Value,
    /// Its `@type` values (a type may be a list), prefixes stripped.
    pub types: Vec<String>,
    /// Where it was found, for reports (`Product`, `QAPage.mainEntity`).
    pub label: String,
}

/// The typed nodes of `blocks`, top-level first, then nested ones in the
/// order they were met.
pub(crate) fn typed_nodes(blocks: &[Value]) -> Vec<Node> {
    let mut by_id: HashMap<String, &Map<String, Value>> = HashMap::new();
    let mut found: Vec<(&Map<String, Value>, String, usize)> = Vec::new();
    for block in blocks {
        collect(block, None, 0, &mut found, &mut by_id);
    }
    // Top-level (depth 0) nodes first, stable otherwise.
    found.sort_by_key(|(_, _, depth)| usize::from(*depth > 0));
    let mut out = Vec::new();
    for (obj, label, _) in found {
        if out.len() >= MAX_NODES {
            break;
        }
        let types = types_of(obj);
        if types.is_empty() {
            continue;
        }
        let value = resolve_object(obj, &by_id);
        out.push(Node {
            value,
            types,
            label,
        });
    }
    out
}

fn collect<'a>(
    v: &'a Value,
    parent: Option<&str>,
    depth: usize,
    found: &mut Vec<(&'a Map<String, Value>, String, usize)>,
    by_id: &mut HashMap<String, &'a Map<String, Value>>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Array(items) => {
            for item in items {
                collect(item, parent, depth, found, by_id);
            }
        }
        Value::Object(obj) => {
            if let Some(Value::String(id)) = obj.get("@id")
                && obj.keys().any(|k| k != "@id" && k != "@type")
            {
                by_id.entry(id.clone()).or_insert(obj);
            }
            let own_type = types_of(obj).into_iter().next();
            if own_type.is_some() && obj.keys().any(|k| !k.starts_with('@')) {
                let label = match (parent, &own_type) {
                    (Some(p), Some(t)) => format!("{p} > {t}"),
                    (None, Some(t)) => t.clone(),
                    _ => String::new(),
                };
                found.push((obj, label, depth));
            }
            let here = own_type.as_deref().or(parent);
            for (k, child) in obj {
                if k == "@context" {
                    continue;
                }
                // `@graph` members are top-level nodes.
                let child_depth = if k == "@graph" { depth } else { depth + 1 };
                let child_parent = if k == "@graph" {
                    None
                } else {
                    here.map(|h| format!("{h}.{k}"))
                };
                collect(child, child_parent.as_deref(), child_depth, found, by_id);
            }
        }
        _ => {}
    }
}

/// `@type` of a node, as short names (`https://schema.org/Product` →
/// `Product`).
pub(crate) fn types_of(obj: &Map<String, Value>) -> Vec<String> {
    let short = |s: &str| s.rsplit(['/', '#', ':']).next().unwrap_or(s).to_owned();
    match obj.get("@type") {
        Some(Value::String(s)) => vec![short(s)],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(short).collect(),
        _ => Vec::new(),
    }
}

/// At most this many `@id` references are expanded per node.
const MAX_EXPANSIONS: usize = 256;

struct Resolver<'a, 'm> {
    by_id: &'m HashMap<String, &'a Map<String, Value>>,
    stack: Vec<&'a str>,
    expansions: usize,
}

fn resolve_object<'a>(
    obj: &'a Map<String, Value>,
    by_id: &HashMap<String, &'a Map<String, Value>>,
) -> Value {
    let mut r = Resolver {
        by_id,
        stack: Vec::new(),
        expansions: 0,
    };
    r.object(obj, 0)
}

impl<'a> Resolver<'a, '_> {
    fn object(&mut self, obj: &'a Map<String, Value>, depth: usize) -> Value {
        let mut out = Map::new();
        for (k, v) in obj {
            if k == "@context" {
                continue;
            }
            out.insert(k.clone(), self.value(v, depth + 1));
        }
        Value::Object(out)
    }

    fn value(&mut self, v: &'a Value, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return v.clone();
        }
        match v {
            Value::Object(obj) => {
                if let Some(Value::String(id)) = obj.get("@id")
                    && obj.keys().all(|k| k == "@id" || k == "@type")
                    && let Some(target) = self.by_id.get(id.as_str()).copied()
                    && self.stack.len() < MAX_RESOLVE_DEPTH
                    && self.expansions < MAX_EXPANSIONS
                    && !self.stack.contains(&id.as_str())
                {
                    self.expansions += 1;
                    self.stack.push(id.as_str());
                    let r = self.object(target, depth);
                    self.stack.pop();
                    return r;
                }
                self.object(obj, depth)
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|i| self.value(i, depth + 1)).collect())
            }
            other => other.clone(),
        }
    }
}

/// A list from JSON-LD that an array schema may describe.
pub(crate) struct ArrayCandidate {
    /// For reports (`every Product node (3)`, `Recipe.recipeIngredient`).
    pub label: String,
    /// The list.
    pub value: Value,
    /// What it is called: the nodes' type or the property's key.
    pub name: String,
}

/// Array candidates from JSON-LD: nodes grouped by type (all `Product`
/// nodes of the page), and the array-valued properties of each node
/// (`ItemList.itemListElement` with `ListItem.item` unwrapped,
/// `Recipe.recipeIngredient`).
pub(crate) fn array_candidates(nodes: &[Node]) -> Vec<ArrayCandidate> {
    let mut out = Vec::new();
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for n in nodes {
        let t = n.types[0].clone();
        match groups.iter_mut().find(|(k, _)| *k == t) {
            Some((_, g)) => g.push(n.value.clone()),
            None => groups.push((t, vec![n.value.clone()])),
        }
    }
    for (t, g) in groups {
        out.push(ArrayCandidate {
            label: format!("every {t} node ({})", g.len()),
            value: Value::Array(g),
            name: t,
        });
    }
    for n in nodes {
        let Value::Object(obj) = &n.value else {
            continue;
        };
        for (k, v) in obj {
            if let Value::Array(items) = v
                && !items.is_empty()
                && !k.starts_with('@')
            {
                let unwrapped: Vec<Value> = items
                    .iter()
                    .map(|i| match i.get("item") {
                        Some(inner @ Value::Object(_)) => inner.clone(),
                        _ => i.clone(),
                    })
                    .collect();
                out.push(ArrayCandidate {
                    label: format!("{}.{k}", n.label),
                    value: Value::Array(unwrapped),
                    name: k.clone(),
                });
            }
        }
    }
    out
}
