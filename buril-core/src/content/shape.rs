//! How a tool's output holds content blocks: told from its output schema, the data it answers
//! with, and the output schema MCP lists.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::schemas::{BLOCK_KEYWORD, RESULT_KEYWORD};

/// How a tool's output holds content blocks, from its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentShape {
    /// One block: the data is `{"content": [block]}`.
    One,
    /// A list of blocks: the data is `{"content": blocks}`.
    Many,
    /// [`Rich`](crate::content::Rich): the data is the value itself.
    Rich,
}

/// Whether the output schema `schema` (as generated, before normalisation) is a block, a list of
/// blocks or a [`Rich`](crate::content::Rich) value.
pub(crate) fn content_shape<'a>(schema: &'a Value) -> Option<ContentShape> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let resolve = |value: &'a Value| -> Option<&'a Value> {
        match value.get("$ref").and_then(Value::as_str) {
            Some(reference) => defs?.get(reference.strip_prefix("#/$defs/")?),
            None => Some(value),
        }
    };
    if schema.get(RESULT_KEYWORD).and_then(Value::as_str) == Some("rich") {
        return Some(ContentShape::Rich);
    }
    if schema.get(BLOCK_KEYWORD).is_some() {
        return Some(ContentShape::One);
    }
    let items = schema
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| *t == "array")
        .and_then(|_| schema.get("items"))
        .and_then(resolve)?;
    items
        .get(BLOCK_KEYWORD)
        .is_some()
        .then_some(ContentShape::Many)
}

/// The output schema of a tool whose data is `{"content": [...]}`, from the schema of the block
/// (`One`) or of the list (`Many`) it returns.
pub(crate) fn content_output_schema(mut schema: Value, shape: ContentShape) -> Value {
    let defs = schema
        .as_object_mut()
        .and_then(|object| object.remove("$defs"));
    let items = match shape {
        ContentShape::One => {
            if let Some(object) = schema.as_object_mut() {
                object.remove("$schema");
            }
            schema
        }
        _ => schema.get("items").cloned().unwrap_or(Value::Bool(true)),
    };
    let mut properties = Map::new();
    properties.insert(
        "content".into(),
        serde_json::json!({"type": "array", "items": items}),
    );
    let mut object = Map::new();
    object.insert("type".into(), "object".into());
    object.insert("properties".into(), Value::Object(properties));
    object.insert("required".into(), serde_json::json!(["content"]));
    object.insert(RESULT_KEYWORD.into(), "content".into());
    if let Some(defs) = defs {
        object.insert("$defs".into(), defs);
    }
    Value::Object(object)
}

/// The data of a tool returning blocks: `{"content": [...]}` from a block or a list.
pub(crate) fn content_data(value: Value, shape: ContentShape) -> Value {
    let list = match (shape, value) {
        (ContentShape::One, block) => Value::Array(vec![block]),
        (_, list) => list,
    };
    let mut map = Map::new();
    map.insert("content".into(), list);
    Value::Object(map)
}

/// What an output schema says a tool's data holds: plain data (`None`), content blocks or
/// [`Rich`](crate::content::Rich) data with blocks.
pub fn result_kind(output_schema: &Value) -> Option<&str> {
    output_schema.get(RESULT_KEYWORD).and_then(Value::as_str)
}

/// The schema MCP's `outputSchema` gives for a tool: `None` for a tool that returns content
/// blocks only (its result is the blocks, with no `structuredContent`); the schema of the
/// structured data (an object, or `{"result": …}` around anything else) for a [`Rich`](crate::content::Rich) tool; the
/// output schema itself for any other.
pub(crate) fn mcp_output_schema(output_schema: &Value) -> Option<Cow<'_, Value>> {
    match result_kind(output_schema) {
        Some("content") => None,
        Some("rich") => {
            let structured = output_schema.pointer("/properties/structured")?;
            let mut schema = match structured.get("$ref").and_then(Value::as_str) {
                Some(reference) => output_schema
                    .pointer(&reference[1..])
                    .cloned()
                    .unwrap_or(Value::Bool(true)),
                None => structured.clone(),
            };
            if let (Some(object), Some(defs)) = (schema.as_object_mut(), output_schema.get("$defs"))
            {
                object.insert("$defs".into(), defs.clone());
            }
            if crate::schema::is_object_schema(&schema) {
                Some(Cow::Owned(schema))
            } else {
                Some(Cow::Owned(crate::schema::wrap_result(schema)))
            }
        }
        _ => Some(Cow::Borrowed(output_schema)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::blocks::{Content, Image, Rich};
    use schemars::JsonSchema;

    fn root<T: JsonSchema>() -> Value {
        crate::schema::output_generator()
            .into_root_schema_for::<T>()
            .to_value()
    }

    #[test]
    fn shapes_are_told_from_schemas() {
        assert_eq!(content_shape(&root::<Image>()), Some(ContentShape::One));
        assert_eq!(content_shape(&root::<Content>()), Some(ContentShape::One));
        assert_eq!(
            content_shape(&root::<Vec<Content>>()),
            Some(ContentShape::Many)
        );
        assert_eq!(
            content_shape(&root::<Vec<Image>>()),
            Some(ContentShape::Many)
        );
        assert_eq!(
            content_shape(&root::<Rich<u32>>()),
            Some(ContentShape::Rich)
        );
        assert_eq!(content_shape(&root::<Vec<u32>>()), None);
        assert_eq!(content_shape(&root::<String>()), None);
    }
}
