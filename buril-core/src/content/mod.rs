//! Results that are not (only) JSON: images, audio, embedded resources and resource links, as
//! MCP's content blocks, and structured data returned with them.
//!
//! A tool returning one block ([`Image`], [`Audio`], [`Resource`], [`ResourceLink`],
//! [`Content`]) or several (`Vec<Content>`) answers with `{"content": [block, …]}` as its data;
//! a tool returning [`Rich<T>`] answers with `{"structured": T, "content": [block, …]}`. Each
//! block is written exactly as MCP writes it (`{"type": "image", "data": BASE64, "mimeType":
//! …}`), so the envelope, the MCP result and the bindings carry the same values. Over MCP the
//! blocks are the result's `content` and a `Rich` result's data its `structuredContent`.
//!
//! The types are in `blocks.rs`, their JSON Schemas in `schemas.rs`, and how a tool's output
//! schema and data hold them in `shape.rs`.

mod blocks;
mod schemas;
pub(crate) mod shape;

pub use blocks::{Audio, Content, Image, Resource, ResourceLink, Rich};
#[doc(hidden)]
pub use schemas::RESULT_KEYWORD;
#[doc(hidden)]
pub use shape::result_kind;
pub(crate) use shape::{
    ContentShape, content_data, content_output_schema, content_shape, mcp_output_schema,
};
