//! The MCP handler: what the server answers, method by method (`tools/list` from the registry,
//! `tools/call` in `call.rs`, the tasks extension over `tasks.rs`, skills, logging levels).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock, Weak};

#[allow(deprecated)] // MCP's logging: deprecated by the 2026-07-28 revision, still spoken.
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, GetSkillRequestMethod,
    GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult, Implementation,
    ListResourcesRequestMethod, ListResourcesResult, ListSkillsRequestMethod, ListSkillsResult,
    ListToolsResult, MetaObject, PaginatedRequestParams, ReadResourceRequestMethod,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscriptionFilter, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};

use super::call_notes::{level_code, log_level_of};
use super::era::Era;
use super::http_sessions::StdioSession;
use super::results::server_meta;
use super::state::ServerState;
use super::{apps, listing, tasks};
use buril_core::context::CancelToken;

/// One handler per session; every handler of a server shares its state.
#[derive(Clone)]
pub(crate) struct Handler {
    pub(super) state: Arc<ServerState>,
    /// Cancelled when the session's connection ends, which ends its subscriptions.
    ended: Option<CancelToken>,
    /// The least severe log level the session's client asked for (`logging/setLevel`), as
    /// `call_notes::level_code` has it; 0 until it asks: no log messages are sent before.
    pub(super) log_level: Arc<AtomicU8>,
    /// A stdio session's record of its client, filled at `notifications/initialized`, whose
    /// plain calls the transport then answers itself (`fast_path/`).
    stdio: Option<Arc<StdioSession>>,
    /// The session's places in the server's tables (of HTTP sessions, `http_sessions.rs`; of
    /// those told when the tools change, `notify.rs`), taken at `notifications/initialized` and
    /// given back when the session's last handler is dropped (the session ended: closed by its
    /// client, or expired).
    leave: Arc<OnceLock<Leave>>,
}

impl Handler {
    pub fn new(state: Arc<ServerState>) -> Self {
        Handler::of_session(state, Arc::new(AtomicU8::new(0)))
    }

    /// A handler of the session whose log level is `log_level` (for a call answered outside
    /// the session's own service loop: `fast_path/`).
    pub fn of_session(state: Arc<ServerState>, log_level: Arc<AtomicU8>) -> Self {
        Handler {
            state,
            ended: None,
            log_level,
            stdio: None,
            leave: Arc::default(),
        }
    }

    /// Records the client in `session` when it finishes `initialize` (a stdio session).
    pub fn recording_in(mut self, session: Arc<StdioSession>) -> Self {
        self.stdio = Some(session);
        self
    }

    /// Records a stdio client of the stateless lifecycle (2026-07-28) at the first request
    /// that shows it, so that the transport answers its plain calls (`fast_path/`).
    fn note_stateless(&self, context: &RequestContext<RoleServer>) {
        if let Some(stdio) = &self.stdio
            && !stdio.is_decided()
            && context.peer.peer_info().is_none()
            && context
                .meta
                .protocol_version()
                .is_some_and(|version| Era::of(&version) == Era::Stateless)
        {
            stdio.set_stateless(&self.log_level, &context.peer);
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

    /// The server's tasks, when some tool is a task tool (else `tasks/*` are not served:
    /// rmcp answers them -32601 before they come here, as the extension is not declared).
    pub(super) fn tasks(&self) -> Result<&buril_core::tasks::Tasks, ErrorData> {
        if self.state.task_tools {
            Ok(&self.state.tasks)
        } else {
            Err(ErrorData::internal_error(
                "this server runs no task tools",
                None,
            ))
        }
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
        // The apps' documents are resources too.
        if self.state.app_tools {
            if capabilities.resources.is_none() {
                capabilities.resources = ServerCapabilities::builder()
                    .enable_resources()
                    .build()
                    .resources;
            }
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(buril_core::ToolUi::EXTENSION.to_owned(), Default::default());
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
        self.state.definition(name)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        // Resources are the skills' files and the apps' documents (for a client that shows
        // apps): without either there are none to list, and the capability is not declared.
        if self.state.skills.is_none() && !self.state.app_tools {
            return Err(ErrorData::method_not_found::<ListResourcesRequestMethod>());
        }
        let mut resources = self
            .state
            .skills
            .as_ref()
            .map(|skills| skills.resources())
            .unwrap_or_default();
        if self.state.app_tools && apps::client_shows_apps(&context) {
            resources.extend(apps::resources(&self.state));
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if self.state.skills.is_none() && !self.state.app_tools {
            return Err(ErrorData::method_not_found::<ReadResourceRequestMethod>());
        }
        if let Some(app) = apps::read(&self.state, &request.uri) {
            return Ok(app.into());
        }
        self.state
            .skills
            .as_ref()
            .and_then(|skills| skills.read_resource(&request.uri))
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.note_stateless(&context);
        let cursor = request.and_then(|request| request.cursor);
        let principal = super::auth::principal_of(&context);
        let apps = self.state.app_tools && apps::client_shows_apps(&context);
        listing::page(&self.state, cursor.as_deref(), principal.as_deref(), apps)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.note_stateless(&context);
        let plan = self.plan_of(&request, &context);
        self.call_in_span(plan, request, context).await
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
        let session = self.state.http_sessions.add(&self.log_level, &context);
        if let Some(stdio) = &self.stdio {
            stdio.set(&self.log_level, &context);
        }
        let listener = self.state.listeners.add_peer(context.peer);
        let _ = self.leave.set(Leave {
            state: Arc::downgrade(&self.state),
            session,
            listener,
        });
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

/// A session's places in its server's tables (its HTTP session, its place among those told
/// when the tools change), given back when dropped: held by the session's
/// handlers, which the SDK drops when the session ends (closed by its client with `DELETE`, or
/// expired after its idle time), so that an ended session does not linger until the next one
/// comes.
pub(crate) struct Leave {
    state: Weak<ServerState>,
    /// Its id in the table of HTTP sessions, if it has a place there.
    session: Option<Box<str>>,
    /// Its place among those told when the tools change.
    listener: u64,
}

impl Drop for Leave {
    fn drop(&mut self) {
        if let Some(state) = self.state.upgrade() {
            if let Some(id) = &self.session {
                state.http_sessions.remove(id);
            }
            state.listeners.remove_peer(self.listener);
        }
        super::trim::ended();
    }
}
