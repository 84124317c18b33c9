//! The context a tool can ask for: cancellation, progress reporting and typed host state.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use tokio::sync::Notify;

use crate::dispatch::{Dispatcher, WeakDispatcher};
use crate::error::ToolError;

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
    /// The dispatcher's host state and a handle to it, shared by all its calls.
    env: EnvRef,
}

/// How a context holds its dispatcher's [`Env`]: counted, or borrowed for good from the
/// process-wide dispatcher, which is never dropped (no reference count per call then).
#[derive(Clone)]
pub(crate) enum EnvRef {
    Shared(Arc<Env>),
    Static(&'static Env),
}

impl std::ops::Deref for EnvRef {
    type Target = Env;

    fn deref(&self) -> &Env {
        match self {
            EnvRef::Shared(env) => env,
            EnvRef::Static(env) => env,
        }
    }
}

/// What every call of one dispatcher shares: its host state, and a handle to the dispatcher that
/// does not keep it alive.
pub(crate) struct Env {
    pub(crate) state: State,
    pub(crate) dispatcher: WeakDispatcher,
}

/// Receives progress reports: `(progress, total, message)`.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// One progress report from a running tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The tool that reported it.
    pub tool: &'static str,
    /// How far the tool has come, in units of its own choosing; increases with each report.
    pub progress: f64,
    /// The value `progress` reaches when the work is done, if known.
    pub total: Option<f64>,
    /// What the tool is doing now.
    pub message: Option<String>,
}

impl Context {
    pub(crate) fn new(
        tool: &'static str,
        cancel: Option<CancelToken>,
        deadline: Option<Instant>,
        progress: Option<ProgressSink>,
        env: EnvRef,
    ) -> Self {
        Context {
            inner: Inner {
                tool,
                cancel: cancel.map(OnceLock::from).unwrap_or_default(),
                deadline,
                progress,
                env,
            },
        }
    }

    /// A context outside any dispatcher, for calling a tool function directly (in unit tests,
    /// say). It is never cancelled unless `cancel_token` is cancelled and holds `state`.
    pub fn detached(state: State) -> Self {
        Context::new(
            "",
            Some(CancelToken::new()),
            None,
            None,
            EnvRef::Shared(Arc::new(Env {
                state,
                dispatcher: WeakDispatcher::default(),
            })),
        )
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &'static str {
        self.inner.tool
    }

    /// The token that cancels this call.
    pub fn cancel_token(&self) -> &CancelToken {
        self.inner.cancel.get_or_init(CancelToken::new)
    }

    /// Cancels the call's token if it was made (a token nobody took needs no cancelling).
    pub(crate) fn cancel_if_made(&self) {
        if let Some(token) = self.inner.cancel.get() {
            token.cancel();
        }
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

    /// The dispatcher running this call, for a tool that calls other tools (or starts work that
    /// does) with the same registry, policy, host state and main thread. `None` for a
    /// [`detached`](Self::detached) context, or once every clone of the dispatcher is gone.
    ///
    /// Calls made through it follow the usual threading rules: from a main-thread tool, other
    /// main-thread tools run at once on the same thread; from an off-thread tool, they wait for
    /// the main thread, so an off-thread tool must not wait on them while the host's main thread
    /// waits on it.
    pub fn dispatcher(&self) -> Option<Dispatcher> {
        self.inner.env.dispatcher.upgrade()
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

/// Typed host state, one value per type, handed to tools through [`Context::state`].
#[derive(Default)]
pub struct State {
    values: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
}

impl State {
    /// An empty state.
    pub fn new() -> Self {
        State::default()
    }

    /// Stores `value`, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Box::new(value));
    }

    /// Stores `value` and returns the state, for chaining.
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// The value of type `T`, if one was stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("values", &self.values.len())
            .finish()
    }
}

/// Cancels a call cooperatively. Cloning gives another handle to the same token; a
/// [`child`](Self::child) is cancelled with its parent but can be cancelled alone.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<CancelInner>,
}

#[derive(Default)]
struct CancelInner {
    cancelled: AtomicBool,
    notify: Notify,
    children: std::sync::Mutex<Vec<std::sync::Weak<CancelInner>>>,
}

impl CancelInner {
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
        let children =
            std::mem::take(&mut *self.children.lock().unwrap_or_else(|e| e.into_inner()));
        for child in children.iter().filter_map(std::sync::Weak::upgrade) {
            child.cancel();
        }
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        CancelToken::default()
    }

    /// A token cancelled when this one is, and also on its own, without affecting this one.
    /// The dispatcher gives every call a child of the caller's token, so that a timeout ends
    /// that call and nothing else sharing the caller's token.
    pub fn child(&self) -> CancelToken {
        let child = CancelToken::new();
        let mut children = self
            .inner
            .children
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        children.retain(|weak| weak.strong_count() > 0);
        children.push(Arc::downgrade(&child.inner));
        drop(children);
        if self.is_cancelled() {
            child.cancel();
        }
        child
    }

    /// Cancels every call holding this token or a child of it. Tools see it through
    /// [`Context::is_cancelled`].
    pub fn cancel(&self) {
        self.inner.cancel();
    }

    /// Whether this token (or an ancestor) was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Completes once this token (or an ancestor) is cancelled.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

impl fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
