//! Starting servers (the `tools` binary and the `mcp_fixture` example) in a folder of their own
//! and speaking to them: over HTTP, once they say where they listen, or over their standard
//! input and output, a JSON-RPC message a line.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};
use tempfile::TempDir;

/// The `tools` binary.
pub fn tools_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tools"))
}

/// The `mcp_fixture` example binary, built once per test run.
pub fn fixture_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| example_binary("mcp_fixture")).clone()
}

/// The example binary `name` of the `tools` package, built now.
fn example_binary(name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--package",
            "tools",
            "--example",
            name,
            "--message-format=json",
        ])
        .current_dir(buril_test_support::bin::workspace())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building the {name} example failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["target"]["name"] == name)
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo names the {name} executable"))
}

/// A folder for one server: its current folder (where `.buril/` goes) and a sample project for
/// the `tools` binary.
pub struct Workspace {
    pub dir: TempDir,
}

impl Workspace {
    pub fn new() -> Self {
        Workspace {
            dir: TempDir::new().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Starts `binary serve --http 127.0.0.1:0 ARGS` in this folder, and waits for the line
    /// that says where it listens.
    pub fn http(&self, binary: &Path, args: &[&str]) -> HttpServer {
        let mut child = Command::new(binary)
            .arg("serve")
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .current_dir(self.path())
            .env("BURIL_PROJECT", self.path().join("game"))
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        // Lines before the one that says where it listens (authorization, warnings) are kept
        // for the panic message.
        let mut line = String::new();
        let mut before = String::new();
        loop {
            line.clear();
            if stderr.read_line(&mut line).unwrap() == 0 {
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

/// A server over HTTP, stopped when dropped.
pub struct HttpServer {
    child: Child,
    pub url: String,
}

impl HttpServer {
    /// `host:port`.
    pub fn authority(&self) -> &str {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A program (`tools serve …`, or a wrapper that runs it) spoken to over its standard input and
/// output, a JSON-RPC message a line.
pub struct StdioClient {
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl StdioClient {
    /// `command` run in `workspace` with its sample project, its standard error as `stderr`.
    pub fn start(mut command: Command, workspace: &Workspace, stderr: Stdio) -> StdioClient {
        let mut child = command
            .current_dir(workspace.path())
            .env("BURIL_PROJECT", workspace.path().join("game"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        StdioClient {
            child,
            stdin,
            stdout,
        }
    }

    pub fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("the input is open");
        writeln!(stdin, "{message}").unwrap();
    }

    /// The next message the server writes.
    pub fn answer(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line:?}"))
    }

    /// `initialize` (2025-11-25, no capabilities) answered, then `notifications/initialized`.
    pub fn initialize(&mut self) {
        self.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "tools-test", "version": "1"}}}),
        );
        assert_eq!(self.answer()["id"], 1);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// A `tools/call` of `tool` with `arguments`: its result.
    pub fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": tool, "arguments": arguments}}),
        );
        let answer = self.answer();
        assert_eq!(answer["id"], id, "{answer}");
        answer["result"].clone()
    }

    /// Closes the server's input.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }
}
