//! The `tools` binary, built once by Cargo, and a `tools serve --http` on a sample project: what
//! the tests that call a real server share.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// Builds the `tools` binary (the example tools and the zoo's command line) and returns its
/// path, as Cargo reports it.
pub fn tools_binary() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace");
    let output = Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "tools",
            "--bin",
            "tools",
            "--message-format=json",
        ])
        .current_dir(workspace)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo build -p tools failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the tools executable")
}

/// `tools serve --http 127.0.0.1:0`, killed when dropped.
pub struct HttpServer {
    child: Child,
    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl HttpServer {
    pub fn start(tools: &Path, project: &Path) -> HttpServer {
        HttpServer::start_with(tools, project, &[])
    }

    /// [`HttpServer::start`] with more arguments of `tools serve`.
    pub fn start_with(tools: &Path, project: &Path, more: &[&str]) -> HttpServer {
        let mut child = Command::new(tools)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(more)
            .env("BURIL_PROJECT", project)
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
        // Keep reading standard error so that the server never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
