//! Starting MCP servers (the `tools` binary and the `mcp_fixture` example) and driving them
//! with the real clients: the Python `mcp` SDK (interop/mcp/client.py, in interop/.venv) and
//! the TypeScript SDK (interop/mcp/client.mjs, in interop/node_modules).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tempfile::TempDir;

/// How long one client run may take before the test fails.
const CLIENT_DEADLINE: Duration = Duration::from_secs(90);

const INSTALL: &str = "run `bash scripts/test.sh`, which installs the interop clients";

/// The workspace's root folder.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tools/ is inside the workspace")
        .to_path_buf()
}

/// A real MCP client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// The Python `mcp` SDK (2026-07-28 protocol, through `server/discover`).
    Python,
    /// The TypeScript SDK (2025-11-25 protocol, through `initialize`).
    TypeScript,
}

impl Client {
    /// The command that runs this client's script. Fails (never skips) when the client is
    /// not installed.
    fn command(self) -> Command {
        match self {
            Client::Python => {
                let python = python();
                let mut command = Command::new(python);
                command.arg(root().join("interop/mcp/client.py"));
                command
            }
            Client::TypeScript => {
                let sdk =
                    root().join("interop/node_modules/@modelcontextprotocol/sdk/package.json");
                assert!(
                    sdk.is_file(),
                    "the TypeScript MCP SDK is missing ({} does not exist): {INSTALL}",
                    sdk.display()
                );
                let mut command = Command::new("node");
                command.arg(root().join("interop/mcp/client.mjs"));
                command
            }
        }
    }

    /// Runs `scenario` with `spec` and answers the client's report. Fails the test with the
    /// client's (and the server's) standard error when the client fails.
    pub fn run(self, scenario: &str, spec: &Value) -> Value {
        let mut command = self.command();
        command
            .arg(scenario)
            .arg(spec.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = command
            .spawn()
            .unwrap_or_else(|error| panic!("{self:?} client cannot start ({error}): {INSTALL}"));
        let (status, stdout, stderr) = finish(child, CLIENT_DEADLINE);
        assert!(
            status == Some(true),
            "the {self:?} client failed running `{scenario}` ({}):\n{stderr}",
            if status.is_none() {
                "it did not finish in time".to_owned()
            } else {
                "it exited with an error".to_owned()
            }
        );
        serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
            panic!("the {self:?} client printed no report ({error}):\n{stdout}\n{stderr}")
        })
    }
}

/// The Python of interop/.venv, checked to have the `mcp` package.
fn python() -> PathBuf {
    static CHECKED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    CHECKED
        .get_or_init(|| {
            let python = root().join("interop/.venv/bin/python");
            if !python.is_file() {
                return Err(format!(
                    "the Python MCP client is missing ({} does not exist): {INSTALL}",
                    python.display()
                ));
            }
            let check = Command::new(&python)
                .args(["-c", "import mcp"])
                .output()
                .map_err(|error| format!("{} cannot run ({error}): {INSTALL}", python.display()))?;
            if !check.status.success() {
                return Err(format!(
                    "the Python `mcp` package is not installed in interop/.venv: {INSTALL}\n{}",
                    String::from_utf8_lossy(&check.stderr)
                ));
            }
            Ok(python)
        })
        .clone()
        .unwrap_or_else(|message| panic!("{message}"))
}

/// Waits for `child` at most `deadline`, killing it past that; answers whether it succeeded
/// (`None`: killed) and what it printed.
fn finish(mut child: Child, deadline: Duration) -> (Option<bool>, String, String) {
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    let until = Instant::now() + deadline;
    let status = loop {
        match child.try_wait().expect("the child can be waited for") {
            Some(status) => break Some(status.success()),
            None if Instant::now() >= until => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    (status, stdout.join().unwrap(), stderr.join().unwrap())
}

fn reader(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_string(&mut text);
        }
        text
    })
}

/// The `mcp_fixture` example binary, built once per test run.
pub fn fixture_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| example_binary("mcp_fixture")).clone()
}

/// The example binary `name` of the `tools` package, built now.
pub fn example_binary(name: &str) -> PathBuf {
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
        .current_dir(root())
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

/// The `tools` binary.
pub fn tools_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tools"))
}

/// A folder for one server: its current folder (where `.buril/` goes), a sample project for
/// the `tools` binary, and a config file.
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

    /// The config file's path, created with `text`.
    pub fn config(&self, text: &str) -> PathBuf {
        let path = self.path().join("server.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The spec of a stdio server: `binary serve ARGS`, run in this folder.
    pub fn stdio(&self, binary: &Path, args: &[&str]) -> Value {
        let mut command = vec![binary.display().to_string(), "serve".to_owned()];
        command.extend(args.iter().map(|a| (*a).to_owned()));
        json!({
            "command": command,
            "cwd": self.path(),
            "env": {
                "BURIL_PROJECT": self.path().join("game"),
                "RUST_BACKTRACE": "0",
            },
        })
    }

    /// Starts `binary serve --http 127.0.0.1:0 ARGS` in this folder.
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
    /// The spec for a client of this server.
    pub fn spec(&self) -> Value {
        json!({ "url": self.url })
    }

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

/// `spec` with the keys of `extra` added.
pub fn with(mut spec: Value, extra: Value) -> Value {
    if let (Value::Object(spec), Value::Object(extra)) = (&mut spec, extra) {
        spec.extend(extra);
    }
    spec
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

/// Waits, at most 30 s, for `child` to end: how it ended.
pub fn wait_for_exit(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "the process did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}
