//! The validated input of one call, taken apart into typed parameters.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{Problem, ToolError};
use crate::pointer;

/// The input object of a call, after validation. The code the `#[tool]` attribute generates
/// takes each parameter out of it with [`required`](Self::required) or
/// [`optional`](Self::optional), then calls [`finish`](Self::finish), which reports every
/// parameter that failed to deserialize at once.
#[derive(Debug, Default)]
pub struct Args {
    /// `None` once taken whole (by `split` or `whole`): taking it leaves no empty map to build
    /// and drop.
    object: Option<Map<String, Value>>,
    problems: Vec<Problem>,
}

impl Args {
    /// Wraps an input object.
    pub fn new(object: Map<String, Value>) -> Self {
        Args {
            object: Some(object),
            problems: Vec::new(),
        }
    }

    /// Takes the required parameter `name`. On failure records a problem and returns `None`.
    pub fn required<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        let value = self.remove(name);
        self.required_value(name, value)
    }

    /// Takes the optional parameter `name`: absent and `null` both give `None`.
    pub fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<Option<T>> {
        let value = self.remove(name);
        self.optional_value(name, value)
    }

    fn remove(&mut self, name: &str) -> Option<Value> {
        self.object.as_mut().and_then(|object| object.remove(name))
    }

    /// Takes the properties `names` out of the input in one pass over it, as a derived
    /// `Deserialize` does: each entry's key is compared with the names, and nothing is hashed.
    /// The `#[tool]` expansion calls this once, then converts each value with
    /// [`required_value`](Self::required_value) or [`optional_value`](Self::optional_value).
    /// Properties not named are dropped (validation has already rejected unknown ones).
    #[inline]
    pub fn split<const N: usize>(&mut self, names: [&str; N]) -> [Option<Value>; N] {
        let mut values = [const { None }; N];
        if let Some(object) = self.object.take() {
            for (key, value) in object {
                if let Some(slot) = names.iter().position(|name| same_name(name, &key)) {
                    values[slot] = Some(value);
                }
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
                    pointer::child("", name),
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
        let object = self.object.take().unwrap_or_default();
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
                self.problems
                    .push(Problem::new(pointer::child("", name), error.to_string()));
                None
            }
        }
    }
}

/// Whether two property names are equal. Names are short: up to 16 bytes they are compared
/// as two overlapping words in registers, where `==` would call `memcmp` for each candidate.
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=8 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        9..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

#[inline]
fn word4(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_ne_bytes(word)
}

#[inline]
fn word8(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_ne_bytes(word)
}

/// Unwraps a parameter that [`Args::finish`] has confirmed is present.
#[inline]
pub fn taken<T>(value: Option<T>) -> T {
    match value {
        Some(value) => value,
        None => unreachable!("Args::finish reports every missing parameter"),
    }
}

#[cfg(test)]
mod tests {
    use super::same_name;

    #[test]
    fn same_name_agrees_with_equality() {
        let alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_é";
        for len in 0..40 {
            let name: String = alphabet.chars().cycle().take(len).collect();
            assert!(same_name(&name, &name.clone()), "{name}");
            // One byte changed at each position, and one byte more or fewer.
            for at in 0..name.len() {
                let mut bytes = name.clone().into_bytes();
                bytes[at] ^= 1;
                if let Ok(other) = String::from_utf8(bytes) {
                    assert!(!same_name(&name, &other), "{name} / {other}");
                    assert!(!same_name(&other, &name), "{other} / {name}");
                }
            }
            let longer = format!("{name}x");
            assert!(!same_name(&name, &longer));
            assert!(!same_name(&longer, &name));
        }
        assert!(same_name("", ""));
        assert!(!same_name("name", "Name"));
        assert!(!same_name("position", "positioN"));
    }
}
