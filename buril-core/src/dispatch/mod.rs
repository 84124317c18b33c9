//! The call pipeline. Every front end (the CLI, the MCP server, the agent team, a host's own
//! code) calls a tool through a [`Dispatcher`], and every call goes through the same stages:
//!
//! 1. **admit** (`admit.rs`): the name (or a deprecated alias) looked up, the input measured
//!    against the limits, the policy and the caller's tool view applied, the input validated
//!    (every problem at once). A refusal is an outcome of its own (`not_found`, `disabled`,
//!    `validation`) and nothing runs.
//! 2. **place** (`place.rs`): where the admitted call runs, decided once: the caller's thread,
//!    the host's main thread, the blocking pool or a task.
//! 3. **execute** (`execute.rs`): the call started there and waited for, by a blocking waiter
//!    or an async one, with its deadline and the caller's cancellation.
//! 4. **settle** (`settle.rs`): the raw result shaped as the output schema says, a late result
//!    answered as a timeout, a cancellation told from a timeout, warnings attached.
//!
//! `core.rs` holds what every clone of a dispatcher shares, `rules.rs` the policy and timeouts
//! it swaps at run time, `builder.rs` and `options.rs` what hosts and callers configure, and
//! `run.rs` the tool's function run with its panics contained.

mod admit;
mod builder;
pub(crate) mod core;
mod execute;
mod hot;
mod lane;
mod main_thread;
mod options;
mod place;
mod rules;
mod run;
mod settle;

use serde_json::Value;

pub use self::builder::DispatcherBuilder;
pub use self::core::{Dispatcher, WeakDispatcher};
use self::execute::{CancelOnDrop, execute_async, execute_blocking};
pub use self::main_thread::MainThread;
pub use self::options::CallOptions;
pub use self::rules::Timeouts;
use crate::envelope::Outcome;
use crate::pattern::ToolView;
use crate::tool_ref::ToolRef;

/// A call at the end of the pipeline, for front ends that map more than its outcome.
pub struct Finished {
    /// The tool the name resolved to (`None`: no tool has that name).
    pub tool: Option<ToolRef>,
    /// Whether the tool ran: false when the call was refused at admission (unknown, disabled,
    /// outside the view, over the limits, invalid input).
    pub admitted: bool,
    /// What the call produced.
    pub outcome: Outcome,
}

impl Finished {
    /// A call of `tool` that ran, and produced `outcome`.
    pub fn ran(tool: ToolRef, outcome: Outcome) -> Self {
        Finished {
            tool: Some(tool),
            admitted: true,
            outcome,
        }
    }

    fn refused(refused: admit::Refused) -> Self {
        Finished {
            tool: refused.tool,
            admitted: false,
            outcome: refused.outcome,
        }
    }
}

impl Dispatcher {
    /// Calls `name` with `input`, blocking until the call ends or its timeout passes.
    /// [`Outcome::into_envelope`] gives the envelope: `{"ok": true, "data": …}` or
    /// `{"ok": false, "type": …, "error": …}`.
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
    /// let outcome = dispatcher.invoke("math_add", json!({"a": 1, "b": 2.5}), CallOptions::default());
    /// assert_eq!(outcome.data(), Some(&json!({"result": 3.5})));
    /// ```
    pub fn invoke(&self, name: &str, input: Value, options: CallOptions) -> Outcome {
        // The stages themselves, not `run`: an `Outcome` moved through `Finished` costs the
        // blocking path some 5% (the paired dispatch benchmark).
        match admit::admit(&self.core, name, input, options) {
            Ok((call, settle)) => settle.outcome(execute_blocking(&self.core, call)),
            Err(refused) => refused.outcome,
        }
    }

    /// Calls `name` with `input` without blocking the caller's executor: sync tools run on a
    /// blocking pool or the main thread, async tools on the dispatcher's runtime. Works from any
    /// executor. Dropping the future cancels the call.
    pub async fn invoke_async(&self, name: &str, input: Value, options: CallOptions) -> Outcome {
        match admit::admit(&self.core, name, input, options) {
            Ok((call, settle)) => self.execute_and_settle(call, settle).await,
            Err(refused) => refused.outcome,
        }
    }

    /// The pipeline, async, for front ends that map more than the outcome: admit, place,
    /// execute, settle. Dropping the future cancels the call.
    #[doc(hidden)]
    pub async fn run_async(&self, name: &str, input: Value, options: CallOptions) -> Finished {
        match admit::admit(&self.core, name, input, options) {
            Ok((call, settle)) => {
                let tool = call.tool.clone();
                Finished::ran(tool, self.execute_and_settle(call, settle).await)
            }
            Err(refused) => Finished::refused(refused),
        }
    }

    /// Admits the call and answers the rest of the pipeline as a future of its own (it owns a
    /// clone of the dispatcher), for front ends that run it in the background, as a task; or
    /// the refusal, when the call was not admitted. The call starts when the future is first
    /// polled; dropping it cancels the call.
    #[doc(hidden)]
    #[allow(clippy::type_complexity)]
    // A refusal is the cold path, answered at once: moved, not boxed.
    #[allow(clippy::result_large_err)]
    pub fn admit_detached(
        &self,
        name: &str,
        input: Value,
        options: CallOptions,
    ) -> Result<(ToolRef, impl Future<Output = Outcome> + Send + 'static), Finished> {
        match admit::admit(&self.core, name, input, options) {
            Ok((call, settle)) => {
                let tool = call.tool.clone();
                let dispatcher = self.clone();
                Ok((tool, async move {
                    dispatcher.execute_and_settle(call, settle).await
                }))
            }
            Err(refused) => Err(Finished::refused(refused)),
        }
    }

    async fn execute_and_settle(&self, call: admit::Admitted, settle: settle::Settle) -> Outcome {
        let guard = CancelOnDrop::new(call.ctx.cancel_token().clone());
        let result = execute_async(&self.core, call).await;
        guard.disarm();
        settle.outcome(result)
    }

    /// Up to three names close to `name` among the tools a caller may call now (under the
    /// policy; within `view` when given; among the tools no layer hides from `principal`),
    /// best first: what a front end suggests for a name that is unknown or not callable.
    pub fn suggest_callable(
        &self,
        name: &str,
        view: Option<&ToolView>,
        principal: Option<&crate::principal::Principal>,
    ) -> Vec<String> {
        admit::callable_suggestions(&self.core, name, view, principal)
    }

    /// Runs the main-thread calls waiting in the queue, on the calling thread, and returns how
    /// many ran. A host using [`MainThread::Host`] calls this from its update tick.
    ///
    /// # Panics
    /// With [`MainThread::Host`], when called from a thread other than the one that built the
    /// dispatcher.
    pub fn pump(&self) -> usize {
        let main = &self.core.main;
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
        self.core.main.pending()
    }
}
