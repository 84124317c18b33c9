//! Running a tool's function on the current thread, with its panics contained: a sync tool
//! directly, an async one driven to completion here, or polled where it is spawned.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::settle::{CallResult, cancelled_before_start};
use crate::args::Args;
use crate::context::Context as CallContext;
use crate::descriptor::Invoke;
use crate::error::{ErrorKind, ToolError};

/// Runs a sync tool here, unless its call was cancelled before it started.
pub(crate) fn run_sync(
    name: &'static str,
    function: fn(&CallContext, Args) -> CallResult,
    ctx: &CallContext,
    args: Args,
) -> CallResult {
    if ctx.is_cancelled() {
        return Err(cancelled_before_start(name));
    }
    contain_panic(name, catch_unwind(AssertUnwindSafe(|| function(ctx, args))))
}

/// Runs a tool on the calling thread (the main thread): a sync tool directly, an async one
/// driven to completion here on `handle`'s runtime.
pub(crate) fn run_here(
    name: &'static str,
    invoke: Invoke,
    ctx: CallContext,
    args: Args,
    handle: Option<&tokio::runtime::Handle>,
) -> CallResult {
    match (invoke, handle) {
        (Invoke::Sync(function), _) => run_sync(name, function, &ctx, args),
        (_, _) if ctx.is_cancelled() => Err(cancelled_before_start(name)),
        (Invoke::Async(function), Some(handle)) => {
            contain_panic(name, block_on(handle, CatchUnwind(function(ctx, args))))
        }
        (Invoke::Provided(handler), Some(handle)) => {
            contain_panic(name, block_on(handle, CatchUnwind(handler.call(ctx, args))))
        }
        (_, None) => Err(ToolError::runtime(format!(
            "the async tool `{name}` was run without a runtime"
        ))),
    }
}

/// Runs an async tool's future to completion where it is polled (a task of the dispatcher's
/// runtime).
pub(crate) async fn run_async(
    name: &'static str,
    future: crate::descriptor::BoxFuture,
) -> CallResult {
    contain_panic(name, CatchUnwind(future).await)
}

/// Polls a future, turning a panic inside it into an `Err`.
struct CatchUnwind<F>(pub F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

/// The `panic` error for a tool that panicked with `payload`.
fn panic_error(tool: &str, payload: &(dyn Any + Send)) -> ToolError {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned());
    ToolError::new(
        ErrorKind::Panic,
        format!("the tool `{tool}` panicked: {detail}"),
    )
}

/// Flattens a caught result.
fn contain_panic(tool: &str, caught: Result<CallResult, Box<dyn Any + Send>>) -> CallResult {
    caught.unwrap_or_else(|payload| Err(panic_error(tool, payload.as_ref())))
}

/// Drives `future` to completion on the calling thread, parking between polls, inside
/// `handle`'s context so that Tokio timers and I/O work. Unlike `Handle::block_on` it may be
/// called from within a runtime, which a main-thread tool calling another async main-thread
/// tool needs.
fn block_on<F: Future>(handle: &tokio::runtime::Handle, future: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Wake, Waker};

    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }

    let _entered = handle.enter();
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park();
    }
}
