//! The one result envelope every call answers with.
//!
//! ```json
//! {"ok": true, "data": {"scene": "Main"}}
//! {"ok": false, "type": "validation", "error": "invalid input: /path: expected a string, got 3",
//!  "problems": [{"path": "/path", "message": "expected a string, got 3"}]}
//! ```

use std::sync::OnceLock;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::error::{ErrorKind, ToolError};

/// What a call produced: the tool's data or the reason it failed, plus warnings such as the use
/// of a deprecated alias. [`Outcome::to_envelope`] gives the wire form.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    result: Result<Value, ToolError>,
    warnings: Vec<String>,
}

impl Outcome {
    /// A successful call.
    pub fn ok(data: Value) -> Self {
        Outcome {
            result: Ok(data),
            warnings: Vec::new(),
        }
    }

    /// A failed call.
    pub fn err(error: ToolError) -> Self {
        Outcome {
            result: Err(error),
            warnings: Vec::new(),
        }
    }

    pub(crate) fn from_result(result: Result<Value, ToolError>) -> Self {
        Outcome {
            result,
            warnings: Vec::new(),
        }
    }

    /// Adds a warning, reported beside the data (for example the use of a deprecated alias).
    pub fn with_warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.result.is_ok()
    }

    /// The data of a successful call.
    pub fn data(&self) -> Option<&Value> {
        self.result.as_ref().ok()
    }

    /// The error of a failed call.
    pub fn error(&self) -> Option<&ToolError> {
        self.result.as_ref().err()
    }

    /// The kind of failure, if the call failed.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        self.error().map(ToolError::kind)
    }

    /// Warnings reported with the result.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The result, dropping warnings.
    pub fn into_result(self) -> Result<Value, ToolError> {
        self.result
    }

    /// The wire form: `{"ok": true, "data": …}` or `{"ok": false, "type": …, "error": …}`.
    pub fn to_envelope(&self) -> Value {
        let map = match &self.result {
            Ok(data) => success(data.clone()),
            Err(error) => failure(error.clone()),
        };
        with_warnings(map, self.warnings.iter().cloned())
    }

    /// The wire form, consuming the outcome (no copy of the data).
    pub fn into_envelope(self) -> Value {
        let map = match self.result {
            Ok(data) => success(data),
            Err(error) => failure(error),
        };
        with_warnings(map, self.warnings)
    }
}

/// The envelope's objects with their keys, built once; each envelope copies one (see
/// [`filled`]).
struct Shapes {
    success: Map<String, Value>,
    /// By `usize::from(has problems) | usize::from(has suggestions) << 1`.
    failure: [Map<String, Value>; 4],
    problem: Map<String, Value>,
}

fn shapes() -> &'static Shapes {
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let shape = |keys: &[&str]| -> Map<String, Value> {
            keys.iter()
                .map(|key| (key.to_string(), Value::Null))
                .collect()
        };
        Shapes {
            success: shape(&["ok", "data"]),
            failure: [
                shape(&["ok", "type", "error"]),
                shape(&["ok", "type", "error", "problems"]),
                shape(&["ok", "type", "error", "suggestions"]),
                shape(&["ok", "type", "error", "problems", "suggestions"]),
            ],
            problem: shape(&["path", "message"]),
        }
    })
}

/// A copy of `shape` holding `values`, in its keys' order (buril builds serde_json with
/// `preserve_order`: a map's values iterate in the order its keys went in). Copying the keys
/// with their hash table is cheaper than inserting them: an insert hashes its key (SipHash) and
/// probes the table. The map is allocated at the shape's size first: a plain `clone` would size
/// its entries to the table's capacity (seven for four keys).
fn filled<const N: usize>(shape: &Map<String, Value>, values: [Value; N]) -> Map<String, Value> {
    debug_assert_eq!(shape.len(), N);
    let mut map = Map::with_capacity(N);
    map.clone_from(shape);
    for (slot, value) in map.values_mut().zip(values) {
        *slot = value;
    }
    map
}

fn success(data: Value) -> Map<String, Value> {
    filled(&shapes().success, [Value::Bool(true), data])
}

/// The failure's entries, in the order [`Outcome`]'s `Serialize` writes them, built from the
/// error's own strings (a problem as its `Serialize` gives it: `{"path": …, "message": …}`).
fn failure(error: ToolError) -> Map<String, Value> {
    let (kind, message, problems, suggestions) = error.into_parts();
    let shapes = shapes();
    let which = usize::from(!problems.is_empty()) | usize::from(!suggestions.is_empty()) << 1;
    let problems = || {
        let entries = problems.into_iter().map(|problem| {
            let entry = [Value::String(problem.path), Value::String(problem.message)];
            Value::Object(filled(&shapes.problem, entry))
        });
        Value::Array(entries.collect())
    };
    let suggestions = || Value::Array(suggestions.into_iter().map(Value::String).collect());
    let (ok, kind, message) = (
        Value::Bool(false),
        Value::String(kind.as_str().into()),
        Value::String(message),
    );
    let shape = &shapes.failure[which];
    match which {
        0 => filled(shape, [ok, kind, message]),
        1 => filled(shape, [ok, kind, message, problems()]),
        2 => filled(shape, [ok, kind, message, suggestions()]),
        _ => filled(shape, [ok, kind, message, problems(), suggestions()]),
    }
}

/// The envelope, with its warnings if it has any.
fn with_warnings(mut map: Map<String, Value>, warnings: impl IntoIterator<Item = String>) -> Value {
    let warnings: Vec<Value> = warnings.into_iter().map(Value::String).collect();
    if !warnings.is_empty() {
        map.insert("warnings".into(), Value::Array(warnings));
    }
    Value::Object(map)
}

impl From<Result<Value, ToolError>> for Outcome {
    fn from(result: Result<Value, ToolError>) -> Self {
        Outcome::from_result(result)
    }
}

/// Serializes as the envelope with `ok` first, for people reading it.
impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match &self.result {
            Ok(data) => {
                map.serialize_entry("ok", &true)?;
                map.serialize_entry("data", data)?;
            }
            Err(error) => {
                map.serialize_entry("ok", &false)?;
                map.serialize_entry("type", error.kind().as_str())?;
                map.serialize_entry("error", error.message())?;
                if !error.problems().is_empty() {
                    map.serialize_entry("problems", error.problems())?;
                }
                if !error.suggestions().is_empty() {
                    map.serialize_entry("suggestions", error.suggestions())?;
                }
            }
        }
        if !self.warnings.is_empty() {
            map.serialize_entry("warnings", &self.warnings)?;
        }
        map.end()
    }
}
