//! `serve` at SIGTERM and at Ctrl-C (SIGINT). Over HTTP it says it stops, accepts no
//! connection any more, and ends with success once its calls are answered; over stdio it reads
//! no more requests, answers those it read, and ends with success while its input is still
//! open.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use buril_test_support::process::wait_for_exit;
use serde_json::json;

use buril_test_support::peer::BlockingPeer;

use crate::harness::{Workspace, tools_binary};

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
    let status = wait_for_exit(&mut child, &format!("the HTTP server to stop at {signal}"));
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
    let mut command = Command::new(tools_binary());
    command.arg("serve");
    command
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.project())
        .stderr(Stdio::piped());
    let mut client = BlockingPeer::spawn(command);
    client.initialize();
    let opened = client.call("scene_open", json!({"path": "Assets/Scenes/Main.scene"}));
    assert_eq!(opened["result"]["isError"], false, "{opened}");
    let sent = Command::new("kill")
        .args([signal, &client.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    // Its input is still open: the server ends on its own.
    let status = client.wait_for_exit(&format!("the stdio server to stop at {signal}"));
    let rest = client.stderr_to_end();
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
