//! The `openai` profile: a function tool of the Responses API, strict wherever the schema
//! allows it.
//!
//! Strict mode (Structured Outputs) needs `additionalProperties: false` on every object, every
//! property in `required`, a `type` for every value, and none of `oneOf`, `allOf`, `not`,
//! `if`/`then`/`else`, `dependent*`, `prefixItems`, `default`. The schema is rewritten only in
//! ways that keep what it accepts, or narrow only what the model may add:
//!
//! - `const: v` becomes `enum: [v]`;
//! - a `oneOf` whose branches cannot overlap (distinct values, distinct types, a tag property
//!   with distinct values, or a closed object missing the other's required property) becomes
//!   `anyOf`;
//! - `$ref` beside other keywords becomes `anyOf: [{"$ref": ...}]` beside them;
//! - a nullable object `type: ["object", "null"]` becomes `anyOf: [{object}, {"type": "null"}]`;
//! - an object with declared properties gets `additionalProperties: false` (serde ignores
//!   unknown fields, so the tool accepts the same inputs);
//! - optional properties join `required`; each must already accept `null` (every `Option`
//!   does), because the model then sends `null` for a value it leaves out;
//! - annotations (`default`, `examples`, `deprecated`, ...) and `format`s strict mode does not
//!   know are dropped: they decide no validation.
//!
//! A schema that needs anything else (an open map `additionalProperties: {schema}`, a value of
//! any type, a free-form object, a tuple, a `oneOf` that may overlap, an optional property that
//! refuses `null`) or passes strict mode's size limits is sent unchanged with `strict: false`,
//! and a [`Note`] says why.

use serde_json::{Value, json};

use super::error::{Issue, Note};
use super::limits::{OPENAI_NAME, OPENAI_STRICT};
use super::union::exclusive;
use super::walk::{
    ANNOTATIONS, INPUT, Object, accepts_null, check_root_object, child, index, is_object,
    missing_items, required,
};
use crate::descriptor::ToolDescriptor;

/// The `format` values strict mode supports.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords strict mode supports that are kept as they are.
const KEEP: &[&str] = &[
    "type",
    "description",
    "title",
    "enum",
    "$ref",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// Annotations strict mode rejects; they decide no validation, so they are dropped.
const DROP: &[&str] = &["default", "$schema"];

/// `{"type": "function", name, description, parameters, strict}`, the Responses API's function
/// tool, with any note on why it is not strict.
pub(crate) fn render(tool: &ToolDescriptor) -> Result<(Value, Vec<Note>), Issue> {
    OPENAI_NAME
        .check(tool.name())
        .map_err(|reason| Issue::new("/name", reason))?;
    let schema = tool.input_schema();
    check_root_object(schema)?;
    if let Some(pointer) = missing_items(schema, INPUT) {
        return Err(Issue::new(
            pointer,
            "an array schema without `items`: OpenAI requires `items` on every array",
        ));
    }
    let (parameters, strict, notes) = match strict_schema(schema) {
        Ok(strict) => (strict, true, Vec::new()),
        Err(issue) => (schema.clone(), false, vec![issue.into_note("not strict: ")]),
    };
    let definition = json!({
        "type": "function",
        "name": tool.name(),
        "description": tool.description(),
        "parameters": parameters,
        "strict": strict,
    });
    Ok((definition, notes))
}

/// The Chat Completions form of an `openai` definition:
/// `{"type": "function", "function": {name, description, parameters, strict}}`.
pub fn chat_completions_tool(definition: &Value) -> Value {
    let mut function = definition.clone();
    if let Some(object) = function.as_object_mut() {
        object.remove("type");
    }
    json!({"type": "function", "function": function})
}

/// The strict form of `schema`, or why it has none.
pub(crate) fn strict_schema(schema: &Value) -> Result<Value, Issue> {
    let strict = Strict { root: schema }.convert(schema, INPUT)?;
    OPENAI_STRICT.check(schema, &strict)?;
    Ok(strict)
}

/// Rewrites schemas for strict mode, resolving `$ref`s against `root`.
struct Strict<'a> {
    root: &'a Value,
}

impl Strict<'_> {
    fn convert(&self, schema: &Value, pointer: &str) -> Result<Value, Issue> {
        let Some(object) = schema.as_object().filter(|o| says_what(o)) else {
            return Err(Issue::new(
                pointer,
                "a value of any type: strict mode needs a `type` for every value",
            ));
        };
        let object = self.unify(object, pointer)?;
        let required = if is_object(&object) {
            Some(self.closing(&object, pointer)?)
        } else {
            None
        };
        let mut out = Object::new();
        for (key, value) in &object {
            let at = child(pointer, key);
            let converted = match (key.as_str(), &required) {
                ("properties" | "$defs", _) => Some(self.map(value, &at)?),
                ("items", _) => Some(self.items(value, &at)?),
                ("anyOf", _) => Some(self.list(value, &at)?),
                ("required", Some(names)) => Some(names.clone()),
                ("additionalProperties", Some(_)) => Some(Value::Bool(false)),
                ("format", _) => value
                    .as_str()
                    .filter(|f| STRICT_FORMATS.contains(f))
                    .map(|_| value.clone()),
                (k, _) if KEEP.contains(&k) => Some(value.clone()),
                (k, _) if DROP.contains(&k) || ANNOTATIONS.contains(&k) => None,
                _ => {
                    return Err(Issue::new(
                        at,
                        format!("strict mode does not support `{key}`"),
                    ));
                }
            };
            if let Some(converted) = converted {
                out.insert(key.clone(), converted);
            }
        }
        if let Some(names) = required {
            let has_properties = names.as_array().is_some_and(|n| !n.is_empty());
            if has_properties && !out.contains_key("required") {
                out.insert("required".into(), names);
            }
            out.entry("additionalProperties").or_insert(false.into());
        }
        Ok(split_nullable_object(out))
    }

    /// The same schema in the forms strict mode takes: `const` as `enum`, an exclusive `oneOf`
    /// as `anyOf`, and `$ref` alone in its schema.
    fn unify(&self, object: &Object, pointer: &str) -> Result<Object, Issue> {
        if object.contains_key("oneOf") && object.contains_key("anyOf") {
            return Err(Issue::new(pointer, "both `oneOf` and `anyOf`"));
        }
        let annotated = object.keys().any(|k| {
            k != "$ref" && !DROP.contains(&k.as_str()) && !ANNOTATIONS.contains(&k.as_str())
        });
        let mut out = Object::new();
        for (key, value) in object {
            match key.as_str() {
                "const" if object.contains_key("enum") => {
                    return Err(Issue::new(pointer, "both `const` and `enum`"));
                }
                "const" => {
                    out.insert("enum".into(), json!([value]));
                }
                "oneOf" => {
                    let branches = value.as_array().map(Vec::as_slice).unwrap_or_default();
                    if !exclusive(branches, self.root) {
                        return Err(Issue::new(
                            child(pointer, "oneOf"),
                            "a `oneOf` whose branches may overlap: strict mode has no `oneOf`, \
                             and `anyOf` would accept values the tool refuses",
                        ));
                    }
                    out.insert("anyOf".into(), value.clone());
                }
                "$ref" if annotated && object.contains_key("anyOf") => {
                    return Err(Issue::new(pointer, "`$ref` beside `anyOf`"));
                }
                "$ref" if annotated => {
                    out.insert("anyOf".into(), json!([{"$ref": value}]));
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(out)
    }

    /// The `required` list of a strict object: every property. Fails for objects strict mode
    /// cannot close without changing what they accept.
    fn closing(&self, object: &Object, pointer: &str) -> Result<Value, Issue> {
        let properties = object.get("properties").and_then(Value::as_object);
        let declared = properties.is_some_and(|p| !p.is_empty());
        if object
            .get("additionalProperties")
            .is_some_and(|extra| !extra.is_boolean())
        {
            return Err(Issue::new(
                child(pointer, "additionalProperties"),
                "an open map (`additionalProperties` with a schema): strict mode allows no \
                 properties beyond the declared ones",
            ));
        }
        let open = object.get("additionalProperties") != Some(&Value::Bool(false));
        if open && !declared {
            return Err(Issue::new(
                pointer,
                "a free-form object: strict mode allows no properties beyond the declared ones",
            ));
        }
        let already = required(object);
        let mut names = Vec::new();
        for (name, property) in properties.into_iter().flatten() {
            if !already.contains(&name.as_str()) && !accepts_null(property, self.root) {
                return Err(Issue::new(
                    child(&child(pointer, "properties"), name),
                    "an optional property that does not accept `null`: strict mode requires \
                     every property, so the model would send `null`, which the tool refuses",
                ));
            }
            names.push(Value::String(name.clone()));
        }
        Ok(Value::Array(names))
    }

    fn map(&self, value: &Value, pointer: &str) -> Result<Value, Issue> {
        let mut out = Object::new();
        for (name, schema) in value.as_object().into_iter().flatten() {
            out.insert(name.clone(), self.convert(schema, &child(pointer, name))?);
        }
        Ok(Value::Object(out))
    }

    fn list(&self, value: &Value, pointer: &str) -> Result<Value, Issue> {
        let branches = value.as_array().map(Vec::as_slice).unwrap_or_default();
        let converted = branches
            .iter()
            .enumerate()
            .map(|(i, branch)| self.convert(branch, &index(pointer, i)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Value::Array(converted))
    }

    fn items(&self, value: &Value, pointer: &str) -> Result<Value, Issue> {
        if value == &Value::Bool(false) {
            return Err(Issue::new(
                pointer,
                "a tuple (`prefixItems`): strict mode has no tuples",
            ));
        }
        self.convert(value, pointer)
    }
}

/// Whether a schema constrains the type of its values.
fn says_what(object: &Object) -> bool {
    ["type", "$ref", "anyOf", "oneOf", "enum", "const"]
        .iter()
        .any(|k| object.contains_key(*k))
}

/// `type: ["object", "null"]` with object keywords, as
/// `anyOf: [{"type": "object", ...}, {"type": "null"}]` beside the annotations.
fn split_nullable_object(object: Object) -> Value {
    let nullable_object = match object.get("type") {
        Some(Value::Array(named)) => {
            named.len() == 2 && named.contains(&"object".into()) && named.contains(&"null".into())
        }
        _ => false,
    };
    if !nullable_object {
        return Value::Object(object);
    }
    let mut outer = Object::new();
    let mut inner = Object::new();
    inner.insert("type".into(), "object".into());
    for (key, value) in object {
        match key.as_str() {
            "type" => {}
            "description" | "title" => {
                outer.insert(key, value);
            }
            _ => {
                inner.insert(key, value);
            }
        }
    }
    outer.insert(
        "anyOf".into(),
        json!([Value::Object(inner), {"type": "null"}]),
    );
    Value::Object(outer)
}
