//! Cooperative cancellation: a token a call's context holds, with children that a timeout
//! cancels alone.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

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
    /// The token this one is a child of: its cancellation is seen here at once, before it is
    /// passed down.
    parent: Option<Arc<CancelInner>>,
    /// The cancellation of the MCP request the call serves, seen at once (the server also
    /// passes it down, which wakes the waiters).
    request: Option<tokio_util::sync::CancellationToken>,
}

impl CancelInner {
    fn is_cancelled(&self) -> bool {
        if self.cancelled.load(Ordering::SeqCst) {
            return true;
        }
        if self
            .request
            .as_ref()
            .is_some_and(tokio_util::sync::CancellationToken::is_cancelled)
        {
            return true;
        }
        self.parent
            .as_ref()
            .is_some_and(|parent| parent.is_cancelled())
    }

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
        let child = CancelToken {
            inner: Arc::new(CancelInner {
                parent: Some(Arc::clone(&self.inner)),
                ..CancelInner::default()
            }),
        };
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
    /// [`Context::is_cancelled`](super::Context::is_cancelled).
    pub fn cancel(&self) {
        self.inner.cancel();
    }

    /// A token that is cancelled as soon as the MCP request `request` is: a tool checking
    /// [`Context::is_cancelled`](super::Context::is_cancelled) sees the client's
    /// `notifications/cancelled` at once, not once the server's handler has run again.
    #[doc(hidden)]
    pub fn following(request: tokio_util::sync::CancellationToken) -> CancelToken {
        CancelToken {
            inner: Arc::new(CancelInner {
                request: Some(request),
                ..CancelInner::default()
            }),
        }
    }

    /// Whether this token (or an ancestor) was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
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
