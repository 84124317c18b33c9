//! What the team's verbs take and answer, on the wire: the handoff request and its answer, a
//! run's status with its calls, and what recording wrote. Their JSON Schemas are the
//! `agent_team_*` tools' schemas.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a run is: still running, or how it ended. These are the `agent_team_*` tools' words;
/// the run's task, read with `tasks/get` or `task_get`, has MCP's (`working`, then
/// `completed` for a run that ended done, errored or blocked, with this word in its data;
/// `cancelled`; `failed` when the run panicked or its process died).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "TeamRunState")]
pub enum RunState {
    /// The run is still working.
    Running,
    /// The run finished its work.
    Done,
    /// The run failed: a call it depended on failed twice, or the model failed.
    Errored,
    /// The run could not go on: a tool it needs is missing or outside its view.
    Blocked,
    /// The run stopped because it was cancelled.
    Cancelled,
}

impl RunState {
    /// The wire word: `running`, `done`, `errored`, `blocked` or `cancelled`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Done => "done",
            RunState::Errored => "errored",
            RunState::Blocked => "blocked",
            RunState::Cancelled => "cancelled",
        }
    }

    /// Whether the run has ended (any state but `running`).
    pub const fn is_finished(self) -> bool {
        !matches!(self, RunState::Running)
    }
}

impl fmt::Display for RunState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A director → specialist handoff: who, what, with which tools and which model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TeamHandoffRequest")]
pub struct HandoffRequest {
    /// The specialist, by name (`agent_team_list_specialists` lists them).
    pub specialist: String,
    /// The work, in full: the specialist knows nothing else of the conversation.
    pub brief: String,
    /// The tools the specialist may see and call: patterns such as `scene_*`, `asset_list`,
    /// or `*` for every tool. Resolved now, at handoff time. Default: the specialist's own
    /// view.
    #[serde(default)]
    pub tool_view: Option<Vec<String>>,
    /// The model, instead of the specialist's default: a model endpoint's name (`local`), an
    /// endpoint and a model (`local/qwen2.5-coder`), or a model of the default endpoint.
    #[serde(default)]
    pub model: Option<String>,
    /// The sampling temperature, 0 to 2. Default: the model's.
    #[serde(default)]
    pub temperature: Option<f64>,
}

impl HandoffRequest {
    /// A handoff of `brief` to `specialist`, with the specialist's view and model.
    pub fn new(specialist: impl Into<String>, brief: impl Into<String>) -> Self {
        HandoffRequest {
            specialist: specialist.into(),
            brief: brief.into(),
            tool_view: None,
            model: None,
            temperature: None,
        }
    }

    /// The tool view, instead of the specialist's.
    pub fn tool_view<I>(mut self, patterns: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.tool_view = Some(patterns.into_iter().map(Into::into).collect());
        self
    }

    /// The model, instead of the specialist's.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }
}

/// What a handoff answers at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamHandoff")]
pub struct Handoff {
    /// The run's handle, for `agent_team_query`, `agent_team_cancel` and `agent_team_record`.
    pub handle: String,
    /// `running`, or `blocked` when the view names tools that are missing.
    pub status: RunState,
    /// The specialist.
    pub specialist: String,
    /// The model, as named.
    pub model: String,
    /// The tools the view resolved to, sorted.
    pub tools: Vec<String>,
    /// The view's patterns that match no available tool (the reason for `blocked`).
    pub missing: Vec<String>,
    /// Why the run is blocked, when it is.
    pub report: Option<String>,
}

/// One call of a run, in brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamCallSummary")]
pub struct CallSummary {
    /// The tool called.
    pub tool: String,
    /// Whether it answered `ok: true`.
    pub ok: bool,
    /// The failure's `type`, when it failed.
    pub error_type: Option<String>,
    /// 1, or 2 for a retry.
    pub attempt: u32,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
    /// When it started, in milliseconds from the run's start (unknown for a run of another
    /// process, or an old trace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
}

/// A run as it is now: what `agent_team_query` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamRun")]
pub struct RunStatus {
    /// The run's handle.
    pub handle: String,
    /// `running`, `done`, `errored`, `blocked` or `cancelled`.
    pub status: RunState,
    /// The specialist.
    pub specialist: String,
    /// The model, as named.
    pub model: String,
    /// How many tool calls the run made so far (retries included).
    pub tool_calls: u64,
    /// How long the run took, or has been running, in milliseconds.
    pub duration_ms: u64,
    /// The partial output: every call so far, in order.
    pub calls: Vec<CallSummary>,
    /// The final report, once the run ended; for a failed run, what went wrong, with the
    /// error verbatim.
    pub report: Option<String>,
    /// The report's structured results, if any.
    pub artifact: Option<Value>,
    /// Why the run did not finish its work, verbatim.
    pub error: Option<String>,
    /// The model's turns so far, in order, with their times (none for a run of another
    /// process).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnRecord>,
}

/// What recording a run wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamRecording")]
pub struct Recording {
    /// The run's handle.
    pub handle: String,
    /// The file written.
    pub path: String,
    /// The run's status when recorded.
    pub status: RunState,
    /// How many calls the trace holds.
    pub calls: usize,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// One model turn of a run: the model asked, and what it answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamTurn")]
pub struct TurnRecord {
    /// When the model was asked, in milliseconds from the run's start.
    pub started_ms: u64,
    /// How long it took to answer.
    pub duration_ms: u64,
    /// How many tool calls it answered with (0: it reported, or failed).
    pub calls: u32,
    /// Whether the model failed to answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
}
