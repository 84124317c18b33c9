//! A folder for one server process of a test: its current folder (where `.buril/` goes), the
//! sample project the `tools` binary opens in it (`game/`), a config file, and the server
//! started there over Streamable HTTP.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

/// A temporary folder for one server.
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace::new()
    }
}

impl Workspace {
    pub fn new() -> Self {
        Workspace {
            dir: tempfile::TempDir::new().expect("a temporary folder"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The sample project the `tools` binary opens (`BURIL_PROJECT`).
    pub fn project(&self) -> PathBuf {
        self.path().join("game")
    }

    /// The config file's path, created with `text`.
    pub fn config(&self, text: &str) -> PathBuf {
        let path = self.path().join("server.toml");
        std::fs::write(&path, text).expect("the config file is written");
        path
    }

    /// `command` set to run in this folder, on its sample project.
    pub fn command(&self, binary: &Path) -> Command {
        let mut command = Command::new(binary);
        command
            .current_dir(self.path())
            .env("BURIL_PROJECT", self.project())
            .env("RUST_BACKTRACE", "0");
        command
    }

    /// The spec of a stdio server, `binary serve ARGS` run in this folder, as the SDK
    /// harnesses read it (`command`, `cwd`, `env`).
    pub fn stdio(&self, binary: &Path, args: &[&str]) -> Value {
        let mut command = vec![binary.display().to_string(), "serve".to_owned()];
        command.extend(args.iter().map(|a| (*a).to_owned()));
        json!({
            "command": command,
            "cwd": self.path(),
            "env": {
                "BURIL_PROJECT": self.project(),
                "RUST_BACKTRACE": "0",
            },
        })
    }

    /// Starts `binary serve --http 127.0.0.1:0 ARGS` in this folder, and waits for the line
    /// that says where it listens.
    pub fn http(&self, binary: &Path, args: &[&str]) -> HttpServer {
        let mut child = self
            .command(binary)
            .arg("serve")
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("its standard error"));
        // Lines before the one that says where it listens (authorization, warnings) are kept
        // for the panic message.
        let mut line = String::new();
        let mut before = String::new();
        loop {
            line.clear();
            if stderr.read_line(&mut line).unwrap_or(0) == 0 {
                panic!("the server ended before it listened:\n{before}");
            }
            if line.contains("serving MCP over Streamable HTTP at") {
                break;
            }
            before.push_str(&line);
        }
        let url = line
            .split_whitespace()
            .find(|word| word.starts_with("http://"))
            .unwrap_or_else(|| panic!("the server did not say where it listens: {line:?}"))
            .to_owned();
        // Keep reading, so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
        });
        HttpServer { child, url }
    }
}

/// A server over Streamable HTTP, stopped when dropped.
pub struct HttpServer {
    child: Child,
    /// Its endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl HttpServer {
    /// The spec for an SDK harness's client of this server.
    pub fn spec(&self) -> Value {
        json!({ "url": self.url })
    }

    /// `host:port`.
    pub fn authority(&self) -> &str {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
    }

    /// The server's process.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
