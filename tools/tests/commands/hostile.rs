//! Hostile input: the checked-in corpus (`tests/hostile/cases/`, written by
//! `tests/hostile/generate.py`) and inputs too large to store (50 MB strings, 100 000 levels of
//! nesting, huge batches), through the dispatcher, the `tools call` CLI and the MCP server over
//! stdio. Every input is refused with a clear error; nothing crashes or hangs, and the server
//! answers a valid request after each one.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use buril::{Dispatcher, InputLimits};
use buril_test_support::{WAIT, process::wait_for_exit, wait_until};
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::common::Fixture;
use crate::harness;

const DEFAULT_MAX_INPUT_BYTES: usize = InputLimits::DEFAULT.max_bytes;
const DEFAULT_MAX_INPUT_DEPTH: usize = InputLimits::DEFAULT.max_depth;

/// One corpus case: the tool's name and the raw input bytes.
struct Case {
    file: String,
    tool: String,
    raw: Vec<u8>,
}

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus folder")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "case"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            let newline = bytes.iter().position(|&b| b == b'\n').expect("a tool line");
            Case {
                file: path.file_name().unwrap().to_string_lossy().into_owned(),
                tool: String::from_utf8(bytes[..newline].to_vec()).unwrap(),
                raw: bytes[newline + 1..].to_vec(),
            }
        })
        .collect()
}

/// A JSON array nested `levels` deep, as text.
fn deep_text(levels: usize) -> Vec<u8> {
    let mut text = vec![b'['; levels];
    text.extend(std::iter::repeat_n(b']', levels));
    text
}

/// A 50 MB string input, as text.
fn huge_text() -> Vec<u8> {
    let mut text = b"{\"path\": \"".to_vec();
    text.extend(std::iter::repeat_n(b'a', 50 * 1024 * 1024));
    text.extend_from_slice(b"\"}");
    text
}

/// The envelope of a refused call: a failure of a kind the caller can act on, with a message.
fn assert_refused(envelope: &Value, what: &str) {
    assert_eq!(envelope["ok"], false, "{what} was accepted: {envelope}");
    let kind = envelope["type"].as_str().unwrap_or_default();
    assert!(
        ["validation", "not_found", "disabled"].contains(&kind),
        "{what}: unexpected type {kind}: {envelope}"
    );
    let error = envelope["error"].as_str().unwrap_or_default();
    assert!(error.len() > 10, "{what}: no clear error: {envelope}");
}

#[test]
fn the_corpus_is_large_enough() {
    let cases = corpus();
    assert!(cases.len() >= 200, "only {} cases", cases.len());
}

#[test]
fn the_dispatcher_refuses_every_corpus_input() {
    let fixture = Fixture::new();
    let mut parsed = 0;
    for case in corpus() {
        // Text that is not JSON never reaches a dispatcher: its caller's parser refuses it.
        let Ok(input) = serde_json::from_slice::<Value>(&case.raw) else {
            continue;
        };
        parsed += 1;
        let envelope = fixture.dispatch(&case.tool, input);
        assert_refused(&envelope, &case.file);
    }
    assert!(parsed >= 200, "only {parsed} cases parse as JSON");
}

#[test]
fn the_dispatcher_refuses_deep_and_huge_values_without_overflowing() {
    let fixture = Fixture::new();
    // Built (and freed, by the dispatcher) without recursion.
    let mut deep = json!(1);
    for _ in 0..100_000 {
        deep = Value::Array(vec![deep]);
    }
    let envelope = fixture.dispatch("scene_open", json!({}));
    assert_refused(&envelope, "missing path");
    let envelope = fixture.dispatch("scene_open", deep);
    assert_refused(&envelope, "100 000 levels");
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .contains(&format!("more than {DEFAULT_MAX_INPUT_DEPTH} levels")),
        "{envelope}"
    );

    let huge = json!({"path": "a".repeat(50 * 1024 * 1024)});
    let envelope = fixture.dispatch("scene_open", huge);
    assert_refused(&envelope, "50 MB");
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .contains(&format!("larger than {DEFAULT_MAX_INPUT_BYTES} bytes")),
        "{envelope}"
    );

    // The limits are configurable.
    let strict = Dispatcher::builder()
        .max_input_bytes(64)
        .max_input_depth(2)
        .build();
    assert_eq!(
        (
            strict.input_limits().max_bytes,
            strict.input_limits().max_depth
        ),
        (64, 2)
    );
    let envelope = strict
        .invoke(
            "scene_list",
            json!({"a": [[1]]}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_refused(&envelope, "3 levels under a limit of 2");
    let envelope = strict
        .invoke(
            "scene_list",
            json!({"a": "b".repeat(100)}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_refused(&envelope, "over 64 bytes");
    // Within the limits, calls go on as before.
    assert_eq!(fixture.dispatch("scene_list", json!({}))["ok"], true);
}

fn cli(project: &Path, tool: &str, stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tools"))
        .args(["call", "--compact", tool, "-"])
        .env("BURIL_PROJECT", project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tools binary runs");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    // The binary may stop reading early (past its limit): a broken pipe is expected then.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn assert_cli_refused(output: &Output, what: &str) -> Value {
    assert_eq!(
        output.status.code(),
        Some(1),
        "{what}: exit {:?}, stderr {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let envelope: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{what}: not an envelope ({e})"));
    assert_refused(&envelope, what);
    envelope
}

#[test]
fn the_cli_refuses_every_corpus_input() {
    let dir = TempDir::new().unwrap();
    let project = dir.path().join("game");
    // Seed the project once, before the parallel calls.
    let output = cli(&project, "scene_list", b"{}");
    assert_eq!(output.status.code(), Some(0));
    let cases = corpus();
    let chunks: Vec<&[Case]> = cases.chunks(cases.len().div_ceil(8)).collect();
    std::thread::scope(|scope| {
        for chunk in chunks {
            let project = &project;
            scope.spawn(move || {
                for case in chunk {
                    let output = cli(project, &case.tool, &case.raw);
                    assert_cli_refused(&output, &case.file);
                }
            });
        }
    });
}

#[test]
fn the_cli_refuses_huge_deep_and_non_utf8_input() {
    let dir = TempDir::new().unwrap();
    let project = dir.path().join("game");
    let envelope = assert_cli_refused(&cli(&project, "scene_open", &huge_text()), "50 MB");
    assert!(envelope["error"].as_str().unwrap().contains("larger than"));
    let envelope = assert_cli_refused(
        &cli(&project, "scene_open", &deep_text(100_000)),
        "100 000 levels",
    );
    assert!(envelope["error"].as_str().unwrap().contains("levels deep"));
    let envelope = assert_cli_refused(
        &cli(&project, "scene_open", b"{\"path\": \"\xff\"}"),
        "invalid UTF-8",
    );
    assert!(envelope["error"].as_str().unwrap().contains("UTF-8"));
}

/// A `tools serve` child over stdio, its output lines on a channel.
struct Server {
    _dir: TempDir,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start() -> Server {
        let dir = TempDir::new().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_tools"))
            .arg("serve")
            .current_dir(dir.path())
            .env("BURIL_PROJECT", dir.path().join("game"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            _dir: dir,
            child,
            stdin,
            lines,
            next_id: 1_000_000,
        };
        server.send(
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#,
        );
        let (answer, _) = server.until(0);
        assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
        server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send(&mut self, frame: &[u8]) {
        self.stdin.write_all(frame).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads until the answer with `id`; returns it and every other line read before it.
    fn until(&mut self, id: u64) -> (Value, Vec<Value>) {
        let mut others = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no answer to {id}; read {others:?}"));
            let value: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("the server wrote a line that is not JSON ({e})"));
            if value["id"] == json!(id) {
                return (value, others);
            }
            others.push(value);
        }
    }

    /// Sends a hostile frame then a ping; returns the lines answering the frame (waiting for
    /// the answer with `expect`, when given: calls run concurrently, so it may come after the
    /// ping's). The ping's answer proves the server still serves.
    fn hostile(&mut self, frame: &[u8], expect: Option<u64>) -> Vec<Value> {
        self.send(frame);
        self.next_id += 1;
        let ping = self.next_id;
        self.send(format!(r#"{{"jsonrpc":"2.0","id":{ping},"method":"ping"}}"#).as_bytes());
        let (answer, mut others) = self.until(ping);
        assert!(answer["result"].is_object(), "ping: {answer}");
        if let Some(id) = expect
            && !others.iter().any(|a| a["id"] == json!(id))
        {
            let (answer, more) = self.until(id);
            others.extend(more);
            others.push(answer);
        }
        others
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether an answer is an error: a JSON-RPC error, or a tool result flagged `isError`.
fn is_error(answer: &Value) -> bool {
    answer["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty())
        || (answer["result"]["isError"] == true
            && answer["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty()))
}

#[test]
fn the_mcp_server_refuses_every_corpus_input_and_keeps_serving() {
    let mut server = Server::start();
    // Three passes over the corpus: the first warms up (every tool's validator is built on
    // first use), the next two must not grow the server's memory: nothing leaks per input.
    let mut after_first = 0;
    for pass in 0..3u64 {
        run_corpus_pass(&mut server, pass);
        let rss = resident_kib(server.child.id());
        if pass == 0 {
            after_first = rss;
        }
        eprintln!("resident set after pass {pass}: {rss} KiB");
    }
    let last = resident_kib(server.child.id());
    assert!(
        last <= after_first + 8 * 1024,
        "the server grew from {after_first} KiB to {last} KiB over two more passes"
    );
}

/// The resident set of a process, in KiB (Linux).
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in /proc/{pid}/status"))
}

fn run_corpus_pass(server: &mut Server, pass: u64) {
    for (index, case) in corpus().iter().enumerate() {
        let id = pass * 100_000 + index as u64 + 1;
        // The raw input goes in as the call's arguments, newlines and invalid bytes included.
        let mut frame = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{},"arguments":"#,
            json!(case.tool)
        )
        .into_bytes();
        let raw: Vec<u8> = case
            .raw
            .iter()
            .map(|&b| if b == b'\n' { b' ' } else { b })
            .collect();
        frame.extend_from_slice(&raw);
        frame.extend_from_slice(b"}}");
        let well_formed = serde_json::from_slice::<Value>(&frame).is_ok();
        let answers = server.hostile(&frame, well_formed.then_some(id));
        for answer in &answers {
            assert!(is_error(answer), "{}: {answer}", case.file);
        }
        let answered = answers.iter().any(|a| a["id"] == json!(id));
        if well_formed {
            assert!(answered, "{}: no answer, read {answers:?}", case.file);
        } else {
            // A frame that is not JSON is answered with a parse error (`id: null`), before
            // the next message's answer.
            assert!(
                answers.iter().any(|a| a["error"]["code"] == json!(-32700)),
                "{}: no parse error, read {answers:?}",
                case.file
            );
        }
    }
}

#[test]
fn the_mcp_server_survives_huge_deep_truncated_and_batched_frames() {
    let mut server = Server::start();
    let mut frames: Vec<(&str, Vec<u8>)> = vec![
        (
            "truncated",
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/ca"#.to_vec(),
        ),
        (
            "invalid UTF-8",
            b"\xff\xfe\xfd{\"jsonrpc\":\"2.0\"}".to_vec(),
        ),
        ("not JSON-RPC", br#"{"hello":"world"}"#.to_vec()),
        ("empty batch", b"[]".to_vec()),
        ("100 000 levels", deep_text(100_000)),
    ];
    let mut deep_call =
        br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"scene_open","arguments":{"path":"#.to_vec();
    deep_call.extend(deep_text(100_000));
    deep_call.extend_from_slice(b"}}}");
    frames.push(("100 000 levels in the arguments", deep_call));
    let mut huge = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"scene_open","arguments":"#.to_vec();
    huge.extend(huge_text());
    huge.extend_from_slice(b"}}");
    frames.push(("50 MB", huge));
    let batch: Vec<Value> = (0..20_000)
        .map(|i| json!({"jsonrpc": "2.0", "id": 10_000 + i, "method": "tools/list"}))
        .collect();
    frames.push(("a batch of 20 000", serde_json::to_vec(&batch).unwrap()));
    for (what, frame) in &frames {
        let answers = server.hostile(frame, None);
        assert!(!answers.is_empty(), "{what}: no answer");
        for answer in &answers {
            assert!(is_error(answer), "{what}: {answer}");
        }
    }
    // The answers say what was wrong.
    let answers = server.hostile(b"\xff\xfe", None);
    let message = answers[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("not UTF-8"), "{message}");
    assert_eq!(answers[0]["error"]["code"], -32700);
    // A call just under the limits still works.
    let path = "a".repeat(DEFAULT_MAX_INPUT_BYTES / 2);
    let frame = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "scene_open", "arguments": {"path": path}}});
    server.send(&serde_json::to_vec(&frame).unwrap());
    let (answer, _) = server.until(8);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("larger than"), "{text}");
}

#[test]
fn a_client_that_disconnects_mid_call_ends_the_stdio_session_cleanly() {
    // The call below would last an hour, and its timeout too: a server that waited for it
    // would not end within the test's longest wait for an event that must come (`WAIT`).
    let dir = TempDir::new().unwrap();
    let mut child = Command::new(harness::fixture_binary())
        .args(["serve", "--timeout", "3600"])
        .current_dir(dir.path())
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the fixture server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |frame: &str| {
        stdin.write_all(frame.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    send(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"leaver","version":"1"}}}"#,
    );
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("serverInfo"), "{line}");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_sleep","arguments":{"ms":3600000}}}"#,
    );
    // Mid-call: asked through another call, the server says the sleep has started. A thread
    // reads its answers and, once it has that one, lets the output pipe go.
    let (answers, answered) = mpsc::channel::<Value>();
    let reader = std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { return false };
            let Ok(answer) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let started = answer["result"]["structuredContent"]["sleeps_started"] == 1;
            if answers.send(answer).is_err() || started {
                return started;
            }
        }
        false
    });
    let mut id = 1;
    wait_until("the server to say `fixture_sleep` started", || {
        id += 1;
        send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"fixture_stats","arguments":{{}}}}}}"#
        ));
        let answer = loop {
            let answer = answered
                .recv_timeout(WAIT)
                .expect("the server did not answer fixture_stats");
            if answer["id"] == id {
                break answer;
            }
        };
        answer["result"]["structuredContent"]["sleeps_started"] == 1
    });
    assert!(reader.join().unwrap(), "the reader stopped early");
    // The client goes away mid-call: both pipes close (the reader has let its own go).
    drop(stdin);
    let status = wait_for_exit(&mut child, "the server to end after its client left");
    assert!(
        status.code().is_some(),
        "the server died by a signal: {status}"
    );
}

#[test]
fn http_clients_that_disconnect_mid_request_do_not_stop_the_others() {
    use std::io::Read;
    use std::net::TcpStream;

    let workspace = harness::Workspace::new();
    let server = workspace.http(&harness::fixture_binary(), &[]);
    let here = server.authority().to_owned();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let request = |body: &str, length: usize| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {here}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\
             Connection: close\r\n\r\n{body}"
        )
    };
    for round in 0..20 {
        // Half a body, then gone.
        let mut leaver = TcpStream::connect(&here).unwrap();
        let half = &initialize[..initialize.len() / 2];
        leaver
            .write_all(request(half, initialize.len()).as_bytes())
            .unwrap();
        drop(leaver);
        // A truncated header, then gone.
        let mut leaver = TcpStream::connect(&here).unwrap();
        leaver.write_all(b"POST /mcp HTTP/1.1\r\nHost: ").unwrap();
        drop(leaver);
        // A whole request still gets its answer.
        let mut client = TcpStream::connect(&here).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        client
            .write_all(request(initialize, initialize.len()).as_bytes())
            .unwrap();
        let mut head = [0u8; 12];
        client.read_exact(&mut head).unwrap();
        assert_eq!(&head[9..12], b"200", "round {round}");
    }
}

#[test]
fn http_bodies_past_the_input_limit_are_refused_before_they_are_read() {
    use std::io::Read;
    use std::net::TcpStream;

    let workspace = harness::Workspace::new();
    let server = workspace.http(&harness::fixture_binary(), &[]);
    let here = server.authority().to_owned();
    let post = |length: usize| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {here}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\
             Connection: close\r\n\r\n"
        )
    };
    // 50 MB announced; the server answers once the first megabytes pass the limit, without
    // waiting for (or buffering) the rest.
    let mut client = TcpStream::connect(&here).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    client.write_all(post(50_000_000).as_bytes()).unwrap();
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..8 {
        if client.write_all(&chunk).is_err() {
            break; // the server closed the connection after answering
        }
    }
    let mut answer = String::new();
    let _ = client.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("exceeds"), "{answer}");
    // The server goes on serving.
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let mut client = TcpStream::connect(&here).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    client
        .write_all(format!("{}{initialize}", post(initialize.len())).as_bytes())
        .unwrap();
    let mut head = [0u8; 12];
    client.read_exact(&mut head).unwrap();
    assert_eq!(&head[9..12], b"200");
}

/// An HTTP body the server cannot read as a message is answered as the stdio transport answers
/// such a line: a JSON-RPC error, `-32700` for what is not JSON and `-32600` for JSON that is
/// not a message, with the request's id or `"id": null` (JSON-RPC 2.0, section 5).
#[test]
fn http_messages_that_cannot_be_read_are_answered_as_json_rpc_errors() {
    use std::io::Read;
    use std::net::TcpStream;

    let workspace = harness::Workspace::new();
    let server = workspace.http(&harness::fixture_binary(), &[]);
    let here = server.authority().to_owned();
    let post = |body: &[u8]| -> (String, Value) {
        let mut client = TcpStream::connect(&here).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {here}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            body.len()
        );
        client.write_all(head.as_bytes()).unwrap();
        client.write_all(body).unwrap();
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).unwrap();
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head.lines().next().unwrap().to_owned();
        let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"));
        (status, body)
    };
    for (body, code, reason) in [
        (&b"not json"[..], -32700, "expected ident"),
        (b"{\"jsonrpc\": \"2.0\", \"id\": 1", -32700, "EOF"),
        (b"\xff\xfe", -32700, "not UTF-8"),
        (b"{\"hello\": 1}", -32600, "not a JSON-RPC message"),
    ] {
        let (status, answer) = post(body);
        assert!(status.starts_with("HTTP/1.1 400"), "{status}: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["error"]["code"], code, "{answer}");
        assert_eq!(answer.get("id"), Some(&Value::Null), "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(reason), "{message}");
    }
    // Well-formed JSON with an id that is not a valid message: answered with its id.
    let (status, answer) =
        post(br#"{"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": 7}"#);
    assert!(status.starts_with("HTTP/1.1 400"), "{status}: {answer}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer["id"], 42, "{answer}");
}

/// Standard input and output that are files, not pipes (the server reads pipes through the
/// reactor and anything else through tokio's blocking reader): the session works the same.
#[test]
fn the_stdio_server_reads_and_writes_files_as_well_as_pipes() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("in.jsonl");
    let output = dir.path().join("out.jsonl");
    std::fs::write(
        &input,
        concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"files","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\nnot json\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"scene_list","arguments":{}}}"#,
            "\n",
        ),
    )
    .unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_tools"))
        .arg("serve")
        .current_dir(dir.path())
        .env("BURIL_PROJECT", dir.path().join("game"))
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::fs::File::create(&output).unwrap())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    let answers: Vec<Value> = std::fs::read_to_string(&output)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert!(answers[0]["result"]["serverInfo"].is_object());
    assert_eq!(answers[1]["error"]["code"], -32700);
    // JSON-RPC 2.0, section 5: an id that cannot be read is answered as `"id": null`.
    assert_eq!(answers[1].get("id"), Some(&Value::Null), "{}", answers[1]);
    assert_eq!(answers[2]["id"], 2);
    assert!(
        answers[2]["result"]["structuredContent"].is_object(),
        "{}",
        answers[2]
    );
}
