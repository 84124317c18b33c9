//! The trace of a run: everything needed to replay it without a model, as a versioned JSON
//! file written atomically.
//!
//! ```json
//! {
//!   "version": 1,
//!   "handle": "team_8f4a2c1",
//!   "specialist": "scene-inspector",
//!   "brief": "List the scenes and find the camera.",
//!   "model": "default",
//!   "temperature": 0.2,
//!   "tool_view": ["scene_*", "gameobject_get", "gameobject_find"],
//!   "director": {"tool": "agent_team_handoff", "input": {...}, "envelope": {...}},
//!   "calls": [
//!     {"tool": "scene_list", "input": {}, "envelope": {"ok": true, "data": {...}},
//!      "duration_ms": 3, "call_id": "call_1", "attempt": 1}
//!   ],
//!   "report": "One scene, Main, with a camera.",
//!   "artifact": null,
//!   "error": null,
//!   "status": "done",
//!   "duration_ms": 12,
//!   "tool_calls": 1,
//!   "schemas": {"scene_list": "fnv1a64:0c1f..."},
//!   "notes": []
//! }
//! ```
//!
//! `calls` holds every call the specialist made, in order, retries included (`attempt` 2),
//! with its input exactly as sent, the envelope exactly as answered and how long it took.
//! `schemas` holds a hash of the input schema of every tool in the view and every tool called,
//! so that a replay tells a changed schema from a changed answer. A reader refuses a `version`
//! newer than it knows.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::team::wire::{RunState, TurnRecord};

/// The trace format this build writes, and the newest it reads.
pub const TRACE_VERSION: u32 = 1;

/// A recorded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamTrace")]
pub struct Trace {
    /// The format's version: [`TRACE_VERSION`].
    pub version: u32,
    /// The run's handle.
    pub handle: String,
    /// The specialist that ran.
    pub specialist: String,
    /// The director's brief.
    pub brief: String,
    /// The model, as the handoff named it (or the specialist's default).
    pub model: String,
    /// The temperature the handoff set, if any.
    pub temperature: Option<f64>,
    /// The tool view's patterns.
    pub tool_view: Vec<String>,
    /// The director's call that started the run.
    #[serde(default)]
    pub director: Option<DirectorCall>,
    /// Every tool call of the run, in order.
    pub calls: Vec<CallRecord>,
    /// The final report (for a failed run, what went wrong); `null` while running.
    pub report: Option<String>,
    /// The report's artifact, if any.
    #[serde(default)]
    pub artifact: Option<Value>,
    /// Why the run did not finish its work, verbatim, if it did not.
    #[serde(default)]
    pub error: Option<String>,
    /// How the run ended (`running` when recorded before it ended).
    pub status: RunState,
    /// How long the run took, in milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// How many tool calls the run made (retries included).
    #[serde(default)]
    pub tool_calls: u64,
    /// Tool name → hash of its input schema ([`schema_hash`]), for the tools of the view and
    /// every tool called.
    #[serde(default)]
    pub schemas: BTreeMap<String, String>,
    /// Remarks on the run: tools the model's profile could not express, say.
    #[serde(default)]
    pub notes: Vec<String>,
    /// The model's turns, in order (absent in traces recorded before runs kept time).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnRecord>,
}

/// The director's call that started a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamDirectorCall")]
pub struct DirectorCall {
    /// `agent_team_handoff`.
    pub tool: String,
    /// The handoff's input.
    pub input: Value,
    /// What the handoff answered.
    pub envelope: Value,
}

/// One tool call of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamCallRecord")]
pub struct CallRecord {
    /// The tool, as the model named it.
    pub tool: String,
    /// The input, as sent.
    pub input: Value,
    /// The envelope, as answered.
    pub envelope: Value,
    /// How long the call took, in milliseconds.
    pub duration_ms: u64,
    /// The model's id for the call.
    #[serde(default)]
    pub call_id: String,
    /// 1 for the first try, 2 for the retry of a failed call.
    #[serde(default = "first_attempt")]
    pub attempt: u32,
    /// When the call started, in milliseconds from the run's start (absent in traces recorded
    /// before runs kept time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
}

fn first_attempt() -> u32 {
    1
}

/// A run's trace while the run goes: the run appends its calls and its end, the team reads it
/// to answer queries and to record it.
pub(crate) struct LiveTrace(Mutex<Trace>);

impl LiveTrace {
    pub(crate) fn new(trace: Trace) -> Self {
        LiveTrace(Mutex::new(trace))
    }

    /// The trace, locked (a panic while it was locked leaves it as it was).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Trace> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why a trace could not be read or written.
#[derive(Debug)]
pub enum TraceError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        error: io::Error,
    },
    /// The file is not a trace: not JSON, or missing fields.
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The trace was written by a newer format.
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u64,
    },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            TraceError::Invalid { path, reason } => {
                write!(f, "{} is not a trace: {reason}", path.display())
            }
            TraceError::Version { path, found } => write!(
                f,
                "{} is a trace of version {found}; this build reads versions up to \
                 {TRACE_VERSION}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TraceError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl Trace {
    /// Reads the trace at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<Trace, TraceError> {
        let path = path.as_ref();
        let text = fs::read_to_string(path).map_err(|error| TraceError::Io {
            path: path.to_owned(),
            error,
        })?;
        Trace::from_json(&text).map_err(|error| match error {
            ParseError::Invalid(reason) => TraceError::Invalid {
                path: path.to_owned(),
                reason,
            },
            ParseError::Version(found) => TraceError::Version {
                path: path.to_owned(),
                found,
            },
        })
    }

    fn from_json(text: &str) -> Result<Trace, ParseError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| ParseError::Invalid(e.to_string()))?;
        let version = value
            .get("version")
            .and_then(Value::as_u64)
            .ok_or_else(|| ParseError::Invalid("no `version` number".to_owned()))?;
        if version > u64::from(TRACE_VERSION) || version == 0 {
            return Err(ParseError::Version(version));
        }
        serde_json::from_value(value).map_err(|e| ParseError::Invalid(e.to_string()))
    }

    /// The trace as pretty-printed JSON, ending with a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned());
        text.push('\n');
        text
    }

    /// Writes the trace to `path` atomically ([`write_atomic`]), creating missing folders;
    /// returns the bytes written.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<u64, TraceError> {
        let path = path.as_ref();
        let text = self.to_json();
        let io_error = |error| TraceError::Io {
            path: path.to_owned(),
            error,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(io_error)?;
        }
        write_atomic(path, text.as_bytes()).map_err(io_error)?;
        Ok(text.len() as u64)
    }
}

enum ParseError {
    Invalid(String),
    Version(u64),
}

/// Writes `bytes` to `path` so that a crash or an error never leaves a partial file: the
/// bytes go to a new temporary file in the same folder, which is flushed to disk and then
/// renamed over `path` (and the folder synced). On failure the temporary file is removed and
/// whatever was at `path` is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// [`write_atomic`] with the contents written by `write`; an error from it (or a panic) leaves
/// `path` as it was.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let temporary = folder.join(format!(
        ".{}.{}-{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)?;
    /// Removes the temporary file unless the rename happened (an error or a panic).
    struct RemoveOnDrop<'a>(Option<&'a Path>);
    impl Drop for RemoveOnDrop<'_> {
        fn drop(&mut self) {
            if let Some(path) = self.0 {
                let _ = fs::remove_file(path);
            }
        }
    }
    let mut cleanup = RemoveOnDrop(Some(&temporary));
    write(&mut file)?;
    file.flush()?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temporary, path)?;
    cleanup.0 = None;
    sync_folder(folder);
    Ok(())
}

/// Makes the rename durable; best effort (not every platform or file system allows it).
fn sync_folder(folder: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = File::open(folder) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = folder;
}

/// Schema keywords that describe rather than constrain: a change to them is not a change of
/// what the tool accepts, so the hash leaves them out.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "examples",
    "default",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// A stable hash of what a JSON Schema accepts: FNV-1a (64-bit) of its canonical form (object
/// keys sorted, annotations such as `description`, `title` and `examples` left out), written
/// `fnv1a64:` and 16 hex digits. Rewording a parameter's doc comment keeps the hash; adding,
/// removing, retyping or constraining a parameter changes it.
pub fn schema_hash(schema: &Value) -> String {
    let mut text = String::new();
    canonical(schema, &mut text);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{hash:016x}")
}

/// Keywords whose value maps names to schemas.
const NAME_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is data, not a schema.
const LITERALS: &[&str] = &["enum", "const", "required", "dependentRequired"];

/// Writes the canonical form of a schema: keys sorted, annotations left out (but never inside
/// data such as `const` or `enum`, nor the names of properties).
fn canonical(schema: &Value, out: &mut String) {
    match schema {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map
                .keys()
                .filter(|key| !ANNOTATIONS.contains(&key.as_str()))
                .collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                let value = &map[key];
                match (key.as_str(), value) {
                    (name, Value::Object(names)) if NAME_MAPS.contains(&name) => {
                        let mut keys: Vec<&String> = names.keys().collect();
                        keys.sort();
                        out.push('{');
                        for (j, key) in keys.into_iter().enumerate() {
                            if j > 0 {
                                out.push(',');
                            }
                            out.push_str(&Value::String(key.clone()).to_string());
                            out.push(':');
                            canonical(&names[key], out);
                        }
                        out.push('}');
                    }
                    (name, _) if LITERALS.contains(&name) => literal(value, out),
                    _ => canonical(value, out),
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Writes data with its object keys sorted, dropping nothing.
fn literal(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                literal(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                literal(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
