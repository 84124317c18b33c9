//! One run: ask the model, run its calls through the dispatcher with the handoff's view and
//! the job's cancellation, record everything, until a report or a failure.

use std::sync::Arc;
use std::time::{Duration, Instant};

use buril::{
    CallOptions, Dispatcher, ErrorKind, JobContext, JobOutcome, JobStatus, Outcome, ToolView,
};
use serde_json::{Value, json};

use crate::model::{Model, ModelReply, ModelRequest, Report, ToolCall, Turn};
use crate::trace::{CallRecord, LiveTrace, schema_hash};

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

/// A handoff's run, as its job runs it.
pub(crate) struct Runner {
    pub(crate) job: JobContext,
    /// Every call goes through it, with the view and the job's cancellation.
    pub(crate) dispatcher: Dispatcher,
    pub(crate) model: Arc<dyn Model>,
    /// What the model is asked; its history grows with every call.
    pub(crate) request: ModelRequest,
    pub(crate) view: Arc<ToolView>,
    /// The run's trace, which the team reads and records while the run goes.
    pub(crate) trace: Arc<LiveTrace>,
    pub(crate) max_steps: usize,
    /// The timeout of each call, instead of the dispatcher's; `None` leaves it to the
    /// dispatcher.
    pub(crate) call_timeout: Option<Duration>,
}

impl Runner {
    pub(crate) async fn run(mut self) -> JobOutcome {
        let end = self.steps().await;
        self.finish(end)
    }

    async fn steps(&mut self) -> RunEnd {
        for _ in 0..self.max_steps {
            if self.job.is_cancelled() {
                return RunEnd::Cancelled;
            }
            let reply = {
                let answer = self.model.complete(&self.request);
                tokio::select! {
                    reply = answer => reply,
                    _ = self.job.cancelled() => return RunEnd::Cancelled,
                }
            };
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
            if self.job.is_cancelled() {
                return CallResult::RunEnds(RunEnd::Cancelled);
            }
            let outcome = self.call(call, attempt).await;
            let Some(error) = outcome.error() else {
                return CallResult::Answered(outcome.into_envelope());
            };
            match error.kind() {
                _ if self.job.is_cancelled() => return CallResult::RunEnds(RunEnd::Cancelled),
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
        self.job.count_tool_call();
        let started = Instant::now();
        let mut options = CallOptions::new()
            .cancel(self.job.cancel_token().clone())
            .view(Arc::clone(&self.view));
        options.timeout = self.call_timeout;
        if let Some(source) = self.model.input_source() {
            options = options.input(source);
        }
        let outcome = self
            .dispatcher
            .invoke_async(&call.tool, call.input.clone(), options)
            .await;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let envelope = outcome.to_envelope();
        let summary = json!({
            "tool": call.tool,
            "ok": outcome.is_ok(),
            "attempt": attempt,
        });
        {
            let mut trace = self.trace.lock();
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
            });
        }
        self.job.update_partial(|partial| {
            if !partial.is_object() {
                *partial = json!({"calls": []});
            }
            if let Some(Value::Array(calls)) = partial.get_mut("calls") {
                calls.push(summary);
            }
        });
        outcome
    }

    fn finish(self, end: RunEnd) -> JobOutcome {
        let mut trace = self.trace.lock();
        let outcome = match end {
            RunEnd::Done(report) => {
                trace.report = Some(report.text.clone());
                trace.artifact = report.artifact.clone();
                JobOutcome::done(json!({"report": report.text, "artifact": report.artifact}))
            }
            RunEnd::Errored { report, error } => {
                trace.report = Some(report.clone());
                trace.error = Some(error.clone());
                JobOutcome::errored(error).with_output(json!({"report": report}))
            }
            RunEnd::Blocked(reason) => {
                trace.report = Some(reason.clone());
                trace.error = Some(reason.clone());
                JobOutcome::blocked(reason.clone()).with_output(json!({"report": reason}))
            }
            RunEnd::Cancelled => {
                let report = format!(
                    "cancelled after {} tool calls; nothing was retried",
                    trace.calls.len()
                );
                trace.report = Some(report.clone());
                trace.error = Some("the run was cancelled".to_owned());
                JobOutcome::cancelled().with_output(json!({"report": report}))
            }
        };
        trace.status = match outcome.status {
            JobStatus::Running => JobStatus::Done,
            status => status,
        };
        trace.duration_ms = u64::try_from(self.job.elapsed().as_millis()).unwrap_or(u64::MAX);
        trace.tool_calls = trace.calls.len() as u64;
        outcome
    }
}
