//! `serve --http` at SIGTERM and at Ctrl-C (SIGINT): it says it stops, accepts no connection
//! any more, and ends with success once its calls are answered.

#[path = "mcp/harness.rs"]
mod harness;

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::{Workspace, tools_binary};

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
