//! The `anthropic` profile: a client tool of the Messages API.

use serde_json::{Value, json};

use super::error::Issue;
use super::limits::ANTHROPIC_NAME;
use super::walk::{INPUT, check_root_object, child};
use crate::descriptor::ToolDescriptor;

/// Root keywords Anthropic rejects in `input_schema`.
const ROOT_UNIONS: &[&str] = &["oneOf", "anyOf", "allOf"];

/// `{name, description, input_schema}`, the input schema unchanged. A root that is not
/// `type: "object"`, or that has `oneOf`, `anyOf` or `allOf`, is reported: Anthropic rejects
/// such a tool, and with it the whole request.
pub(crate) fn render(tool: &ToolDescriptor) -> Result<Value, Issue> {
    let schema = tool.input_schema();
    ANTHROPIC_NAME
        .check(tool.name())
        .map_err(|reason| Issue::new("/name", reason))?;
    check_root_object(schema)?;
    if let Some(key) = ROOT_UNIONS.iter().find(|k| schema.get(**k).is_some()) {
        return Err(Issue::new(
            child(INPUT, key),
            format!(
                "the input schema has a root `{key}`, which Anthropic rejects; describe the \
                 alternatives in a property instead"
            ),
        ));
    }
    Ok(json!({
        "name": tool.name(),
        "description": tool.description(),
        "input_schema": schema,
    }))
}
