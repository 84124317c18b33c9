//! Starting MCP servers (the `tools` binary and the `mcp_fixture` example) and driving them
//! with the real clients: the Python `mcp` SDK (interop/mcp/client.py, in interop/.venv) and
//! the TypeScript SDK (interop/mcp/client.mjs, in interop/node_modules).

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use buril_test_support::bin;
use serde_json::Value;

/// How long one client run may take before the test fails.
const CLIENT_DEADLINE: Duration = Duration::from_secs(90);

const INSTALL: &str = "run `bash scripts/test.sh`, which installs the interop clients";

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
                command.arg(bin::workspace().join("interop/mcp/client.py"));
                command
            }
            Client::TypeScript => {
                let sdk = bin::workspace()
                    .join("interop/node_modules/@modelcontextprotocol/sdk/package.json");
                assert!(
                    sdk.is_file(),
                    "the TypeScript MCP SDK is missing ({} does not exist): {INSTALL}",
                    sdk.display()
                );
                let mut command = Command::new("node");
                command.arg(bin::workspace().join("interop/mcp/client.mjs"));
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
            let python = bin::workspace().join("interop/.venv/bin/python");
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
    let pid = child.id().to_string();
    let (ended, end) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = ended.send(child.wait().expect("the child can be waited for"));
    });
    let status = match end.recv_timeout(deadline) {
        Ok(status) => Some(status.success()),
        Err(_) => {
            // Not reaped while its waiter waits: the pid is still the child's.
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            None
        }
    };
    waiter.join().unwrap();
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

/// The `tools` package's `mcp_fixture` example, whose tools panic, sleep past their timeout
/// and answer megabytes on purpose.
pub fn fixture_binary() -> PathBuf {
    bin::cargo_example("tools", "mcp_fixture")
}

// The workspace the clients are run in is the test-support crate's.
#[allow(unused_imports)]
pub use buril_test_support::workspace::Workspace;

/// `spec` with the keys of `extra` added.
pub fn with(mut spec: Value, extra: Value) -> Value {
    if let (Value::Object(spec), Value::Object(extra)) = (&mut spec, extra) {
        spec.extend(extra);
    }
    spec
}
