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
