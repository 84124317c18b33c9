//! The team: specialists, models, runs (each a task) and their traces, and the dispatcher their
//! calls go through. This module hands work off, reports on runs, waits for them, records and
//! replays them; its children hold the rest:
//!
//! - `state`: the [`Team`] and what its clones share;
//! - `builder`: [`TeamBuilder`];
//! - `run`: a run of this process, and a run as its task has it;
//! - `view`: [`resolve_view`], the tools a view lists;
//! - `wire`: what the verbs take and answer;
//! - `error`: why they fail.

mod builder;
mod error;
pub(crate) mod run;
mod runtime;
mod state;
mod view;
pub(crate) mod wire;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use buril::tasks::{TaskError, now_ms};
use buril::{Dispatcher, ToolView};
use serde_json::{Value, json};

pub use self::builder::TeamBuilder;
pub use self::error::{TeamError, TeamReplayError, WaitError};
pub use self::state::Team;
pub use self::view::resolve_view;
pub use self::wire::{
    CallSummary, Handoff, HandoffRequest, Recording, RunState, RunStatus, TurnRecord,
};

use self::run::{Run, detail, status_of_task};

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
    /// registry and policy) and the model, starts the run as a task of the team's
    /// [`Tasks`](buril::tasks::Tasks) and answers at once. A view with a pattern that matches
    /// no available tool gives a run that is already `blocked`, with a handle like any other.
    pub async fn start(
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
            match buril::profile::render(profile, tool) {
                Ok(definition) => definitions.push(definition.value),
                Err(error) => notes.push(format!(
                    "`{}` is not offered to the model: the {profile} profile cannot express \
                     it: {error}",
                    tool.name()
                )),
            }
        }
        let tasks = &self.state.tasks;
        let start = tasks
            .prepare()
            .map_err(|error| TeamError::Store(error.to_string()))?;
        let handle = start.id().to_owned();
        let label = run_label(&specialist.name, &request.brief);
        let start = start.with_detail(detail(&specialist.name, &model_name, &label));
        let trace = Trace {
            version: TRACE_VERSION,
            handle: handle.clone(),
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
            status: RunState::Running,
            duration_ms: 0,
            tool_calls: 0,
            schemas: tools
                .iter()
                .map(|tool| (tool.name().to_owned(), schema_hash(tool.input_schema())))
                .collect(),
            notes,
            turns: Vec::new(),
        };
        let tool_names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();
        let run = Arc::new(Run::new(trace));

        let blocked = (!missing.is_empty()).then(|| {
            format!(
                "blocked: the tool view {view} needs tools that are not available: {} \
                 matches no tool the host offers",
                missing
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        let runner = match &blocked {
            None => Some(Runner {
                cancel: start.cancel_token().clone(),
                progress: start.progress(),
                run: Arc::clone(&run),
                dispatcher: dispatcher.clone(),
                model,
                request: ModelRequest {
                    specialist: specialist.name.clone(),
                    model: model_id,
                    temperature: request.temperature,
                    system_prompt: system_prompt(&specialist.system_prompt),
                    brief: request.brief.clone(),
                    tools: definitions,
                    history: Vec::new(),
                },
                view: Arc::new(view),
                max_steps: self.state.max_steps,
                call_timeout: self.state.call_timeout,
            }),
            Some(reason) => {
                let mut trace = run.trace.lock();
                trace.status = RunState::Blocked;
                trace.report = Some(reason.clone());
                trace.error = Some(reason.clone());
                None
            }
        };
        let handoff = Handoff {
            handle: handle.clone(),
            status: if blocked.is_some() {
                RunState::Blocked
            } else {
                RunState::Running
            },
            specialist: specialist.name.clone(),
            model: model_name,
            tools: tool_names,
            missing,
            report: blocked,
        };
        run.trace.lock().director = Some(DirectorCall {
            tool: "agent_team_handoff".to_owned(),
            input: serde_json::to_value(&request).unwrap_or(Value::Null),
            envelope: json!({"ok": true, "data": handoff}),
        });
        self.register(&handle, Arc::clone(&run));
        let ran = Arc::clone(&run);
        let work = async move {
            if let Some(runner) = runner {
                // The run on a task of its own, so that a panic in it (a model's, say) ends
                // the run as errored rather than leaving it running.
                if let Err(joined) = tokio::spawn(runner.run()).await {
                    ran.ended_by_panic(joined);
                }
            }
            ran.end();
            ran.task_end()
        };
        // Launched on the team's runtime, where the run then runs (whatever runtime, if any,
        // the caller's is).
        let launching = {
            let tasks = tasks.clone();
            self.state
                .runtime
                .handle()
                .spawn(async move { tasks.launch(start, HANDOFF_TOOL, None, work).await })
        };
        let launched = match launching.await {
            Ok(launched) => launched.map_err(|error| TeamError::Store(error.to_string())),
            Err(_) => Err(TeamError::Store(
                "the team's runtime stopped before the run was stored".to_owned(),
            )),
        };
        if let Err(error) = launched {
            self.forget(&handle);
            return Err(error);
        }
        Ok(handoff)
    }

    /// [`start`](Self::start) through the attached dispatcher; answers with the run's handle.
    pub async fn handoff(&self, request: HandoffRequest) -> Result<String, TeamError> {
        let dispatcher = self.dispatcher().ok_or(TeamError::NoDispatcher)?;
        self.start(&dispatcher, request)
            .await
            .map(|handoff| handoff.handle)
    }

    /// The run with handle `handle`, as it is now: a run of this process from its live trace,
    /// with every call so far; a run of another process from its task (its calls once it
    /// ended, their count while it runs).
    pub async fn query(&self, handle: &str) -> Result<RunStatus, TeamError> {
        if let Some(run) = self.run(handle) {
            return Ok(run.status());
        }
        let record = self
            .state
            .tasks
            .get(handle, None)
            .await
            .map_err(|error| of_task(handle, error))?;
        if record.tool != HANDOFF_TOOL {
            return Err(TeamError::UnknownHandle(handle.to_owned()));
        }
        Ok(status_of_task(&record, now_ms()))
    }

    /// Cancels the run cooperatively, wherever it runs: the call in flight sees it through its
    /// context, and no further call or retry is made. Returns the run as it is right after (it
    /// may still be `running` while it stops).
    pub async fn cancel(&self, handle: &str) -> Result<RunStatus, TeamError> {
        self.query(handle).await?;
        self.state
            .tasks
            .cancel(handle, None)
            .await
            .map_err(|error| of_task(handle, error))?;
        self.query(handle).await
    }

    /// Waits until the run ends, or `timeout` passes. Works from any executor.
    pub async fn wait_for(&self, handle: &str, timeout: Duration) -> Result<RunStatus, WaitError> {
        let tasks = &self.state.tasks;
        match self.run(handle) {
            Some(run) => {
                if tokio::time::timeout(timeout, run.ended()).await.is_ok() {
                    // Its task ends right after, as its runner records it.
                    let _ = tasks.wait(handle, None, Some(Duration::from_secs(2))).await;
                }
            }
            None => {
                self.query(handle).await.map_err(WaitError::from)?;
                tasks
                    .wait(handle, None, Some(timeout))
                    .await
                    .map_err(|error| WaitError::from(of_task(handle, error)))?;
            }
        }
        let run = self.query(handle).await.map_err(WaitError::from)?;
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
        if let Some(run) = self.run(handle) {
            let status = if run.wait_blocking(timeout) {
                run.status()
            } else {
                return Err(WaitError::Timeout(Box::new(run.status())));
            };
            return Ok(status);
        }
        // A run of another process: its task is read from the store, on a runtime of this
        // call's own (on a thread of its own, so that a caller inside a runtime is not
        // blocked by nesting one).
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|error| WaitError::Store(error.to_string()))?;
                    runtime.block_on(self.wait_for(handle, timeout))
                })
                .join()
                .unwrap_or_else(|_| Err(WaitError::Store("the wait panicked".to_owned())))
        })
    }

    /// The run's trace as it is now (complete once the run ended); `None` for a run this
    /// process does not run (only the process that ran a run holds its trace).
    pub fn trace(&self, handle: &str) -> Option<Trace> {
        self.run(handle).map(|run| run.trace())
    }

    /// Writes the run's trace to `path` (as given: absolute, or relative to the current
    /// folder), atomically; `Ok(None)` for a run this process does not hold.
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

/// The tool a run's task names: the handoff that started it.
const HANDOFF_TOOL: &str = "agent_team_handoff";

/// A task store's refusal, as the team's.
fn of_task(handle: &str, error: TaskError) -> TeamError {
    match error {
        TaskError::Unknown(_) => TeamError::UnknownHandle(handle.to_owned()),
        TaskError::Expired(_) => TeamError::Expired(handle.to_owned()),
        other => TeamError::Store(other.to_string()),
    }
}

fn system_prompt(own: &str) -> String {
    if own.trim().is_empty() {
        REPORT_PROTOCOL.to_owned()
    } else {
        format!("{}\n\n{REPORT_PROTOCOL}", own.trim_end())
    }
}

/// A run's label: the specialist and the first line of the brief, cut to 80 characters.
fn run_label(specialist: &str, brief: &str) -> String {
    let line = brief.lines().next().unwrap_or_default();
    if line.chars().count() > 80 {
        let cut: String = line.chars().take(79).collect();
        format!("{specialist}: {cut}…")
    } else {
        format!("{specialist}: {line}")
    }
}
