//! Turning what a tool function returns into the envelope's `data`.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::compiled::OutputShape;
use crate::error::ToolError;

/// A `Result` a tool may return: the success type is the tool's output, the error converts into
/// [`ToolError`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a result type a tool can return",
    label = "a tool returning `Result` needs `Result<T, E>` with `T: Serialize + JsonSchema` and `E: Into<buril::ToolError>`",
    note = "any `std::error::Error` converts into `buril::ToolError`; for other errors map them with `ToolError::runtime(..)`"
)]
pub trait ToolResult {
    /// The success type: what the tool outputs.
    type Ok: Serialize + JsonSchema;
    /// Turns the value into a serialized output or a tool error.
    fn into_output(self) -> Result<Value, ToolError>;
}

impl<T, E> ToolResult for Result<T, E>
where
    T: Serialize + JsonSchema,
    E: Into<ToolError>,
{
    type Ok = T;

    #[inline]
    fn into_output(self) -> Result<Value, ToolError> {
        match self {
            Ok(value) => to_output(&value),
            Err(error) => Err(error.into()),
        }
    }
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
    }
}
