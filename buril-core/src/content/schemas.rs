//! The JSON Schemas of the content blocks, under MCP's names, each marked so that a tool's
//! output schema says it returns blocks.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::Value;

use super::blocks::{Audio, Content, Image, Resource, ResourceLink, Rich};

/// The output-schema keyword that says a tool's data holds content blocks: `"content"` (the data
/// is `{"content": [...]}`) or `"rich"` (`{"structured": …, "content": [...]}`).
pub const RESULT_KEYWORD: &str = "x-buril-result";

/// The schema keyword that marks a content block's schema (what a tool returning one is told
/// apart by).
pub(crate) const BLOCK_KEYWORD: &str = "x-buril-content";

/// `JsonSchema` for a block type: its schema name (MCP's), an id under `buril::`, and its
/// schema from `$body` (with the generator as `$generator`).
macro_rules! named_schema {
    ($ty:ty, $name:literal, |$generator:pat_param| $body:block) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }
            fn schema_id() -> Cow<'static, str> {
                concat!("buril::", $name).into()
            }
            fn json_schema($generator: &mut SchemaGenerator) -> Schema $body
        }
    };
}

fn binary_schema(kind: &str, what: &str, mime_example: &str) -> Schema {
    json_schema!({
        "type": "object",
        "description": what,
        "properties": {
            "type": {"type": "string", "const": kind},
            "data": {
                "type": "string",
                "contentEncoding": "base64",
                "description": "The bytes, in base64."
            },
            "mimeType": {
                "type": "string",
                "description": format!("The MIME type, for example `{mime_example}`.")
            }
        },
        "required": ["type", "data", "mimeType"],
        BLOCK_KEYWORD: kind,
    })
}

named_schema!(Image, "ImageContent", |_| {
    binary_schema("image", "An image.", "image/png")
});

named_schema!(Audio, "AudioContent", |_| {
    binary_schema("audio", "A sound.", "audio/wav")
});

/// The schema of a resource's contents (what `resource` of an embedded resource holds).
fn resource_contents_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "description": "A resource's contents: its URI, MIME type, and text or bytes (`blob`, in base64).",
        "properties": {
            "uri": {"type": "string"},
            "mimeType": {"type": "string"},
            "text": {"type": "string"},
            "blob": {"type": "string", "contentEncoding": "base64"}
        },
        "required": ["uri"]
    })
}

named_schema!(Resource, "EmbeddedResource", |_| {
    json_schema!({
        "type": "object",
        "description": "A resource embedded in the result.",
        "properties": {
            "type": {"type": "string", "const": "resource"},
            "resource": resource_contents_schema()
        },
        "required": ["type", "resource"],
        BLOCK_KEYWORD: "resource",
    })
});

named_schema!(ResourceLink, "ResourceLink", |_| {
    json_schema!({
        "type": "object",
        "description": "A link to a resource the client may read.",
        "properties": {
            "type": {"type": "string", "const": "resource_link"},
            "uri": {"type": "string"},
            "name": {"type": "string"},
            "description": {"type": "string"},
            "mimeType": {"type": "string"},
            "size": {"type": "integer", "minimum": 0, "maximum": 9_007_199_254_740_991_u64}
        },
        "required": ["type", "uri", "name"],
        BLOCK_KEYWORD: "resource_link",
    })
});

/// The schema of a text block.
struct TextBlock;

named_schema!(TextBlock, "TextContent", |_| {
    json_schema!({
        "type": "object",
        "description": "Text.",
        "properties": {
            "type": {"type": "string", "const": "text"},
            "text": {"type": "string"}
        },
        "required": ["type", "text"],
        BLOCK_KEYWORD: "text",
    })
});

named_schema!(Content, "ContentBlock", |generator| {
    let variants = [
        generator.subschema_for::<TextBlock>(),
        generator.subschema_for::<Image>(),
        generator.subschema_for::<Audio>(),
        generator.subschema_for::<Resource>(),
        generator.subschema_for::<ResourceLink>(),
    ];
    json_schema!({
        "description": "One block of a result, by `type`: text, an image, audio, an embedded resource or a resource link.",
        "oneOf": variants,
        BLOCK_KEYWORD: "any",
    })
});

impl<T: JsonSchema> JsonSchema for Rich<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Rich_{}", T::schema_name()).into()
    }
    fn schema_id() -> Cow<'static, str> {
        format!("buril::Rich<{}>", T::schema_id()).into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let structured = generator.subschema_for::<T>();
        let block = generator.subschema_for::<Content>();
        json_schema!({
            "type": "object",
            "properties": {
                "structured": structured,
                "content": {"type": "array", "items": block}
            },
            "required": ["structured", "content"],
            RESULT_KEYWORD: "rich",
        })
    }
}
