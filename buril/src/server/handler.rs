//! The MCP handler: `tools/list` from the registry, `tools/call` through the dispatcher.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    GetSkillRequestMethod, GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult,
    Implementation, ListResourcesRequestMethod, ListResourcesResult, ListSkillsRequestMethod,
    ListSkillsResult, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestMethod, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SubscriptionFilter, UpdateTaskParams,
};
#[allow(deprecated)] // MCP's logging: deprecated by the 2026-07-28 revision, still spoken.
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};
use serde_json::Value;

use super::input::{Abilities, Live, ROUNDS_SINCE, Rounds};
use super::results::server_meta as meta_of;
use super::results::{call_result, server_meta};
use super::state::ServerState;
use super::{handshake, listing, tasks};
use crate::context::{
    CancelToken, InputSource, LogLevel, LogRecord, LogSink, Progress, ProgressSink,
};
use crate::descriptor::{TaskSupport, ToolDescriptor};
use crate::dispatch::CallOptions;
use crate::envelope::Outcome;
use crate::error::ErrorKind;

/// One handler per session; every handler of a server shares its state.
#[derive(Clone)]
pub(crate) struct Handler {
    state: Arc<ServerState>,
    /// Cancelled when the session's connection ends, which ends its subscriptions.
    ended: Option<CancelToken>,
    /// The least severe log level the session's client asked for (`logging/setLevel`), as
    /// [`level_code`] has it; 0 until it asks: no log messages are sent before.
    log_level: Arc<AtomicU8>,
}

impl Handler {
    pub fn new(state: Arc<ServerState>) -> Self {
        Handler {
            state,
            ended: None,
            log_level: Arc::new(AtomicU8::new(0)),
        }
    }

    /// Ends subscriptions when `ended` is cancelled.
    pub fn ending_with(mut self, ended: CancelToken) -> Self {
        self.ended = Some(ended);
        self
    }

    /// Completes when the subscription is cancelled or the connection ends.
    async fn until_done(&self, context: &SubscriptionContext) {
        match &self.ended {
            Some(ended) => tokio::select! {
                _ = context.cancelled() => {}
                _ = ended.cancelled() => {}
            },
            None => context.cancelled().await,
        }
    }

    /// The protocol error for a tool that does not exist or is disabled: the same for both,
    /// with suggestions among the tools this client may call only.
    fn unknown_tool(&self, name: &str) -> ErrorData {
        let suggestions = self.state.dispatcher.suggest_callable(name, None);
        ErrorData::invalid_params(crate::suggest::unknown_tool(name, &suggestions), None)
    }

    /// The server's tasks, when some tool is a task tool (else `tasks/*` are not served:
    /// rmcp answers them -32601 before they come here, as the extension is not declared).
    fn tasks(&self) -> Result<&crate::tasks::Tasks, ErrorData> {
        if self.state.task_tools {
            Ok(&self.state.tasks)
        } else {
            Err(ErrorData::internal_error(
                "this server runs no task tools",
                None,
            ))
        }
    }

    /// A task tool's call as a task: admitted (a refused call answers at once, as any call
    /// does), stored, started. A client that follows tasks gets the `CreateTaskResult`; one
    /// that does not (a `handle` tool) gets the task's handle as the call's text.
    async fn call_as_task(
        &self,
        name: &str,
        input: Value,
        context: &RequestContext<RoleServer>,
        follows: bool,
    ) -> Result<CallToolResponse, ErrorData> {
        let tasks = self.tasks()?;
        let start = tasks
            .prepare()
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let options = start.options();
        let (tool, call) = match self.state.dispatcher.admit_detached(name, input, options) {
            Ok(admitted) => admitted,
            Err(finished) => {
                let tool = self.admitted_or_unknown(name, finished.tool, &finished.outcome)?;
                return Ok(call_result(&self.state, tool, finished.outcome).into());
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
                let mut meta = meta_of(&self.state);
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
        tool: Option<&'static ToolDescriptor>,
        outcome: &Outcome,
    ) -> Result<&'static ToolDescriptor, ErrorData> {
        match tool {
            Some(tool)
                if !matches!(
                    outcome.error_kind(),
                    Some(ErrorKind::NotFound | ErrorKind::Disabled)
                ) =>
            {
                Ok(tool)
            }
            _ => Err(self.unknown_tool(name)),
        }
    }
}

impl Handler {
    /// `tools/call`, in its span.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();

        // The request's own `_meta` (where the SDKs put it), else the context's.
        let stale = handshake::stale_bindings(
            request.meta.as_ref().map(|meta| &meta.0.0),
            &context.meta,
            self.state.registry,
        );
        let input = request.arguments.map_or(Value::Null, Value::Object);
        // A task tool's call is a task where the client can follow one; elsewhere an optional
        // one waits, a required one is refused, and a `handle` one answers with the handle.
        let mut deferred = false;
        if let Some(found) = self.state.registry.lookup(name)
            && found.tool.meta().task.is_task()
        {
            let follows = tasks::client_follows_tasks(&context);
            match found.tool.meta().task {
                // A plain call until the tool says it is a task (below).
                TaskSupport::Deferred => deferred = follows,
                _ if follows => return self.call_as_task(name, input, &context, true).await,
                TaskSupport::Handle => {
                    return self.call_as_task(name, input, &context, false).await;
                }
                TaskSupport::Required if self.state.dispatcher.allows(found.tool) => {
                    return Err(tasks::tasks_required());
                }
                _ => {}
            }
        }
        // A deferred task tool's call: the task it may become, whose cancellation is the call's.
        let start = if deferred {
            Some(
                self.state
                    .tasks
                    .prepare()
                    .map_err(|error| ErrorData::internal_error(error.to_string(), None))?,
            )
        } else {
            None
        };
        let cancel = start
            .as_ref()
            .map_or_else(CancelToken::new, |start| start.cancel_token().clone());
        // Under 2026-07-28 a tool's questions end the call with an `input_required` result and
        // come back answered in the next round; before, they go to the client mid-call.
        let abilities = Abilities::of(context.client_capabilities().as_ref());
        let rounds = match context.protocol_version() {
            Some(version) if version.to_string().as_str() >= ROUNDS_SINCE => {
                Some(Arc::new(Rounds::new(
                    &self.state.request_states,
                    name,
                    &input,
                    request.request_state.as_deref(),
                    request.input_responses,
                    abilities,
                )?))
            }
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
        let notifier = Notifier::start(&context, log_level);
        let mut options = CallOptions::new().cancel(cancel.clone());
        options = match tasks::owner_of(&context) {
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
        if let Some(start) = start {
            // Its questions and progress are the call's until it becomes a task, the task's after.
            let switch = Arc::new(tasks::Switch::new(own_input, start.task_input()));
            let task_progress = start.task_progress();
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
            options.starter = Some(Arc::new(move || {
                if switch.start() {
                    starting.notify_one();
                }
                true
            }));
            options.task = true;
            let finished = match self
                .run_deferred(name, input, options, start, became, &cancel, &context)
                .await?
            {
                Ok(task) => {
                    if let Some(notifier) = notifier {
                        notifier.finish().await;
                    }
                    return Ok(task);
                }
                Err(finished) => finished,
            };
            if let Some(notifier) = notifier {
                notifier.finish().await;
            }
            return self.answer(name, finished, rounds.as_deref(), arguments.as_ref(), stale);
        }
        options = options.input(own_input);
        if let Some(sink) = progress {
            options = options.progress(sink);
        }
        let call = self.state.dispatcher.run_async(name, input, options);
        tokio::pin!(call);
        // `notifications/cancelled` cancels the call's context; the call then answers (as
        // cancelled, or with what the tool returned if it finished first).
        let finished = tokio::select! {
            biased;
            finished = &mut call => finished,
            _ = context.ct.cancelled() => {
                cancel.cancel();
                tracing::debug!(target: "buril::server", tool = name, "the client cancelled the call");
                call.await
            }
        };
        if let Some(notifier) = notifier {
            notifier.finish().await;
        }
        self.answer(name, finished, rounds.as_deref(), arguments.as_ref(), stale)
    }

    /// A call's answer: the protocol error of an unknown or disabled tool (worded the same for
    /// both, so that a client cannot tell them apart), an `input_required` round when the tool
    /// asked what the client answers between rounds, else the call's result.
    fn answer(
        &self,
        name: &str,
        finished: crate::dispatch::Finished,
        rounds: Option<&Rounds>,
        arguments: Option<&Value>,
        stale: Option<handshake::StaleBindings>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = match finished.tool {
            Some(tool) if finished.admitted => tool,
            tool => self.admitted_or_unknown(name, tool, &finished.outcome)?,
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
            outcome = outcome.with_warning(stale.warning(self.state.registry, Some(tool)));
        }
        Ok(call_result(&self.state, tool, outcome).into())
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
        start: crate::tasks::TaskStart,
        became: Arc<tokio::sync::Notify>,
        cancel: &CancelToken,
        context: &RequestContext<RoleServer>,
    ) -> Result<Result<CallToolResponse, crate::dispatch::Finished>, ErrorData> {
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
        Ok(Err(crate::dispatch::Finished::ran(tool, outcome)))
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        #[allow(deprecated)] // Logging, deprecated by the 2026-07-28 revision, still spoken.
        let mut capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        // The skills extension serves its files as resources, so it needs the base capability.
        if self.state.skills.is_some() {
            let skills = ServerCapabilities::builder()
                .enable_resources()
                .enable_skills()
                .build();
            capabilities.resources = skills.resources;
            capabilities.extensions = skills.extensions;
        }
        if self.state.task_tools {
            let tasks = ServerCapabilities::builder().enable_tasks().build();
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .extend(tasks.extensions.unwrap_or_default());
        }
        let mut config = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.state.name.clone(),
            self.state.version.clone(),
        ));
        // The tool metadata hash from the first answer on, so that a client knows whether its
        // bindings are current before it calls anything.
        config.meta = Some(MetaObject(server_meta(&self.state)));
        config
    }

    /// A tool's definition, which the Streamable HTTP transport checks a call's `Mcp-Param-*`
    /// headers against (`x-mcp-header`).
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.state.definition(name).cloned()
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        // Resources are the skills' files: without skills there are none to list, and the
        // capability is not declared.
        match &self.state.skills {
            Some(skills) => Ok(ListResourcesResult::with_all_items(skills.resources())),
            None => Err(ErrorData::method_not_found::<ListResourcesRequestMethod>()),
        }
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(skills) = &self.state.skills else {
            return Err(ErrorData::method_not_found::<ReadResourceRequestMethod>());
        };
        skills
            .read_resource(&request.uri)
            .map(Into::into)
            .ok_or_else(|| {
                let data = serde_json::json!({"uri": request.uri});
                ErrorData::resource_not_found(
                    format!(
                        "no resource has the URI `{}`; resources/list gives them",
                        request.uri
                    ),
                    Some(data),
                )
            })
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        match &self.state.skills {
            Some(skills) => Ok(skills.list_skills()),
            None => Err(ErrorData::method_not_found::<ListSkillsRequestMethod>()),
        }
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        match &self.state.skills {
            Some(skills) => skills.get_skill(&request.uri),
            None => Err(ErrorData::method_not_found::<GetSkillRequestMethod>()),
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|request| request.cursor);
        listing::page(&self.state, cursor.as_deref())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        use tracing::Instrument;
        let span = call_span(request.name.as_ref(), &context);
        let answer = self.call(request, context).instrument(span.clone()).await;
        if !span.is_disabled() {
            match &answer {
                Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                    span.record("error.type", "tool_error");
                }
                Err(error) => {
                    span.record("error.type", error.code.0.to_string());
                }
                _ => {}
            }
        }
        answer
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = log_level_of(request.level);
        self.log_level.store(level_code(level), Ordering::Relaxed);
        Ok(())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let owner = tasks::owner_of(&context);
        let record = self
            .tasks()?
            .get(&request.task_id, owner.as_deref())
            .await
            .map_err(tasks::error_of)?;
        Ok(tasks::detailed(&record))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = tasks::owner_of(&context);
        let responses = tasks::responses(request.input_responses);
        self.tasks()?
            .answer(&request.task_id, owner.as_deref(), &responses)
            .await
            .map_err(tasks::error_of)?;
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = tasks::owner_of(&context);
        self.tasks()?
            .cancel(&request.task_id, owner.as_deref())
            .await
            .map_err(tasks::error_of)?;
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.state.listeners.add_peer(context.peer);
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        if context.accepted().tools_list_changed != Some(true) {
            self.until_done(&context).await;
            return Ok(());
        }
        let id = self.state.listeners.add_sink(context.sink().clone());
        self.until_done(&context).await;
        self.state.listeners.remove_sink(id);
        Ok(())
    }
}

/// The span of a `tools/call`, as OpenTelemetry's semantic conventions for MCP name it
/// (`tools/call {tool}`, `otel.name`), with their attributes; `error.type` is recorded when the
/// answer is a tool's error (`tool_error`) or a JSON-RPC error (its code). Created disabled,
/// at no cost, when nothing listens at INFO for `buril::mcp`.
fn call_span(tool: &str, context: &RequestContext<RoleServer>) -> tracing::Span {
    let span = tracing::info_span!(
        target: "buril::mcp",
        "tools/call",
        otel.name = tracing::field::Empty,
        otel.kind = "server",
        mcp.method.name = "tools/call",
        gen_ai.tool.name = tool,
        gen_ai.operation.name = "execute_tool",
        jsonrpc.request.id = %context.id,
        mcp.protocol.version = tracing::field::Empty,
        mcp.session.id = tracing::field::Empty,
        network.transport = tracing::field::Empty,
        error.type = tracing::field::Empty,
    );
    if span.is_disabled() {
        return span;
    }
    span.record("otel.name", format!("tools/call {tool}"));
    if let Some(version) = context.protocol_version() {
        span.record("mcp.protocol.version", version.to_string());
    }
    let parts = context.extensions.get::<hyper::http::request::Parts>();
    span.record(
        "network.transport",
        if parts.is_some() { "tcp" } else { "pipe" },
    );
    if let Some(session) = parts
        .and_then(|parts| parts.headers.get("mcp-session-id"))
        .and_then(|value| value.to_str().ok())
    {
        span.record("mcp.session.id", session);
    }
    span
}

/// `level` as the session keeps it: 1 for `debug` up to 8 for `emergency` (0: none asked for).
fn level_code(level: LogLevel) -> u8 {
    LogLevel::ALL
        .iter()
        .position(|l| *l == level)
        .map_or(0, |at| at as u8 + 1)
}

fn level_of_code(code: u8) -> Option<LogLevel> {
    code.checked_sub(1)
        .and_then(|at| LogLevel::ALL.get(usize::from(at)).copied())
}

#[allow(deprecated)]
fn log_level_of(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

#[allow(deprecated)]
fn logging_level_of(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// What a running call tells its client, in the order the tool said it.
enum Note {
    Progress(Progress),
    Log(LogRecord),
}

/// The least time between two progress notifications of one call: a tool may report on every
/// item (`asset_search` reports every file, thousands in one call), and the spec asks senders
/// not to flood; some clients drop what comes too fast.
pub(crate) const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);

/// Forwards a call's progress reports (as `notifications/progress`, to a client that sent a
/// progress token) and its log messages (as `notifications/message`, at or above the level the
/// client asked for; none when it asked for none), in order, from one task.
///
/// Progress is rate-limited: at most one notification per [`PROGRESS_INTERVAL`]; a report that
/// comes sooner waits, replaced by any later one (the newest wins), and goes out when the
/// interval has passed. A report waiting when a log message comes goes out first, and the last
/// report always goes out before the call's response. Log messages are never dropped.
struct Notifier {
    progress: Option<ProgressSink>,
    log: Option<LogSink>,
    done: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Notifier {
    fn start(context: &RequestContext<RoleServer>, log_level: Option<LogLevel>) -> Option<Self> {
        let token = context.meta.get_progress_token();
        if token.is_none() && log_level.is_none() {
            return None;
        }
        let peer = context.peer.clone();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Note>();
        let (done, mut finished) = tokio::sync::oneshot::channel::<()>();
        let progress_token = token.clone();
        let task = tokio::spawn(async move {
            let send = |note: Note| {
                let peer = peer.clone();
                let token = progress_token.clone();
                async move {
                    match note {
                        Note::Progress(report) => {
                            let Some(token) = token else { return };
                            let mut param = ProgressNotificationParam::new(token, report.progress);
                            if let Some(total) = report.total {
                                param = param.with_total(total);
                            }
                            if let Some(message) = report.message {
                                param = param.with_message(message);
                            }
                            let _ = peer.notify_progress(param).await;
                        }
                        Note::Log(record) => {
                            #[allow(deprecated)]
                            let param = LoggingMessageNotificationParam::new(
                                logging_level_of(record.level),
                                record.data,
                            )
                            .with_logger(record.tool);
                            #[allow(deprecated)]
                            let _ = peer.notify_logging_message(param).await;
                        }
                    }
                }
            };
            // The progress report waiting for the interval to pass, and when it may go.
            let mut waiting: Option<Progress> = None;
            let mut next = tokio::time::Instant::now();
            loop {
                tokio::select! {
                    biased;
                    note = rx.recv() => match note {
                        Some(Note::Progress(report)) => {
                            let now = tokio::time::Instant::now();
                            if waiting.is_none() && now >= next {
                                send(Note::Progress(report)).await;
                                next = now + PROGRESS_INTERVAL;
                            } else {
                                waiting = Some(report);
                            }
                        }
                        Some(log) => {
                            if let Some(report) = waiting.take() {
                                send(Note::Progress(report)).await;
                                next = tokio::time::Instant::now() + PROGRESS_INTERVAL;
                            }
                            send(log).await;
                        }
                        None => break,
                    },
                    _ = tokio::time::sleep_until(next), if waiting.is_some() => {
                        if let Some(report) = waiting.take() {
                            send(Note::Progress(report)).await;
                        }
                        next = tokio::time::Instant::now() + PROGRESS_INTERVAL;
                    }
                    _ = &mut finished => break,
                }
            }
            // The call has ended: what is queued goes now, the newest report last.
            while let Ok(note) = rx.try_recv() {
                match note {
                    Note::Progress(report) => waiting = Some(report),
                    log => {
                        if let Some(report) = waiting.take() {
                            send(Note::Progress(report)).await;
                        }
                        send(log).await;
                    }
                }
            }
            if let Some(report) = waiting {
                send(Note::Progress(report)).await;
            }
        });
        let progress: Option<ProgressSink> = token.is_some().then(|| {
            let tx = tx.clone();
            Arc::new(move |report| {
                let _ = tx.send(Note::Progress(report));
            }) as ProgressSink
        });
        let log: Option<LogSink> = log_level.map(|least| {
            Arc::new(move |record: LogRecord| {
                if record.level >= least {
                    let _ = tx.send(Note::Log(record));
                }
            }) as LogSink
        });
        Some(Notifier {
            progress,
            log,
            done,
            task,
        })
    }

    /// Sends what is queued, then stops: nothing about the call after its response.
    async fn finish(self) {
        let _ = self.done.send(());
        let _ = self.task.await;
    }
}
