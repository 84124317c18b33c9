//! Watching the stdio transport's input for a moment after its answers are written.
//!
//! A client that calls tools one after another sends its next request soon after it reads an
//! answer. If the server's thread has gone to sleep by then, the request wakes it: on a virtual
//! machine that costs tens of microseconds (an interrupt to another CPU, the hypervisor's
//! scheduling), a large part of a quick call's round trip. So the writer, having written every
//! answer it had while no call is running, looks at the input (`poll` with no timeout, yielding
//! its CPU between looks, so that a client on the same CPU runs) for a short while before it
//! lets its thread go back to the runtime; when a request is there, the runtime finds it ready
//! and reads it without sleeping. The watch ends as soon as there is input, or another answer
//! to write, or a call running, or the window has passed. It is the same trade the dispatcher's
//! sync lane makes (`dispatch/hot.rs`): a few microseconds of CPU for a wake-up not paid.

use std::time::{Duration, Instant};

/// What [`ServerOptions::input_watch`](super::ServerOptions::input_watch) is by default.
pub(crate) const DEFAULT_INPUT_WATCH: Duration = Duration::from_micros(50);

/// Why a watch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Watched {
    /// The input has something to read (or has ended, or failed: the reader will see).
    Input,
    /// The caller's check said there is more to do (an answer to write, a call running).
    More,
    /// The window passed with neither.
    Nothing,
}

/// A watch of one input: a duplicate of its file descriptor, polled without waiting. (Made
/// only on Unix, where standard input is watched when it is a pipe.)
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) struct InputWatch {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    window: Duration,
}

#[cfg_attr(not(unix), allow(dead_code))]
impl InputWatch {
    /// A watch of `input` for `window`; none for a zero window or an input that cannot be
    /// duplicated.
    #[cfg(unix)]
    pub(crate) fn new(input: std::os::fd::BorrowedFd<'_>, window: Duration) -> Option<InputWatch> {
        if window.is_zero() {
            return None;
        }
        let fd = input.try_clone_to_owned().ok()?;
        Some(InputWatch { fd, window })
    }

    /// Watches until the input has something to read, `more` says there is more to do, or the
    /// window has passed.
    pub(crate) fn wait(&self, more: impl Fn() -> bool) -> Watched {
        let start = Instant::now();
        loop {
            if self.readable() {
                return Watched::Input;
            }
            if more() {
                return Watched::More;
            }
            if start.elapsed() >= self.window {
                return Watched::Nothing;
            }
            // Yielded rather than spun: a client sharing this CPU gets it meanwhile.
            std::thread::yield_now();
        }
    }

    #[cfg(unix)]
    fn readable(&self) -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // An error (`EINTR`, say) counts as input: the reader looks and decides.
        poll(&mut fds, Some(&now)).map_or(true, |ready| ready > 0)
    }

    #[cfg(not(unix))]
    fn readable(&self) -> bool {
        true
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::io::Write;
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    use super::{InputWatch, Watched};

    #[test]
    fn a_watch_ends_when_input_arrives() {
        let (mut client, server) = UnixStream::pair().unwrap();
        // A window no test run comes near: the watch ends because the request came.
        let watch = InputWatch::new(server.as_fd(), Duration::from_secs(60)).unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(5));
            client.write_all(b"{}\n").unwrap();
            client
        });
        assert_eq!(watch.wait(|| false), Watched::Input);
        drop(writer.join().unwrap());
    }

    #[test]
    fn a_watch_ends_when_there_is_more_to_write() {
        let (_client, server) = UnixStream::pair().unwrap();
        let watch = InputWatch::new(server.as_fd(), Duration::from_secs(60)).unwrap();
        assert_eq!(watch.wait(|| true), Watched::More);
    }

    #[test]
    fn a_watch_ends_when_its_window_passes() {
        let (_client, server) = UnixStream::pair().unwrap();
        let watch = InputWatch::new(server.as_fd(), Duration::from_millis(1)).unwrap();
        assert_eq!(watch.wait(|| false), Watched::Nothing);
    }

    #[test]
    fn a_closed_input_ends_the_watch_too() {
        let (client, server) = UnixStream::pair().unwrap();
        drop(client);
        let watch = InputWatch::new(server.as_fd(), Duration::from_secs(60)).unwrap();
        assert_eq!(watch.wait(|| false), Watched::Input);
    }

    #[test]
    fn a_zero_window_watches_nothing() {
        let (_client, server) = UnixStream::pair().unwrap();
        assert!(InputWatch::new(server.as_fd(), Duration::ZERO).is_none());
    }
}
