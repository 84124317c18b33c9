//! The MCP handler: `tools/list` from the registry, `tools/call` through the dispatcher.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, MetaObject,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig,
    SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};
use serde_json::Value;

use super::results::{call_result, server_meta};
use super::state::ServerState;
use super::{handshake, listing};
use crate::context::{CancelToken, Progress, ProgressSink};
use crate::dispatch::CallOptions;
use crate::error::ErrorKind;

/// One handler per session; every handler of a server shares its state.
#[derive(Clone)]
pub(crate) struct Handler {
    state: Arc<ServerState>,
    /// Cancelled when the session's connection ends, which ends its subscriptions.
    ended: Option<CancelToken>,
}

impl Handler {
    pub fn new(state: Arc<ServerState>) -> Self {
        Handler { state, ended: None }
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
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let mut config = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.state.name.clone(),
            self.state.version.clone(),
        ));
        // The tool metadata hash from the first answer on, so that a client knows whether its
        // bindings are current before it calls anything.
        config.meta = Some(MetaObject(server_meta(&self.state)));
        config
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
        let name = request.name.as_ref();
        // The request's own `_meta` (where the SDKs put it), else the context's.
        let stale = handshake::stale_bindings(
            request.meta.as_ref().map(|meta| &meta.0.0),
            &context.meta,
            self.state.registry,
        );
        let input = request.arguments.map_or(Value::Null, Value::Object);
        let cancel = CancelToken::new();
        let progress = ProgressForwarder::start(&context);
        let mut options = CallOptions::new().cancel(cancel.clone());
        if let Some(progress) = &progress {
            options = options.progress(progress.sink.clone());
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
                call.await
            }
        };
        if let Some(progress) = progress {
            progress.finish().await;
        }
        // A tool that is unknown or disabled is a protocol error, worded the same for both, so
        // that a client cannot tell a disabled tool from a missing one.
        let tool = match finished.tool {
            Some(tool)
                if finished.admitted
                    || !matches!(
                        finished.outcome.error_kind(),
                        Some(ErrorKind::NotFound | ErrorKind::Disabled)
                    ) =>
            {
                tool
            }
            _ => return Err(self.unknown_tool(name)),
        };
        let mut outcome = finished.outcome;
        if let Some(stale) = stale {
            outcome = outcome.with_warning(stale.warning(self.state.registry, Some(tool)));
        }
        Ok(call_result(&self.state, tool.name(), outcome).into())
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

/// Forwards a call's progress reports, in order, as `notifications/progress` to a client that
/// sent a progress token.
struct ProgressForwarder {
    sink: ProgressSink,
    done: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl ProgressForwarder {
    fn start(context: &RequestContext<RoleServer>) -> Option<Self> {
        let token = context.meta.get_progress_token()?;
        let peer = context.peer.clone();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
        let (done, mut finished) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let send = |report: Progress| {
                let mut param = ProgressNotificationParam::new(token.clone(), report.progress);
                if let Some(total) = report.total {
                    param = param.with_total(total);
                }
                if let Some(message) = report.message {
                    param = param.with_message(message);
                }
                let peer = peer.clone();
                async move {
                    let _ = peer.notify_progress(param).await;
                }
            };
            loop {
                tokio::select! {
                    biased;
                    report = rx.recv() => match report {
                        Some(report) => send(report).await,
                        None => return,
                    },
                    _ = &mut finished => break,
                }
            }
            while let Ok(report) = rx.try_recv() {
                send(report).await;
            }
        });
        let sink: ProgressSink = Arc::new(move |report| {
            let _ = tx.send(report);
        });
        Some(ProgressForwarder { sink, done, task })
    }

    /// Sends what is queued, then stops: no progress after the response.
    async fn finish(self) {
        let _ = self.done.send(());
        let _ = self.task.await;
    }
}
