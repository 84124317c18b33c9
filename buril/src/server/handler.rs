//! The MCP handler: `tools/list` from the registry, `tools/call` through the dispatcher.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig,
    SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};
use serde_json::Value;

use super::listing;
use super::results::call_result;
use super::state::Shared;
use crate::context::{CancelToken, Progress, ProgressSink};
use crate::dispatch::CallOptions;

/// One handler per session; every handler of a server shares its state.
#[derive(Clone)]
pub(crate) struct Handler {
    shared: Arc<Shared>,
    /// Cancelled when the session's connection ends, which ends its subscriptions.
    ended: Option<CancelToken>,
}

impl Handler {
    pub fn new(shared: Arc<Shared>) -> Self {
        Handler {
            shared,
            ended: None,
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
    /// with suggestions among the enabled tools only.
    fn unknown_tool(&self, name: &str) -> ErrorData {
        let enabled = self.shared.enabled_tools();
        let suggestions = crate::suggest::similar(name, enabled.iter().copied());
        let mut message = format!("unknown tool `{name}`");
        if let Some(best) = suggestions.first() {
            message.push_str(&format!("; did you mean `{best}`?"));
        } else {
            message.push_str("; list the tools to see what exists");
        }
        ErrorData::invalid_params(message, None)
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.shared.name.clone(),
            self.shared.version.clone(),
        ))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|request| request.cursor);
        listing::page(&self.shared, cursor.as_deref())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let tool = match self.shared.registry.get(name) {
            Some(tool) if self.shared.is_enabled(tool) => tool,
            _ => return Err(self.unknown_tool(name)),
        };
        let input = request.arguments.map_or(Value::Null, Value::Object);
        let cancel = CancelToken::new();
        let progress = ProgressForwarder::start(&context);
        let options = CallOptions {
            timeout: Some(self.shared.timeout_for(tool)),
            cancel: Some(cancel.clone()),
            progress: progress.as_ref().map(|p| p.sink.clone()),
            ..CallOptions::default()
        };
        let call = self.shared.dispatcher.invoke_async(name, input, options);
        tokio::pin!(call);
        // `notifications/cancelled` cancels the call's context; the call then answers (as
        // cancelled, or with what the tool returned if it finished first).
        let outcome = tokio::select! {
            biased;
            outcome = &mut call => outcome,
            _ = context.ct.cancelled() => {
                cancel.cancel();
                call.await
            }
        };
        if let Some(progress) = progress {
            progress.finish().await;
        }
        Ok(call_result(&self.shared, tool.name(), outcome).into())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.shared.listeners.add_peer(context.peer);
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
        let id = self.shared.listeners.add_sink(context.sink().clone());
        self.until_done(&context).await;
        self.shared.listeners.remove_sink(id);
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
