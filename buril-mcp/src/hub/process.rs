//! Starting an external server's process so that it ends when this process ends, however it
//! ends.
//!
//! The server runs in a process group of its own (on Windows, a job object closed with this
//! process), so that stopping it stops what it started (`npx` starts `node`). Stopping it when
//! this process is killed outright (SIGKILL, a crash) is a watchdog's job: a `sh` that reads a
//! pipe only this process holds open, ignores the signals a terminal sends its foreground group,
//! and, when the pipe closes (this process is gone, however it went), sends the server's group
//! SIGTERM, then SIGKILL two seconds later. What the server writes to its standard error goes
//! to this process's `tracing` (target `buril::hub`), and its last lines into the error said
//! when it exits; a line on its standard output that is not JSON-RPC is kept for the error said
//! when it does not speak MCP.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader, ReadBuf};
use tokio::process::{ChildStdin, ChildStdout};

/// How many of a server's last standard-error lines are kept for its errors.
const LAST_WORDS: usize = 12;

/// The longest line of noise kept.
const NOISE: usize = 200;

/// A started server: the pipes to it, and what keeps it from outliving this process.
pub(crate) struct Started {
    /// Its standard output, read through the noise tap, and its standard input.
    pub(crate) transport: (Tapped, ChildStdin),
    pub(crate) child: Child,
    pub(crate) stderr: Arc<Mutex<VecDeque<String>>>,
    /// Ends when the server's standard error has been read to its end.
    pub(crate) stderr_read: tokio::task::JoinHandle<()>,
    /// The last line of its standard output that was not JSON-RPC.
    pub(crate) noise: Arc<Mutex<Option<String>>>,
}

/// Starts `command` with `args`, `env` and `cwd`.
pub(crate) fn start(
    server: &str,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&PathBuf>,
) -> io::Result<Started> {
    let mut inner = tokio::process::Command::new(command);
    inner
        .args(args)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = cwd {
        inner.current_dir(cwd);
    }
    let mut wrapped = CommandWrap::from(inner);
    #[cfg(unix)]
    wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
    #[cfg(windows)]
    {
        wrapped.wrap(process_wrap::tokio::JobObject);
        wrapped.wrap(process_wrap::tokio::KillOnDrop);
    }
    let mut child = wrapped.spawn()?;
    let (Some(stdin), Some(stdout), stderr) = (
        child.stdin().take(),
        child.stdout().take(),
        child.stderr().take(),
    ) else {
        let _ = child.start_kill();
        return Err(io::Error::other(
            "the server's standard streams could not be taken",
        ));
    };
    let watchdog = match child.id() {
        Some(pid) => Watchdog::start(pid)?,
        None => Watchdog::none(),
    };
    let last = Arc::new(Mutex::new(VecDeque::with_capacity(LAST_WORDS)));
    let kept = Arc::clone(&last);
    let name = server.to_owned();
    let stderr_read = tokio::spawn(async move {
        let Some(stderr) = stderr else { return };
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::info!(target: "buril::hub", server = %name, "{line}");
            let mut last = kept.lock().unwrap_or_else(|e| e.into_inner());
            if last.len() == LAST_WORDS {
                last.pop_front();
            }
            last.push_back(line);
        }
    });
    let noise = Arc::new(Mutex::new(None));
    Ok(Started {
        transport: (
            Tapped {
                inner: stdout,
                line: Vec::new(),
                noise: Arc::clone(&noise),
                server: server.to_owned(),
            },
            stdin,
        ),
        child: Child {
            inner: Some(child),
            watchdog,
        },
        stderr: last,
        stderr_read,
        noise,
    })
}

/// A server's process: stopped (its whole group) when dropped, its watchdog with it.
pub(crate) struct Child {
    inner: Option<Box<dyn ChildWrapper>>,
    watchdog: Watchdog,
}

impl Child {
    /// The process's id, while it runs.
    pub(crate) fn id(&self) -> Option<u32> {
        self.inner.as_ref().and_then(|child| child.id())
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        // On purpose: the watchdog's signals are not wanted.
        self.watchdog.disarm();
        if let Some(mut child) = self.inner.take() {
            let _ = child.start_kill();
            // Reaped where a runtime can wait for it; otherwise when this process ends.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let _ = child.wait().await;
                });
            }
        }
    }
}

/// A server's standard output, passed through as it is, keeping the last line that is not a
/// JSON object (JSON-RPC's messages are), which says why a server "did not speak MCP".
pub(crate) struct Tapped {
    inner: ChildStdout,
    line: Vec<u8>,
    noise: Arc<Mutex<Option<String>>>,
    server: String,
}

impl AsyncRead for Tapped {
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
                    if this.line.len() <= NOISE {
                        this.line.push(byte);
                    }
                    continue;
                }
                let text = String::from_utf8_lossy(&this.line);
                let text = text.trim();
                if !text.is_empty() && !text.starts_with('{') {
                    let shown: String = text.chars().take(NOISE).collect();
                    tracing::warn!(
                        target: "buril::hub",
                        server = %this.server,
                        line = %shown,
                        "the external server wrote a line that is not JSON-RPC to its standard output"
                    );
                    *this.noise.lock().unwrap_or_else(|e| e.into_inner()) = Some(shown);
                }
                this.line.clear();
            }
        }
        polled
    }
}

/// The watchdog of one server's process group (see the module).
pub(crate) struct Watchdog {
    #[cfg(unix)]
    child: Option<tokio::process::Child>,
}

impl Watchdog {
    fn none() -> Self {
        Watchdog {
            #[cfg(unix)]
            child: None,
        }
    }

    #[cfg(unix)]
    fn start(group: u32) -> io::Result<Self> {
        // `$1` is the group; `read` returns when the pipe closes, with this process.
        const SCRIPT: &str = "trap '' INT HUP TERM QUIT; read -r _; kill -TERM -- \"-$1\" \
                              2>/dev/null; sleep 2; kill -KILL -- \"-$1\" 2>/dev/null";
        let child = tokio::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(SCRIPT)
            .arg("buril-watchdog")
            .arg(group.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: a terminal's Ctrl-C to this process's group does not reach it.
            .process_group(0)
            .spawn()?;
        Ok(Watchdog { child: Some(child) })
    }

    #[cfg(not(unix))]
    fn start(_group: u32) -> io::Result<Self> {
        // A job object closed with this process stops the server there.
        Ok(Watchdog::none())
    }

    /// Stops the watchdog without its signals: the server is being stopped on purpose.
    pub(crate) fn disarm(&mut self) {
        #[cfg(unix)]
        if let Some(mut child) = self.child.take() {
            let _ = child.start_kill();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let _ = child.wait().await;
                });
            }
        }
    }
}

/// What a server said that explains why it went: the last lines of its standard error, and a
/// line of its standard output that was not JSON-RPC.
pub(crate) fn last_words(
    stderr: &Mutex<VecDeque<String>>,
    noise: &Mutex<Option<String>>,
) -> String {
    let mut said = String::new();
    if let Some(line) = noise.lock().unwrap_or_else(|e| e.into_inner()).as_deref() {
        said.push_str(&format!(
            "; it wrote `{line}` to its standard output, where only JSON-RPC messages belong"
        ));
    }
    let last = stderr.lock().unwrap_or_else(|e| e.into_inner());
    if !last.is_empty() {
        said.push_str(&format!(
            "; its last words on standard error: {}",
            last.iter().cloned().collect::<Vec<_>>().join(" | ")
        ));
    }
    said
}
