//! The client's end of the pipe, read through a tap that records the server's notifications as
//! their lines pass, in the order they came: before the answer that follows them is read, so
//! that a call's progress and log messages are all recorded when it answers (the client
//! handles notifications on tasks of their own, which may run after the answer is delivered).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

use super::handler::Shared;

pub(crate) struct Tap<R> {
    inner: R,
    line: Vec<u8>,
    shared: Arc<Shared>,
}

impl<R> Tap<R> {
    pub(crate) fn new(inner: R, shared: Arc<Shared>) -> Self {
        Tap {
            inner,
            line: Vec::new(),
            shared,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Tap<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let this = &mut *self;
            for &byte in &buf.filled()[before..] {
                if byte != b'\n' {
                    this.line.push(byte);
                    continue;
                }
                if this.line.starts_with(b"{")
                    && this.line.windows(14).any(|w| w == b"notifications/")
                    && let Ok(message) = serde_json::from_slice(&this.line)
                {
                    this.shared.notified(&message);
                }
                this.line.clear();
            }
        }
        polled
    }
}
