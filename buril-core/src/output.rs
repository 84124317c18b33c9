//! Turning what a tool function returns into the envelope's `data`.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::compiled::OutputShape;
use crate::content::content_data;
use crate::content::shape::ContentShape;
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

/// The value [`shape`] put into `data` as `shape`, taken out again: what a tool done
/// elsewhere (the editor) answered as the data, read back as the declared output.
pub(crate) fn unshape(data: Value, shape: OutputShape) -> Value {
    let take = |mut data: Value, key: &str| match data.get_mut(key) {
        Some(inner) => inner.take(),
        None => data,
    };
    match shape {
        OutputShape::Object => data,
        OutputShape::Unit => Value::Null,
        OutputShape::Wrapped => take(data, "result"),
        OutputShape::Content(ContentShape::Many | ContentShape::Rich) => take(data, "content"),
        OutputShape::Content(ContentShape::One) => match take(data, "content") {
            Value::Array(mut blocks) if blocks.len() == 1 => blocks.pop().unwrap_or(Value::Null),
            other => other,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unshape_takes_back_what_shape_put_in() {
        let shapes = [
            (OutputShape::Object, json!({"a": 1})),
            (OutputShape::Wrapped, json!(["x", "y"])),
            (OutputShape::Wrapped, json!({"a": 1})),
            (
                OutputShape::Content(ContentShape::One),
                json!({"type": "image", "data": "AQID", "mimeType": "image/png"}),
            ),
            (
                OutputShape::Content(ContentShape::Many),
                json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
            ),
            (
                OutputShape::Content(ContentShape::Rich),
                json!({"structured": {"a": 1}, "content": []}),
            ),
        ];
        for (shape_of, value) in shapes {
            let data = shape(value.clone(), shape_of);
            assert_eq!(unshape(data, shape_of), value, "{shape_of:?}");
        }
    }

    #[test]
    fn unshape_leaves_data_that_lacks_the_wrapper_as_it_is() {
        let data = json!({"other": 1});
        assert_eq!(unshape(data.clone(), OutputShape::Wrapped), data);
        assert_eq!(
            unshape(data.clone(), OutputShape::Content(ContentShape::One)),
            data
        );
    }
}
