//! The validated input of one call, taken apart into typed parameters.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{Problem, ToolError};
use crate::validate::escape_pointer;

/// The input object of a call, after validation. The code the `#[tool]` attribute generates
/// takes each parameter out of it with [`required`](Self::required) or
/// [`optional`](Self::optional), then calls [`finish`](Self::finish), which reports every
/// parameter that failed to deserialize at once.
#[derive(Debug, Default)]
pub struct Args {
    object: Map<String, Value>,
    problems: Vec<Problem>,
}

impl Args {
    /// Wraps an input object.
    pub fn new(object: Map<String, Value>) -> Self {
        Args {
            object,
            problems: Vec::new(),
        }
    }

    /// Takes the required parameter `name`. On failure records a problem and returns `None`.
    pub fn required<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.object.remove(name) {
            Some(value) => self.convert(name, value),
            None => {
                self.problems.push(Problem::new(
                    format!("/{}", escape_pointer(name)),
                    "missing required property",
                ));
                None
            }
        }
    }

    /// Takes the optional parameter `name`: absent and `null` both give `None`.
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<Option<T>> {
        match self.object.remove(name) {
            None | Some(Value::Null) => Some(None),
            Some(value) => self.convert(name, value).map(Some),
        }
    }

    /// Deserializes the whole input object into `T` (a tool taking a single input struct).
    pub fn whole<T: DeserializeOwned>(&mut self) -> Option<T> {
        let object = std::mem::take(&mut self.object);
        match T::deserialize(Value::Object(object)) {
            Ok(value) => Some(value),
            Err(error) => {
                self.problems.push(Problem::new("", error.to_string()));
                None
            }
        }
    }

    /// `Ok` when every parameter was taken; otherwise a validation error listing each failure.
    pub fn finish(self) -> Result<(), ToolError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(ToolError::from_problems(self.problems))
        }
    }

    fn convert<T: DeserializeOwned>(&mut self, name: &str, value: Value) -> Option<T> {
        match T::deserialize(value) {
            Ok(value) => Some(value),
            Err(error) => {
                self.problems.push(Problem::new(
                    format!("/{}", escape_pointer(name)),
                    error.to_string(),
                ));
                None
            }
        }
    }
}

/// Unwraps a parameter that [`Args::finish`] has confirmed is present.
#[inline]
pub fn taken<T>(value: Option<T>) -> T {
    match value {
        Some(value) => value,
        None => unreachable!("Args::finish reports every missing parameter"),
    }
}
