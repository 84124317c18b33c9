//! The `agent_team_*` tools: the wire-level API of the team, listed, callable over MCP and
//! given bindings like any other tool. They reach the [`Team`] as host state and send the
//! specialists' calls through the dispatcher that runs them.
//!
//! Threads: every verb but `agent_team_replay` runs off the main thread, so that a director
//! can poll or cancel a run while one of the run's main-thread tools holds the main thread.
//! `agent_team_replay` runs on the main thread: it re-issues the recorded calls one after
//! another, and main-thread tools called from there run at once, in order, with nothing else
//! interleaved, whichever way the host drives its main thread.

use buril::{Context, Dispatcher, Input, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::replay::{ReplayError, ReplayOptions, ReplayReport, replay_file};
use crate::team::{
    Handoff, HandoffRequest, Recording, RunStatus, Team, TeamError, WaitError, resolve_view,
};

/// How long a handoff that runs as a task waits for its run between looks at its own
/// cancellation.
const FOLLOW_STEP: std::time::Duration = std::time::Duration::from_secs(60);
use crate::trace::TraceError;

fn team(ctx: &Context) -> Result<&Team, ToolError> {
    ctx.state::<Team>()
}

fn dispatcher(ctx: &Context) -> Result<Dispatcher, ToolError> {
    ctx.dispatcher().ok_or_else(|| {
        ToolError::runtime("the agent team's tools must be called through a dispatcher")
    })
}

fn unknown_handle(handle: &str) -> ToolError {
    TeamError::UnknownHandle(handle.to_owned()).into_tool_error()
}

/// Every specialist of the team.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamSpecialists")]
pub struct SpecialistList {
    /// The specialists, sorted by name.
    pub specialists: Vec<SpecialistInfo>,
}

/// One specialist, with its view resolved against the tools available now.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamSpecialistInfo")]
pub struct SpecialistInfo {
    /// The name to hand work to.
    pub name: String,
    /// What the specialist is for.
    pub description: String,
    /// The model it runs on unless a handoff names another.
    pub model: String,
    /// Its system prompt.
    pub system_prompt: String,
    /// Its default tool view: the patterns.
    pub tool_view: Vec<String>,
    /// The tools its default view resolves to now, sorted by name.
    pub tools: Vec<ViewTool>,
    /// Patterns of the default view that match no available tool: a handoff with this view
    /// would be blocked.
    pub missing: Vec<String>,
    /// The JSON Schema of a handoff to this specialist.
    pub input_schema: Value,
    /// The JSON Schema of what a finished run reports (`agent_team_query`), with the
    /// specialist's artifact schema when it declares one.
    pub output_schema: Value,
}

/// A tool in a specialist's view.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamViewTool")]
pub struct ViewTool {
    /// The tool's name.
    pub name: String,
    /// Its description, when tool schemas were asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its input schema, when tool schemas were asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Its output schema, when tool schemas were asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// Lists the specialists a director can hand work to: each one's name, description, default
/// model, system prompt, default tool view resolved to the tools available now (patterns that
/// match nothing are listed as missing), and the input and output schemas of a handoff to it.
#[buril::tool(
    family = "agent_team",
    off_thread,
    read_only,
    idempotent,
    title = "List specialists"
)]
fn agent_team_list_specialists(
    /// Also give each tool's description and input and output schemas. Default: names only.
    include_tool_schemas: Option<bool>,
    ctx: &Context,
) -> Result<SpecialistList, ToolError> {
    let team = team(ctx)?;
    let dispatcher = dispatcher(ctx)?;
    let verbose = include_tool_schemas.unwrap_or(false);
    let registry = dispatcher.registry();
    let handoff_schema = registry
        .get("agent_team_handoff")
        .map(|tool| tool.input_schema().clone())
        .unwrap_or(Value::Null);
    let run_schema = registry
        .get("agent_team_query")
        .map(|tool| tool.output_schema().clone())
        .unwrap_or(Value::Null);
    let mut specialists = Vec::new();
    for specialist in team.specialists() {
        let view = specialist
            .view()
            .map_err(|e| ToolError::runtime(e.to_string()))?;
        let (tools, missing) = resolve_view(&dispatcher, &view);
        let tools = tools
            .into_iter()
            .map(|tool| ViewTool {
                name: tool.name().to_owned(),
                description: verbose.then(|| tool.description().to_owned()),
                input_schema: verbose.then(|| tool.input_schema().clone()),
                output_schema: verbose.then(|| tool.output_schema().clone()),
            })
            .collect();
        let mut input_schema = handoff_schema.clone();
        if let Some(property) = input_schema.pointer_mut("/properties/specialist") {
            *property = json!({
                "type": "string",
                "const": specialist.name,
                "description": "This specialist.",
            });
        }
        let mut output_schema = run_schema.clone();
        if let (Some(artifact), Some(property)) = (
            &specialist.artifact_schema,
            output_schema.pointer_mut("/properties/artifact"),
        ) {
            *property = json!({"anyOf": [artifact, {"type": "null"}]});
        }
        specialists.push(SpecialistInfo {
            name: specialist.name.clone(),
            description: specialist.description.clone(),
            model: specialist.model.clone(),
            system_prompt: specialist.system_prompt.clone(),
            tool_view: specialist.tool_view.clone(),
            tools,
            missing,
            input_schema,
            output_schema,
        });
    }
    Ok(SpecialistList { specialists })
}

/// Hands work to a specialist and answers at once with the run's handle; poll it with
/// `agent_team_query`. The specialist sees and may call only the tools of `tool_view`
/// (resolved now; the dispatcher refuses anything else), runs on `model`, and ends with a
/// report. A view with a pattern that matches no available tool answers `status: "blocked"`
/// and the run does not start. For a caller that follows tasks (MCP's tasks extension,
/// `tools call --detach`) the handoff is a task that ends when the run does, with its final
/// status and report; cancelling the task cancels the run.
#[buril::tool(
    family = "agent_team",
    task,
    off_thread,
    open_world,
    title = "Hand off to a specialist"
)]
async fn agent_team_handoff(
    Input(request): Input<HandoffRequest>,
    ctx: &Context,
) -> Result<Handoff, ToolError> {
    let team = team(ctx)?;
    let dispatcher = dispatcher(ctx)?;
    let mut handoff = team
        .start(&dispatcher, request)
        .await
        .map_err(TeamError::into_tool_error)?;
    if !ctx.is_task() || handoff.status.is_finished() {
        return Ok(handoff);
    }
    // A task: follow the run to its end, and cancel it with the task.
    loop {
        let waited = tokio::select! {
            waited = team.wait_for(&handoff.handle, FOLLOW_STEP) => waited,
            () = ctx.cancel_token().cancelled() => {
                team.cancel(&handoff.handle)
                    .await
                    .map_err(TeamError::into_tool_error)?;
                team.wait_for(&handoff.handle, FOLLOW_STEP).await
            }
        };
        match waited {
            Ok(run) => {
                handoff.status = run.status;
                handoff.report = run.report.or(run.error);
                return Ok(handoff);
            }
            Err(WaitError::Timeout(_)) => {}
            Err(error) => return Err(ToolError::runtime(error.to_string())),
        }
    }
}

/// Polls a run: its status (`running`, `done`, `errored`, `blocked` or `cancelled`), the calls
/// made so far, the tool-call count and duration, and, once it ended, the report (for a failed
/// run, the error verbatim) and artifact. Answers at once.
#[buril::tool(family = "agent_team", off_thread, read_only, title = "Query a run")]
async fn agent_team_query(
    /// The run's handle, as `agent_team_handoff` answered.
    handle: String,
    ctx: &Context,
) -> Result<RunStatus, ToolError> {
    team(ctx)?
        .query(&handle)
        .await
        .map_err(TeamError::into_tool_error)
}

/// Cancels a run cooperatively: the tool call in flight sees the cancellation through its
/// context, and no further call (or retry) is made. The run ends `cancelled`; poll it to see
/// when. Cancelling a finished run changes nothing.
#[buril::tool(family = "agent_team", off_thread, idempotent, title = "Cancel a run")]
async fn agent_team_cancel(
    /// The run's handle.
    handle: String,
    ctx: &Context,
) -> Result<RunStatus, ToolError> {
    team(ctx)?
        .cancel(&handle)
        .await
        .map_err(TeamError::into_tool_error)
}

/// Records a run as a replayable JSON trace: the director's handoff, every tool call with its
/// input, envelope and duration, the model, the brief, the report and the status. The file is
/// written atomically, so a crash never leaves a partial trace. Record a finished run (a
/// running one is recorded as far as it got).
#[buril::tool(family = "agent_team", off_thread, idempotent, title = "Record a run")]
async fn agent_team_record(
    /// The run's handle.
    handle: String,
    /// Where to write the trace, relative to the team's trace folder (the project), e.g.
    /// `Assets/BurilTests/JacketRig.json`; missing folders are created.
    output_path: String,
    ctx: &Context,
) -> Result<Recording, ToolError> {
    let team = team(ctx)?;
    let path = team.trace_path(&output_path).map_err(ToolError::invalid)?;
    let recorded = team
        .record(&handle, &path)
        .map_err(|error| ToolError::runtime(error.to_string()))?;
    let Some(mut recording) = recorded else {
        // A run of another process (its task is in the team's store): only that process
        // holds its trace.
        return Err(match team.query(&handle).await {
            Ok(_) => ToolError::invalid(format!(
                "the run `{handle}` ran in another process, which holds its trace: record it \
                 there"
            )),
            Err(_) => unknown_handle(&handle),
        });
    };
    recording.path = output_path;
    Ok(recording)
}

/// Replays a recorded trace against the current tools, with no model: re-issues its calls in
/// order, with its tool view, and compares each answer with the recording. Answers
/// `result: "match"`, or `"drift"` with the first departure: the call, and the JSON pointer
/// where the envelope differs with both values, a tool that is missing, or a tool whose input
/// schema changed.
#[buril::tool(family = "agent_team", destructive, title = "Replay a trace")]
fn agent_team_replay(
    /// The trace, relative to the team's trace folder (the project).
    trace_path: String,
    /// JSON pointers into the envelopes not to compare (values that change from run to run);
    /// a `*` segment matches any one segment: `/data/entries/*/time`.
    ignore: Option<Vec<String>>,
    ctx: &Context,
) -> Result<ReplayReport, ToolError> {
    let team = team(ctx)?;
    let dispatcher = dispatcher(ctx)?;
    let path = team.trace_path(&trace_path).map_err(ToolError::invalid)?;
    let options = ReplayOptions {
        ignore: ignore.unwrap_or_default(),
        call_timeout: None,
        cancel: Some(ctx.cancel_token().clone()),
    };
    replay_file(&path, &dispatcher, &options).map_err(|error| match error {
        ReplayError::Cancelled => ToolError::cancelled(),
        ReplayError::Trace(TraceError::Io { error, .. })
            if error.kind() == std::io::ErrorKind::NotFound =>
        {
            ToolError::invalid(format!("no trace at `{trace_path}`"))
        }
        other => ToolError::invalid(other.to_string()),
    })
}

/// The traces recorded under the team's trace folder.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamTraces")]
pub struct TraceList {
    /// The traces, newest first.
    pub traces: Vec<TraceInfo>,
    /// Whether the search stopped at its limit (`MAX_TRACES` traces, or `MAX_ENTRIES` files and
    /// folders looked at) before it saw every file.
    pub truncated: bool,
}

/// A recorded trace, in brief.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamTraceInfo")]
pub struct TraceInfo {
    /// Its path, relative to the team's trace folder (what `agent_team_replay` and
    /// `agent_team_read_trace` take).
    pub path: String,
    /// The specialist that ran.
    pub specialist: String,
    /// The model.
    pub model: String,
    /// How the run ended.
    pub status: crate::team::RunState,
    /// How many tool calls it holds.
    pub calls: usize,
    /// How long the run took, in milliseconds.
    pub duration_ms: u64,
    /// The brief's first line (at most 200 characters).
    pub brief: String,
    /// When the file was last written (RFC 3339, UTC).
    pub modified: Option<String>,
}

/// At most this many traces are listed.
const MAX_TRACES: usize = 500;
/// At most this many files and folders are looked at.
const MAX_ENTRIES: usize = 20_000;
/// Files larger than this are not read as traces.
const MAX_TRACE_BYTES: u64 = 16 * 1024 * 1024;

/// Lists the agent-team traces recorded under the team's trace folder (the project), or under
/// one folder of it: each one's path (for `agent_team_replay` and `agent_team_read_trace`),
/// specialist, model, status, call count, duration and brief, newest first. JSON files that
/// are not traces are left out; hidden folders and Unity's `Library` and `Temp` are not searched.
#[buril::tool(
    family = "agent_team",
    off_thread,
    read_only,
    idempotent,
    title = "List traces"
)]
fn agent_team_list_traces(
    /// The folder to search, relative to the trace folder. Default: all of it.
    folder: Option<String>,
    ctx: &Context,
) -> Result<TraceList, ToolError> {
    let team = team(ctx)?;
    let root = team.trace_dir().to_owned();
    let start = match &folder {
        Some(folder) => team.trace_path(folder).map_err(ToolError::invalid)?,
        None => root.clone(),
    };
    if !start.is_dir() {
        return Err(ToolError::invalid(format!(
            "no folder `{}` in the trace folder",
            folder.as_deref().unwrap_or(".")
        )));
    }
    let mut found: Vec<(std::time::SystemTime, TraceInfo)> = Vec::new();
    let mut pending = vec![start];
    let mut entries = 0;
    let mut truncated = false;
    'walk: while let Some(dir) = pending.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.flatten() {
            entries += 1;
            if entries > MAX_ENTRIES || found.len() >= MAX_TRACES {
                truncated = true;
                break 'walk;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.')
                    && !matches!(
                        name.as_str(),
                        "Library" | "Temp" | "node_modules" | "target"
                    )
                {
                    pending.push(entry.path());
                }
                continue;
            }
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            if !name.ends_with(".json") || metadata.len() > MAX_TRACE_BYTES {
                continue;
            }
            let Ok(trace) = crate::trace::Trace::read(entry.path()) else {
                continue;
            };
            let path = entry
                .path()
                .strip_prefix(&root)
                .map(|path| path.to_string_lossy().replace('\\', "/"))
                .unwrap_or(name);
            let modified = metadata.modified().ok();
            let brief = trace
                .brief
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect();
            found.push((
                modified.unwrap_or(std::time::UNIX_EPOCH),
                TraceInfo {
                    path,
                    specialist: trace.specialist,
                    model: trace.model,
                    status: trace.status,
                    calls: trace.calls.len(),
                    duration_ms: trace.duration_ms,
                    brief,
                    modified: modified.and_then(|time| {
                        let ms = time.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis();
                        Some(buril::tasks::iso(u64::try_from(ms).ok()?))
                    }),
                },
            ));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)));
    Ok(TraceList {
        traces: found.into_iter().map(|(_, info)| info).collect(),
        truncated,
    })
}

/// Reads a recorded agent-team trace whole: the handoff, every tool call with its input,
/// envelope, start and duration, the model's turns, the report and the status. What a
/// timeline of the run is drawn from.
#[buril::tool(
    family = "agent_team",
    off_thread,
    read_only,
    idempotent,
    title = "Read a trace"
)]
fn agent_team_read_trace(
    /// The trace, relative to the team's trace folder (the project).
    trace_path: String,
    ctx: &Context,
) -> Result<crate::trace::Trace, ToolError> {
    let team = team(ctx)?;
    let path = team.trace_path(&trace_path).map_err(ToolError::invalid)?;
    crate::trace::Trace::read(&path).map_err(|error| match error {
        TraceError::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            ToolError::invalid(format!("no trace at `{trace_path}`"))
        }
        other => ToolError::invalid(other.to_string()),
    })
}
