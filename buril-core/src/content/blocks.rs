//! The content blocks a tool may return, each serialized as MCP writes it, and [`Rich`]
//! structured data returned with them.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

/// An image: its bytes (base64 on the wire) and MIME type. MCP's `ImageContent`.
///
/// ```
/// let image = buril::content::Image::png(vec![0x89, b'P', b'N', b'G']);
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
/// use buril::content::{Content, Image};
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
/// use buril::content::{Image, Rich};
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
