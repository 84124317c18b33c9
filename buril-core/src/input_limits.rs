//! Input limits: a call's input is measured (size and nesting depth) before it is validated, so
//! that hostile input can neither exhaust memory in validation nor overflow the stack.
//!
//! Every walk here is iterative: a value nested 100 000 levels deep is measured and dropped
//! without recursion.

use serde_json::Value;

use crate::error::{Problem, ToolError};

/// The limits a dispatcher applies to every call's input before it is validated
/// ([`Dispatcher::input_limits`](crate::Dispatcher::input_limits)): an input larger or deeper
/// answers `validation` and nothing runs.
///
/// ```
/// let limits = buril::Dispatcher::builder().max_input_depth(8).build().input_limits();
/// assert_eq!(limits.max_depth, 8);
/// assert_eq!(limits.max_bytes, buril::InputLimits::DEFAULT.max_bytes);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputLimits {
    /// The largest input, in bytes of its compact JSON text
    /// ([`DispatcherBuilder::max_input_bytes`](crate::DispatcherBuilder::max_input_bytes)).
    pub max_bytes: usize,
    /// The deepest nesting of arrays and objects
    /// ([`DispatcherBuilder::max_input_depth`](crate::DispatcherBuilder::max_input_depth)).
    pub max_depth: usize,
}

impl InputLimits {
    /// The defaults: 4 MiB, and 64 levels of arrays and objects.
    pub const DEFAULT: InputLimits = InputLimits {
        max_bytes: 4 * 1024 * 1024,
        max_depth: 64,
    };
}

impl Default for InputLimits {
    fn default() -> Self {
        InputLimits::DEFAULT
    }
}

/// Why an input was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Exceeded {
    /// Nested deeper than the limit (the depth reached when the walk stopped).
    Depth(usize),
    /// Larger than the limit (a lower bound of the size when the walk stopped).
    Bytes(usize),
}

impl InputLimits {
    /// Measures `value`, stopping as soon as a limit is passed.
    ///
    /// The size is that of the value's compact JSON text, not counting the escapes inside
    /// strings nor a float's digits past its first decimal (a lower bound, found without
    /// formatting the number); a scalar input has depth 0, `{}` and `[]` depth 1.
    pub(crate) fn check(&self, value: &Value) -> Result<(), Exceeded> {
        let mut bytes = 0usize;
        // Only arrays and objects wait here: scalars are counted where they are met, so
        // measuring a flat input allocates nothing.
        let mut stack: Vec<(&Value, usize)> = Vec::new();
        let mut next = Some((value, 0usize));
        while let Some((value, depth)) = next.take().or_else(|| stack.pop()) {
            bytes = bytes.saturating_add(match value {
                Value::Array(items) => {
                    let depth = depth + 1;
                    if depth > self.max_depth {
                        return Err(Exceeded::Depth(depth));
                    }
                    // Brackets and commas.
                    let mut own = 2 + items.len().saturating_sub(1);
                    for item in items {
                        match scalar_len(item) {
                            Some(len) => own += len,
                            None => stack.push((item, depth)),
                        }
                    }
                    own
                }
                Value::Object(map) => {
                    let depth = depth + 1;
                    if depth > self.max_depth {
                        return Err(Exceeded::Depth(depth));
                    }
                    let mut own = 2 + map.len().saturating_sub(1);
                    for (key, item) in map {
                        // The quoted key and its colon.
                        own += key.len() + 3;
                        match scalar_len(item) {
                            Some(len) => own += len,
                            None => stack.push((item, depth)),
                        }
                    }
                    own
                }
                scalar => scalar_len(scalar).unwrap_or(0),
            });
            if bytes > self.max_bytes {
                return Err(Exceeded::Bytes(bytes));
            }
        }
        Ok(())
    }

    /// Whether an object of scalars whose compact text is `len` bytes long (as
    /// [`check`](Self::check) counts them) is within the limits: it nests one level deep.
    pub(crate) fn admits_flat(&self, len: usize) -> bool {
        self.max_depth >= 1 && len <= self.max_bytes
    }

    /// Checks the raw text of an input before it is parsed: its length, and the nesting its
    /// brackets reach (outside strings).
    pub(crate) fn check_text(&self, text: &[u8]) -> Result<(), Exceeded> {
        if text.len() > self.max_bytes {
            return Err(Exceeded::Bytes(text.len()));
        }
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        for &byte in text {
            if in_string {
                match (escaped, byte) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > self.max_depth {
                        return Err(Exceeded::Depth(depth));
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        Ok(())
    }

    /// The `validation` error for an input past a limit.
    pub(crate) fn error(&self, exceeded: Exceeded) -> ToolError {
        let message = match exceeded {
            Exceeded::Depth(_) => format!(
                "the input is nested more than {} levels deep (the dispatcher's \
                 max_input_depth); flatten it",
                self.max_depth
            ),
            Exceeded::Bytes(bytes) => format!(
                "the input is larger than {} bytes ({bytes} bytes or more; the dispatcher's \
                 max_input_bytes); send less, or pass large content by reference",
                self.max_bytes
            ),
        };
        ToolError::from_problems(vec![Problem::new("", message)])
    }
}

fn number_len(number: &serde_json::Number) -> usize {
    fn digits(mut n: u64) -> usize {
        let mut count = 1;
        while n >= 10 {
            n /= 10;
            count += 1;
        }
        count
    }
    if let Some(n) = number.as_u64() {
        digits(n)
    } else if let Some(n) = number.as_i64() {
        1 + digits(n.unsigned_abs())
    } else {
        // A float: a lower bound of its text (sign, integer digits, a point and one digit),
        // without formatting it. Exact for most values (`12.5`); short only by the digits after
        // the first decimal, or for exponents.
        let value = number.as_f64().unwrap_or(0.0);
        let sign = usize::from(value.is_sign_negative());
        let magnitude = value.abs();
        if magnitude < 1e16 {
            sign + digits(magnitude as u64) + 2
        } else {
            // `1e16` and up are written with an exponent.
            sign + 4
        }
    }
}

/// The length of a scalar's text; `None` for arrays and objects.
#[inline]
pub(crate) fn scalar_len(value: &Value) -> Option<usize> {
    Some(match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => number_len(number),
        Value::String(text) => text.len() + 2,
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// Drops a value without recursion, so that a deeply nested one cannot overflow the stack
/// (`serde_json::Value`'s own drop recurses once per level).
pub(crate) fn drop_iteratively(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, item)| item)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deep(levels: usize) -> Value {
        let mut value = json!(1);
        for _ in 0..levels {
            value = Value::Array(vec![value]);
        }
        value
    }

    #[test]
    fn measures_compact_size() {
        let limits = InputLimits {
            max_bytes: 1 << 20,
            max_depth: 64,
        };
        for value in [
            json!({"a": [1, -20, true, null, "x"], "bb": {"c": false}}),
            json!([]),
            json!({}),
            json!(1.5),
            json!(u64::MAX),
            json!(i64::MIN),
        ] {
            let exact = serde_json::to_string(&value).unwrap().len();
            let tight = InputLimits {
                max_bytes: exact,
                max_depth: 64,
            };
            assert_eq!(tight.check(&value), Ok(()), "{value}");
            let under = InputLimits {
                max_bytes: exact - 1,
                max_depth: 64,
            };
            assert!(
                matches!(under.check(&value), Err(Exceeded::Bytes(_))),
                "{value}"
            );
            assert_eq!(limits.check(&value), Ok(()));
        }
    }

    #[test]
    fn depth_counts_containers() {
        let limits = InputLimits {
            max_bytes: 1 << 20,
            max_depth: 3,
        };
        assert_eq!(limits.check(&deep(3)), Ok(()));
        assert_eq!(limits.check(&deep(4)), Err(Exceeded::Depth(4)));
        assert_eq!(limits.check_text(b"[[[1]]]"), Ok(()));
        assert_eq!(limits.check_text(b"[[[[1]]]]"), Err(Exceeded::Depth(4)));
        // Brackets inside strings do not count.
        assert_eq!(limits.check_text(br#"["[[[[\"[[[["]"#), Ok(()));
    }

    #[test]
    fn a_value_100_000_levels_deep_is_measured_and_dropped_without_recursion() {
        let value = deep(100_000);
        let limits = InputLimits::default();
        assert_eq!(
            limits.check(&value),
            Err(Exceeded::Depth(InputLimits::DEFAULT.max_depth + 1))
        );
        drop_iteratively(value);
    }
}
