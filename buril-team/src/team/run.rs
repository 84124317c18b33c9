//! A run this process runs: its live trace, how many calls it made, and its end, which local
//! waiters hear of at once (a run of another process is read from its task instead).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use buril::tasks::{TaskEnd, TaskRecord, TaskState};
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::wire::{CallSummary, RunState, RunStatus};
use crate::trace::{LiveTrace, Trace};

/// One run of this process.
pub(crate) struct Run {
    pub(crate) trace: LiveTrace,
    started: Instant,
    /// Calls made so far, retries included; counted as each call starts.
    tool_calls: AtomicU64,
    ended: Mutex<bool>,
    ended_blocking: Condvar,
    ended_async: Notify,
}

impl Run {
    pub(crate) fn new(trace: Trace) -> Self {
        Run {
            trace: LiveTrace::new(trace),
            started: Instant::now(),
            tool_calls: AtomicU64::new(0),
            ended: Mutex::new(false),
            ended_blocking: Condvar::new(),
            ended_async: Notify::new(),
        }
    }

    /// Counts a call the run starts; the count so far.
    pub(crate) fn count_call(&self) -> u64 {
        self.tool_calls.fetch_add(1, Ordering::SeqCst) + 1
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The run's trace now, with its count and duration.
    pub(crate) fn trace(&self) -> Trace {
        let mut trace = self.trace.lock().clone();
        trace.tool_calls = self.tool_calls.load(Ordering::SeqCst);
        if !trace.status.is_finished() {
            trace.duration_ms = millis(self.elapsed());
        }
        trace
    }

    /// The run as `agent_team_query` answers it.
    pub(crate) fn status(&self) -> RunStatus {
        status_of_trace(&self.trace())
    }

    /// Ends the run as errored because its work panicked.
    pub(crate) fn ended_by_panic(&self, joined: tokio::task::JoinError) {
        let detail = if joined.is_panic() {
            let payload = joined.into_panic();
            payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned())
        } else {
            "its work was stopped before it ended".to_owned()
        };
        let error = format!("the run panicked: {detail}");
        let mut trace = self.trace.lock();
        trace.status = RunState::Errored;
        trace.report = Some(error.clone());
        trace.error = Some(error);
        trace.duration_ms = millis(self.elapsed());
    }

    /// Marks the run ended (its trace holds how) and wakes its waiters.
    pub(crate) fn end(&self) {
        *self.ended.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.ended_blocking.notify_all();
        self.ended_async.notify_waiters();
    }

    fn is_ended(&self) -> bool {
        *self.ended.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Completes once the run has ended.
    pub(crate) async fn ended(&self) {
        loop {
            let notified = self.ended_async.notified();
            if self.is_ended() {
                return;
            }
            notified.await;
        }
    }

    /// Blocks the calling thread until the run ends or `timeout` passes; whether it ended.
    pub(crate) fn wait_blocking(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        while !*ended {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            ended = self
                .ended_blocking
                .wait_timeout(ended, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// How the run's task ends: a run that ended done, errored or blocked is a completed task
    /// whose data is the run as `agent_team_query` answers it; a cancelled run a cancelled
    /// task.
    pub(crate) fn task_end(&self) -> TaskEnd {
        let status = self.status();
        match status.status {
            RunState::Cancelled => TaskEnd::Cancelled {
                envelope: json!({
                    "ok": false,
                    "type": "cancelled",
                    "error": status.report.clone().unwrap_or_else(|| "the run was cancelled".into()),
                }),
            },
            _ => TaskEnd::Completed {
                envelope: json!({"ok": true, "data": status}),
                result: None,
            },
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// A run as `agent_team_query` answers it, from its trace.
pub(crate) fn status_of_trace(trace: &Trace) -> RunStatus {
    RunStatus {
        handle: trace.handle.clone(),
        status: trace.status,
        specialist: trace.specialist.clone(),
        model: trace.model.clone(),
        tool_calls: trace.tool_calls,
        duration_ms: trace.duration_ms,
        calls: trace
            .calls
            .iter()
            .map(|call| CallSummary {
                tool: call.tool.clone(),
                ok: call.envelope.get("ok") == Some(&Value::Bool(true)),
                error_type: call
                    .envelope
                    .get("type")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                attempt: call.attempt,
                duration_ms: call.duration_ms,
                started_ms: call.started_ms,
            })
            .collect(),
        report: trace.report.clone(),
        artifact: trace.artifact.clone(),
        error: trace.error.clone(),
        turns: trace.turns.clone(),
    }
}

/// What a run's task says of it at the start ([`TaskRecord::detail`]): enough to answer for it
/// from another process while it runs.
pub(crate) fn detail(specialist: &str, model: &str, label: &str) -> Value {
    json!({"specialist": specialist, "model": model, "label": label})
}

/// A run of any process, as its task has it: once it ended, the run its task's data holds;
/// while it runs, its specialist and model, and its calls so far as its progress counts them.
pub(crate) fn status_of_task(record: &TaskRecord, now_ms: u64) -> RunStatus {
    let ended = record
        .envelope
        .as_ref()
        .and_then(|envelope| envelope.get("data"))
        .and_then(|data| serde_json::from_value::<RunStatus>(data.clone()).ok());
    if let Some(run) = ended {
        return run;
    }
    let detail = |key: &str| {
        record
            .detail
            .as_ref()
            .and_then(|detail| detail.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let tool_calls = record
        .progress
        .as_ref()
        .and_then(|progress| progress.get("progress"))
        .and_then(Value::as_f64)
        .map_or(0, |calls| calls as u64);
    let message = record.message.clone();
    let (status, report, error) = match record.status {
        TaskState::Cancelled => (RunState::Cancelled, message.clone(), message),
        TaskState::Failed | TaskState::Completed => (RunState::Errored, message.clone(), message),
        _ => (RunState::Running, None, None),
    };
    let until = record.finished_ms.unwrap_or(now_ms);
    RunStatus {
        handle: record.id.clone(),
        status,
        specialist: detail("specialist"),
        model: detail("model"),
        tool_calls,
        duration_ms: until.saturating_sub(record.created_ms),
        calls: Vec::new(),
        report,
        artifact: None,
        error,
        turns: Vec::new(),
    }
}
