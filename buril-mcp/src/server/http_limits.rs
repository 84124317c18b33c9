//! What the Streamable HTTP server gives a client that is slow, idle or one too many: a time
//! to send its request's headers, a time to send its body, and a cap on open connections.
//!
//! - **Headers** (slowloris): hyper's header read timeout, from the first byte a connection is
//!   read for (and between requests of a kept-alive connection, so it is also the idle
//!   timeout); when it passes, the connection is answered `408 Request Timeout` and closed.
//! - **Bodies** (slow POSTs): a request's body must have arrived whole within the body timeout
//!   of its headers; when it passes, the request is answered `408 Request Timeout` and its
//!   connection closed. (The time a tool then takes is the call's timeout, not this.)
//! - **Sessions** (2025-11-25): a session that sends nothing for its idle time ends (its
//!   client's next request with its id is answered 404, as for a session it closed); an ended
//!   session leaves the server's tables at once.
//! - **Stopping** ([`HttpServer::run_until`](super::HttpServer::run_until), SIGTERM or Ctrl-C
//!   for `serve --http`): no connection is accepted any more, idle connections close, a request
//!   in flight is answered and its connection then closed; calls still running after the drain
//!   time are cancelled (a tool that stops for it answers `cancelled`).
//! - **Connections**: past the cap, a new connection is answered `503 Service Unavailable` with
//!   `Retry-After` and closed, without reading its request; the connections already open are
//!   served as before.
//!
//! A slow reader of answers holds only its own connection: each connection is served by a task
//! of its own, and what waits to be written to it is bounded by the socket's buffers and the
//! SDK's channels.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

/// The time clients have to send their requests, and how many connections are served at once.
///
/// ```
/// use std::time::Duration;
/// use buril::server::{HttpLimits, ServerOptions};
///
/// let options = ServerOptions::new().http_limits(
///     HttpLimits::new()
///         .header_timeout(Duration::from_secs(5))
///         .max_connections(256),
/// );
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    pub(crate) header_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) idle_session: Duration,
    pub(crate) drain: Duration,
    pub(crate) max_connections: usize,
    pub(crate) retry_after: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits::new()
    }
}

impl HttpLimits {
    /// What the server allows by default: 10 s for a request's headers (and for an idle
    /// kept-alive connection's next request), 30 s for its body, 5 minutes for an idle session,
    /// 1,024 connections at once, a refused client told to retry after 1 s, and 10 s for the
    /// calls in flight when the server stops.
    pub const fn new() -> Self {
        HttpLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_session: Duration::from_secs(300),
            drain: Duration::from_secs(10),
            max_connections: 1024,
            retry_after: Duration::from_secs(1),
        }
    }

    /// How long a client has to send a request's headers, from the first byte the server reads
    /// for them; a kept-alive connection that sends no next request within it is closed too.
    /// Past it, the connection is answered `408 Request Timeout` and closed. At least 1 ms.
    pub const fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = at_least_a_millisecond(timeout);
        self
    }

    /// How long a client has to send a request's body, from the moment its headers arrived.
    /// Past it, the request is answered `408 Request Timeout` and its connection closed. At
    /// least 1 ms.
    pub const fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = at_least_a_millisecond(timeout);
        self
    }

    /// How long a legacy (2025-11-25) session may send nothing before it ends; its client's
    /// next request with its id is then answered 404, and a client opens a new session. At
    /// least 1 ms.
    pub const fn idle_session(mut self, idle: Duration) -> Self {
        self.idle_session = at_least_a_millisecond(idle);
        self
    }

    /// How long the calls and tasks in flight have to finish when the server stops
    /// ([`HttpServer::run_until`](super::HttpServer::run_until)); past it, they are cancelled
    /// (tasks recorded as failed, saying why). The stdio transport gives the tasks still
    /// running when its input ends the same time.
    pub const fn drain(mut self, drain: Duration) -> Self {
        self.drain = drain;
        self
    }

    /// How many connections are served at once; a connection past them is answered `503
    /// Service Unavailable` with `Retry-After` and closed. At least 1.
    pub const fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = if connections == 0 {
            1
        } else if connections > u32::MAX as usize {
            u32::MAX as usize
        } else {
            connections
        };
        self
    }

    /// What `Retry-After` tells a client refused for the connection cap (whole seconds, at
    /// least 1).
    pub const fn retry_after(mut self, after: Duration) -> Self {
        self.retry_after = after;
        self
    }

    /// `Retry-After`'s seconds.
    pub(crate) fn retry_after_seconds(&self) -> u64 {
        self.retry_after.as_secs().max(1)
    }
}

const fn at_least_a_millisecond(timeout: Duration) -> Duration {
    if timeout.as_millis() == 0 {
        Duration::from_millis(1)
    } else {
        timeout
    }
}

/// The answer to a connection past the cap.
pub(crate) fn busy_answer(limits: &HttpLimits) -> String {
    let text = "Service Unavailable: the server has as many connections as it serves at once; \
                retry later\n";
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nretry-after: {}\r\nconnection: close\r\n\
         content-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n\r\n{text}",
        limits.retry_after_seconds(),
        text.len()
    )
}

/// The answer to a request whose headers did not arrive in time.
pub(crate) fn timeout_answer() -> String {
    let text = "Request Timeout: the request's headers did not arrive in time\n";
    format!(
        "HTTP/1.1 408 Request Timeout\r\nconnection: close\r\n\
         content-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n\r\n{text}",
        text.len()
    )
}

/// The answer to a request whose body did not arrive in time; its connection is closed after.
pub(crate) fn late_body_answer()
-> hyper::Response<http_body_util::combinators::BoxBody<bytes::Bytes, std::convert::Infallible>> {
    use http_body_util::BodyExt;
    let text = "Request Timeout: the request's body did not arrive in time\n";
    let mut response =
        hyper::Response::new(http_body_util::Full::new(bytes::Bytes::from(text)).boxed());
    *response.status_mut() = hyper::StatusCode::REQUEST_TIMEOUT;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    response
}

/// A request's body that must have arrived whole by a deadline: past it, the body fails
/// ([`Late`](BodyError::Late)) and says so in `late`.
pub(crate) struct Timed<B> {
    inner: B,
    deadline: Pin<Box<tokio::time::Sleep>>,
    late: Arc<AtomicBool>,
}

impl<B> Timed<B> {
    /// `inner`, due within `within` from now; with the flag that says whether it came late.
    pub(crate) fn new(inner: B, within: Duration) -> (Timed<B>, Arc<AtomicBool>) {
        let late = Arc::new(AtomicBool::new(false));
        let timed = Timed {
            inner,
            deadline: Box::pin(tokio::time::sleep(within)),
            late: Arc::clone(&late),
        };
        (timed, late)
    }
}

/// Why a [`Timed`] body could not be read.
#[derive(Debug)]
pub(crate) enum BodyError<E> {
    /// It had not arrived whole by its deadline.
    Late,
    /// Reading it failed.
    Read(E),
}

impl<E: std::fmt::Display> std::fmt::Display for BodyError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::Late => f.write_str("the request's body did not arrive in time"),
            BodyError::Read(error) => error.fmt(f),
        }
    }
}

impl<B: hyper::body::Body + Unpin> hyper::body::Body for Timed<B> {
    type Data = B::Data;
    type Error = BodyError<B::Error>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<B::Data>, Self::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(BodyError::Read)));
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            this.late.store(true, Ordering::Relaxed);
            return Poll::Ready(Some(Err(BodyError::Late)));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// Writes `answer` to a connection that is to be closed, then reads what the client still
/// sends for a moment (at most `linger`) so that closing the socket with unread data does not
/// reset the connection before the client reads the answer.
pub(crate) async fn answer_and_close(mut stream: TcpStream, answer: &[u8], linger: Duration) {
    let written = tokio::time::timeout(linger, async {
        stream.write_all(answer).await?;
        stream.shutdown().await
    })
    .await;
    if !matches!(written, Ok(Ok(()))) {
        return;
    }
    let _ = tokio::time::timeout(linger, async {
        let mut sink = [0u8; 4096];
        while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
    })
    .await;
}

/// A connection as hyper reads and writes it, noting whether it has read bytes of a request
/// not answered yet: a connection whose header time passes with a request begun is answered
/// `408`; an idle kept-alive one is closed without a word (clients take an answer nobody asked
/// for on an idle connection for a protocol error).
pub(crate) struct Watched {
    stream: TcpStream,
    begun: Arc<AtomicBool>,
}

impl Watched {
    /// `stream`, watched; with the flag that says whether a request has begun.
    pub(crate) fn new(stream: TcpStream) -> (Watched, Arc<AtomicBool>) {
        let begun = Arc::new(AtomicBool::new(false));
        let watched = Watched {
            stream,
            begun: Arc::clone(&begun),
        };
        (watched, begun)
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.begun.store(true, Ordering::Relaxed);
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.begun.store(false, Ordering::Relaxed);
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.begun.store(false, Ordering::Relaxed);
        Pin::new(&mut this.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// A second handle of `stream`'s socket, to answer on once hyper has let go of the first; and
/// `stream` back (re-registered with the runtime). No second handle if the socket cannot be
/// duplicated.
pub(crate) fn with_spare(
    stream: TcpStream,
) -> io::Result<(TcpStream, Option<std::net::TcpStream>)> {
    let stream = stream.into_std()?;
    let spare = stream.try_clone().ok();
    Ok((TcpStream::from_std(stream)?, spare))
}
