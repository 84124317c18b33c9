//! Placement, the pipeline's second stage: where an admitted call runs, decided once, and
//! starting it there.
//!
//! | the tool | a blocking caller | an async caller |
//! | --- | --- | --- |
//! | main-thread, caller on the main thread | here | the main queue |
//! | main-thread, any other caller | the main queue | the main queue |
//! | sync `off_thread`, `inline` | here | here |
//! | sync `off_thread`, no deadline | here | the blocking pool |
//! | sync `off_thread`, a deadline | the blocking pool | the blocking pool |
//! | async `off_thread` | a task | a task |
//! | done in the editor (`editor`) | a task | a task |
//!
//! The table reads the attribute and the caller, nothing learned: a sync `off_thread` tool may
//! block (file or network IO, a runtime of its own, `reqwest::blocking`), so an async caller
//! never runs it in its own task, where a block would stall every other task of that worker
//! and Tokio refuses a runtime's `block_on`. Only `inline`, the author's word that the tool
//! never blocks, runs it there.
//!
//! A call placed on the blocking pool runs on a sync lane instead when one is free (`lane.rs`):
//! threads that stay awake between calls, one a core, each taken by one call at a time, so that
//! calls wake nobody. A call that blocks its lane only makes the next calls take another lane
//! or the pool.
//!
//! A call placed *here* runs on the caller's thread or task and cannot be interrupted: its
//! deadline is checked when it returns. Every other placement answers through a [`Reply`] that
//! the caller's waiter (blocking or async, in `execute.rs`) waits on with the deadline and the
//! caller's cancellation.

use tokio::task::JoinHandle;

use super::admit::Admitted;
use super::core::Core;
use super::hot::Replies;
use super::lane::LaneRelease;
use super::run::{run_async, run_here, run_sync};
use super::settle::CallResult;
use crate::descriptor::{Invoke, Threading};

/// Where a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// On the caller's thread or task, now.
    Here,
    /// Queued for the host's main thread.
    MainQueue,
    /// On a thread of the dispatcher's blocking pool.
    BlockingPool,
    /// As a task of the dispatcher's runtime.
    Task,
}

/// Who waits for the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waiter {
    /// A thread that blocks until the call ends (`invoke`).
    Blocking,
    /// A future awaited on any executor (`invoke_async`).
    Async,
}

/// Where `call` runs when `waiter` waits for it.
pub(crate) fn place(core: &Core, call: &Admitted, waiter: Waiter) -> Place {
    let tool = &call.tool;
    // An editor tool's threading is the editor's: here its call is a request on the way there.
    if tool.meta().editor {
        return Place::Task;
    }
    let threading = tool.threading();
    if !threading.is_off_thread() {
        return match waiter {
            Waiter::Blocking if core.main.is_current() => Place::Here,
            _ => Place::MainQueue,
        };
    }
    match tool.invoke() {
        Invoke::Sync(_) if threading == Threading::Inline => Place::Here,
        // No deadline to keep: a blocking caller may as well run it itself.
        Invoke::Sync(_) if waiter == Waiter::Blocking && call.deadline.is_none() => Place::Here,
        Invoke::Sync(_) => Place::BlockingPool,
        Invoke::Async(_) | Invoke::Provided(_) => Place::Task,
    }
}

/// Where a call's result goes: the channel its waiter waits on.
pub(crate) trait Reply: Send + 'static {
    /// Hands `result` over; gives it back when the waiter stopped waiting (the call was
    /// cancelled or timed out, or its caller went away).
    fn send(self, result: CallResult) -> Result<(), CallResult>;
}

impl Reply for std::sync::mpsc::SyncSender<CallResult> {
    fn send(self, result: CallResult) -> Result<(), CallResult> {
        std::sync::mpsc::SyncSender::send(&self, result).map_err(|e| e.0)
    }
}

impl Reply for tokio::sync::oneshot::Sender<CallResult> {
    fn send(self, result: CallResult) -> Result<(), CallResult> {
        tokio::sync::oneshot::Sender::send(self, result)
    }
}

/// Hands a tool's result to its waiter; a result nobody waits for any more is dropped, with a
/// `tracing` event (target `buril::dispatch`, level DEBUG) saying what the tool returned, which
/// shows whether a tool stops when its call is cancelled (`returned = "cancelled"`: it saw the
/// cancellation through its context) or runs on to the end.
fn deliver(name: &'static str, reply: impl Reply, result: CallResult) {
    if let Err(late) = reply.send(result) {
        tracing::debug!(
            target: "buril::dispatch",
            tool = name,
            returned = match &late {
                Ok(_) => "ok",
                Err(error) => error.kind().as_str(),
            },
            "the tool returned after its call ended; its result is dropped"
        );
    }
}

/// Runs `call` here, on the caller's thread (async tools driven to completion on it).
#[inline(always)]
pub(crate) fn run_in_place(core: &Core, call: Admitted) -> CallResult {
    let Admitted {
        tool, args, ctx, ..
    } = call;
    let name = tool.static_name();
    match tool.invoke() {
        Invoke::Sync(function) => run_sync(name, *function, &ctx, args),
        invoke => {
            let handle = core.runtime().handle();
            run_here(name, invoke.clone(), ctx, args, Some(handle))
        }
    }
}

/// A call started away from its caller.
pub(crate) struct Started<'a> {
    /// The task of an async tool, so that a call ending without its result can abort it.
    pub(crate) task: Option<JoinHandle<()>>,
    /// When the call went to a thread that stays awake between calls (the main thread, the sync
    /// lane), how long its caller should watch for the answer before sleeping (`hot.rs`).
    pub(crate) replies: Option<Replies<'a>>,
}

/// Starts `call` at `place` (anything but [`Place::Here`]: the
/// main queue, or else the sync lane or the blocking pool for a sync tool and a task for an
/// async one), answering through `reply`.
pub(crate) fn start<'a>(
    core: &'a Core,
    place: Place,
    call: Admitted,
    reply: impl Reply,
) -> Started<'a> {
    let Admitted {
        tool, args, ctx, ..
    } = call;
    let name = tool.static_name();
    let invoke = tool.invoke().clone();
    debug_assert!(
        place != Place::Here,
        "a call placed here runs in its waiter, not through `start`"
    );
    match (place, invoke) {
        (Place::MainQueue, invoke) => {
            // The runtime an async tool needs on the main thread (none for a sync tool, so that
            // sync-only hosts never start the runtime).
            let handle =
                (!matches!(invoke, Invoke::Sync(_))).then(|| core.runtime().handle().clone());
            let replies = core.main.submit(Box::new(move || {
                deliver(
                    name,
                    reply,
                    run_here(name, invoke, ctx, args, handle.as_ref()),
                );
            }));
            Started {
                task: None,
                replies,
            }
        }
        (_, Invoke::Sync(function)) => {
            let on_lane = core.sync_lanes.try_run(move |release| {
                let result = run_sync(name, function, &ctx, args);
                drop(release);
                deliver(name, reply, result);
            });
            let replies = match on_lane {
                Ok(replies) => Some(replies),
                Err(errand) => {
                    core.runtime()
                        .spawn_blocking(move || errand(LaneRelease::none()));
                    None
                }
            };
            Started {
                task: None,
                replies,
            }
        }
        (_, Invoke::Async(function)) => Started {
            task: Some(core.runtime().spawn(async move {
                deliver(name, reply, run_async(name, function(ctx, args)).await);
            })),
            replies: None,
        },
        (_, Invoke::Provided(handler)) => Started {
            task: Some(core.runtime().spawn(async move {
                deliver(name, reply, run_async(name, handler.call(ctx, args)).await);
            })),
            replies: None,
        },
    }
}
