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
        let value = self.object.remove(name);
        self.required_value(name, value)
    }

    /// Takes the optional parameter `name`: absent and `null` both give `None`.
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<Option<T>> {
        let value = self.object.remove(name);
        self.optional_value(name, value)
    }

    /// Takes the properties `names` out of the input in one pass over it, as a derived
    /// `Deserialize` does: each entry's key is compared with the names, and nothing is hashed.
    /// The `#[tool]` expansion calls this once, then converts each value with
    /// [`required_value`](Self::required_value) or [`optional_value`](Self::optional_value).
    /// Properties not named are dropped (validation has already rejected unknown ones).
    #[inline]
    pub fn split<const N: usize>(&mut self, names: [&str; N]) -> [Option<Value>; N] {
        let mut values = [const { None }; N];
        for (key, value) in std::mem::take(&mut self.object) {
            if let Some(slot) = names.iter().position(|name| *name == key) {
                values[slot] = Some(value);
            }
        }
        values
    }

    /// Converts the required parameter `name` taken by [`split`](Self::split). On failure
    /// records a problem and returns `None`.
    pub fn required_value<T: DeserializeOwned>(
        &mut self,
        name: &str,
        value: Option<Value>,
    ) -> Option<T> {
        match value {
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

    /// Converts the optional parameter `name` taken by [`split`](Self::split): absent and
    /// `null` both give `None`.
    pub fn optional_value<T: DeserializeOwned>(
        &mut self,
        name: &str,
        value: Option<Value>,
    ) -> Option<Option<T>> {
        match value {
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
