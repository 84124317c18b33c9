//! Turning what a tool function returns into the envelope's `data`.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::compiled::OutputShape;
use crate::content::content_data;
use crate::error::ToolError;

/// A `Result` a tool may return under another name (`io::Result<T>`, `anyhow::Result<T>`): the
/// success type is the tool's output, and the error is converted as the error of
/// `Result<T, E>` is.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a result type a tool can return",
    label = "a tool returning a type named `Result` needs `std::result::Result<T, E>` (or an alias of it)",
    note = "return `Result<T, E>` with `T: Serialize + JsonSchema` and `E` a `buril::ToolError`, a `std::error::Error`, or a `Display` type such as `anyhow::Error`"
)]
pub trait ToolResult {
    /// The success type: what the tool outputs.
    type Ok;
    /// The error type.
    type Err;
}

impl<T, E> ToolResult for Result<T, E> {
    type Ok = T;
    type Err = E;
}

/// Serializes a tool's output.
#[inline]
pub fn to_output<T: Serialize + ?Sized>(value: &T) -> Result<Value, ToolError> {
    serde_json::to_value(value).map_err(|error| {
        ToolError::runtime(format!(
            "the tool's output could not be serialized: {error}"
        ))
    })
}

/// Puts a serialized output into the shape its output schema describes.
#[inline]
pub(crate) fn shape(value: Value, shape: OutputShape) -> Value {
    match shape {
        OutputShape::Object => value,
        OutputShape::Unit => Value::Object(Map::new()),
        OutputShape::Wrapped => {
            let mut map = Map::new();
            map.insert("result".into(), value);
            Value::Object(map)
        }
        OutputShape::Content(content) => content_data(value, content),
    }
}
