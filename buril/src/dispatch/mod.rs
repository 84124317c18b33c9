//! The dispatcher: lookup, policy, validation, the call on the right thread, timeouts, panics,
//! and the envelope.

pub(crate) mod limits;
mod main_thread;
mod unwind;

use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::runtime::Runtime;

use limits::Limits;
pub use limits::{DEFAULT_MAX_INPUT_BYTES, DEFAULT_MAX_INPUT_DEPTH};
use main_thread::MainQueue;
pub use main_thread::MainThread;
use unwind::{CatchUnwind, block_on, flatten};

use crate::args::Args;
use crate::context::{CancelToken, Context, Env, EnvRef, ProgressSink, State};
use crate::descriptor::{Invoke, ToolDescriptor};
use crate::envelope::Outcome;
use crate::error::{ErrorKind, Problem, ToolError};
use crate::output;
use crate::pattern::ToolView;
use crate::policy::Policy;
use crate::registry::{Registry, registry};
use crate::schema::OutputShape;
use crate::validate::Validator;

type CallResult = Result<Value, ToolError>;

/// Runs tools by name: looks the name up, applies the host's [`Policy`], validates the input
/// against the tool's schema (reporting every problem at once), runs the tool on the right
/// thread with its timeout, contains panics, and answers with an [`Outcome`].
///
/// A `Dispatcher` is cheap to clone; clones share everything.
///
/// ```
/// use serde_json::json;
///
/// /// Adds two numbers.
/// #[buril::tool]
/// fn math_add(
///     /// The first addend.
///     a: f64,
///     /// The second addend.
///     b: f64,
/// ) -> f64 {
///     a + b
/// }
///
/// let dispatcher = buril::Dispatcher::new();
/// let envelope = dispatcher.call("math_add", json!({"a": 1, "b": 2.5}));
/// assert_eq!(envelope, json!({"ok": true, "data": {"result": 3.5}}));
///
/// let envelope = dispatcher.call("math_add", json!({"a": "one"}));
/// assert_eq!(envelope["type"], "validation");
/// assert_eq!(envelope["problems"].as_array().unwrap().len(), 2);
/// ```
#[derive(Clone)]
pub struct Dispatcher {
    shared: Arc<Shared>,
}

struct Shared {
    registry: &'static Registry,
    /// Swapped whole by `set_policy`; a call reads it once.
    policy: std::sync::RwLock<Arc<Policy>>,
    /// Whether the policy in `policy` disables nothing, so that a tool that is not dangerous may
    /// run without reading it. Written under `policy`'s write lock.
    policy_open: AtomicBool,
    env: Arc<Env>,
    default_timeout: Option<Duration>,
    tool_timeouts: HashMap<String, Duration>,
    main: Arc<MainQueue>,
    runtime: OnceLock<Runtime>,
    worker_threads: usize,
    limits: Limits,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.main.close();
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Per-call settings for [`Dispatcher::invoke_with`].
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Overrides the tool's timeout for this call.
    pub timeout: Option<Duration>,
    /// Cancels the call when cancelled; the tool sees it through its context.
    pub cancel: Option<CancelToken>,
    /// Receives the tool's progress reports.
    pub progress: Option<ProgressSink>,
    /// Restricts the call to the tools of a view (an agent's); outside it the call answers
    /// `disabled`.
    pub view: Option<Arc<ToolView>>,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("view", &self.view)
            .finish()
    }
}

/// Configures a [`Dispatcher`].
pub struct DispatcherBuilder {
    registry: Option<&'static Registry>,
    policy: Policy,
    state: State,
    default_timeout: Option<Duration>,
    tool_timeouts: HashMap<String, Duration>,
    main_thread: MainThread,
    worker_threads: usize,
    limits: Limits,
}

impl Default for DispatcherBuilder {
    fn default() -> Self {
        DispatcherBuilder {
            registry: None,
            policy: Policy::default(),
            state: State::new(),
            default_timeout: None,
            tool_timeouts: HashMap::new(),
            main_thread: MainThread::Owned,
            worker_threads: 2,
            limits: Limits::default(),
        }
    }
}

impl DispatcherBuilder {
    /// Dispatches over `registry` instead of every `#[tool]` in the binary.
    pub fn registry(mut self, registry: &'static Registry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Which tools may run. Default: all but the dangerous ones.
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Changes the policy set so far (the CLI adds its `--enable`/`--disable` flags this way,
    /// on top of the host's rules).
    pub fn update_policy(mut self, update: impl FnOnce(Policy) -> Policy) -> Self {
        self.policy = update(self.policy);
        self
    }

    /// Adds typed host state, handed to tools through [`Context::state`].
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// The timeout of every call without a more specific one. Default: none.
    ///
    /// A call with a timeout answers `type: "timeout"` once it passes, and the tool's context
    /// reports cancellation so that it can stop. The caller stops waiting at the deadline
    /// unless the tool runs on the calling thread itself (a main-thread tool called from the
    /// main thread), which cannot be interrupted; such a call answers `timeout` when it ends
    /// late.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// The timeout of one tool, by name.
    pub fn tool_timeout(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.tool_timeouts.insert(tool.into(), timeout);
        self
    }

    /// Who runs the main-thread tools. Default: [`MainThread::Owned`].
    pub fn main_thread(mut self, main_thread: MainThread) -> Self {
        self.main_thread = main_thread;
        self
    }

    /// Worker threads of the runtime that runs async tools. Default: 2.
    pub fn worker_threads(mut self, threads: usize) -> Self {
        self.worker_threads = threads.max(1);
        self
    }

    /// The largest input a call may have, in bytes of its compact JSON text (escapes inside
    /// strings, and a float's digits past its first decimal, not counted). A larger input
    /// answers `validation` before it is validated. Default: [`DEFAULT_MAX_INPUT_BYTES`]
    /// (4 MiB). The CLI and the MCP server apply it to the raw text they read, before parsing.
    pub fn max_input_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_bytes = bytes;
        self
    }

    /// The deepest nesting of arrays and objects a call's input may have (`{}` is one level).
    /// A deeper input answers `validation` before it is validated, and is measured and freed
    /// without recursion. Default: [`DEFAULT_MAX_INPUT_DEPTH`] (64); at most 100 is useful, as
    /// validation and JSON parsing recurse once per level.
    pub fn max_input_depth(mut self, depth: usize) -> Self {
        self.limits.max_depth = depth;
        self
    }

    /// The dispatcher. With [`MainThread::Host`], the calling thread becomes the main thread.
    pub fn build(self) -> Dispatcher {
        let registry = self.registry.unwrap_or_else(registry);
        // Timeouts are kept under the tools' own names, so that an alias finds them too.
        let tool_timeouts = self
            .tool_timeouts
            .into_iter()
            .map(|(name, timeout)| {
                let name = registry
                    .get(&name)
                    .map_or(name, |tool| tool.name().to_owned());
                (name, timeout)
            })
            .collect();
        let state = self.state;
        Dispatcher {
            shared: Arc::new_cyclic(|shared| Shared {
                registry,
                policy_open: AtomicBool::new(self.policy.disables_nothing()),
                policy: std::sync::RwLock::new(Arc::new(self.policy)),
                env: Arc::new(Env {
                    state,
                    dispatcher: WeakDispatcher {
                        shared: shared.clone(),
                    },
                }),
                default_timeout: self.default_timeout,
                tool_timeouts,
                main: MainQueue::new(self.main_thread),
                runtime: OnceLock::new(),
                worker_threads: self.worker_threads,
                limits: self.limits,
            }),
        }
    }
}

struct Prepared {
    tool: &'static ToolDescriptor,
    args: Args,
    /// Holds this call's own token (a child of the caller's), made when first needed.
    ctx: Context,
    deadline: Option<(Instant, Duration)>,
    settle: Settle,
}

/// What turns a call's raw result into its outcome.
struct Settle {
    name: &'static str,
    shape: OutputShape,
    warning: Option<String>,
    deadline: Option<(Instant, Duration)>,
    caller: Option<CancelToken>,
}

impl Settle {
    fn outcome(self, result: CallResult) -> Outcome {
        let result = match result {
            Ok(value) => Ok(output::shape(value, self.shape)),
            Err(error) => Err(self.settle_error(error)),
        };
        with_warning(Outcome::from_result(result), self.warning)
    }

    /// A tool that stopped at its deadline (`ctx.check_cancelled()?`) timed out; it was not
    /// cancelled by anyone.
    fn settle_error(&self, error: ToolError) -> ToolError {
        match self.deadline {
            Some((at, timeout))
                if error.kind() == ErrorKind::Cancelled
                    && Instant::now() >= at
                    && !self.caller.as_ref().is_some_and(CancelToken::is_cancelled) =>
            {
                timeout_error(self.name, timeout)
            }
            _ => error,
        }
    }
}

fn with_warning(outcome: Outcome, warning: Option<String>) -> Outcome {
    match warning {
        Some(warning) => outcome.with_warning(warning),
        None => outcome,
    }
}

impl Default for Dispatcher {
    fn default() -> Self {
        Dispatcher::new()
    }
}

impl Dispatcher {
    /// A dispatcher over every `#[tool]` in the binary, with default settings.
    pub fn new() -> Self {
        DispatcherBuilder::default().build()
    }

    /// Configures a dispatcher.
    pub fn builder() -> DispatcherBuilder {
        DispatcherBuilder::default()
    }

    /// The tools this dispatcher serves.
    pub fn registry(&self) -> &'static Registry {
        self.shared.registry
    }

    /// The policy deciding which tools may run, as it is now.
    pub fn policy(&self) -> Arc<Policy> {
        Arc::clone(&self.shared.policy.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Replaces the policy, for every clone of this dispatcher; calls already admitted go on.
    /// Returns the previous policy. A server uses this to apply a changed configuration and
    /// then tells its clients that the tool list changed.
    pub fn set_policy(&self, policy: Policy) -> Arc<Policy> {
        let mut slot = self
            .shared
            .policy
            .write()
            .unwrap_or_else(|e| e.into_inner());
        self.shared
            .policy_open
            .store(policy.disables_nothing(), Ordering::Release);
        std::mem::replace(&mut *slot, Arc::new(policy))
    }

    /// The input limits: (max_input_bytes, max_input_depth).
    pub fn input_limits(&self) -> (usize, usize) {
        let limits = self.shared.limits;
        (limits.max_bytes, limits.max_depth)
    }

    /// Checks the raw JSON text of an input against the input limits before it is parsed (its
    /// length, and how deep its brackets nest outside strings); the error is the `validation`
    /// error a call with that input answers.
    pub fn check_input_text(&self, text: &[u8]) -> Result<(), ToolError> {
        let limits = self.shared.limits;
        limits
            .check_text(text)
            .map_err(|exceeded| limits.error(exceeded))
    }

    /// Whether `tool` may run under the current policy.
    pub fn allows(&self, tool: &ToolDescriptor) -> bool {
        self.policy().allows(tool)
    }

    /// Calls `name` with `input` and answers with the envelope:
    /// `{"ok": true, "data": …}` or `{"ok": false, "type": …, "error": …}`.
    pub fn call(&self, name: &str, input: Value) -> Value {
        self.invoke(name, input).into_envelope()
    }

    /// Calls `name` with `input`.
    pub fn invoke(&self, name: &str, input: Value) -> Outcome {
        self.invoke_with(name, input, CallOptions::default())
    }

    /// Calls `name` with `input` and per-call options, blocking until the call ends or its
    /// timeout passes.
    pub fn invoke_with(&self, name: &str, input: Value, options: CallOptions) -> Outcome {
        let mut prepared = match self.prepare(name, input, options) {
            Ok(prepared) => prepared,
            Err(failure) => return failure,
        };
        let settle = prepared.take_settle();
        let result = self.execute_blocking(prepared);
        settle.outcome(result)
    }

    /// Calls `name` with `input` without blocking the caller's executor: sync tools run on a
    /// blocking pool or the main thread, async tools on the dispatcher's runtime. Works from any
    /// executor.
    pub async fn invoke_async(&self, name: &str, input: Value, options: CallOptions) -> Outcome {
        let mut prepared = match self.prepare(name, input, options) {
            Ok(prepared) => prepared,
            Err(failure) => return failure,
        };
        let settle = prepared.take_settle();
        // Dropping this future (a client cancelling) cancels the call.
        let guard = CancelOnDrop(Some(prepared.ctx.cancel_token().clone()));
        let result = self.execute_async(prepared).await;
        guard.disarm();
        settle.outcome(result)
    }

    /// `invoke_async`, answering with the envelope.
    pub async fn call_async(&self, name: &str, input: Value) -> Value {
        self.invoke_async(name, input, CallOptions::default())
            .await
            .into_envelope()
    }

    /// Runs the main-thread calls waiting in the queue, on the calling thread, and returns how
    /// many ran. A host using [`MainThread::Host`] calls this from its update tick.
    ///
    /// # Panics
    /// With [`MainThread::Host`], when called from a thread other than the one that built the
    /// dispatcher.
    pub fn pump(&self) -> usize {
        let main = &self.shared.main;
        match main.mode() {
            MainThread::Owned => 0,
            MainThread::Host => {
                assert!(
                    main.is_current(),
                    "Dispatcher::pump must be called on the main thread (the thread that built \
                     the dispatcher)"
                );
                main.pump()
            }
        }
    }

    /// How many main-thread calls wait for [`pump`](Self::pump).
    pub fn pending_main_thread_calls(&self) -> usize {
        self.shared.main.pending()
    }

    /// The timeout that applies to `tool` (by name or alias) when a call sets none.
    pub fn timeout_for(&self, tool: &str) -> Option<Duration> {
        let name = self.shared.registry.get(tool).map_or(tool, |t| t.name());
        self.timeout_named(name)
    }

    /// The timeout of the tool with this (own, not alias) name when a call sets none.
    fn timeout_named(&self, name: &str) -> Option<Duration> {
        let shared = &*self.shared;
        if shared.tool_timeouts.is_empty() {
            return shared.default_timeout;
        }
        shared
            .tool_timeouts
            .get(name)
            .copied()
            .or(shared.default_timeout)
    }

    fn runtime(&self) -> &Runtime {
        self.shared.runtime.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(self.shared.worker_threads)
                .thread_name("buril-worker")
                .enable_time()
                .build()
                .expect("the runtime for async tools could not be started")
        })
    }

    fn prepare(&self, name: &str, input: Value, options: CallOptions) -> Result<Prepared, Outcome> {
        let shared = &*self.shared;
        let found = shared.registry.lookup(name).map(|found| {
            let compiled = found.tool.compiled();
            (found, compiled)
        });
        // A tool whose input schema is an object of scalars checks an input's validity and its
        // size in one pass (such an input nests one level deep). Anything else is measured
        // before anything else: a refused input never reaches the (recursive) validator, and is
        // freed without recursion.
        let checked = found.as_ref().is_some_and(|(_, compiled)| {
            let validator = compiled.validator.as_ref().ok();
            validator
                .and_then(Validator::shape)
                .and_then(|shape| shape.measure(&input))
                .is_some_and(|len| shared.limits.admits_flat(len))
        });
        if !checked && let Err(exceeded) = shared.limits.check(&input) {
            limits::drop_iteratively(input);
            return Err(Outcome::err(shared.limits.error(exceeded)));
        }
        let Some((found, compiled)) = found else {
            return Err(Outcome::err(not_found(shared.registry, name)));
        };
        let tool = found.tool;
        let warning = found.via_alias.then(|| {
            format!(
                "`{name}` is a deprecated name of `{}`; call `{}` instead",
                tool.name(),
                tool.name()
            )
        });
        let refuse = |error: ToolError| with_warning(Outcome::err(error), warning.clone());
        // A policy that disables nothing allows every tool that is not dangerous: no lock then.
        // Otherwise checked under the read lock (no clone of the policy's `Arc`).
        if tool.is_dangerous() || !shared.policy_open.load(Ordering::Acquire) {
            let allowed = shared
                .policy
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .check(tool);
            allowed.map_err(refuse)?;
        }
        if let Some(view) = &options.view
            && !view.allows(tool.name())
        {
            return Err(refuse(ToolError::new(
                ErrorKind::Disabled,
                format!(
                    "the tool `{}` is outside this caller's tool view {view}",
                    tool.name()
                ),
            )));
        }
        let validator = compiled.validator.as_ref().map_err(|message| {
            refuse(ToolError::runtime(format!(
                "the tool is misconfigured: {message}"
            )))
        })?;
        let input = if input.is_null() {
            Value::Object(Map::new())
        } else {
            input
        };
        if !checked {
            let problems = validator.problems(&input);
            if !problems.is_empty() {
                return Err(refuse(ToolError::from_problems(problems)));
            }
        }
        let Value::Object(object) = input else {
            let problem = Problem::new("", "expected an object");
            return Err(refuse(ToolError::from_problems(vec![problem])));
        };
        let timeout = options.timeout.or_else(|| self.timeout_named(tool.name()));
        let deadline = timeout.map(|t| (Instant::now() + t, t));
        let ctx = Context::new(
            tool.name(),
            options.cancel.as_ref().map(CancelToken::child),
            deadline.map(|(at, _)| at),
            options.progress,
            self.env(),
        );
        Ok(Prepared {
            tool,
            args: Args::new(object),
            ctx,
            deadline,
            settle: Settle {
                name: tool.name(),
                shape: compiled.output_shape,
                warning,
                deadline,
                caller: options.cancel,
            },
        })
    }

    fn execute_blocking(&self, prepared: Prepared) -> CallResult {
        let Prepared {
            tool,
            args,
            ctx,
            deadline,
            ..
        } = prepared;
        let name = tool.name();
        let invoke = tool.invoke();
        if !tool.is_off_thread() {
            let main = &self.shared.main;
            let handle = self.handle_for(invoke);
            if main.is_current() {
                let result = run_here(name, invoke, ctx, args, handle.as_ref());
                return late(result, name, deadline);
            }
            let cancel = ctx.cancel_token().clone();
            let (tx, rx) = mpsc::sync_channel(1);
            main.submit(Box::new(move || {
                let _ = tx.send(run_here(name, invoke, ctx, args, handle.as_ref()));
            }));
            return wait(rx, name, deadline, &cancel);
        }
        match invoke {
            // No deadline to keep, or a tool that never blocks by its author's word: run here,
            // a deadline checked when it returns.
            Invoke::Sync(function) if deadline.is_none() || tool.is_inline() => {
                late(run_sync(name, function, &ctx, args), name, deadline)
            }
            Invoke::Sync(function) => {
                let cancel = ctx.cancel_token().clone();
                let (tx, rx) = mpsc::sync_channel(1);
                self.runtime().spawn_blocking(move || {
                    let _ = tx.send(run_sync(name, function, &ctx, args));
                });
                wait(rx, name, deadline, &cancel)
            }
            Invoke::Async(function) => {
                let cancel = ctx.cancel_token().clone();
                let handle = self.runtime().handle();
                let (tx, rx) = mpsc::sync_channel(1);
                let task = handle.spawn(async move {
                    let _ = tx.send(flatten(name, CatchUnwind(function(ctx, args)).await));
                });
                let result = wait(rx, name, deadline, &cancel);
                if result.is_err() {
                    abort_after_grace(handle, task);
                }
                result
            }
        }
    }

    /// The runtime handle an async tool needs on the main thread (none for a sync tool, so that
    /// sync-only hosts never start the runtime).
    fn handle_for(&self, invoke: Invoke) -> Option<tokio::runtime::Handle> {
        matches!(invoke, Invoke::Async(_)).then(|| self.runtime().handle().clone())
    }

    /// Runs a prepared call in the caller's task, whatever executor drives it: the tool itself
    /// runs on the dispatcher's runtime (a sync tool on its blocking pool, an async one as a
    /// task), in the caller's task itself (an `inline` sync tool), or on the main thread, and the
    /// deadline is a timer of the dispatcher's runtime.
    /// No hop through another task on the way, so a call costs the caller one wake-up.
    async fn execute_async(&self, prepared: Prepared) -> CallResult {
        let Prepared {
            tool,
            args,
            ctx,
            deadline,
            ..
        } = prepared;
        let name = tool.name();
        // Never blocks, by its author's word: run in the caller's task, no thread hop; its
        // deadline is checked when it returns.
        if let Invoke::Sync(function) = tool.invoke()
            && tool.is_inline()
        {
            let result = late(run_sync(name, function, &ctx, args), name, deadline);
            if result.is_err() {
                ctx.cancel_if_made();
            }
            return result;
        }
        let cancel = ctx.cancel_token().clone();
        let (tx, rx) = tokio::sync::oneshot::channel::<CallResult>();
        // Aborts (after the grace period) an async tool whose call ends without its result:
        // timed out, cancelled, or this future dropped.
        let mut task = AbortOnDrop(None);
        match (tool.invoke(), tool.is_off_thread()) {
            (Invoke::Sync(function), true) => {
                self.runtime().spawn_blocking(move || {
                    let _ = tx.send(run_sync(name, function, &ctx, args));
                });
            }
            (Invoke::Async(function), true) => {
                let handle = self.runtime().handle();
                task.0 = Some((
                    handle.clone(),
                    handle.spawn(async move {
                        let _ = tx.send(flatten(name, CatchUnwind(function(ctx, args)).await));
                    }),
                ));
            }
            (invoke, false) => {
                let handle = self.handle_for(invoke);
                self.shared.main.submit(Box::new(move || {
                    let _ = tx.send(run_here(name, invoke, ctx, args, handle.as_ref()));
                }));
            }
        }
        let lost = || {
            Err(ToolError::runtime(format!(
                "the call to `{name}` was dropped"
            )))
        };
        let result = match deadline {
            Some((at, timeout)) => {
                // A timer of the dispatcher's runtime, which has one whatever the caller runs on.
                let expired = {
                    let _runtime = self.runtime().enter();
                    tokio::time::sleep_until(at.into())
                };
                tokio::select! {
                    result = rx => result.unwrap_or_else(|_| lost()),
                    _ = expired => Err(timeout_error(name, timeout)),
                    _ = cancel.cancelled() => Err(ToolError::cancelled()),
                }
            }
            None => tokio::select! {
                result = rx => result.unwrap_or_else(|_| lost()),
                _ = cancel.cancelled() => Err(ToolError::cancelled()),
            },
        };
        if result.is_err() {
            cancel.cancel();
        } else {
            task.0 = None;
        }
        result
    }

    /// The environment a call's context holds: borrowed from the process-wide dispatcher, which
    /// lives as long as the process; counted for any other.
    fn env(&self) -> EnvRef {
        match GLOBAL.get() {
            Some(global) if Arc::ptr_eq(&global.shared, &self.shared) => {
                EnvRef::Static(global.shared.env.as_ref())
            }
            _ => EnvRef::Shared(Arc::clone(&self.shared.env)),
        }
    }

    /// A handle that does not keep the dispatcher alive: host state that needs the dispatcher
    /// it lives in (a job system starting calls of its own, say) holds this, so that the two do
    /// not keep each other alive.
    pub fn downgrade(&self) -> WeakDispatcher {
        WeakDispatcher {
            shared: Arc::downgrade(&self.shared),
        }
    }

    /// The process-wide dispatcher behind [`crate::call`]: the one installed with
    /// [`install_global`](Self::install_global), or a default one.
    pub fn global() -> &'static Dispatcher {
        GLOBAL.get_or_init(Dispatcher::new)
    }

    /// Makes this dispatcher the one [`crate::call`] uses. Fails (giving it back) when the
    /// global dispatcher was already set or used.
    pub fn install_global(self) -> Result<(), Dispatcher> {
        GLOBAL.set(self)
    }
}

static GLOBAL: OnceLock<Dispatcher> = OnceLock::new();

/// A [`Dispatcher`] that may be gone: see [`Dispatcher::downgrade`]. The default one never
/// upgrades.
#[derive(Clone, Default)]
pub struct WeakDispatcher {
    shared: Weak<Shared>,
}

impl WeakDispatcher {
    /// The dispatcher, while any clone of it is alive.
    pub fn upgrade(&self) -> Option<Dispatcher> {
        self.shared.upgrade().map(|shared| Dispatcher { shared })
    }
}

impl fmt::Debug for WeakDispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakDispatcher")
            .field("alive", &(self.shared.strong_count() > 0))
            .finish()
    }
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("tools", &self.shared.registry.len())
            .field("policy", &self.policy())
            .field("default_timeout", &self.shared.default_timeout)
            .field("main_thread", &self.shared.main.mode())
            .finish_non_exhaustive()
    }
}

/// How long an async tool that was cancelled or timed out may go on to finish cleanly (it sees
/// the cancellation through its context) before its task is dropped.
pub const CANCEL_GRACE: Duration = Duration::from_secs(5);

fn abort_after_grace(handle: &tokio::runtime::Handle, task: tokio::task::JoinHandle<()>) {
    if task.is_finished() {
        return;
    }
    handle.spawn(async move {
        tokio::time::sleep(CANCEL_GRACE).await;
        task.abort();
    });
}

/// An async tool's task, aborted after [`CANCEL_GRACE`] when dropped unfinished.
struct AbortOnDrop(Option<(tokio::runtime::Handle, tokio::task::JoinHandle<()>)>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some((handle, task)) = self.0.take() {
            abort_after_grace(&handle, task);
        }
    }
}

/// Cancels a call whose caller went away.
struct CancelOnDrop(Option<CancelToken>);

impl CancelOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.cancel();
        }
    }
}

/// Runs a tool on the calling thread (the main thread): a sync tool directly, an async one
/// driven to completion here.
fn run_here(
    name: &'static str,
    invoke: Invoke,
    ctx: Context,
    args: Args,
    handle: Option<&tokio::runtime::Handle>,
) -> CallResult {
    match (invoke, handle) {
        (Invoke::Sync(function), _) => run_sync(name, function, &ctx, args),
        (Invoke::Async(_), _) if ctx.is_cancelled() => Err(skipped(name)),
        (Invoke::Async(function), Some(handle)) => {
            flatten(name, block_on(handle, CatchUnwind(function(ctx, args))))
        }
        (Invoke::Async(_), None) => Err(ToolError::runtime(format!(
            "the async tool `{name}` was run without a runtime"
        ))),
    }
}

fn run_sync(
    name: &'static str,
    function: fn(&Context, Args) -> CallResult,
    ctx: &Context,
    args: Args,
) -> CallResult {
    if ctx.is_cancelled() {
        return Err(skipped(name));
    }
    flatten(name, catch_unwind(AssertUnwindSafe(|| function(ctx, args))))
}

/// Waits for a call running elsewhere, until its deadline or its cancellation.
fn wait(
    rx: mpsc::Receiver<CallResult>,
    name: &str,
    deadline: Option<(Instant, Duration)>,
    cancel: &CancelToken,
) -> CallResult {
    const SLICE: Duration = Duration::from_millis(20);
    loop {
        let now = Instant::now();
        let mut slice = SLICE;
        if let Some((at, timeout)) = deadline {
            if now >= at {
                cancel.cancel();
                return Err(timeout_error(name, timeout));
            }
            slice = slice.min(at - now);
        }
        match rx.recv_timeout(slice) {
            Ok(result) => return result,
            Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => {
                return Err(ToolError::cancelled());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(ToolError::runtime(format!(
                    "the call to `{name}` was dropped before it ran (the dispatcher shut down)"
                )));
            }
        }
    }
}

/// A call that ran on the waiting thread itself and ended after its deadline.
fn late(result: CallResult, name: &str, deadline: Option<(Instant, Duration)>) -> CallResult {
    match deadline {
        Some((at, timeout)) if Instant::now() > at => Err(timeout_error(name, timeout)),
        _ => result,
    }
}

impl Prepared {
    fn take_settle(&mut self) -> Settle {
        Settle {
            name: self.settle.name,
            shape: self.settle.shape,
            warning: self.settle.warning.take(),
            deadline: self.settle.deadline,
            caller: self.settle.caller.take(),
        }
    }
}

fn skipped(name: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Cancelled,
        format!("the call to `{name}` was cancelled or timed out before it started"),
    )
}

fn timeout_error(name: &str, timeout: Duration) -> ToolError {
    ToolError::new(
        ErrorKind::Timeout,
        format!(
            "the tool `{name}` did not finish within {}; it was asked to stop and its result, if \
             any, is discarded",
            format_duration(timeout)
        ),
    )
}

fn format_duration(duration: Duration) -> String {
    if duration.as_millis() < 1000 {
        format!("{} ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

fn not_found(registry: &Registry, name: &str) -> ToolError {
    let suggestions = registry.suggest(name);
    let mut message = format!("no tool is named `{name}`");
    match suggestions.as_slice() {
        [] => message.push_str("; list the tools to see what exists"),
        [one] => message.push_str(&format!("; did you mean `{one}`?")),
        many => message.push_str(&format!(
            "; did you mean one of {}?",
            many.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    ToolError::new(ErrorKind::NotFound, message).with_suggestions(suggestions)
}
