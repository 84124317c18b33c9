//! When a `oneOf` may become an `anyOf`: when no value can match two branches, "exactly one"
//! and "at least one" accept the same values.

use serde_json::Value;

use super::walk::{Object, deref, required, types};

/// Whether no value can match two of `branches` (resolving `$ref`s against `root`). `false`
/// when that cannot be shown.
pub(crate) fn exclusive(branches: &[Value], root: &Value) -> bool {
    let resolved: Vec<&Value> = branches.iter().map(|b| deref(b, root)).collect();
    resolved.iter().enumerate().all(|(i, a)| {
        resolved[i + 1..]
            .iter()
            .all(|b| disjoint(a, b, root) || disjoint(b, a, root))
    })
}

/// Whether `a` and `b` can be shown to share no value (one direction of the checks).
fn disjoint(a: &Value, b: &Value, root: &Value) -> bool {
    if let (Some(left), Some(right)) = (values(a), values(b)) {
        return left.iter().all(|v| !right.contains(v));
    }
    if let Some(left) = values(a)
        && !types(b).is_empty()
    {
        return left
            .iter()
            .all(|v| !types(b).iter().any(|t| has_type(v, t)));
    }
    if types_disjoint(&types(a), &types(b)) {
        return true;
    }
    // `properties` and `required` bind objects only: a branch must be typed `object` for its
    // object keywords to keep other values out.
    let object_only = |s: &Value| types(s) == ["object"];
    match (a.as_object(), b.as_object()) {
        (Some(x), Some(y)) => {
            ((object_only(a) || object_only(b)) && tags_differ(x, y, root))
                || (object_only(b) && closed_without(x, y))
        }
        _ => false,
    }
}

/// The values a schema allows, when it lists them (`const` or `enum`).
fn values(schema: &Value) -> Option<Vec<Value>> {
    if let Some(value) = schema.get("const") {
        return Some(vec![value.clone()]);
    }
    schema.get("enum").and_then(Value::as_array).cloned()
}

/// Whether `value` is of the JSON Schema type `name`.
fn has_type(value: &Value, name: &str) -> bool {
    match value {
        Value::Null => name == "null",
        Value::Bool(_) => name == "boolean",
        Value::Number(n) => {
            name == "number" || (name == "integer" && n.as_f64().is_some_and(|f| f.fract() == 0.0))
        }
        Value::String(_) => name == "string",
        Value::Array(_) => name == "array",
        Value::Object(_) => name == "object",
    }
}

/// Whether two `type` lists, both given, share no type (`integer` lies within `number`).
fn types_disjoint(a: &[&str], b: &[&str]) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let overlap = |x: &str, y: &str| {
        x == y || matches!((x, y), ("integer", "number") | ("number", "integer"))
    };
    a.iter().all(|x| b.iter().all(|y| !overlap(x, y)))
}

/// Whether both objects require a property whose allowed values (by `const` or `enum`) do not
/// overlap: a tag, as in `#[serde(tag = "kind")]`.
fn tags_differ(a: &Object, b: &Object, root: &Value) -> bool {
    let b_required = required(b);
    required(a)
        .into_iter()
        .filter(|name| b_required.contains(name))
        .any(|name| {
            let tag = |o: &Object| {
                o.get("properties")
                    .and_then(|p| p.get(name))
                    .map(|s| deref(s, root))
                    .and_then(values)
            };
            match (tag(a), tag(b)) {
                (Some(x), Some(y)) => x.iter().all(|v| !y.contains(v)),
                _ => false,
            }
        })
}

/// Whether `a` requires a property that `b`, closed by `additionalProperties: false`, does not
/// have: an externally tagged enum's `{"Variant": ...}`.
fn closed_without(a: &Object, b: &Object) -> bool {
    if b.get("additionalProperties") != Some(&Value::Bool(false)) {
        return false;
    }
    let declared = b.get("properties").and_then(Value::as_object);
    required(a)
        .into_iter()
        .any(|name| declared.is_none_or(|p| !p.contains_key(name)))
}
