//! The context a tool can ask for: cancellation, progress reporting, logging and typed host
//! state.

mod ask;
mod cancel;
mod env;
mod log;
mod progress;
mod state;
pub(crate) mod tasks;

use std::any::type_name;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

pub(crate) use ask::block_here;
pub use ask::{Asked, Elicited, InputKind, InputRequest, Root, Sampled, Sampling};
pub use cancel::CancelToken;
pub(crate) use env::{Env, EnvRef};
pub use log::{LogLevel, LogRecord, LogSink};
pub use progress::{Progress, ProgressSink};
pub use state::State;
pub(crate) use tasks::CallerTasks;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::principal::Principal;

/// Who answers a tool's requests for input: the front end that called it
/// ([`CallOptions::input`](crate::CallOptions::input)).
pub trait InputSource: Send + Sync {
    /// Whether requests of `kind` can be answered at all.
    fn supports(&self, kind: InputKind) -> bool;

    /// Answers `request`, asked under `key` (unique within the call, and the same key each time
    /// the call runs again). May block until the answer comes; should give up when `ctx` is
    /// cancelled.
    fn ask(&self, ctx: &Context, key: &str, request: &InputRequest) -> Asked;

    /// Answers several requests asked together ([`Context::ask_all`]), in order. The default
    /// asks them one after another; a source where several questions can be pending at once
    /// (a task's) posts them all before it waits.
    fn ask_many(&self, ctx: &Context, requests: &[(&str, &InputRequest)]) -> Vec<Asked> {
        requests
            .iter()
            .map(|(key, request)| self.ask(ctx, key, request))
            .collect()
    }

    /// Why requests of `kind` cannot be answered, for the tool's error. Default: the caller did
    /// not declare the capability.
    fn why_not(&self, kind: InputKind) -> String {
        format!(
            "the caller did not declare the `{}` capability",
            kind.capability()
        )
    }

    /// Told when the tool asked for input of a `kind` this source does not support (the tool
    /// then fails, saying so); a front end may answer the call differently (MCP 2026-07-28:
    /// a `MissingRequiredClientCapability` error).
    fn lacked(&self, kind: InputKind) {
        let _ = kind;
    }
}

impl fmt::Debug for dyn InputSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InputSource")
    }
}

/// Handed to a tool that declares a `&buril::Context` parameter. The parameter never appears
/// in the tool's schema.
///
/// ```
/// /// Counts to `to`, reporting progress and stopping early when cancelled.
/// #[buril::tool(off_thread)]
/// fn demo_count(
///     /// Where to stop counting.
///     to: u32,
///     ctx: &buril::Context,
/// ) -> Result<u32, buril::ToolError> {
///     for i in 0..to {
///         ctx.check_cancelled()?;
///         ctx.report_progress(f64::from(i), Some(f64::from(to)), None);
///     }
///     Ok(to)
/// }
/// # fn main() {}
/// ```
pub struct Context {
    // Held inline, not behind an `Arc`: a context is made for every call and rarely cloned, so
    // a clone's few reference counts cost less than an allocation per call.
    inner: Inner,
}

#[derive(Clone)]
struct Inner {
    tool: &'static str,
    /// Made on first use when nobody but the tool itself can cancel the call (no caller's
    /// token, no deadline, run on the caller's thread): most calls never need one.
    cancel: OnceLock<CancelToken>,
    deadline: Option<Instant>,
    progress: Option<ProgressSink>,
    log: Option<LogSink>,
    /// Who answers the tool's requests for input, and how many it made (their default keys).
    input: Option<(Arc<dyn InputSource>, Arc<AtomicUsize>)>,
    /// The dispatcher's host state and a handle to it, shared by all its calls.
    env: EnvRef,
    /// The call runs as a task.
    task: bool,
    /// The tasks of the front end that called (for the `task_*` tools).
    tasks: Option<Arc<dyn CallerTasks>>,
    /// Turns the call into a task (`task = "deferred"` tools, a caller that follows tasks).
    starter: Option<TaskStarter>,
    /// Who calls, as the front end authorized them.
    principal: Option<Arc<Principal>>,
    /// What the layers around the call hold for as long as the tool runs (permits): never
    /// read, dropped with the last clone of the context.
    #[allow(dead_code)]
    held: Option<Arc<Held>>,
}

/// What a call's context is made of, filled in at once by admission (a context built up by
/// value, a field at a time, was copied whole at each step: a fifth of what the dispatcher
/// spent copying per call).
pub(crate) struct Parts {
    pub(crate) tool: &'static str,
    /// The call's own token, when someone but the tool can cancel it.
    pub(crate) cancel: Option<CancelToken>,
    pub(crate) deadline: Option<Instant>,
    pub(crate) progress: Option<ProgressSink>,
    pub(crate) log: Option<LogSink>,
    pub(crate) input: Option<Arc<dyn InputSource>>,
    pub(crate) env: EnvRef,
    /// The call runs as a task.
    pub(crate) task: bool,
    /// The caller's tasks.
    pub(crate) tasks: Option<Arc<dyn CallerTasks>>,
    pub(crate) starter: Option<TaskStarter>,
    pub(crate) principal: Option<Arc<Principal>>,
    /// What the layers hold while the tool runs.
    pub(crate) held: Held,
}

/// What layers hold while a tool runs.
pub(crate) type Held = Vec<Box<dyn std::any::Any + Send + Sync>>;

/// What [`Context::start_task`] calls: turns the call into a task, answering whether it did.
pub(crate) type TaskStarter = Arc<dyn Fn() -> bool + Send + Sync>;

impl Context {
    /// The context of a call, from what admission knows of it.
    #[inline]
    pub(crate) fn new(parts: Parts) -> Self {
        let Parts {
            tool,
            cancel,
            deadline,
            progress,
            log,
            input,
            env,
            task,
            tasks,
            starter,
            principal,
            held,
        } = parts;
        Context {
            inner: Inner {
                tool,
                cancel: cancel.map(OnceLock::from).unwrap_or_default(),
                deadline,
                progress,
                log,
                input: input.map(|source| (source, Arc::new(AtomicUsize::new(0)))),
                env,
                task,
                tasks,
                starter,
                principal,
                held: (!held.is_empty()).then(|| Arc::new(held)),
            },
        }
    }

    /// Who calls, when the front end authorized the call (an OAuth access token's subject
    /// and scopes, say); `None` for callers nobody authorized (in-process, stdio, a server
    /// without authorization).
    pub fn principal(&self) -> Option<&Principal> {
        self.inner.principal.as_deref()
    }

    /// Makes the call a task from here on, for a `#[tool(task = "deferred")]` tool whose caller
    /// follows tasks: the caller gets the task at once and follows it while the tool goes on;
    /// questions asked from here on go into the task. Answers whether the call is a task now
    /// (false where the caller cannot follow one: the call simply goes on, and its caller
    /// waits). Calling it again changes nothing.
    pub fn start_task(&self) -> bool {
        if self.inner.task {
            return true;
        }
        self.inner.starter.as_ref().is_some_and(|start| start())
    }

    /// The caller's tasks, as admission gave them ([`Parts::tasks`]).
    pub(crate) fn tasks_of_caller(&self) -> Option<&dyn CallerTasks> {
        self.inner.tasks.as_deref()
    }

    /// Whether the call runs as a task (a `#[tool(task)]` tool called by a caller that follows
    /// tasks): its caller got the task's handle at once and follows it, so the tool may take
    /// as long as its work does. A tool that answers at once with a handle of its own when
    /// called plainly can wait for the work here instead.
    pub fn is_task(&self) -> bool {
        self.inner.task
    }

    /// A context outside any dispatcher, for calling a tool function directly (in unit tests,
    /// say). It is never cancelled unless `cancel_token` is cancelled and holds `state`.
    pub fn detached(state: State) -> Self {
        Context::new(Parts {
            tool: "",
            cancel: Some(CancelToken::new()),
            deadline: None,
            progress: None,
            log: None,
            input: None,
            env: EnvRef::Shared(Arc::new(Env::detached(state))),
            task: false,
            tasks: None,
            starter: None,
            principal: None,
            held: Vec::new(),
        })
    }

    /// The dispatcher running this call, for a tool that calls other tools (or starts work that
    /// does) with the same registry, policy, host state and main thread. `None` for a
    /// [`detached`](Self::detached) context, or once every clone of the dispatcher is gone.
    ///
    /// Calls made through it follow the usual threading rules: from a main-thread tool, other
    /// main-thread tools run at once on the same thread; from an off-thread tool, they wait for
    /// the main thread, so an off-thread tool must not wait on them while the host's main thread
    /// waits on it.
    pub fn dispatcher(&self) -> Option<env::Dispatcher> {
        self.env().dispatcher()
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &'static str {
        self.inner.tool
    }

    /// The token that cancels this call.
    pub fn cancel_token(&self) -> &CancelToken {
        self.inner.cancel.get_or_init(CancelToken::new)
    }

    /// The call's token if it was made (a token nobody took needs no cancelling).
    pub(crate) fn made_token(&self) -> Option<CancelToken> {
        self.inner.cancel.get().cloned()
    }

    /// When the call's timeout expires, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.inner.deadline
    }

    /// Whether the call was cancelled or its deadline has passed. Long-running tools check this
    /// between steps and stop early.
    pub fn is_cancelled(&self) -> bool {
        self.inner
            .cancel
            .get()
            .is_some_and(CancelToken::is_cancelled)
            || self.inner.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// `Err(ToolError::cancelled())` once the call is cancelled, for use with `?`.
    pub fn check_cancelled(&self) -> Result<(), ToolError> {
        if self.is_cancelled() {
            Err(ToolError::cancelled())
        } else {
            Ok(())
        }
    }

    /// Completes when the call is cancelled or its deadline passes; for `select!` in async tools.
    pub async fn cancelled(&self) {
        match self.inner.deadline {
            Some(deadline) => {
                tokio::select! {
                    _ = self.cancel_token().cancelled() => {}
                    _ = tokio::time::sleep_until(deadline.into()) => {}
                }
            }
            None => self.cancel_token().cancelled().await,
        }
    }

    /// Reports progress to whoever is watching the call (an MCP client's progress token, a job's
    /// status). Does nothing when nobody is.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.inner.progress {
            sink(Progress {
                tool: self.inner.tool,
                progress,
                total,
                message: message.map(str::to_owned),
            });
        }
    }

    /// Logs `message` at `level`: to the MCP client when it asked for messages of that level
    /// (`logging/setLevel`, or the request's own log level), else to the host's `tracing`
    /// (target `buril::tool`, with the tool's name; `BURIL_LOG=buril::tool=info` on the
    /// command line shows them).
    ///
    /// ```
    /// # use buril::Context;
    /// # use buril::context::LogLevel;
    /// # fn import(ctx: &Context, skipped: usize) {
    /// ctx.log(LogLevel::Warning, format!("{skipped} files were too large to read"));
    /// # }
    /// ```
    pub fn log(&self, level: LogLevel, message: impl Into<String>) {
        self.log_data(level, serde_json::Value::String(message.into()));
    }

    /// Logs any JSON at `level` (MCP's `data`), as [`Context::log`] does a string.
    pub fn log_data(&self, level: LogLevel, data: serde_json::Value) {
        let record = LogRecord {
            tool: self.inner.tool,
            level,
            data,
        };
        match &self.inner.log {
            Some(sink) => sink(record),
            None => log::to_tracing(&record),
        }
    }

    /// Whether log messages reach the caller (an MCP client), not only the host's `tracing`.
    #[doc(hidden)]
    pub fn logs_to_caller(&self) -> bool {
        self.inner.log.is_some()
    }

    /// Whether the caller can answer requests of `kind` (an MCP client that declared the
    /// capability, a terminal). A tool that can do without the answer checks this first.
    pub fn can_ask(&self, kind: InputKind) -> bool {
        self.inner
            .input
            .as_ref()
            .is_some_and(|(source, _)| source.supports(kind))
    }

    /// Asks the user to fill in a form: `message`, and the fields of `T` (a struct of strings,
    /// numbers, booleans and enums; doc comments, defaults and optional fields kept). Blocks
    /// until the user answers (under MCP 2026-07-28 the call ends here and runs again from the
    /// start with the answer, so do lasting work after asking). An error, for the tool to
    /// return, when nobody can answer.
    ///
    /// ```
    /// # use buril::{Context, ToolError};
    /// # use buril::context::Elicited;
    /// /// What to call the new scene.
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct SceneName {
    ///     /// The scene's name.
    ///     name: String,
    /// }
    ///
    /// fn name_of_scene(ctx: &Context) -> Result<Option<String>, ToolError> {
    ///     match ctx.elicit::<SceneName>("What should the new scene be called?")? {
    ///         Elicited::Accepted(answer) => Ok(Some(answer.name)),
    ///         Elicited::Declined | Elicited::Cancelled => Ok(None),
    ///     }
    /// }
    /// ```
    pub fn elicit<T: DeserializeOwned + JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, ToolError> {
        let answer = self.ask(InputRequest::elicit::<T>(message)?)?;
        Elicited::from_answer(&answer)
    }

    /// Asks the user a yes-or-no question: `true` only when they accepted and said yes.
    pub fn confirm(&self, message: impl Into<String>) -> Result<bool, ToolError> {
        let answer = self.ask(InputRequest::confirm(message))?;
        let form: Elicited<Map<String, Value>> = Elicited::from_answer(&answer)?;
        Ok(form
            .accepted()
            .is_some_and(|fields| fields.get("confirm") == Some(&Value::Bool(true))))
    }

    /// Asks the client's model for a completion (MCP sampling).
    pub fn sample(&self, sampling: Sampling) -> Result<Sampled, ToolError> {
        let answer = self.ask(InputRequest::sample(sampling))?;
        Sampled::from_answer(&answer)
    }

    /// The client's roots: the folders it works in.
    pub fn roots(&self) -> Result<Vec<Root>, ToolError> {
        let answer = self.ask(InputRequest::list_roots())?;
        Root::from_answer(&answer)
    }

    /// Asks `request` under the next default key (`elicit_1`, `sample_2`, ...: the same each
    /// time the call runs again, as long as the tool asks in the same order) and answers the
    /// raw MCP result.
    pub fn ask(&self, request: InputRequest) -> Result<Value, ToolError> {
        let number = self
            .inner
            .input
            .as_ref()
            .map_or(0, |(_, asked)| asked.fetch_add(1, Ordering::Relaxed) + 1);
        let prefix = match request.kind() {
            InputKind::Elicitation => "elicit",
            InputKind::Sampling => "sample",
            InputKind::Roots => "roots",
        };
        self.ask_as(&format!("{prefix}_{number}"), request)
    }

    /// Asks `request` under `key` (the key of an `input_required` result's `inputRequests`)
    /// and answers the raw MCP result.
    pub fn ask_as(&self, key: &str, request: InputRequest) -> Result<Value, ToolError> {
        let mut answers = self.ask_all([(key, request)])?;
        Ok(answers.pop().unwrap_or(Value::Null))
    }

    /// Asks several requests at once (one round under MCP 2026-07-28), each under its key, and
    /// answers their raw MCP results in order.
    pub fn ask_all<K: AsRef<str>>(
        &self,
        requests: impl IntoIterator<Item = (K, InputRequest)>,
    ) -> Result<Vec<Value>, ToolError> {
        let requests: Vec<(K, InputRequest)> = requests.into_iter().collect();
        let Some((source, _)) = &self.inner.input else {
            return match requests.first() {
                Some((_, request)) => Err(ask::cannot_ask(self.inner.tool, request.kind(), None)),
                None => Ok(Vec::new()),
            };
        };
        for (_, request) in &requests {
            if !source.supports(request.kind()) {
                source.lacked(request.kind());
                let reason = source.why_not(request.kind());
                return Err(ask::cannot_ask(
                    self.inner.tool,
                    request.kind(),
                    Some(&reason),
                ));
            }
        }
        let asked: Vec<(&str, &InputRequest)> = requests
            .iter()
            .map(|(key, request)| (key.as_ref(), request))
            .collect();
        let replies = ask::block_here(|| source.ask_many(self, &asked));
        let mut answers = Vec::new();
        let mut waiting = Vec::new();
        for ((key, request), reply) in asked.into_iter().zip(replies) {
            match reply {
                Asked::Answer(answer) => answers.push(answer),
                Asked::Later => waiting.push(key.to_owned()),
                Asked::Refused(reason) => {
                    return Err(ask::cannot_ask(
                        self.inner.tool,
                        request.kind(),
                        Some(&reason),
                    ));
                }
            }
        }
        if waiting.is_empty() {
            Ok(answers)
        } else {
            Err(ask::waiting_for_input(&waiting))
        }
    }

    /// The host state of type `T` that the dispatcher was given, or a runtime error naming the
    /// missing type.
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.inner.env.state.get::<T>().ok_or_else(|| {
            ToolError::runtime(format!(
                "the host did not provide state of type `{}` that the tool `{}` needs",
                type_name::<T>(),
                self.inner.tool
            ))
        })
    }

    /// The host state of type `T`, if the dispatcher was given one.
    pub fn try_state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.env.state.get::<T>()
    }

    /// The dispatcher's shared environment, for the dispatch module.
    pub(crate) fn env(&self) -> &Env {
        &self.inner.env
    }
}

impl Clone for Context {
    /// A clone shares the call's cancellation token (made now if it was not yet).
    fn clone(&self) -> Self {
        let _ = self.cancel_token();
        Context {
            inner: self.inner.clone(),
        }
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("tool", &self.inner.tool)
            .field("cancelled", &self.is_cancelled())
            .field("deadline", &self.inner.deadline)
            .finish_non_exhaustive()
    }
}
