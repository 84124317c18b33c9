//! The one result envelope every call answers with.
//!
//! ```json
//! {"ok": true, "data": {"scene": "Main"}}
//! {"ok": false, "type": "validation", "error": "invalid input: /path: expected a string, got 3",
//!  "problems": [{"path": "/path", "message": "expected a string, got 3"}]}
//! ```

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
        let mut map = Map::new();
        match &self.result {
            Ok(data) => {
                map.insert("ok".into(), Value::Bool(true));
                map.insert("data".into(), data.clone());
            }
            Err(error) => map = failure(error.clone()),
        }
        if !self.warnings.is_empty() {
            map.insert(
                "warnings".into(),
                Value::Array(self.warnings.iter().cloned().map(Value::String).collect()),
            );
        }
        Value::Object(map)
    }

    /// The wire form, consuming the outcome (no copy of the data).
    pub fn into_envelope(self) -> Value {
        let mut map = Map::new();
        match self.result {
            Ok(data) => {
                map.insert("ok".into(), Value::Bool(true));
                map.insert("data".into(), data);
            }
            Err(error) => map = failure(error),
        }
        if !self.warnings.is_empty() {
            map.insert(
                "warnings".into(),
                Value::Array(self.warnings.into_iter().map(Value::String).collect()),
            );
        }
        Value::Object(map)
    }
}

/// The failure's entries, in the order [`Outcome`]'s `Serialize` writes them, built from the
/// error's own strings (a problem as its `Serialize` gives it: `{"path": …, "message": …}`).
fn failure(error: ToolError) -> Map<String, Value> {
    let (kind, message, problems, suggestions) = error.into_parts();
    let entries = 3 + usize::from(!problems.is_empty()) + usize::from(!suggestions.is_empty());
    let mut map = Map::with_capacity(entries);
    map.insert("ok".into(), Value::Bool(false));
    map.insert("type".into(), Value::String(kind.as_str().into()));
    map.insert("error".into(), Value::String(message));
    if !problems.is_empty() {
        let problems = problems
            .into_iter()
            .map(|problem| {
                let mut entry = Map::with_capacity(2);
                entry.insert("path".into(), Value::String(problem.path));
                entry.insert("message".into(), Value::String(problem.message));
                Value::Object(entry)
            })
            .collect();
        map.insert("problems".into(), Value::Array(problems));
    }
    if !suggestions.is_empty() {
        let names = suggestions.into_iter().map(Value::String);
        map.insert("suggestions".into(), Value::Array(names.collect()));
    }
    map
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
