//! The `gemini` profile: a function declaration whose `parameters` is Gemini's subset of the
//! OpenAPI 3.0 schema object.
//!
//! Rewrites that keep what the schema accepts:
//!
//! - `$ref` is inlined (its sibling `description`, `title` and `default` win over the target's);
//!   a recursive type cannot be inlined and is reported;
//! - `type: [T, "null"]` becomes `type: T, nullable: true`; `anyOf`/`oneOf` of `X` and
//!   `{"type": "null"}` becomes `X` with `nullable: true`; `null` in an `enum` becomes
//!   `nullable: true`;
//! - a `oneOf`/`anyOf` of single string values (a documented Rust enum) becomes one string
//!   `enum`, the values' descriptions listed in the description;
//! - a `oneOf` whose branches cannot overlap becomes `anyOf`; one that may overlap is reported;
//! - a string `const` becomes a one-value `enum`;
//! - `$schema`, `$defs`, annotations Gemini does not know (`examples`, `deprecated`, ...) and
//!   `format`s it rejects (all but `float`/`double`, `int32`/`int64`, `enum`/`date-time`) are
//!   dropped: they decide no validation;
//! - `additionalProperties: false` is dropped: Gemini's schema has no such field. The model may
//!   then invent a property, and the tool's own validation refuses it with a clear message.
//!
//! What the subset cannot express, because dropping it would change what the tool accepts
//! (open maps: `additionalProperties` with a schema; free-form or empty objects, since Gemini
//! needs properties; values of any type, tuples, several non-null types, non-string enum or
//! const values, and keywords outside the subset: `allOf`, `not`, `exclusiveMinimum`,
//! `multipleOf`, `uniqueItems`, `patternProperties`, ...), goes to Gemini as full JSON Schema
//! instead: the declaration's `parametersJsonSchema` takes the tool's input schema as the
//! registry gives it, and a [`Note`](super::Note) says so and why. Every tool reaches Gemini one
//! way or the other; only a name Gemini refuses is an error. A tool without parameters gets no
//! `parameters`.

use serde_json::{Value, json};

use super::error::{Issue, Note};
use super::limits::{GEMINI, GEMINI_NAME, GEMINI_PARAMETER};
use super::union::exclusive;
use super::walk::{
    ANNOTATIONS, INPUT, Object, check_root_object, child, deref, index, is_null_schema, is_object,
    resolve_or_issue,
};
use crate::descriptor::ToolDescriptor;

/// Keywords of Gemini's schema kept as they are.
const KEEP: &[&str] = &[
    "title",
    "description",
    "default",
    "required",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "example",
];

/// Keywords dropped: schema plumbing, and annotations Gemini does not know.
const DROP: &[&str] = &["$schema", "$id", "$defs", "definitions"];

/// Keywords that may sit beside `$ref` or a union and override the result.
const OVERRIDES: &[&str] = &["title", "description", "default"];

/// `{name, description, parameters}` (no `parameters` for a tool without any), or `{name,
/// description, parametersJsonSchema}` with a note when the OpenAPI subset cannot express the
/// input.
pub(crate) fn render(tool: &ToolDescriptor) -> Result<(Value, Vec<Note>), Issue> {
    GEMINI_NAME
        .check(tool.name())
        .map_err(|reason| Issue::new("/name", reason))?;
    let schema = tool.input_schema();
    check_root_object(schema)?;
    let properties = schema.get("properties").and_then(Value::as_object);
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    if properties.is_none_or(|p| p.is_empty()) && closed {
        let value = json!({"name": tool.name(), "description": tool.description()});
        return Ok((value, Vec::new()));
    }
    // Names and sizes bind both forms: they are errors, not reasons to switch.
    for name in properties.into_iter().flat_map(|p| p.keys()) {
        GEMINI_PARAMETER
            .check(name)
            .map_err(|reason| Issue::new(child(&child(INPUT, "properties"), name), reason))?;
    }
    let mut converter = Gemini {
        root: schema,
        inlining: vec!["#".to_owned()],
    };
    match converter.convert(schema, INPUT) {
        Ok(node) => {
            let parameters = node.finish();
            GEMINI.check(schema, &parameters)?;
            let value = json!({
                "name": tool.name(),
                "description": tool.description(),
                "parameters": parameters,
            });
            Ok((value, Vec::new()))
        }
        Err(issue) => {
            GEMINI.check(schema, schema)?;
            let mut full = schema.clone();
            if let Some(object) = full.as_object_mut() {
                object.remove("$schema");
            }
            let note = issue.into_note(
                "given as `parametersJsonSchema` (full JSON Schema), since Gemini's OpenAPI \
                 subset cannot express it: ",
            );
            let value = json!({
                "name": tool.name(),
                "description": tool.description(),
                "parametersJsonSchema": full,
            });
            Ok((value, vec![note]))
        }
    }
}

/// A converted schema, with the descriptions of enum values still to be appended to its
/// description (they survive a `$ref`'s sibling description that replaces the target's).
struct Node {
    schema: Object,
    values: Option<String>,
}

impl Node {
    fn finish(mut self) -> Value {
        if let Some(values) = self.values {
            let description = match self.schema.get("description").and_then(Value::as_str) {
                Some(text) => format!("{text}\n\n{values}"),
                None => values,
            };
            self.schema
                .insert("description".into(), Value::String(description));
        }
        Value::Object(self.schema)
    }
}

/// Rewrites JSON Schemas into Gemini's subset, inlining `$ref`s resolved against `root`.
struct Gemini<'a> {
    root: &'a Value,
    /// The `$ref`s being inlined, outermost first: one seen again is a recursive type.
    inlining: Vec<String>,
}

impl Gemini<'_> {
    fn convert(&mut self, schema: &Value, pointer: &str) -> Result<Node, Issue> {
        let Some(object) = schema.as_object() else {
            return Err(any_value(pointer));
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            return self.inline(reference, object, pointer);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = object.get(key) {
                return self.union(key, branches, object, pointer);
            }
        }
        self.plain(object, pointer).map(|schema| Node {
            schema,
            values: None,
        })
    }

    fn inline(&mut self, reference: &str, object: &Object, pointer: &str) -> Result<Node, Issue> {
        let (target, at) = resolve_or_issue(self.root, reference, pointer)?;
        if self.inlining.iter().any(|r| r == reference) {
            let name = reference.rsplit('/').next().filter(|n| *n != "#");
            return Err(Issue::new(
                pointer,
                format!(
                    "a recursive type ({} contains itself): Gemini's schema has no `$ref`, and a \
                     recursive type cannot be inlined",
                    name.map_or("the input".to_owned(), |n| format!("`{n}`"))
                ),
            ));
        }
        self.inlining.push(reference.to_owned());
        let node = self.convert(target, &at);
        self.inlining.pop();
        let mut node = node?;
        overlay(&mut node, object, pointer, "$ref")?;
        Ok(node)
    }

    fn union(
        &mut self,
        key: &str,
        branches: &Value,
        object: &Object,
        pointer: &str,
    ) -> Result<Node, Issue> {
        let at = child(pointer, key);
        let list = branches.as_array().map(Vec::as_slice).unwrap_or_default();
        let nullable = list.iter().any(is_null_schema);
        let others: Vec<(usize, &Value)> = list
            .iter()
            .enumerate()
            .filter(|(_, b)| !is_null_schema(b))
            .collect();
        let mut node = match others.as_slice() {
            [] => return Err(Issue::new(at, "a union of nothing but `null`")),
            [(i, only)] => self.convert(only, &index(&at, *i))?,
            _ => match string_values(&others, self.root) {
                Some(node) => node,
                None => self.branches(key, list, &others, &at)?,
            },
        };
        if nullable {
            node.schema.insert("nullable".into(), true.into());
        }
        overlay(&mut node, object, pointer, key)?;
        Ok(node)
    }

    /// A union kept as `anyOf`.
    fn branches(
        &mut self,
        key: &str,
        list: &[Value],
        others: &[(usize, &Value)],
        at: &str,
    ) -> Result<Node, Issue> {
        if key == "oneOf" && !exclusive(list, self.root) {
            return Err(Issue::new(
                at,
                "a `oneOf` whose branches may overlap: Gemini's schema has no `oneOf`, and \
                 `anyOf` would accept values the tool refuses",
            ));
        }
        let mut converted = Vec::with_capacity(others.len());
        for (i, branch) in others {
            converted.push(self.convert(branch, &index(at, *i))?.finish());
        }
        let mut schema = Object::new();
        schema.insert("anyOf".into(), Value::Array(converted));
        Ok(Node {
            schema,
            values: None,
        })
    }

    fn plain(&mut self, object: &Object, pointer: &str) -> Result<Object, Issue> {
        let (kind, mut nullable) = plain_type(object, pointer)?;
        let mut out = Object::new();
        for (key, value) in object {
            let at = child(pointer, key);
            match key.as_str() {
                "type" => {
                    out.insert("type".into(), kind.clone().into());
                }
                "properties" => {
                    out.insert(key.clone(), self.properties(value, &at)?);
                }
                "items" => {
                    out.insert(key.clone(), self.items(value, &at)?);
                }
                "additionalProperties" => extra_properties(value, &at)?,
                "enum" | "const" => {
                    let (values, null) = string_enum(key, value, &at)?;
                    nullable |= null;
                    out.insert("enum".into(), values);
                }
                "format" => {
                    if format_allowed(kind.as_deref(), value) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                k if KEEP.contains(&k) => {
                    out.insert(key.clone(), value.clone());
                }
                k if DROP.contains(&k) || ANNOTATIONS.contains(&k) => {}
                _ => return Err(unsupported(key, at)),
            }
        }
        if out.contains_key("enum") {
            match out.get("type").and_then(Value::as_str) {
                None => {
                    out.insert("type".into(), "string".into());
                }
                Some("string") => {}
                Some(other) => {
                    return Err(Issue::new(
                        pointer,
                        format!("an enum of type `{other}`: Gemini's enums are strings"),
                    ));
                }
            }
        }
        if nullable {
            out.insert("nullable".into(), true.into());
        }
        if is_object(&out)
            && out
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(|p| p.is_empty())
        {
            return Err(Issue::new(
                pointer,
                "an object without declared properties: Gemini requires properties for every \
                 object",
            ));
        }
        Ok(out)
    }

    fn properties(&mut self, value: &Value, pointer: &str) -> Result<Value, Issue> {
        let mut out = Object::new();
        for (name, schema) in value.as_object().into_iter().flatten() {
            let converted = self.convert(schema, &child(pointer, name))?;
            out.insert(name.clone(), converted.finish());
        }
        Ok(Value::Object(out))
    }

    fn items(&mut self, value: &Value, pointer: &str) -> Result<Value, Issue> {
        if value == &Value::Bool(false) {
            return Err(Issue::new(
                pointer,
                "a tuple (`prefixItems`): Gemini's schema has no tuples",
            ));
        }
        Ok(self.convert(value, pointer)?.finish())
    }
}

/// The single type of a plain schema, and whether it also allows `null`.
fn plain_type(object: &Object, pointer: &str) -> Result<(Option<String>, bool), Issue> {
    let at = child(pointer, "type");
    match object.get("type") {
        None if object.contains_key("enum") || object.contains_key("const") => Ok((None, false)),
        None => Err(any_value(pointer)),
        Some(Value::String(t)) if t == "null" => Err(Issue::new(
            at,
            "a value that can only be `null`: Gemini's schema has no null type",
        )),
        Some(Value::String(t)) => Ok((Some(t.clone()), false)),
        Some(Value::Array(list)) => {
            let nullable = list.iter().any(|t| t == "null");
            let named: Vec<&str> = list
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match named.as_slice() {
                [one] => Ok((Some((*one).to_owned()), nullable)),
                [] => Err(Issue::new(
                    at,
                    "a value that can only be `null`: Gemini's schema has no null type",
                )),
                _ => Err(Issue::new(
                    at,
                    format!(
                        "a value of several types ({}): Gemini's `type` names one",
                        named.join(", ")
                    ),
                )),
            }
        }
        Some(_) => Err(Issue::new(at, "`type` is neither a string nor a list")),
    }
}

/// `additionalProperties`: `false` and `true` are dropped (an object without properties is
/// reported elsewhere); a schema is an open map, which Gemini cannot describe.
fn extra_properties(value: &Value, pointer: &str) -> Result<(), Issue> {
    if value.is_boolean() {
        return Ok(());
    }
    Err(Issue::new(
        pointer,
        "an open map (`additionalProperties` with a schema): Gemini's schema has no \
         `additionalProperties`",
    ))
}

/// An `enum` or `const` as Gemini's string `enum`, and whether it allowed `null`.
fn string_enum(key: &str, value: &Value, pointer: &str) -> Result<(Value, bool), Issue> {
    let values = if key == "const" {
        std::slice::from_ref(value)
    } else {
        value.as_array().map(Vec::as_slice).unwrap_or_default()
    };
    let nullable = values.iter().any(Value::is_null);
    let mut strings = Vec::with_capacity(values.len());
    for value in values.iter().filter(|v| !v.is_null()) {
        if !value.is_string() {
            return Err(Issue::new(
                pointer,
                format!("the value {value} in `{key}`: Gemini's enum values are strings"),
            ));
        }
        strings.push(value.clone());
    }
    if strings.is_empty() {
        return Err(Issue::new(
            pointer,
            "a value that can only be `null`: Gemini's schema has no null type",
        ));
    }
    Ok((Value::Array(strings), nullable))
}

/// Whether Gemini accepts `format` for a value of type `kind`.
fn format_allowed(kind: Option<&str>, format: &Value) -> bool {
    let allowed: &[&str] = match kind {
        Some("number") => &["float", "double"],
        Some("integer") => &["int32", "int64"],
        Some("string") => &["enum", "date-time"],
        _ => &[],
    };
    format.as_str().is_some_and(|f| allowed.contains(&f))
}

/// One string `enum` for a union whose branches each allow one string (through `const` or a
/// one-value `enum`, with at most a description), or `None`.
fn string_values(branches: &[(usize, &Value)], root: &Value) -> Option<Node> {
    let mut values = Vec::with_capacity(branches.len());
    let mut lines = Vec::with_capacity(branches.len());
    for (_, branch) in branches {
        let object = deref(branch, root).as_object()?;
        let only = |k: &String| matches!(k.as_str(), "type" | "const" | "enum" | "description");
        if !object.keys().all(only) || object.get("type").is_some_and(|t| t != "string") {
            return None;
        }
        let value = match (object.get("const"), object.get("enum")) {
            (Some(value), None) => value,
            (None, Some(Value::Array(list))) if list.len() == 1 => &list[0],
            _ => return None,
        };
        let text = value.as_str()?;
        if values.contains(value) {
            return None;
        }
        if let Some(description) = object.get("description").and_then(Value::as_str) {
            lines.push(format!("- `{text}`: {description}"));
        }
        values.push(value.clone());
    }
    let mut schema = Object::new();
    schema.insert("type".into(), "string".into());
    schema.insert("enum".into(), Value::Array(values));
    Some(Node {
        schema,
        values: (!lines.is_empty()).then(|| lines.join("\n")),
    })
}

/// Applies the keywords beside `$ref` or a union (`skip`) to the converted `node`: a
/// description, title or default replaces the target's; annotations are dropped; anything
/// else is reported.
fn overlay(node: &mut Node, object: &Object, pointer: &str, skip: &str) -> Result<(), Issue> {
    for (key, value) in object {
        match key.as_str() {
            k if k == skip => {}
            k if OVERRIDES.contains(&k) => {
                node.schema.insert(key.clone(), value.clone());
            }
            k if DROP.contains(&k) || ANNOTATIONS.contains(&k) => {}
            _ => {
                return Err(Issue::new(
                    child(pointer, key),
                    format!("`{key}` beside `{skip}`: Gemini's schema cannot combine them"),
                ));
            }
        }
    }
    Ok(())
}

fn any_value(pointer: &str) -> Issue {
    Issue::new(
        pointer,
        "a value of any type: Gemini's schema needs a type for every value",
    )
}

fn unsupported(key: &str, pointer: String) -> Issue {
    Issue::new(
        pointer,
        format!(
            "`{key}` is not in Gemini's schema subset, and dropping it would change what the \
             tool accepts"
        ),
    )
}
