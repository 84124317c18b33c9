//! What a caller may say about one call.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::context::{CallerTasks, CancelToken, InputSource, LogSink, ProgressSink};
use crate::pattern::ToolView;
use crate::principal::Principal;
use crate::tasks::{TaskAccess, TaskStart, Tasks};

/// Per-call settings for [`Dispatcher::invoke`] and [`Dispatcher::invoke_async`].
///
/// ```
/// use std::time::Duration;
///
/// let cancel = buril::CancelToken::new();
/// let options = buril::CallOptions::new()
///     .timeout(Duration::from_secs(5))
///     .cancel(cancel.clone());
/// assert_eq!(options.timeout, Some(Duration::from_secs(5)));
/// ```
///
/// [`Dispatcher::invoke`]: crate::Dispatcher::invoke
/// [`Dispatcher::invoke_async`]: crate::Dispatcher::invoke_async
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Overrides the tool's timeout for this call.
    pub timeout: Option<Duration>,
    /// Cancels the call when cancelled; the tool sees it through its context.
    pub cancel: Option<CancelToken>,
    /// Receives the tool's progress reports.
    pub progress: Option<ProgressSink>,
    /// Receives the tool's log messages (without one they go to `tracing`).
    pub log: Option<LogSink>,
    /// Restricts the call to the tools of a view (an agent's); outside it the call answers
    /// `disabled`.
    pub view: Option<Arc<ToolView>>,
    /// Answers the tool's requests for input (`Context::elicit`, `sample`, `roots`); without
    /// one they fail, saying nobody can answer.
    pub input: Option<Arc<dyn InputSource>>,
    /// Who calls, as the front end authorized them: the layers and the tool
    /// ([`Context::principal`](crate::Context::principal)) see it.
    pub principal: Option<Arc<Principal>>,
    /// The call runs as a task: only a timeout set for its tool bounds it (a task's work is
    /// longer than a call's default timeout was made for).
    pub(crate) task: bool,
    /// The caller's tasks, for the `task_*` tools.
    pub(crate) tasks: Option<Arc<dyn CallerTasks>>,
    /// Turns the call into a task (`Context::start_task`).
    pub(crate) starter: Option<crate::context::TaskStarter>,
}

impl CallOptions {
    /// No per-call settings: the dispatcher's timeout, nobody cancelling, no progress, every
    /// tool the policy allows.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// Sets the call's timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the token that cancels the call.
    pub fn cancel(mut self, token: CancelToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Sets who receives the tool's progress reports.
    pub fn progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Sets who receives the tool's log messages (`Context::log`).
    pub fn log(mut self, sink: LogSink) -> Self {
        self.log = Some(sink);
        self
    }

    /// Sets who answers the tool's requests for input.
    pub fn input(mut self, source: Arc<dyn InputSource>) -> Self {
        self.input = Some(source);
        self
    }

    /// Sets who calls.
    pub fn principal(mut self, principal: impl Into<Arc<Principal>>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Restricts the call to the tools of `view`.
    pub fn view(mut self, view: Arc<ToolView>) -> Self {
        self.view = Some(view);
        self
    }

    /// The options of a call that runs as the task `start`: the task's cancellation, its
    /// questions' way to whoever follows the task, and its progress, which the task keeps.
    /// Add the rest (a view, a log sink, who calls) to them, then
    /// [`launch`](crate::tasks::Tasks::launch) the task with the call.
    pub fn of_task(start: &TaskStart) -> Self {
        let mut options = CallOptions::new()
            .cancel(start.cancel_token().clone())
            .input(start.task_input())
            .progress(start.progress());
        options.task = true;
        options
    }

    /// Lets the call's tools reach `tasks` as `owner` (the session or principal calling): what
    /// the `task_*` tools read. The MCP server and the command line give every call theirs.
    pub fn follow_tasks(self, tasks: Tasks, owner: Option<String>) -> Self {
        self.with_task_access(Arc::new(TaskAccess::new(tasks, owner)))
    }

    /// [`follow_tasks`](Self::follow_tasks) with an access made once, so that a front end
    /// giving every call the same one allocates nothing per call.
    #[doc(hidden)]
    pub fn with_task_access(mut self, access: Arc<dyn CallerTasks>) -> Self {
        self.tasks = Some(access);
        self
    }

    /// A call that may become a task while it runs (`#[tool(task = "deferred")]`): `start`
    /// turns it into one when the tool calls `Context::start_task` (answering whether it
    /// did), and from then on only its tool's own timeout bounds it. What a front end that
    /// follows tasks gives such a call.
    #[doc(hidden)]
    pub fn deferred_task(mut self, start: Arc<dyn Fn() -> bool + Send + Sync>) -> Self {
        self.starter = Some(start);
        self.task = true;
        self
    }
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("view", &self.view)
            .field("input", &self.input.is_some())
            .field("principal", &self.principal)
            .finish()
    }
}
