//! Results that are not (only) JSON: images, audio, embedded resources and resource links, as
//! MCP's content blocks, and structured data returned with them.
//!
//! A tool returning one block ([`Image`], [`Audio`], [`Resource`], [`ResourceLink`],
//! [`Content`]) or several (`Vec<Content>`) answers with `{"content": [block, …]}` as its data;
//! a tool returning [`Rich<T>`] answers with `{"structured": T, "content": [block, …]}`. Each
//! block is written exactly as MCP writes it (`{"type": "image", "data": BASE64, "mimeType":
//! …}`), so the envelope, the MCP result and the bindings carry the same values. Over MCP the
//! blocks are the result's `content` and a `Rich` result's data its `structuredContent`.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The output-schema keyword that says a tool's data holds content blocks: `"content"` (the data
/// is `{"content": [...]}`) or `"rich"` (`{"structured": …, "content": [...]}`).
pub const RESULT_KEYWORD: &str = "x-buril-result";

/// The schema keyword that marks a content block's schema (what a tool returning one is told
/// apart by).
const BLOCK_KEYWORD: &str = "x-buril-content";

/// An image: its bytes (base64 on the wire) and MIME type. MCP's `ImageContent`.
///
/// ```
/// let image = buril::Image::png(vec![0x89, b'P', b'N', b'G']);
/// assert_eq!(image.mime_type(), "image/png");
/// assert_eq!(image.bytes().unwrap(), [0x89, b'P', b'N', b'G']);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "image", rename_all = "camelCase")]
pub struct Image {
    data: String,
    mime_type: String,
}

/// A sound: its bytes (base64 on the wire) and MIME type. MCP's `AudioContent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "audio", rename_all = "camelCase")]
pub struct Audio {
    data: String,
    mime_type: String,
}

macro_rules! binary_block {
    ($ty:ident, $what:literal) => {
        impl $ty {
            #[doc = concat!("A", $what, " of `mime_type` from its bytes.")]
            pub fn new(mime_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
                Self {
                    data: STANDARD.encode(bytes),
                    mime_type: mime_type.into(),
                }
            }

            #[doc = concat!("A", $what, " from data already in base64 (standard alphabet, padded).")]
            pub fn from_base64(mime_type: impl Into<String>, data: impl Into<String>) -> Self {
                Self {
                    data: data.into(),
                    mime_type: mime_type.into(),
                }
            }

            /// The MIME type.
            pub fn mime_type(&self) -> &str {
                &self.mime_type
            }

            /// The data in base64, as it goes on the wire.
            pub fn base64(&self) -> &str {
                &self.data
            }

            /// The data's bytes (an error if it is not base64).
            pub fn bytes(&self) -> Result<Vec<u8>, base64::DecodeError> {
                STANDARD.decode(&self.data)
            }
        }
    };
}

binary_block!(Image, "n image");
binary_block!(Audio, " sound");

impl Image {
    /// A PNG image from its bytes.
    pub fn png(bytes: impl AsRef<[u8]>) -> Self {
        Self::new("image/png", bytes)
    }
}

impl Audio {
    /// A WAV sound from its bytes.
    pub fn wav(bytes: impl AsRef<[u8]>) -> Self {
        Self::new("audio/wav", bytes)
    }
}

/// A resource embedded in a result: its URI, MIME type and contents, text or bytes (base64 on
/// the wire as `blob`). MCP's `EmbeddedResource`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "resource")]
pub struct Resource {
    resource: ResourceContents,
}

/// What an embedded resource holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceContents {
    uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blob: Option<String>,
}

impl Resource {
    /// A text resource.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            resource: ResourceContents {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                text: Some(text.into()),
                blob: None,
            },
        }
    }

    /// A binary resource from its bytes.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Self {
            resource: ResourceContents {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                text: None,
                blob: Some(STANDARD.encode(bytes)),
            },
        }
    }

    /// The URI.
    pub fn uri(&self) -> &str {
        &self.resource.uri
    }

    /// The MIME type, if given.
    pub fn mime_type(&self) -> Option<&str> {
        self.resource.mime_type.as_deref()
    }

    /// The text of a text resource.
    pub fn as_text(&self) -> Option<&str> {
        self.resource.text.as_deref()
    }

    /// The bytes of a binary resource (`None` for a text resource, an error if it is not
    /// base64).
    pub fn bytes(&self) -> Option<Result<Vec<u8>, base64::DecodeError>> {
        self.resource
            .blob
            .as_ref()
            .map(|blob| STANDARD.decode(blob))
    }
}

/// A link to a resource the client may read: URI, name, and optionally a description, MIME type
/// and size. MCP's `ResourceLink`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "resource_link", rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl ResourceLink {
    /// A link to `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
            size: None,
        }
    }

    /// With a MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a size in bytes.
    pub fn size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// With a description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// One block of a result: text, an image, audio, an embedded resource or a resource link, as
/// MCP's `ContentBlock` (tagged by `type`).
///
/// ```
/// use buril::{Content, Image};
///
/// let blocks: Vec<Content> = vec!["A red pixel:".into(), Image::png([0u8; 4]).into()];
/// let json = serde_json::to_value(&blocks).unwrap();
/// assert_eq!(json[0], serde_json::json!({"type": "text", "text": "A red pixel:"}));
/// assert_eq!(json[1]["type"], "image");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image(Image),
    /// Audio.
    Audio(Audio),
    /// An embedded resource.
    Resource(Resource),
    /// A link to a resource.
    ResourceLink(ResourceLink),
}

/// Each block serializes with its `type` (the blocks' own types write it).
impl Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        match self {
            Content::Text { text } => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
                map.end()
            }
            Content::Image(image) => image.serialize(serializer),
            Content::Audio(audio) => audio.serialize(serializer),
            Content::Resource(resource) => resource.serialize(serializer),
            Content::ResourceLink(link) => link.serialize(serializer),
        }
    }
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text { text }
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

impl From<Image> for Content {
    fn from(image: Image) -> Self {
        Content::Image(image)
    }
}

impl From<Audio> for Content {
    fn from(audio: Audio) -> Self {
        Content::Audio(audio)
    }
}

impl From<Resource> for Content {
    fn from(resource: Resource) -> Self {
        Content::Resource(resource)
    }
}

impl From<ResourceLink> for Content {
    fn from(link: ResourceLink) -> Self {
        Content::ResourceLink(link)
    }
}

/// Structured data returned with content blocks: over MCP, `structuredContent` (described by
/// the output schema of `T`) and the blocks after its JSON text; in the envelope, `{"structured":
/// T, "content": [...]}`.
///
/// ```
/// use buril::{Image, Rich};
///
/// let rich = Rich::new(serde_json::json!({"objects": 3})).with(Image::png([0u8; 4]));
/// let json = serde_json::to_value(&rich).unwrap();
/// assert_eq!(json["structured"]["objects"], 3);
/// assert_eq!(json["content"][0]["type"], "image");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rich<T> {
    /// The structured data.
    pub structured: T,
    /// The blocks returned with it.
    pub content: Vec<Content>,
}

impl<T> Rich<T> {
    /// `structured` with no blocks yet.
    pub fn new(structured: T) -> Self {
        Self {
            structured,
            content: Vec::new(),
        }
    }

    /// With one more block.
    pub fn with(mut self, block: impl Into<Content>) -> Self {
        self.content.push(block.into());
        self
    }
}

// ---- schemas -------------------------------------------------------------------------------

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

// ---- how a tool's data holds content -------------------------------------------------------

/// How a tool's output holds content blocks, from its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContentShape {
    /// One block: the data is `{"content": [block]}`.
    One,
    /// A list of blocks: the data is `{"content": blocks}`.
    Many,
    /// [`Rich`]: the data is the value itself.
    Rich,
}

/// Whether the output schema `schema` (as generated, before normalisation) is a block, a list of
/// blocks or a [`Rich`] value.
pub(crate) fn content_shape(schema: &Value) -> Option<ContentShape> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let resolve = |value: &'_ Value| -> Option<Value> {
        match value.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let name = reference.strip_prefix("#/$defs/")?;
                defs?.get(name).cloned()
            }
            None => Some(value.clone()),
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
/// [`Rich`] data with blocks.
pub fn result_kind(output_schema: &Value) -> Option<&str> {
    output_schema.get(RESULT_KEYWORD).and_then(Value::as_str)
}

/// The schema MCP's `outputSchema` gives for a tool: `None` for a tool that returns content
/// blocks only (its result is the blocks, with no `structuredContent`); the schema of the
/// structured data (an object, or `{"result": …}` around anything else) for a [`Rich`] tool; the
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

    fn root<T: JsonSchema>() -> Value {
        crate::schema::output_generator()
            .into_root_schema_for::<T>()
            .to_value()
    }

    #[test]
    fn blocks_serialize_as_mcp_writes_them() {
        let block: Content = Image::png([1u8, 2, 3]).into();
        assert_eq!(
            serde_json::to_value(&block).unwrap(),
            serde_json::json!({"type": "image", "data": "AQID", "mimeType": "image/png"})
        );
        let block: Content = Resource::text("test://r", "text/plain", "hi").into();
        assert_eq!(
            serde_json::to_value(&block).unwrap(),
            serde_json::json!({"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "hi"}})
        );
        let link: Content = ResourceLink::new("file:///a.png", "a.png")
            .mime_type("image/png")
            .size(3)
            .into();
        assert_eq!(
            serde_json::to_value(&link).unwrap(),
            serde_json::json!({"type": "resource_link", "uri": "file:///a.png", "name": "a.png", "mimeType": "image/png", "size": 3})
        );
        let back: Content = serde_json::from_value(serde_json::to_value(&block).unwrap()).unwrap();
        assert_eq!(back, block);
        // A block returned on its own says what it is, as in a list.
        assert_eq!(
            serde_json::to_value(Audio::wav([0u8])).unwrap(),
            serde_json::json!({"type": "audio", "data": "AA==", "mimeType": "audio/wav"})
        );
        let audio: Content = serde_json::from_value(
            serde_json::json!({"type": "audio", "data": "AA==", "mimeType": "audio/wav"}),
        )
        .unwrap();
        assert_eq!(audio, Content::Audio(Audio::wav([0u8])));
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
