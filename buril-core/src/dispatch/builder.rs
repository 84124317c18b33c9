//! Configuring a dispatcher.

use std::sync::Arc;
use std::time::Duration;

use super::core::{Core, CoreParts, Dispatcher};
use super::hot::MAX_SPIN;
use super::main_thread::{MainQueue, MainThread};
use super::rules::{Rules, Timeouts};
use crate::context::State;
use crate::input_limits::InputLimits;
use crate::middleware::Layer;
use crate::policy::Policy;
use crate::registry::{Registry, registry};

/// Configures a [`Dispatcher`].
pub struct DispatcherBuilder {
    registry: Option<&'static Registry>,
    policy: Policy,
    state: State,
    timeouts: Timeouts,
    main_thread: MainThread,
    worker_threads: usize,
    limits: InputLimits,
    layers: Vec<Arc<dyn Layer>>,
    spin: bool,
}

impl Default for DispatcherBuilder {
    fn default() -> Self {
        DispatcherBuilder {
            registry: None,
            policy: Policy::default(),
            state: State::new(),
            timeouts: Timeouts::new(),
            main_thread: MainThread::Owned,
            worker_threads: 2,
            limits: InputLimits::default(),
            layers: Vec::new(),
            spin: true,
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
    ///
    /// [`Context::state`]: crate::Context::state
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
        self.timeouts.default = Some(timeout);
        self
    }

    /// The timeout of one tool, by name.
    pub fn tool_timeout(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.timeouts.per_tool.insert(tool.into(), timeout);
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

    /// Whether threads that hand calls to each other watch for a moment before they sleep.
    /// Default: yes, on a machine of two cores or more.
    ///
    /// Waking a sleeping thread costs several microseconds each way; so the thread that runs
    /// main-thread tools, the one that takes sync tools' calls first, and a caller waiting for
    /// either's answer watch for the other side for up to 200 µs, giving up their CPU between
    /// looks to any thread that wants it, and learning per place how long is worth it (long for
    /// calls back to back, short for sparse calls and slow tools, nothing on a crowded
    /// machine). With `false` nobody watches: a host that counts its CPU time more than its
    /// calls' latency, or shares its cores with work of its own, saves what the watching costs;
    /// sync tools' calls then go straight to the blocking pool.
    pub fn spin(mut self, spin: bool) -> Self {
        self.spin = spin;
        self
    }

    /// The largest input a call may have, in bytes of its compact JSON text (escapes inside
    /// strings, and a float's digits past its first decimal, not counted). A larger input
    /// answers `validation` before it is validated. Default: [`InputLimits::DEFAULT`]
    /// (4 MiB). The CLI and the MCP server apply it to the raw text they read, before parsing.
    ///
    /// [`InputLimits::DEFAULT`]: crate::InputLimits::DEFAULT
    pub fn max_input_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_bytes = bytes;
        self
    }

    /// The deepest nesting of arrays and objects a call's input may have (`{}` is one level).
    /// A deeper input answers `validation` before it is validated, and is measured and freed
    /// without recursion. Default: [`InputLimits::DEFAULT`] (64); at most 100 is useful, as
    /// validation and JSON parsing recurse once per level.
    ///
    /// [`InputLimits::DEFAULT`]: crate::InputLimits::DEFAULT
    pub fn max_input_depth(mut self, depth: usize) -> Self {
        self.limits.max_depth = depth;
        self
    }

    /// Adds a layer around every call, inside the layers added before: see
    /// [`middleware`](crate::middleware).
    pub fn layer(mut self, layer: impl Layer) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }

    /// The dispatcher. With [`MainThread::Host`], the calling thread becomes the main thread.
    pub fn build(self) -> Dispatcher {
        let registry = self.registry.unwrap_or_else(registry);
        let spin = if self.spin { MAX_SPIN } else { Duration::ZERO };
        let dispatcher = Dispatcher {
            core: Core::new(CoreParts {
                registry,
                rules: Rules {
                    policy: Arc::new(self.policy),
                    timeouts: Timeouts::new(),
                },
                state: self.state,
                main: MainQueue::new(self.main_thread, spin),
                spin,
                worker_threads: self.worker_threads,
                limits: self.limits,
                layers: self.layers,
            }),
        };
        if !self.timeouts.is_empty() {
            dispatcher.set_timeouts(self.timeouts);
        }
        dispatcher
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
}
