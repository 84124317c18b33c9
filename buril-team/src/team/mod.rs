//! The team: specialists, models, jobs, runs and their traces, and the dispatcher their calls
//! go through. This module hands work off, reports on runs, waits for them, records and
//! replays them; its children hold the rest:
//!
//! - `state`: the [`Team`] and what its clones share;
//! - `builder`: [`TeamBuilder`];
//! - `view`: [`resolve_view`], the tools a view lists;
//! - `wire`: what the verbs take and answer;
//! - `error`: why they fail.

mod builder;
mod error;
mod state;
mod view;
mod wire;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use buril::{Dispatcher, JobOutcome, JobStatus, ToolView};
use serde_json::{Value, json};

pub use self::builder::TeamBuilder;
pub use self::error::{TeamError, TeamReplayError, WaitError};
pub use self::state::Team;
pub use self::view::resolve_view;
pub use self::wire::{CallSummary, Handoff, HandoffRequest, Recording, RunStatus};

use crate::model::ModelRequest;
use crate::replay::{self, ReplayOptions, ReplayReport};
use crate::runner::Runner;
use crate::trace::{DirectorCall, TRACE_VERSION, Trace, TraceError, schema_hash};

/// What every model is told after the specialist's own system prompt: how to end.
pub const REPORT_PROTOCOL: &str = "Work only through the tools you are given. When the work is \
     done, answer without calling a tool: your report for the director, as plain text, or as a \
     JSON object {\"report\": \"...\", \"artifact\": {...}} when there are structured results \
     to hand back.";

impl Team {
    /// Hands `request` off: resolves the specialist, the view (now, against `dispatcher`'s
    /// registry and policy) and the model, starts the run as a job and answers at once. A
    /// view with a pattern that matches no available tool gives a run that is already
    /// `blocked`, with a handle like any other.
    pub fn start(
        &self,
        dispatcher: &Dispatcher,
        request: HandoffRequest,
    ) -> Result<Handoff, TeamError> {
        let specialist =
            self.specialist(&request.specialist)
                .ok_or_else(|| TeamError::UnknownSpecialist {
                    name: request.specialist.clone(),
                    known: self.state.specialists.keys().cloned().collect(),
                })?;
        let patterns = request
            .tool_view
            .clone()
            .unwrap_or_else(|| specialist.tool_view.clone());
        if patterns.is_empty() {
            return Err(TeamError::EmptyView);
        }
        let view = ToolView::parse(&patterns).map_err(TeamError::View)?;
        if let Some(t) = request.temperature
            && !(0.0..=2.0).contains(&t)
        {
            return Err(TeamError::Temperature(t));
        }
        let model_name = request
            .model
            .clone()
            .unwrap_or_else(|| specialist.model.clone());
        let (model, model_id) = self.resolve_model(&model_name)?;

        let (tools, missing) = resolve_view(dispatcher, &view);
        let profile = model.profile();
        let mut notes = Vec::new();
        let mut definitions = Vec::new();
        for tool in &tools {
            match buril::profile::definition(profile, tool) {
                Ok(definition) => definitions.push(definition),
                Err(error) => notes.push(format!(
                    "`{}` is not offered to the model: the {profile} profile cannot express \
                     it: {error}",
                    tool.name()
                )),
            }
        }
        let trace = Trace {
            version: TRACE_VERSION,
            handle: String::new(),
            specialist: specialist.name.clone(),
            brief: request.brief.clone(),
            model: model_name.clone(),
            temperature: request.temperature,
            tool_view: patterns,
            director: None,
            calls: Vec::new(),
            report: None,
            artifact: None,
            error: None,
            status: JobStatus::Running,
            duration_ms: 0,
            tool_calls: 0,
            schemas: tools
                .iter()
                .map(|tool| (tool.name().to_owned(), schema_hash(tool.input_schema())))
                .collect(),
            notes,
        };
        let label = job_label(&specialist.name, &request.brief);
        let tool_names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();

        let (handle, status, report) = if missing.is_empty() {
            let model_request = ModelRequest {
                specialist: specialist.name.clone(),
                model: model_id,
                temperature: request.temperature,
                system_prompt: system_prompt(&specialist.system_prompt),
                brief: request.brief.clone(),
                tools: definitions,
                history: Vec::new(),
            };
            let team = self.clone();
            let dispatcher = dispatcher.clone();
            let view = Arc::new(view);
            let id = self.state.jobs.spawn(label, move |job| {
                let trace = team.register(job.id(), trace);
                Runner {
                    job,
                    dispatcher,
                    model,
                    request: model_request,
                    view,
                    trace,
                    max_steps: team.state.max_steps,
                    call_timeout: team.state.call_timeout,
                }
                .run()
            });
            (id, JobStatus::Running, None)
        } else {
            let reason = format!(
                "blocked: the tool view {view} needs tools that are not available: {} \
                 matches no tool the host offers",
                missing
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let id = self
                .state
                .jobs
                .finished(label, JobOutcome::blocked(reason.clone()));
            let live = self.register(&id, trace);
            let mut trace = live.lock();
            trace.status = JobStatus::Blocked;
            trace.report = Some(reason.clone());
            trace.error = Some(reason.clone());
            (id, JobStatus::Blocked, Some(reason))
        };
        let handoff = Handoff {
            handle: handle.to_string(),
            status,
            specialist: specialist.name.clone(),
            model: model_name,
            tools: tool_names,
            missing,
            report,
        };
        if let Some(live) = self.live_trace(handle.as_str()) {
            live.lock().director = Some(DirectorCall {
                tool: "agent_team_handoff".to_owned(),
                input: serde_json::to_value(&request).unwrap_or(Value::Null),
                envelope: json!({"ok": true, "data": handoff}),
            });
        }
        Ok(handoff)
    }

    /// [`start`](Self::start) through the attached dispatcher; answers with the run's handle.
    pub async fn handoff(&self, request: HandoffRequest) -> Result<String, TeamError> {
        let dispatcher = self.dispatcher().ok_or(TeamError::NoDispatcher)?;
        self.start(&dispatcher, request)
            .map(|handoff| handoff.handle)
    }

    /// The run with handle `handle`, as it is now.
    pub fn query(&self, handle: &str) -> Option<RunStatus> {
        let live = self.live_trace(handle)?;
        let job = self.state.jobs.get(handle)?;
        let trace = live.lock();
        Some(RunStatus {
            handle: handle.to_owned(),
            status: job.status,
            specialist: trace.specialist.clone(),
            model: trace.model.clone(),
            tool_calls: job.tool_calls,
            duration_ms: u64::try_from(job.duration.as_millis()).unwrap_or(u64::MAX),
            calls: trace
                .calls
                .iter()
                .map(|call| {
                    let ok = call.envelope.get("ok") == Some(&Value::Bool(true));
                    CallSummary {
                        tool: call.tool.clone(),
                        ok,
                        error_type: call
                            .envelope
                            .get("type")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        attempt: call.attempt,
                        duration_ms: call.duration_ms,
                    }
                })
                .collect(),
            report: trace.report.clone(),
            artifact: trace.artifact.clone(),
            error: trace.error.clone().or(job.error),
        })
    }

    /// Cancels the run cooperatively: the call in flight sees it through its context, and no
    /// further call or retry is made. Returns the run as it is right after (it may still be
    /// `running` while it stops); `None` for an unknown handle.
    pub fn cancel(&self, handle: &str) -> Option<RunStatus> {
        self.live_trace(handle)?;
        self.state.jobs.cancel(handle)?;
        self.query(handle)
    }

    /// Waits until the run ends, or `timeout` passes. Works from any executor.
    pub async fn wait_for(&self, handle: &str, timeout: Duration) -> Result<RunStatus, WaitError> {
        let unknown = || WaitError::UnknownHandle(handle.to_owned());
        self.live_trace(handle).ok_or_else(unknown)?;
        self.state
            .jobs
            .wait(handle, timeout)
            .await
            .ok_or_else(unknown)?;
        let run = self.query(handle).ok_or_else(unknown)?;
        if run.status.is_finished() {
            Ok(run)
        } else {
            Err(WaitError::Timeout(Box::new(run)))
        }
    }

    /// [`wait_for`](Self::wait_for), blocking the calling thread (not for async code).
    pub fn wait_for_blocking(
        &self,
        handle: &str,
        timeout: Duration,
    ) -> Result<RunStatus, WaitError> {
        let unknown = || WaitError::UnknownHandle(handle.to_owned());
        self.live_trace(handle).ok_or_else(unknown)?;
        self.state
            .jobs
            .wait_for(handle, timeout)
            .ok_or_else(unknown)?;
        let run = self.query(handle).ok_or_else(unknown)?;
        if run.status.is_finished() {
            Ok(run)
        } else {
            Err(WaitError::Timeout(Box::new(run)))
        }
    }

    /// The run's trace as it is now (complete once the run ended).
    pub fn trace(&self, handle: &str) -> Option<Trace> {
        let mut trace = self.live_trace(handle)?.lock().clone();
        if let Some(job) = self.state.jobs.get(handle) {
            // A run whose work died (a panic) ends as its job did.
            if trace.status == JobStatus::Running && job.status.is_finished() {
                trace.status = job.status;
                trace.error = trace.error.or(job.error);
            }
            trace.tool_calls = job.tool_calls;
            trace.duration_ms = u64::try_from(job.duration.as_millis()).unwrap_or(u64::MAX);
        }
        Some(trace)
    }

    /// Writes the run's trace to `path` (as given: absolute, or relative to the current
    /// folder), atomically; `Ok(None)` for an unknown handle.
    pub fn record(&self, handle: &str, path: &Path) -> Result<Option<Recording>, TraceError> {
        let Some(trace) = self.trace(handle) else {
            return Ok(None);
        };
        let bytes = trace.write(path)?;
        Ok(Some(Recording {
            handle: handle.to_owned(),
            path: path.display().to_string(),
            status: trace.status,
            calls: trace.calls.len(),
            bytes,
        }))
    }

    /// Replays the trace at `path` through the attached dispatcher ([`replay`](crate::replay())).
    pub fn replay(
        &self,
        path: &Path,
        options: &ReplayOptions,
    ) -> Result<ReplayReport, TeamReplayError> {
        let dispatcher = self.dispatcher().ok_or(TeamReplayError::NoDispatcher)?;
        replay::replay_file(path, &dispatcher, options).map_err(TeamReplayError::Replay)
    }
}

fn system_prompt(own: &str) -> String {
    if own.trim().is_empty() {
        REPORT_PROTOCOL.to_owned()
    } else {
        format!("{}\n\n{REPORT_PROTOCOL}", own.trim_end())
    }
}

/// The label of a run's job: the specialist and the first line of the brief, cut to 80
/// characters.
fn job_label(specialist: &str, brief: &str) -> String {
    let line = brief.lines().next().unwrap_or_default();
    if line.chars().count() > 80 {
        let cut: String = line.chars().take(79).collect();
        format!("{specialist}: {cut}…")
    } else {
        format!("{specialist}: {line}")
    }
}
