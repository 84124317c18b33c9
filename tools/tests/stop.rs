//! `serve` at SIGTERM and at Ctrl-C (SIGINT). Over HTTP it says it stops, accepts no
//! connection any more, and ends with success once its calls are answered; over stdio it reads
//! no more requests, answers those it read, and ends with success while its input is still
//! open.

#[path = "mcp/harness.rs"]
mod harness;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::{Workspace, tools_binary};
use serde_json::{Value, json};

fn stops_at(signal: &str) {
    let workspace = Workspace::new();
    let mut child = Command::new(tools_binary())
        .args(["serve", "--http", "127.0.0.1:0", "--drain", "5"])
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.path().join("game"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("serving MCP over Streamable HTTP at") {
        line.clear();
        assert_ne!(stderr.read_line(&mut line).unwrap(), 0, "ended first");
    }
    let address = line
        .split_whitespace()
        .find_map(|word| word.strip_prefix("http://"))
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    TcpStream::connect(&address).expect("it accepts connections while it serves");
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert!(status.success(), "{status:?}: {rest}");
    assert!(
        rest.contains("buril: stopping: no new connections; calls in flight have 5.0 s"),
        "{rest}"
    );
    assert!(TcpStream::connect(&address).is_err(), "still listening");
}

#[test]
fn sigterm_stops_the_http_server() {
    stops_at("-TERM");
}

#[test]
fn ctrl_c_stops_the_http_server() {
    stops_at("-INT");
}

fn stdio_stops_at(signal: &str) {
    let workspace = Workspace::new();
    let mut child = Command::new(tools_binary())
        .arg("serve")
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.path().join("game"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    let mut answer = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "stop", "version": "1"}}}),
    );
    assert_eq!(answer()["id"], 1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "scene_open", "arguments": {"path": "Assets/Scenes/Main.scene"}}}),
    );
    assert_eq!(answer()["result"]["isError"], false);
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Its input is still open: the server ended on its own.
    drop(stdin);
    let mut rest = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut rest)
        .unwrap();
    assert!(status.success(), "{status:?}: {rest}");
    assert!(
        rest.contains("buril: stopping: reading no more requests"),
        "{rest}"
    );
}

#[test]
fn sigterm_stops_the_stdio_server() {
    stdio_stops_at("-TERM");
}

#[test]
fn ctrl_c_stops_the_stdio_server() {
    stdio_stops_at("-INT");
}
