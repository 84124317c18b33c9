//! The HTTP limits as `serve` flags: `--header-timeout` and `--body-timeout` answer late
//! requests `408`, `--max-connections` answers one connection too many `503`, and values that
//! are not limits are refused before the server starts.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::harness::{Workspace, tools_binary};

/// What the server sends on `stream` until it closes it (within 10 s).
fn answer_of(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("the server answers and closes the connection");
    answer
}

#[test]
fn the_limits_flags_reach_the_server() {
    let workspace = Workspace::new();
    let server = workspace.http(
        &tools_binary(),
        &[
            "--header-timeout",
            "0.3",
            "--body-timeout",
            "0.3",
            "--max-connections",
            "4",
        ],
    );
    let authority = server.authority().to_owned();
    // Headers begun and never finished.
    let mut headers = TcpStream::connect(&authority).unwrap();
    write!(headers, "POST /mcp HTTP/1.1\r\nHost: {authority}\r\n").unwrap();
    // A body begun and never finished.
    let mut body = TcpStream::connect(&authority).unwrap();
    write!(
        body,
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{{"
    )
    .unwrap();
    let late = answer_of(&mut headers);
    assert!(late.starts_with("HTTP/1.1 408 "), "{late:?}");
    assert!(late.contains("headers did not arrive in time"), "{late:?}");
    let late = answer_of(&mut body);
    assert!(late.starts_with("HTTP/1.1 408 "), "{late:?}");
    assert!(late.contains("body did not arrive in time"), "{late:?}");
    // Four connections held: a fifth is refused. The server takes connections off its
    // listener in the order they were made, so the cap is full when it takes the fifth: there
    // is nothing to wait for (and the held connections, idle, have only the header timeout
    // before the server closes them).
    let held: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(&authority).unwrap())
        .collect();
    let mut fifth = TcpStream::connect(&authority).unwrap();
    let busy = answer_of(&mut fifth);
    assert!(busy.starts_with("HTTP/1.1 503 "), "{busy:?}");
    assert!(busy.contains("retry-after: 1"), "{busy:?}");
    drop(held);
}

#[test]
fn values_that_are_not_limits_are_refused_before_serving() {
    let workspace = Workspace::new();
    for (flag, value, said) in [
        (
            "--body-timeout",
            "0",
            "--body-timeout takes a positive number of seconds",
        ),
        (
            "--header-timeout",
            "-1",
            "--header-timeout takes a positive number of seconds",
        ),
        (
            "--max-connections",
            "0",
            "--max-connections takes a number of connections, at least 1",
        ),
        (
            "--drain",
            "-2",
            "--drain takes a number of seconds, 0 or more",
        ),
    ] {
        let output = Command::new(tools_binary())
            .args(["serve", "--http", "127.0.0.1:0", &format!("{flag}={value}")])
            .current_dir(workspace.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(said), "{flag} {value}: {stderr}");
        assert!(!stderr.contains("serving MCP"), "{stderr}");
    }
}
