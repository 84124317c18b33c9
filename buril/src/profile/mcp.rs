//! The `mcp` profile: the tool object of `tools/list` (MCP 2025-11-25).

use serde_json::{Map, Value};

use super::error::Issue;
use super::limits::MCP_NAME;
use super::walk::{Object, check_root_object};
use crate::descriptor::ToolDescriptor;

/// `{name, title?, description, inputSchema, outputSchema, annotations?}`: the schemas as the
/// registry gives them (2020-12, root object, no `$schema`); `title` and `annotations` only when
/// set.
pub(crate) fn render(tool: &ToolDescriptor) -> Result<Value, Issue> {
    MCP_NAME
        .check(tool.name())
        .map_err(|reason| Issue::new("/name", reason))?;
    check_root_object(tool.input_schema())?;
    if tool.output_schema().get("type").and_then(Value::as_str) != Some("object") {
        return Err(Issue::new(
            "/outputSchema",
            "the output schema's root must be `type: \"object\"`",
        ));
    }
    let mut definition = Object::new();
    definition.insert("name".into(), tool.name().into());
    if let Some(title) = &tool.annotations().title {
        definition.insert("title".into(), title.as_ref().into());
    }
    definition.insert("description".into(), tool.description().into());
    definition.insert("inputSchema".into(), tool.input_schema().clone());
    definition.insert("outputSchema".into(), tool.output_schema().clone());
    let annotations = annotations(tool);
    if annotations.as_object().is_some_and(|a| !a.is_empty()) {
        definition.insert("annotations".into(), annotations);
    }
    Ok(Value::Object(definition))
}

#[cfg(feature = "cli")]
/// The form `list --json` prints: `{name, description, inputSchema, outputSchema,
/// annotations}`, `annotations` always present (empty when none is set).
pub(crate) fn listing(tool: &ToolDescriptor) -> Value {
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
pub(crate) fn annotations(tool: &ToolDescriptor) -> Value {
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
