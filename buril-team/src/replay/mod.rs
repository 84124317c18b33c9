//! Replay: the calls of a trace re-issued in order against the current registry, with no
//! model, each envelope compared with the recorded one (`compare`).

mod compare;

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use buril::policy::PatternError;
use buril::{CallOptions, CancelToken, Dispatcher, ErrorKind, ToolView};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use self::compare::{IgnoredPointers, first_difference};
use crate::trace::{Trace, TraceError, schema_hash};

/// How to replay.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// JSON pointers into the envelopes whose values are not compared, because they change
    /// from run to run (a timestamp, a duration). A `*` segment matches any one segment, and a
    /// pointer covers everything under it: `/data/entries/*/time`. Segments are escaped as in
    /// the drift's pointers (RFC 6901): `~1` for `/`, `~0` for `~`.
    pub ignore: Vec<String>,
    /// The timeout of each call, if any.
    pub call_timeout: Option<Duration>,
    /// Stops the replay when cancelled, and cancels the call in flight.
    pub cancel: Option<CancelToken>,
}

impl ReplayOptions {
    /// Ignores the values under `pointer`.
    pub fn ignore(mut self, pointer: impl Into<String>) -> Self {
        self.ignore.push(pointer.into());
        self
    }
}

/// Whether a replay matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "TeamReplayResult")]
pub enum ReplayResult {
    /// Every call answered as recorded.
    Match,
    /// A call answered differently, or could not be made as recorded.
    Drift,
}

/// Where a replay first departed from its trace. `call` is the index in the trace's `calls`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schemars(rename = "TeamDrift")]
pub enum Drift {
    /// The envelope differs at `pointer`.
    Envelope {
        /// The index of the call in the trace's `calls`.
        call: usize,
        /// The tool called.
        tool: String,
        /// JSON pointer into the envelope where the first difference is (`/data/count`).
        pointer: String,
        /// The recorded value there; absent when the recording had none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expected: Option<Value>,
        /// The value now; absent when the answer has none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        actual: Option<Value>,
    },
    /// The tool is no longer in the registry.
    MissingTool {
        /// The index of the call in the trace's `calls`.
        call: usize,
        /// The tool called.
        tool: String,
    },
    /// The tool's input schema changed since the recording.
    SchemaChanged {
        /// The index of the call in the trace's `calls`.
        call: usize,
        /// The tool called.
        tool: String,
        /// The recorded schema hash.
        expected: String,
        /// The schema hash now.
        actual: String,
    },
}

impl Drift {
    /// The index of the call in the trace's `calls`.
    pub fn call(&self) -> usize {
        match self {
            Drift::Envelope { call, .. }
            | Drift::MissingTool { call, .. }
            | Drift::SchemaChanged { call, .. } => *call,
        }
    }
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |value: &Option<Value>| {
            value
                .as_ref()
                .map_or_else(|| "absent".to_owned(), Value::to_string)
        };
        match self {
            Drift::Envelope {
                call,
                tool,
                pointer,
                expected,
                actual,
            } => write!(
                f,
                "calls[{call}] (`{tool}`): the envelope differs at `{pointer}`: recorded {}, \
                 now {}",
                shown(expected),
                shown(actual)
            ),
            Drift::MissingTool { call, tool } => write!(
                f,
                "calls[{call}] (`{tool}`): the tool is missing from the registry"
            ),
            Drift::SchemaChanged {
                call,
                tool,
                expected,
                actual,
            } => write!(
                f,
                "calls[{call}] (`{tool}`): the tool's input schema changed (recorded \
                 {expected}, now {actual})"
            ),
        }
    }
}

/// What a replay found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamReplayReport")]
pub struct ReplayReport {
    /// The handle of the recorded run.
    pub handle: String,
    /// `match` or `drift`.
    pub result: ReplayResult,
    /// How many calls the trace holds.
    pub calls: usize,
    /// How many were re-issued and matched.
    pub replayed: usize,
    /// How many were not re-issued: calls that were cancelled when recorded (their answers
    /// cannot be reproduced) and calls of `agent_team_` tools (which would start models).
    pub skipped: usize,
    /// The first departure from the trace; the calls after it were not re-issued.
    pub drift: Option<Drift>,
    /// The outcome in one sentence.
    pub message: String,
}

impl ReplayReport {
    /// Whether every call answered as recorded.
    pub fn is_match(&self) -> bool {
        self.result == ReplayResult::Match
    }
}

/// Why a replay could not run at all.
#[derive(Debug)]
pub enum ReplayError {
    /// The trace could not be read.
    Trace(TraceError),
    /// The trace's tool view does not parse.
    View(PatternError),
    /// The replay was cancelled.
    Cancelled,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Trace(error) => error.fmt(f),
            ReplayError::View(error) => write!(f, "the trace's tool view: {error}"),
            ReplayError::Cancelled => f.write_str("the replay was cancelled"),
        }
    }
}

impl std::error::Error for ReplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplayError::Trace(error) => Some(error),
            ReplayError::View(error) => Some(error),
            ReplayError::Cancelled => None,
        }
    }
}

/// Reads the trace at `path` and replays it ([`replay`]).
pub fn replay_file(
    path: impl AsRef<Path>,
    dispatcher: &Dispatcher,
    options: &ReplayOptions,
) -> Result<ReplayReport, ReplayError> {
    let trace = Trace::read(path).map_err(ReplayError::Trace)?;
    replay(&trace, dispatcher, options)
}

/// Re-issues the calls of `trace`, in order, through `dispatcher` (with the trace's tool view,
/// so a tool that left the view drifts too), and compares each envelope with the recorded one.
/// Stops at the first drift: a tool missing from the registry, a tool whose input schema hash
/// differs from the recorded one, or an envelope that differs (the report gives the JSON
/// pointer and both values). Calls no model. Blocks until done; main-thread tools run on the
/// dispatcher's main thread (at once, when called from it).
pub fn replay(
    trace: &Trace,
    dispatcher: &Dispatcher,
    options: &ReplayOptions,
) -> Result<ReplayReport, ReplayError> {
    let view = Arc::new(ToolView::parse(&trace.tool_view).map_err(ReplayError::View)?);
    let ignored = IgnoredPointers::parse(&options.ignore);
    let cancelled = || {
        options
            .cancel
            .as_ref()
            .is_some_and(CancelToken::is_cancelled)
    };
    let mut replayed = 0;
    let mut skipped = 0;
    let report = |replayed, skipped, drift: Option<Drift>| {
        let message = match &drift {
            None => format!(
                "match: {replayed} of {} calls replayed as recorded{}",
                trace.calls.len(),
                if skipped > 0 {
                    format!(" ({skipped} skipped)")
                } else {
                    String::new()
                }
            ),
            Some(drift) => format!("drift: {drift}"),
        };
        ReplayReport {
            handle: trace.handle.clone(),
            result: match drift {
                None => ReplayResult::Match,
                Some(_) => ReplayResult::Drift,
            },
            calls: trace.calls.len(),
            replayed,
            skipped,
            drift,
            message,
        }
    };
    for (index, call) in trace.calls.iter().enumerate() {
        let recorded_type = call.envelope.get("type").and_then(Value::as_str);
        if recorded_type == Some("cancelled") || call.tool.starts_with("agent_team_") {
            skipped += 1;
            continue;
        }
        if cancelled() {
            return Err(ReplayError::Cancelled);
        }
        if let Some(drift) = schema_drift(trace, index, dispatcher) {
            return Ok(report(replayed, skipped, Some(drift)));
        }
        let outcome = dispatcher.invoke(&call.tool, call.input.clone(), {
            let mut call = CallOptions::new().view(Arc::clone(&view));
            call.timeout = options.call_timeout;
            call.cancel = options.cancel.clone();
            call
        });
        if cancelled() {
            return Err(ReplayError::Cancelled);
        }
        // A tool that is gone drifts as missing, unless it was missing when recorded too (then
        // the answers are compared like any other).
        if outcome.error_kind() == Some(ErrorKind::NotFound) && recorded_type != Some("not_found") {
            let drift = Drift::MissingTool {
                call: index,
                tool: call.tool.clone(),
            };
            return Ok(report(replayed, skipped, Some(drift)));
        }
        let actual = outcome.into_envelope();
        if let Some(difference) = first_difference(&call.envelope, &actual, &ignored) {
            let drift = Drift::Envelope {
                call: index,
                tool: call.tool.clone(),
                pointer: difference.pointer,
                expected: difference.expected,
                actual: difference.actual,
            };
            return Ok(report(replayed, skipped, Some(drift)));
        }
        replayed += 1;
    }
    Ok(report(replayed, skipped, None))
}

/// The drift of call `index` when its tool's input schema is not the one recorded: the call
/// is then not made, since its input was written for the old schema. `None` for a tool that is
/// missing (the dispatcher answers for it) or that the trace has no hash for.
fn schema_drift(trace: &Trace, index: usize, dispatcher: &Dispatcher) -> Option<Drift> {
    let call = &trace.calls[index];
    let tool = dispatcher.registry().get(&call.tool)?;
    let recorded = trace
        .schemas
        .get(tool.name())
        .or_else(|| trace.schemas.get(&call.tool))?;
    let now = schema_hash(tool.input_schema());
    (*recorded != now).then(|| Drift::SchemaChanged {
        call: index,
        tool: call.tool.clone(),
        expected: recorded.clone(),
        actual: now,
    })
}
