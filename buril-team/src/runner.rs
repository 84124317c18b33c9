//! One run: ask the model, run its calls through the dispatcher with the handoff's view and
//! the task's cancellation, record everything, until a report or a failure.

use std::sync::Arc;
use std::time::{Duration, Instant};

use buril::context::{Progress, ProgressSink};
use buril::{CallOptions, CancelToken, Dispatcher, ErrorKind, Outcome, ToolView};
use serde_json::Value;

use crate::model::{Model, ModelReply, ModelRequest, Report, ToolCall, Turn};
use crate::team::run::Run;
use crate::team::wire::RunState;
use crate::team::wire::TurnRecord;
use crate::trace::{CallRecord, schema_hash};

/// `duration` in whole milliseconds.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The spans of a run, as OpenTelemetry's semantic conventions for generative AI name them.
mod genai {
    use buril::profile::Profile;
    use tracing::Span;
    use tracing::field::Empty;

    use crate::model::{ModelReply, ModelRequest, ToolCall};

    /// `gen_ai.provider.name` of a model that renders tools in `profile`.
    fn provider(profile: Profile) -> &'static str {
        match profile {
            Profile::OpenAi => "openai",
            Profile::Anthropic => "anthropic",
            Profile::Gemini => "gcp.gemini",
            _ => "_OTHER",
        }
    }

    /// `invoke_agent {specialist}`: the whole run.
    pub(super) fn agent_span(request: &ModelRequest, profile: Profile) -> Span {
        let span = tracing::info_span!(
            target: "buril_team::genai",
            "invoke_agent",
            otel.name = Empty,
            otel.kind = "internal",
            gen_ai.operation.name = "invoke_agent",
            gen_ai.agent.name = request.specialist.as_str(),
            gen_ai.provider.name = provider(profile),
            gen_ai.request.model = request.model.as_deref(),
            error.type = Empty,
        );
        if !span.is_disabled() {
            span.record("otel.name", format!("invoke_agent {}", request.specialist));
        }
        span
    }

    /// `chat {model}`: one model call.
    pub(super) fn chat_span(request: &ModelRequest, profile: Profile) -> Span {
        let span = tracing::info_span!(
            target: "buril_team::genai",
            "chat",
            otel.name = Empty,
            otel.kind = "client",
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = provider(profile),
            gen_ai.request.model = request.model.as_deref(),
            gen_ai.request.temperature = request.temperature,
            gen_ai.response.finish_reasons = Empty,
            error.type = Empty,
        );
        if !span.is_disabled() {
            let name = match &request.model {
                Some(model) => format!("chat {model}"),
                None => "chat".to_owned(),
            };
            span.record("otel.name", name);
        }
        span
    }

    /// What the model answered, on its span.
    pub(super) fn record_reply<E>(span: &Span, reply: &Result<ModelReply, E>) {
        if span.is_disabled() {
            return;
        }
        match reply {
            Ok(ModelReply::ToolCalls(calls)) if !calls.is_empty() => {
                span.record("gen_ai.response.finish_reasons", "tool_calls");
            }
            Ok(_) => {
                span.record("gen_ai.response.finish_reasons", "stop");
            }
            Err(_) => {
                span.record("error.type", "model_error");
            }
        }
    }

    /// `execute_tool {tool}`: one call the model asked for (the dispatcher runs it inside).
    pub(super) fn tool_span(call: &ToolCall, attempt: u32) -> Span {
        let span = tracing::info_span!(
            target: "buril_team::genai",
            "execute_tool",
            otel.name = Empty,
            otel.kind = "internal",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = call.tool.as_str(),
            gen_ai.tool.call.id = call.id.as_str(),
            gen_ai.tool.type = "function",
            buril.attempt = attempt,
            error.type = Empty,
        );
        if !span.is_disabled() {
            span.record("otel.name", format!("execute_tool {}", call.tool));
        }
        span
    }
}

/// How a run ended.
enum RunEnd {
    Done(Report),
    Errored { report: String, error: String },
    Blocked(String),
    Cancelled,
}

/// What became of one call, its retry included: an envelope for the model, or the end of the
/// run.
enum CallResult {
    Answered(Value),
    RunEnds(RunEnd),
}

/// A handoff's run, as its task runs it.
pub(crate) struct Runner {
    /// The task's cancellation: the run's.
    pub(crate) cancel: CancelToken,
    /// The task's progress: the calls made so far.
    pub(crate) progress: ProgressSink,
    /// The run's trace, count and end, which the team reads while the run goes.
    pub(crate) run: Arc<Run>,
    /// Every call goes through it, with the view and the task's cancellation.
    pub(crate) dispatcher: Dispatcher,
    pub(crate) model: Arc<dyn Model>,
    /// What the model is asked; its history grows with every call.
    pub(crate) request: ModelRequest,
    pub(crate) view: Arc<ToolView>,
    pub(crate) max_steps: usize,
    /// The timeout of each call, instead of the dispatcher's; `None` leaves it to the
    /// dispatcher.
    pub(crate) call_timeout: Option<Duration>,
}

impl Runner {
    pub(crate) async fn run(mut self) -> RunState {
        use tracing::Instrument;
        let span = genai::agent_span(&self.request, self.model.profile());
        let end = self.steps().instrument(span.clone()).await;
        let failed = match &end {
            RunEnd::Done(_) => None,
            RunEnd::Errored { .. } => Some("errored"),
            RunEnd::Blocked(_) => Some("blocked"),
            RunEnd::Cancelled => Some("cancelled"),
        };
        if let Some(failed) = failed {
            span.record("error.type", failed);
        }
        self.finish(end)
    }

    async fn steps(&mut self) -> RunEnd {
        for _ in 0..self.max_steps {
            if self.cancel.is_cancelled() {
                return RunEnd::Cancelled;
            }
            let asked = millis(self.run.elapsed());
            let reply = {
                use tracing::Instrument;
                let span = genai::chat_span(&self.request, self.model.profile());
                let answer = self.model.complete(&self.request).instrument(span.clone());
                let reply = tokio::select! {
                    reply = answer => reply,
                    _ = self.cancel.cancelled() => return RunEnd::Cancelled,
                };
                genai::record_reply(&span, &reply);
                reply
            };
            self.run.trace.lock().turns.push(TurnRecord {
                started_ms: asked,
                duration_ms: millis(self.run.elapsed()).saturating_sub(asked),
                calls: match &reply {
                    Ok(ModelReply::ToolCalls(calls)) => {
                        u32::try_from(calls.len()).unwrap_or(u32::MAX)
                    }
                    _ => 0,
                },
                failed: reply.is_err(),
            });
            let calls = match reply {
                Err(error) => {
                    let error = format!("the model failed: {error}");
                    return RunEnd::Errored {
                        report: error.clone(),
                        error,
                    };
                }
                Ok(ModelReply::Report(report)) => return RunEnd::Done(report),
                Ok(ModelReply::ToolCalls(calls)) if calls.is_empty() => {
                    return RunEnd::Done(Report::default());
                }
                Ok(ModelReply::ToolCalls(calls)) => calls,
            };
            self.request.history.push(Turn::Calls {
                calls: calls.clone(),
            });
            for call in calls {
                match self.call_with_retry(&call).await {
                    CallResult::Answered(envelope) => self.request.history.push(Turn::Result {
                        call_id: call.id.clone(),
                        tool: call.tool.clone(),
                        envelope,
                    }),
                    CallResult::RunEnds(end) => return end,
                }
            }
        }
        let error = format!(
            "the specialist did not report within {} model steps",
            self.max_steps
        );
        RunEnd::Errored {
            report: error.clone(),
            error,
        }
    }

    /// Runs a call; a failure is retried once (never a cancellation, a missing tool or one
    /// outside the view), and a second failure ends the run with the error verbatim. A call
    /// cancelled while the run was not is answered to the model as it is.
    async fn call_with_retry(&mut self, call: &ToolCall) -> CallResult {
        let mut attempt = 1;
        loop {
            if self.cancel.is_cancelled() {
                return CallResult::RunEnds(RunEnd::Cancelled);
            }
            let outcome = self.call(call, attempt).await;
            let Some(error) = outcome.error() else {
                return CallResult::Answered(outcome.into_envelope());
            };
            match error.kind() {
                _ if self.cancel.is_cancelled() => return CallResult::RunEnds(RunEnd::Cancelled),
                // Cancelled while the run was not (the user declined a tool's confirmation,
                // say): the model hears it, and nothing is retried.
                ErrorKind::Cancelled => return CallResult::Answered(outcome.into_envelope()),
                ErrorKind::NotFound => {
                    return CallResult::RunEnds(RunEnd::Blocked(format!(
                        "blocked: the specialist called `{}`, which is not in the registry: {}",
                        call.tool,
                        error.message()
                    )));
                }
                ErrorKind::Disabled => {
                    return CallResult::RunEnds(RunEnd::Blocked(format!(
                        "blocked: the call to `{}` was refused: {}",
                        call.tool,
                        error.message()
                    )));
                }
                _ if attempt == 1 => attempt = 2,
                kind => {
                    let error = error.message().to_owned();
                    let report = format!(
                        "errored: the call to `{}` failed ({kind}), was retried once and failed \
                         again: {error}",
                        call.tool
                    );
                    return CallResult::RunEnds(RunEnd::Errored { report, error });
                }
            }
        }
    }

    async fn call(&mut self, call: &ToolCall, attempt: u32) -> Outcome {
        let count = self.run.count_call();
        let started = Instant::now();
        let started_ms = millis(self.run.elapsed());
        let mut options = CallOptions::new()
            .cancel(self.cancel.clone())
            .view(Arc::clone(&self.view));
        options.timeout = self.call_timeout;
        if let Some(source) = self.model.input_source() {
            options = options.input(source);
        }
        let span = genai::tool_span(call, attempt);
        let outcome = {
            use tracing::Instrument;
            self.dispatcher
                .invoke_async(&call.tool, call.input.clone(), options)
                .instrument(span.clone())
                .await
        };
        if !outcome.is_ok() {
            span.record("error.type", "tool_error");
        }
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let envelope = outcome.to_envelope();
        {
            let mut trace = self.run.trace.lock();
            // The trace holds the input schema's hash of every tool called (for replay to tell
            // a changed schema from a changed answer), also of one the dispatcher refused. Read
            // after the call, for the record only: the call is the dispatcher's.
            if let Some(tool) = self.dispatcher.registry().get(&call.tool) {
                trace
                    .schemas
                    .entry(tool.name().to_owned())
                    .or_insert_with(|| schema_hash(tool.input_schema()));
            }
            trace.calls.push(CallRecord {
                tool: call.tool.clone(),
                input: call.input.clone(),
                envelope,
                duration_ms,
                call_id: call.id.clone(),
                attempt,
                started_ms: Some(started_ms),
            });
        }
        let word = if outcome.is_ok() { "ok" } else { "failed" };
        (self.progress)(
            Progress::new("agent_team_handoff", count as f64)
                .message(format!("{}: {word}", call.tool)),
        );
        outcome
    }

    fn finish(self, end: RunEnd) -> RunState {
        let mut trace = self.run.trace.lock();
        let state = match end {
            RunEnd::Done(report) => {
                trace.report = Some(report.text);
                trace.artifact = report.artifact;
                RunState::Done
            }
            RunEnd::Errored { report, error } => {
                trace.report = Some(report);
                trace.error = Some(error);
                RunState::Errored
            }
            RunEnd::Blocked(reason) => {
                trace.report = Some(reason.clone());
                trace.error = Some(reason);
                RunState::Blocked
            }
            RunEnd::Cancelled => {
                trace.report = Some(format!(
                    "cancelled after {} tool calls; nothing was retried",
                    trace.calls.len()
                ));
                trace.error = Some("the run was cancelled".to_owned());
                RunState::Cancelled
            }
        };
        trace.status = state;
        trace.duration_ms = u64::try_from(self.run.elapsed().as_millis()).unwrap_or(u64::MAX);
        trace.tool_calls = trace.calls.len() as u64;
        state
    }
}
