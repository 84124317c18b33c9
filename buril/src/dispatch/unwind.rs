//! Panic containment for sync and async tools.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::error::{ErrorKind, ToolError};

/// Polls a future, turning a panic inside it into an `Err`.
pub(crate) struct CatchUnwind<F>(pub F);

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
pub(crate) fn panic_error(tool: &str, payload: &(dyn Any + Send)) -> ToolError {
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
pub(crate) fn flatten(
    tool: &str,
    caught: Result<Result<serde_json::Value, ToolError>, Box<dyn Any + Send>>,
) -> Result<serde_json::Value, ToolError> {
    caught.unwrap_or_else(|payload| Err(panic_error(tool, payload.as_ref())))
}

/// Drives `future` to completion on the calling thread, parking between polls, inside
/// `handle`'s context so that Tokio timers and I/O work. Unlike `Handle::block_on` it may be
/// called from within a runtime, which a main-thread tool calling another async main-thread
/// tool needs.
pub(crate) fn block_on<F: Future>(handle: &tokio::runtime::Handle, future: F) -> F::Output {
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
