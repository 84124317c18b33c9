//! Standard input and output for the stdio transport.
//!
//! When they are pipes (as when an MCP client starts the server), they are read and written
//! through the runtime's reactor, without a thread in between: tokio's `Stdin` and `Stdout`
//! hand every read and every write to a blocking thread, a thread wake-up per message each
//! way. Anything else (a terminal, a file) goes through tokio's `Stdin` and `Stdout`.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Standard input as an async reader.
pub(crate) enum Input {
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Receiver),
    Std(tokio::io::Stdin),
}

/// Standard output as an async writer.
pub(crate) enum Output {
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Sender),
    Std(tokio::io::Stdout),
}

impl Input {
    /// A watch of this input for `window` after answers are written (`watch.rs`): only of a
    /// pipe, which the reactor reads.
    pub(crate) fn watch(&self, window: std::time::Duration) -> Option<super::watch::InputWatch> {
        match self {
            #[cfg(unix)]
            Input::Pipe(pipe) => {
                use std::os::fd::AsFd;
                super::watch::InputWatch::new(pipe.as_fd(), window)
            }
            Input::Std(_) => {
                let _ = window;
                None
            }
        }
    }
}

/// Standard input and output. Must run in a runtime with IO enabled when they are pipes.
pub(crate) fn open() -> (Input, Output) {
    (input(), output())
}

#[cfg(unix)]
fn input() -> Input {
    use std::os::fd::AsFd;
    // A duplicate of fd 0: the same pipe, set non-blocking for the reactor.
    let pipe = io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(tokio::net::unix::pipe::Receiver::from_owned_fd);
    match pipe {
        Ok(pipe) => Input::Pipe(pipe),
        Err(_) => Input::Std(tokio::io::stdin()),
    }
}

#[cfg(unix)]
fn output() -> Output {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    // Standard error on the same pipe (`2>&1`) would turn non-blocking too, and a full pipe
    // would then make writes to it fail: keep tokio's writer then.
    let same = |a: std::os::fd::BorrowedFd<'_>, b: std::os::fd::BorrowedFd<'_>| {
        let meta = |fd: std::os::fd::BorrowedFd<'_>| {
            fd.try_clone_to_owned()
                .and_then(|fd| std::fs::File::from(fd).metadata())
        };
        match (meta(a), meta(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => true,
        }
    };
    let stdout = io::stdout();
    let stderr = io::stderr();
    if same(stdout.as_fd(), stderr.as_fd()) {
        return Output::Std(tokio::io::stdout());
    }
    let pipe = stdout
        .as_fd()
        .try_clone_to_owned()
        .and_then(tokio::net::unix::pipe::Sender::from_owned_fd);
    match pipe {
        Ok(pipe) => Output::Pipe(pipe),
        Err(_) => Output::Std(tokio::io::stdout()),
    }
}

#[cfg(not(unix))]
fn input() -> Input {
    Input::Std(tokio::io::stdin())
}

#[cfg(not(unix))]
fn output() -> Output {
    Output::Std(tokio::io::stdout())
}

impl AsyncRead for Input {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Input::Pipe(pipe) => Pin::new(pipe).poll_read(cx, buf),
            Input::Std(stdin) => Pin::new(stdin).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_write(cx, buf),
            Output::Std(stdout) => Pin::new(stdout).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_flush(cx),
            Output::Std(stdout) => Pin::new(stdout).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_shutdown(cx),
            Output::Std(stdout) => Pin::new(stdout).poll_shutdown(cx),
        }
    }
}
