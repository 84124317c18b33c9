//! `tools/call`: a call through the dispatcher, the way its plan says (`route.rs`: plain, a
//! task, a task's handle, refused, or deferred), in its span, and its answer as MCP has it.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, MetaObject,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use super::call_notes::{Notifier, level_of_code, log_level_of};
use super::era::{Client, Era};
use super::handler::Handler;
use super::http_sessions::SESSION_HEADER;
use super::input::{Live, Rounds};
use super::results::{call_result, server_meta};
use super::route::{CallPlan, Route};
use super::{handshake, tasks};
use buril_core::CallOptions;
use buril_core::ErrorKind;
use buril_core::Outcome;
use buril_core::Principal;
use buril_core::ToolRef;
use buril_core::context::{CancelToken, InputSource};

impl Handler {
    /// The plan of a `tools/call`: its route's, as its transport left it or the request says
    /// ([`Route::of_request`]).
    pub(super) fn plan_of(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallPlan {
        Route::of_request(&self.state, request, context).plan
    }

    /// `tools/call` answered the way `plan` says, in its span (see [`call_span`]), with
    /// `error.type` recorded from the answer.
    pub(super) async fn call_in_span(
        &self,
        plan: CallPlan,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        use tracing::Instrument;
        #[cfg(feature = "otel")]
        let metered = crate::telemetry::recording()
            .then(|| (std::time::Instant::now(), request.name.to_string()));
        let span = call_span(request.name.as_ref(), &context);
        // Arguments and results only when the host opted in: they may hold anything.
        let content = self.state.trace_content && !span.is_disabled();
        if content {
            let arguments = serde_json::to_string(&request.arguments).unwrap_or_default();
            span.record("gen_ai.tool.call.arguments", arguments);
        }
        // A client's trace context (`traceparent` in the request's `_meta`, else the
        // context's) is the span's parent.
        #[cfg(feature = "otel")]
        if !span.is_disabled() {
            match request.meta.as_ref().map(|meta| &meta.0.0) {
                Some(meta) if meta.contains_key("traceparent") => {
                    crate::telemetry::set_parent(&span, meta);
                }
                _ => crate::telemetry::set_parent(&span, &context.meta),
            }
        }
        // Boxed: the call's future is large (its rounds, notifier, the dispatcher's call), and
        // rmcp moves the handler's future by value as it runs it (into its task, through its own
        // futures): inline, each move copied the whole of it (server instructions a call, under
        // callgrind: 67,500 boxed, 161,700 unboxed). The rare branches (a call as a task, a
        // deferred task) are boxed where they are taken, so that they do not size every call's
        // future (84,700 before).
        let answer = Box::pin(self.follow(plan, request, context))
            .instrument(span.clone())
            .await;
        let error_type = match &answer {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                Some(std::borrow::Cow::Borrowed("tool_error"))
            }
            Err(error) => Some(std::borrow::Cow::Owned(error.code.0.to_string())),
            _ => None,
        };
        if let Some(error_type) = &error_type
            && !span.is_disabled()
        {
            span.record("error.type", error_type.as_ref());
        }
        if content && let Ok(CallToolResponse::Complete(result)) = &answer {
            let result = match &result.structured_content {
                Some(data) => data.to_string(),
                None => serde_json::to_string(&result.content).unwrap_or_default(),
            };
            span.record("gen_ai.tool.call.result", result);
        }
        #[cfg(feature = "otel")]
        if let Some((started, tool)) = metered {
            crate::telemetry::record_operation(
                "tools/call",
                Some(&tool),
                error_type.as_deref(),
                started.elapsed().as_secs_f64(),
            );
        }
        answer
    }

    /// The protocol error for a tool that does not exist or is disabled: the same for both,
    /// with suggestions among the tools this client may call only.
    fn unknown_tool(&self, name: &str, principal: Option<&Principal>) -> ErrorData {
        let suggestions = self
            .state
            .dispatcher
            .suggest_callable(name, None, principal);
        ErrorData::invalid_params(buril_core::frontend::unknown_tool(name, &suggestions), None)
    }

    /// A task tool's call as a task: admitted (a refused call answers at once, as any call
    /// does), stored, started. A client that follows tasks gets the `CreateTaskResult`; one
    /// that does not (a `handle` tool) gets the task's handle as the call's text.
    async fn as_task(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        follows: bool,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let input = request.arguments.map_or(Value::Null, Value::Object);
        let tasks = self.tasks()?;
        let start = tasks
            .prepare()
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let mut options = CallOptions::of_task(&start);
        let principal = super::auth::principal_of(context);
        options.principal = principal.clone();
        let (tool, call) = match self.state.dispatcher.admit_detached(name, input, options) {
            Ok(admitted) => admitted,
            Err(finished) => {
                let tool = self.admitted_or_unknown(
                    name,
                    finished.tool,
                    &finished.outcome,
                    principal.as_deref(),
                )?;
                return Ok(call_result(&self.state, &tool, finished.outcome).into());
            }
        };
        let owner = tasks::owner_of(context);
        let response = tasks::launch(&self.state, tasks, start, tool, call, owner).await?;
        match response {
            CallToolResponse::Task(created) if !follows => {
                let data = serde_json::json!({
                    "handle": created.task.task_id,
                    "status": "working",
                    "pollIntervalMs": created.task.poll_interval_ms,
                });
                let text = serde_json::to_string(&data).unwrap_or_default();
                let mut meta = server_meta(&self.state);
                meta.insert("buril/task".into(), data);
                Ok(CallToolResult::success(vec![ContentBlock::text(text)])
                    .with_meta(Some(MetaObject(meta)))
                    .into())
            }
            response => Ok(response),
        }
    }

    /// The tool a call was refused for, unless it is unknown or disabled: then the protocol
    /// error, the same for both.
    fn admitted_or_unknown(
        &self,
        name: &str,
        tool: Option<ToolRef>,
        outcome: &Outcome,
        principal: Option<&Principal>,
    ) -> Result<ToolRef, ErrorData> {
        match tool {
            Some(tool)
                if !matches!(
                    outcome.error_kind(),
                    Some(ErrorKind::NotFound | ErrorKind::Disabled)
                ) =>
            {
                Ok(tool)
            }
            _ => Err(self.unknown_tool(name, principal)),
        }
    }

    /// Answers a `tools/call` the way `plan` says. The rare plans are boxed where they are
    /// taken, so that they do not size every call's future.
    pub(super) async fn follow(
        &self,
        plan: CallPlan,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match plan {
            CallPlan::Plain => self.plain(request, context).await,
            CallPlan::Task => Box::pin(self.as_task(request, &context, true)).await,
            CallPlan::Handle => Box::pin(self.as_task(request, &context, false)).await,
            CallPlan::Refused => Err(tasks::tasks_required()),
            CallPlan::Deferred => Box::pin(self.deferred(request, context)).await,
        }
    }

    /// What a call that runs here needs, whatever its plan: who calls, the bindings' staleness,
    /// the way its questions reach the client (rounds under 2026-07-28, mid-call before), its
    /// progress and log notifications, and its options so far.
    fn prepare(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        cancel: &CancelToken,
    ) -> Result<Prepared, ErrorData> {
        let name = request.name.to_string();
        // The request's own `_meta` (where the SDKs put it), else the context's.
        let stale = handshake::stale_bindings(
            request.meta.as_ref().map(|meta| &meta.0.0),
            &context.meta,
            self.state.registry,
        );
        let input = request.arguments.map_or(Value::Null, Value::Object);
        let client = Client::of(context);
        let abilities = client.abilities;
        let principal = super::auth::principal_of(context);
        let rounds = match client.era {
            Some(Era::Stateless) => Some(Arc::new(Rounds::new(
                &self.state.request_states,
                &name,
                &input,
                principal.as_deref().map(super::auth::principal_key),
                request.request_state.as_deref(),
                request.input_responses,
                abilities,
            )?)),
            _ => None,
        };
        // The arguments the next round's state is sealed for: kept only when the tool could ask
        // something the client can answer (the dispatcher takes the input itself).
        let arguments = rounds
            .as_ref()
            .filter(|_| abilities.any())
            .map(|_| input.clone());
        // The request's own log level (2026-07-28), else the session's (`logging/setLevel`).
        #[allow(deprecated)]
        let log_level = context
            .meta
            .log_level()
            .map(log_level_of)
            .or_else(|| level_of_code(self.log_level.load(Ordering::Relaxed)));
        let notifier = Notifier::start(context, log_level);
        let mut options = CallOptions::new().cancel(cancel.clone());
        options.principal = principal.clone();
        options = match tasks::owner_of(context) {
            None => options.with_task_access(Arc::clone(&self.state.task_access)),
            owner => options.follow_tasks(self.state.tasks.clone(), owner),
        };
        let own_input: Arc<dyn InputSource> = match &rounds {
            Some(rounds) => Arc::clone(rounds) as Arc<dyn InputSource>,
            None => Arc::new(Live::new(context.peer.clone(), abilities)),
        };
        let progress = notifier
            .as_ref()
            .and_then(|notifier| notifier.progress.clone());
        if let Some(notifier) = &notifier
            && let Some(sink) = &notifier.log
        {
            options = options.log(sink.clone());
        }
        Ok(Prepared {
            name,
            input,
            options,
            own_input,
            progress,
            after: After {
                notifier,
                stale,
                rounds,
                arguments,
                principal,
            },
        })
    }

    /// A plain call: run now, answered when it ends. `notifications/cancelled` cancels the
    /// call's context; the call then answers (as cancelled, or with what the tool returned if
    /// it finished first).
    async fn plain(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let cancel = CancelToken::following(context.ct.clone());
        let Prepared {
            name,
            input,
            mut options,
            own_input,
            progress,
            after,
        } = self.prepare(request, &context, &cancel)?;
        options = options.input(own_input);
        if let Some(sink) = progress {
            options = options.progress(sink);
        }
        let call = self.state.dispatcher.run_async(&name, input, options);
        tokio::pin!(call);
        let finished = tokio::select! {
            biased;
            finished = &mut call => finished,
            _ = context.ct.cancelled() => {
                cancel.cancel();
                tracing::debug!(target: "buril::server", tool = name, "the client cancelled the call");
                call.await
            }
            // Polled only while the call runs (a quick call's first poll ends it first).
            () = self.state.stopped.cancelled() => {
                cancel.cancel();
                tracing::debug!(target: "buril::server", tool = name, "the server stopped the call");
                call.await
            }
        };
        self.settle(&name, after, finished).await
    }

    /// A deferred task tool's call from a client that follows tasks: a plain call whose
    /// questions and progress are the call's until the tool starts its task, the task's after,
    /// and whose cancellation is the task's.
    async fn deferred(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let start = self
            .state
            .tasks
            .prepare()
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let cancel = start.cancel_token().clone();
        let Prepared {
            name,
            input,
            mut options,
            own_input,
            progress,
            after,
        } = self.prepare(request, &context, &cancel)?;
        let switch = Arc::new(tasks::Switch::new(own_input, start.task_input()));
        let task_progress = start.progress();
        let now_task = Arc::clone(&switch);
        options = options
            .input(Arc::clone(&switch) as Arc<dyn InputSource>)
            .progress(Arc::new(move |report| {
                if now_task.is_started() {
                    task_progress(report);
                } else if let Some(sink) = &progress {
                    sink(report);
                }
            }));
        let became = Arc::new(tokio::sync::Notify::new());
        let starting = Arc::clone(&became);
        let options = options.deferred_task(Arc::new(move || {
            if switch.start() {
                starting.notify_one();
            }
            true
        }));
        match self
            .run_deferred(&name, input, options, start, became, &cancel, &context)
            .await
        {
            Ok(Ok(task)) => {
                after.notes_sent().await;
                Ok(task)
            }
            Ok(Err(finished)) => self.settle(&name, after, finished).await,
            Err(error) => {
                after.notes_sent().await;
                Err(error)
            }
        }
    }

    /// A call that ran here, answered once its notifications are sent.
    async fn settle(
        &self,
        name: &str,
        after: After,
        finished: buril_core::frontend::Finished,
    ) -> Result<CallToolResponse, ErrorData> {
        let After {
            notifier,
            stale,
            rounds,
            arguments,
            principal,
        } = after;
        if let Some(notifier) = notifier {
            notifier.finish().await;
        }
        self.answer(
            name,
            finished,
            rounds.as_deref(),
            arguments.as_ref(),
            stale,
            principal.as_deref(),
        )
    }

    /// A call's answer: the protocol error of an unknown or disabled tool (worded the same for
    /// both, so that a client cannot tell them apart), an `input_required` round when the tool
    /// asked what the client answers between rounds, else the call's result.
    fn answer(
        &self,
        name: &str,
        finished: buril_core::frontend::Finished,
        rounds: Option<&Rounds>,
        arguments: Option<&Value>,
        stale: Option<handshake::StaleBindings>,
        principal: Option<&Principal>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = match finished.tool {
            Some(tool) if finished.admitted => tool,
            tool => self.admitted_or_unknown(name, tool, &finished.outcome, principal)?,
        };
        if let Some(rounds) = rounds
            && !finished.outcome.is_ok()
        {
            if let Some(error) = rounds.missing_capability(tool.name()) {
                return Err(error);
            }
            if let Some(arguments) = arguments
                && let Some(asked) =
                    rounds.input_required(&self.state.request_states, tool.name(), arguments)
            {
                return Ok(CallToolResponse::InputRequired(asked));
            }
        }
        let mut outcome = finished.outcome;
        if let Some(stale) = stale {
            outcome = outcome.with_warning(stale.warning(self.state.registry, Some(&tool)));
        }
        Ok(call_result(&self.state, &tool, outcome).into())
    }

    /// A deferred task tool's call: run as a plain call until the tool calls
    /// `ctx.start_task()` (`became`), then stored as a task that the call goes on in; `Ok` the
    /// task's answer, `Err` the call, when it ended first.
    #[allow(clippy::too_many_arguments)]
    async fn run_deferred(
        &self,
        name: &str,
        input: Value,
        options: CallOptions,
        start: buril_core::tasks::TaskStart,
        became: Arc<tokio::sync::Notify>,
        cancel: &CancelToken,
        context: &RequestContext<RoleServer>,
    ) -> Result<Result<CallToolResponse, buril_core::frontend::Finished>, ErrorData> {
        let (tool, call) = match self.state.dispatcher.admit_detached(name, input, options) {
            Ok(admitted) => admitted,
            Err(finished) => return Ok(Err(finished)),
        };
        let mut running = tokio::spawn(call);
        let outcome = tokio::select! {
            biased;
            joined = &mut running => tasks::joined(joined),
            () = became.notified() => {
                let owner = tasks::owner_of(context);
                let call = async move { tasks::joined(running.await) };
                let task = tasks::launch(&self.state, &self.state.tasks, start, tool, call, owner).await?;
                return Ok(Ok(task));
            }
            () = context.ct.cancelled() => {
                cancel.cancel();
                tasks::joined(running.await)
            }
        };
        Ok(Err(buril_core::frontend::Finished::ran(tool, outcome)))
    }
}

/// What [`Handler::prepare`] makes of a call: what it runs with, and what answers it after.
struct Prepared {
    name: String,
    input: Value,
    options: CallOptions,
    own_input: Arc<dyn InputSource>,
    progress: Option<buril_core::context::ProgressSink>,
    after: After,
}

/// What a call's answer needs once it ran: its notifications to finish sending, the bindings'
/// staleness, its rounds (and the arguments the next one is sealed for), who called.
struct After {
    notifier: Option<Notifier>,
    stale: Option<handshake::StaleBindings>,
    rounds: Option<Arc<Rounds>>,
    arguments: Option<Value>,
    principal: Option<Arc<Principal>>,
}

impl After {
    /// Finishes sending the call's notifications, for a call answered otherwise (as a task).
    async fn notes_sent(self) {
        if let Some(notifier) = self.notifier {
            notifier.finish().await;
        }
    }
}

/// The span of a `tools/call`, as OpenTelemetry's semantic conventions for MCP name it
/// (`tools/call {tool}`, `otel.name`), with their attributes; `error.type` is recorded when the
/// answer is a tool's error (`tool_error`) or a JSON-RPC error (its code). Created disabled,
/// at no cost, when nothing listens at INFO for `buril::mcp`.
fn call_span(tool: &str, context: &RequestContext<RoleServer>) -> tracing::Span {
    if !tracing::enabled!(target: "buril::mcp", tracing::Level::INFO) {
        return tracing::Span::none();
    }
    // Every value known before the span is made, so that a subscriber formats its fields once
    // (a field recorded later is formatted again).
    let name = format!("tools/call {tool}");
    let version = context
        .protocol_version()
        .map(|version| version.to_string());
    let parts = context.extensions.get::<hyper::http::request::Parts>();
    let transport = if parts.is_some() { "tcp" } else { "pipe" };
    let session = parts
        .and_then(|parts| parts.headers.get(SESSION_HEADER))
        .and_then(|value| value.to_str().ok());
    tracing::info_span!(
        target: "buril::mcp",
        "tools/call",
        otel.name = name,
        otel.kind = "server",
        mcp.method.name = "tools/call",
        gen_ai.tool.name = tool,
        gen_ai.operation.name = "execute_tool",
        jsonrpc.request.id = %context.id,
        mcp.protocol.version = version,
        mcp.session.id = session,
        network.transport = transport,
        error.type = tracing::field::Empty,
        gen_ai.tool.call.arguments = tracing::field::Empty,
        gen_ai.tool.call.result = tracing::field::Empty,
    )
}
