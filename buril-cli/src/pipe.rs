//! Standard output that may be a pipe whose reader has gone (`tools list | head`): like other
//! command-line tools, a command then ends quietly.
//!
//! Rust ignores `SIGPIPE`, so a write to a closed pipe fails with `BrokenPipe` instead of
//! ending the process. The CLI hands every command, extensions included, its output through
//! [`Output`], which remembers that the pipe closed and fails every later write at once; the
//! CLI then prints no error for it and exits with the code the command already had (0 unless
//! it had failed).

use std::io::{self, Write};

/// A command's standard output, which knows when its reader has gone.
pub(crate) struct Output<'a> {
    inner: &'a mut dyn Write,
    closed: bool,
}

impl<'a> Output<'a> {
    pub(crate) fn new(inner: &'a mut dyn Write) -> Self {
        Output {
            inner,
            closed: false,
        }
    }

    /// Whether a write found the reader gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    fn check<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        if let Err(error) = &result
            && is_closed_pipe(error)
        {
            self.closed = true;
        }
        result
    }
}

/// Whether `error` says that the reader of a pipe has gone.
pub(crate) fn is_closed_pipe(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
}

/// `result`, with a closed pipe taken as success: for the last output of a command whose exit
/// code is known before it prints (a call that ran, a schema with tools it could not give).
pub(crate) fn unless_closed(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(error) if is_closed_pipe(&error) => Ok(()),
        other => other,
    }
}

fn closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        "standard output was closed by its reader",
    )
}

impl Write for Output<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Err(closed());
        }
        let result = self.inner.write(buf);
        self.check(result)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.closed {
            return Err(closed());
        }
        let result = self.inner.write_all(buf);
        self.check(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Err(closed());
        }
        let result = self.inner.flush();
        self.check(result)
    }
}
