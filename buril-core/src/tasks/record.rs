//! A task's state as every store keeps it, and the changes a task goes through: the same rules
//! whatever the store, applied inside the store's atomic read-modify-write.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "TaskState")]
#[non_exhaustive]
pub enum TaskState {
    /// The work is running.
    Working,
    /// The work waits for answers to the questions in [`TaskRecord::input_requests`].
    InputRequired,
    /// The work ended with a result: its data or the tool's error (a tool error is a result,
    /// as MCP has it: `completed` with `isError`).
    Completed,
    /// The work could not end normally: the tool panicked, or the server running it stopped.
    Failed,
    /// The work was cancelled before it ended.
    Cancelled,
}

impl TaskState {
    /// Whether the task has ended: completed, failed or cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Cancelled
        )
    }

    /// The wire word: `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Working => "working",
            TaskState::InputRequired => "input_required",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Cancelled => "cancelled",
        }
    }
}

/// A task as its followers see it: handle, tool, status, times, progress and questions, and
/// once it ended its envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "TaskSummary")]
#[non_exhaustive]
pub struct TaskSummary {
    /// The task's handle.
    pub handle: String,
    /// The tool it runs.
    pub tool: String,
    /// What its starter says of it (an agent team's run: the specialist and model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: TaskState,
    /// What it is doing, or why it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When it was created (ISO 8601, UTC).
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// How long it is kept, counted from its creation, in milliseconds.
    pub ttl_ms: u64,
    /// How often to poll it, in milliseconds.
    pub poll_interval_ms: u64,
    /// Its latest progress report (`progress`, `total`, `message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<Value>,
    /// The questions it waits on, by key (each `{"method", "params"}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_requests: BTreeMap<String, Value>,
    /// Its call's envelope, once it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Value>,
}

/// Who runs a task, and until when it has promised to say it still does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    /// The process (a server replica, a detached CLI worker) running the task.
    pub holder: String,
    /// Milliseconds since the Unix epoch, on the holder's clock.
    pub until_ms: u64,
}

/// How a task ended, as its runner reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskEnd {
    /// The tool returned: its envelope, and the MCP `CallToolResult` when an MCP server ran it.
    Completed {
        /// `{"ok": …}` as any front end answers it.
        envelope: Value,
        /// The MCP result (content, structured content, `isError`).
        result: Option<Value>,
    },
    /// The call was cancelled; its envelope says so.
    Cancelled {
        /// The envelope of the cancelled call.
        envelope: Value,
    },
    /// The work could not end normally: a JSON-RPC error object (`code`, `message`, `data`).
    Failed {
        /// The error.
        error: Value,
        /// The envelope the front ends answer with.
        envelope: Value,
    },
}

impl TaskEnd {
    /// How a task's call ended, in the store's terms: a panic is a failed task (a
    /// protocol-level error, as MCP has it), a cancellation a cancelled one, anything else (the
    /// tool's own error too) a completed one, with the result `result` makes of the outcome
    /// (an MCP server's `CallToolResult`; `None` for a front end that has none).
    #[doc(hidden)]
    pub fn from_outcome(
        outcome: crate::envelope::Outcome,
        result: impl FnOnce(crate::envelope::Outcome) -> Option<Value>,
    ) -> TaskEnd {
        use crate::error::ErrorKind;
        let envelope = outcome.to_envelope();
        match outcome.error_kind() {
            Some(ErrorKind::Panic) => TaskEnd::Failed {
                error: json!({
                    "code": -32603,
                    "message": outcome.error().map(|error| error.message().to_owned()).unwrap_or_default(),
                }),
                envelope,
            },
            Some(ErrorKind::Cancelled) => TaskEnd::Cancelled { envelope },
            _ => TaskEnd::Completed {
                envelope,
                result: result(outcome),
            },
        }
    }
}

/// A task: what it runs, who may see it, where it is in its life, and what it produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's handle: unguessable, so that knowing it is what lets a caller follow it.
    pub id: String,
    /// The tool the task runs.
    pub tool: String,
    /// Who started it (a session, a principal); only they may see it. `None`: whoever holds
    /// the handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// What its starter says of it, for people and for the starter in another process (an
    /// agent team's run: the specialist and model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
    /// Where the task is.
    pub status: TaskState,
    /// What the task is doing or why it ended, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When it last changed.
    pub updated_ms: u64,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_ms: Option<u64>,
    /// How long the task is kept after it ends (and at least after it was created).
    pub ttl_ms: u64,
    /// How often a caller should poll it.
    pub poll_interval_ms: u64,
    /// The latest progress report (`{"progress", "total", "message"}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<Value>,
    /// The call's envelope, once the task ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Value>,
    /// The MCP `CallToolResult`, when an MCP server ran the task and it completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// A failed task's JSON-RPC error (`code`, `message`, `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Questions waiting for the caller, by key (`{"method", "params"}` each).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_requests: BTreeMap<String, Value>,
    /// Answers the caller gave that the runner has not taken yet, by key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_responses: BTreeMap<String, Value>,
    /// Someone asked for the task to be cancelled; the runner cancels the work when it sees it.
    #[serde(default)]
    pub cancel_requested: bool,
    /// Who runs the task; `None` once it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
}

impl TaskRecord {
    /// A new working task.
    pub fn new(id: String, tool: String, owner: Option<String>, now_ms: u64) -> Self {
        TaskRecord {
            id,
            tool,
            owner,
            detail: None,
            status: TaskState::Working,
            message: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            finished_ms: None,
            ttl_ms: 0,
            poll_interval_ms: 0,
            progress: None,
            envelope: None,
            result: None,
            error: None,
            input_requests: BTreeMap::new(),
            input_responses: BTreeMap::new(),
            cancel_requested: false,
            lease: None,
        }
    }

    /// When the task may be forgotten: its TTL after it ended, and never before its TTL after
    /// it was created. A task still running does not expire (its lease keeps it honest).
    pub fn expires_ms(&self) -> Option<u64> {
        let ended = self.finished_ms?;
        Some(ended.max(self.created_ms).saturating_add(self.ttl_ms))
    }

    /// Whether the task has expired at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_ms().is_some_and(|at| now_ms >= at)
    }

    /// The TTL to report, counted from creation as MCP has it: for a running task, the TTL
    /// after now (it moves while the task runs, which MCP allows).
    pub fn ttl_from_creation_ms(&self, now_ms: u64) -> u64 {
        let expires = self
            .expires_ms()
            .unwrap_or_else(|| now_ms.max(self.created_ms).saturating_add(self.ttl_ms));
        expires.saturating_sub(self.created_ms)
    }

    /// Ends the task with `end`, unless it has ended already: whether it changed. A task ends
    /// once: a second end (a replica that came back after its lease ran out, a cancellation
    /// racing the result) changes nothing.
    pub fn finish(&mut self, end: &TaskEnd, now_ms: u64) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        match end {
            TaskEnd::Completed { envelope, result } => {
                self.status = TaskState::Completed;
                self.envelope = Some(envelope.clone());
                self.result = result.clone();
                self.message = None;
            }
            TaskEnd::Cancelled { envelope } => {
                self.status = TaskState::Cancelled;
                self.envelope = Some(envelope.clone());
                self.message = Some("cancelled".into());
            }
            TaskEnd::Failed { error, envelope } => {
                self.status = TaskState::Failed;
                self.message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.error = Some(error.clone());
                self.envelope = Some(envelope.clone());
            }
        }
        self.input_requests.clear();
        self.input_responses.clear();
        self.lease = None;
        self.finished_ms = Some(now_ms);
        self.updated_ms = now_ms;
        true
    }

    /// Asks for the task to be cancelled: whether that changed anything (not for an ended
    /// task, nor one already asked).
    pub fn request_cancel(&mut self, now_ms: u64) -> bool {
        if self.status.is_terminal() || self.cancel_requested {
            return false;
        }
        self.cancel_requested = true;
        self.updated_ms = now_ms;
        true
    }

    /// Keeps the caller's answers to questions the task is waiting on (others are ignored, as
    /// MCP has it): whether any was kept.
    pub fn answer(&mut self, responses: &BTreeMap<String, Value>, now_ms: u64) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        let mut kept = false;
        for (key, value) in responses {
            if self.input_requests.contains_key(key) && !self.input_responses.contains_key(key) {
                self.input_responses.insert(key.clone(), value.clone());
                kept = true;
            }
        }
        if kept {
            self.updated_ms = now_ms;
        }
        kept
    }

    /// Whether the task's runner has not renewed its lease for `skew_ms` past its end: it is
    /// gone (killed, or cut off), and the task will never end by itself.
    pub fn lease_lapsed(&self, now_ms: u64, skew_ms: u64) -> bool {
        !self.status.is_terminal()
            && self
                .lease
                .as_ref()
                .is_some_and(|lease| now_ms > lease.until_ms.saturating_add(skew_ms))
    }

    /// Fails a task whose runner is gone (see [`lease_lapsed`](Self::lease_lapsed)): whether it
    /// changed.
    pub fn fail_lapsed(&mut self, now_ms: u64, skew_ms: u64) -> bool {
        if !self.lease_lapsed(now_ms, skew_ms) {
            return false;
        }
        let holder = self
            .lease
            .as_ref()
            .map(|lease| lease.holder.clone())
            .unwrap_or_default();
        let message = format!(
            "the process running this task ({holder}) stopped renewing its lease; the task \
             cannot finish"
        );
        let end = TaskEnd::Failed {
            error: json!({"code": -32603, "message": message}),
            envelope: json!({"ok": false, "type": "runtime", "error": message}),
        };
        self.finish(&end, now_ms)
    }

    /// The task as its followers see it (what `tools tasks get` prints and the `task_*` tools
    /// answer).
    pub fn summary(&self, now_ms: u64) -> TaskSummary {
        TaskSummary {
            handle: self.id.clone(),
            tool: self.tool.clone(),
            detail: self.detail.clone(),
            status: self.status,
            message: self.message.clone(),
            created_at: super::clock::iso(self.created_ms),
            updated_at: super::clock::iso(self.updated_ms),
            ttl_ms: self.ttl_from_creation_ms(now_ms),
            poll_interval_ms: self.poll_interval_ms,
            progress: self.progress.clone(),
            input_requests: self.input_requests.clone(),
            envelope: self.envelope.clone(),
        }
    }

    /// The record without what it produced, as kept once it expired: enough to say the handle
    /// existed and expired.
    pub fn tombstone(&self) -> TaskRecord {
        let mut kept = TaskRecord::new(
            self.id.clone(),
            self.tool.clone(),
            self.owner.clone(),
            self.created_ms,
        );
        kept.status = self.status;
        kept.finished_ms = self.finished_ms;
        kept.ttl_ms = self.ttl_ms;
        kept.updated_ms = self.updated_ms;
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn working() -> TaskRecord {
        let mut record = TaskRecord::new("t".into(), "demo_slow".into(), None, 1_000);
        record.ttl_ms = 60_000;
        record.lease = Some(Lease {
            holder: "a".into(),
            until_ms: 11_000,
        });
        record
    }

    fn done() -> TaskEnd {
        TaskEnd::Completed {
            envelope: json!({"ok": true, "data": 1}),
            result: None,
        }
    }

    #[test]
    fn a_task_ends_once() {
        let mut record = working();
        assert!(record.finish(&done(), 2_000));
        let cancelled = TaskEnd::Cancelled {
            envelope: json!({"ok": false, "type": "cancelled", "error": "x"}),
        };
        assert!(!record.finish(&cancelled, 3_000));
        assert_eq!(record.status, TaskState::Completed);
        assert_eq!(record.finished_ms, Some(2_000));
        assert!(!record.request_cancel(4_000));
        assert_eq!(record.lease, None);
    }

    #[test]
    fn the_ttl_counts_from_the_end_and_never_less_than_from_creation() {
        let mut record = working();
        assert_eq!(record.expires_ms(), None);
        assert!(!record.is_expired(u64::MAX));
        assert_eq!(record.ttl_from_creation_ms(5_000), 64_000);
        record.finish(&done(), 5_000);
        assert_eq!(record.expires_ms(), Some(65_000));
        assert!(!record.is_expired(64_999));
        assert!(record.is_expired(65_000));
        assert_eq!(record.ttl_from_creation_ms(9_000), 64_000);
    }

    #[test]
    fn a_lapsed_lease_fails_the_task_after_the_skew_allowance() {
        let mut record = working();
        assert!(!record.fail_lapsed(11_000 + 5_000, 5_000));
        assert!(record.fail_lapsed(11_000 + 5_001, 5_000));
        assert_eq!(record.status, TaskState::Failed);
        assert_eq!(record.error.as_ref().unwrap()["code"], -32603);
        assert!(!record.fail_lapsed(u64::MAX, 0));
    }

    #[test]
    fn only_answers_to_waiting_questions_are_kept() {
        let mut record = working();
        record
            .input_requests
            .insert("a".into(), json!({"method": "elicitation/create"}));
        let answers = BTreeMap::from([
            ("a".to_owned(), json!({"action": "accept"})),
            ("zzz".to_owned(), json!({"ignored": true})),
        ]);
        assert!(record.answer(&answers, 2_000));
        assert_eq!(record.input_responses.len(), 1);
        assert!(!record.answer(&answers, 3_000), "an answer is kept once");
    }

    #[test]
    fn records_round_trip_as_json() {
        let mut record = working();
        record.finish(&done(), 2_000);
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(serde_json::from_str::<TaskRecord>(&text).unwrap(), record);
    }
}
