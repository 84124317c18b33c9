//! Execution: a call placed, started and waited for, by a blocking waiter or an async one. The
//! two waiters share the placement rules; they differ only in how they wait.

use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use super::admit::Admitted;
use super::core::{CANCEL_GRACE, Core};
use super::place::{Place, Started, Waiter, place, run_in_place, start};
use super::run::run_async;
use super::settle::{CallResult, discard_if_late, dropped, shut_down, timeout_error};
use crate::context::CancelToken;
use crate::descriptor::Invoke;
use crate::error::ToolError;

/// Runs `call`, blocking the calling thread until it ends, its deadline passes or it is
/// cancelled.
pub(crate) fn execute_blocking(core: &Core, call: Admitted) -> CallResult {
    let name = call.tool.static_name();
    let deadline = call.deadline;
    let at = place(core, &call, Waiter::Blocking);
    if at == Place::Here {
        return discard_if_late(run_in_place(core, call), name, deadline);
    }
    let cancel = call.ctx.cancel_token().clone();
    let (tx, rx) = mpsc::sync_channel(1);
    let Started { task, replies } = start(core, at, call, tx);
    // Watches for the answer first: from a thread that stays awake between calls it comes
    // sooner than this one would wake up from a sleep (`hot.rs`).
    let mut early = None;
    let wait = replies.map(|spin| {
        spin.watch(|| match rx.try_recv() {
            Ok(result) => {
                early = Some(result);
                true
            }
            Err(TryRecvError::Empty) => false,
            Err(TryRecvError::Disconnected) => true,
        })
    });
    // Waits in slices, to see a cancellation that comes while the result does not.
    const SLICE: Duration = Duration::from_millis(20);
    let result = loop {
        if let Some(result) = early.take() {
            break result;
        }
        let now = Instant::now();
        let mut slice = SLICE;
        if let Some(deadline) = deadline {
            if now >= deadline.at {
                cancel.cancel();
                break Err(timeout_error(name, deadline.timeout));
            }
            slice = slice.min(deadline.at - now);
        }
        match rx.recv_timeout(slice) {
            Ok(result) => break result,
            Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => {
                break Err(ToolError::cancelled());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break Err(shut_down(name)),
        }
    };
    if let Some(wait) = wait {
        wait.over();
    }
    if result.is_err()
        && let Some(task) = task
    {
        abort_after_grace(core.runtime().handle(), task);
    }
    result
}

/// Runs `call` in the caller's task, whatever executor drives it: the tool itself runs where it
/// is placed, and the deadline is a timer of the dispatcher's runtime. No hop through another
/// task on the way, so a call costs the caller one wake-up.
pub(crate) async fn execute_async(core: &Core, call: Admitted) -> CallResult {
    let name = call.tool.static_name();
    let deadline = call.deadline;
    let at = place(core, &call, Waiter::Async);
    if at == Place::Here {
        // Never blocks, by its author's word (`inline`): run in the caller's task, no thread
        // hop; its deadline is checked when it returns.
        let token = call.ctx.made_token();
        let result = run_in_place(core, call);
        let result = discard_if_late(result, name, deadline);
        if result.is_err()
            && let Some(token) = token
        {
            token.cancel();
        }
        return result;
    }
    if at == Place::Task
        && let Invoke::Provided(handler) = call.tool.invoke()
    {
        return run_provided(core, handler.clone(), call).await;
    }
    let cancel = call.ctx.cancel_token().clone();
    let (tx, mut rx) = tokio::sync::oneshot::channel::<CallResult>();
    let started = start(core, at, call, tx);
    // Aborts (after the grace period) an async tool whose call ends without its result:
    // timed out, cancelled, or this future dropped.
    let mut task = AbortOnDrop(
        started
            .task
            .map(|task| (core.runtime().handle().clone(), task)),
    );
    // A call that went to a thread awake and free is watched for a moment: a quick tool's
    // answer then comes before this task would have been put to sleep and woken again.
    let mut early = None;
    let wait = started.replies.map(|spin| {
        spin.watch(|| match rx.try_recv() {
            Ok(result) => {
                early = Some(result);
                true
            }
            Err(tokio::sync::oneshot::error::TryRecvError::Empty) => false,
            Err(tokio::sync::oneshot::error::TryRecvError::Closed) => {
                early = Some(Err(dropped(name)));
                true
            }
        })
    });
    let result = match early {
        Some(result) => result,
        None => match deadline {
            Some(deadline) => {
                // A timer of the dispatcher's runtime, which has one whatever the caller runs on.
                let expired = {
                    let _runtime = core.runtime().enter();
                    tokio::time::sleep_until(deadline.at.into())
                };
                tokio::select! {
                    result = rx => result.unwrap_or_else(|_| Err(dropped(name))),
                    _ = expired => Err(timeout_error(name, deadline.timeout)),
                    _ = cancel.cancelled() => Err(ToolError::cancelled()),
                }
            }
            None => tokio::select! {
                result = rx => result.unwrap_or_else(|_| Err(dropped(name))),
                _ = cancel.cancelled() => Err(ToolError::cancelled()),
            },
        },
    };
    if let Some(wait) = wait {
        wait.over();
    }
    if result.is_err() {
        cancel.cancel();
    } else {
        task.0 = None;
    }
    result
}

/// A provided tool's call (an external server's, forwarded), polled in its caller's task with
/// the deadline and the caller's cancellation: its handler waits on IO and never blocks, so it
/// needs no task of its own (two thread hand-overs fewer a call). A call that ends without its
/// result drops the handler's future, which is how it is cancelled (the hub's sends the
/// cancellation on to its server).
async fn run_provided(
    core: &Core,
    handler: std::sync::Arc<dyn crate::provider::ToolHandler>,
    call: Admitted,
) -> CallResult {
    let Admitted {
        tool,
        args,
        ctx,
        deadline,
    } = call;
    let name = tool.static_name();
    if ctx.is_cancelled() {
        return Err(super::settle::cancelled_before_start(name));
    }
    let cancel = ctx.cancel_token().clone();
    let work = run_async(name, handler.call(ctx, args));
    let result = match deadline {
        Some(deadline) => {
            let expired = {
                let _runtime = core.runtime().enter();
                tokio::time::sleep_until(deadline.at.into())
            };
            tokio::select! {
                result = work => result,
                _ = expired => Err(timeout_error(name, deadline.timeout)),
                _ = cancel.cancelled() => Err(ToolError::cancelled()),
            }
        }
        None => tokio::select! {
            result = work => result,
            _ = cancel.cancelled() => Err(ToolError::cancelled()),
        },
    };
    if result.is_err() {
        cancel.cancel();
    }
    result
}

fn abort_after_grace(handle: &tokio::runtime::Handle, task: tokio::task::JoinHandle<()>) {
    if task.is_finished() {
        return;
    }
    // Ends with the tool, so that a dispatcher dropped meanwhile sees no task left once the
    // tool has wound down (`Core`'s drop waits for that, at most the grace).
    handle.spawn(async move {
        let mut task = task;
        tokio::select! {
            _ = &mut task => {}
            () = tokio::time::sleep(CANCEL_GRACE) => task.abort(),
        }
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

/// Cancels a call whose caller went away (its future dropped).
pub(crate) struct CancelOnDrop(Option<CancelToken>);

impl CancelOnDrop {
    pub(crate) fn new(token: CancelToken) -> Self {
        CancelOnDrop(Some(token))
    }

    pub(crate) fn disarm(mut self) {
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
