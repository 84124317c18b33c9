//! The `mcp` profile: the tool object of `tools/list` (MCP 2025-11-25).

use serde_json::{Map, Value};

use super::error::Issue;
use super::limits::MCP_NAME;
use super::walk::{Object, check_root_object};
use crate::content::mcp_output_schema;
use crate::descriptor::ToolDescriptor;

/// `{name, title?, description, inputSchema, outputSchema, annotations?}`: the schemas as the
/// registry gives them (2020-12, root object, no `$schema`), with each nullable type written in
/// the form the most clients take ([`portable_nullables`]); `title` and `annotations` only when
/// set.
pub(crate) fn render(tool: &ToolDescriptor) -> Result<Value, Issue> {
    check(tool)?;
    let mut definition = Object::new();
    definition.insert("name".into(), tool.name().into());
    if let Some(title) = &tool.annotations().title {
        definition.insert("title".into(), title.as_ref().into());
    }
    definition.insert("description".into(), tool.description().into());
    let mut input = tool.input_schema().clone();
    portable_nullables(&mut input);
    definition.insert("inputSchema".into(), input);
    // A tool returning content blocks has no structured output over MCP: its blocks are the
    // result's content.
    if let Some(output) = mcp_output_schema(tool.output_schema()) {
        let mut output = output.into_owned();
        portable_nullables(&mut output);
        definition.insert("outputSchema".into(), output);
    }
    let annotations = annotations(tool);
    if annotations.as_object().is_some_and(|a| !a.is_empty()) {
        definition.insert("annotations".into(), annotations);
    }
    let meta = tool.meta();
    if !meta.icons.is_empty() {
        let icons: Vec<Value> = meta.icons.iter().map(|src| icon(src)).collect();
        definition.insert("icons".into(), Value::Array(icons));
    }
    if !meta.meta.is_empty() {
        let mut entries = Map::new();
        for (key, json) in meta.meta.iter() {
            let value =
                serde_json::from_str(json).unwrap_or_else(|_| Value::String(json.to_string()));
            entries.insert(key.to_string(), value);
        }
        definition.insert("_meta".into(), Value::Object(entries));
    }
    Ok(Value::Object(definition))
}

/// Why the profile cannot express `tool`, if it cannot: everything [`render`] checks, without
/// building the definition.
pub(crate) fn check(tool: &ToolDescriptor) -> Result<(), Issue> {
    MCP_NAME
        .check(tool.name())
        .map_err(|reason| Issue::new("/name", reason))?;
    tool.look_at_schemas(|input, output| {
        check_root_object(input)?;
        check_headers(input)?;
        if output.get("type").and_then(Value::as_str) != Some("object") {
            return Err(Issue::new(
                "/outputSchema",
                "the output schema's root must be `type: \"object\"`",
            ));
        }
        Ok(())
    })
}

/// An icon of MCP's `icons`: its URI, and the MIME type its extension (or `data:` URI) says.
fn icon(src: &str) -> Value {
    let mime = match src.strip_prefix("data:") {
        Some(data) => data.split([';', ',']).next().map(str::to_owned),
        None => {
            let path = src
                .split(['?', '#'])
                .next()
                .unwrap_or(src)
                .to_ascii_lowercase();
            let extension = path.rsplit_once('.').map(|(_, e)| e.to_owned());
            match extension.as_deref() {
                Some("png") => Some("image/png".to_owned()),
                Some("svg") => Some("image/svg+xml".to_owned()),
                Some("jpg" | "jpeg") => Some("image/jpeg".to_owned()),
                Some("webp") => Some("image/webp".to_owned()),
                Some("gif") => Some("image/gif".to_owned()),
                Some("ico") => Some("image/x-icon".to_owned()),
                _ => None,
            }
        }
    };
    let mut icon = Map::new();
    icon.insert("src".into(), src.into());
    if let Some(mime) = mime.filter(|m| !m.is_empty()) {
        icon.insert("mimeType".into(), mime.into());
    }
    Value::Object(icon)
}

/// Each property mirrored into a header (`x-mcp-header`) is a string, an integer or a
/// boolean, as MCP requires (clients refuse the tool otherwise).
fn check_headers(schema: &Value) -> Result<(), Issue> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, property) in properties {
        if property.get("x-mcp-header").is_none() {
            continue;
        }
        let kind = property.get("type").and_then(Value::as_str);
        if !matches!(kind, Some("string" | "integer" | "boolean")) {
            return Err(Issue::new(
                format!("/inputSchema/properties/{name}"),
                "a parameter sent as a header (`headers`) must be a string, an integer or a \
                 boolean",
            ));
        }
    }
    Ok(())
}

/// Rewrites each `type: [T, "null"]` (schemars' `Option<T>`) as `anyOf: [{type: T, …}, {type:
/// "null"}]`, which every JSON Schema client reads and portability checks (the Inspector's
/// `--strict`) do not warn on. The keywords that constrain `T` move into its branch; annotations
/// (`description`, `title`, `default`, …) stay beside the `anyOf`. Accepts exactly what the
/// original did.
pub(crate) fn portable_nullables(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    portable_nullables(value);
                }
            }
            let Some(Value::Array(types)) = object.get("type") else {
                return;
            };
            let [first, second] = types.as_slice() else {
                return;
            };
            let other = match (first.as_str(), second.as_str()) {
                (Some("null"), Some(other)) | (Some(other), Some("null")) if other != "null" => {
                    other.to_owned()
                }
                _ => return,
            };
            const STAY: &[&str] = &[
                "description",
                "title",
                "default",
                "examples",
                "deprecated",
                "readOnly",
                "writeOnly",
                "$comment",
                "$defs",
                "$schema",
            ];
            let mut branch = Map::new();
            branch.insert("type".into(), Value::String(other));
            let keys: Vec<String> = object
                .keys()
                .filter(|key| *key != "type" && !STAY.contains(&key.as_str()))
                .cloned()
                .collect();
            for key in keys {
                if let Some(value) = object.remove(&key) {
                    branch.insert(key, value);
                }
            }
            object.remove("type");
            let null = serde_json::json!({"type": "null"});
            object.insert(
                "anyOf".into(),
                Value::Array(vec![Value::Object(branch), null]),
            );
        }
        Value::Array(items) => items.iter_mut().for_each(portable_nullables),
        _ => {}
    }
}

/// The form `list --json` prints: `{name, description, inputSchema, outputSchema,
/// annotations}`, `annotations` always present (empty when none is set).
pub fn listing(tool: &ToolDescriptor) -> Value {
    serde_json::json!({
        "name": tool.name(),
        "description": tool.description(),
        "inputSchema": tool.input_schema(),
        "outputSchema": tool.output_schema(),
        "annotations": annotations(tool),
    })
}

/// MCP annotations: `title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`,
/// `openWorldHint`, each only when set.
pub fn annotations(tool: &ToolDescriptor) -> Value {
    let a = tool.annotations();
    let mut map = Map::new();
    if let Some(title) = &a.title {
        map.insert("title".into(), title.as_ref().into());
    }
    let hints = [
        ("readOnlyHint", a.read_only),
        ("destructiveHint", a.destructive),
        ("idempotentHint", a.idempotent),
        ("openWorldHint", a.open_world),
    ];
    for (key, value) in hints {
        if let Some(value) = value {
            map.insert(key.into(), value.into());
        }
    }
    Value::Object(map)
}
