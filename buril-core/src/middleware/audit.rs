//! [`AuditLog`]: one structured line per call.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::layer::{Call, CallEnd, Layer};
use crate::envelope::Outcome;
use crate::error::ToolError;

/// One call, as the audit log has it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AuditRecord {
    /// Who called (the principal's subject), or `None` for a caller nobody authorized.
    pub principal: Option<String>,
    /// The tool's name.
    pub tool: &'static str,
    /// The tool's family.
    pub family: &'static str,
    /// `ok`, or the error's type (`validation`, `runtime`, `disabled`, `limited`, …).
    pub outcome: &'static str,
    /// Whether the tool ran (false: a layer or the input's validation refused the call).
    pub ran: bool,
    /// From the first layer seeing the call to its outcome.
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
    /// The input's length as JSON, in bytes.
    pub input_bytes: usize,
    /// The input itself, only when the log was told to keep inputs
    /// ([`AuditLog::with_inputs`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
}

fn millis<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64() * 1000.0)
}

type Sink = Arc<dyn Fn(&AuditRecord) + Send + Sync>;

/// A layer that records every call: who, which tool, the outcome, how long it took and how
/// large its input was. Inputs are left out unless [`with_inputs`](Self::with_inputs) says
/// otherwise (they may hold secrets). By default each record is a `tracing` event at INFO,
/// target `buril::audit`, with the record's fields; [`to`](Self::to) sends them elsewhere.
///
/// Add it first, so that it sees the calls the layers after it refuse:
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use buril::middleware::AuditLog;
///
/// let lines = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&lines);
/// let dispatcher = buril::Dispatcher::builder()
///     .layer(AuditLog::to(move |record| {
///         sink.lock().unwrap().push(serde_json::to_string(record).unwrap())
///     }))
///     .build();
/// # let _ = dispatcher;
/// ```
#[derive(Clone)]
pub struct AuditLog {
    sink: Option<Sink>,
    inputs: bool,
}

impl AuditLog {
    /// Records as `tracing` events (target `buril::audit`, INFO).
    pub fn new() -> Self {
        AuditLog {
            sink: None,
            inputs: false,
        }
    }

    /// Records handed to `sink`.
    pub fn to(sink: impl Fn(&AuditRecord) + Send + Sync + 'static) -> Self {
        AuditLog {
            sink: Some(Arc::new(sink)),
            inputs: false,
        }
    }

    /// Keeps each call's input in its record.
    pub fn with_inputs(mut self) -> Self {
        self.inputs = true;
        self
    }
}

impl Default for AuditLog {
    fn default() -> Self {
        AuditLog::new()
    }
}

impl fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditLog")
            .field(
                "sink",
                &if self.sink.is_some() {
                    "custom"
                } else {
                    "tracing"
                },
            )
            .field("inputs", &self.inputs)
            .finish()
    }
}

/// What the log notes before a call.
struct Seen {
    bytes: usize,
    input: Option<Value>,
}

impl Layer for AuditLog {
    fn before(&self, call: &mut Call<'_>) -> Result<(), ToolError> {
        let bytes = json_len(call.input());
        let input = self.inputs.then(|| call.input().clone());
        call.note(Seen { bytes, input });
        Ok(())
    }

    fn after(&self, call: &CallEnd<'_>, outcome: &mut Outcome) {
        let seen = call.note::<Seen>();
        let record = AuditRecord {
            principal: call.principal().map(|principal| principal.subject.clone()),
            tool: call.tool().static_name(),
            family: call.tool().static_family(),
            outcome: outcome.error_kind().map_or("ok", |kind| kind.as_str()),
            ran: call.ran(),
            duration: call.elapsed(),
            input_bytes: seen.map_or(0, |seen| seen.bytes),
            input: seen.and_then(|seen| seen.input.clone()),
        };
        match &self.sink {
            Some(sink) => sink(&record),
            None => tracing::info!(
                target: "buril::audit",
                principal = record.principal.as_deref().unwrap_or("-"),
                tool = record.tool,
                family = record.family,
                outcome = record.outcome,
                ran = record.ran,
                duration_ms = record.duration.as_secs_f64() * 1000.0,
                input_bytes = record.input_bytes,
                input = record.input.as_ref().map(tracing::field::display),
                "call"
            ),
        }
    }
}

/// The length of `value` as compact JSON, without writing it anywhere.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` into a sink that cannot fail cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}
