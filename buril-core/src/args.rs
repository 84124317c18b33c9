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

    /// The whole input object (empty once a parameter was taken out of it whole), for a
    /// handler that sends it on as it is: a provided tool's
    /// ([`ToolHandler`](crate::provided::ToolHandler)).
    pub fn into_map(self) -> Map<String, Value> {
        self.object.unwrap_or_default()
    }

    /// The whole input as a JSON object value ([`into_map`](Self::into_map)).
    pub fn into_value(self) -> Value {
        Value::Object(self.into_map())
    }

    /// The input as JSON text, cut after `limit` characters (for a confirmation's message).
    pub fn preview(&self, limit: usize) -> String {
        let text = match &self.object {
            Some(object) => serde_json::to_string(object).unwrap_or_default(),
            None => String::new(),
        };
        match text.char_indices().nth(limit) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text,
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
    /// A tool's call (`properties::take`) calls this once, then converts each value with
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
        self.deserialize(None, Value::Object(object))
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
        self.deserialize(Some(name), value)
    }

    /// Deserializes `value`, the property `name` (the whole input for `None`). A number with no
    /// fractional part is an integer in JSON Schema (`1.0`, `1e2`, `-0`), so the schema accepts
    /// it wherever it says `integer`; serde refuses it for an integer type, so such numbers are
    /// made integers, and the value tried again, when serde refuses the value as it came. A
    /// value serde refuses is reported at its exact pointer (a struct's field, an array's
    /// item), not at the parameter. Neither the pointer nor the retry costs a call that
    /// succeeds the first time anything.
    fn deserialize<T: DeserializeOwned>(
        &mut self,
        name: Option<&str>,
        mut value: Value,
    ) -> Option<T> {
        let at = |inner: &str| {
            let mut pointer = String::new();
            if let Some(name) = name {
                pointer::push(&mut pointer, name);
            }
            pointer.push_str(inner);
            pointer
        };
        let refused = match value {
            // A scalar fails where it is, and is cheap to look at first.
            Value::Number(ref mut number) => {
                if number.is_f64()
                    && let Some(integer) = number.as_f64().and_then(integer_of)
                {
                    *number = integer;
                }
                match T::deserialize(value) {
                    Ok(value) => return Some(value),
                    Err(error) => (at(""), error),
                }
            }
            Value::Array(_) | Value::Object(_) => {
                // Borrowed, so that a refusal can be tried again and located.
                if let Ok(value) = T::deserialize(&value) {
                    return Some(value);
                }
                integral_floats_as_integers(&mut value);
                match serde_path_to_error::deserialize::<_, T>(&value) {
                    Ok(value) => return Some(value),
                    Err(error) => (at(&pointer_of(error.path())), error.into_inner()),
                }
            }
            scalar => match T::deserialize(scalar) {
                Ok(value) => return Some(value),
                Err(error) => (at(""), error),
            },
        };
        self.problems
            .push(Problem::new(refused.0, refused.1.to_string()));
        None
    }
}

/// Turns every number of `value` that is a float with no fractional part, within the range of
/// `u64` or `i64`, into that integer (`-0.0` into `0`).
fn integral_floats_as_integers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(integer) = number.as_f64().and_then(integer_of) {
                *number = integer;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        Value::Object(object) => object.values_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}

/// The integer `f` is, when it has no fractional part and fits `u64` or `i64`.
fn integer_of(f: f64) -> Option<serde_json::Number> {
    // 2^64 and -2^63, exactly: every integral float below the first and at or above the second
    // converts without loss.
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    const I64_START: f64 = -9_223_372_036_854_775_808.0;
    if f.fract() != 0.0 {
        return None;
    }
    if (0.0..U64_END).contains(&f) || f == 0.0 {
        Some((f as u64).into())
    } else if (I64_START..0.0).contains(&f) {
        Some((f as i64).into())
    } else {
        None
    }
}

/// The JSON pointer of a path serde_path_to_error tracked (`""` for the value itself).
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut at = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => pointer::push(&mut at, &index.to_string()),
            Segment::Map { key } => pointer::push(&mut at, key),
            // An enum's variant is its tag's value or its key: the pointer stays on the value.
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    at
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
    use serde_json::json;

    use super::*;

    #[test]
    fn integral_floats_become_integers_and_others_stay() {
        let mut value = json!({
            "a": 1.0, "b": 1e2, "c": -0.0, "d": -3.0, "e": 1.5, "f": 1e300,
            "g": [2.0, "x", 0.25], "h": 18446744073709551615u64, "i": -9.3e18,
        });
        integral_floats_as_integers(&mut value);
        assert_eq!(
            value,
            json!({
                "a": 1, "b": 100, "c": 0, "d": -3, "e": 1.5, "f": 1e300,
                "g": [2, "x", 0.25], "h": 18446744073709551615u64, "i": -9.3e18,
            })
        );
        assert!(value["a"].is_u64() && value["d"].is_i64() && value["f"].is_f64());
    }

    #[test]
    fn a_refused_value_is_reported_at_its_exact_pointer() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Item {
            count: u8,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Whole {
            max_results: u32,
            items: Vec<Item>,
        }
        let mut args = Args::new(
            json!({"max_results": "ten", "items": [{"count": 1}, {"count": "x"}]})
                .as_object()
                .cloned()
                .unwrap(),
        );
        assert!(args.whole::<Whole>().is_none());
        let error = args.finish().unwrap_err();
        assert_eq!(error.problems()[0].path, "/max_results");

        let mut args = Args::new(
            json!({"items": [{"count": 1}, {"count": "x"}]})
                .as_object()
                .cloned()
                .unwrap(),
        );
        assert!(args.required::<Vec<Item>>("items").is_none());
        let error = args.finish().unwrap_err();
        assert_eq!(error.problems()[0].path, "/items/1/count");

        let mut args = Args::new(json!({"n": 7.0, "m": -0.0}).as_object().cloned().unwrap());
        assert_eq!(args.required::<u64>("n"), Some(7));
        assert_eq!(args.required::<i8>("m"), Some(0));
        assert!(args.finish().is_ok());
    }

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
