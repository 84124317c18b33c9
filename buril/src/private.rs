//! What the `#[tool]` expansion refers to. Not public API: it may change in any release.

pub use linkme;
pub use schemars::{Schema, SchemaGenerator};
pub use serde_json::Value;

pub use crate::args::{Args, taken};
pub use crate::context::Context;
pub use crate::descriptor::{
    Annotations, BoxFuture, Invoke, SourceLocation, ToolDescriptor, ToolMeta,
};
pub use crate::error::ToolError;
pub use crate::output::{ToolResult, to_output};
pub use crate::registry::TOOLS;
pub use crate::schema::{InputSchema, root_schema};

/// The output of a tool returning `()`.
#[inline]
pub fn unit_output(_: ()) -> Result<Value, ToolError> {
    Ok(Value::Object(serde_json::Map::new()))
}

/// The output schema of a tool returning `()` (replaced by the empty object schema).
pub fn unit_schema(_: &mut SchemaGenerator) -> Schema {
    Schema::default()
}

/// Boxes the future of an async tool.
#[inline]
pub fn boxed<F>(future: F) -> BoxFuture
where
    F: std::future::Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    Box::pin(future)
}

/// Asserts at compile time that a parameter type can be deserialized and described.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "a tool parameter needs `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive them: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait Parameter: serde::de::DeserializeOwned + schemars::JsonSchema {}
impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> Parameter for T {}

/// Asserts at compile time that an output type can be serialized and described.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "a tool's output needs `serde::Serialize` and `schemars::JsonSchema`",
    note = "derive them: `#[derive(serde::Serialize, schemars::JsonSchema)]`"
)]
pub trait Output: serde::Serialize + schemars::JsonSchema {}
impl<T: serde::Serialize + schemars::JsonSchema> Output for T {}

/// Checks a parameter type where the user wrote it.
pub const fn assert_parameter<T: Parameter>() {}
/// Checks an output type where the user wrote it.
pub const fn assert_output<T: Output>() {}
/// Checks a `Result` return type where the user wrote it.
pub const fn assert_result<T: ToolResult>() {}
