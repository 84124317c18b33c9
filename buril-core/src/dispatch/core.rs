//! What every clone of a dispatcher shares, and the handles to it.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, Weak};

use tokio::runtime::Runtime;

use super::lane::{SyncLanes, lanes_for_this_machine};
use super::main_thread::MainQueue;
use super::rules::{Rules, Timeouts};
use crate::context::{Env, EnvRef};
use crate::input_limits::InputLimits;
use crate::middleware::{Layer, Layers};
use crate::policy::Policy;
use crate::registry::Registry;

/// Runs tools by name: looks the name up, applies the host's [`Policy`], validates the input
/// against the tool's schema (reporting every problem at once), runs the tool on the right
/// thread with its timeout, contains panics, and answers with an [`Outcome`].
///
/// A `Dispatcher` is cheap to clone; clones share everything. When the last clone goes, an
/// async tool still running (one winding down after its call was cancelled or timed out, say)
/// keeps the five seconds of grace it would have had, on a thread of its own, and a sync tool
/// already running runs to its end; dropping never waits for them.
///
/// ```
/// use buril::CallOptions;
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
/// let call = |input| dispatcher.invoke("math_add", input, CallOptions::default()).into_envelope();
/// let envelope = call(json!({"a": 1, "b": 2.5}));
/// assert_eq!(envelope, json!({"ok": true, "data": {"result": 3.5}}));
///
/// let envelope = call(json!({"a": "one"}));
/// assert_eq!(envelope["type"], "validation");
/// assert_eq!(envelope["problems"].as_array().unwrap().len(), 2);
/// ```
///
/// [`Outcome`]: crate::Outcome
#[derive(Clone)]
pub struct Dispatcher {
    pub(crate) core: Arc<Core>,
}

/// The state every clone of one dispatcher shares.
pub(crate) struct Core {
    pub(crate) registry: &'static Registry,
    /// The policy and timeouts, swapped whole; a call reads them once.
    rules: RwLock<Arc<Rules>>,
    /// Whether the rules disable nothing and set no timeout, so that a call to a tool that is
    /// not dangerous need not read them. Written under `rules`' write lock.
    rules_open: AtomicBool,
    pub(crate) env: Arc<Env>,
    pub(crate) main: Arc<MainQueue>,
    /// The thread a sync tool's call takes when it is free (`hot.rs`).
    pub(crate) sync_lanes: SyncLanes,
    runtime: OnceLock<Runtime>,
    worker_threads: usize,
    pub(crate) limits: InputLimits,
    /// The layers around every call.
    pub(crate) layers: Layers,
}

/// What the builder hands the core.
pub(crate) struct CoreParts {
    pub(crate) registry: &'static Registry,
    pub(crate) rules: Rules,
    pub(crate) state: crate::context::State,
    pub(crate) main: Arc<MainQueue>,
    pub(crate) worker_threads: usize,
    pub(crate) limits: InputLimits,
    pub(crate) layers: Vec<Arc<dyn Layer>>,
    /// How long threads handing calls to each other watch before they sleep (`hot.rs`).
    pub(crate) spin: std::time::Duration,
}

impl Core {
    pub(crate) fn new(parts: CoreParts) -> Arc<Core> {
        Arc::new_cyclic(|core: &Weak<Core>| {
            let handle = core.clone();
            Core {
                registry: parts.registry,
                rules_open: AtomicBool::new(parts.rules.are_open()),
                rules: RwLock::new(Arc::new(parts.rules)),
                env: Arc::new(Env {
                    state: parts.state,
                    dispatcher: handle,
                }),
                main: parts.main,
                sync_lanes: SyncLanes::new(lanes_for_this_machine(), parts.spin),
                runtime: OnceLock::new(),
                worker_threads: parts.worker_threads,
                limits: parts.limits,
                layers: Layers::new(parts.layers),
            }
        })
    }

    /// Whether a call to a tool that is not dangerous may skip reading the rules.
    #[inline]
    pub(crate) fn rules_open(&self) -> bool {
        self.rules_open.load(Ordering::Acquire)
    }

    /// The rules as they are now, under the read lock (no clone of their `Arc`).
    pub(crate) fn rules(&self) -> RwLockReadGuard<'_, Arc<Rules>> {
        self.rules.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Replaces the rules with what `change` makes of them; answers the previous ones.
    pub(crate) fn change_rules(&self, change: impl FnOnce(&Rules) -> Rules) -> Arc<Rules> {
        let mut slot = self.rules.write().unwrap_or_else(|e| e.into_inner());
        let rules = change(&slot);
        self.rules_open.store(rules.are_open(), Ordering::Release);
        std::mem::replace(&mut *slot, Arc::new(rules))
    }

    /// The runtime that runs async tools and the blocking pool, started on first use.
    pub(crate) fn runtime(&self) -> &Runtime {
        self.runtime.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(self.worker_threads)
                .thread_name("buril-worker")
                .enable_time()
                .build()
                .expect("the runtime for async tools could not be started")
        })
    }

    /// The environment a call's context holds: borrowed from the process-wide dispatcher, which
    /// lives as long as the process; counted for any other.
    pub(crate) fn env_for_call(self: &Arc<Self>) -> EnvRef {
        match GLOBAL.get() {
            Some(global) if Arc::ptr_eq(&global.core, self) => {
                EnvRef::Static(global.core.env.as_ref())
            }
            _ => EnvRef::Shared(Arc::clone(&self.env)),
        }
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        self.main.close();
        self.sync_lanes.close();
        if let Some(runtime) = self.runtime.take() {
            wind_down(runtime);
        }
    }
}

/// Stops the runtime of async tools without blocking the thread that drops the dispatcher: at
/// once when no task is alive on it; otherwise (a tool winding down after its call was
/// cancelled or timed out, say) on a thread of its own, once its tasks have ended or
/// [`CANCEL_GRACE`] has passed, the grace such a tool has while its dispatcher lives. Sync tools
/// on the blocking pool run to their end either way.
fn wind_down(runtime: Runtime) {
    if runtime.metrics().num_alive_tasks() == 0 {
        runtime.shutdown_background();
        return;
    }
    let (hand, take) = std::sync::mpsc::sync_channel::<Runtime>(1);
    let waiter = std::thread::Builder::new()
        .name("buril-wind-down".to_owned())
        .spawn(move || {
            let Ok(runtime) = take.recv() else { return };
            let until = std::time::Instant::now() + CANCEL_GRACE;
            while runtime.metrics().num_alive_tasks() > 0 && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            runtime.shutdown_background();
        });
    let unsent = match waiter {
        Ok(_) => hand.send(runtime).err().map(|unsent| unsent.0),
        Err(_) => Some(runtime),
    };
    // No thread to wait on: stopped at once.
    if let Some(runtime) = unsent {
        runtime.shutdown_background();
    }
}

/// How long an async tool that was cancelled or timed out may go on to finish cleanly (it sees
/// the cancellation through its context) before its task is dropped.
pub(crate) const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

static GLOBAL: OnceLock<Dispatcher> = OnceLock::new();

impl Dispatcher {
    /// The tools this dispatcher serves.
    pub fn registry(&self) -> &'static Registry {
        self.core.registry
    }

    /// The policy deciding which tools may run, as it is now.
    pub fn policy(&self) -> Arc<Policy> {
        Arc::clone(&self.core.rules().policy)
    }

    /// Replaces the policy, for every clone of this dispatcher; calls already admitted go on.
    /// Returns the previous policy. A server uses this to apply a changed configuration and
    /// then tells its clients that the tool list changed.
    pub fn set_policy(&self, policy: Policy) -> Arc<Policy> {
        let policy = Arc::new(policy);
        let previous = self.core.change_rules(|rules| Rules {
            policy,
            timeouts: rules.timeouts.clone(),
        });
        Arc::clone(&previous.policy)
    }

    /// The timeouts of calls that set none, as they are now.
    pub fn timeouts(&self) -> Timeouts {
        self.core.rules().timeouts.clone()
    }

    /// Replaces the timeouts of calls that set none, for every clone of this dispatcher (tools
    /// named by an alias are stored under their own names); calls already admitted keep theirs.
    /// Returns the previous timeouts.
    pub fn set_timeouts(&self, timeouts: Timeouts) -> Timeouts {
        let timeouts = self.resolve_timeouts(timeouts);
        let previous = self.core.change_rules(|rules| Rules {
            policy: Arc::clone(&rules.policy),
            timeouts,
        });
        previous.timeouts.clone()
    }

    /// Timeouts kept under the tools' own names, so that a call by an alias finds them too.
    pub(crate) fn resolve_timeouts(&self, timeouts: Timeouts) -> Timeouts {
        let registry = self.core.registry;
        Timeouts {
            default: timeouts.default,
            per_tool: timeouts
                .per_tool
                .into_iter()
                .map(|(name, timeout)| {
                    let name = registry
                        .get(&name)
                        .map_or(name, |tool| tool.name().to_owned());
                    (name, timeout)
                })
                .collect(),
        }
    }

    /// The timeout that applies to `tool` (by name or alias) when a call sets none.
    pub fn timeout_for(&self, tool: &str) -> Option<std::time::Duration> {
        let found = self.core.registry.get(tool);
        let name = found.as_ref().map_or(tool, |t| t.name());
        self.core.rules().timeouts.for_tool(name)
    }

    /// The limits every call's input is measured against before it is validated.
    pub fn input_limits(&self) -> InputLimits {
        self.core.limits
    }

    /// Checks the raw JSON text of an input against the input limits before it is parsed (its
    /// length, and how deep its brackets nest outside strings); the error is the `validation`
    /// error a call with that input answers.
    pub fn check_input_text(&self, text: &[u8]) -> Result<(), crate::error::ToolError> {
        let limits = self.core.limits;
        limits
            .check_text(text)
            .map_err(|exceeded| limits.error(exceeded))
    }

    /// Whether `tool` may run under the current policy.
    pub fn allows(&self, tool: &crate::descriptor::ToolDescriptor) -> bool {
        self.core.rules().policy.allows(tool)
    }

    /// Adds a layer around every call admitted from now on, innermost (after the layers there
    /// are), for every clone of this dispatcher: for front ends that add their own (the
    /// server's authorization). A host adds its layers with
    /// [`DispatcherBuilder::layer`](crate::DispatcherBuilder::layer).
    #[doc(hidden)]
    pub fn add_layer(&self, layer: impl Layer) {
        self.core.layers.push(Arc::new(layer), false);
    }

    /// Adds a layer around every call admitted from now on, outermost (before the layers
    /// there are, so that it sees what they refuse): an audit log a front end adds to a host's
    /// dispatcher.
    #[doc(hidden)]
    pub fn add_outer_layer(&self, layer: impl Layer) {
        self.core.layers.push(Arc::new(layer), true);
    }

    /// Whether `principal` may see `tool`: the policy allows it and no layer hides it (a tool
    /// whose scopes the principal lacks, under [`RequireScopes`]). What listings show a caller.
    ///
    /// [`RequireScopes`]: crate::middleware::RequireScopes
    pub fn visible_to(
        &self,
        tool: &crate::descriptor::ToolDescriptor,
        principal: Option<&crate::principal::Principal>,
    ) -> bool {
        self.allows(tool) && self.core.layers.visible(tool, principal)
    }

    /// Whether no layer hides `tool` from `principal` (the policy aside): what a listing that
    /// read the policy once asks of each tool. Not public API.
    #[doc(hidden)]
    pub fn layers_show(
        &self,
        tool: &crate::descriptor::ToolDescriptor,
        principal: Option<&crate::principal::Principal>,
    ) -> bool {
        self.core.layers.visible(tool, principal)
    }

    /// A handle that does not keep the dispatcher alive: host state that needs the dispatcher
    /// it lives in (a task runner starting calls of its own, say) holds this, so that the two do
    /// not keep each other alive.
    pub fn downgrade(&self) -> WeakDispatcher {
        WeakDispatcher {
            core: Arc::downgrade(&self.core),
        }
    }

    /// The process-wide dispatcher: the one installed with
    /// [`install_global`](Self::install_global), or a default one.
    pub fn global() -> &'static Dispatcher {
        GLOBAL.get_or_init(Dispatcher::new)
    }

    /// Makes this dispatcher the process-wide one ([`global`](Self::global)). Fails (giving it
    /// back) when the global dispatcher was already set or used.
    pub fn install_global(self) -> Result<(), Dispatcher> {
        GLOBAL.set(self)
    }
}

/// A [`Dispatcher`] that may be gone: see [`Dispatcher::downgrade`]. The default one never
/// upgrades.
#[derive(Clone, Default)]
pub struct WeakDispatcher {
    core: Weak<Core>,
}

impl WeakDispatcher {
    /// The dispatcher, while any clone of it is alive.
    pub fn upgrade(&self) -> Option<Dispatcher> {
        self.core.upgrade().map(|core| Dispatcher { core })
    }
}

impl fmt::Debug for WeakDispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakDispatcher")
            .field("alive", &(self.core.strong_count() > 0))
            .finish()
    }
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rules = self.core.rules();
        f.debug_struct("Dispatcher")
            .field("tools", &self.core.registry.len())
            .field("policy", &rules.policy)
            .field("timeouts", &rules.timeouts)
            .field("main_thread", &self.core.main.mode())
            .finish_non_exhaustive()
    }
}
