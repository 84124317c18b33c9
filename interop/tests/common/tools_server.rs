//! A `tools serve --http` on a sample project (or any binary with buril's `serve`): what the
//! tests that call a real server share. The `tools` binary itself is
//! `buril_test_support::bin::tools()`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// `tools serve --http 127.0.0.1:0`, killed when dropped.
pub struct HttpServer {
    child: Child,
    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// What the server wrote to standard error after its address, line by line.
    log: Arc<(Mutex<Vec<String>>, Condvar)>,
}

impl HttpServer {
    pub fn start(tools: &Path, project: &Path) -> HttpServer {
        HttpServer::start_with(tools, project, &[])
    }

    /// [`HttpServer::start`] with more arguments of `tools serve`.
    pub fn start_with(tools: &Path, project: &Path, more: &[&str]) -> HttpServer {
        HttpServer::launch(tools, project, "127.0.0.1:0", more, None)
    }

    /// [`HttpServer::start_with`] listening on `address` (`127.0.0.1:PORT`).
    pub fn start_on(tools: &Path, project: &Path, address: &str, more: &[&str]) -> HttpServer {
        HttpServer::launch(tools, project, address, more, None)
    }

    /// Sends the server `signal` (`TERM`, `KILL`…) through `kill(1)`.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([format!("-{signal}"), self.child.id().to_string()])
            .status()
            .expect("kill(1) runs");
        assert!(status.success(), "kill -{signal} failed");
    }

    /// Waits for the server to end (`within` at most: then a failure); answers how.
    pub fn wait_for_exit(&mut self, within: Duration) -> std::process::ExitStatus {
        let started = Instant::now();
        let status =
            buril_test_support::process::wait_for_exit(&mut self.child, "the server to end");
        let took = started.elapsed();
        assert!(
            took < within,
            "the server took {took:?} to end, more than {within:?}"
        );
        status
    }

    /// [`HttpServer::start`] with `BURIL_LOG=filter`: the server's `tracing` events on its
    /// standard error, for [`HttpServer::wait_for_log`].
    pub fn start_logging(tools: &Path, project: &Path, filter: &str) -> HttpServer {
        HttpServer::launch(tools, project, "127.0.0.1:0", &[], Some(filter))
    }

    /// The first line the server logged that contains every one of `parts`, once it comes.
    /// Panics, with everything the server logged, when none came within `within` (a bound on
    /// a wait that ends as soon as the line arrives, so that a missing line fails the test
    /// instead of hanging it).
    pub fn wait_for_log(&self, parts: &[&str], within: Duration) -> String {
        let (lines, arrived) = &*self.log;
        let until = Instant::now() + within;
        let mut seen = lines.lock().expect("the log");
        loop {
            if let Some(line) = seen
                .iter()
                .find(|line| parts.iter().all(|part| line.contains(part)))
            {
                return line.clone();
            }
            let now = Instant::now();
            assert!(
                now < until,
                "the server logged no line with {parts:?} within {within:?}; it logged:\n{}",
                seen.join("\n")
            );
            seen = arrived.wait_timeout(seen, until - now).expect("the log").0;
        }
    }

    fn launch(
        tools: &Path,
        project: &Path,
        address: &str,
        more: &[&str],
        log: Option<&str>,
    ) -> HttpServer {
        let mut command = Command::new(tools);
        command
            .args(["serve", "--http", address])
            .args(more)
            .env("BURIL_PROJECT", project)
            .env_remove("BURIL_LOG");
        if let Some(filter) = log {
            command.env("BURIL_LOG", filter);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", tools.display()));
        let stderr = child.stderr.take().expect("standard error");
        let mut lines = BufReader::new(stderr).lines();
        let prefix = "buril: serving MCP over Streamable HTTP at ";
        let mut seen = Vec::new();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(url) = line.strip_prefix(prefix) {
                        break url.to_owned();
                    }
                    seen.push(line);
                }
                _ => {
                    let _ = child.kill();
                    panic!(
                        "the server ended before saying its address:\n{}",
                        seen.join("\n")
                    );
                }
            }
        };
        // Keep reading standard error, so that the server never blocks on it, and keep it.
        let log = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let kept = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let (lines, arrived) = &*kept;
                lines.lock().expect("the log").push(line);
                arrived.notify_all();
            }
        });
        HttpServer { child, url, log }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
