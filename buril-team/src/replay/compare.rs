//! Where a replayed envelope first departs from the recorded one, named by a JSON Pointer
//! ([`buril::pointer`]), and the pointers a replay was told not to compare.

use std::borrow::Cow;

use buril::pointer;
use serde_json::Value;

/// The pointers whose values are not compared, each read into its reference tokens
/// (unescaped). A `*` token matches any one token, and a pointer covers everything under it.
pub(super) struct IgnoredPointers(Vec<Vec<String>>);

impl IgnoredPointers {
    pub(super) fn parse(pointers: &[String]) -> Self {
        let tokens = |text: &String| {
            text.split('/')
                .skip(1)
                .map(|token| pointer::unescape(token).into_owned())
                .collect()
        };
        IgnoredPointers(pointers.iter().map(tokens).collect())
    }

    /// Whether the value at `path` (unescaped tokens) is not compared.
    fn cover(&self, path: &[Cow<'_, str>]) -> bool {
        self.0.iter().any(|ignored| {
            ignored.len() <= path.len()
                && ignored
                    .iter()
                    .zip(path)
                    .all(|(want, have)| want == "*" || want == have)
        })
    }
}

/// The first place where two envelopes differ.
pub(super) struct Difference {
    /// Where, as a JSON Pointer into the envelope.
    pub(super) pointer: String,
    /// The recorded value there, if it had one.
    pub(super) expected: Option<Value>,
    /// The value now, if there is one.
    pub(super) actual: Option<Value>,
}

/// The first place, in document order, where `expected` and `actual` differ, outside the
/// ignored pointers.
pub(super) fn first_difference(
    expected: &Value,
    actual: &Value,
    ignored: &IgnoredPointers,
) -> Option<Difference> {
    compare(expected, actual, &mut Vec::new(), ignored)
}

/// [`first_difference`] of the values at `path` (its unescaped tokens).
fn compare<'v>(
    expected: &'v Value,
    actual: &'v Value,
    path: &mut Vec<Cow<'v, str>>,
    ignored: &IgnoredPointers,
) -> Option<Difference> {
    if ignored.cover(path) {
        return None;
    }
    match (expected, actual) {
        (Value::Object(want), Value::Object(have)) => {
            for (key, value) in want {
                path.push(Cow::Borrowed(key));
                let found = match have.get(key) {
                    Some(other) => compare(value, other, path, ignored),
                    None => difference_at(path, Some(value), None, ignored),
                };
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            for (key, value) in have {
                if !want.contains_key(key) {
                    path.push(Cow::Borrowed(key));
                    let found = difference_at(path, None, Some(value), ignored);
                    path.pop();
                    if found.is_some() {
                        return found;
                    }
                }
            }
            None
        }
        (Value::Array(want), Value::Array(have)) => {
            for index in 0..want.len().max(have.len()) {
                path.push(Cow::Owned(index.to_string()));
                let found = match (want.get(index), have.get(index)) {
                    (Some(a), Some(b)) => compare(a, b, path, ignored),
                    (a, b) => difference_at(path, a, b, ignored),
                };
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        (a, b) if a == b => None,
        (a, b) => difference_at(path, Some(a), Some(b), ignored),
    }
}

/// The difference at `path`, unless it is ignored.
fn difference_at(
    path: &[Cow<'_, str>],
    expected: Option<&Value>,
    actual: Option<&Value>,
    ignored: &IgnoredPointers,
) -> Option<Difference> {
    (!ignored.cover(path)).then(|| Difference {
        pointer: pointer::from_tokens(path),
        expected: expected.cloned(),
        actual: actual.cloned(),
    })
}
