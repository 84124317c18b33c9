//! Small helpers the profiles share for walking JSON Schemas: pointers, `$ref` resolution,
//! types, and whether a schema accepts `null`.

use serde_json::{Map, Value};

use super::error::Issue;

/// A JSON object: one schema's keywords.
pub(crate) type Object = Map<String, Value>;

/// Where the input schema sits in a tool's listing form.
pub(crate) const INPUT: &str = "/inputSchema";

/// Keywords that only annotate (JSON Schema 2020-12, "meta-data" and "content" vocabularies):
/// dropping them changes no validation outcome.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "contentEncoding",
    "contentMediaType",
];

pub(crate) use crate::pointer::child;

/// `pointer` extended by an array index.
pub(crate) fn index(pointer: &str, position: usize) -> String {
    format!("{pointer}/{position}")
}

/// What a local `$ref` (`#` or `#/...`) points at in `root`, with the target's pointer below
/// [`INPUT`].
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<(&'a Value, String)> {
    let fragment = reference.strip_prefix('#')?;
    let target = if fragment.is_empty() {
        root
    } else {
        root.pointer(fragment)?
    };
    Some((target, format!("{INPUT}{fragment}")))
}

/// Resolves `reference` or says why it cannot be.
pub(crate) fn resolve_or_issue<'a>(
    root: &'a Value,
    reference: &str,
    pointer: &str,
) -> Result<(&'a Value, String), Issue> {
    resolve(root, reference).ok_or_else(|| {
        Issue::new(
            child(pointer, "$ref"),
            format!("`$ref` `{reference}` does not point into the schema"),
        )
    })
}

/// Follows `$ref`s from `schema` to the schema that says something, stopping after a few hops
/// (or at a cycle).
pub(crate) fn deref<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..16 {
        match current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve(root, r))
        {
            Some((target, _)) => current = target,
            None => break,
        }
    }
    current
}

/// The types a schema names in `type`, as a list; empty when it names none.
pub(crate) fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether the schema describes objects (names the type, or has object keywords).
pub(crate) fn is_object(schema: &Object) -> bool {
    let named = match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(list)) => list.iter().any(|t| t == "object"),
        _ => false,
    };
    named || schema.contains_key("properties")
}

/// Whether the schema describes arrays.
pub(crate) fn is_array(schema: &Object) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(list)) => list.iter().any(|t| t == "array"),
        _ => schema.contains_key("items") || schema.contains_key("prefixItems"),
    }
}

/// Whether `{"type": "null"}` (possibly with annotations) is what the schema says.
pub(crate) fn is_null_schema(schema: &Value) -> bool {
    types(schema) == ["null"]
        && schema.as_object().is_some_and(|o| {
            o.keys()
                .all(|k| k == "type" || k == "description" || k == "title")
        })
}

/// The property names listed in `required`.
pub(crate) fn required(schema: &Object) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Whether `null` validates against the schema. Conservative: `false` when unsure.
pub(crate) fn accepts_null(schema: &Value, root: &Value) -> bool {
    accepts_null_within(schema, root, 0)
}

fn accepts_null_within(schema: &Value, root: &Value, hops: usize) -> bool {
    let object = match schema {
        Value::Bool(b) => return *b,
        Value::Object(object) => object,
        _ => return false,
    };
    if hops > 16 {
        return false;
    }
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        let Some((target, _)) = resolve(root, reference) else {
            return false;
        };
        if !accepts_null_within(target, root, hops + 1) {
            return false;
        }
    }
    if object.contains_key("type") && !types(schema).contains(&"null") {
        return false;
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array)
        && !values.contains(&Value::Null)
    {
        return false;
    }
    if object.get("const").is_some_and(|c| !c.is_null()) {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = object.get(key).and_then(Value::as_array)
            && !branches
                .iter()
                .any(|b| accepts_null_within(b, root, hops + 1))
        {
            return false;
        }
    }
    if let Some(branches) = object.get("allOf").and_then(Value::as_array)
        && !branches
            .iter()
            .all(|b| accepts_null_within(b, root, hops + 1))
    {
        return false;
    }
    !object.contains_key("not") && !object.contains_key("if")
}

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Keywords whose value is a list of subschemas.
const LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
const MAPS: &[&str] = &[
    "properties",
    "$defs",
    "definitions",
    "patternProperties",
    "dependentSchemas",
];

/// The direct subschemas of a schema, each with its pointer, in document order.
pub(crate) fn subschemas<'a>(schema: &'a Value, pointer: &str) -> Vec<(&'a Value, String)> {
    let Some(object) = schema.as_object() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (key, value) in object {
        let at = child(pointer, key);
        if SINGLE.contains(&key.as_str()) {
            found.push((value, at));
        } else if LISTS.contains(&key.as_str()) {
            let list = value.as_array().map(Vec::as_slice).unwrap_or_default();
            found.extend(list.iter().enumerate().map(|(i, v)| (v, index(&at, i))));
        } else if MAPS.contains(&key.as_str()) {
            let map = value.as_object().into_iter().flatten();
            found.extend(map.map(|(name, v)| (v, child(&at, name))));
        }
    }
    found
}

/// The first array schema without `items` (or `prefixItems`), as a pointer: OpenAI rejects
/// those.
pub(crate) fn missing_items(schema: &Value, pointer: &str) -> Option<String> {
    if let Some(object) = schema.as_object()
        && is_array(object)
        && !object.contains_key("items")
        && !object.contains_key("prefixItems")
    {
        return Some(pointer.to_owned());
    }
    subschemas(schema, pointer)
        .into_iter()
        .find_map(|(value, at)| missing_items(value, &at))
}

/// Whether the root is an object schema, or why not.
pub(crate) fn check_root_object(schema: &Value) -> Result<(), Issue> {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        Ok(())
    } else {
        Err(Issue::new(
            INPUT,
            "the input schema's root must be `type: \"object\"`",
        ))
    }
}
